package builtins

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarktest"

	"starbench/internal/fio"
	"starbench/internal/runtime"
	"starbench/internal/store"
	"starbench/internal/target"
)

func newTestSession(t *testing.T, ctx context.Context) (*runtime.Session, *bytes.Buffer) {
	var out bytes.Buffer
	s := &runtime.Session{Ctx: ctx, Script: "test.star", OutDir: t.TempDir(), Target: "embedded",
		Stdout: &out, Stderr: &out, NoProgress: true}
	t.Cleanup(s.Close)
	return s, &out
}

func execStar(t *testing.T, s *runtime.Session, name, src string) error {
	t.Helper()
	return execStarPrinting(t, s, name, src, func(msg string) { t.Log(msg) })
}

// execStarPrinting is execStar with the script's print() (and what
// builtins print through it) going to print.
func execStarPrinting(t *testing.T, s *runtime.Session, name, src string, print func(string)) error {
	t.Helper()
	assert, err := starlarktest.LoadAssertModule()
	if err != nil {
		t.Fatal(err)
	}
	predeclared := runtime.Predeclared(Modules(Deps{}))
	predeclared["assert"] = assert["assert"]
	thread := &starlark.Thread{Name: name, Print: func(_ *starlark.Thread, msg string) { print(msg) }}
	starlarktest.SetReporter(thread, t)
	runtime.SetSession(thread, s)
	_, err = starlark.ExecFileOptions(runtime.ScriptOptions(), thread, name, src, predeclared)
	return err
}

func backtrace(err error) string {
	if e, ok := err.(*starlark.EvalError); ok {
		return e.Backtrace()
	}
	return err.Error()
}

func TestStoreCurrentReadsTheReportStore(t *testing.T) {
	s, _ := newTestSession(t, context.Background())
	err := execStar(t, s, "write.star", `
c = campaign.new("rep", factors = [campaign.factor("a", ["x", "y"], apply = lambda v: "x")],
    workloads = [campaign.workload("w", lambda: {"iops": 5})], repeat = 3)
c.run()
`)
	if err != nil {
		t.Fatal(backtrace(err))
	}
	report, _ := newTestSession(t, context.Background())
	report.Target, report.From = "none", filepath.Join(s.OutDir, "rep.db")
	err = execStar(t, report, "report.star", `
s = store.current()
assert.eq(s.campaign, "rep")
assert.eq(len(s.frame("results")), 6)
assert.eq(s.frame("stats")["n"], [3, 3])
`)
	if err != nil {
		t.Fatal(backtrace(err))
	}
}

func TestPlanModeTouchesNothing(t *testing.T) {
	s, out := newTestSession(t, context.Background())
	s.Plan = true
	err := execStar(t, s, "plan.star", `
def touch(v):
    fail("--plan touched", v)
c = campaign.new("p", factors = [
        campaign.factor("policy", ["raid1", "raid6"], apply = touch, cost = "resync"),
        campaign.factor("compression", [False, True], apply = touch, cost = 10)],
    workloads = [campaign.workload("w", lambda: touch("run"), duration = "2m")], repeat = 2)
c.run()
fail("the script went on after the plan")
`)
	if !errors.Is(err, runtime.ErrPlanPrinted) {
		t.Fatalf("want the script stopped with the plan printed, got %v", backtrace(err))
	}
	for _, want := range []string{"4 cells x 1 workloads x 2 repeats = 8 runs", "changes: policy 2, compression 3",
		"estimated duration on a real cluster: 1h16m30s (changes 1h0m30s, preparation 0s, runs 16m0s); simulated here on a virtual clock, in seconds"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(s.OutDir, "p.db")); !os.IsNotExist(err) {
		t.Errorf("--plan created the store (stat err %v)", err)
	}
}

// TestCtrlCRestoresAndResumes cancels the session in the middle of a run
// (as Ctrl-C does), checks the settings are back, then resumes.
func TestCtrlCRestoresAndResumes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s, _ := newTestSession(t, ctx)
	// The test's "Ctrl-C" is a builtin the workload calls on its 5th run.
	calls := 0
	src := `
cluster = {"compression": False, "uplink": "10g"}
def configure(**kw):
    prev = {k: cluster[k] for k in kw}
    cluster.update(kw)
    return prev
c = campaign.new("ctrlc", factors = [
        campaign.factor("compression", [True, False], apply = lambda v: configure(compression = v), cost = 10),
        campaign.factor("uplink", ["25g", "10g"], apply = lambda v: configure(uplink = v))],
    workloads = [campaign.workload("w", lambda: interrupt_on(5) or {"iops": 1})], repeat = 2)
def main():
    c.run()
main()
`
	predeclaredInterrupt := starlark.NewBuiltin("interrupt_on", func(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		var n int
		if err := starlark.UnpackArgs(b.Name(), args, kw, "n", &n); err != nil {
			return nil, err
		}
		calls++
		if calls == n {
			cancel()
			th.Cancel("interrupted") // as the CLI does on Ctrl-C
			return nil, context.Canceled
		}
		return starlark.None, nil
	})
	assert, _ := starlarktest.LoadAssertModule()
	predeclared := runtime.Predeclared(Modules(Deps{}))
	predeclared["assert"], predeclared["interrupt_on"] = assert["assert"], predeclaredInterrupt
	thread := &starlark.Thread{Name: "ctrlc"}
	runtime.SetSession(thread, s)
	globals, err := starlark.ExecFileOptions(runtime.ScriptOptions(), thread, "ctrlc.star", src, predeclared)
	if err == nil || !strings.Contains(err.Error(), "interrupted after 4 of 8 runs") {
		t.Fatalf("err = %v, want an interruption after 4 of 8 runs", err)
	}
	assertCluster(t, globals, "after the interruption")
	st, err := store.OpenReadOnly(context.Background(), filepath.Join(s.OutDir, "ctrlc.db"))
	if err != nil {
		t.Fatal(err)
	}
	done, _ := st.Done(context.Background())
	st.Close()
	if len(done) != 4 {
		t.Fatalf("%d runs stored, want 4", len(done))
	}
	resume, _ := newTestSession(t, context.Background())
	resume.OutDir = s.OutDir
	calls = -100 // never interrupt again
	thread = &starlark.Thread{Name: "resume"}
	runtime.SetSession(thread, resume)
	globals, err = starlark.ExecFileOptions(runtime.ScriptOptions(), thread, "ctrlc.star", src, predeclared)
	if err != nil {
		t.Fatal(backtrace(err))
	}
	assertCluster(t, globals, "after the resumed campaign")
	st, err = store.OpenReadOnly(context.Background(), filepath.Join(s.OutDir, "ctrlc.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if done, _ = st.Done(context.Background()); len(done) != 8 {
		t.Fatalf("%d runs stored after resuming, want 8", len(done))
	}
}

// assertCluster checks the script's cluster dict holds its original settings.
func assertCluster(t *testing.T, globals starlark.StringDict, when string) {
	t.Helper()
	cluster, ok := globals["cluster"].(*starlark.Dict)
	if !ok {
		t.Fatalf("%s: the script has no cluster dict", when)
	}
	if got := cluster.String(); got != `{"compression": False, "uplink": "10g"}` {
		t.Errorf("%s: cluster = %s, want the settings from before the campaign", when, got)
	}
}

// TestRunStatusReachesTheRunBar: a workload's progress samples (as fio.run
// passes them) show on the campaign's run bar, and nowhere once it is over.
func TestRunStatusReachesTheRunBar(t *testing.T) {
	s, out := newTestSession(t, context.Background())
	assert, _ := starlarktest.LoadAssertModule()
	predeclared := runtime.Predeclared(Modules(Deps{}))
	predeclared["assert"] = assert["assert"]
	predeclared["sample"] = starlark.NewBuiltin("sample", func(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		campaignRunStatus(th, fio.Status{Elapsed: 3, Total: 10, IOPS: 52100, MBps: 213})
		return starlark.None, nil
	})
	thread := &starlark.Thread{Name: "status"}
	runtime.SetSession(thread, s)
	_, err := starlark.ExecFileOptions(runtime.ScriptOptions(), thread, "status.star", `
c = campaign.new("status", factors = [campaign.factor("a", [1], apply = lambda v: v)],
    workloads = [campaign.workload("w", lambda: sample() or {"iops": 1})])
c.run()
sample()
`, predeclared)
	if err != nil {
		t.Fatal(backtrace(err))
	}
	if got := strings.Count(out.String(), "3s/10s 52.1k IOPS 213 MB/s"); got != 1 {
		t.Fatalf("the sample shows %d times, want once (during the campaign only):\n%s", got, out)
	}
}

// TestProvenanceRecordsScriptAndLoadedFiles runs a script that loads a
// library the way `starbench run` does and finds both files, hashed, in
// the store with the --set values.
func TestProvenanceRecordsScriptAndLoadedFiles(t *testing.T) {
	dir := t.TempDir()
	lib := "def measure():\n    return {\"iops\": 3}\n"
	main := `load("lib.star", "measure")
c = campaign.new("prov", factors = [campaign.factor("a", [1], apply = lambda v: v)],
    workloads = [campaign.workload("w", measure)])
c.run()
`
	os.WriteFile(filepath.Join(dir, "lib.star"), []byte(lib), 0o644)
	os.WriteFile(filepath.Join(dir, "main.star"), []byte(main), 0o644)
	s, _ := newTestSession(t, context.Background())
	s.Script, s.Set = filepath.Join(dir, "main.star"), map[string]string{"repeat": "3"}
	in := runtime.NewInterp(s, Modules(Deps{}), dir, runtime.ScriptOptions())
	if _, err := in.ExecFile(s.Script); err != nil {
		t.Fatal(backtrace(err))
	}
	st, err := store.OpenReadOnly(context.Background(), filepath.Join(s.OutDir, "prov.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	files, err := st.Frame(context.Background(), "files")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := store.HashFiles([]string{filepath.Join(dir, "main.star"), filepath.Join(dir, "lib.star")})
	paths, sums := files.Col("path").Records(), files.Col("sha256").Records()
	if len(paths) != 2 {
		t.Fatalf("files frame:\n%v", files)
	}
	for _, w := range want {
		i := slices.Index(paths, w.Path)
		if i < 0 || sums[i] != w.SHA256 {
			t.Errorf("%s not recorded with sha256 %s:\n%v", w.Path, w.SHA256, files)
		}
	}
	sessions, _ := st.Frame(context.Background(), "sessions")
	if got := sessions.Col("target").Records()[0]; got != "embedded" {
		t.Errorf("session target %q", got)
	}
	if got := sessions.Col("testbed").Records()[0]; got == "" {
		t.Error("session has no testbed")
	}
	sets, _ := st.Frame(context.Background(), "sets")
	if got := sets.Records(); len(got) != 2 || got[1][1] != "repeat" || got[1][2] != "3" {
		t.Errorf("sets frame %v", got)
	}
}

// TestOpenedTargetDecidesSimulated: a session whose opened target is a real
// vCenter (as vsphere.connect opens it) stores measured runs, whatever the
// session's default target was.
func TestOpenedTargetDecidesSimulated(t *testing.T) {
	s, _ := newTestSession(t, context.Background())
	runtime.Load(s, targetKey, func() (*target.Target, error) {
		return &target.Target{Kind: target.VCenter, Simulated: false}, nil
	})
	err := execStar(t, s, "measured.star", `
c = campaign.new("m", factors = [campaign.factor("a", [1], apply = lambda v: v)],
    workloads = [campaign.workload("w", lambda: {"iops": 1})])
assert.eq(c.run()["simulated"], [False])
assert.eq(store.open(c.store_path()).simulated, False)
`)
	if err != nil {
		t.Fatal(backtrace(err))
	}
}

// TestWorkersOfTheOtherKindAreRefusedBeforeAnyRun: a campaign on the
// embedded target (simulated results) given local workers (real fio) is
// refused before its first run, naming the target that would measure them;
// before, each run ran fio and then failed, and the store held only
// failures.
func TestWorkersOfTheOtherKindAreRefusedBeforeAnyRun(t *testing.T) {
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed (apt-get install -y fio)")
	}
	s, _ := newTestSession(t, context.Background())
	err := execStar(t, s, "kinds.star", `
w = fio.local_workers(1, size = "4m")
c = campaign.new("k", workloads = [campaign.workload("w", fio.job(rw = "read", bs = "4k", size = "1m"))], workers = w)
c.run()
`)
	if err == nil || !strings.Contains(err.Error(), "worker local-1 runs real fio, but this session's target (embedded) stores simulated results") ||
		!strings.Contains(err.Error(), "--target local") {
		t.Fatalf("local workers in a simulated session: %v", err)
	}
	if _, statErr := os.Stat(filepath.Join(s.OutDir, "k.db")); !os.IsNotExist(statErr) {
		t.Errorf("the refused campaign left a store: %v", statErr)
	}
}

// TestProvenanceRecordsTheClusterVersions: a campaign on an opened target
// records the vCenter's and the ESXi hosts' versions.
func TestProvenanceRecordsTheClusterVersions(t *testing.T) {
	s, _ := newTestSession(t, context.Background())
	err := execStar(t, s, "versions.star", `
vsphere.inventory()
c = campaign.new("versions", factors = [campaign.factor("a", [1], apply = lambda v: v)],
    workloads = [campaign.workload("w", lambda: {"iops": 1})])
c.run()
sessions = store.open(c.store_path()).frame("sessions")
assert.true("vCenter" in sessions["vcenter_version"][0], sessions["vcenter_version"])
assert.true(sessions["esxi_versions"][0].startswith("VMware ESXi"), sessions["esxi_versions"])
`)
	if err != nil {
		t.Fatal(backtrace(err))
	}
}

// TestOriginalOfADeadProcessReportedOnce: a setting only a killed process
// knew (a memo token) cannot be restored; the next run says so, and the run
// after it is not failed by it again.
func TestOriginalOfADeadProcessReportedOnce(t *testing.T) {
	s, _ := newTestSession(t, context.Background())
	st, err := store.Open(context.Background(), filepath.Join(s.OutDir, "memo.db"), "memo", store.Options{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SaveOriginal(context.Background(), "a", "memo:1:a"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	src := `
c = campaign.new("memo", factors = [campaign.factor("a", [1], apply = lambda v: v)],
    workloads = [campaign.workload("w", lambda: {"iops": 1})])
c.run()
`
	err = execStar(t, s, "memo.star", src)
	if err == nil || !strings.Contains(err.Error(), "known only to an earlier process that stopped; set it back by hand") {
		t.Fatalf("first run: err = %v, want the lost setting named", err)
	}
	if err := execStar(t, s, "memo.star", src); err != nil {
		t.Fatalf("second run: %v; the lost setting was reported already", backtrace(err))
	}
}
