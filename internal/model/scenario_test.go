package model

import (
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
	if r := dirs[read]; math.Abs(r.IOPS-100) > 1e-9 || math.Abs(r.LatMeanUs-9000) > 1e-6 || math.Abs(r.P99Us-54e6) > 1e-3 {
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
		if math.Abs(x[i]-y[i]) > 1e-9*math.Max(1, math.Abs(y[i])) {
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
		{name: "backup", intervals: []interval{{res(50, "d", "a"), 60}}, samples: []fio.Sample{{Job: "backup", TS: 90}}},
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
	var ts []float64
	for _, smp := range out.Samples {
		ts = append(ts, smp.TS)
	}
	if !slices.Equal(ts, []float64{60, 90, 120}) {
		t.Errorf("samples at %v s, want 60, 90, 120", ts)
	}
	if len(out.Notes) != 5 || strings.Join(out.Notes[:4], " ") != "a b c d" || !strings.Contains(out.Notes[4], "I/O-weighted mean") {
		t.Errorf("notes %q; want a, b, c, d once each, then how the intervals combine", out.Notes)
	}
	if _, err := (&Scenario{classes: []*class{{name: "oltp"}}}).Result(); err == nil || !strings.Contains(err.Error(), "no interval solved") {
		t.Errorf("a scenario never stepped: %v", err)
	}
}
