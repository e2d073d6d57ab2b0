package fio

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeLog writes one of fio's per-job logs: lines of "time, value,
// direction, bs, offset", or for a histogram log "time, direction, bs" and
// the counts of its coarse bins (one count in bin, the rest 0).
func writeLog(t *testing.T, dir, name string, lines ...[]float64) {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		parts := make([]string, len(l))
		for i, x := range l {
			parts[i] = fmt.Sprint(x)
		}
		b.WriteString(strings.Join(parts, ", ") + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// histLine is a histogram log line ending at end with n I/Os in coarse bin.
func histLine(end float64, dir int, bin int, n float64) []float64 {
	counts := make([]float64, fineBins>>histCoarseness)
	counts[bin] = n
	return append([]float64{end, float64(dir), 4096}, counts...)
}

// TestReadSamplesMergesLogs: per-interval samples from hand-written logs
// of two workers (one with two numjobs clones), worked out by hand: I/Os
// and KiB summed per interval, latency weighted by each log's I/Os, p99 off
// the merged histograms, the job named only when the workload has several.
func TestReadSamplesMergesLogs(t *testing.T) {
	dir := t.TempDir()
	// Worker 0: reads for two intervals, writes for the first.
	writeLog(t, dir, "w0-s0_iops.1.log", []float64{1000, 100, 0, 4096, 0}, []float64{1000, 50, 1, 4096, 0}, []float64{2000, 300, 0, 4096, 0})
	writeLog(t, dir, "w0-s0_bw.1.log", []float64{1000, 400, 0, 4096, 0}, []float64{1000, 200, 1, 4096, 0}, []float64{2000, 1200, 0, 4096, 0})
	writeLog(t, dir, "w0-s0_clat.1.log", []float64{1000, 20000, 0, 4096, 0}, []float64{1000, 80000, 1, 4096, 0}, []float64{2000, 40000, 0, 4096, 0})
	writeLog(t, dir, "w0-s0_clat_hist.1.log", histLine(1000, 0, 10, 100), histLine(2000, 0, 20, 300))
	// Worker 1: two clones reading for the first interval.
	for _, n := range []string{"1", "2"} {
		writeLog(t, dir, "w1-s0_iops."+n+".log", []float64{1000, 100, 0, 4096, 0})
		writeLog(t, dir, "w1-s0_bw."+n+".log", []float64{1000, 400, 0, 4096, 0})
		writeLog(t, dir, "w1-s0_clat."+n+".log", []float64{1000, 60000, 0, 4096, 0})
		writeLog(t, dir, "w1-s0_clat_hist."+n+".log", histLine(1000, 0, 30, 100))
	}
	prefixes := map[string]string{"w0-s0": "oltp", "w1-s0": "oltp"}

	got, err := readSamples(dir, prefixes, nil, time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	// A coarse bin b sums fine bins 16b to 16b+15 and stands for the middle
	// of their latencies: fine bin i >= 128 starts at 2^(i/64+5) + (i%64)
	// 2^(i/64-1) ns, so bin 10 spans 192-224 ns, bin 20 1024-1280 ns and
	// bin 30 6144-7168 ns.
	const bin10, bin20, bin30 = 0.208, 1.152, 6.656
	want := []Sample{
		// 300 reads (100 + 2 x 100) at 20, 60 and 60 us; p99 of 300: bin 30.
		{"oltp", "read", 1, 300, 1200 * 1024 / 1e6, (100*20 + 200*60) / 300.0, bin30},
		{"oltp", "write", 1, 50, 200 * 1024 / 1e6, 80, nan},
		{"oltp", "read", 2, 300, 1200 * 1024 / 1e6, 40, bin20},
	}
	if len(got) != len(want) {
		t.Fatalf("samples %+v, want %+v", got, want)
	}
	same := func(a, b float64) bool {
		return a == b || math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-9*math.Abs(b)
	}
	for i, w := range want {
		g := got[i]
		if g.Job != w.Job || g.Direction != w.Direction || !same(g.TS, w.TS) || !same(g.IOPS, w.IOPS) || !same(g.MBps, w.MBps) ||
			!same(g.LatMeanUs, w.LatMeanUs) || !same(g.P99Us, w.P99Us) {
			t.Errorf("sample %d: %+v, want %+v", i, g, w)
		}
	}
	if single, _ := readSamples(dir, prefixes, nil, time.Second, true); len(single) != 3 || single[0].Job != "" {
		t.Errorf("a one-job workload's samples %+v: want no job name", single)
	}
	// On 2 s intervals the same logs give one interval: 600 reads over 2 s.
	two, err := readSamples(dir, prefixes, nil, 2*time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(two) == 0 || two[0].TS != 2 || !same(two[0].IOPS, (300+300)/2.0) {
		t.Errorf("2 s samples %+v: want the first at 2 s with 300 IOPS", two)
	}
}

// TestReadSamplesAddsWhatLogsDropped: fio drops a job's last interval
// from its periodic logs; what json+ counted beyond the logs fills the
// time from the last logged point to the job's end.
func TestReadSamplesAddsWhatLogsDropped(t *testing.T) {
	dir := t.TempDir()
	writeLog(t, dir, "w0-s0_iops.1.log", []float64{1000, 100, 0, 4096, 0}, []float64{2000, 300, 0, 4096, 0})
	writeLog(t, dir, "w0-s0_bw.1.log", []float64{1000, 400, 0, 4096, 0}, []float64{2000, 1200, 0, 4096, 0})
	writeLog(t, dir, "w0-s0_clat_hist.1.log", histLine(1000, 0, 10, 100), histLine(2000, 0, 10, 300))
	// json+ counted 500 reads and 2,000 KiB over a 3 s run: 100 reads and
	// 400 KiB more than the logs, in bin 40's fine bins.
	var e JobStats
	e.RuntimeMs = 3000
	e.Read.Clat.N, e.Read.IOBytes = 500, 2000*1024
	e.Read.Clat.Bins = Histogram{int64(platLowerEdge(10 << histCoarseness)): 400, int64(platLowerEdge(40 << histCoarseness)): 100}
	got, err := readSamples(dir, map[string]string{"w0-s0": "r"}, map[string][]JobStats{"w0-s0": {e}}, time.Second, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("samples %+v, want 3 intervals", got)
	}
	last := got[2]
	// Coarse bin 40 spans 32768-40960 ns (see TestReadSamplesMergesLogs).
	if last.TS != 3 || last.IOPS != 100 || math.Abs(last.MBps-400*1024/1e6) > 1e-12 || math.Abs(last.P99Us-36.864) > 1e-9 {
		t.Errorf("the dropped interval %+v: want 100 IOPS, %.4f MB/s and p99 in bin 40 at 3 s", last, 400*1024/1e6)
	}
	if got[0].IOPS != 100 || got[1].IOPS != 300 {
		t.Errorf("logged intervals %+v changed", got[:2])
	}
}

// TestSpreadSharesAnIntervalOut: a logged span is shared out over the
// intervals it overlaps in proportion, and nothing before the axis's start
// or of no length is counted.
func TestSpreadSharesAnIntervalOut(t *testing.T) {
	m := newMerger(0, 1000)
	for _, tc := range []struct {
		from, to float64
		want     map[int]float64
	}{
		{500, 1500, map[int]float64{0: 0.5, 1: 0.5}},
		{0, 3000, map[int]float64{0: 1.0 / 3, 1: 1.0 / 3, 2: 1.0 / 3}},
		{-500, 500, map[int]float64{0: 0.5}},
		{1000, 2000, map[int]float64{1: 1}},
		{1250, 1750, map[int]float64{1: 1}},
		{1000, 1000, map[int]float64{}},
		{2000, 1000, map[int]float64{}},
	} {
		got := map[int]float64{}
		m.spread(tc.from, tc.to, func(n int, share float64) { got[n] += share })
		if len(got) != len(tc.want) {
			t.Errorf("spread(%g, %g) = %v, want %v", tc.from, tc.to, got, tc.want)
			continue
		}
		for n, w := range tc.want {
			if math.Abs(got[n]-w) > 1e-12 {
				t.Errorf("spread(%g, %g) = %v, want %v", tc.from, tc.to, got, tc.want)
			}
		}
	}
}
