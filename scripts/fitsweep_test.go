package scripts_test

import (
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"starbench/internal/measuredtest"
	"starbench/internal/testbed"
)

// fit_sweep.star gives starbench fit what it needs: measured on a cluster
// whose DOM and LSOM cost other than StorageReview's fit (measuredtest: the
// model on a profile of known costs, its store marked measured, since what
// is tested is what the sweep's runs tell the fit), the sweep's runs bring
// each cost back, and the cells kept apart match within 1 %. It records
// the hosts' CPU, vSAN's part of it and its DOM's and LSOM's worlds', and a
// run held to a light load, so
// the fit moves the worlds, the hosts' idle CPU and the guest's cycles too.
func TestFitSweepPinsEachCost(t *testing.T) {
	t.Chdir("..")
	dir := t.TempDir()
	const base = "scripts/testbeds/storagereview-r6625-esa-4ssd.json" // 4 SSDs a host: writes bind the LSOM
	truth, err := testbed.Load(base)
	if err != nil {
		t.Fatal(err)
	}
	m := &truth.Model
	// The guest's cycles per I/O are not moved: fitted from the hosts' CPU
	// and vSAN's part of it, they stay. The hosts idle at 5 %, not 2, and
	// vSAN's fixed time per I/O is 60 us, not 40 (the held run's latency).
	moved := map[string]*testbed.Param{"dom_io_cycles": &m.DOMIOCycles, "dom_byte_cycles": &m.DOMByteCycles, "lsom_op_cycles": &m.LSOMOpCycles, "lsom_write_byte_cycles": &m.LSOMWriteByteCycles,
		"fio_io_cycles": &m.FioIOCycles, "host_idle_cpu_percent": &m.HostIdleCPUPercent, "software_latency_us": &m.SoftwareLatencyUs}
	for name, f := range map[string]float64{"dom_io_cycles": 1.3, "dom_byte_cycles": 1.25, "lsom_op_cycles": 1.2, "lsom_write_byte_cycles": 0.8, "host_idle_cpu_percent": 2.5, "software_latency_us": 1.5} {
		moved[name].Value *= f
	}
	truthPath := measuredtest.Profile(t, truth)
	out := filepath.Join(dir, "measured")
	if code, _, stderr := starbench(t, "run", "scripts/fit_sweep.star", "--testbed", truthPath, "--set", "repeat=1", "--set", "duration=60", "--out", out, "--no-progress", "--no-noise"); code != 0 {
		t.Fatalf("fit_sweep.star: exit %d\n%s", code, stderr)
	}
	db := filepath.Join(out, "fit-sweep.db")
	measuredtest.MarkMeasured(t, db, "vcenter")
	fitted := filepath.Join(dir, "fitted.json")
	code, stdout, stderr := starbench(t, "fit", "scripts/fit_sweep.star", "--from", db, "--testbed", base, "--out", fitted)
	if code != 0 {
		t.Fatalf("starbench fit: exit %d\n%s%s", code, stdout, stderr)
	}
	t.Log(stdout)
	if !regexp.MustCompile(`(?m)^vSAN CPU, fitted: fit: 18 runs, `).MatchString(stdout) || !regexp.MustCompile(`fitting fio_io_cycles too`).MatchString(stderr) {
		t.Errorf("the sweep's vSAN CPU is not fitted, or the guest's cycles not with it:\n%s%s", stdout, stderr)
	}
	if !regexp.MustCompile(`fit: 24 runs of .*fit-sweep\.db recorded vSAN's CPU but lasted under 600 s`).MatchString(stderr) {
		t.Errorf("the fit does not say the 60 s runs' vSAN samples may cover their neighbours:\n%s", stderr)
	}
	if !regexp.MustCompile(`fitting their latency, and software_latency_us with it`).MatchString(stderr) {
		t.Errorf("the held run's latency is not fitted:\n%s", stderr)
	}
	for _, worlds := range []string{"DOM", "LSOM"} {
		if !regexp.MustCompile(`(?m)^` + worlds + ` worlds' CPU, fitted: fit: 18 runs, `).MatchString(stdout) {
			t.Errorf("the sweep's %s worlds' CPU is not fitted:\n%s", worlds, stdout)
		}
	}
	summary := regexp.MustCompile(`validation: (\d+) runs, median error [0-9.]+ % before, ([0-9.]+) % after`).FindStringSubmatch(stdout)
	if summary == nil {
		t.Fatalf("no validation summary:\n%s", stdout)
	}
	if after, _ := strconv.ParseFloat(summary[2], 64); summary[1] != "6" || !(after < 1) {
		t.Errorf("validation: %s runs, %s %% after the fit; want the 6 runs of the cell kept apart within 1 %%", summary[1], summary[2])
	}
	p, err := testbed.Load(fitted)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	p.Model.Each(func(name string, q *testbed.Param) { got[name] = q.Value })
	for name, q := range moved {
		if r := got[name] / q.Value; !(math.Abs(r-1) < 0.05) {
			t.Errorf("%s fitted to %.4g, want the %.4g the sweep was measured with (x%.3g)", name, got[name], q.Value, r)
		}
	}
}
