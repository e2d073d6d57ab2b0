package model

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"starbench/internal/fio"
)

// A host failing stops I/O for a pause: the interval's throughput shrinks
// by the time lost, the mean latency grows by the same factor, and the
// I/Os stuck through the pause set the tail once they are 1 % of the
// interval's I/Os. The figures are chosen so that every product is exact:
// 16 s of 64 lost leaves 3/4, and 768 stuck I/Os of 1600 x 0.75 x 64 =
// 76,800 are exactly the 1 % threshold.
func TestStallTakesThePauseOutOfTheInterval(t *testing.T) {
	base := func() [2]Direction {
		return [2]Direction{
			{IOPS: 1000, MBps: 8, LatMeanUs: 900, P50Us: 500, P95Us: 1500, P99Us: 2000, P999Us: 3000},
			{IOPS: 600, MBps: 4.8, LatMeanUs: 1800, P50Us: 1000, P95Us: 3000, P99Us: 5000, P999Us: 20e6},
		}
	}
	at := base()
	stall(&at, 768, 64, 16)
	want := [2]Direction{
		{IOPS: 750, MBps: 6, LatMeanUs: 1200, P50Us: 500, P95Us: 1500, P99Us: 16e6, P999Us: 16e6},
		{IOPS: 450, MBps: 3.6, LatMeanUs: 2400, P50Us: 1000, P95Us: 3000, P99Us: 16e6, P999Us: 20e6},
	}
	for dir := range want {
		if !closeDirection(at[dir], want[dir]) {
			t.Errorf("%s, 768 I/Os stuck (1 %%): %+v, want %+v", dirName[dir], at[dir], want[dir])
		}
	}
	// One I/O fewer is below 1 %: the tail stays the interval's own.
	below := base()
	stall(&below, 767, 64, 16)
	for dir, d := range below {
		if d.P99Us != base()[dir].P99Us || d.P999Us != base()[dir].P999Us || d.IOPS != want[dir].IOPS {
			t.Errorf("%s, 767 I/Os stuck: %+v; want the throughput of the pause and the tail unchanged", dirName[dir], d)
		}
	}
	// No pause, no change.
	none := base()
	stall(&none, 768, 64, 0)
	if none != base() {
		t.Errorf("without a pause: %+v, want %+v", none, base())
	}
}

// A pause longer than the interval leaves a tenth of it (the interval
// still ends with I/O running); a direction without I/O stays empty.
func TestStallLeavesATenthAndAnEmptyDirection(t *testing.T) {
	dirs := [2]Direction{{IOPS: 1000, MBps: 8, LatMeanUs: 900, P99Us: 2000, P999Us: 3000}}
	stall(&dirs, 600, 60, 100)
	if r := dirs[read]; !(math.Abs(r.IOPS-100) <= 1e-9) || !(math.Abs(r.LatMeanUs-9000) <= 1e-6) || !(math.Abs(r.P99Us-54e6) <= 1e-3) {
		t.Errorf("reads after a 100 s pause in 60 s: %+v; want 100 IOPS, 9000 us mean, p99 the 54 s paused", r)
	}
	if dirs[write] != (Direction{}) {
		t.Errorf("writes without I/O became %+v", dirs[write])
	}
}

func closeDirection(a, b Direction) bool {
	x := []float64{a.IOPS, a.MBps, a.LatMeanUs, a.P50Us, a.P95Us, a.P99Us, a.P999Us}
	y := []float64{b.IOPS, b.MBps, b.LatMeanUs, b.P50Us, b.P95Us, b.P99Us, b.P999Us}
	for i := range x {
		if !(math.Abs(x[i]-y[i]) <= 1e-9*math.Max(1, math.Abs(y[i]))) { // NaN is never close
			return false
		}
	}
	return true
}

// Over a measurement, a row's throughput is its I/Os and bytes over the
// whole time (intervals where it did nothing count), its latencies the
// I/O-weighted mean of the intervals', its errors the sum; rows come in the
// order they first appear. Worked by hand:
// 100 IOPS for 10 s and 300 IOPS for 30 s are 10,000 I/Os in 40 s, 250
// IOPS; the mean latency (1,000 x 50 + 9,000 x 150) / 10,000 = 140 us.
func TestWeightedCombinesIntervalsByTimeAndIOs(t *testing.T) {
	row := func(worker, dir string, iops, lat float64, errs int) fio.Row {
		return fio.Row{Worker: worker, Disk: "disk1", Direction: dir, IOPS: iops, MBps: iops / 100, LatMeanUs: lat,
			P50Us: lat / 2, P95Us: 2 * lat, P99Us: 3 * lat, P999Us: 4 * lat, Errors: errs, Simulated: true}
	}
	spans := []interval{
		{&fio.Result{Rows: []fio.Row{row("w1", "read", 100, 50, 1), row("w3", "read", 0, 70, 0)}}, 10},
		{&fio.Result{Rows: []fio.Row{row("w1", "read", 300, 150, 2), row("w2", "write", 50, 400, 0), row("w3", "read", 0, 90, 0)}}, 30},
	}
	got := weighted(spans, func(r *fio.Result) []fio.Row { return r.Rows })
	want := []fio.Row{
		{Worker: "w1", Disk: "disk1", Direction: "read", IOPS: 250, MBps: 2.5, LatMeanUs: 140, P50Us: 70, P95Us: 280, P99Us: 420, P999Us: 560, Errors: 3, Simulated: true},
		// No I/O at all: the first interval's latencies, never 0/0.
		{Worker: "w3", Disk: "disk1", Direction: "read", LatMeanUs: 70, P50Us: 35, P95Us: 140, P99Us: 210, P999Us: 280, Simulated: true},
		// Idle for the first 10 s: 1,500 I/Os over 40 s.
		{Worker: "w2", Disk: "disk1", Direction: "write", IOPS: 37.5, MBps: 0.375, LatMeanUs: 400, P50Us: 200, P95Us: 800, P99Us: 1200, P999Us: 1600, Simulated: true},
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		same := g.Worker == w.Worker && g.Direction == w.Direction && g.Errors == w.Errors && g.Simulated &&
			closeDirection(Direction{g.IOPS, g.MBps, g.LatMeanUs, g.P50Us, g.P95Us, g.P99Us, g.P999Us},
				Direction{w.IOPS, w.MBps, w.LatMeanUs, w.P50Us, w.P95Us, w.P99Us, w.P999Us})
		if !same {
			t.Errorf("row %d: %+v\nwant %+v", i, g, w)
		}
	}
}

// The result of a scenario gathers every workload's rows under its name,
// the samples in time order, each note once and the note on how intervals
// combine; a workload that never ran adds nothing.
func TestScenarioResultGathersTheWorkloads(t *testing.T) {
	agg := func(iops float64) fio.Row {
		return fio.Row{Direction: "read", IOPS: iops, MBps: iops / 100, LatMeanUs: 100, Simulated: true}
	}
	res := func(iops float64, notes ...string) *fio.Result {
		r := agg(iops)
		r.Worker, r.Disk = "w1", "disk1"
		return &fio.Result{Simulated: true, Model: Version, Testbed: "tb", Rows: []fio.Row{r}, Aggregate: []fio.Row{agg(iops)}, Notes: notes}
	}
	s := &Scenario{classes: []*class{
		{name: "oltp", intervals: []interval{{res(100, "a", "b"), 60}, {res(200, "b", "c"), 60}},
			samples: []fio.Sample{{Job: "oltp", TS: 60}, {Job: "oltp", TS: 120}}},
		{name: "idle"},
		{name: "backup", intervals: []interval{{res(50, "d", "a"), 60}}, samples: []fio.Sample{{Job: "backup", TS: 60}, {Job: "backup", TS: 90}}},
	}}
	out, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	if !out.Simulated || out.Model != Version || out.Testbed != "tb" {
		t.Errorf("result simulated %v by %q on %q", out.Simulated, out.Model, out.Testbed)
	}
	var jobs []string
	for _, r := range out.Aggregate {
		jobs = append(jobs, r.Job)
	}
	for _, r := range out.Rows {
		jobs = append(jobs, r.Job)
	}
	if want := []string{"oltp", "backup", "oltp", "backup"}; !slices.Equal(jobs, want) {
		t.Errorf("rows of jobs %v, want %v", jobs, want)
	}
	if out.Aggregate[0].IOPS != 150 || out.Aggregate[1].IOPS != 50 {
		t.Errorf("aggregate IOPS %g and %g, want 150 (100 then 200) and 50", out.Aggregate[0].IOPS, out.Aggregate[1].IOPS)
	}
	var ts []string
	for _, smp := range out.Samples {
		ts = append(ts, fmt.Sprintf("%s@%g", smp.Job, smp.TS))
	}
	if want := []string{"oltp@60", "backup@60", "backup@90", "oltp@120"}; !slices.Equal(ts, want) {
		t.Errorf("samples %v, want %v (in time, workloads in order at the same time)", ts, want)
	}
	if len(out.Notes) != 5 || strings.Join(out.Notes[:4], " ") != "a b c d" || !strings.Contains(out.Notes[4], "I/O-weighted mean") {
		t.Errorf("notes %q; want a, b, c, d once each, then how the intervals combine", out.Notes)
	}
	if _, err := (&Scenario{classes: []*class{{name: "oltp"}}}).Result(); err == nil || !strings.Contains(err.Error(), "no interval solved") {
		t.Errorf("a scenario never stepped: %v", err)
	}
}

// A scenario without events is a run interval by interval: each
// interval's samples end at t + dt with the run's figures, on the cluster
// state the control plane gives (here two NICs in a LAG, not the profile's
// one-link uplink); progress follows the main job; the result is the run's.
func TestScenarioWithoutEventsIsARun(t *testing.T) {
	pl, src := newTestPlane(t)
	src.state = ClusterState{ActiveNICs: []string{"vmnic0", "vmnic1"}, LAG: "lag1"}
	ctx := context.Background()
	ws := workers(4, 2, "r5")
	prepareRandom(ctx, t, pl, ws)
	job := &fio.Job{Name: "mix", IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 1 << 20, IODepth: 8, RuntimeSec: 120, TimeBased: true}
	run, err := pl.Run(ctx, ws, fio.NewWorkload(*job), nil)
	if err != nil {
		t.Fatal(err)
	}
	oneLink := newPlaneWith(t, "storagereview-r6625-esa", ClusterState{})
	if err := oneLink.Prepare(ctx, ws, fio.Prep{Method: "random"}, nil); err != nil {
		t.Fatal(err)
	}
	narrow, err := oneLink.Run(ctx, ws, fio.NewWorkload(*job), nil)
	if err != nil {
		t.Fatal(err)
	}
	if narrow.Aggregate[0].IOPS == run.Aggregate[0].IOPS {
		t.Fatalf("one link or two: %g read IOPS either way; the test needs a state that matters", run.Aggregate[0].IOPS)
	}
	var progress []fio.Status
	s := pl.Scenario(ws, job, func(st fio.Status) { progress = append(progress, st) })
	for _, at := range []float64{0, 60} {
		samples, logged, err := s.Step(ctx, at, 60, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(samples) != 2 || len(logged) != 0 {
			t.Fatalf("at %g s: samples %+v, events %+v", at, samples, logged)
		}
		var iops, mbps, lat float64
		for i, smp := range samples {
			agg := run.Aggregate[i]
			if smp.Job != "mix" || smp.Direction != agg.Direction || smp.TS != at+60 || !(math.Abs(smp.IOPS/agg.IOPS-1) <= 1e-9) || !(math.Abs(smp.P99Us/agg.P99Us-1) <= 1e-9) {
				t.Errorf("at %g s: sample %+v, want the run's %+v at %g s", at, smp, agg, at+60)
			}
			iops, mbps, lat = iops+smp.IOPS, mbps+smp.MBps, lat+smp.IOPS*smp.LatMeanUs
		}
		st := progress[len(progress)-1]
		if len(progress) != int(at/60)+1 || st.Elapsed != int(at)+60 || st.Total != 120 || !(math.Abs(st.IOPS/iops-1) <= 1e-9) || !(math.Abs(st.MBps/mbps-1) <= 1e-9) || !(math.Abs(st.LatMeanUs/(lat/iops)-1) <= 1e-9) {
			t.Errorf("at %g s: progress %+v, want %d s of 120, %g IOPS, %g MB/s, %g us", at, progress, int(at)+60, iops, mbps, lat/iops)
		}
	}
	res, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Aggregate) != 3 || len(run.Aggregate) != 3 || res.Aggregate[2].Direction != fio.TotalDirection {
		t.Fatalf("aggregates: the scenario's %+v, the run's %+v; want read, write and total", res.Aggregate, run.Aggregate)
	}
	for i, agg := range res.Aggregate {
		if !(math.Abs(agg.IOPS/run.Aggregate[i].IOPS-1) <= 1e-9) || agg.Job != "mix" {
			t.Errorf("the scenario's %+v, the run's %+v", agg, run.Aggregate[i])
		}
	}
}

func newPlaneWith(t *testing.T, profile string, state ClusterState) *Plane {
	src := &memSource{state: state, policies: map[string]Policy{"r1": {RAID: "raid1", FTT: 1}, "r5": {RAID: "raid5", FTT: 1}}}
	return NewPlane(mustLoad(t, profile), src).(*Plane)
}

// A second workload runs from its start (included) to its end (excluded).
func TestScenarioWorkloadWindow(t *testing.T) {
	pl, ws := scenarioPlane(t)
	s := pl.Scenario(ws[:4], oltpJob(180), nil)
	s.AddWorkload("backup", ws[4:], &fio.Job{Name: "backup", RW: "read", BlockSize: 1 << 20, IODepth: 8, IOEngine: "libaio", Direct: true}, 60, 120)
	for _, at := range []float64{0, 60, 120} {
		samples, _, err := s.Step(context.Background(), at, 60, nil)
		if err != nil {
			t.Fatal(err)
		}
		backup := 0
		for _, smp := range samples {
			if smp.Job == "backup" {
				backup++
			}
		}
		if want := map[float64]int{0: 0, 60: 1, 120: 0}[at]; backup != want {
			t.Errorf("interval from %g s: %d backup samples, want %d", at, backup, want)
		}
	}
}

// A second workload on the measured workers runs on their VMs and disks:
// the same VMs (not twice the vCPUs), the same objects, so an identical
// workload there does what the measured job does.
func TestScenarioWorkloadOnTheMeasuredWorkers(t *testing.T) {
	pl, ws := scenarioPlane(t)
	job := &fio.Job{Name: "reads", RW: "randread", BlockSize: 4096, IODepth: 8, IOEngine: "libaio", Direct: true, RuntimeSec: 60, TimeBased: true}
	twin := *job
	twin.Name = "twin"
	s := pl.Scenario(ws[:4], job, nil)
	s.AddWorkload("twin", ws[:4], &twin, 0, 60)
	in, err := s.input(context.Background(), s.classes, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.VMs) != 4 || in.Jobs[1].Disks[0].Disk == "" || in.Jobs[1].Disks[0] != in.Jobs[0].Disks[0] {
		t.Errorf("a workload on the measured 4 workers: %d VMs, its first disk %+v, the measured job's %+v; want 4 and the same disk", len(in.VMs), in.Jobs[1].Disks[0], in.Jobs[0].Disks[0])
	}
	samples, _, err := s.Step(context.Background(), 0, 60, nil)
	if err != nil {
		t.Fatal(err)
	}
	iops := map[string]float64{}
	for _, smp := range samples {
		iops[smp.Job] += smp.IOPS
	}
	if len(iops) != 2 || !(math.Abs(iops["reads"]/iops["twin"]-1) <= 1e-9) {
		t.Errorf("identical workloads on the same disks: %v, want the same IOPS", iops)
	}
	// Under an IOPS limit of 1,000 an object's, the two share each disk's.
	pl, src := newTestPlane(t)
	src.policies["lim"] = Policy{RAID: "raid1", FTT: 1, IOPSLimit: 1000}
	limited := workers(4, 2, "lim")
	s = pl.Scenario(limited, job, nil)
	s.AddWorkload("twin", limited, &twin, 0, 60)
	if samples, _, err = s.Step(context.Background(), 0, 60, nil); err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, smp := range samples {
		total += smp.IOPS
	}
	if !(math.Abs(total-8*1000) <= 1) {
		t.Errorf("two workloads on 8 disks limited to 1,000 IOPS each: %.1f IOPS together, want 8,000", total)
	}
}

// Alone on an OSA cluster a scenario's job fills the write buffers as a
// run does: its first interval bursts above its later ones.
func TestScenarioAloneBurstsOnOSA(t *testing.T) {
	pl := newOSAPlane(t)
	ws := workers(96, 8, "r1")
	s := pl.Scenario(ws, &fio.Job{Name: "oltp", IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 65536, IODepth: 8, RuntimeSec: 600, TimeBased: true}, nil)
	series, _ := stepThrough(t, s, nil, 600)
	if series[0] < 1.1*series[9] {
		t.Errorf("OSA writes: %.0f IOPS in the first minute, %.0f in the tenth; want the burst first", series[0], series[9])
	}
}

// A job's ramp_time runs before the measurement, unmeasured, as in fio:
// stepped from -ramp, its intervals fill OSA's write buffers but give no
// sample and no part of the result, so a ramp as long as the burst leaves
// the measurement steady from its first interval. A second workload's
// ramp is its own first seconds.
func TestScenarioRampRunsButIsNotMeasured(t *testing.T) {
	ctx := context.Background()
	job := &fio.Job{Name: "oltp", IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 65536, IODepth: 8, RuntimeSec: 600, RampSec: 600, TimeBased: true}
	s := newOSAPlane(t).Scenario(workers(96, 8, "r1"), job, nil)
	for at := -600.0; at < 0; at += 60 {
		samples, _, err := s.Step(ctx, at, 60, nil)
		if err != nil || len(samples) != 0 {
			t.Fatalf("ramp interval at %g s: samples %+v, %v; want none", at, samples, err)
		}
	}
	series, _ := stepThrough(t, s, nil, 600)
	if !(math.Abs(series[0]/series[9]-1) <= 0.01) {
		t.Errorf("after a 10-minute ramp: %.0f IOPS in the first minute, %.0f in the tenth; want the burst spent in the ramp", series[0], series[9])
	}
	res, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Aggregate[0].IOPS; !(math.Abs(got/series[9]-1) <= 0.01) || res.Samples[0].TS != 60 || len(res.Samples) != 10 {
		t.Errorf("result %.0f IOPS from %d samples, the first at %g s; want the measured minutes' %.0f, 10 samples from 60 s", got, len(res.Samples), res.Samples[0].TS, series[9])
	}

	pl, ws := scenarioPlane(t)
	s = pl.Scenario(ws[:4], oltpJob(180), nil)
	s.AddWorkload("backup", ws[4:], &fio.Job{Name: "backup", RW: "read", BlockSize: 1 << 20, IODepth: 8, IOEngine: "libaio", Direct: true, RampSec: 30}, 60, 150)
	for _, at := range []float64{0, 60, 120} {
		if _, _, err := s.Step(ctx, at, 60, nil); err != nil {
			t.Fatal(err)
		}
	}
	res, err = s.Result()
	if err != nil {
		t.Fatal(err)
	}
	var backup []float64
	for _, smp := range res.Samples {
		if smp.Job == "backup" {
			backup = append(backup, smp.TS)
		}
	}
	if len(backup) != 2 || backup[0] != 120 || backup[1] != 180 {
		t.Errorf("a backup from 60 s with a 30 s ramp, stepped by the minute: samples at %v s; want 120 and 180 (its second and third minutes, after its ramp)", backup)
	}
}

// With noise, a scenario's intervals vary as runs do, the same with the
// same seed.
func TestScenarioNoiseIsSeeded(t *testing.T) {
	series := func(seed uint64) []float64 {
		pl, _ := newTestPlane(t, WithNoise(seed))
		s := pl.Scenario(workers(4, 2, "r5"), oltpJob(300), nil)
		got, _ := stepThrough(t, s, nil, 300)
		return got
	}
	a, b, c := series(1), series(1), series(2)
	if !slices.Equal(a, b) || slices.Equal(a, c) || a[0] == a[1] {
		t.Errorf("seed 1 twice: %v and %v; seed 2: %v; want the same, then different, varying by interval", a, b, c)
	}
}

// What is written while a host is out is what resynchronises when it is
// back: its share (2 components over 4 hosts: half) of the bytes the
// workload wrote in the intervals it was out, from the samples.
func TestResyncCopiesTheShareOfWhatWasWritten(t *testing.T) {
	pl, ws := scenarioPlane(t)
	s := pl.Scenario(ws, oltpJob(1800), nil)
	evs := []fio.Event{{AtS: 120, Kind: "host_failure", Target: "esx-04"}, {AtS: 1320, Kind: "host_return", Target: "esx-04"}}
	var written float64
	var logged []fio.Event
	for at := 0.0; at < 1800; at += 60 {
		samples, l, err := s.Step(context.Background(), at, 60, dueBy(evs, at))
		if err != nil {
			t.Fatal(err)
		}
		logged = append(logged, l...)
		for _, smp := range samples {
			if smp.Direction == "write" && at >= 120 && at < 1320 {
				written += smp.MBps * 1e6 * 60
			}
		}
	}
	var gib float64
	if len(logged) == 0 || logged[0].Kind != "resync_start" {
		t.Fatalf("logged %+v", logged)
	}
	if _, err := fmt.Sscanf(logged[0].Detail, "resync of %f GiB", &gib); err != nil {
		t.Fatal(err)
	}
	if want := 0.5 * written / (1 << 30); !(math.Abs(gib-want) <= 0.051) {
		t.Errorf("resync of %.1f GiB; want half of the %.1f GiB written while the host was out, %.2f", gib, written/(1<<30), want)
	}
}

// Resync moves what the foreground leaves on the station it needs most:
// under a light foreground, the least of (1 - utilisation) / load per byte
// over the stations, from the foreground's own solve. The evacuation of a
// host's 100 GiB then takes 100 GiB over that rate, and the foreground of
// that interval has the rest of each station.
func TestResyncTakesWhatALightForegroundLeaves(t *testing.T) {
	pl, ws := scenarioPlane(t)
	light := &fio.Job{Name: "oltp", RW: "randread", BlockSize: 4096, IODepth: 1, RuntimeSec: 6000, TimeBased: true, IOEngine: "libaio", Direct: true}
	s := pl.Scenario(ws[:1], light, nil)
	series, logged := stepThrough(t, s, []fio.Event{{AtS: 0, Kind: "maintenance_enter", Target: "esx-04", Detail: "full_data_migration"}}, 3600)
	if len(logged) < 2 || logged[0].Detail != "evacuation of 100.0 GiB" || logged[1].Kind != "resync_end" {
		t.Fatalf("logged %+v; want the evacuation of a host's 100 GiB (one worker's 4 x 50 GiB, two mirrors, over 4 hosts) to start and end", logged)
	}
	in, _, err := pl.input(context.Background(), ws[:1], light)
	if err != nil {
		t.Fatal(err)
	}
	d := Degradation{Out: 1}
	in.Degradation = &d
	fg, err := Solve(context.Background(), pl.p, in)
	if err != nil {
		t.Fatal(err)
	}
	c, err := buildCell(pl.p, in, false)
	if err != nil {
		t.Fatal(err)
	}
	free, alone := math.Inf(1), math.Inf(1)
	for name, l := range resyncLoad(pl.p, c, &d) {
		free = math.Min(free, (1-util(fg, name))/l)
		alone = math.Min(alone, 1/l)
	}
	if free < 2*ResyncMinShare*alone {
		t.Fatalf("the light foreground leaves %g B/s of %g: not light enough for this test", free, alone)
	}
	if took, want := logged[1].AtS-logged[0].AtS, 100*gib/free; !(math.Abs(took/want-1) <= 1e-9) {
		t.Errorf("the evacuation took %g s, want %g s at %.2f GB/s", took, want, free/1e9)
	}
	// The foreground of that first minute shares each station with the
	// evacuation for the seconds it ran: rate x load x busy / 60 of it.
	took := logged[1].AtS - logged[0].AtS
	bg := map[string]float64{}
	for name, l := range resyncLoad(pl.p, c, &d) {
		bg[name] = free * l * took / 60
	}
	in.Degradation = &Degradation{Out: 1, Background: bg}
	shared, err := Solve(context.Background(), pl.p, in)
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(series[0]/iops(shared)-1) <= 1e-9) || series[0] >= series[1] {
		t.Errorf("the first minute %.0f IOPS, the next %.0f; want %.0f, beside %.1f s of evacuation", series[0], series[1], iops(shared), took)
	}
}

// A host back while its rebuild runs, with nothing written meanwhile (a
// read-only workload), has nothing left to copy: the rebuild ends when the
// host is back, and the log says so.
func TestARebuildCutShortByTheHostsReturnEnds(t *testing.T) {
	pl, ws := scenarioPlane(t)
	s := pl.Scenario(ws, &fio.Job{Name: "oltp", RW: "randread", BlockSize: 4096, IODepth: 16, RuntimeSec: 6000, TimeBased: true, IOEngine: "libaio", Direct: true}, nil)
	back := RepairDelay + 30
	evs := []fio.Event{{AtS: 0, Kind: "host_failure", Target: "esx-04"}, {AtS: back, Kind: "host_return", Target: "esx-04"}}
	_, logged := stepThrough(t, s, evs, RepairDelay+600)
	want := fmt.Sprintf("%g resync_start esx-04 rebuild of 800.0 GiB; %g resync_end esx-04 rebuild", RepairDelay, back)
	if got := describe(logged); got != want {
		t.Errorf("logged %s\nwant %s", got, want)
	}
}

// On OSA a disk group holds what is stored over the disk groups, a device
// what is stored over the devices: 96 workers' 8 x 50 GiB RAID-1 disks
// (76,800 GiB stored) over 24 hosts' 2 groups and 8 devices.
func TestOSARebuildsADiskGroupOrADevice(t *testing.T) {
	for _, c := range []struct{ unit, want string }{{"disk_group", "rebuild of 1600.0 GiB"}, {"device", "rebuild of 400.0 GiB"}} {
		pl := newOSAPlane(t)
		ws := workers(96, 8, "r1")
		if err := pl.Prepare(context.Background(), ws, fio.Prep{Method: "random"}, nil); err != nil {
			t.Fatal(err)
		}
		s := pl.Scenario(ws, oltpJob(600), nil)
		fail := fio.Event{AtS: 0, Kind: "disk_failure", Target: "esx-01/naa.1", Detail: "how=remove unit=" + c.unit + " components=degraded"}
		_, logged := stepThrough(t, s, []fio.Event{fail}, 60)
		if len(logged) == 0 || logged[0].Detail != c.want {
			t.Errorf("a %s failing: logged %+v, want %q", c.unit, logged, c.want)
		}
	}
}

// What a scenario's workload writes is on the disks afterwards, as after a
// run: 60 s of random writes of x disk sizes (less than one) cover x of
// each, fio's random map writing distinct blocks.
func TestScenarioRecordsWhatItWrote(t *testing.T) {
	pl, _ := newTestPlane(t)
	ws := workers(2, 2, "r5") // 4 unprepared disks of 50 GiB
	s := pl.Scenario(ws, &fio.Job{Name: "fill", RW: "randwrite", BlockSize: 65536, IODepth: 4, RuntimeSec: 60, TimeBased: true, IOEngine: "libaio", Direct: true}, nil)
	samples, _, err := s.Step(context.Background(), 0, 60, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 1 || samples[0].Direction != "write" {
		t.Fatalf("samples %+v", samples)
	}
	x := samples[0].MBps * 1e6 * 60 / 4 / (50 << 30)
	for _, w := range ws {
		for _, d := range w.Disks {
			if got, _ := pl.data(w.Name, d).whole(); !(math.Abs(got-x) <= 1e-9) || x < 0.05 || x > 0.95 {
				t.Errorf("%s/%s: %.6f written after %g disk sizes of random writes, want as many", w.Name, d.Name, got, x)
			}
		}
	}
}

// A scenario on disks that hold no data has nothing to rebuild when a
// host or a device fails: the cluster runs on, nothing is absent, nothing
// is copied. A read-only job writes nothing, even without a runtime.
func TestScenarioOnEmptyDisks(t *testing.T) {
	pl, _ := newTestPlane(t)
	ws := workers(4, 2, "r5") // never prepared
	s := pl.Scenario(ws, &fio.Job{Name: "oltp", RW: "randread", BlockSize: 4096, IODepth: 4, IOEngine: "libaio", Direct: true}, nil)
	evs := []fio.Event{{AtS: 0, Kind: "host_failure", Target: "esx-02"}, {AtS: 0, Kind: "disk_failure", Target: "esx-01/naa.1", Detail: "how=remove unit=device components=degraded"}}
	series, logged := stepThrough(t, s, evs, 3*60+RepairDelay)
	if len(logged) != 0 || s.rec.degradation().Absent != 0 {
		t.Errorf("logged %+v, absent %g; want nothing to rebuild", logged, s.rec.degradation().Absent)
	}
	for i, x := range series {
		if !(x > 0) || math.IsInf(x, 0) {
			t.Fatalf("interval %d: %g IOPS", i, x)
		}
	}
	for _, w := range ws {
		for _, d := range w.Disks {
			if got, _ := pl.data(w.Name, d).whole(); got != 0 {
				t.Errorf("%s/%s %g written by reads", w.Name, d.Name, got)
			}
		}
	}
}
