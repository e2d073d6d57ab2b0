package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFailedRunsExitThreeWithASummary: a campaign whose runs partly fail
// goes on, exits 3 naming the failures, and --summary-json says what
// failed and what was measured, per cell; resuming keeps the exit code
// until --rerun-failed retries them.
func TestFailedRunsExitThreeWithASummary(t *testing.T) {
	out := t.TempDir()
	script := writeScript(t, "ds.star", campaignScript)
	sumPath := filepath.Join(t.TempDir(), "summary.json")
	r := runCLI(t, "", nil, "run", script, "--out", out, "--set", "broken=True", "--summary-json", sumPath)
	expect(t, r, ExitRunsFailed, "", `campaign ds: 2 of 16 stored runs failed \(kept in .*ds\.db; --rerun-failed runs them again\)`)
	var sum struct {
		ExitCode  int `json:"exit_code"`
		Campaigns []struct {
			Name                    string
			Complete                bool
			Cells, Runs, OK, Failed int
			Failures                []struct {
				Cell, Workload, Error string
				Repeat                int
			}
			Results []struct {
				Cell, Workload, Direction string
				Levels                    map[string]string
				N                         int
				IOPS                      *float64 `json:"iops_mean"`
				P99                       *float64 `json:"p99_us_mean"`
			}
			Units map[string]string
		}
	}
	b, err := os.ReadFile(sumPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatalf("%v:\n%s", err, b)
	}
	if sum.ExitCode != ExitRunsFailed || len(sum.Campaigns) != 1 {
		t.Fatalf("summary %+v", sum)
	}
	c := sum.Campaigns[0]
	if c.Name != "ds" || !c.Complete || c.Cells != 4 || c.Runs != 16 || c.OK != 14 || c.Failed != 2 || len(c.Failures) != 2 {
		t.Fatalf("campaign %+v", c)
	}
	if f := c.Failures[0]; f.Cell != "a=x b=2" || f.Workload != "w" || f.Repeat != 1 || !strings.Contains(f.Error, "worker w2 stopped answering") {
		t.Errorf("failure %+v", f)
	}
	// 4 cells x (mixed read, mixed write, w all), less w in the failed cell.
	if len(c.Results) != 11 {
		t.Fatalf("%d results, want 11", len(c.Results))
	}
	first := c.Results[0]
	if first.Cell != "a=x b=1" || first.Levels["a"] != "x" || first.Direction != "read" || first.N != 2 ||
		first.IOPS == nil || *first.IOPS != 1001 || first.P99 == nil || *first.P99 != 500 {
		t.Errorf("first result %+v", first)
	}
	if c.Units["latency"] == "" || c.Units["mbps"] == "" {
		t.Errorf("units %v", c.Units)
	}
	// Resuming runs nothing and still says the campaign has failures.
	expect(t, runCLI(t, "", nil, "run", script, "--out", out, "--set", "broken=True"), ExitRunsFailed, "", "2 of 16 stored runs failed")
	expect(t, runCLI(t, "", nil, "run", script, "--out", out, "--rerun-failed"), ExitOK, "", "")
}
