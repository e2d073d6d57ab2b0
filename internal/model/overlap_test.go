package model

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"starbench/internal/fio"
)

// overlapPlane is a StorageReview plane whose 16 workers of 4 disks are
// written at random: 4K random reads at depth 32 on every disk bind the
// DOM, so one job alone runs faster than beside another.
func overlapPlane(t *testing.T) (*Plane, []fio.Worker) {
	t.Helper()
	pl, _ := newTestPlane(t)
	ws := workers(16, 4, "r5")
	if err := pl.Prepare(context.Background(), ws, fio.Prep{Method: "random"}, nil); err != nil {
		t.Fatal(err)
	}
	return pl, ws
}

func readJob4k(name string, runtime int, opts ...fio.Option) fio.Job {
	return fio.Job{Name: name, IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 32, RuntimeSec: runtime, TimeBased: true, Options: opts}
}

// jobRow is job's aggregate row in direction dir.
func jobRow(t *testing.T, res *fio.Result, job, dir string) fio.Row {
	t.Helper()
	for _, r := range res.Aggregate {
		if r.Job == job && r.Direction == dir {
			return r
		}
	}
	t.Fatalf("no %s row for job %q in %+v", dir, job, res.Aggregate)
	return fio.Row{}
}

// lastSample is the time of job's last sample.
func lastSample(res *fio.Result, job string) float64 {
	end := 0.0
	for _, s := range res.Samples {
		if s.Job == job {
			end = math.Max(end, s.TS)
		}
	}
	return end
}

// bottleneckNote is a result's bottleneck note.
func bottleneckNote(res *fio.Result) string {
	for _, n := range res.Notes {
		if strings.HasPrefix(n, bottleneckPrefix) {
			return n
		}
	}
	return ""
}

func nearRel(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Abs(b) }

// Concurrent jobs of different lengths: when one ends, the others run on
// without it, as fio runs them. A 60 s job beside a 120 s one: the longer
// runs its first minute at the pair's shared rate and its second at its
// rate alone, so its figures are the mean of the two (latency weighted by
// I/Os); the shorter one's are the shared rate's. The model used to hold
// the longer job at the shared rate for all its 120 s.
func TestAJobRunsOnAloneAfterTheOthersEnd(t *testing.T) {
	ctx := context.Background()
	pl, ws := overlapPlane(t)
	run := func(jobs ...fio.Job) *fio.Result {
		t.Helper()
		res, err := pl.Run(ctx, ws, &fio.Workload{Name: "w", Jobs: jobs}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	together := run(readJob4k("a", 60), readJob4k("b", 60))
	shared := jobRow(t, together, "b", "read")
	alone := run(readJob4k("b", 60)).Aggregate[0]
	if alone.IOPS < 1.5*shared.IOPS {
		t.Fatalf("b alone %.0f IOPS, beside a %.0f: want a cell where a holds b back", alone.IOPS, shared.IOPS)
	}
	res := run(readJob4k("a", 60), readJob4k("b", 120))
	a, b := jobRow(t, res, "a", "read"), jobRow(t, res, "b", "read")
	if !nearRel(a.IOPS, shared.IOPS, 1e-9) {
		t.Errorf("a: %.0f IOPS, want the shared rate %.0f", a.IOPS, shared.IOPS)
	}
	if want := (shared.IOPS + alone.IOPS) / 2; !nearRel(b.IOPS, want, 1e-9) {
		t.Errorf("b: %.0f IOPS, want %.0f (60 s at %.0f, 60 s alone at %.0f)", b.IOPS, want, shared.IOPS, alone.IOPS)
	}
	if want := (shared.IOPS*shared.LatMeanUs + alone.IOPS*alone.LatMeanUs) / (shared.IOPS + alone.IOPS); !nearRel(b.LatMeanUs, want, 1e-9) {
		t.Errorf("b: mean latency %.0f us, want %.0f (weighted by I/Os)", b.LatMeanUs, want)
	}
	for _, s := range res.Samples {
		if s.Job == "b" && s.TS > 61 && !nearRel(s.IOPS, alone.IOPS, 1e-9) {
			t.Errorf("b's sample at %.0f s: %.0f IOPS, want its rate alone, %.0f", s.TS, s.IOPS, alone.IOPS)
			break
		}
	}
	if end := lastSample(res, "b"); end != 120 {
		t.Errorf("b's samples end at %g s, want 120", end)
	}
	if strings.Contains(strings.Join(together.Notes, "\n"), "the jobs in time") {
		t.Errorf("jobs of one length are one stretch, noted as several: %q", together.Notes)
	}
	// The run's bottleneck is the stretch with both jobs, not b's alone.
	if want := bottleneckNote(together); bottleneckNote(res) != want {
		t.Errorf("bottleneck %q, want the two jobs' %q", bottleneckNote(res), want)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "over the whole run, throughput is the mean of the samples") {
		t.Errorf("no note says b's figures are the mean of its stretches: %q", res.Notes)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "the jobs in time, each stretch solved on its own: 0-60 s a, b; 60-120 s b") {
		t.Errorf("no note says b ran on alone: %q", res.Notes)
	}

	// A size-based job moves its size at the rates it gets: sized to take
	// 120 s at the shared rate, it ends sooner once it runs alone.
	sized := readJob4k("b", 0)
	sized.TimeBased = false
	sized.Size = int64(shared.IOPS * 120 * 4096 / float64(len(ws)*4))
	res = run(readJob4k("a", 60), sized)
	want := 60 + 60*shared.IOPS/alone.IOPS
	if end := lastSample(res, "b"); math.Abs(end-want) > 1 {
		t.Errorf("the sized job's samples end at %g s, want about %.1f (60 s shared, the rest alone)", end, want)
	}
	b = jobRow(t, res, "b", "read")
	if moved := b.IOPS * want * 4096; !nearRel(moved, float64(sized.Size)*float64(len(ws)*4), 1e-6) {
		t.Errorf("the sized job moved %.4g bytes, want its size on every disk, %.4g", moved, float64(sized.Size)*float64(len(ws)*4))
	}
}

// exitall on any job ends every job of the phase when the first ends (fio
// 3.33 on two files: runtime 1 s and 3 s, exitall in [global], on the
// shorter job or on the longer one alone: both jobs end at 1 s).
func TestExitAllEndsEveryJobAtTheFirstEnd(t *testing.T) {
	ctx := context.Background()
	exitall := fio.Option{Key: "exitall", Value: ""}
	for _, tc := range []struct {
		name string
		a, b fio.Job
	}{
		{"on the shorter job", readJob4k("a", 60, exitall), readJob4k("b", 120)},
		{"on the longer job", readJob4k("a", 60), readJob4k("b", 120, exitall)},
		{"jobs of one length", readJob4k("a", 60, exitall), readJob4k("b", 60)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl, ws := overlapPlane(t)
			res, err := pl.Run(ctx, ws, &fio.Workload{Name: "w", Jobs: []fio.Job{tc.a, tc.b}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			a, b := jobRow(t, res, "a", "read"), jobRow(t, res, "b", "read")
			if !nearRel(b.IOPS, a.IOPS, 1e-9) {
				t.Errorf("b: %.0f IOPS, want a's %.0f: both ran only together", b.IOPS, a.IOPS)
			}
			if end := lastSample(res, "b"); end != 60 {
				t.Errorf("b's samples end at %g s, want 60", end)
			}
			if stopped := strings.Contains(strings.Join(res.Notes, "\n"), "exitall: a ended at 60 s and stopped b"); stopped != (tc.b.RuntimeSec > 60) {
				t.Errorf("a note says exitall stopped b: %v, want it where b would run on: %q", stopped, res.Notes)
			}
		})
	}
}

// A job exitall stops before its startdelay does no I/O, as fio reports
// it (fio 3.33: a 1 s job with exitall beside one at startdelay=3, the
// second 0 KiB in 0 ms), and a job held for a later partner of its flow
// group that ends first, stopping the partner, leaves a run with no I/O
// said in a note (fio: 8 KiB, the partner nothing).
func TestExitAllBeforeAJobStarts(t *testing.T) {
	ctx := context.Background()
	exitall := fio.Option{Key: "exitall", Value: ""}
	delayed := fio.Option{Key: "startdelay", Value: "3"}
	pl, ws := overlapPlane(t)
	res, err := pl.Run(ctx, ws, &fio.Workload{Name: "w", Jobs: []fio.Job{readJob4k("a", 1, exitall), readJob4k("b", 6, delayed)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := jobRow(t, res, "a", "read")
	for _, r := range res.Aggregate {
		if r.Job == "b" {
			t.Errorf("b, stopped before its start: a row %+v, want none", r)
		}
		if r.Job == "all" && r.Direction == "read" && !nearRel(r.IOPS, a.IOPS, 1e-9) {
			t.Errorf("all jobs: %.0f IOPS, want a's %.0f", r.IOPS, a.IOPS)
		}
	}
	flow := []fio.Option{{Key: "flow", Value: "1"}, {Key: "flow_id", Value: "1"}}
	res, err = pl.Run(ctx, ws, &fio.Workload{Name: "w", Jobs: []fio.Job{readJob4k("a", 1, append(flow, exitall)...), readJob4k("b", 6, append(flow, delayed)...)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Aggregate) != 0 || !strings.Contains(strings.Join(res.Notes, "\n"), "no job did I/O") {
		t.Errorf("a held job ending before its partner starts, exitall: rows %+v, notes %q; want none and a note", res.Aggregate, res.Notes)
	}
}

// startdelay starts a job later, beside the others: a 60 s job and one
// delayed 30 s run alone, together, then the second alone, each job's
// figures the mean of its two halves and the delayed one's samples on the
// run's time axis, from 30 s. fio leaves the delay out of a job's figures,
// so alone it changes nothing. A range is taken at its mean, noted; a
// value fio would not read is refused.
func TestStartDelayLaysJobsOutInTime(t *testing.T) {
	ctx := context.Background()
	pl, ws := overlapPlane(t)
	run := func(jobs ...fio.Job) (*fio.Result, error) {
		return pl.Run(ctx, ws, &fio.Workload{Name: "w", Jobs: jobs}, nil)
	}
	must := func(res *fio.Result, err error) *fio.Result {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	shared := jobRow(t, must(run(readJob4k("a", 60), readJob4k("b", 60))), "b", "read")
	alone := must(run(readJob4k("b", 60))).Aggregate[0]
	delayed := must(run(readJob4k("b", 60, fio.Option{Key: "startdelay", Value: "30"}))).Aggregate[0]
	if !nearRel(delayed.IOPS, alone.IOPS, 1e-9) {
		t.Errorf("a job alone with startdelay=30: %.0f IOPS, want %.0f as without it", delayed.IOPS, alone.IOPS)
	}
	for _, delay := range []string{"30", "20-40", "30s"} {
		res := must(run(readJob4k("a", 60), readJob4k("b", 60, fio.Option{Key: "startdelay", Value: delay})))
		want := (shared.IOPS + alone.IOPS) / 2
		for _, job := range []string{"a", "b"} {
			if r := jobRow(t, res, job, "read"); !nearRel(r.IOPS, want, 1e-9) {
				t.Errorf("startdelay=%s: job %s %.0f IOPS, want %.0f (30 s alone at %.0f, 30 s beside the other at %.0f)", delay, job, r.IOPS, want, alone.IOPS, shared.IOPS)
			}
		}
		first := math.Inf(1)
		for _, s := range res.Samples {
			if s.Job == "b" {
				first = math.Min(first, s.TS)
			}
		}
		if first != 31 || lastSample(res, "b") != 90 {
			t.Errorf("startdelay=%s: b's samples from %g to %g s, want 31 to 90", delay, first, lastSample(res, "b"))
		}
		notes := strings.Join(res.Notes, "\n")
		if !strings.Contains(notes, "0-30 s a; 30-60 s a, b; 60-90 s b") {
			t.Errorf("startdelay=%s: no note lays the jobs out in time: %q", delay, res.Notes)
		}
		if ranged := strings.Contains(notes, "startdelay=20-40: fio draws each clone's delay from the range; the model starts the job at its mean, 30 s"); ranged != (delay == "20-40") {
			t.Errorf("startdelay=%s: the range's note is there: %v; want it for a range only", delay, ranged)
		}
	}
	// Delayed alike, the jobs run together from the delay: nothing runs
	// before it.
	delay := fio.Option{Key: "startdelay", Value: "10"}
	res := must(run(readJob4k("a", 60, delay), readJob4k("b", 60, delay)))
	if a := jobRow(t, res, "a", "read"); !nearRel(a.IOPS, shared.IOPS, 1e-9) {
		t.Errorf("both delayed 10 s: a %.0f IOPS, want the shared %.0f", a.IOPS, shared.IOPS)
	}
	if first := res.Samples[0].TS; first != 11 || lastSample(res, "b") != 70 {
		t.Errorf("both delayed 10 s: samples from %g to %g s, want 11 to 70", first, lastSample(res, "b"))
	}
	// Where the stretch with the most jobs is not the cell of all of them
	// (a ends before b and c start), its notes are the run's, said once.
	late := fio.Option{Key: "startdelay", Value: "40"}
	res = must(run(readJob4k("a", 30), readJob4k("b", 60, late), readJob4k("c", 60, late)))
	seen := map[string]bool{}
	for _, n := range res.Notes {
		if seen[n] {
			t.Errorf("note %q said twice", n)
		}
		seen[n] = true
	}
	if !strings.Contains(bottleneckNote(res), "4096 outstanding I/Os") {
		t.Errorf("bottleneck %q, want b and c's together (4096 outstanding I/Os)", bottleneckNote(res))
	}
	for _, bad := range []string{"soon", "40-20"} {
		_, err := run(readJob4k("a", 60), readJob4k("b", 60, fio.Option{Key: "startdelay", Value: bad}))
		if err == nil || !strings.Contains(err.Error(), "startdelay="+bad+": ") || !strings.Contains(err.Error(), "want a") { // soon: fio's parsing, refused with the workload
			t.Errorf("startdelay=%s: %v, want it refused, saying what would be right", bad, err)
		}
	}
}

// On OSA the write buffers fill stretch after stretch: a writer that
// outlasts another goes on filling them alone from where the pair left
// them. The run of a 60 s and a 3,600 s writer gives the longer one, over
// its run, the pair's first minute and then what it does alone on buffers
// as that minute left them: the same as the pair for 60 s followed by the
// longer writer alone for 3,540 s on one plane.
func TestOSAWriteBuffersFillStretchAfterStretch(t *testing.T) {
	ctx := context.Background()
	plane := func() (*Plane, []fio.Worker) {
		src := &memSource{policies: map[string]Policy{"r5": {RAID: "raid5", FTT: 1}}}
		pl := NewPlane(mustLoad(t, "wwt-r640-osa"), src).(*Plane)
		ws := workers(48, 2, "r5")
		prepareDrained(ctx, t, pl, ws)
		return pl, ws
	}
	writer := func(name string, runtime int) fio.Job {
		return fio.Job{Name: name, IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 65536, IODepth: 16, RuntimeSec: runtime, TimeBased: true}
	}
	run := func(pl *Plane, ws []fio.Worker, jobs ...fio.Job) *fio.Result {
		t.Helper()
		res, err := pl.Run(ctx, ws, &fio.Workload{Name: "w", Jobs: jobs}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	pl, ws := plane()
	pair := jobRow(t, run(pl, ws, writer("a", 60), writer("b", 60)), "b", "write")
	aloneRes := run(pl, ws, writer("b", 3540))
	alone := aloneRes.Aggregate[0]
	if !strings.Contains(strings.Join(aloneRes.Notes, "\n"), "OSA write buffers absorb writes") {
		t.Fatalf("the writer alone never fills the buffers: %q; want a run that does", aloneRes.Notes)
	}
	pl2, ws2 := plane()
	longer := run(pl2, ws2, writer("a", 60), writer("b", 3600))
	b := jobRow(t, longer, "b", "write")
	if !strings.Contains(strings.Join(longer.Notes, "\n"), "OSA write buffers absorb writes at the burst's rates for the first") {
		t.Errorf("notes %q: want when the buffers filled", longer.Notes)
	}
	if want := (60*pair.IOPS + 3540*alone.IOPS) / 3600; !nearRel(b.IOPS, want, 1e-9) {
		t.Errorf("the longer writer: %.0f IOPS, want %.0f (60 s of the pair at %.0f, then alone at %.0f)", b.IOPS, want, pair.IOPS, alone.IOPS)
	}
	// Stopped while the buffers still fill, both ways leave them alike: a
	// writer after them runs alike.
	pl, ws = plane()
	run(pl, ws, writer("a", 60), writer("b", 60))
	run(pl, ws, writer("b", 60))
	pl2, ws2 = plane()
	run(pl2, ws2, writer("a", 60), writer("b", 120))
	next := func(pl *Plane, ws []fio.Worker) *fio.Result { return run(pl, ws, writer("c", 600)) }
	c1, c2 := next(pl, ws), next(pl2, ws2)
	if !strings.Contains(strings.Join(c1.Notes, "\n"), "OSA write buffers absorb writes") {
		t.Fatalf("the buffers were full before the last writer: %q; want them still filling", c1.Notes)
	}
	if !nearRel(c2.Aggregate[0].IOPS, c1.Aggregate[0].IOPS, 1e-9) {
		t.Errorf("a writer after the run: %.0f IOPS, after the pair then the writer alone %.0f: the stretches left the buffers elsewhere", c2.Aggregate[0].IOPS, c1.Aggregate[0].IOPS)
	}
}

// Which jobs a job's end stops under exitall is its exit_what (fio 3.33,
// measured on local files with a 1 s and a 3 s job): "group", fio's
// default, stops the jobs of its reporting group, so jobs that new_group
// puts in groups of their own run on; "stonewall" stops every job of the
// phase, and only the ending job's own exit_what counts; "all" stops the
// later phases too, which "stonewall" leaves to run.
func TestExitWhatSaysWhichJobsAnEndStops(t *testing.T) {
	ctx := context.Background()
	opt := func(key, value string) fio.Option { return fio.Option{Key: key, Value: value} }
	exitall, group := opt("exitall", ""), opt("new_group", "1")
	for _, tc := range []struct {
		name    string
		jobs    []fio.Job
		bEnd    float64 // when b's samples end
		cRuns   bool
		refused string
	}{
		{"own groups", []fio.Job{readJob4k("a", 60, exitall, group), readJob4k("b", 120, exitall, group)}, 120, false, ""},
		{"stonewall on the ending job", []fio.Job{readJob4k("a", 60, exitall, group, opt("exit_what", "stonewall")), readJob4k("b", 120, group)}, 60, false, ""},
		{"stonewall on the other job", []fio.Job{readJob4k("a", 60, exitall, group), readJob4k("b", 120, group, opt("exit_what", "stonewall"))}, 120, false, ""},
		{"stonewall leaves the next phase", []fio.Job{readJob4k("a", 60, exitall, opt("exit_what", "stonewall")), readJob4k("b", 120), readJob4k("c", 30, opt("stonewall", ""))}, 60, true, ""},
		{"all ends the next phase", []fio.Job{readJob4k("a", 60, exitall, opt("exit_what", "all")), readJob4k("b", 120), readJob4k("c", 30, opt("stonewall", ""))}, 60, false, ""},
		{"a lone job ends the next phase", []fio.Job{readJob4k("b", 60, exitall, opt("exit_what", "all")), readJob4k("c", 30, opt("stonewall", ""))}, 60, false, ""},
		{"exitall on a later phase's job", []fio.Job{readJob4k("a", 60), readJob4k("b", 120), readJob4k("c", 30, opt("stonewall", ""), exitall)}, 60, true, ""},
		{"a value fio does not know", []fio.Job{readJob4k("a", 60, exitall, opt("exit_what", "first")), readJob4k("b", 120)}, 0, false, "exit_what=first: fio-3.33 fails parsing it; want one of group, stonewall, all"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl, ws := overlapPlane(t)
			res, err := pl.Run(ctx, ws, &fio.Workload{Name: "w", Jobs: tc.jobs}, nil)
			if tc.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refused) {
					t.Errorf("%v, want it refused: %s", err, tc.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if end := lastSample(res, "b"); end != tc.bEnd {
				t.Errorf("b's samples end at %g s, want %g", end, tc.bEnd)
			}
			ranC := slices.ContainsFunc(res.Aggregate, func(r fio.Row) bool { return r.Job == "c" })
			if ranC != tc.cRuns && slices.ContainsFunc(tc.jobs, func(j fio.Job) bool { return j.Name == "c" }) {
				t.Errorf("c ran: %v, want %v (notes %q)", ranC, tc.cRuns, res.Notes)
			}
			bStopped := slices.ContainsFunc(tc.jobs, func(j fio.Job) bool { return j.Name == "b" && float64(j.RuntimeSec) > tc.bEnd })
			if stops := strings.Contains(strings.Join(res.Notes, "\n"), "exitall: "); stops != bStopped {
				t.Errorf("an exitall note: %v, want one only where b was stopped: %q", stops, res.Notes)
			}
			if notes := strings.Join(res.Notes, "\n"); !tc.cRuns && strings.Contains(tc.name, "next phase") && !strings.Contains(notes, "c did not run") {
				t.Errorf("no note says c did not run: %q", res.Notes)
			}
		})
	}
}

// A job that moves its size on OSA gets there sooner while the write
// buffers absorb its writes at the burst's rate: it moves its size, no
// more, alone (layOut) or beside another (overlap), and runs shorter than
// at its steady rate.
func TestSizedWritersMoveTheirSizeThroughTheBurst(t *testing.T) {
	ctx := context.Background()
	ws := workers(96, 8, "r1")
	disks := float64(len(disksOf(ws)))
	run := func(jobs ...fio.Job) *fio.Result {
		t.Helper()
		pl := newOSAPlane(t)
		prepareDrained(ctx, t, pl, ws)
		res, err := pl.Run(ctx, ws, &fio.Workload{Name: "w", Jobs: jobs}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	writer := func(name string, size int64) fio.Job {
		return fio.Job{Name: name, IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 65536, IODepth: 8, Size: size}
	}
	moved := func(res *fio.Result, job string) (bytes, end float64) {
		t.Helper()
		end = lastSample(res, job) // a job's last sample ends with it
		return jobRow(t, res, job, "write").MBps * 1e6 * end, end
	}
	alone := run(writer("", 10<<30))
	bytes, end := moved(alone, "")
	steady := inDirection(alone.Aggregate, "write")[0]
	if last := alone.Samples[len(alone.Samples)-1]; !nearRel(bytes, 10*(1<<30)*disks, 1e-9) || alone.Samples[0].MBps < 1.1*last.MBps {
		t.Errorf("alone: %.4g bytes in %.4g s (%.0f MB/s, from %.0f to %.0f): want its 10 GiB on each of %.0f disks, through the burst", bytes, end, steady.MBps, alone.Samples[0].MBps, last.MBps, disks)
	}
	pair := run(writer("a", 10<<30), writer("b", 20<<30))
	for job, size := range map[string]float64{"a": 10, "b": 20} {
		if bytes, end := moved(pair, job); !nearRel(bytes, size*(1<<30)*disks, 1e-9) {
			t.Errorf("beside another, %s moved %.4g bytes in %.4g s: want its %.0f GiB on each of %.0f disks", job, bytes, end, size, disks)
		}
	}
}

// A workload fio fails parsing (steadystate without its threshold) is
// refused on the simulator as on the workers, where fio-3.33 is installed
// (fio.Workload.CheckWithFio).
func TestPlaneRefusesWhatFioFailsParsing(t *testing.T) {
	if !fio.Installed() {
		t.Skip("fio-3.33 is not installed")
	}
	pl, ws := overlapPlane(t)
	wl := &fio.Workload{Name: "w", Jobs: []fio.Job{readJob4k("a", 60, fio.Option{Key: "steadystate", Value: "iops"})}}
	_, err := pl.Run(context.Background(), ws, wl, nil)
	if err == nil || !strings.Contains(err.Error(), "fio-3.33 fails parsing the job file, as it would on the workers: fio: steadystate threshold must be specified") {
		t.Errorf("%v, want fio's refusal", err)
	}
}
