package scripts_test

import (
	"context"
	"os"
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
