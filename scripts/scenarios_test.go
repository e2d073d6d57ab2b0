package scripts_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"starbench/internal/store"
)

// TestScenarioScripts runs the event scenarios shortened with --set on the
// embedded default, and checks what each stored: one successful simulated
// run whose events are the scenario's, in the order it schedules them, and
// its figures over time.
func TestScenarioScripts(t *testing.T) {
	t.Chdir("..")
	for _, tc := range []struct {
		script, store string
		sets          []string
		kinds         []string
	}{
		{"node_failure.star", "node-failure", []string{"duration=12m", "fail_at=1m", "down=8m"},
			[]string{"host_failure", "host_return", "resync_start", "resync_end"}},
		{"rolling_upgrade.star", "rolling-upgrade", []string{"duration=20m", "start=1m", "hold=2m", "gap=1m"},
			slices.Repeat([]string{"maintenance_enter", "maintenance_exit", "resync_start", "resync_end"}, 4)},
		{"db_colocation.star", "db-colocation-report", []string{"neighbour=report", "duration=10m", "start=2m", "length=4m"},
			[]string{"workload_start", "workload_end"}},
		{"snapshot_impact.star", "snapshot-impact", []string{"duration=12m", "first=1m", "every=2m", "count=3", "keep=3m"},
			[]string{"snapshot_create", "snapshot_create", "snapshot_create", "snapshot_remove", "snapshot_remove", "snapshot_remove"}},
		// OSA merges what the snapshots held back into the base disks.
		{"snapshot_impact.star", "snapshot-impact", []string{"testbed=wwt-r640-osa", "duration=20m", "first=1m", "every=2m", "count=2", "keep=3m"},
			[]string{"snapshot_create", "snapshot_create", "snapshot_remove", "snapshot_remove", "consolidation_start", "consolidation_end"}},
	} {
		t.Run(tc.script+strings.Join(tc.sets, ","), func(t *testing.T) {
			out := t.TempDir()
			args := []string{"run", "scripts/" + tc.script, "--out", out, "--no-progress", "--set", "interval=60s"}
			for _, s := range tc.sets {
				args = append(args, "--set", s)
			}
			code, stdout, stderr := starbench(t, args...)
			if code != 0 {
				t.Fatalf("starbench %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
			}
			if !strings.Contains(stdout, tc.store+": events") {
				t.Errorf("no events table on stdout:\n%s", stdout)
			}
			for _, f := range []string{tc.store + "-iops", tc.store + "-p99"} {
				if _, err := os.Stat(filepath.Join(out, "figures", f+".png")); err != nil {
					t.Errorf("figure %s.png: %v", f, err)
				}
			}
			ctx := context.Background()
			st, err := store.OpenReadOnly(ctx, filepath.Join(out, tc.store+".db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if !st.Simulated {
				t.Error("the store is not marked simulated")
			}
			runs, err := st.Frame(ctx, "runs")
			if err != nil {
				t.Fatal(err)
			}
			if runs.Nrow() != 1 || runs.Col("status").Records()[0] != "ok" {
				t.Fatalf("runs:\n%v", runs)
			}
			evs, err := st.Frame(ctx, "events")
			if err != nil {
				t.Fatal(err)
			}
			if got := evs.Col("kind").Records(); !slices.Equal(got, tc.kinds) {
				t.Errorf("stored events %v, want %v", got, tc.kinds)
			}
		})
	}
}

// TestEventsDuringRealFio runs events.run on real fio servers on loopback:
// the events fire on the wall clock during the measurement, a condition
// sees fio's live samples, and the result is measured, not simulated.
func TestEventsDuringRealFio(t *testing.T) {
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed (apt-get install -y fio)")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "real.star")
	os.WriteFile(script, []byte(`
ws = fio.local_workers(2, size = "16m")
job = fio.job(name = "r", rw = "randread", bs = "4k", runtime = "4s", time_based = True)
seen = []
r = events.run(ws, job, [
    events.at("1s", lambda: seen.append("at"), name = "tick"),
    events.when(lambda s: s.iops > 0, lambda: seen.append("when"), name = "busy"),
], interval = "1s")
ev = r.events
print("kinds", list(ev["kind"]))
at = list(ev.filter(kind = "action")["at_s"])[0]
print("tick at %s" % at)
if at < 1 or at > 4:
    fail("tick fired at %g s, want between 1 and 4" % at)
if len(r.samples) == 0 or list(r.samples["simulated"])[0]:
    fail("samples: %s" % r.samples)
print("fired", sorted(seen))
`), 0o644)
	code, _, stderr := starbench(t, "run", script, "--target", "local", "--out", filepath.Join(dir, "out"), "--no-progress")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{`kinds ["`, `"action"`, `"condition"`, `fired ["at", "when"]`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("no %q in:\n%s", want, stderr)
		}
	}
}
