// Package scripts_test runs the shipped campaign scripts and figures.star
// through the starbench CLI, in process.
package scripts_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"starbench/internal/cli"
)

// starbench runs one command line in process and returns its exit code and output.
func starbench(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Run(&cli.State{Args: args, Env: map[string]string{}, Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr})
	return code, stdout.String(), stderr.String()
}

// fakeCampaign is a campaign with the factors and workloads of a shipped
// script whose workloads are Starlark functions: the stored results have
// the shape figures.star reads, without a cluster.
const fakeCampaign = `
state = {}

def knob(name, levels):
    state[name] = levels[0]
    def apply(level):
        previous = state[name]
        state[name] = level
        return previous
    return campaign.factor(name, levels, apply = apply)

def measure(w):
    def run():
        x = 10000.0 * (1 + len(w)) + 100.0 * len(str(state.values()))
        return [{"direction": "read", "iops": 0.7 * x, "mbps": 0.07 * x, "p99_us": 800.0},
                {"direction": "write", "iops": 0.3 * x, "mbps": 0.03 * x, "p99_us": 1600.0}]
    return run

c = campaign.new(%q,
    factors = [knob(name, levels) for name, levels in %s],
    workloads = [campaign.workload(w, measure(w)) for w in %s],
    repeat = 2)
c.run()
`

func TestFiguresRedrawEachCampaign(t *testing.T) {
	for _, tc := range []struct {
		name, factors, workloads string
		figures                  []string
		tables                   []string
	}{
		{"quickstart", `[("policy", ["raid1", "raid5"]), ("compression", [False, True])]`, `["4k-rand-read", "1m-seq-write"]`,
			[]string{"quickstart-4k-rand-read", "quickstart-1m-seq-write"}, []string{"quickstart"}},
		{"storagereview-esa", `[("ssds", [4, 8]), ("policy", ["raid1", "raid5"])]`, `["1m-seq-write", "1m-seq-read", "4k-rand-write", "4k-rand-read", "8k-rand-70-30"]`,
			[]string{"storagereview-esa-throughput", "storagereview-esa-iops"}, []string{"storagereview-esa"}},
		{"vxrail-oio", `[("policy", ["raid1", "raid5"]), ("vms", [8, 16]), ("disks", [4]), ("threads", [2, 8])]`, `["1m-seq-read", "4k-rand-read"]`,
			[]string{"vxrail-oio-1m-seq-read-throughput", "vxrail-oio-1m-seq-read-latency", "vxrail-oio-4k-rand-read-throughput", "vxrail-oio-4k-rand-read-latency"},
			[]string{"vxrail-oio-peak"}},
		{"wwt-matrix", `[("compression", [False, True]), ("rdma", [False, True]), ("uplink", ["10g", "25g"])]`, `["general", "4k", "sql"]`,
			[]string{"wwt-answers", "wwt-general", "wwt-4k", "wwt-sql"}, []string{"wwt-answers"}},
		{"other", `[("x", ["a", "b"])]`, `["w"]`, []string{"iops"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			script := filepath.Join(dir, "fake.star")
			os.WriteFile(script, []byte(fmt.Sprintf(fakeCampaign, tc.name, tc.factors, tc.workloads)), 0o644)
			runs := filepath.Join(dir, "runs")
			if code, _, stderr := starbench(t, "run", script, "--out", runs, "--no-progress"); code != 0 {
				t.Fatalf("fake campaign: exit %d\n%s", code, stderr)
			}
			out := filepath.Join(dir, "report")
			code, _, stderr := starbench(t, "report", "figures.star", "--from", filepath.Join(runs, tc.name+".db"), "--out", out)
			if code != 0 {
				t.Fatalf("figures.star: exit %d\n%s", code, stderr)
			}
			for _, f := range tc.figures {
				if _, err := os.Stat(filepath.Join(out, "figures", f+".png")); err != nil {
					t.Errorf("figure %s.png missing: %v\n%s", f, err, stderr)
				}
			}
			for _, f := range tc.tables {
				if _, err := os.Stat(filepath.Join(out, "tables", f+".md")); err != nil {
					t.Errorf("table %s.md missing: %v", f, err)
				}
			}
			html, err := os.ReadFile(filepath.Join(out, "report.html"))
			if err != nil {
				t.Fatal(err)
			}
			// The report's own overview, when drawn, comes on top of the script's figures.
			if n := strings.Count(string(html), `<img src="data:image/png;base64,`); n < len(tc.figures) {
				t.Errorf("report.html embeds %d figures; want at least the %d figures.star drew", n, len(tc.figures))
			}
			if !strings.Contains(string(html), "SIMULATED") {
				t.Error("a simulated campaign's report lacks the simulated banner")
			}
		})
	}
}
