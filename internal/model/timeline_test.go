package model

import (
	"context"
	"math"
	"strings"
	"testing"

	"starbench/internal/fio"
)

func newOSAPlane(t *testing.T) *Plane {
	src := &memSource{state: ClusterState{Uplink: "25g"}, policies: map[string]Policy{"r1": {RAID: "raid1", FTT: 1}}}
	return NewPlane(mustLoad(t, "wwt-r640-osa"), src).(*Plane)
}

// meanOf is the time-weighted mean IOPS of a direction's samples.
func meanOf(samples []fio.Sample, dir string, measured float64) float64 {
	total, prev := 0.0, 0.0
	for _, s := range samples {
		if s.Direction != dir {
			continue
		}
		total += s.IOPS * (s.TS - prev)
		prev = s.TS
	}
	return total / measured
}

// An OSA run that fills its write buffers starts faster than it ends: the
// samples show the burst, then the steady rate once the elevators must keep
// pace; the run's figure is the samples' mean; the buffers stay full for
// the next run, and a read-only run lets the elevators drain them.
func TestOSAWriteBufferFillsOverARun(t *testing.T) {
	pl := newOSAPlane(t)
	ctx := context.Background()
	ws := workers(96, 8, "r1")
	if err := pl.Prepare(ctx, ws, fio.Prep{Method: "random"}, nil); err != nil {
		t.Fatal(err)
	}
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 65536, IODepth: 8, RuntimeSec: 1800, TimeBased: true}
	res, err := pl.Run(ctx, ws, fio.NewWorkload(*job), nil)
	if err != nil {
		t.Fatal(err)
	}
	first, last := res.Samples[0], res.Samples[len(res.Samples)-1]
	if first.IOPS < 1.1*last.IOPS || first.Direction != "write" {
		t.Errorf("first sample %.0f IOPS, last %.0f: want the burst well above the steady rate", first.IOPS, last.IOPS)
	}
	if len(res.Samples) < 50 || len(res.Samples) > 120 || last.TS != 1800 {
		t.Errorf("%d samples ending at %g s; want 50-120 over the 1800 s run", len(res.Samples), last.TS)
	}
	if got, want := res.Aggregate[0].IOPS, meanOf(res.Samples, "write", 1800); math.Abs(got/want-1) > 1e-9 {
		t.Errorf("run %.1f IOPS, samples' mean %.1f: want the run to be its samples' mean", got, want)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "OSA write buffers absorb writes") {
		t.Errorf("notes %q do not explain the fall", res.Notes)
	}
	// The buffers are still at the threshold: the next run has no burst.
	again, err := pl.Run(ctx, ws, fio.NewWorkload(*job), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := again.Samples[0].IOPS, again.Samples[len(again.Samples)-1].IOPS; math.Abs(a/b-1) > 1e-9 || math.Abs(b/last.IOPS-1) > 1e-9 {
		t.Errorf("a second run starts at %.0f IOPS and ends at %.0f; want the steady %.0f throughout", a, b, last.IOPS)
	}
	// A long read-only run drains them; writes burst again.
	if _, err := pl.Run(ctx, ws, fio.NewWorkload(fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 65536, IODepth: 8, RuntimeSec: 3600, TimeBased: true}), nil); err != nil {
		t.Fatal(err)
	}
	third, err := pl.Run(ctx, ws, fio.NewWorkload(*job), nil)
	if err != nil {
		t.Fatal(err)
	}
	if third.Samples[0].IOPS < 1.1*last.IOPS {
		t.Errorf("after a read-only hour the first sample is %.0f IOPS; want the burst again", third.Samples[0].IOPS)
	}
}

// ramp_time runs I/O before anything is logged: a ramp longer than the
// burst leaves a measured window at the steady rate, and samples count
// from the end of the ramp.
func TestRampTimeIsNotMeasured(t *testing.T) {
	pl := newOSAPlane(t)
	ctx := context.Background()
	ws := workers(96, 8, "r1")
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 65536, IODepth: 8, RuntimeSec: 600, RampSec: 3600, TimeBased: true}
	res, err := pl.Run(ctx, ws, fio.NewWorkload(*job), nil)
	if err != nil {
		t.Fatal(err)
	}
	first, last := res.Samples[0], res.Samples[len(res.Samples)-1]
	if math.Abs(first.IOPS/last.IOPS-1) > 1e-9 || last.TS != 600 || first.TS != sampleInterval(600) {
		t.Errorf("after an hour's ramp: samples %.0f..%.0f IOPS at %g..%g s; want steady, 0-600 s", first.IOPS, last.IOPS, first.TS, last.TS)
	}
}

// ESA has no write buffer to fill: samples are the steady state and the
// run is their mean.
func TestESASamplesAreSteady(t *testing.T) {
	pl, _ := newTestPlane(t)
	ctx := context.Background()
	res, err := pl.Run(ctx, workers(4, 2, "r5"), fio.NewWorkload(fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 8192, IODepth: 16, RuntimeSec: 60, TimeBased: true}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Samples) != 2*60 {
		t.Fatalf("%d samples, want 60 one-second intervals x 2 directions", len(res.Samples))
	}
	for _, s := range res.Samples {
		agg := res.Aggregate[0]
		if s.Direction == "write" {
			agg = res.Aggregate[1]
		}
		if math.Abs(s.IOPS/agg.IOPS-1) > 1e-12 || math.Abs(s.P99Us/agg.P99Us-1) > 1e-12 {
			t.Fatalf("sample %+v differs from the run %+v", s, agg)
		}
	}
}
