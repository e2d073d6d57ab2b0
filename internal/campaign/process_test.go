package campaign

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"starbench/internal/store"
)

// The tests here run the real starbench binary on the embedded target and
// stop it the hard way (SIGKILL) and the polite way (SIGINT).

// processScript is a 2x2 campaign of 320 runs (so twelve kills, each a few
// runs apart, cannot outlast it even on a loaded machine) whose workloads are Starlark
// busy loops, so a signal lands in every phase: applying, running,
// committing, restoring. configure prints each change, like a cluster log.
const processScript = `
cluster = {"compression": False, "uplink": "10g"}

def configure(**kw):
    prev = {k: cluster[k] for k in kw}
    cluster.update(kw)
    print("set %s" % json.encode(kw))
    return prev

def work():
    x = 0
    for i in range(40000):
        x += i
    return {"iops": 1000.0 + x % 7}

c = campaign.new("proc",
    factors = [
        campaign.factor("compression", [True, False], apply = lambda v: configure(compression = v), cost = 10),
        campaign.factor("uplink", ["25g", "10g"], apply = lambda v: configure(uplink = v), cost = "cheap"),
    ],
    workloads = [campaign.workload("a", work), campaign.workload("b", work)],
    repeat = 40,
)
c.run()
`

const processRuns = 4 * 2 * 40

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
	stderr bytes.Buffer
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

// TestKill9AtRandomMomentsLosesNothing SIGKILLs the campaign at random
// moments, ten times, then lets it finish: every run is stored exactly once.
func TestKill9AtRandomMomentsLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the starbench binary")
	}
	bin, dir := buildStarbench(t), t.TempDir()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 5))
	midway := 0
	for trial := range 12 {
		before := storedCount(t, dir)
		p := startCampaign(t, bin, dir)
		if trial%4 == 0 {
			// Early: while starting, planning or applying the first cell.
			time.Sleep(time.Duration(rng.IntN(150)) * time.Millisecond)
		} else {
			// Later: a few runs in, then a random moment within a run.
			for target := before + 1 + rng.IntN(4); storedCount(t, dir) < target && !p.exited(); {
				time.Sleep(2 * time.Millisecond)
			}
			time.Sleep(time.Duration(rng.IntN(15000)) * time.Microsecond)
		}
		p.cmd.Process.Signal(syscall.SIGKILL)
		code := p.exitCode()
		after := storedCount(t, dir)
		t.Logf("trial %d: exit %d, runs stored %d -> %d", trial, code, before, after)
		if code != -1 {
			t.Fatalf("trial %d: exit code %d, want killed:\n%s", trial, code, p.stderr.String())
		}
		if after < before {
			t.Fatalf("trial %d: stored runs went from %d to %d", trial, before, after)
		}
		if after < processRuns {
			midway++
		}
	}
	if midway < 10 {
		t.Fatalf("only %d trials were killed before the campaign completed; want at least 10", midway)
	}
	for attempt := 0; storedCount(t, dir) < processRuns || attempt == 0; attempt++ {
		if attempt == 5 {
			t.Fatalf("campaign still incomplete after 5 restarts")
		}
		p := startCampaign(t, bin, dir)
		if code := p.exitCode(); code != 0 {
			t.Fatalf("restart: exit %d:\n%s", code, p.stderr.String())
		}
		checkRestored(t, p.stderr.String())
	}
	checkEveryRunOnce(t, dir)
	db, err := sql.Open("sqlite", "file:"+storePath(dir)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var killed int
	if err := db.QueryRow(`SELECT COUNT(*) FROM sessions WHERE status = 'killed'`).Scan(&killed); err != nil || killed < 5 {
		t.Fatalf("%d sessions say killed (%v), want one per kill after the session began (most of 12)", killed, err)
	}
}

// TestSIGINTStopsGracefullyRestoresAndResumes interrupts the campaign as
// Ctrl-C does: it stops after the run in flight, puts the settings back and
// says so; running it again completes the campaign.
func TestSIGINTStopsGracefullyRestoresAndResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the starbench binary")
	}
	bin, dir := buildStarbench(t), t.TempDir()
	p := startCampaign(t, bin, dir)
	for storedCount(t, dir) < 5 {
		if p.exited() {
			t.Fatalf("the campaign ended before it was interrupted (exit %d):\n%s", p.exitCode(), p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A second process on the same campaign is refused while the first runs.
	second := startCampaign(t, bin, dir)
	if code := second.exitCode(); code == 0 || !strings.Contains(second.stderr.String(), fmt.Sprintf("in use by another starbench process (held by pid %d)", p.cmd.Process.Pid)) {
		t.Errorf("second process: exit %d, want a refusal naming pid %d:\n%s", code, p.cmd.Process.Pid, second.stderr.String())
	}
	p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.exitCode(); code != 130 {
		t.Fatalf("exit code %d, want 130 (interrupted):\n%s", code, p.stderr.String())
	}
	out := p.stderr.String()
	n := storedCount(t, dir)
	if n >= processRuns {
		t.Fatalf("the campaign completed (%d runs) before the interrupt; the test proves nothing", n)
	}
	for _, want := range []string{"interrupted", "restored compression", "restored uplink"} {
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
	if !strings.Contains(p.stderr.String(), "stored") {
		t.Errorf("resume output:\n%s", p.stderr.String())
	}
	checkEveryRunOnce(t, dir)
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
