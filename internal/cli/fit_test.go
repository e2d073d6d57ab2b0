package cli

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"starbench/internal/measuredtest"
	"starbench/internal/model"
	"starbench/internal/testbed"
)

// movedStorageReview is StorageReview's profile with its costs moved, as
// the cluster a test's campaign is "measured" on, and the file it is
// written to.
func movedStorageReview(t *testing.T, move func(*testbed.ModelParams)) (*testbed.Profile, string) {
	t.Helper()
	p, err := testbed.Load("storagereview-r6625-esa")
	if err != nil {
		t.Fatal(err)
	}
	p.Name = "truth"
	move(&p.Model)
	return p, measuredtest.Profile(t, p)
}

// The quick start measured on a cluster whose DOM costs 40 % more per I/O
// and whose LSOM costs 30 % more per byte written than StorageReview's
// fit: starbench fit runs the script on StorageReview's profile, fits to
// every cell but every third, writes a profile with the DOM's cost found
// and its source, and reports the error on the cell kept apart.
func TestFitWritesAProfileFittedToAMeasuredCampaign(t *testing.T) {
	inRepoRoot(t)
	dir := t.TempDir()
	truth, truthPath := movedStorageReview(t, func(m *testbed.ModelParams) {
		m.DOMIOCycles.Value *= 1.4
		m.LSOMWriteByteCycles.Value *= 1.3
	})
	out := filepath.Join(dir, "measured")
	expect(t, runCLI(t, "", nil, "run", "scripts/quickstart.star", "--testbed", truthPath, "--set", "duration=10", "--set", "repeat=1", "--out", out, "--no-progress", "--no-noise"), ExitOK, "", "")
	db := filepath.Join(out, "quickstart.db")
	fitted := filepath.Join(dir, "fitted.json")
	expect(t, runCLI(t, "", nil, "fit", "scripts/quickstart.star", "--from", db, "--testbed", "storagereview-r6625-esa", "--out", fitted),
		ExitScriptError, "^$", `quickstart\.db holds simulated runs: a fit wants runs measured on a real cluster`)

	measuredtest.MarkMeasured(t, db, "local")
	expect(t, runCLI(t, "", nil, "fit", "scripts/quickstart.star", "--from", db, "--testbed", "storagereview-r6625-esa", "--out", fitted),
		ExitScriptError, "^$", `quickstart\.db was measured on target local: a fit wants runs on a real vSAN cluster`)
	measuredtest.MarkMeasured(t, db, "vcenter")
	expect(t, runCLI(t, "", nil, "fit", "scripts/hello.star", "--from", db, "--testbed", "storagereview-r6625-esa", "--out", fitted),
		ExitScriptError, "^$", `scripts/hello\.star is not the script that measured .*quickstart\.db \(its session ran scripts/quickstart\.star`)
	r := runCLI(t, "", nil, "fit", "scripts/quickstart.star", "--from", db, "--testbed", "storagereview-r6625-esa", "--out", fitted)
	expect(t, r, ExitOK, `(?m)^fit: 6 runs, median error [0-9.]+ % before, 0\.[0-4] % after; validation: 2 runs, median error [0-9.]+ % before, 0\.[0-4] % after$`, `fit: wrote .*fitted\.json`)
	// Latency follows from the same costs: reported, not fitted (no rate
	// holds these runs).
	if !regexp.MustCompile(`(?m)^mean latency, fitted only where a rate holds the I/Os: fit: 6 runs, median error [0-9.]+ % before, 0\.[0-4] % after; validation: 2 runs, median error [1-9][0-9.]* % before, 0\.[0-4] % after$`).MatchString(r.stdout) {
		t.Errorf("no latency line, or latency off after the fit:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "policy=raid5 compression=False / 4k-rand-read #1 validation") {
		t.Errorf("the third cell is not kept apart:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "does not carry") {
		t.Errorf("a fit that carries to the runs kept apart said it does not:\n%s", r.stdout)
	}
	// A cluster that does 30 % more in the cell kept apart than the costs
	// fitted on the others say: the fit says it does not carry there.
	measuredtest.ScaleCell(t, db, "policy=raid5 compression=False", 1.3)
	r = runCLI(t, "", nil, "fit", "--from", db, "--testbed", "storagereview-r6625-esa", "--out", fitted)
	expect(t, r, ExitOK, `(?m)^the fit does not carry to the runs kept apart \(median error 2[0-9.]+ % there, 0\.[0-9] % on the fitted ones\)`, "")
	p, err := testbed.Load(fitted)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Model.DOMIOCycles.Value, truth.Model.DOMIOCycles.Value; !(math.Abs(got/want-1) < 0.02) {
		t.Errorf("dom_io_cycles fitted to %.0f, want the %.0f the campaign was measured with", got, want)
	}
	// Host CPU moves the LSOM's cycles per byte read with the others: it
	// stays where the runs had it only if the search gets off the ridge.
	if got, want := p.Model.LSOMReadByteCycles.Value, truth.Model.LSOMReadByteCycles.Value; !(math.Abs(got/want-1) < 0.05) {
		t.Errorf("lsom_read_byte_cycles fitted to %.3g, want the %.3g the campaign was measured with", got, want)
	}
	if src := p.Model.DOMIOCycles.Source; !strings.HasPrefix(src, "fitted by starbench fit to campaign quickstart measured in quickstart.db") {
		t.Errorf("dom_io_cycles' source is %q: want where it was fitted", src)
	}
	if p.Name != "storagereview-r6625-esa-fit" || !strings.HasPrefix(p.Calibration, "starbench fit: campaign quickstart") {
		t.Errorf("profile %q, calibration %q: want the fit named on both", p.Name, p.Calibration)
	}
	// The calibrated range is what the fitted runs span: 4K and 1M, 8
	// workers' 4 disks at 8 (sequential) and 16 (random) outstanding I/Os,
	// a factor 4 either side.
	m := p.Model
	if got := [4]float64{m.CalibratedMinBlockBytes.Value, m.CalibratedMaxBlockBytes.Value, m.CalibratedMinOutstanding.Value, m.CalibratedMaxOutstanding.Value}; got != [4]float64{4096, 1 << 20, 256 / 4, 512 * 4} {
		t.Errorf("calibrated range %v: want the fitted runs' 4K-1M and 256-512 outstanding I/Os, a factor 4 either side", got)
	}
}

func TestFitNeedsAStoreAndATestbed(t *testing.T) {
	s := writeScript(t, "s.star", "pass\n")
	expect(t, runCLI(t, "", nil, "fit", s, "--testbed", "x"), ExitUsage, "^$", "give --from")
	expect(t, runCLI(t, "", nil, "fit", s, "--from", "x.db"), ExitUsage, "^$", "give --testbed")
	expect(t, runCLI(t, "", nil, "fit", s, "--from", "x.db", "--testbed", "x", "--validate", "1"), ExitUsage, "^$", "--validate 1: want 0")
	expect(t, runCLI(t, "", nil, "fit", s, "--from", "x.db", "--testbed", "x", "--params", "dom_io_cycles,dom_io_cycles"), ExitUsage, "^$", "names a parameter twice")
}

// Without SCRIPT each store's own copy of the files its script loaded runs
// again (the script may since have changed or gone), and several stores
// are fitted together: two campaigns measured on the same cluster, their
// runs named by campaign, each keeping its own cells apart.
func TestFitRunsEachStoresOwnScript(t *testing.T) {
	inRepoRoot(t)
	dir := t.TempDir()
	truth, truthPath := movedStorageReview(t, func(m *testbed.ModelParams) { m.DOMIOCycles.Value *= 1.4 })
	// A copy of the quick start, run from its own folder and then removed.
	src := filepath.Join(dir, "src")
	for _, f := range []string{"quickstart.star", "lib/hci.star", "lib/workloads.star", "lib/analysis.star", "lib/tables.star"} {
		data, err := os.ReadFile(filepath.Join("scripts", f))
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(src, f)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stores []string
	for _, c := range []struct{ name, sets string }{{"a", "duration=10"}, {"b", "duration=20"}} {
		out := filepath.Join(dir, c.name)
		expect(t, runCLI(t, "", nil, "run", filepath.Join(src, "quickstart.star"), "--testbed", truthPath, "--set", c.sets, "--set", "repeat=1", "--out", out, "--no-progress", "--no-noise"), ExitOK, "", "")
		db := filepath.Join(out, "quickstart.db")
		measuredtest.MarkMeasured(t, db, "vcenter")
		stores = append(stores, "--from", db)
	}
	if err := os.RemoveAll(src); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "", nil, append([]string{"fit", "--testbed", "storagereview-r6625-esa", "--out", filepath.Join(dir, "fitted.json"), "--params", "dom_io_cycles"}, stores...)...)
	expect(t, r, ExitOK, `(?m)^fit: 12 runs, median error [0-9.]+ % before, 0\.[0-4] % after; validation: 4 runs, `, `fit: running .*quickstart\.star \(of .*a/quickstart\.db\)(.|\n)*fit: running .*quickstart\.star \(of .*b/quickstart\.db\)`)
	if !strings.Contains(r.stdout, "quickstart: policy=raid5 compression=False / 4k-rand-read #1 validation") {
		t.Errorf("runs not named by campaign, or the third cell not kept apart:\n%s", r.stdout)
	}
	p, err := testbed.Load(filepath.Join(dir, "fitted.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Model.DOMIOCycles.Value, truth.Model.DOMIOCycles.Value; !(math.Abs(got/want-1) < 0.02) {
		t.Errorf("dom_io_cycles fitted to %.0f, want %.0f", got, want)
	}
	expect(t, runCLI(t, "", nil, append([]string{"fit", "scripts/quickstart.star", "--testbed", "storagereview-r6625-esa"}, stores...)...), ExitUsage, "^$", "a SCRIPT goes with one store")
	// Stores of two clusters are not fitted together.
	measuredtest.RenameHosts(t, stores[3], "-other")
	expect(t, runCLI(t, "", nil, append([]string{"fit", "--testbed", "storagereview-r6625-esa", "--out", filepath.Join(dir, "fitted.json")}, stores...)...),
		ExitScriptError, "^$", `b/quickstart\.db measured hosts .*-other.* and .*a/quickstart\.db hosts .*: want stores measured on one cluster, the one storagereview-r6625-esa describes`)
}

// The quick start measured on a cluster whose DOM has twice the worlds,
// each costing what the calibration then gives it (starbench split's
// refit): its I/Os are the shipped profile's, its hosts' CPU is not. With
// the CPU the campaign recorded, the fit moves the worlds too by default
// and finds them; without it, it says why it leaves them.
func TestFitFindsTheWorldsFromHostCPU(t *testing.T) {
	inRepoRoot(t)
	dir := t.TempDir()
	refit, err := model.Refit(context.Background(), model.Split{DOMWorlds: 16})
	if err != nil {
		t.Fatal(err)
	}
	truth, truthPath := movedStorageReview(t, func(m *testbed.ModelParams) { m.Set(refit) })
	out := filepath.Join(dir, "measured")
	expect(t, runCLI(t, "", nil, "run", "scripts/quickstart.star", "--testbed", truthPath, "--set", "duration=10", "--set", "repeat=1", "--out", out, "--no-progress", "--no-noise"), ExitOK, "", "")
	db := filepath.Join(out, "quickstart.db")
	measuredtest.MarkMeasured(t, db, "vcenter")
	fitted := filepath.Join(dir, "fitted.json")
	r := runCLI(t, "", nil, "fit", "--from", db, "--testbed", "storagereview-r6625-esa", "--out", fitted)
	expect(t, r, ExitOK, `(?m)^host CPU, fitted: fit: 6 runs, median error [1-9][0-9.]* % before, 0\.[0-4] % after; validation: 2 runs, median error [1-9][0-9.]* % before, 0\.[0-4] % after$`,
		`fitting dom_worlds_per_host and device_worlds too(.|\n)*too close to tell the hosts. idle CPU from the load, so host_idle_cpu_percent stays at 2 %`)
	p, err := testbed.Load(fitted)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Model.DOMWorldsPerHost.Value, truth.Model.DOMWorldsPerHost.Value; !(math.Abs(got/want-1) < 0.05) {
		t.Errorf("dom_worlds_per_host fitted to %.3g, want the %g the campaign was measured with", got, want)
	}
	if src := p.Model.DOMWorldsPerHost.Source; !strings.Contains(src, "host CPU, fitted: fit: 6 runs") {
		t.Errorf("dom_worlds_per_host's source %q does not say the host CPU was fitted", src)
	}

	// A campaign that read some of the hosts' CPU: the model's is every
	// host's, so it is not fitted.
	measuredtest.DropHostMetrics(t, db, 3)
	r = runCLI(t, "", nil, "fit", "--from", db, "--testbed", "storagereview-r6625-esa", "--out", fitted)
	expect(t, r, ExitOK, `(?m)^fit: 6 runs`, `quickstart\.db read the CPU of 3 of the 4 hosts storagereview-r6625-esa describes, and the model's is every host's: its runs' CPU is not fitted`)
	if strings.Contains(r.stdout, "host CPU, fitted") {
		t.Errorf("a campaign with 3 of the 4 hosts' CPU reports a CPU fit:\n%s", r.stdout)
	}
	// A profile of fewer hosts than the campaign measured is not its cluster's.
	small := *truth
	small.Name, small.Hosts = "two-hosts", 2
	expect(t, runCLI(t, "", nil, "fit", "--from", db, "--testbed", measuredtest.Profile(t, &small), "--out", fitted),
		ExitScriptError, "^$", `quickstart\.db measured 3 hosts \(.*\), but two-hosts describes 2: want the profile of the cluster the campaign ran on`)

	measuredtest.DropHostMetrics(t, db, 0)
	r = runCLI(t, "", nil, "fit", "--from", db, "--testbed", "storagereview-r6625-esa", "--out", fitted)
	expect(t, r, ExitOK, `(?m)^fit: 6 runs`, `no run measured its hosts' CPU \(campaign\.new\(metrics = hci\.host_cpu\) records it\): the I/Os fix vSAN's ceilings only as worlds x cycles, so the worlds stay as they are`)
	if strings.Contains(r.stdout, "host CPU, fitted") {
		t.Errorf("a campaign without host CPU reports a CPU fit:\n%s", r.stdout)
	}
	if p, err = testbed.Load(fitted); err != nil {
		t.Fatal(err)
	}
	if got := p.Model.DOMWorldsPerHost.Value; got != 8 {
		t.Errorf("without host CPU dom_worlds_per_host moved to %.3g", got)
	}
}
