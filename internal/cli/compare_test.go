package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// speedScript is a one-factor campaign whose IOPS scale by --set speed, with
// a little spread between repeats (a seeded sequence, the same every run).
const speedScript = `
speed = args.get("speed", 1.0)
spread = [1.0, 1.01, 0.99, 1.005]
n = [0]
def measure():
    n[0] += 1
    f = spread[n[0] % len(spread)]
    return {"iops": 10000.0 * speed * f, "mbps": 40.0 * speed * f, "lat_mean_us": 100.0 / speed * f, "p99_us": 300.0 / speed * f}
c = campaign.new("speed", factors = [campaign.factor("a", ["x", "y"], apply = lambda v: "x")],
    workloads = [campaign.workload("w", measure)], repeat = 4)
c.run()
`

func speedStore(t *testing.T, speed string) string {
	t.Helper()
	out := t.TempDir()
	expect(t, runCLI(t, "", nil, "run", writeScript(t, "speed.star", speedScript), "--out", out, "--set", "speed="+speed), ExitOK, "", "")
	return filepath.Join(out, "speed.db")
}

func TestCompareExitsFourOnlyOnARegression(t *testing.T) {
	base, slower, faster := speedStore(t, "1.0"), speedStore(t, "0.8"), speedStore(t, "1.25")
	r := runCLI(t, "", nil, "compare", base, slower)
	expect(t, r, ExitRegressed, `(?s)a=x / w\s+all\s+IOPS\s+.*-20\.0 %.*regressed.*8 regressed, 0 improved`, "8 significant regressions")
	expect(t, runCLI(t, "", nil, "compare", base, faster), ExitOK, `0 regressed, 8 improved`, "^$")
	// A 20 % drop (and 25 % more latency) under a 30 % threshold is no regression.
	expect(t, runCLI(t, "", nil, "compare", base, slower, "--threshold", "30%"), ExitOK, `0 regressed, 0 improved, 8 without`, "^$")
	fig := filepath.Join(t.TempDir(), "change.png")
	r = runCLI(t, "", nil, "compare", base, slower, "--json", "--figure", fig)
	if r.code != ExitRegressed {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	var js struct {
		Regressed int
		Changes   []struct {
			Metric, Verdict string
			Change          float64
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &js); err != nil || js.Regressed != 8 || js.Changes[0].Metric != "iops" || js.Changes[0].Verdict != "regressed" {
		t.Fatalf("json %+v (%v):\n%s", js, err, r.stdout)
	}
	if info, err := os.Stat(fig); err != nil || info.Size() == 0 {
		t.Errorf("figure not written: %v", err)
	}
}

func TestCompareUsage(t *testing.T) {
	db := emptyStore(t)
	expect(t, runCLI(t, "", nil, "compare", db), ExitUsage, "^$", "want two campaign store files, BASE.db NEW.db, got 1")
	expect(t, runCLI(t, "", nil, "compare", db, db, "--threshold", "lots"), ExitUsage, "^$", `--threshold "lots": want a percentage`)
	expect(t, runCLI(t, "", nil, "compare", db, db, "--map-cell", "a=x"), ExitUsage, "^$", `--map-cell "a=x": want BASE=>NEW`)
}
