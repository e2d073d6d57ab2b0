// Package scripts_test runs the shipped campaign scripts and figures.star
// through the starbench CLI, in process.
package scripts_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"starbench/internal/cli"
	"starbench/internal/report"
	"starbench/internal/store"
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
			[]string{"vxrail-oio-1m-seq-read-throughput", "vxrail-oio-1m-seq-read-latency", "vxrail-oio-1m-seq-read-hockey", "vxrail-oio-4k-rand-read-throughput", "vxrail-oio-4k-rand-read-latency"},
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

// TestCampaignScripts runs every shipped campaign on its embedded testbed
// with shorter matrices (--set), as the README tells users to, from the
// repository root.
func TestCampaignScripts(t *testing.T) {
	t.Chdir("..")
	for _, tc := range []struct {
		script string
		sets   [][]string // one command line per session, all into one store
		store  string
		runs   int
		// printed are lines the script's tables print; figures the files it saves.
		printed []string
		figures []string
	}{
		{"quickstart.star", [][]string{nil}, "quickstart", 16,
			[]string{"Mean of the repeats per policy, compression and workload:"},
			[]string{"quickstart-4k-rand-read", "quickstart-1m-seq-write"}},
		{"storagereview_esa.star", [][]string{{"--set", "vms=4"}, {"--set", "vms=4", "--set", "ssds=4"}}, "storagereview-esa", 20,
			[]string{"StorageReview table", "ssds  policy  1m-seq-write  1m-seq-read  4k-rand-write  4k-rand-read  8k-rand-70-30"},
			[]string{"storagereview-esa-throughput", "storagereview-esa-iops"}},
		{"vxrail_oio.star", [][]string{{"--set", "vms=8,16", "--set", "disks=4", "--set", "threads=2,32", "--set", "workloads=4k-rand-read,1m-seq-write"}}, "vxrail-oio", 16,
			[]string{"Peak per policy and workload"},
			[]string{"vxrail-oio-4k-rand-read-throughput", "vxrail-oio-4k-rand-read-latency", "vxrail-oio-1m-seq-write-throughput"}},
		{"whatif_sweep.star", [][]string{{"--set", "vms=4,8", "--set", "disks=2", "--set", "threads=4,32", "--set", "repeat=2", "--set", "workloads=4k-rand-read,1m-seq-write"}}, "whatif-sweep", 64,
			[]string{"Best layout per policy and workload (mean of 2 repeats):"},
			[]string{"whatif-4k-rand-read", "whatif-1m-seq-write"}},
		{"vsan_worlds.star", [][]string{{"--set", "per_host=1"}}, "vsan-worlds", 3,
			[]string{"vSAN's worlds per run and host", "Each run on its busiest host", "the pool binds"}, nil},
		{"wwt_matrix.star", [][]string{{"--set", "per_host=1", "--set", "repeat=1"}}, "wwt-matrix", 40,
			[]string{"cost of compression (compression False -> True)", "gain of RoCEv2 (rdma False -> True)", "gain of 25 GbE (uplink 10g -> 25g)",
				"host_cpu_change_pts"},
			[]string{"wwt-answers", "wwt-general", "wwt-4k", "wwt-32k", "wwt-64k", "wwt-sql"}},
	} {
		t.Run(tc.script, func(t *testing.T) {
			out := t.TempDir()
			var stdout string
			for _, sets := range tc.sets {
				args := append([]string{"run", "scripts/" + tc.script, "--out", out, "--no-progress", "--set", "duration=60"}, sets...)
				code, o, e := starbench(t, args...)
				stdout += o
				if code != 0 {
					t.Fatalf("starbench %s: exit %d\n%s", strings.Join(args, " "), code, e)
				}
			}
			// Results go to standard output (print() chatter goes to stderr).
			for _, want := range tc.printed {
				if !strings.Contains(stdout, want) {
					t.Errorf("the script printed no %q on stdout", want)
				}
			}
			for _, f := range tc.figures {
				if _, err := os.Stat(filepath.Join(out, "figures", f+".png")); err != nil {
					t.Errorf("figure %s.png: %v", f, err)
				}
			}
			c, err := report.Load(context.Background(), filepath.Join(out, tc.store+".db"))
			if err != nil {
				t.Fatal(err)
			}
			st, err := store.OpenReadOnly(context.Background(), filepath.Join(out, tc.store+".db"))
			if err != nil {
				t.Fatal(err)
			}
			ok := 0
			err = st.EachRun(context.Background(), func(r store.RunRecord) error {
				if r.Status != "ok" {
					t.Errorf("run %s failed: %s", r.RunKey, r.Error)
					return nil
				}
				ok++
				// The model's notes reach the store, and so the report's bottlenecks.
				if !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, "bottleneck: ") }) {
					t.Errorf("run %s stored no bottleneck note: %q", r.RunKey, r.Notes)
				}
				return nil
			})
			st.Close()
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.runs || !c.Simulated || c.CompletedAt == "" {
				t.Errorf("store: %d ok runs, simulated %v, completed %q; want %d simulated runs, completed", ok, c.Simulated, c.CompletedAt, tc.runs)
			}
			if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestPlanPrintsThePublishedMatrix: --plan prints each campaign's whole
// published matrix and writes no store.
func TestPlanPrintsThePublishedMatrix(t *testing.T) {
	t.Chdir("..")
	for script, want := range map[string]string{
		"wwt_matrix.star":        "8 cells x 5 workloads x 2 repeats = 80 runs",
		"vxrail_oio.star":        "60 cells x 7 workloads x 1 repeats = 420 runs",
		"storagereview_esa.star": "2 cells x 5 workloads x 1 repeats = 10 runs",
		"whatif_sweep.star":      "512 cells x 7 workloads x 3 repeats = 10752 runs",
	} {
		out := t.TempDir()
		code, stdout, stderr := starbench(t, "run", "scripts/"+script, "--plan", "--out", out, "--no-progress")
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("%s --plan: exit %d, want a plan of %q\n%s%s", script, code, want, stdout, stderr)
		}
		if dbs, _ := filepath.Glob(filepath.Join(out, "*.db")); len(dbs) > 0 {
			t.Errorf("%s --plan wrote %v", script, dbs)
		}
	}
}

// hci.job names the published workloads when given one it does not know,
// with the script's line, instead of failing on a dictionary lookup.
func TestHCIJobNamesThePublishedWorkloads(t *testing.T) {
	lib, err := filepath.Abs("lib/hci.star")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "job.star")
	src := fmt.Sprintf("load(%q, \"hci\")\nhci.job(\"4k-rand-70-30\", 8, 60)\n", lib)
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := starbench(t, "run", script, "--out", t.TempDir(), "--no-progress")
	for _, want := range []string{"job.star:2:", `no published workload "4k-rand-70-30": want one of 1m-seq-read,`, "8k-rand-70-30, or give rw="} {
		if code == 0 || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, stderr %q; want it to fail saying %q", code, stderr, want)
		}
	}
}
