package scripts_test

import (
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"starbench/internal/testbed"
)

// osa_destage.star on the embedded default reads back the model's drain:
// the write run right after the fill has no burst (the fill left the
// buffers at the destage threshold, 70 % free as vSAN's performance service
// reports it, and the reads all free); after each idle time the burst refills
// what the reads drained, which at the model's rate is the whole threshold
// (the script's estimate from the burst's length and rate within 10 % of
// 30 % of WWT's 375 GB cache devices), so the drain rate it prints falls as
// the idle time grows: a lower bound, the buffers found empty.
func TestDestageScriptReadsTheModelsDrain(t *testing.T) {
	t.Chdir("..")
	out := t.TempDir()
	code, _, stderr := starbench(t, "run", "scripts/osa_destage.star", "--out", out, "--no-progress", "--no-noise",
		"--set", "duration=600", "--set", "idle=300,1800", "--set", "per_host=1")
	if code != 0 {
		t.Fatalf("osa_destage.star: exit %d\n%s", code, stderr)
	}
	p, err := testbed.Load("wwt-r640-osa")
	if err != nil {
		t.Fatal(err)
	}
	threshold := p.Model.WriteBufferDestageThreshold.Value * math.Min(p.Storage.Cache.CapacityGB, p.Model.WriteBufferMaxGB7.Value)
	rows := readCSV(t, filepath.Join(out, "tables", "osa-destage.csv"))
	if len(rows) != 3 {
		t.Fatalf("%d rows, want the write after the fill and one after each of 2 idle times", len(rows))
	}
	num := func(r map[string]string, col string) float64 {
		v, err := strconv.ParseFloat(r[col], 64)
		if err != nil {
			t.Fatalf("%s %q: %v", col, r[col], err)
		}
		return v
	}
	if num(rows[0], "burst_s") != 0 {
		t.Errorf("the write after the fill bursts for %v s; want none: the fill left the buffers at the threshold", rows[0]["burst_s"])
	}
	// vSAN's performance service says the same: the fill left 70 % of the
	// buffers free, the reads all of it.
	for i, want := range []float64{100 * (1 - p.Model.WriteBufferDestageThreshold.Value), 100, 100} {
		if got := num(rows[i], "free_pct_before"); math.Abs(got-want) > 1e-9 {
			t.Errorf("before the write after %s s of reads the service found %v %% of the buffers free; want %v", rows[i]["idle_s"], got, want)
		}
	}
	for _, r := range rows[1:] {
		if got := num(r, "refilled_gb_per_group"); math.Abs(got/threshold-1) > 0.1 {
			t.Errorf("after %s s of reads: %.1f GB refilled a disk group; want the whole threshold, %.1f GB", r["idle_s"], got, threshold)
		}
		// and the service's buffer size times what it found freed
		if got := num(r, "drained_gb_per_group"); math.Abs(got/threshold-1) > 1e-9 {
			t.Errorf("after %s s of reads the service says %.1f GB a disk group drained; want the threshold, %.1f GB", r["idle_s"], got, threshold)
		}
	}
	if a, b := num(rows[1], "drain_mbps_per_group"), num(rows[2], "drain_mbps_per_group"); !(b < a) {
		t.Errorf("drain %v MB/s after 300 s, %v after 1800 s; want it falling (the buffers found empty)", a, b)
	}
}
