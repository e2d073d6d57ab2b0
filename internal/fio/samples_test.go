package fio

import (
	"context"
	"math"
	"testing"
	"time"
)

// TestRunSamples: a run's samples, from fio's per-interval logs of every
// worker and section merged on one time axis (with what json+ counted
// beyond the logs' last interval, scaled down to it where the logs count
// more), account for every I/O fio counted, per job and direction; a stonewall's later phase comes later on the axis;
// latency and p99 per interval agree with the run's; the last interval
// lasts as long as the run went on.
func TestRunSamples(t *testing.T) {
	t.Parallel()
	l := startLocal(t, 2, 2)
	res, err := runText(t, l, "[global]\nruntime=3\ntime_based\nbs=4k\n[mix]\nrw=randrw\n[seq]\nrw=read\nstonewall\nruntime=2\n")
	if err != nil {
		t.Fatal(err)
	}
	type sums struct{ ios, lat, when float64 }
	// Intervals follow one another on the run's axis: each lasts from the
	// one before to its end.
	began := map[float64]float64{}
	prev := 0.0
	for _, s := range res.Samples { // in time order
		if _, ok := began[s.TS]; !ok {
			began[s.TS], prev = prev, s.TS
		}
	}
	got := map[string]*sums{}
	for _, s := range res.Samples {
		k := s.Job + "/" + s.Direction
		if got[k] == nil {
			got[k] = &sums{}
		}
		from := began[s.TS]
		ios := s.IOPS * (s.TS - from)
		got[k].ios += ios
		got[k].lat += s.LatMeanUs * ios
		got[k].when += (from + s.TS) / 2 * ios
		if !(s.P99Us > 0) || !(s.LatMeanUs > 0) {
			t.Errorf("sample %+v: want a latency and a p99", s)
		}
	}
	ios := map[string]float64{}
	for _, e := range rawEntries(t, res) {
		job := e.Name[:3]
		ios[job+"/read"] += float64(e.Read.Clat.N)
		ios[job+"/write"] += float64(e.Write.Clat.N)
	}
	for _, a := range res.Aggregate {
		k := a.Job + "/" + a.Direction
		if a.Job == "" || a.Direction == TotalDirection {
			continue
		}
		s := got[k]
		if s == nil {
			t.Fatalf("no samples of %s (have %v)", k, got)
		}
		// The logs give the samples their course and json+ their totals, so
		// whatever the machine's speed did to fio's logging, they hold what
		// fio counted but for a rest under half an I/O per section (2
		// workers x 2 disks), which is left out, and float rounding.
		if !(math.Abs(s.ios-ios[k]) <= 4*0.5+1e-9*ios[k]) {
			t.Errorf("%s: samples hold %.3f I/Os, fio counted %.0f", k, s.ios, ios[k])
		}
		if lat := s.lat / s.ios; math.Abs(lat-a.LatMeanUs) > 0.1*a.LatMeanUs {
			t.Errorf("%s: samples' mean latency %.2f us, the run's %.2f us", k, lat, a.LatMeanUs)
		}
	}
	if mix, seq := got["mix/read"].when/got["mix/read"].ios, got["seq/read"].when/got["seq/read"].ios; seq-mix < 2 {
		t.Errorf("the I/Os of seq (after a stonewall) centre at %.2f s, mix's at %.2f s; want seq 2.5 s later", seq, mix)
	}
}

// TestRunSamplesOff: a runner told to take no samples leaves them out; a
// one-job workload's samples name no job.
func TestRunSamplesOff(t *testing.T) {
	t.Parallel()
	l := startLocal(t, 1, 1)
	job := NewWorkload(Job{Name: "r", RW: "randread", BlockSize: 4096, RuntimeSec: 1, TimeBased: true})
	res, err := (&Runner{SampleInterval: -1}).Run(context.Background(), l.Workers, job, nil)
	if err != nil || res.Samples != nil {
		t.Fatalf("samples %v (%v), want none", res.Samples, err)
	}
	res, err = (&Runner{SampleInterval: 500 * time.Millisecond}).Run(context.Background(), l.Workers, job, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Samples) < 2 || res.Samples[0].Job != "" || res.Samples[0].TS != 0.5 {
		t.Fatalf("samples %+v, want half-second ones naming no job", res.Samples)
	}
}

func TestSampleInterval(t *testing.T) {
	for _, c := range []struct{ every, expect, want time.Duration }{
		{0, time.Minute, time.Second}, {0, time.Hour, 6 * time.Second}, {2 * time.Second, time.Minute, 2 * time.Second},
		{0, 601 * time.Second, 2 * time.Second},
		// No expected duration: 1 s. An interval that already gives 600
		// samples stays as asked.
		{0, 0, time.Second}, {1500 * time.Millisecond, 900 * time.Second, 1500 * time.Millisecond},
	} {
		if got := sampleInterval(c.every, c.expect); got != c.want {
			t.Errorf("sampleInterval(%v, %v) = %v, want %v", c.every, c.expect, got, c.want)
		}
	}
	// Fine bins and their values as fio's stat.h has them.
	for ns, idx := range map[int64]int{0: 0, 127: 127, 128: 128, 200: 164, 1 << 20: 15 << 6} {
		if got := platIndex(ns); got != idx {
			t.Errorf("platIndex(%d) = %d, want %d", ns, got, idx)
		}
		if lo, hi := platLowerEdge(idx), platLowerEdge(idx+1); float64(ns) < lo || float64(ns) >= hi {
			t.Errorf("bin %d spans [%v, %v), which misses %d", idx, lo, hi, ns)
		}
	}
}

// TestPercentileRules: a percentile is the first bin whose running count
// reaches p % of all (fio's stat.c: sum >= p / 100 x N), and fio's fine
// bins stop at the last (plat_val_to_idx: the index never exceeds the
// array's size - 1), where every longer latency is counted.
func TestPercentileRules(t *testing.T) {
	counts := make([]float64, fineBins>>histCoarseness)
	counts[10], counts[30] = 99, 1
	if got := histPercentile(counts, 99); got != coarseBinValue(10) {
		t.Errorf("p99 of 99 I/Os in bin 10 and 1 in bin 30: %v ns, want bin 10's %v", got, coarseBinValue(10))
	}
	for _, ns := range []int64{1 << 40, 1 << 62} {
		if got := platIndex(ns); got != fineBins-1 {
			t.Errorf("platIndex(%d) = %d, want the last bin %d", ns, got, fineBins-1)
		}
	}
}
