package cli

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// campaignScript is a small campaign on the embedded target: two factors,
// two workloads (one with read and write rows), repeated; run "w" fails
// in cell a=x b=2 when broken is set.
const campaignScript = `
broken = args.get("broken", False)
state = {"a": "x", "b": 1}

def set(k, v):
    prev = state[k]
    state[k] = v
    return prev

def mixed():
    base = 1000.0 if state["a"] == "x" else 800.0
    return [{"direction": "read", "iops": base + state["b"], "mbps": base / 256, "p95_us": 300.0, "p99_us": 500.0, "lat_mean_us": 120.0},
            {"direction": "write", "iops": base / 2, "mbps": base / 512, "p95_us": 600.0, "p99_us": 900.0, "lat_mean_us": 250.0}]

def plain():
    if broken and state["a"] == "x" and state["b"] == 2:
        fail("worker w2 stopped answering")
    return {"iops": 10.0, "mbps": 0.04}

c = campaign.new("ds",
    factors = [campaign.factor("a", ["x", "y"], apply = lambda v: set("a", v)),
               campaign.factor("b", [1, 2], apply = lambda v: set("b", v))],
    workloads = [campaign.workload("mixed", mixed), campaign.workload("w", plain)],
    repeat = 2)
c.run()
`

func TestExportWritesEveryDatasetAsCSV(t *testing.T) {
	out := t.TempDir()
	script := writeScript(t, "ds.star", campaignScript)
	expect(t, runCLI(t, "", nil, "run", script, "--out", out), ExitOK, "", "")
	dir := filepath.Join(t.TempDir(), "csv")
	r := runCLI(t, "", nil, "export", filepath.Join(out, "ds.db"), "--csv", dir)
	expect(t, r, ExitOK, "results_wide.csv\n.*cell_summary.csv\n", "^$")
	read := func(name string) [][]string {
		f, err := os.Open(filepath.Join(dir, name+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	wide := read("results_wide")
	if got := strings.Join(wide[0][:9], ","); got != "run_id,cell,a,b,workload,repeat,job,direction,iops" {
		t.Errorf("results_wide header starts %s", got)
	}
	if len(wide) != 1+4*2*(2+1) {
		t.Errorf("results_wide has %d rows, want 24 (4 cells x 2 repeats x 3 directions)", len(wide)-1)
	}
	summary := read("cell_summary")
	if !slices.Equal(summary[0][:7], []string{"cell", "a", "b", "workload", "job", "direction", "n"}) || len(summary) != 1+4*3 {
		t.Errorf("cell_summary: header %v, %d rows, want 12", summary[0], len(summary)-1)
	}
	for _, name := range []string{"runs", "rows", "host_metrics", "sessions"} {
		if recs := read(name); len(recs) == 0 {
			t.Errorf("%s.csv has no header", name)
		}
	}
	// A missing metric is an empty field, not 0 or NaN.
	col := slices.Index(wide[0], "p50_us")
	if wide[1][col] != "" {
		t.Errorf("p50_us (never given) exported as %q, want empty", wide[1][col])
	}
}

func TestExportUsage(t *testing.T) {
	expect(t, runCLI(t, "", nil, "export", "--csv", t.TempDir()), ExitUsage, "^$", "want one campaign store file")
	expect(t, runCLI(t, "", nil, "export", emptyStore(t)), ExitUsage, "^$", "--csv DIR is required")
	expect(t, runCLI(t, "", nil, "export", filepath.Join(t.TempDir(), "none.db"), "--csv", t.TempDir()), ExitUsage, "^$", "no such store file")
}
