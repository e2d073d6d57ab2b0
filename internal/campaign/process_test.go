package campaign

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"starbench/internal/gatetest"
	"starbench/internal/store"
	"starbench/internal/syncbuf"
)

// The tests here run the real starbench binary on the embedded target and
// stop it the hard way (SIGKILL) and the polite way (SIGINT).

// processScript is a 2x2 campaign of 40 runs. Each run reads the settings
// it executes under at its start and stores them (compression as p50_us 1
// or 0, the uplink's speed as p95_us), then, when gate is set, waits at its
// gate (the named pipe GATE/N for the process's N-th run, which the test
// writes to) before finishing: the test decides how far each process gets,
// whatever the machine's speed. configure prints
// each change, like a cluster log. Each process starts with the cluster at
// its original settings (compression off, 10g), as a cluster another
// process put back, or one whose state the new process cannot know.
const processScript = `
gate = args.get("gate", "")
started = [0]
cluster = {"compression": False, "uplink": "10g"}

def configure(**kw):
    prev = {k: cluster[k] for k in kw}
    cluster.update(kw)
    print("set %s" % json.encode(kw))
    return prev

def work():
    compression, uplink = cluster["compression"], cluster["uplink"]
    started[0] += 1
    if gate:
        frame.read_csv("%s/%d" % (gate, started[0]))
    x = 0
    for i in range(4000):
        x += i
    return {"iops": 1000.0 + x % 7, "p50_us": 1.0 if compression else 0.0, "p95_us": 25.0 if uplink == "25g" else 10.0}

c = campaign.new("proc",
    factors = [
        campaign.factor("compression", [True, False], apply = lambda v: configure(compression = v), cost = 10),
        campaign.factor("uplink", ["25g", "10g"], apply = lambda v: configure(uplink = v), cost = "cheap"),
    ],
    workloads = [campaign.workload("a", work), campaign.workload("b", work)],
    repeat = 5,
)
c.run()
`

const processRuns = 4 * 2 * 5

var (
	buildOnce sync.Once
	binDir    string
	binErr    error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// buildStarbench builds the binary once per test binary run.
func buildStarbench(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "starbench-bin"); binErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, "starbench"), "starbench/cmd/starbench").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("building starbench: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, "starbench")
}

type proc struct {
	cmd    *exec.Cmd
	stderr syncbuf.Buffer
	done   chan struct{} // closed when the process has exited
	code   int
}

func startCampaign(t *testing.T, bin, dir string, args ...string) *proc {
	t.Helper()
	script := filepath.Join(dir, "proc.star")
	if err := os.WriteFile(script, []byte(processScript), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &proc{}
	p.cmd = exec.Command(bin, append([]string{"run", script, "--out", filepath.Join(dir, "out"), "--no-progress"}, args...)...)
	p.cmd.Stdout, p.cmd.Stderr = &p.stderr, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.done = make(chan struct{})
	go func() {
		err := p.cmd.Wait()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			p.code = exit.ExitCode()
		case err != nil:
			p.code = -2
		}
		close(p.done)
	}()
	return p
}

// waitFor waits until p has written want to its standard error (or ended).
func (p *proc) waitFor(t *testing.T, want string) {
	t.Helper()
	for !strings.Contains(p.stderr.String(), want) {
		if p.exited() {
			t.Fatalf("the process ended before it wrote %q:\n%s", want, p.stderr.String())
		}
		time.Sleep(time.Millisecond)
	}
}

// exitCode waits for p and returns its exit code (-1 when killed by a signal).
func (p *proc) exitCode() int {
	<-p.done
	return p.code
}

// exited says whether p has exited.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func storePath(dir string) string { return filepath.Join(dir, "out", "proc.db") }

// storedCount reads how many runs the store holds (0 when it does not exist yet).
func storedCount(t *testing.T, dir string) int {
	t.Helper()
	st, err := store.OpenReadOnly(context.Background(), storePath(dir))
	if err != nil {
		return 0
	}
	defer st.Close()
	done, err := st.Done(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return len(done)
}

// checkEveryRunOnce opens the store with plain SQL: every planned run is
// there exactly once and succeeded, and the file is intact.
func checkEveryRunOnce(t *testing.T, dir string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+storePath(dir)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check = %q (%v)", check, err)
	}
	var runs, distinct, ok, aggregates int
	err = db.QueryRow(`SELECT COUNT(*), COUNT(DISTINCT cell_id || '/' || workload || '/' || repeat),
		SUM(status = 'ok'), (SELECT COUNT(*) FROM rows WHERE aggregate) FROM runs`).Scan(&runs, &distinct, &ok, &aggregates)
	if err != nil {
		t.Fatal(err)
	}
	if runs != processRuns || distinct != processRuns || ok != processRuns || aggregates != processRuns {
		t.Fatalf("store holds %d runs (%d distinct, %d ok, %d aggregate rows), want %d of each", runs, distinct, ok, aggregates, processRuns)
	}
	var completed sql.NullString
	if err := db.QueryRow(`SELECT completed_at FROM campaign`).Scan(&completed); err != nil || !completed.Valid {
		t.Fatalf("campaign not marked completed (%v)", err)
	}
	var running int
	if err := db.QueryRow(`SELECT COUNT(*) FROM sessions WHERE status = 'running'`).Scan(&running); err != nil || running != 0 {
		t.Fatalf("%d sessions still say running (%v); dead ones must say killed", running, err)
	}
}

// testSeed is the seed of a test's random choices: fixed, so a failure
// repeats, unless STARBENCH_TEST_SEED gives another; printed either way.
func testSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(20261203)
	if v := os.Getenv("STARBENCH_TEST_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("STARBENCH_TEST_SEED=%q: want an unsigned integer", v)
		}
		seed = n
	}
	t.Logf("seed %d (STARBENCH_TEST_SEED=%d repeats this run)", seed, seed)
	return seed
}

// gate makes the gate of one process: pipes for its first n runs.
func gate(t *testing.T, n int) *gatetest.Gate { return gatetest.New(t, n) }

// reach waits until p's next run waits at g (see gatetest.Gate.Reach).
func reach(t *testing.T, g *gatetest.Gate, p *proc) *os.File {
	t.Helper()
	return g.Reach(t, p.exited, p.stderr.String)
}

// release lets p's next n runs pass g.
func release(t *testing.T, g *gatetest.Gate, p *proc, n int) {
	t.Helper()
	g.Release(t, n, p.exited, p.stderr.String)
}

// checkRanUnderTheirCells checks, for every stored run, that the settings
// it read at its start are its cell's levels.
func checkRanUnderTheirCells(t *testing.T, dir string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+storePath(dir)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT c.label, r.workload, r.repeat, w.p50_us, w.p95_us FROM rows w
		JOIN runs r ON r.id = w.run_id JOIN cells c ON c.id = r.cell_id WHERE w.aggregate`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var label, workload string
		var repeat int
		var compression, uplink float64
		if err := rows.Scan(&label, &workload, &repeat, &compression, &uplink); err != nil {
			t.Fatal(err)
		}
		ran := fmt.Sprintf("compression=%s uplink=%.0fg", map[bool]string{true: "True", false: "False"}[compression == 1], uplink)
		if ran != label {
			t.Errorf("run %s / %s #%d ran under %s", label, workload, repeat, ran)
		}
		n++
	}
	if n == 0 {
		t.Error("no runs stored to check")
	}
}

// TestKill9AtRandomMomentsLosesNothing SIGKILLs the campaign twelve times
// at moments chosen by a seeded generator (while it starts, plans or
// applies the first cell; with a run in flight; right after a run
// completes), then lets it finish: every run is stored exactly once, each
// under its cell's settings, and the settings are put back.
func TestKill9AtRandomMomentsLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the starbench binary")
	}
	bin, dir := buildStarbench(t), t.TempDir()
	rng := rand.New(rand.NewPCG(testSeed(t), 5))
	for trial := range 12 {
		before := storedCount(t, dir)
		g := gate(t, 5)
		p := startCampaign(t, bin, dir, "--set", "gate="+g.Dir)
		var inFlight *os.File
		switch trial % 3 {
		case 0:
			// Early: whatever it is doing a moment after it starts; its
			// first run cannot pass the gate.
			time.Sleep(time.Duration(rng.IntN(150)) * time.Millisecond)
		case 1:
			// A run in flight, after a few that completed.
			release(t, g, p, rng.IntN(3))
			inFlight = reach(t, g, p)
		case 2:
			// Right after runs complete: committing, or starting the next.
			release(t, g, p, 1+rng.IntN(3))
		}
		p.cmd.Process.Signal(syscall.SIGKILL)
		code := p.exitCode()
		if inFlight != nil {
			inFlight.Close()
		}
		after := storedCount(t, dir)
		t.Logf("trial %d: exit %d, runs stored %d -> %d", trial, code, before, after)
		if code != -1 {
			t.Fatalf("trial %d: exit code %d, want killed:\n%s", trial, code, p.stderr.String())
		}
		if after < before {
			t.Fatalf("trial %d: stored runs went from %d to %d", trial, before, after)
		}
	}
	// At most 3 runs pass the gate per trial: the campaign cannot be complete.
	if n := storedCount(t, dir); n >= processRuns {
		t.Fatalf("%d runs stored after the kills; the gate let through more than it may", n)
	}
	p := startCampaign(t, bin, dir)
	if code := p.exitCode(); code != 0 {
		t.Fatalf("restart: exit %d:\n%s", code, p.stderr.String())
	}
	checkRestored(t, p.stderr.String())
	checkEveryRunOnce(t, dir)
	checkRanUnderTheirCells(t, dir)
	db, err := sql.Open("sqlite", "file:"+storePath(dir)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var killed int
	if err := db.QueryRow(`SELECT COUNT(*) FROM sessions WHERE status = 'killed'`).Scan(&killed); err != nil || killed < 8 {
		t.Fatalf("%d sessions say killed (%v), want at least the 8 killed with a run started", killed, err)
	}
}

// TestSIGINTStopsGracefullyRestoresAndResumes interrupts the campaign as
// Ctrl-C does with its 13th run (in the second cell) in flight: it stops
// after that run, puts
// the settings back and says so; running it again completes the campaign,
// every run once and under its cell's settings. (That the run in flight is
// not stored is TestInterruptRestoresAndResumeCompletes' business: here the
// run may complete before the process sees the signal.)
func TestSIGINTStopsGracefullyRestoresAndResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the starbench binary")
	}
	bin, dir := buildStarbench(t), t.TempDir()
	g := gate(t, 13)
	p := startCampaign(t, bin, dir, "--set", "gate="+g.Dir)
	release(t, g, p, 12)
	inFlight := reach(t, g, p)
	// A second process on the same campaign is refused while the first runs.
	second := startCampaign(t, bin, dir)
	if code := second.exitCode(); code == 0 || !strings.Contains(second.stderr.String(), fmt.Sprintf("in use by another starbench process (held by pid %d)", p.cmd.Process.Pid)) {
		t.Errorf("second process: exit %d, want a refusal naming pid %d:\n%s", code, p.cmd.Process.Pid, second.stderr.String())
	}
	p.cmd.Process.Signal(syscall.SIGINT)
	// The run finishes (it cannot see the interrupt while it waits at the
	// gate); whether it is stored depends on whether the campaign checks
	// for the interrupt before or after it commits. The gate opens only
	// once the process has taken the signal, or the next run could start
	// before it did.
	p.waitFor(t, "interrupt received")
	gatetest.Open(t, inFlight)
	if code := p.exitCode(); code != 130 {
		t.Fatalf("exit code %d, want 130 (interrupted):\n%s", code, p.stderr.String())
	}
	out := p.stderr.String()
	n := storedCount(t, dir)
	if n != 12 && n != 13 {
		t.Fatalf("%d runs stored, want the 12 that completed before the interrupt (and perhaps the one in flight)", n)
	}
	for _, want := range []string{fmt.Sprintf("campaign proc interrupted: %d runs done now", n), "restored compression", "restored uplink"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	checkRestored(t, out)
	db, err := sql.Open("sqlite", "file:"+storePath(dir)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var status string
	err = db.QueryRow(`SELECT status FROM sessions ORDER BY id DESC LIMIT 1`).Scan(&status)
	db.Close()
	if err != nil || status != store.SessionInterrupted {
		t.Fatalf("session status %q (%v), want interrupted", status, err)
	}
	p = startCampaign(t, bin, dir)
	if code := p.exitCode(); code != 0 {
		t.Fatalf("resume: exit %d:\n%s", code, p.stderr.String())
	}
	if !strings.Contains(p.stderr.String(), fmt.Sprintf("%d stored; %d to run", n, processRuns-n)) {
		t.Errorf("resume output:\n%s", p.stderr.String())
	}
	checkRestored(t, p.stderr.String())
	checkEveryRunOnce(t, dir)
	checkRanUnderTheirCells(t, dir)
}

// checkRestored checks from the script's log of changes that the last
// setting of each factor is the one from before the campaign.
func checkRestored(t *testing.T, out string) {
	t.Helper()
	last := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		for _, k := range []string{"compression", "uplink"} {
			if strings.HasPrefix(line, `set {"`+k+`":`) {
				last[k] = strings.TrimSuffix(strings.TrimPrefix(line, `set {"`+k+`":`), "}")
			}
		}
	}
	if last["compression"] != "false" || last["uplink"] != `"10g"` {
		t.Errorf("last settings %v, want compression false and uplink \"10g\" (restored):\n%s", last, out)
	}
}
