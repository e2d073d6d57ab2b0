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
		// neighbour, when set, is the seconds the second workload runs
		// (from, to]: the database's reads must be lower then than before.
		neighbour [2]float64
	}{
		{"node_failure.star", "node-failure", []string{"duration=12m", "fail_at=1m", "down=8m"},
			[]string{"host_failure", "host_return", "resync_start", "resync_end"}, [2]float64{}},
		{"rolling_upgrade.star", "rolling-upgrade", []string{"duration=20m", "start=1m", "hold=2m", "gap=1m"},
			slices.Repeat([]string{"maintenance_enter", "maintenance_exit", "resync_start", "resync_end"}, 4), [2]float64{}},
		// The report shares every host with the database (one worker of each).
		{"db_colocation.star", "db-colocation-report", []string{"neighbour=report", "duration=10m", "start=2m", "length=4m"},
			[]string{"workload_start", "workload_end"}, [2]float64{120, 360}},
		{"snapshot_impact.star", "snapshot-impact", []string{"duration=12m", "first=1m", "every=2m", "count=3", "keep=3m"},
			[]string{"snapshot_create", "snapshot_create", "snapshot_create", "snapshot_remove", "snapshot_remove", "snapshot_remove"}, [2]float64{}},
		// OSA merges what the snapshots held back into the base disks.
		{"snapshot_impact.star", "snapshot-impact", []string{"testbed=wwt-r640-osa", "duration=20m", "first=1m", "every=2m", "count=2", "keep=3m"},
			[]string{"snapshot_create", "snapshot_create", "snapshot_remove", "snapshot_remove", "consolidation_start", "consolidation_end"}, [2]float64{}},
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
			if tc.neighbour != [2]float64{} {
				smp, err := st.Frame(ctx, "samples")
				if err != nil {
					t.Fatal(err)
				}
				ts, job, dir, iops := smp.Col("t_s").Float(), smp.Col("job").Records(), smp.Col("direction").Records(), smp.Col("iops").Float()
				var before, during []float64
				for i := range ts {
					switch {
					case job[i] != "oltp" || dir[i] != "read":
					case ts[i] <= tc.neighbour[0]:
						before = append(before, iops[i])
					case ts[i] > tc.neighbour[0]+60 && ts[i] <= tc.neighbour[1]: // whole intervals of the neighbour
						during = append(during, iops[i])
					}
				}
				if len(before) == 0 || len(during) == 0 || !(mean(during) < 0.8*mean(before)) {
					t.Errorf("the database's reads beside the neighbour %v, before %v: want them lower", during, before)
				}
			}
		})
	}
}

// TestEventsDuringRealFio runs events.run on real fio servers on loopback:
// the events fire on the wall clock during the measurement and the result
// is measured, not simulated. A condition (events.when) fires on fio's
// live rate while the run runs.
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
    events.at("2s", lambda: cluster.configure(compression = True), name = "compress"),
], interval = "1s")
if not [n for n in r.notes if n.startswith("setting changed the simulated cluster only")]:
    fail("notes %s: want the setting said not to reach fio on loopback" % r.notes)
ev = r.events
print("kinds", list(ev["kind"]))
at = list(ev.filter(kind = "action")["at_s"])[0]
print("tick at %s" % at)
if at < 1 or at > 4:
    fail("tick fired at %g s, want between 1 and 4" % at)
if len(r.samples) == 0 or list(r.samples["simulated"])[0]:
    fail("samples: %s" % r.samples)
jobs = sorted({j: True for j in list(r.samples["job"])}.keys())
if jobs != ["r"]:
    fail("samples of jobs %s; want the measured job's name, r, as the simulator's samples have it" % jobs)
print("fired", sorted(seen))
`), 0o644)
	code, _, stderr := starbench(t, "run", script, "--target", "local", "--out", filepath.Join(dir, "out"), "--no-progress")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{`kinds ["`, `"action"`, `fired ["at"]`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("no %q in:\n%s", want, stderr)
		}
	}

	// A condition checks fio's live rate while the run runs: psync keeps
	// one I/O in flight, so Little's law gives the latency.
	cond := filepath.Join(dir, "cond.star")
	os.WriteFile(cond, []byte(`ws = fio.local_workers(1, size = "16m")
job = fio.job(name = "r", rw = "randread", bs = "4k", runtime = "4s", time_based = True)
hits = []
def moving(s):
    if s.iops > 0 and s.lat_mean_us > 0 and s.t_s < 4:
        hits.append(s)
        return True
    return False
busy = events.when(moving, lambda: print("moving"), name = "moving")
r = events.run(ws, job, [busy], interval = "1s")
s = hits[0]
print("hit %s %s at %d s: %d IOPS, %s us, p99 %s" % (s.job, s.direction, s.t_s, s.iops, s.lat_mean_us, s.p99_us))
print("condition at", list(r.events.filter(kind = "condition")["at_s"]))
`), 0o644)
	code, _, stderr = starbench(t, "run", cond, "--target", "local", "--out", filepath.Join(dir, "out2"), "--no-progress")
	if code != 0 {
		t.Fatalf("a condition on a measured run: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"moving\n", "hit r total at ", "p99 nan", "condition at ["} {
		if !strings.Contains(stderr, want) {
			t.Errorf("no %q in:\n%s", want, stderr)
		}
	}

	// Events' times count from the end of the measured job's ramp, as its
	// samples do; a second workload's samples come after its own ramp.
	ramp := filepath.Join(dir, "ramp.star")
	os.WriteFile(ramp, []byte(`ws = fio.local_workers(2, size = "16m")
job = fio.job(name = "r", rw = "randread", bs = "4k", runtime = "3s", ramp_time = "2s", time_based = True)
bg = fio.job(name = "bg", rw = "randread", bs = "4k", runtime = "2s", ramp_time = "1s", time_based = True)
r = events.run(ws[:1], job, [events.at("1s", events.workload(ws[1:], bg))], interval = "1s")
start = list(r.events.filter(kind = "workload_start")["at_s"])[0]
first = min(list(r.samples.filter(job = "bg")["t_s"]))
main = sorted(list(r.samples.filter(job = "r")["t_s"]))
print("bg started at %g s, its first sample at %g s; the measured job's samples at %s" % (start, first, main))
if start < 1 or start > 2:
    fail("bg started at %g s into the measurement, want 1 s after the ramp" % start)
if first < start + 1.5:
    fail("bg's first sample at %g s: want it a ramp (1 s) and an interval after its start (%g s)" % (first, start))
if main[0] < 0.5 or main[-1] > 4:
    fail("the measured job's samples at %s: want its 3 s after the ramp" % main)
`), 0o644)
	if code, _, stderr = starbench(t, "run", ramp, "--target", "local", "--out", filepath.Join(dir, "out3"), "--no-progress"); code != 0 {
		t.Fatalf("a measured run with ramps: exit %d\n%s", code, stderr)
	}
}

// TestDiskFailureDipsAndRebuilds fails a device inside events.run on the
// embedded default (without the model's noise, so the intervals compare
// exactly): a removed device leaves its components absent and is rebuilt
// once the 60-minute repair timer runs out; a device error leaves them
// degraded and the rebuild starts at once, deepening the dip of the
// failure's interval. What the script did not set back is set back when
// the measurement ends.
func TestDiskFailureDipsAndRebuilds(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "disk.star")
	os.WriteFile(script, []byte(`
ws = vsphere.deploy_workers("d", per_host = 2, disks = 4, disk_size = "20GiB")
fio.prepare(ws, method = "random", bs = "256k")
host = ws[0].host
job = fio.job(name = "oltp", rw = "randrw", rwmixread = 70, bs = "8k", iodepth = 8, runtime = "70m",
              time_based = True, direct = True, ioengine = "libaio")

def iops_at(r, t):
    s = r.samples.filter(direction = "read")
    return {ts: x for ts, x in zip(list(s["t_s"]), list(s["iops"]))}[t]

dips = {}
for how, start in [("remove", 3900.0), ("error", 300.0)]:
    fail_ev = events.at("5m", lambda: cluster.fail_disk(host, how = how), name = "fail")
    r = events.run(ws, job, [fail_ev], interval = "60s")
    ev = r.events
    kinds, at, detail = list(ev["kind"]), list(ev["at_s"]), list(ev["detail"])
    if kinds != ["disk_failure", "resync_start", "resync_end"] or at[0] != 300:
        fail("%s: events %s at %s" % (how, kinds, at))
    if at[1] != start or not detail[1].startswith("rebuild of "):
        fail("%s: the rebuild starts at %g s (%s), want %g s" % (how, at[1], detail[1], start))
    before, failed, after = iops_at(r, 300.0), iops_at(r, 360.0), iops_at(r, 420.0)
    rebuilding = iops_at(r, start + 60)
    print("%s: %d IOPS before, %d in the failure's interval, %d after it, %d while rebuilding (%s, %g s to %g s)" % (
        how, before, failed, after, rebuilding, detail[1], at[1], at[2]))
    if failed > 0.95 * min(before, after):
        fail("%s: no dip in the failure's interval" % how)
    if rebuilding >= 0.99 * before:
        fail("%s: the rebuild costs the foreground nothing" % how)
    dips[how] = failed
    if [d.name for d in cluster.disks(host) if not d.in_use]:
        fail("%s: a device is still out after the measurement" % how)
if dips["error"] >= dips["remove"]:
    fail("a degraded device's rebuild at once does not deepen the failure's dip: %s" % dips)
`), 0o644)
	code, _, stderr := starbench(t, "run", script, "--out", filepath.Join(dir, "out"), "--no-progress", "--no-noise")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	t.Log(stderr)
	for _, want := range []string{"of host DC0_C0_H0 out (remove): set back", "remove: ", "error: "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("no %q in:\n%s", want, stderr)
		}
	}
}

func mean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}
