package model

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// A run marks what it wrote on each disk: random writes of x disk sizes
// cover min(1, x) of it (fio's random map writes each block once a pass),
// sequential ones the first min(1, x) of it (a shorter sequential pass
// later rewrites blocks the first wrote, adding none), a job that is not
// time based its whole size; each block holds the data last written to it,
// so a whole-disk write replaces the compressibility; reads change
// nothing.
func TestPlaneRecordsWhatARunWrote(t *testing.T) {
	pl, _ := newTestPlane(t)
	ctx := context.Background()
	ws := workers(2, 2, "r5") // 4 unprepared disks of 50 GiB
	size := float64(50 << 30)
	run := func(job fio.Job) *fio.Result {
		t.Helper()
		job.IOEngine, job.Direct, job.BlockSize, job.IODepth = "libaio", true, 65536, 4
		res, err := pl.Run(ctx, ws, fio.NewWorkload(job), nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	written := func(res *fio.Result, secs float64) float64 { // bytes per disk
		return res.Aggregate[len(res.Aggregate)-1].MBps * 1e6 * secs / 4
	}
	check := func(what string, share, pct float64) {
		t.Helper()
		for _, w := range ws {
			for _, d := range w.Disks {
				written, compressPct := pl.data(w.Name, d).whole()
				if !(math.Abs(written-share) <= 1e-9) || !(math.Abs(compressPct-pct) <= 1e-9) { // NaN fails
					t.Errorf("after %s: %s/%s written %.6f, %.3f %% compressible; want %.6f, %.3f %%", what, w.Name, d.Name, written, compressPct, share, pct)
				}
			}
		}
	}
	res := run(fio.Job{RW: "randwrite", RuntimeSec: 60, TimeBased: true, BufferCompressPercentage: 50})
	x := written(res, 60) / size
	if x < 0.05 || x > 3 {
		t.Fatalf("60 s of random writes cover %g disk sizes: choose another length for this test", x)
	}
	w1 := math.Min(1, x) // distinct blocks, through fio's random map
	check("60 s of random writes", w1, 50)

	run(fio.Job{RW: "randread", RuntimeSec: 60, TimeBased: true})
	check("a read", w1, 50)

	res = run(fio.Job{RW: "write", RuntimeSec: 20, TimeBased: true, BufferCompressPercentage: 20})
	c2 := written(res, 20) / size // the first c2 of each disk, all of it
	if c2 >= 1 {
		t.Fatalf("20 s of sequential writes cover %g disk sizes: want less than one for this test", c2)
	}
	w2 := c2 + (1-c2)*w1
	pct2 := (c2*20 + (1-c2)*w1*50) / w2
	check("20 s of sequential writes, 20 % compressible", w2, pct2)

	// Not time based but capped by its runtime: it writes what it moves in
	// it, from the start again, over blocks the last job wrote.
	res = run(fio.Job{RW: "write", RuntimeSec: 10})
	c3 := written(res, 10) / size
	if c3 >= c2 {
		t.Fatalf("10 s of sequential writes cover %g disk sizes, 20 s %g: want fewer for this test", c3, c2)
	}
	check("10 s of sequential incompressible writes, not time based", w2, ((c2-c3)*20+(1-c2)*w1*50)/w2)

	run(fio.Job{RW: "write"})
	check("a sequential incompressible write of the whole size", 1, 0)

	// fio's random writes of a size, not time based, write each block once.
	pl, _ = newTestPlane(t)
	run(fio.Job{RW: "randwrite", BufferCompressPercentage: 25})
	check("a random write of the whole size", 1, 25)
}

// A run reports its progress once: its runtime, the throughput of all its
// jobs and directions, and their I/O-weighted mean latency. Its notes name the bottleneck at the model's
// utilisation; a run in one phase at one rate has no note on phases or on
// how its samples combine.
func TestPlaneProgressAndNotes(t *testing.T) {
	var solved Output
	src := &memSource{policies: map[string]Policy{"r5": {RAID: "raid5", FTT: 1}}}
	pl := NewPlane(mustLoad(t, "storagereview-r6625-esa"), src, WithObserver(func(_ context.Context, _ *testbed.Profile, _ Input, out Output, _ float64) { solved = out })).(*Plane)
	ctx := context.Background()
	ws := workers(4, 2, "r5")
	var status []fio.Status
	progress := func(s fio.Status) { status = append(status, s) }
	res, err := pl.Run(ctx, ws, fio.NewWorkload(fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 8192, IODepth: 16, RuntimeSec: 90, TimeBased: true}), progress)
	if err != nil {
		t.Fatal(err)
	}
	r, w := res.Aggregate[0], res.Aggregate[1]
	want := fio.Status{Elapsed: 90, Total: 90, IOPS: r.IOPS + w.IOPS, MBps: r.MBps + w.MBps,
		LatMeanUs: (r.IOPS*r.LatMeanUs + w.IOPS*w.LatMeanUs) / (r.IOPS + w.IOPS)}
	if len(status) != 1 || status[0].Elapsed != want.Elapsed || status[0].Total != want.Total || status[0].IOPS != want.IOPS ||
		status[0].MBps != want.MBps || !(math.Abs(status[0].LatMeanUs/want.LatMeanUs-1) <= 1e-12) {
		t.Errorf("progress %+v, want once %+v", status, want)
	}
	notes := strings.Join(res.Notes, "\n")
	if bn := fmt.Sprintf("bottleneck: %s at %.0f %%;", solved.Bottleneck, 100*solved.BottleneckUtil); !strings.Contains(notes, bn) || solved.BottleneckUtil < 0.05 {
		t.Errorf("notes %q lack %q", notes, bn)
	}
	if strings.Contains(notes, "phases") || strings.Contains(notes, "over the whole run") {
		t.Errorf("a steady one-phase run notes %q", notes)
	}
	// Each row is the aggregate shared evenly over the 8 disks.
	for _, row := range res.Rows {
		agg := r
		if row.Direction == fio.TotalDirection {
			continue // the sum of the disk's two rows (TestPlaneRunShape)
		}
		if row.Direction == "write" {
			agg = w
		}
		if !(math.Abs(row.IOPS*8/agg.IOPS-1) <= 1e-12) || !(math.Abs(row.MBps*8/agg.MBps-1) <= 1e-12) || row.P99Us != agg.P99Us {
			t.Errorf("row %+v is not an 8th of %+v", row, agg)
		}
	}

	// Two jobs: the longer runtime, the throughput of both.
	status = nil
	a := &fio.Job{Name: "a", IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 8, RuntimeSec: 60, TimeBased: true}
	b := &fio.Job{Name: "b", IOEngine: "libaio", Direct: true, RW: "write", BlockSize: 1 << 20, IODepth: 2, RuntimeSec: 120, TimeBased: true}
	res, err = pl.RunJobs(ctx, []JobRun{{Workers: ws[:2], Job: a}, {Workers: ws[2:], Job: b}}, progress)
	if err != nil {
		t.Fatal(err)
	}
	want = fio.Status{Elapsed: 120, Total: 120}
	for _, row := range res.Aggregate {
		want.IOPS += row.IOPS
		want.MBps += row.MBps
	}
	if len(status) != 1 || status[0].Elapsed != want.Elapsed || status[0].Total != want.Total ||
		!(math.Abs(status[0].IOPS/want.IOPS-1) <= 1e-12) || !(math.Abs(status[0].MBps/want.MBps-1) <= 1e-12) {
		t.Errorf("two jobs: progress %+v, want once %+v", status, want)
	}
}

// Concurrent jobs that are not time based each run until they have moved
// their size on each of their disks: the last sample of each is at its
// size over its throughput (both directions).
func TestConcurrentJobsRunUntilTheyMovedTheirSize(t *testing.T) {
	pl, _ := newTestPlane(t)
	ctx := context.Background()
	ws := workers(4, 2, "r5")
	prepareRandom(ctx, t, pl, ws)
	a := &fio.Job{Name: "a", IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 50, BlockSize: 65536, IODepth: 8, Size: 4 << 30}
	b := &fio.Job{Name: "b", IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 8, Size: 1 << 30, NumJobs: 2}
	res, err := pl.RunJobs(ctx, []JobRun{{Workers: ws[:2], Job: a}, {Workers: ws[2:], Job: b}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mbps, last := map[string]float64{}, map[string]float64{}
	for _, row := range res.Aggregate {
		if row.Direction != fio.TotalDirection {
			mbps[row.Job] += row.MBps
		}
	}
	for _, s := range res.Samples {
		last[s.Job] = math.Max(last[s.Job], s.TS)
	}
	// Job a: 4 disks x 4 GiB; job b: 4 disks x 2 fio jobs x 1 GiB.
	for job, bytes := range map[string]float64{"a": 4 * 4 << 30, "b": 4 * 2 << 30} {
		if want := bytes / (mbps[job] * 1e6); !(math.Abs(last[job]/want-1) <= 1e-9) {
			t.Errorf("job %s at %.0f MB/s: last sample at %g s, want %g s", job, mbps[job], last[job], want)
		}
	}
	// Alone, the same.
	alone, err := pl.Run(ctx, ws[:2], fio.NewWorkload(*a), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := float64(16<<30) / ((alone.Aggregate[0].MBps + alone.Aggregate[1].MBps) * 1e6); !(math.Abs(alone.Samples[len(alone.Samples)-1].TS/want-1) <= 1e-9) {
		t.Errorf("job a alone: last sample at %g s, want %g s", alone.Samples[len(alone.Samples)-1].TS, want)
	}
}

// OSA's write buffers carry over from run to run: a first short run fills
// them for its whole length, so a second run's burst is that much shorter
// than it is on empty buffers. A run with a burst says how its figures
// combine; so do concurrent jobs that burst, unless they burst all along.
func TestOSAWriteBuffersCarryOver(t *testing.T) {
	ctx := context.Background()
	ws := workers(96, 8, "r1")
	job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 65536, IODepth: 8, RuntimeSec: 1800, TimeBased: true}
	burst := func(res *fio.Result) float64 {
		for _, n := range res.Notes {
			var mbps, secs float64
			if _, err := fmt.Sscanf(n, "OSA write buffers absorb writes at %f MB/s for the first %f s", &mbps, &secs); err == nil {
				return secs
			}
		}
		return 0
	}
	fresh := newOSAPlane(t)
	whole, err := fresh.Run(ctx, ws, fio.NewWorkload(job), nil)
	if err != nil {
		t.Fatal(err)
	}
	b := burst(whole)
	if b < 60 || !strings.Contains(strings.Join(whole.Notes, "\n"), "over the whole run, throughput is the mean of the samples") {
		t.Fatalf("on empty buffers: a burst of %g s, notes %q; want one of at least a minute, and how the figures combine", b, whole.Notes)
	}
	pl := newOSAPlane(t)
	short := job
	short.RuntimeSec = 30
	if _, err := pl.Run(ctx, ws, fio.NewWorkload(short), nil); err != nil {
		t.Fatal(err)
	}
	again, err := pl.Run(ctx, ws, fio.NewWorkload(job), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := burst(again); !(math.Abs(got-(b-30)) <= 1) {
		t.Errorf("after a 30 s burst the next run bursts %g s, want %g", got, b-30)
	}
	// A ramp fills the buffers too, unmeasured: the note counts the burst
	// from the end of the ramp.
	ramped := job
	ramped.RampSec = 20
	res, err := newOSAPlane(t).Run(ctx, ws, fio.NewWorkload(ramped), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := burst(res); !(math.Abs(got-(b-20)) <= 1) || !strings.Contains(strings.Join(res.Notes, "\n"), "until 30 % full") {
		t.Errorf("after a 20 s ramp the measurement bursts %g s, want %g, until the 30 %% threshold: notes %q", got, b-20, res.Notes)
	}
	// A run shorter than the burst bursts all along: nothing falls.
	brief := job
	brief.RuntimeSec = 10
	if res, err = newOSAPlane(t).Run(ctx, ws, fio.NewWorkload(brief), nil); err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(res.Notes, "\n"); strings.Contains(notes, "OSA write buffers absorb") || strings.Contains(notes, "over the whole run") {
		t.Errorf("a 10 s run on empty buffers: notes %q", res.Notes)
	}

	// Two concurrent writing jobs on empty buffers burst, then slow down.
	pl = newOSAPlane(t)
	a, c := job, job
	a.Name, c.Name = "a", "c"
	res, err = pl.RunJobs(ctx, []JobRun{{Workers: ws[:48], Job: &a}, {Workers: ws[48:], Job: &c}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var first, final float64
	for _, s := range res.Samples {
		if s.Job == "a" {
			if first == 0 {
				first = s.IOPS
			}
			final = s.IOPS
		}
	}
	if first < 1.1*final || !strings.Contains(strings.Join(res.Notes, "\n"), "over the whole run, throughput is the mean of the samples") {
		t.Errorf("two writing jobs: first sample %.0f IOPS, last %.0f, notes %q; want the burst above the steady rate, and how the figures combine", first, final, res.Notes)
	}
	// Two 10 s jobs on empty buffers burst all along: nothing to combine.
	pl = newOSAPlane(t)
	a.RuntimeSec, c.RuntimeSec = 10, 10
	res, err = pl.RunJobs(ctx, []JobRun{{Workers: ws[:48], Job: &a}, {Workers: ws[48:], Job: &c}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(res.Notes, "\n"), "over the whole run") {
		t.Errorf("two jobs bursting all along: notes %q", res.Notes)
	}
}

// An error in one of several concurrent jobs names the job; alone, a job
// needs no name.
func TestConcurrentJobErrorsNameTheJob(t *testing.T) {
	pl, _ := newTestPlane(t)
	ctx := context.Background()
	good, bad := workers(2, 1, "r5"), workers(2, 1, "gold")
	job := func(name string) *fio.Job {
		return &fio.Job{Name: name, IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 4}
	}
	_, err := pl.RunJobs(ctx, []JobRun{{Workers: good, Job: job("a")}, {Workers: bad, Job: job("b")}}, nil)
	if err == nil || !strings.HasPrefix(err.Error(), `job b: disk disk1 of w0: policy "gold"`) {
		t.Errorf("a bad policy under job b: %v", err)
	}
	_, err = pl.RunJobs(ctx, []JobRun{{Workers: bad, Job: job("b")}}, nil)
	if err == nil || !strings.HasPrefix(err.Error(), `disk disk1 of w0: policy "gold"`) {
		t.Errorf("a bad policy under the only job: %v", err)
	}
}

// The model sees a job of a workload alone without a name, and the jobs
// of a workload of several by their names.
func TestPlaneNamesJobsOnlyAmongSeveral(t *testing.T) {
	var seen []string
	src := &memSource{policies: map[string]Policy{"r5": {RAID: "raid5", FTT: 1}}}
	pl := NewPlane(mustLoad(t, "storagereview-r6625-esa"), src, WithObserver(func(_ context.Context, _ *testbed.Profile, in Input, _ Output, _ float64) {
		seen = nil
		for _, j := range in.Jobs {
			seen = append(seen, j.Name)
		}
	})).(*Plane)
	ctx := context.Background()
	ws := workers(4, 2, "r5")
	job := func(name string) *fio.Job {
		return &fio.Job{Name: name, IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 4, RuntimeSec: 10, TimeBased: true}
	}
	if _, err := pl.RunJobs(ctx, []JobRun{{Workers: ws, Job: job("a")}}, nil); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0] != "" {
		t.Errorf("one job: the model saw jobs %q, want one without a name", seen)
	}
	if _, err := pl.RunJobs(ctx, []JobRun{{Workers: ws[:2], Job: job("a")}, {Workers: ws[2:], Job: job("b")}}, nil); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0] != "a" || seen[1] != "b" {
		t.Errorf("two jobs: the model saw jobs %q, want a and b", seen)
	}
}

// A job that moves its size once writes distinct blocks (fio's random
// map): a randrw 70/30 pass writes 30 % of the region; two passes
// (loops=2) in the same order write the same 30 % (fio repeats its offsets
// and directions), in a new order each (randrepeat=0) 1 - 0.7^2 = 51 %; a
// sequential write of half the size (io_size) half of it; one without the
// random map (norandommap) covers 1-exp(-written/size). Two clones on one
// region write it as two passes of their own; spread by offset_increment
// each writes 30 % of its own.
func TestWrittenShareFollowsTheExtent(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		job  fio.Job
		want float64
	}{
		{"randrw 70/30 once", fio.Job{RW: "randrw", RWMixRead: 70, Options: []fio.Option{{Key: "size", Value: "10%"}}}, 0.3},
		{"randrw 70/30 twice", fio.Job{RW: "randrw", RWMixRead: 70, Options: []fio.Option{{Key: "size", Value: "10%"}, {Key: "loops", Value: "2"}}}, 0.3},
		{"randrw 70/30 twice, a new order each loop", fio.Job{RW: "randrw", RWMixRead: 70, Options: []fio.Option{{Key: "size", Value: "10%"}, {Key: "loops", Value: "2"}, {Key: "randrepeat", Value: "0"}}}, 1 - 0.7*0.7},
		{"half the size sequentially", fio.Job{RW: "write", Size: 1 << 30, Options: []fio.Option{{Key: "io_size", Value: "512m"}}}, 0.5},
		{"half the size sequentially, twice", fio.Job{RW: "write", Size: 1 << 30, Options: []fio.Option{{Key: "io_size", Value: "50%"}, {Key: "loops", Value: "2"}}}, 0.5},
		{"randwrite all of it", fio.Job{RW: "randwrite", Options: []fio.Option{{Key: "offset", Value: "50%"}}}, 1},
		{"randwrite all of it without a random map", fio.Job{RW: "randwrite", Options: []fio.Option{{Key: "size", Value: "10%"}, {Key: "norandommap"}}}, 1 - math.Exp(-1)},
		{"randrw 70/30 once by two clones on one region", fio.Job{RW: "randrw", RWMixRead: 70, NumJobs: 2, Options: []fio.Option{{Key: "size", Value: "10%"}}}, 1 - 0.7*0.7},
		{"randrw 70/30 once by two clones side by side", fio.Job{RW: "randrw", RWMixRead: 70, NumJobs: 2, Options: []fio.Option{{Key: "size", Value: "10%"}, {Key: "offset_increment", Value: "10%"}}}, 0.3},
	} {
		pl, _ := newTestPlane(t)
		job := c.job
		job.IOEngine, job.Direct, job.BlockSize, job.IODepth = "libaio", true, 65536, 8
		if _, err := pl.Run(ctx, workers(1, 1, ""), fio.NewWorkload(job), nil); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		w := workers(1, 1, "")[0]
		sh, err := readJob(&job)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := pl.data(w.Name, w.Disks[0]).over(sh.extent.reach(pl.diskSize(w.Disks[0]), job.NumJobs)); !(math.Abs(got-c.want) <= 1e-6) {
			t.Errorf("%s: %.4f of the blocks written, want %.4f", c.name, got, c.want)
		}
	}
}

// A simulated preparation returns at once with no progress sample: an
// empty one reached a campaign's log as "run 1/16: 0s/0s 0 IOPS 0 MB/s"
// before the run had started.
func TestPrepareReportsNoSample(t *testing.T) {
	pl, _ := newTestPlane(t)
	samples := 0
	err := pl.Prepare(context.Background(), workers(2, 2, "r5"), fio.Prep{Method: "random"}, func(fio.Status) { samples++ })
	if err != nil {
		t.Fatal(err)
	}
	if samples != 0 {
		t.Errorf("the preparation reported %d progress samples, want none", samples)
	}
}
