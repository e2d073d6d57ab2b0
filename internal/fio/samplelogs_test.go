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
	if len(two) == 0 || two[0].TS != 2 || !same(two[0].IOPS, (300+300)/2.0) || !same(two[0].MBps, (1600+800)/2.0*1024/1e6) {
		t.Errorf("2 s samples %+v: want the first at 2 s with 300 IOPS and 1,200 KiB/s", two)
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
	if last.TS != 3 || last.IOPS != 100 || !(math.Abs(last.MBps-400*1024/1e6) <= 1e-12) || !(math.Abs(last.P99Us-36.864) <= 1e-9) {
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

// readOne reads the samples of one section's logs (prefix w0-s0, job r)
// with what json+ counted for it, on 1 s intervals.
func readOne(t *testing.T, dir string, e JobStats) []Sample {
	t.Helper()
	got, err := readSamples(dir, map[string]string{"w0-s0": "r"}, map[string][]JobStats{"w0-s0": {e}}, time.Second, true)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// reads is a json+ entry of n reads of 4 KiB over runtime ms, in coarse
// bin 10.
func reads(n int64, runtime int64) JobStats {
	var e JobStats
	e.RuntimeMs = runtime
	e.Read.Clat.N, e.Read.IOBytes = n, n*4096
	e.Read.Clat.Bins = Histogram{int64(platLowerEdge(10 << histCoarseness)): n}
	return e
}

// TestReadSamplesRestAfterLateHistogram: the histogram log is stamped by
// I/O completions, not by the clock the IOPS log follows, so its last
// point can fall after the job's end as the logs' start and json+'s
// runtime place it; what the IOPS log dropped still fills the time from
// its own last point to that end. (This lost the last interval of a
// section's I/Os when a run's timing fell so: TestRunSamples saw samples
// hold 88 % of what fio counted.)
func TestReadSamplesRestAfterLateHistogram(t *testing.T) {
	dir := t.TempDir()
	writeLog(t, dir, "w0-s0_iops.1.log", []float64{1000, 100, 0, 4096, 0}, []float64{2000, 300, 0, 4096, 0})
	writeLog(t, dir, "w0-s0_bw.1.log", []float64{1000, 400, 0, 4096, 0}, []float64{2000, 1200, 0, 4096, 0})
	writeLog(t, dir, "w0-s0_clat_hist.1.log", histLine(1000, 0, 10, 100), histLine(2000, 0, 10, 300), histLine(2990, 0, 10, 150))
	// json+: 550 reads over 2.98 s, 150 more than the IOPS log holds.
	got := readOne(t, dir, reads(550, 2980))
	// The third interval lasts as long as the job went on (0.98 s).
	if len(got) != 3 || got[2].TS != 2.98 || math.Abs(got[2].IOPS-150/0.98) > 1e-9 || math.Abs(got[2].MBps-150*4096/1e6/0.98) > 1e-9 {
		t.Fatalf("samples %+v: want a third interval to 2.98 s of 150 I/Os (%.3f IOPS, %.4f MB/s)", got, 150/0.98, 150*4096/1e6/0.98)
	}
}

// TestReadSamplesRestWhenLogsReachTheEnd: logs whose last point is the
// job's end lack only the rounding of their rates; what json+ counted
// beyond them goes into their last interval, never past the job's end.
func TestReadSamplesRestWhenLogsReachTheEnd(t *testing.T) {
	dir := t.TempDir()
	writeLog(t, dir, "w0-s0_iops.1.log", []float64{1000, 100, 0, 4096, 0}, []float64{2000, 300, 0, 4096, 0})
	writeLog(t, dir, "w0-s0_bw.1.log", []float64{1000, 400, 0, 4096, 0}, []float64{2000, 1200, 0, 4096, 0})
	// json+: 410 reads over 2 s (the logs' span), 10 more than logged.
	got := readOne(t, dir, reads(410, 2000))
	if len(got) != 2 || got[0].IOPS != 100 || math.Abs(got[1].IOPS-310) > 1e-9 || math.Abs(got[1].MBps-310*4096/1e6) > 1e-9 {
		t.Errorf("samples %+v: want 100 then 310 IOPS (%.4f MB/s) and nothing after 2 s", got, 310*4096/1e6)
	}
	// A job's end before the logs' last point (json+'s runtime is rounded
	// to the ms, the logs' stamps are not the job's): the same.
	got = readOne(t, dir, reads(410, 1990))
	if len(got) != 2 || math.Abs(got[1].IOPS-310) > 1e-9 {
		t.Errorf("samples %+v: want 100 then 310 IOPS", got)
	}
}

// TestReadSamplesLastIntervalEndsWithTheRun: a run ends a little after a
// whole number of intervals (fio's start and stop); the I/Os after the
// logs' last point are rated over the time they took, in an interval of
// their own when it lasts half an interval or more, else in the interval
// before, which then lasts to the end. (Rated over a whole second, 20 ms
// of a 3 s run showed a last sample at 2 % of the run's rate.)
func TestReadSamplesLastIntervalEndsWithTheRun(t *testing.T) {
	dir := t.TempDir()
	writeLog(t, dir, "w0-s0_iops.1.log", []float64{1000, 100, 0, 4096, 0}, []float64{2000, 100, 0, 4096, 0}, []float64{3000, 100, 0, 4096, 0})
	writeLog(t, dir, "w0-s0_bw.1.log", []float64{1000, 400, 0, 4096, 0}, []float64{2000, 400, 0, 4096, 0}, []float64{3000, 400, 0, 4096, 0})
	for _, c := range []struct {
		runtime   int64 // ms, json+'s
		ios       int64 // json+'s count: 300 logged and the rest after 3 s
		ts, iops  []float64
		situation string
	}{
		{3020, 302, []float64{1, 2, 3.02}, []float64{100, 100, 102 / 1.02}, "2 I/Os in 20 ms join the third second"},
		{3600, 360, []float64{1, 2, 3, 3.6}, []float64{100, 100, 100, 100}, "60 I/Os in 0.6 s are an interval of their own"},
	} {
		got := readOne(t, dir, reads(c.ios, c.runtime))
		if len(got) != len(c.ts) {
			t.Errorf("%s: samples %+v, want at %v s", c.situation, got, c.ts)
			continue
		}
		for i, s := range got {
			if math.Abs(s.TS-c.ts[i]) > 1e-9 || math.Abs(s.IOPS-c.iops[i]) > 1e-9 {
				t.Errorf("%s: sample %d %+v, want %v IOPS at %v s", c.situation, i, s, c.iops[i], c.ts[i])
			}
		}
	}
}

// TestReadSamplesOfJobsShorterThanAnInterval: fio logs no rate for a job
// that ends before its first interval does, so json+ gives its samples:
// its I/Os over its runtime, at its mean latency, placed where its latency
// log stamps its end (or from the axis's origin without one). (They had no
// samples at all: a 1 s run in the REPL gave fio.samples an empty frame.)
func TestReadSamplesOfJobsShorterThanAnInterval(t *testing.T) {
	alone := t.TempDir()
	e := reads(500, 800)
	e.Read.Clat.Mean = 40000
	got := readOne(t, alone, e)
	if len(got) != 1 || math.Abs(got[0].TS-0.8) > 1e-9 || math.Abs(got[0].IOPS-625) > 1e-9 || !(math.Abs(got[0].LatMeanUs-40) <= 1e-9) || !(got[0].P99Us > 0) {
		t.Errorf("a job of 0.8 s: samples %+v, want one at 0.8 s of 625 IOPS at 40 us with a p99", got)
	}
	// Two jobs, their ends stamped: a's 0.8 s from T, b's 0.8 s from T +
	// 1.1 s, in the interval from 1 s to the run's end at 1.9 s.
	dir := t.TempDir()
	const T = 1796375904000 // Unix ms
	writeLog(t, dir, "w0-s0_clat.1.log", []float64{T + 800, 40000, 0, 4096, 0})
	writeLog(t, dir, "w0-s1_clat.1.log", []float64{T + 1900, 40000, 0, 4096, 0})
	got, err := readSamples(dir, map[string]string{"w0-s0": "a", "w0-s1": "b"},
		map[string][]JobStats{"w0-s0": {reads(400, 800)}, "w0-s1": {reads(800, 800)}}, time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		job      string
		ts, iops float64
	}{{"a", 1, 400}, {"b", 1.9, 800 / 0.9}}
	if len(got) != len(want) {
		t.Fatalf("two short jobs: samples %+v, want %v", got, want)
	}
	for i, w := range want {
		if got[i].Job != w.job || math.Abs(got[i].TS-w.ts) > 1e-9 || math.Abs(got[i].IOPS-w.iops) > 1e-9 {
			t.Errorf("two short jobs: sample %d %+v, want %+v", i, got[i], w)
		}
	}
}

// TestReadSamplesScalesLogsDownToFio: a rate fio logs is the mean of the
// rates its helper thread measured over spans of uneven length, so its
// logs can hold more than it counted; json+'s count wins, each interval
// keeping its share.
func TestReadSamplesScalesLogsDownToFio(t *testing.T) {
	dir := t.TempDir()
	writeLog(t, dir, "w0-s0_iops.1.log", []float64{1000, 100, 0, 4096, 0}, []float64{2000, 300, 0, 4096, 0}, []float64{2000, 50, 1, 4096, 0})
	writeLog(t, dir, "w0-s0_bw.1.log", []float64{1000, 400, 0, 4096, 0}, []float64{2000, 1200, 0, 4096, 0}, []float64{2000, 200, 1, 4096, 0})
	writeLog(t, dir, "w0-s0_clat.1.log", []float64{1000, 20000, 0, 4096, 0}, []float64{2000, 40000, 0, 4096, 0})
	// json+: 300 reads (the logs hold 400) of 1,000 KiB (they hold 1,600),
	// and the 50 writes the logs hold.
	e := reads(300, 2000)
	e.Read.IOBytes = 1000 * 1024
	e.Write.Clat.N, e.Write.IOBytes = 50, 200*1024
	got := readOne(t, dir, e)
	if len(got) != 3 {
		t.Fatalf("samples %+v, want 3", got)
	}
	r1, r2, w2 := got[0], got[1], got[2]
	if math.Abs(r1.IOPS-75) > 1e-9 || math.Abs(r2.IOPS-225) > 1e-9 || math.Abs(w2.IOPS-50) > 1e-9 {
		t.Errorf("IOPS %v, %v (reads), %v (writes): want 75, 225 and 50", r1.IOPS, r2.IOPS, w2.IOPS)
	}
	if math.Abs(r1.MBps-250*1024/1e6) > 1e-9 || math.Abs(r2.MBps-750*1024/1e6) > 1e-9 || math.Abs(w2.MBps-200*1024/1e6) > 1e-9 {
		t.Errorf("MB/s %v, %v, %v: want 250, 750 and 200 KiB/s", r1.MBps, r2.MBps, w2.MBps)
	}
	// Scaling the I/Os leaves each interval's mean latency as logged.
	if r1.LatMeanUs != 20 || r2.LatMeanUs != 40 {
		t.Errorf("latencies %v, %v us: want 20 and 40", r1.LatMeanUs, r2.LatMeanUs)
	}
}

// TestReadSamplesOnTheUnixClock: logs stamped with the Unix clock
// (log_unix_epoch) by two workers whose jobs began 250 ms apart, so each
// of the second's points falls 3:1 over two intervals; worked by hand. A
// point's I/Os, KiB and histogram counts go 3:1; its mean latency counts
// for its I/Os in each (its file's IOPS log, the same span).
func TestReadSamplesOnTheUnixClock(t *testing.T) {
	dir := t.TempDir()
	const T = 1796375904000 // Unix ms
	writeLog(t, dir, "w0-s0_iops.1.log", []float64{T + 1000, 100, 0, 4096, 0}, []float64{T + 2000, 200, 0, 4096, 0})
	writeLog(t, dir, "w0-s0_bw.1.log", []float64{T + 1000, 400, 0, 4096, 0}, []float64{T + 2000, 800, 0, 4096, 0})
	writeLog(t, dir, "w0-s0_clat.1.log", []float64{T + 1000, 10000, 0, 4096, 0}, []float64{T + 2000, 30000, 0, 4096, 0})
	writeLog(t, dir, "w0-s0_clat_hist.1.log", histLine(T+1000, 0, 10, 100), histLine(T+2000, 0, 20, 200))
	writeLog(t, dir, "w1-s0_iops.1.log", []float64{T + 1250, 400, 0, 4096, 0}, []float64{T + 2250, 800, 0, 4096, 0})
	writeLog(t, dir, "w1-s0_bw.1.log", []float64{T + 1250, 1600, 0, 4096, 0}, []float64{T + 2250, 3200, 0, 4096, 0})
	writeLog(t, dir, "w1-s0_clat.1.log", []float64{T + 1250, 50000, 0, 4096, 0}, []float64{T + 2250, 70000, 0, 4096, 0})
	writeLog(t, dir, "w1-s0_clat_hist.1.log", histLine(T+1250, 0, 30, 4), histLine(T+2250, 0, 5, 800))
	got, err := readSamples(dir, map[string]string{"w0-s0": "a", "w1-s0": "a"}, nil, time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	// The axis starts one step before the first IOPS point, at T.
	// Interval 1: 100 + 3/4 of 400 I/Os; latency (100 x 10 + 300 x 50) / 400 us;
	// counts 100 in bin 10 and 3 in bin 30, whose 99th is in bin 30.
	// Interval 2: 200 + 1/4 of 400 + 3/4 of 800; latency (200 x 30 + 100 x 50
	// + 600 x 70) / 900 us; counts 600 in bin 5, 200 in bin 20 and 1 in bin
	// 30 (under 1 % of 801), whose 99th is in bin 20.
	// Then 1/4 of 800, at 70 us, 200 in bin 5: the last I/O logged (w1's)
	// ends at 2.25 s, a quarter of an interval, which joins interval 2:
	// 1,100 I/Os in 1.25 s, latency 67,000 / 1,100 us, and 200 more in bin
	// 5, which leaves the 99th in bin 20.
	const bin20, bin30 = 1.152, 6.656
	want := []Sample{
		{"a", "read", 1, 400, 1600 * 1024 / 1e6, 40, bin30},
		{"a", "read", 2.25, 1100 / 1.25, 4400 * 1024 / 1e6 / 1.25, 67000.0 / 1100, bin20},
	}
	if len(got) != len(want) {
		t.Fatalf("samples %+v, want %+v", got, want)
	}
	for i, w := range want {
		g := got[i]
		if g.Job != w.Job || g.TS != w.TS || !(math.Abs(g.IOPS-w.IOPS) <= 1e-9*w.IOPS) || !(math.Abs(g.MBps-w.MBps) <= 1e-9*w.MBps) ||
			!(math.Abs(g.LatMeanUs-w.LatMeanUs) <= 1e-9*w.LatMeanUs) || !(math.Abs(g.P99Us-w.P99Us) <= 1e-9*w.P99Us) {
			t.Errorf("sample %d: %+v, want %+v", i, g, w)
		}
	}
}

// TestReadLogLines: a log line needs fio's first three columns (time,
// value, direction; a histogram's time, direction, block size), more are
// ignored; a line of an unknown direction (fio logs 0 read, 1 write, 2
// trim) is left out, and logs with no lines (a job shorter than an
// interval) give no samples.
func TestReadLogLines(t *testing.T) {
	dir := t.TempDir()
	writeLog(t, dir, "w0-s0_iops.1.log", []float64{1000, 100, 0}, []float64{1000, 7, 3, 4096, 0}, []float64{2000, 300, 0, 4096, 0, 0})
	pts, err := readLog(filepath.Join(dir, "w0-s0_iops.1.log"), "iops")
	if err != nil || len(pts) != 2 || pts[0].value != 100 || pts[1].end != 2000 {
		t.Errorf("points %+v (%v): want the two read points", pts, err)
	}
	got, err := readSamples(dir, map[string]string{"w0-s0": "r"}, nil, time.Second, true)
	if err != nil || len(got) != 2 || got[0].IOPS != 100 || got[1].IOPS != 300 {
		t.Errorf("samples %+v (%v): want 100 then 300 IOPS of reads", got, err)
	}
	empty := t.TempDir()
	for _, kind := range logKinds {
		writeLog(t, empty, "w0-s0_"+kind+".1.log")
	}
	if got, err := readSamples(empty, map[string]string{"w0-s0": "r"}, nil, time.Second, true); got != nil || err != nil {
		t.Errorf("empty logs gave %+v (%v), want no samples", got, err)
	}
}

// TestReadSamplesRestEndsWithTheJob: on a loaded machine fio's helper
// thread logs a job's first rates late, so its logs seem to begin late and
// their start plus its runtime falls past its end; the rest then ends where
// the job's latency log ends (fio writes its last point when the job
// ends), never in an interval with no latency logged.
func TestReadSamplesRestEndsWithTheJob(t *testing.T) {
	dir := t.TempDir()
	// w0: rates logged 300 ms late; latency at 1, 2 and 3 s (the end).
	writeLog(t, dir, "w0-s0_iops.1.log", []float64{1300, 100, 0, 4096, 0}, []float64{2300, 100, 0, 4096, 0})
	writeLog(t, dir, "w0-s0_bw.1.log", []float64{1300, 400, 0, 4096, 0}, []float64{2300, 400, 0, 4096, 0})
	writeLog(t, dir, "w0-s0_clat_hist.1.log", histLine(1300, 0, 10, 100), histLine(2300, 0, 10, 100))
	// w1: on time, its logs reaching its end.
	writeLog(t, dir, "w1-s0_iops.1.log", []float64{1000, 100, 0, 4096, 0}, []float64{2000, 100, 0, 4096, 0}, []float64{3000, 100, 0, 4096, 0})
	writeLog(t, dir, "w1-s0_bw.1.log", []float64{1000, 400, 0, 4096, 0}, []float64{2000, 400, 0, 4096, 0}, []float64{3000, 400, 0, 4096, 0})
	writeLog(t, dir, "w0-s0_clat.1.log", []float64{1000, 20000, 0, 4096, 0}, []float64{2000, 20000, 0, 4096, 0}, []float64{3000, 60000, 0, 4096, 0})
	writeLog(t, dir, "w1-s0_clat.1.log", []float64{1000, 20000, 0, 4096, 0}, []float64{2000, 20000, 0, 4096, 0}, []float64{3000, 20000, 0, 4096, 0})
	got, err := readSamples(dir, map[string]string{"w0-s0": "r", "w1-s0": "r"},
		map[string][]JobStats{"w0-s0": {reads(300, 3000)}, "w1-s0": {reads(300, 3000)}}, time.Second, true)
	if err != nil {
		t.Fatal(err)
	}
	// w0's points cover 300-1300 and 1300-2300 ms (70 + 30 and 70 + 30 I/Os
	// over the intervals) and the 100 it did not log 2300-3000: intervals of
	// 70 + 100, 100 + 100 and 130 + 100 I/Os. Latency: 20 us but in the
	// last interval, where w0's 60 us count for the I/Os its IOPS log gives
	// 2-3 s, its rate carried on past its last point (30 + 70), and w1's 20
	// us for its 100: 40 us.
	want := []struct{ iops, lat float64 }{{170, 20}, {200, 20}, {230, 40}}
	if len(got) != len(want) {
		t.Fatalf("samples %+v: want %v at 1, 2 and 3 s", got, want)
	}
	for i, s := range got {
		if !(math.Abs(s.IOPS-want[i].iops) <= 1e-9*want[i].iops) || !(math.Abs(s.LatMeanUs-want[i].lat) <= 1e-9) {
			t.Errorf("sample %+v: want %v IOPS at %v us", s, want[i].iops, want[i].lat)
		}
	}
}

// TestReadSamplesRestSharedOut: what the logs dropped is shared out over
// the intervals from their last point to the job's end in proportion to
// time (a third, then two thirds); its histogram counts with it, so the
// tail's slow I/Os stay under 1 % of an interval that logged 990 fast ones
// and make the last interval's p99. A rest of half an I/O or less is left
// out.
func TestReadSamplesRestSharedOut(t *testing.T) {
	dir := t.TempDir()
	writeLog(t, dir, "w0-s0_iops.1.log", []float64{1000, 1000, 0, 4096, 0}, []float64{1500, 1980, 0, 4096, 0})
	writeLog(t, dir, "w0-s0_bw.1.log", []float64{1000, 4000, 0, 4096, 0}, []float64{1500, 7920, 0, 4096, 0})
	writeLog(t, dir, "w0-s0_clat_hist.1.log", histLine(1000, 0, 10, 1000), histLine(1500, 0, 10, 990))
	// The logs hold 1,990 reads, 7,960 KiB; json+ counted 6 more, slow ones
	// (bin 40), over 3 s: 2 of them 1.5-2 s and 4 2-3 s.
	e := reads(1996, 3000)
	e.Read.Clat.Bins = Histogram{int64(platLowerEdge(10 << histCoarseness)): 1990, int64(platLowerEdge(40 << histCoarseness)): 6}
	got := readOne(t, dir, e)
	const bin10, bin40 = 0.208, 36.864
	want := []Sample{
		{"", "read", 1, 1000, 4000 * 1024 / 1e6, math.NaN(), bin10},
		{"", "read", 2, 992, 3968 * 1024 / 1e6, math.NaN(), bin10}, // 2 of 992 in bin 40: under 1 %
		{"", "read", 3, 4, 16 * 1024 / 1e6, math.NaN(), bin40},
	}
	if len(got) != len(want) {
		t.Fatalf("samples %+v, want %+v", got, want)
	}
	for i, w := range want {
		g := got[i]
		if g.TS != w.TS || !(math.Abs(g.IOPS-w.IOPS) <= 1e-9*w.IOPS) || !(math.Abs(g.MBps-w.MBps) <= 1e-9*w.MBps) || !(math.Abs(g.P99Us-w.P99Us) <= 1e-9) {
			t.Errorf("sample %d: %+v, want %+v", i, g, w)
		}
	}
	// 199.5 reads logged (100 in 1 s, 199 a second for half a second) and
	// 200 counted: the half left over is left out.
	half := t.TempDir()
	writeLog(t, half, "w0-s0_iops.1.log", []float64{1000, 100, 0, 4096, 0}, []float64{1500, 199, 0, 4096, 0})
	if got := readOne(t, half, reads(200, 2000)); len(got) != 2 || got[1].IOPS != 99.5 {
		t.Errorf("samples %+v: want 100 then 99.5 IOPS", got)
	}
}

// TestReadSamplesRestHistogramIsWhatTheLogsMissed: the rest's histogram is
// json+'s less what the histogram log holds, bin by bin: logs of slow I/Os
// and a fast tail give the tail a fast p99.
func TestReadSamplesRestHistogramIsWhatTheLogsMissed(t *testing.T) {
	dir := t.TempDir()
	writeLog(t, dir, "w0-s0_iops.1.log", []float64{1000, 100, 0, 4096, 0}, []float64{2000, 300, 0, 4096, 0})
	writeLog(t, dir, "w0-s0_clat_hist.1.log", histLine(1000, 0, 40, 100), histLine(2000, 0, 40, 300))
	e := reads(500, 3000)
	e.Read.Clat.Bins = Histogram{int64(platLowerEdge(40 << histCoarseness)): 400, int64(platLowerEdge(10 << histCoarseness)): 100}
	got := readOne(t, dir, e)
	if len(got) != 3 || got[2].IOPS != 100 || !(math.Abs(got[2].P99Us-0.208) <= 1e-12) || !(math.Abs(got[1].P99Us-36.864) <= 1e-12) {
		t.Errorf("samples %+v: want the third of 100 IOPS with its p99 in bin 10 (0.208 us), the second's in bin 40", got)
	}
}

// TestReadSamplesHistogramLinesOfOtherLengths: histogram lines of another
// length than the coarse bins json+ is counted in (another coarseness, a
// cut line) add up in the bins an interval's first line has, never past
// them, and never stop the samples.
func TestReadSamplesHistogramLinesOfOtherLengths(t *testing.T) {
	dir := t.TempDir()
	short := []float64{500, 0, 4096, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 50} // 11 bins, 50 in bin 10
	writeLog(t, dir, "w0-s0_iops.1.log", []float64{1000, 100, 0, 4096, 0})
	writeLog(t, dir, "w0-s0_clat_hist.1.log", short, histLine(1000, 0, 12, 50))
	got := readOne(t, dir, reads(200, 2000))
	// The short line at 0.5 s makes the logs begin at -0.5 s, so the job's
	// 2 s end at 1.5 s: its last 100 I/Os take half a second.
	if len(got) != 2 || got[0].IOPS != 100 || got[1].TS != 1.5 || got[1].IOPS != 200 || !(got[0].P99Us > 0) || !(got[1].P99Us > 0) {
		t.Errorf("samples %+v: want 100 IOPS at 1 s and 200 IOPS at 1.5 s, each with a p99", got)
	}
}

// TestSamplesInDirectionOrder: samples of one time and job come read,
// write, trim, whatever order the merge held them in.
func TestSamplesInDirectionOrder(t *testing.T) {
	dir := t.TempDir()
	writeLog(t, dir, "w0-s0_iops.1.log", []float64{1000, 30, 2, 4096, 0}, []float64{1000, 20, 1, 4096, 0}, []float64{1000, 10, 0, 4096, 0})
	for range 20 { // the merge keeps intervals in a map: its order changes from call to call
		got, err := readSamples(dir, map[string]string{"w0-s0": "r"}, nil, time.Second, true)
		if err != nil || len(got) != 3 || got[0].Direction != "read" || got[1].Direction != "write" || got[2].Direction != "trim" {
			t.Fatalf("samples %+v (%v): want read, write, trim", got, err)
		}
	}
}

// TestReadSamplesRestAloneHasJSONLatency: on a loaded machine an interval
// can hold only I/Os beyond the logs (a job's rate and latency logs stop
// short of its end and no latency log stamps the end): its latency and p99
// are json+'s for the job's direction, not missing (TestRunSamples saw a
// last write sample with NaN for both).
func TestReadSamplesRestAloneHasJSONLatency(t *testing.T) {
	dir := t.TempDir()
	writeLog(t, dir, "w0-s0_iops.1.log", []float64{1000, 100, 0, 4096, 0}, []float64{2000, 100, 0, 4096, 0})
	writeLog(t, dir, "w0-s0_bw.1.log", []float64{1000, 400, 0, 4096, 0}, []float64{2000, 400, 0, 4096, 0})
	writeLog(t, dir, "w0-s0_clat_hist.1.log", histLine(1000, 0, 10, 100), histLine(2000, 0, 10, 100))
	stats := reads(300, 3000)
	stats.Read.Clat.Mean = 50000
	got, err := readSamples(dir, map[string]string{"w0-s0": "r"}, map[string][]JobStats{"w0-s0": {stats}}, time.Second, true)
	if err != nil {
		t.Fatal(err)
	}
	last := got[len(got)-1]
	if len(got) < 3 || last.TS <= 2 || last.IOPS <= 0 || last.LatMeanUs != 50 || !(last.P99Us > 0) {
		t.Fatalf("samples %+v: want the last interval's I/Os beyond the logs at json+'s 50 us and a p99", got)
	}
}
