package campaign

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"starbench/internal/fio"
	"starbench/internal/progress"
	"starbench/internal/store"
)

// cluster is an in-memory stand-in for the cluster's settings: the test is
// about the engine, not about vSphere.
type cluster struct {
	spec     *Spec
	settings map[string]string
	log      []string
	// cancelAt cancels the context when the run with this number starts.
	cancelAt int
	cancel   context.CancelFunc
	// failRuns fails the runs with these keys.
	failRuns map[store.RunKey]bool
	// iops returns a run's IOPS (100 when nil).
	iops func(store.RunKey) float64
	runs int
	// ranUnder records, per run, the settings the cluster had when it
	// started: what the run actually measured.
	ranUnder []ranUnder
}

// ranUnder is one run and the settings it ran under.
type ranUnder struct {
	key      store.RunKey
	settings map[string]string
}

func newCluster(s *Spec) *cluster {
	c := &cluster{spec: s, settings: map[string]string{}}
	for _, f := range s.Factors {
		c.settings[f.Name] = "original"
	}
	return c
}

func (c *cluster) Apply(ctx context.Context, f, level int) (string, error) {
	name := c.spec.Factors[f].Name
	prev := c.settings[name]
	c.settings[name] = c.spec.Factors[f].Levels[level]
	c.log = append(c.log, "apply "+name+"="+c.settings[name])
	return prev, nil
}

func (c *cluster) Restore(ctx context.Context, f int, token string) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	switch token {
	case "lost":
		return fmt.Errorf("%w: known only to a process that stopped", ErrUnrestorable)
	case "unreachable":
		return errors.New("vCenter does not answer")
	}
	c.settings[c.spec.Factors[f].Name] = token
	c.log = append(c.log, "restore "+c.spec.Factors[f].Name+"="+token)
	return nil
}

func (c *cluster) Prepare(ctx context.Context) error {
	c.log = append(c.log, "prepare")
	return nil
}

func (c *cluster) Warmup(ctx context.Context, w int) error { return nil }

func (c *cluster) Run(ctx context.Context, w int, k store.RunKey) (*fio.Result, error) {
	c.ranUnder = append(c.ranUnder, ranUnder{k, maps.Clone(c.settings)})
	c.runs++
	if c.runs == c.cancelAt {
		c.cancel()
		return nil, ctx.Err()
	}
	if c.failRuns[k] {
		return nil, errors.New("worker w2 stopped answering")
	}
	iops := 100.0
	if c.iops != nil {
		iops = c.iops(k)
	}
	return &fio.Result{Simulated: true, Aggregate: []fio.Row{{Direction: "read", IOPS: iops, Simulated: true}}}, nil
}

func (c *cluster) Metrics(ctx context.Context, start, end time.Time) ([]store.HostMetric, error) {
	return []store.HostMetric{{Host: "esx1", Metric: "cpu", At: start, Value: 1}}, nil
}

func execute(t *testing.T, ctx context.Context, path string, s *Spec, c Actions, opt store.Options, rerunFailed bool) (Summary, error, string) {
	t.Helper()
	st, err := store.Open(ctx, path, s.Name, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	plan, err := PlanFrom(ctx, s, st, rerunFailed)
	if err != nil {
		t.Fatal(err)
	}
	id, err := st.BeginSession(ctx, store.Provenance{Script: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	e := &Engine{Spec: s, Store: st, Actions: c, Progress: progress.New(&out, false), Session: id}
	sum, err := e.Execute(ctx, plan)
	return sum, err, out.String()
}

func storedRuns(t *testing.T, path string) map[store.RunKey]string {
	t.Helper()
	st, err := store.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	done, err := st.Done(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return done
}

// assertRanUnderTheirCells checks that every run c executed found the
// cluster set as its cell says, factor by factor, and that there were want
// runs.
func assertRanUnderTheirCells(t *testing.T, c *cluster, want int) {
	t.Helper()
	if len(c.ranUnder) != want {
		t.Errorf("%d runs executed, want %d", len(c.ranUnder), want)
	}
	for _, r := range c.ranUnder {
		cell := map[string]string{}
		for _, part := range strings.Fields(r.key.Cell) {
			f, l, _ := strings.Cut(part, "=")
			cell[f] = l
		}
		if !maps.Equal(cell, r.settings) {
			t.Errorf("run %s ran under %v, want its cell's settings %v", r.key, r.settings, cell)
			return
		}
	}
}

func assertRestored(t *testing.T, c *cluster) {
	t.Helper()
	for name, v := range c.settings {
		if v != "original" {
			t.Errorf("%s left at %s, want it restored to original", name, v)
		}
	}
}

func TestExecuteStoresEveryRunAndRestores(t *testing.T) {
	s := matrix16()
	c := newCluster(s)
	path := filepath.Join(t.TempDir(), "wwt.db")
	sum, err, out := execute(t, context.Background(), path, s, c, store.Options{Simulated: true}, false)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 64 || !sum.Complete || sum.Failed != 0 {
		t.Fatalf("summary %+v", sum)
	}
	if done := storedRuns(t, path); len(done) != 64 {
		t.Fatalf("%d runs stored, want 64", len(done))
	}
	assertRanUnderTheirCells(t, c, 64)
	assertRestored(t, c)
	if n := strings.Count(strings.Join(c.log, "\n"), "prepare"); n != 2 {
		t.Errorf("%d preparations, want 2", n)
	}
	if !strings.Contains(out, "run 64/64 ok") {
		t.Errorf("progress lacks the last run:\n%s", out)
	}
	// Running again does nothing but restore nothing either.
	c.log = nil
	sum, err, _ = execute(t, context.Background(), path, s, c, store.Options{Simulated: true}, false)
	if err != nil || sum.Ran != 0 || !sum.Complete || len(c.log) != 0 {
		t.Fatalf("second execution: %+v %v log=%v", sum, err, c.log)
	}
}

func TestInterruptRestoresAndResumeCompletes(t *testing.T) {
	s := matrix16()
	path := filepath.Join(t.TempDir(), "wwt.db")
	c := newCluster(s)
	ctx, cancel := context.WithCancel(context.Background())
	c.cancelAt, c.cancel = 23, cancel
	_, err, _ := execute(t, ctx, path, s, c, store.Options{Simulated: true}, false)
	if !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "after 22 of 64 runs") {
		t.Fatalf("err = %v, want an interruption after 22 of 64 runs", err)
	}
	assertRestored(t, c)
	if done := storedRuns(t, path); len(done) != 22 {
		t.Fatalf("%d runs stored, want 22 (the interrupted one is not stored)", len(done))
	}
	assertRanUnderTheirCells(t, c, 23)
	// The next process starts from the cluster as the interruption left it
	// (restored), in the middle of a cell.
	c2 := newCluster(s)
	sum, err, _ := execute(t, context.Background(), path, s, c2, store.Options{Simulated: true}, false)
	if err != nil || sum.Ran != 42 || !sum.Complete {
		t.Fatalf("resume: %+v %v", sum, err)
	}
	assertRanUnderTheirCells(t, c2, 42)
	assertRestored(t, c2)
}

// TestCrashedSettingsRestoredByNextProcess: a killed process cannot restore;
// the next one must restore to what the first found, not what it finds.
func TestCrashedSettingsRestoredByNextProcess(t *testing.T) {
	s := matrix16()
	path := filepath.Join(t.TempDir(), "wwt.db")
	st, err := store.Open(context.Background(), path, s.Name, store.Options{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	st.SaveOriginal(context.Background(), "policy", "original")
	st.Close()
	c := newCluster(s)
	c.settings["policy"] = "raid6" // where the crashed process left it
	if _, err, _ := execute(t, context.Background(), path, s, c, store.Options{Simulated: true}, false); err != nil {
		t.Fatal(err)
	}
	assertRanUnderTheirCells(t, c, 64)
	assertRestored(t, c)
}

// killedCluster is a cluster whose process dies at a run: the run is not
// stored and nothing is restored (the settings stay where the process left
// them), as after SIGKILL.
type killedCluster struct{ *cluster }

func (k killedCluster) Restore(ctx context.Context, f int, token string) error {
	return errors.New("the process was killed")
}

// TestResumeAfterKillRunsEveryCellUnderItsSettings: a process killed in the
// middle of a cell leaves the cluster as that cell set it; the next one
// finds it so, completes every cell under its own settings (not only the
// factors that differ from the cell before the first one it runs), and
// restores what the first process found.
func TestResumeAfterKillRunsEveryCellUnderItsSettings(t *testing.T) {
	s := matrix16()
	path := filepath.Join(t.TempDir(), "wwt.db")
	for _, killAt := range []int{3, 11, 30} { // mid cell 1, mid cell 3 (after a policy change), mid cell 8
		c := newCluster(s)
		ctx, cancel := context.WithCancel(context.Background())
		c.cancelAt, c.cancel = killAt, cancel
		execute(t, ctx, path, s, killedCluster{c}, store.Options{Simulated: true, Fresh: true}, false)
		left := maps.Clone(c.settings)
		next := newCluster(s)
		next.settings = left
		sum, err, _ := execute(t, context.Background(), path, s, next, store.Options{Simulated: true}, false)
		if err != nil || !sum.Complete || sum.Ran != 64-(killAt-1) {
			t.Fatalf("kill at run %d, then resume: %+v %v", killAt, sum, err)
		}
		assertRanUnderTheirCells(t, next, 64-(killAt-1))
		assertRestored(t, next)
	}
}

func TestFailedRunsKeptThenRerun(t *testing.T) {
	s := matrix16()
	path := filepath.Join(t.TempDir(), "wwt.db")
	c := newCluster(s)
	bad := store.RunKey{Cell: s.Label(Order(s)[3]), Workload: "64k", Repeat: 1}
	c.failRuns = map[store.RunKey]bool{bad: true}
	sum, err, out := execute(t, context.Background(), path, s, c, store.Options{Simulated: true}, false)
	if err != nil || sum.Failed != 1 || sum.Ran != 64 || !sum.Complete {
		t.Fatalf("%+v %v", sum, err)
	}
	if !strings.Contains(out, "failed: worker w2 stopped answering") {
		t.Errorf("progress does not name the failure:\n%s", out)
	}
	c.failRuns = nil
	sum, _, _ = execute(t, context.Background(), path, s, c, store.Options{Simulated: true}, false)
	if sum.Ran != 0 {
		t.Fatalf("without --rerun-failed %d runs ran, want 0", sum.Ran)
	}
	c.ranUnder = nil
	sum, err, out = execute(t, context.Background(), path, s, c, store.Options{Simulated: true}, true)
	if err != nil || sum.Ran != 1 || sum.Failed != 0 {
		t.Fatalf("rerun-failed: %+v %v", sum, err)
	}
	// The run again counts as the last of the 64, not the 65th.
	if !strings.Contains(out, "63 of 64 runs stored, 1 to run") || !strings.Contains(out, "run 64/64 ok") {
		t.Errorf("rerun-failed's progress does not count the failed run as the one to do:\n%s", out)
	}
	assertRanUnderTheirCells(t, c, 1)
	if done := storedRuns(t, path); done[bad] != store.StatusOK || len(done) != 64 {
		t.Fatalf("after rerun: %s is %q, %d runs", bad, done[bad], len(done))
	}
}

func TestHighCVFlaggedAndRerunOnce(t *testing.T) {
	s := matrix16()
	s.Factors = s.Factors[:2]
	s.CVThreshold, s.RerunHighCV, s.Repeat = 0.05, true, 3
	noisy := s.Label(Order(s)[1])
	c := newCluster(s)
	c.iops = func(k store.RunKey) float64 {
		if k.Cell == noisy && k.Workload == "4k" {
			return []float64{100, 150, 80, 120, 90, 110}[k.Repeat-1]
		}
		return 1000 + float64(k.Repeat) // CV about 0.1%
	}
	path := filepath.Join(t.TempDir(), "wwt.db")
	sum, err, out := execute(t, context.Background(), path, s, c, store.Options{Simulated: true}, false)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 4*2*3+3 {
		t.Fatalf("%d runs, want 27 (24 + 3 extra repeats of the noisy one)", sum.Ran)
	}
	if len(sum.Flagged) != 1 || sum.Flagged[0].Cell != noisy || sum.Flagged[0].N != 6 {
		t.Fatalf("flagged %+v", sum.Flagged)
	}
	// The six repeats' sample CV, worked out here: mean 108.33, standard
	// deviation sqrt(3083.33 / 5) = 24.83, CV 22.9 %.
	vals := []float64{100, 150, 80, 120, 90, 110}
	mean, ss := 0.0, 0.0
	for _, v := range vals {
		mean += v / 6
	}
	for _, v := range vals {
		ss += (v - mean) * (v - mean)
	}
	flag := fmt.Sprintf("varies: %s / 4k read: IOPS CV %.1f%% over 6 repeats (threshold 5.0%%)", noisy, 100*math.Sqrt(ss/5)/mean)
	if !strings.Contains(out, flag) || !strings.Contains(out, "IOPS CV 22.9%") {
		t.Errorf("no %q event:\n%s", flag, out)
	}
	if !strings.Contains(out, "27 runs done now (0 failed), 27 of 27 stored; 1 cell workloads vary above CV 0.05") {
		t.Errorf("the end does not count the flagged cell workload:\n%s", out)
	}
	if !strings.Contains(out, "varies above CV 0.05; 3 more repeats") {
		t.Errorf("no re-run event:\n%s", out)
	}
	if !strings.Contains(out, "run 27/27 ok") {
		t.Errorf("the extra repeats are not counted in the campaign's runs:\n%s", out)
	}
	// A restart neither repeats the extra runs nor misses them.
	sum, err, _ = execute(t, context.Background(), path, s, c, store.Options{Simulated: true}, false)
	if err != nil || sum.Ran != 0 || !sum.Complete {
		t.Fatalf("restart: %+v %v", sum, err)
	}
}

func TestStatsMeanStdCV(t *testing.T) {
	var aggs []store.Aggregate
	for i, v := range []float64{90, 100, 110} {
		a := store.Aggregate{RunKey: store.RunKey{Cell: "x", Workload: "4k", Repeat: i + 1}}
		a.Direction, a.IOPS = "read", v
		aggs = append(aggs, a)
	}
	st := Stats(aggs, 0.05)
	if len(st) != 1 || st[0].MeanIOPS != 100 || st[0].StdIOPS != 10 || st[0].CV != 0.1 || !st[0].Flagged {
		t.Fatalf("stats %+v", st)
	}
	if st := Stats(aggs, 0.2); st[0].Flagged {
		t.Fatal("flagged under a 0.2 threshold")
	}
	f := StatsFrame(st, nil)
	if f.Nrow() != 1 || f.Col("iops_cv").Float()[0] != 0.1 {
		t.Fatalf("frame:\n%v", f)
	}
}

func TestValidateSaysWhatIsWrong(t *testing.T) {
	for _, tc := range []struct {
		mut  func(*Spec)
		want string
	}{
		{func(s *Spec) { s.Workloads = nil }, "no workloads"},
		{func(s *Spec) { s.Repeat = 0 }, "want 1 or more"},
		{func(s *Spec) { s.Factors[1].Name = "compression" }, "declared twice"},
		{func(s *Spec) { s.Factors[0].Name = "iops" }, "column of the result frames"},
		{func(s *Spec) { s.Factors[0].Levels = []string{"a", "a"} }, "lists level a twice"},
		{func(s *Spec) { s.Factors[0].Levels = nil }, "has no levels"},
	} {
		s := matrix16()
		tc.mut(s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
	}
}

func TestPlanWriteShowsOrderChangesAndEstimate(t *testing.T) {
	var b bytes.Buffer
	plan := NewPlan(matrix16(), nil, false, nil)
	plan.Write(&b)
	out := b.String()
	for _, want := range []string{"16 cells x 2 workloads x 2 repeats = 64 runs", "policy raid1 -> raid6", "prepare disks",
		"changes: policy 2, rdma 3, compression 5, uplink 9", "estimated duration on this target: 2h28m35s"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	// On the embedded default the estimate is a real cluster's, and says so.
	b.Reset()
	plan.Simulated = true
	plan.Write(&b)
	if want := "estimated duration on a real cluster: 2h28m35s"; !strings.Contains(b.String(), want) || !strings.Contains(b.String(), "simulated here on a virtual clock") {
		t.Errorf("a simulated plan lacks %q and what it takes here:\n%s", want, b.String())
	}
}

// sessionStatus reads the status the store records for its last session.
func sessionStatus(t *testing.T, path string) string {
	t.Helper()
	st, err := store.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	f, err := st.Frame(context.Background(), "sessions")
	if err != nil {
		t.Fatal(err)
	}
	status := f.Col("status").Records()
	return status[len(status)-1]
}

// TestCancelledBeforeTheFirstRunEndsTheSession: a Ctrl-C before the cells are
// saved still ends the session as interrupted (not left "running" for the
// next process to call killed) and says so.
func TestCancelledBeforeTheFirstRunEndsTheSession(t *testing.T) {
	s := matrix16()
	path := filepath.Join(t.TempDir(), "wwt.db")
	st, err := store.Open(context.Background(), path, s.Name, store.Options{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	plan, err := PlanFrom(context.Background(), s, st, false)
	if err != nil {
		t.Fatal(err)
	}
	id, err := st.BeginSession(context.Background(), store.Provenance{Script: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	e := &Engine{Spec: s, Store: st, Actions: newCluster(s), Progress: progress.New(&out, false), Session: id}
	if _, err := e.Execute(ctx, plan); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v, want an interruption", err)
	}
	if got := sessionStatus(t, path); got != store.SessionInterrupted {
		t.Errorf("session status %q, want %q", got, store.SessionInterrupted)
	}
	if !strings.Contains(out.String(), "campaign wwt interrupted") {
		t.Errorf("progress does not say the campaign stopped:\n%s", out.String())
	}
}

// closingCluster loses its store at the first change, so recording the
// original setting fails.
type closingCluster struct {
	*cluster
	st *store.Store
}

func (c closingCluster) Apply(ctx context.Context, f, level int) (string, error) {
	c.st.Close()
	return c.cluster.Apply(ctx, f, level)
}

// TestStoreErrorStopsTheProgress: a store that fails mid-campaign stops the
// progress display with the reason (on a terminal its ticker would run on).
func TestStoreErrorStopsTheProgress(t *testing.T) {
	s := matrix16()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "wwt.db"), s.Name, store.Options{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	plan, err := PlanFrom(context.Background(), s, st, false)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	e := &Engine{Spec: s, Store: st, Actions: closingCluster{newCluster(s), st}, Progress: progress.New(&out, false)}
	if _, err := e.Execute(context.Background(), plan); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("err = %v, want the closed store's error", err)
	}
	if !strings.Contains(out.String(), "campaign wwt stopped: sql: database is closed") {
		t.Errorf("progress not stopped with the reason:\n%s", out.String())
	}
}

// TestUnrestorableOriginalsReportedOnce: an original no process can restore
// (or of a factor the campaign dropped) fails the run that finds it, once,
// and is forgotten; one that failed for a passing reason is kept and retried.
func TestUnrestorableOriginalsReportedOnce(t *testing.T) {
	s := matrix16()
	path := filepath.Join(t.TempDir(), "wwt.db")
	st, err := store.Open(context.Background(), path, s.Name, store.Options{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	for factor, token := range map[string]string{"policy": "lost", "rdma": "unreachable", "dedup": "level:1"} {
		if err := st.SaveOriginal(context.Background(), factor, token); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	c := newCluster(s)
	_, err, _ = execute(t, context.Background(), path, s, c, store.Options{Simulated: true}, false)
	for _, want := range []string{"restoring policy: no process can restore this setting", "restoring rdma: vCenter does not answer",
		"restoring dedup: no process can restore this setting: campaign wwt declares no factor dedup any more; its setting from before the campaign (level:1) is not restored"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("first run: err = %v, want %q", err, want)
		}
	}
	_, err, _ = execute(t, context.Background(), path, s, c, store.Options{Simulated: true}, false)
	if err == nil || strings.Contains(err.Error(), "policy") || strings.Contains(err.Error(), "dedup") || !strings.Contains(err.Error(), "restoring rdma") {
		t.Errorf("second run: err = %v, want only rdma's restore retried", err)
	}
}

// TestNoFactorsRunsTheBaseline: a campaign with no factors is one cell, the
// cluster as it is, running every workload repeat times; nothing is changed
// or restored, and a restart resumes.
func TestNoFactorsRunsTheBaseline(t *testing.T) {
	s := matrix16()
	s.Factors = nil
	c := newCluster(s)
	path := filepath.Join(t.TempDir(), "base.db")
	var b bytes.Buffer
	NewPlan(s, nil, false, nil).Write(&b)
	if !strings.Contains(b.String(), "1 cells x 2 workloads x 2 repeats = 4 runs") || !strings.Contains(b.String(), "factors: none") {
		t.Errorf("plan:\n%s", b.String())
	}
	sum, err, _ := execute(t, context.Background(), path, s, c, store.Options{Simulated: true}, false)
	if err != nil || sum.Ran != 4 || !sum.Complete {
		t.Fatalf("%+v %v", sum, err)
	}
	if got := strings.Join(c.log, ","); got != "prepare" {
		t.Errorf("cluster log %q, want only the preparation", got)
	}
	done := storedRuns(t, path)
	if len(done) != 4 || done[store.RunKey{Cell: BaselineLabel, Workload: "64k", Repeat: 1}] != store.StatusOK {
		t.Fatalf("stored %v", done)
	}
	if sum, err, _ = execute(t, context.Background(), path, s, c, store.Options{Simulated: true}, false); err != nil || sum.Ran != 0 {
		t.Fatalf("restart: %+v %v", sum, err)
	}
}
