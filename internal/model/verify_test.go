package model

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"starbench/internal/fio"
)

func verifyJob(opts ...fio.Option) fio.Job {
	return fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 16, Size: 1 << 30,
		Options: append([]fio.Option{{Key: "verify", Value: "crc32c"}}, opts...)}
}

// A writing job with verify runs as fio runs it: its writes, then a pass
// reading back the blocks they wrote at the job's depth. Its write row is
// the job's without verify, its read row a random read of the same 1 GiB
// on the disks as the writes left them, each over its own time; the
// samples follow one another and the run lasts both passes.
func TestVerifyReadsBackAfterTheWrites(t *testing.T) {
	ws := workers(4, 2, "r5")
	row := func(res *fio.Result, dir string) fio.Row {
		t.Helper()
		for _, r := range res.Aggregate {
			if r.Direction == dir {
				return r
			}
		}
		t.Fatalf("no %s aggregate in %+v", dir, res.Aggregate)
		return fio.Row{}
	}
	plain, _ := newTestPlane(t)
	writes := verifyJob()
	writes.Options = nil
	wrote := runJob(t, plain, ws, writes)
	read := verifyJob()
	read.RW, read.Options = "randread", nil
	readBack := runJob(t, plain, ws, read)

	pl, _ := newTestPlane(t)
	res := runJob(t, pl, ws, verifyJob())
	w, r := row(res, "write"), row(res, "read")
	if want := row(wrote, "write"); !nearRel(w.IOPS, want.IOPS, 1e-9) || !nearRel(w.LatMeanUs, want.LatMeanUs, 1e-9) {
		t.Errorf("write row %.0f IOPS %.0f us, want the writes alone: %.0f IOPS %.0f us", w.IOPS, w.LatMeanUs, want.IOPS, want.LatMeanUs)
	}
	if want := row(readBack, "read"); !nearRel(r.IOPS, want.IOPS, 1e-9) || !nearRel(r.LatMeanUs, want.LatMeanUs, 1e-9) {
		t.Errorf("read row %.0f IOPS %.0f us, want a random read of what was written: %.0f IOPS %.0f us", r.IOPS, r.LatMeanUs, want.IOPS, want.LatMeanUs)
	}
	if row(res, "total").IOPS == 0 {
		t.Error("no total row over the two directions")
	}
	tw, tr := lastSampleTS(wrote), lastSampleTS(readBack)
	if end := lastSampleTS(res); !nearRel(end, tw+tr, 1e-9) {
		t.Errorf("the samples end at %g s, want the writes' %g s and the read-back's %g s", end, tw, tr)
	}
	bytes := 8.0 * (1 << 30)
	if moved := r.IOPS * tr * 4096; !nearRel(moved, bytes, 1e-6) {
		t.Errorf("the read-back moved %.4g bytes, want the %.4g written", moved, bytes)
	}
	// Samples are whole intervals: the one holding the writes' end has
	// both, its writes over the whole interval as fio logs them (fio
	// 3.33: writes at 46 MB/s ending 0.445 s into a 1 s interval are
	// logged at 20.5 MB/s).
	dt := sampleInterval(tw + tr)
	for _, s := range res.Samples {
		if s.Direction == "write" && s.TS-dt >= tw || s.Direction == "read" && s.TS <= tw {
			t.Errorf("a %s sample at %g s: the writes end at %g s, the reads follow", s.Direction, s.TS, tw)
			break
		}
	}
	notes := strings.Join(res.Notes, "\n")
	cut := "fio would stop reading back at the runtime"
	if strings.Contains(notes, cut) {
		t.Errorf("notes %q: a job without a runtime reads the whole pass back", res.Notes)
	}
	if strings.Contains(notes, "verify pass: 0 % of the blocks read were never written") {
		t.Errorf("notes %q: the read-back reads only written blocks; a share that rounds to 0 %% is not worth a note", res.Notes)
	}
	if !strings.Contains(notes, "verify=crc32c: after its writes") || strings.Contains(notes, "verify=crc32c is not modelled") {
		t.Errorf("notes %q: want the read-back pass said, and no option left unmodelled", res.Notes)
	}
	bound, _, _ := strings.Cut(strings.TrimPrefix(bottleneckNote(readBack), bottleneckPrefix), ";")
	if !strings.Contains(notes, "bound by "+bound) {
		t.Errorf("notes %q: want the read-back's bottleneck, %q, said", res.Notes, bound)
	}

	// A runtime that ends within the read-back stops it there, as fio
	// does (fio 3.33: 64 MiB written in 1 s, then read back for 500 of
	// the 800 ms it needed, under runtime=1500ms): the samples end at the
	// runtime, the read-back's rates unchanged.
	pl, _ = newTestPlane(t)
	short := verifyJob()
	short.RuntimeSec = int(tw + tr/2)
	res = runJob(t, pl, ws, short)
	if end := lastSampleTS(res); !nearRel(end, float64(short.RuntimeSec), 1e-9) {
		t.Errorf("runtime %d s, the writes %.1f s and the read-back %.1f s: the samples end at %g s, want the runtime", short.RuntimeSec, tw, tr, end)
	}
	if got, want := row(res, "read"), row(readBack, "read"); !nearRel(got.IOPS, want.IOPS, 1e-9) {
		t.Errorf("a read-back cut short reads at %.0f IOPS, want its rate, %.0f", got.IOPS, want.IOPS)
	}
	way := fmt.Sprintf("fio stops reading back at the job's runtime (%d s), %.0f %% of the way through the blocks written", short.RuntimeSec, 100*(float64(short.RuntimeSec)-tw)/tr)
	if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, way) {
		t.Errorf("notes %q lack %q", res.Notes, way)
	}
}

// A mixed job with verify reads back what it wrote after its mix (fio
// 3.33: a 16 MiB randrw moved 16 MiB, 2,104 of its 4,096 I/Os writes, then
// read those back). Its write row is the mix's; its read row counts the
// mix's reads and the read-back's over both their times, so over the run
// it read as many bytes as the mix moved, as fio's read row has it.
func TestVerifyReadsBackWhatAMixWrote(t *testing.T) {
	ctx := context.Background()
	ws := workers(4, 2, "r5")
	mix := verifyJob()
	mix.RW, mix.RWMixRead = "randrw", 70
	plain := mix
	plain.Options = nil
	pl, _ := newTestPlane(t)
	alone, err := pl.Run(ctx, ws, fio.NewWorkload(plain), nil)
	if err != nil {
		t.Fatal(err)
	}
	pl, _ = newTestPlane(t)
	res, err := pl.Run(ctx, ws, fio.NewWorkload(mix), nil)
	if err != nil {
		t.Fatal(err)
	}
	agg := func(res *fio.Result, dir string) fio.Row {
		return inDirection(res.Aggregate, dir)[0]
	}
	if got, want := agg(res, "write"), agg(alone, "write"); !nearRel(got.IOPS, want.IOPS, 1e-9) {
		t.Errorf("write row %.0f IOPS, want the mix's %.0f", got.IOPS, want.IOPS)
	}
	tm, end := lastSampleTS(alone), lastSampleTS(res)
	share := agg(alone, "write").MBps / (agg(alone, "read").MBps + agg(alone, "write").MBps)
	if share < 0.25 || share > 0.35 {
		t.Fatalf("the 70/30 mix wrote %.2f of its bytes", share)
	}
	moved := (agg(alone, "read").MBps + agg(alone, "write").MBps) * tm
	if got := agg(res, "read").MBps * end; !nearRel(got, moved, 1e-6) {
		t.Errorf("the read row moved %.4g MB over %.3g s, want all %.4g MB the mix moved (its reads, then its writes read back)", got, end, moved)
	}
	if r := agg(res, "read"); r.IOPS <= agg(alone, "read").IOPS {
		t.Errorf("read row %.0f IOPS, want above the mix's reads alone, %.0f: the read-back reads at the job's whole depth", r.IOPS, agg(alone, "read").IOPS)
	}
	notes := strings.Join(res.Notes, "\n")
	if !strings.Contains(notes, "after its mix of reads and writes (30 % of the bytes written)") || strings.Contains(notes, "not modelled beside") {
		t.Errorf("notes %q: want the read-back of the mix's writes said", res.Notes)
	}
}

// fio's verify phase reads back at the job's depth without its rate
// limits or think time (fio 3.33: a randwrite at rate_iops=4000 read back
// at 78 MiB/s, written at 16): the read-back is the one of the job
// without them.
func TestVerifyReadsBackWithoutRatesOrThinkTime(t *testing.T) {
	ctx := context.Background()
	ws := workers(4, 2, "r5")
	pl, _ := newTestPlane(t)
	free, err := pl.Run(ctx, ws, fio.NewWorkload(verifyJob()), nil)
	if err != nil {
		t.Fatal(err)
	}
	held := verifyJob(fio.Option{Key: "rate_iops", Value: "500"}, fio.Option{Key: "thinktime", Value: "100"})
	held.RateIOPS = 500
	pl, _ = newTestPlane(t)
	res, err := pl.Run(ctx, ws, fio.NewWorkload(held), nil)
	if err != nil {
		t.Fatal(err)
	}
	r, w := inDirection(res.Aggregate, "read")[0], inDirection(res.Aggregate, "write")[0]
	if want := inDirection(free.Aggregate, "read")[0]; !nearRel(r.IOPS, want.IOPS, 1e-9) {
		t.Errorf("read-back %.0f IOPS, want the job's without its rate limit and think time, %.0f", r.IOPS, want.IOPS)
	}
	if w.IOPS > 8*500*1.001 {
		t.Errorf("writes %.0f IOPS: want them held at 500 per disk", w.IOPS)
	}

	// fio checks minimum rates in the job's own I/O only (backend.c:
	// check_min_rate in do_io, not do_verify): a read floor no read-back
	// reaches does not end a writer.
	floored := verifyJob(fio.Option{Key: "rate_iops_min", Value: "100000000,1"})
	pl, _ = newTestPlane(t)
	if _, err := pl.Run(ctx, ws, fio.NewWorkload(floored), nil); err != nil {
		t.Errorf("a read floor on a writer stopped its read-back: %v", err)
	}
}

// The read-back pass reads only blocks the job wrote, whatever share of
// its extent they are on disks it found empty.
func TestReadBackFindsWhatWasWritten(t *testing.T) {
	pl, _ := newTestPlane(t)
	job := verifyJob()
	job.RW = "randread"
	for _, back := range []bool{false, true} {
		in, _, err := pl.workloadInput(context.Background(), []JobRun{{Workers: workers(2, 1, "r5"), Job: &job, readsBack: back}})
		if err != nil {
			t.Fatal(err)
		}
		want := 0.0
		if back {
			want = 1
		}
		for _, d := range in.Jobs[0].Disks {
			if d.Written != want {
				t.Errorf("read-back %v: the disk's written share %g, want %g", back, d.Written, want)
			}
		}
	}
}

// Where fio reads nothing back the job runs as it is: a size-based job
// whose I/O takes its whole runtime, and any time-based one, whatever the
// length of a pass (fio 3.33 reads nothing back: "verification read phase
// will never start because write phase uses all of runtime").
func TestVerifyWhereFioReadsNothingBack(t *testing.T) {
	ctx := context.Background()
	ws := workers(4, 2, "r5")
	never := "verify=crc32c on a time-based job: fio never reads back"
	mixed := verifyJob()
	mixed.RW = "randrw"
	for _, tc := range []struct {
		name string
		jobs []fio.Job
		note string
	}{
		{"writes past the runtime", []fio.Job{withTime(verifyJob(), 5, false, 50<<30)}, "the job's I/O used the whole runtime (5 s), so fio reads nothing back"},
		{"time based, a pass past the runtime", []fio.Job{withTime(verifyJob(), 5, true, 50<<30)}, never},
		{"time based, passes within the runtime", []fio.Job{withTime(verifyJob(), 600, true, 1<<30)}, never},
		{"time based, a mix", []fio.Job{withTime(mixed, 60, true, 1<<30)}, never},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl, _ := newTestPlane(t)
			res, err := pl.Run(ctx, ws, &fio.Workload{Name: "w", Jobs: tc.jobs}, nil)
			if err != nil {
				t.Fatal(err)
			}
			plain := slices.Clone(tc.jobs)
			for i := range plain {
				plain[i].Options = nil
			}
			pl, _ = newTestPlane(t)
			want, err := pl.Run(ctx, ws, &fio.Workload{Name: "w", Jobs: plain}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Aggregate) != len(want.Aggregate) {
				t.Fatalf("aggregate rows %+v, want the job's own %+v", res.Aggregate, want.Aggregate)
			}
			for i, r := range res.Aggregate {
				if !nearRel(r.IOPS, want.Aggregate[i].IOPS, 1e-9) || r.Direction != want.Aggregate[i].Direction {
					t.Errorf("%s %.0f IOPS, want the job's own %s %.0f", r.Direction, r.IOPS, want.Aggregate[i].Direction, want.Aggregate[i].IOPS)
				}
			}
			if !strings.Contains(strings.Join(res.Notes, "\n"), tc.note) {
				t.Errorf("notes %q lack %q", res.Notes, tc.note)
			}
		})
	}
}

func withTime(job fio.Job, runtime int, timeBased bool, size int64) fio.Job {
	job.RuntimeSec, job.TimeBased, job.Size = runtime, timeBased, size
	return job
}

// Beside other jobs a verifying job reads back what it wrote once its own
// I/O is done, as fio does (measured below: a 16 MiB randwrite beside a
// time-based randrw writes, then reads its 16 MiB back; on a quiet machine
// it ends long before the other), while the others run on: its write row is its own
// I/O's beside them, as without verify; its read-back moves what it wrote,
// over the read-back's time, and the job running beside it carries that
// load (it moves less than beside a writer that stopped).
func TestVerifyReadsBackBesideOtherJobs(t *testing.T) {
	needFio(t)
	dir := t.TempDir()
	sparseFile(t, filepath.Join(dir, "v"), 16<<20)
	sparseFile(t, filepath.Join(dir, "w"), 16<<20)
	type ddir struct {
		IOBytes float64 `json:"io_bytes"`
		Runtime float64 `json:"runtime"`
	}
	var report struct {
		Jobs []struct {
			Read, Write ddir
			JobRuntime  float64 `json:"job_runtime"`
		}
	}
	runFio(t, &report, "--output-format=json", "--ioengine=psync", "--bs=4k", "--size=16m", "--verify_state_save=0",
		"--name=v", "--filename="+filepath.Join(dir, "v"), "--rw=randwrite", "--verify=crc32c",
		"--name=w", "--filename="+filepath.Join(dir, "w"), "--rw=randrw", "--time_based", "--runtime=2")
	if len(report.Jobs) != 2 {
		t.Fatalf("fio's report has %d jobs, want 2", len(report.Jobs))
	}
	v, w := report.Jobs[0], report.Jobs[1]
	if v.Read.IOBytes != 16<<20 || v.Write.IOBytes != 16<<20 || v.Read.Runtime+v.Write.Runtime > v.JobRuntime+2 {
		t.Fatalf("fio: v wrote %.0f bytes in %.0f ms and read %.0f in %.0f ms, ending at %.0f ms (w at %.0f); want 16 MiB each, one after the other",
			v.Write.IOBytes, v.Write.Runtime, v.Read.IOBytes, v.Read.Runtime, v.JobRuntime, w.JobRuntime)
	}

	ctx := context.Background()
	ws := workers(4, 2, "r5")
	other := named(withTime(verifyJob(), 120, true, 1<<30), "w")
	other.RW, other.Options = "randrw", nil
	run := func(verifying fio.Job) *fio.Result {
		t.Helper()
		pl, _ := newTestPlane(t)
		res, err := pl.Run(ctx, ws, &fio.Workload{Name: "pair", Jobs: []fio.Job{named(verifying, "v"), other}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	plain := verifyJob()
	plain.Options = nil
	without, with := run(plain), run(verifyJob())
	if got, want := jobRow(t, with, "v", "write"), jobRow(t, without, "v", "write"); !nearRel(got.IOPS, want.IOPS, 1e-9) {
		t.Errorf("v's writes %.0f IOPS, want its I/O beside w as without verify, %.0f", got.IOPS, want.IOPS)
	}
	var vw, vr, end float64 // when v's writes end, its last read sample, the run's end
	for _, s := range with.Samples {
		switch {
		case s.Job == "v" && s.Direction == "write":
			vw = max(vw, s.TS)
		case s.Job == "v" && s.Direction == "read":
			vr = max(vr, s.TS)
		}
		end = max(end, s.TS)
	}
	back := jobRow(t, with, "v", "read")
	if moved := back.IOPS * 4096 * (vr - vw + sampleInterval(end)); vr <= vw || vr >= end || moved < 4<<30 {
		t.Errorf("v's writes end by %g s, its reads by %g s, the run at %g s; it read back about %.3g bytes: want the 8 GiB it wrote read back after its writes, before w ends", vw, vr, end, moved)
	}
	if got, want := jobRow(t, with, "w", "total"), jobRow(t, without, "w", "total"); got.IOPS >= want.IOPS {
		t.Errorf("w %.0f IOPS beside v's read-back, want below %.0f (beside v without it)", got.IOPS, want.IOPS)
	}
	notes := strings.Join(with.Notes, "\n")
	for _, want := range []string{"job v reads back and checks the blocks written", "beside the jobs then running", "v (reading back), w"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", with.Notes, want)
		}
	}
	if strings.Contains(notes, "verify=crc32c is not modelled") {
		t.Errorf("notes %q: verify is modelled here", with.Notes)
	}
}

// bytesMoved is what fio's JSON report says each job read and wrote.
type bytesMoved struct {
	Jobs []struct {
		Read, Write struct {
			IOBytes int64 `json:"io_bytes"`
		}
	}
}

func withOptions(job fio.Job, opts ...fio.Option) fio.Job {
	job.Options = append(slices.Clone(job.Options), opts...)
	return job
}

func named(job fio.Job, name string) fio.Job {
	job.Name = name
	return job
}

// The installed fio reads back what a verifying job wrote, once, after
// its I/O, as the model runs it: a randwrite's 8 MiB read back after the
// writes; a randrw's written share read back after the mix, its read row
// counting both (its reads moving the job's whole size, over more time
// than its writes); nothing from a time-based job; and a read-back that
// ignores the job's rate limit.
func TestVerifyAgainstFio(t *testing.T) {
	needFio(t)
	type dir struct {
		IOBytes float64 `json:"io_bytes"`
		Runtime float64 `json:"runtime"`
	}
	run := func(args ...string) (r, w dir, jobRuntime float64) {
		t.Helper()
		var report struct {
			Jobs []struct {
				Read, Write dir
				JobRuntime  float64 `json:"job_runtime"`
			}
		}
		runFio(t, &report, append([]string{"--output-format=json", "--name=v", "--filename=" + filepath.Join(t.TempDir(), "v"),
			"--bs=4k", "--ioengine=psync", "--verify=crc32c", "--verify_state_save=0"}, args...)...)
		if len(report.Jobs) != 1 {
			t.Fatalf("fio's report has %d jobs, want 1", len(report.Jobs))
		}
		j := report.Jobs[0]
		return j.Read, j.Write, j.JobRuntime
	}
	if r, w, job := run("--size=8m", "--rw=randwrite"); r.IOBytes != 8<<20 || w.IOBytes != 8<<20 || r.Runtime+w.Runtime > job+2 {
		t.Errorf("randwrite: %.0f bytes written in %.0f ms, %.0f read in %.0f ms, job runtime %.0f ms; want 8 MiB each, one after the other",
			w.IOBytes, w.Runtime, r.IOBytes, r.Runtime, job)
	}
	if r, w, _ := run("--size=8m", "--rw=randrw"); r.IOBytes != 8<<20 || w.IOBytes <= 0 || w.IOBytes >= 8<<20 || r.Runtime <= w.Runtime {
		t.Errorf("randrw: %.0f bytes written in %.0f ms, %.0f read in %.0f ms; want 8 MiB read (the mix's and the read-back's) over longer than the writes",
			w.IOBytes, w.Runtime, r.IOBytes, r.Runtime)
	}
	if r, w, _ := run("--size=4m", "--rw=randwrite", "--time_based", "--runtime=1"); r.IOBytes != 0 || w.IOBytes == 0 {
		t.Errorf("time based: %.0f bytes written, %.0f read; want nothing read back", w.IOBytes, r.IOBytes)
	}
	if r, w, _ := run("--size=2m", "--rw=randwrite", "--rate_iops=1000"); r.IOBytes != 2<<20 || r.Runtime > w.Runtime/2 {
		t.Errorf("rate_iops=1000: 512 writes in %.0f ms, %.0f bytes read back in %.0f ms; want them read back well above the rate", w.Runtime, r.IOBytes, r.Runtime)
	}
}

// The read-back reads the blocks the job wrote, at its write block size
// where reads and writes have their own (bs=4k,64k: 64 KiB read back).
func TestVerifyReadsBackAtTheWriteBlockSize(t *testing.T) {
	pl, _ := newTestPlane(t)
	res, err := pl.Run(context.Background(), workers(4, 2, "r5"), fio.NewWorkload(verifyJob(fio.Option{Key: "bs", Value: "4k,64k"})), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Aggregate {
		if r.Direction != "total" && !nearRel(r.MBps*1e6/r.IOPS, 65536, 1e-9) {
			t.Errorf("%s: %.0f bytes an I/O, want the writes' 64 KiB", r.Direction, r.MBps*1e6/r.IOPS)
		}
	}
}

// With verify's read-back each direction is over the time it moved, as
// fio counts it: writes over the job's own I/O, reads over both where the
// job read, else over the read-back; latencies weighted by I/Os.
func TestVerifiedSpansCountEachDirectionOverItsTime(t *testing.T) {
	mix := Direction{IOPS: 100, MBps: 1, LatMeanUs: 10, P99Us: 20}
	writes := Direction{IOPS: 50, MBps: 2, LatMeanUs: 40, P99Us: 80}
	back := Direction{IOPS: 300, MBps: 3, LatMeanUs: 30, P99Us: 40}
	near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-9*math.Max(1, math.Abs(y)) }
	sp := span{end: 3, readBack: 2, phases: []phase{{0, 2, [2]Direction{mix, writes}}, {2, 3, [2]Direction{back, {}}}}}
	got := sp.measured()
	if r := got[read]; !near(r.IOPS, 500.0/3) || !near(r.MBps, 5.0/3) || !near(r.LatMeanUs, 22) || !near(r.P99Us, 32) {
		t.Errorf("a mix's reads %+v: want 500 I/Os over 3 s at 22 us", r)
	}
	if w := got[write]; !near(w.IOPS, 50) || !near(w.MBps, 2) || !near(w.LatMeanUs, 40) {
		t.Errorf("a mix's writes %+v: want them over their 2 s", w)
	}
	sp.phases[0].dirs[read] = Direction{}
	if r := sp.measured()[read]; !near(r.IOPS, 300) || !near(r.LatMeanUs, 30) {
		t.Errorf("a writer's reads %+v: want the read-back's, over its 1 s", r)
	}
	if own := sp.own(); own.end != 2 || len(own.phases) != 1 {
		t.Errorf("the job's own I/O %+v: want its first 2 s", own)
	}
}

// verify_backlog on a writer reads back each batch of blocks as it writes
// them: as much read as written (fio 3.33), the reads finding the blocks
// just written whatever the disk held. So the job runs as the 50/50 mix
// it is: on unprepared disks the same figures as a 50/50 randrw over
// written disks, where its writes alone would read nothing.
func TestVerifyBacklogReadsBackWhatItWrites(t *testing.T) {
	needFio(t)
	file := filepath.Join(t.TempDir(), "f")
	sparseFile(t, file, 16<<20)
	var report bytesMoved
	runFio(t, &report, "--output-format=json", "--name=v", "--filename="+file, "--size=16m", "--bs=4k", "--ioengine=psync", "--rw=randwrite", "--verify=crc32c", "--verify_backlog=16", "--io_size=8m")
	if r, w := report.Jobs[0].Read.IOBytes, report.Jobs[0].Write.IOBytes; r != w || w != 8<<20 {
		t.Fatalf("fio read %d and wrote %d bytes with verify_backlog, want 8 MiB of each", r, w)
	}

	for _, tb := range []string{"storagereview-r6625-esa", "wwt-r640-osa"} {
		p := mustLoad(t, tb)
		solve := func(job *fio.Job, written float64) *Output {
			t.Helper()
			in := UniformInput(p, p.Hosts*p.Workers.PerHost, p.Workers.DataDisks, Policy{RAID: "raid1"}, job)
			for d := range in.Jobs[0].Disks {
				in.Jobs[0].Disks[d].Written = written
			}
			out, err := Solve(context.Background(), p, in)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		backlog := solve(&fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 8, Options: []fio.Option{{Key: "verify", Value: "crc32c"}, {Key: "verify_backlog", Value: "16"}}}, 0)
		mix := solve(&fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 50, BlockSize: 4096, IODepth: 8}, 1)
		notes := strings.Join(backlog.Notes, "\n")
		if math.Abs(backlog.Read.IOPS-backlog.Write.IOPS) > 1e-6*backlog.Write.IOPS || strings.Contains(notes, "never written") || !strings.Contains(notes, "verify_backlog=16: fio reads back each batch") {
			t.Errorf("%s: %.0f reads and %.0f writes a second; notes %q", tb, backlog.Read.IOPS, backlog.Write.IOPS, notes)
		}
		if tb == "storagereview-r6625-esa" && math.Abs(backlog.Read.IOPS/mix.Read.IOPS-1) > 1e-6 {
			t.Errorf("%s: the backlog's reads %.0f a second, a 50/50 mix over written disks %.0f", tb, backlog.Read.IOPS, mix.Read.IOPS)
		}
		t.Logf("%s: verify_backlog %.0f reads and %.0f writes a second; a 50/50 mix over written disks %.0f and %.0f", tb, backlog.Read.IOPS, backlog.Write.IOPS, mix.Read.IOPS, mix.Write.IOPS)
	}
}

// verify_backlog on a job that also reads reads back each block it writes
// besides its own reads (fio 3.33: a 70/30 randrw of 8 MiB reads 8 MiB,
// its own 1,426 blocks and its 622 writes back, writing the blocks it
// writes without it, in the same order), and its size counts its own I/O
// only: the run moves the size and reads the writes again, so a
// writer with it moves twice its size. Only its own reads find what the
// disks held; it leaves the disks as the job without verify does.
func TestVerifyBacklogOnAMixReadsBackItsWrites(t *testing.T) {
	needFio(t)
	file := filepath.Join(t.TempDir(), "f")
	sparseFile(t, file, 16<<20)
	var report bytesMoved
	writes := func(verify ...string) []loggedIO {
		t.Helper()
		sparseFile(t, file, 16<<20)
		log := filepath.Join(t.TempDir(), "log")
		runFio(t, &report, append([]string{"--output-format=json", "--name=m", "--filename=" + file, "--size=8m", "--bs=4k", "--ioengine=psync",
			"--rw=randrw", "--rwmixread=70", "--write_iolog=" + log}, verify...)...)
		return slices.DeleteFunc(loggedIOs(t, log, 4096), func(io loggedIO) bool { return !io.write })
	}
	plainWrites := writes()
	if got := writes("--verify=crc32c", "--verify_backlog=16", "--verify_state_save=0"); !slices.Equal(got, plainWrites) {
		t.Errorf("fio wrote %d blocks with verify_backlog and %d without, not the same in the same order: the model takes its own I/O as the same", len(got), len(plainWrites))
	}
	if r, w := report.Jobs[0].Read.IOBytes, report.Jobs[0].Write.IOBytes; r != 8<<20 || w < 2<<20 || w > 3<<20 {
		t.Fatalf("fio read %d and wrote %d bytes: want 8 MiB read (its own reads and its writes read back) and about 30 %% of it written", r, w)
	}

	ctx := context.Background()
	ws := workers(4, 2, "r5")
	run := func(job fio.Job) (*Plane, *fio.Result, float64, float64) {
		t.Helper()
		pl, _ := newTestPlane(t)
		res, err := pl.Run(ctx, ws, fio.NewWorkload(job), nil)
		if err != nil {
			t.Fatal(err)
		}
		end := lastSampleTS(res)
		return pl, res, inDirection(res.Aggregate, "read")[0].MBps * 1e6 * end, inDirection(res.Aggregate, "write")[0].MBps * 1e6 * end
	}
	size := 8.0 * (1 << 30) // 8 disks, 1 GiB on each
	mix := verifyJob(fio.Option{Key: "verify_backlog", Value: "16"})
	mix.RW, mix.RWMixRead = "randrw", 70
	pl, res, r, w := run(mix)
	if !nearRel(r, size, 1e-6) || !nearRel(w, 0.3*size, 1e-6) {
		t.Errorf("the 70/30 mix read %.4g and wrote %.4g bytes: want its size read (%.4g) and 30 %% of it written", r, w, size)
	}
	notes := strings.Join(res.Notes, "\n")
	if !strings.Contains(notes, "70 % of the blocks read were never written") || !strings.Contains(notes, "the job's 70/30 mix runs as a 77/23 one, 30 % of its reads finding the blocks just written") {
		t.Errorf("notes %q: want the mix's own reads finding the unprepared disks, its read-backs the blocks just written", res.Notes)
	}
	plain := mix
	plain.Options = nil
	pl2, _, _, _ := run(plain)
	got, _ := pl.data("w0", ws[0].Disks[0]).whole()
	want, _ := pl2.data("w0", ws[0].Disks[0]).whole()
	if !nearRel(got, want, 1e-9) {
		t.Errorf("the disk %.4f written after the mix with verify_backlog, %.4f without: want the same", got, want)
	}
	// A reader drawing the mix's offsets again (fio's seeds) finds what
	// its own I/O wrote along them (here over half a pass): the same
	// as after the mix without it.
	reader := plain
	reader.RW = "randread"
	after := func(pl *Plane) float64 {
		t.Helper()
		res, err := pl.Run(ctx, ws, fio.NewWorkload(reader), nil)
		if err != nil {
			t.Fatal(err)
		}
		return inDirection(res.Aggregate, "read")[0].IOPS
	}
	pl, _, _, _ = run(withOptions(mix, fio.Option{Key: "io_size", Value: "512m"}))
	pl2, _, _, _ = run(withOptions(plain, fio.Option{Key: "io_size", Value: "512m"}))
	if a, b := after(pl), after(pl2); !nearRel(a, b, 1e-9) {
		t.Errorf("a reader after the mix with verify_backlog: %.0f IOPS, after the mix without it %.0f: want the same", a, b)
	}

	writer := verifyJob(fio.Option{Key: "verify_backlog", Value: "16"})
	if _, _, r, w := run(writer); !nearRel(r, size, 1e-6) || !nearRel(w, size, 1e-6) {
		t.Errorf("the writer read %.4g and wrote %.4g bytes: want its size of each (%.4g)", r, w, size)
	}

	// What the disks hold changes what the mix's own reads cost, not what
	// the read-backs or a writer's cost.
	p := mustLoad(t, "storagereview-r6625-esa")
	iops := func(job fio.Job, written float64) float64 {
		t.Helper()
		in := UniformInput(p, p.Hosts*p.Workers.PerHost, p.Workers.DataDisks, Policy{RAID: "raid1"}, &job)
		for d := range in.Jobs[0].Disks {
			in.Jobs[0].Disks[d].Written = written
		}
		out, err := Solve(ctx, p, in)
		if err != nil {
			t.Fatal(err)
		}
		return out.Read.IOPS
	}
	if a, b := iops(mix, 0), iops(mix, 1); nearRel(a, b, 1e-3) {
		t.Errorf("the mix reads %.0f a second over unwritten disks and %.0f over written ones: want its own reads to find the difference", a, b)
	}
	if a, b := iops(writer, 0), iops(writer, 1); !nearRel(a, b, 1e-9) {
		t.Errorf("the writer reads back %.0f a second over unwritten disks and %.0f over written ones: want the same", a, b)
	}
}

// A verifying writer on OSA fills the write buffers as any writer does,
// and the run says when they filled; the read-back writes nothing, so the
// elevators drain them meanwhile.
func TestVerifyingWriterFillsOSABuffers(t *testing.T) {
	pl := newOSAPlane(t)
	ctx := context.Background()
	ws := workers(96, 8, "r1")
	prepareDrained(ctx, t, pl, ws)
	job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 65536, IODepth: 8, Size: 40 << 30,
		Options: []fio.Option{{Key: "verify", Value: "crc32c"}}}
	res, err := pl.Run(ctx, ws, fio.NewWorkload(job), nil)
	if err != nil {
		t.Fatal(err)
	}
	var first, last float64 // the first and last write samples' IOPS
	for _, s := range res.Samples {
		if s.Direction == "write" {
			if first == 0 {
				first = s.IOPS
			}
			last = s.IOPS
		}
	}
	notes := strings.Join(res.Notes, "\n")
	if !strings.Contains(notes, "OSA write buffers absorb writes at the burst's rates for the first") || first < 1.1*last {
		t.Errorf("writes from %.0f to %.0f IOPS; notes %q: want the burst, then the steady rate, said", first, last, res.Notes)
	}
	if pl.buffer.fill >= WriteBufferBytes(pl.p)*pl.p.Model.WriteBufferDestageThreshold.Value {
		t.Errorf("the buffers at %.3g bytes after the read-back: want them drained below the threshold", pl.buffer.fill)
	}
}

// verify_pattern fills every write with the pattern and, where verify is
// not given, turns verify on (fio 3.33, options.c): fio reads back what
// the job wrote, and its blocks compress as zeros do, each told apart by
// its verify header; with verify=pattern they carry no header and are all
// alike, whatever buffer_compress_percentage says. The model reads the
// job so and runs its read-back.
func TestVerifyPatternFillsTheWritesAndVerifies(t *testing.T) {
	leaves := lz4Leaves(t)
	const pattern = "0xaa555aa5"
	blocks := func(args ...string) (read int64, distinct, most int) {
		t.Helper()
		file := filepath.Join(t.TempDir(), "p")
		var report bytesMoved
		runFio(t, &report, append([]string{"--output-format=json", "--name=p", "--filename=" + file, "--size=1m", "--bs=4k", "--rw=write",
			"--ioengine=psync", "--verify_state_save=0", "--verify_pattern=" + pattern}, args...)...)
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for off := 0; off+4096 <= len(data); off += 4096 {
			b := data[off : off+4096]
			seen[string(b)] = true
			most = max(most, leaves(b))
		}
		return report.Jobs[0].Read.IOBytes, len(seen), most
	}
	if read, distinct, most := blocks(); read != 1<<20 || distinct != 256 || most > 128 {
		t.Errorf("verify_pattern alone: fio read back %d bytes; %d distinct blocks, lz4 leaves up to %d bytes of one: want 1 MiB read back, 256 blocks each under 128 bytes", read, distinct, most)
	}
	if _, distinct, most := blocks("--verify=pattern", "--buffer_compress_percentage=50", "--do_verify=0"); distinct != 1 || most > 128 {
		t.Errorf("verify=pattern: %d distinct blocks, lz4 leaves up to %d bytes: want 1, under 128", distinct, most)
	}

	alone := fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 16, Size: 1 << 30,
		Options: []fio.Option{{Key: "verify_pattern", Value: pattern}}}
	patterned := alone
	patterned.BufferCompressPercentage = 50
	patterned.Options = []fio.Option{{Key: "verify", Value: "pattern"}, {Key: "verify_pattern", Value: pattern}, {Key: "buffer_compress_percentage", Value: "50"}}
	for _, c := range []struct {
		job    fio.Job
		verify bool
		same   float64
	}{{alone, true, 0}, {patterned, true, 1}} {
		sh, err := readJob(&c.job)
		if err != nil {
			t.Fatal(err)
		}
		if sh.compressPct != 100 || sh.verify != c.verify || sh.sameBlocks != c.same {
			t.Errorf("%v: compressible %d %%, verify %v, %g blocks alike: want 100 %%, %v, %g", c.job.Options, sh.compressPct, sh.verify, sh.sameBlocks, c.verify, c.same)
		}
	}
	pl, _ := newTestPlane(t)
	res := runJob(t, pl, workers(4, 2, "r5"), alone)
	if r := inDirection(res.Aggregate, "read"); len(r) == 0 || r[0].IOPS == 0 || !strings.Contains(strings.Join(res.Notes, "\n"), "verify_pattern="+pattern+": after its writes") {
		t.Errorf("rows %+v, notes %q: want the blocks written read back after the writes", res.Aggregate, res.Notes)
	}
}

// verify_interval moves fio's verify headers, one at each interval of a
// write. In random data that changes nothing vSAN sees; in
// verify_pattern's data each header after a block's first leaves LZ4
// about 15 bytes, which the run's note gives with fio's own figures:
// checked here against fio 3.33 and lz4 on 4 KiB blocks (at 256 bytes a
// block still fits one 512-byte sector, at 128 it comes near or beyond
// it: what LZ4 finds varies run to run, 450 to 563 bytes). fio refuses
// an interval under twice its header, and so does the model.
func TestVerifyIntervalAsFioWritesIt(t *testing.T) {
	leaves := lz4Leaves(t)
	most := func(verify, interval string) int {
		file := filepath.Join(t.TempDir(), "f")
		args := []string{"--output-format=json", "--name=w", "--filename=" + file, "--size=256k", "--bs=4k", "--rw=write", "--verify=" + verify, "--verify_pattern=0xdeadbeef"}
		if interval != "" {
			args = append(args, "--verify_interval="+interval)
		}
		var report moved
		runFio(t, &report, args...)
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		largest := 0
		for b := range len(data) / efficiencyBlock {
			largest = max(largest, leaves(data[b*efficiencyBlock:(b+1)*efficiencyBlock]))
		}
		return largest
	}
	for _, v := range []string{"crc32c", "sha256"} {
		one, at256, at128 := most(v, ""), most(v, "256"), most(v, "128")
		if perHeader := float64(at128-one) / 31; one > 128 || at256 > esaSectorBytes || at128 <= 3*esaSectorBytes/4 || perHeader < 10 || perHeader > 20 {
			t.Errorf("verify=%s: LZ4 leaves up to %d bytes of a block with one header, %d with 16, %d with 32 (%.1f a further header): want under 128, within a 512-byte sector, near it or beyond (over 384), and 10 to 20 bytes", v, one, at256, at128, perHeader)
		}
	}
	pattern := []fio.Option{{Key: "verify", Value: "crc32c"}, {Key: "verify_pattern", Value: "0xdeadbeef"}, {Key: "verify_interval", Value: "128"}}
	for _, c := range []struct {
		options []fio.Option
		note    string
	}{
		{pattern, "ESA may store some blocks in two sectors"},
		{[]fio.Option{{Key: "verify", Value: "md5"}, {Key: "verify_interval", Value: "512"}}, "the data is random"},
		{[]fio.Option{{Key: "verify", Value: "pattern"}, {Key: "verify_pattern", Value: "0x00"}, {Key: "verify_interval", Value: "512"}}, "verify=pattern writes no header"},
		{[]fio.Option{{Key: "verify_interval", Value: "512"}}, "the job does not verify"},
	} {
		sh, err := readJob(&fio.Job{RW: "write", BlockSize: 4096, Options: c.options})
		if err != nil || !strings.Contains(strings.Join(sh.notes, "\n"), c.note) {
			t.Errorf("%v: notes %q (%v), want %q", c.options, sh.notes, err, c.note)
		}
	}
	if _, err := readJob(&fio.Job{RW: "write", BlockSize: 4096, Options: []fio.Option{{Key: "verify", Value: "md5"}, {Key: "verify_interval", Value: "64"}}}); err == nil || !strings.Contains(err.Error(), "at least 80 bytes") {
		t.Errorf("verify_interval=64: %v, want it refused below 80 bytes", err)
	}
}
