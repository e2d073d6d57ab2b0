package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"starbench/internal/store"
)

// TestClosedOutputEndsTheRunCleanly: when whoever reads standard output
// goes away mid-campaign (`starbench run x.star | head`), the run stops
// like an interrupted one: what ran is stored, the session is recorded as
// interrupted, the report is written and no temporary file stays behind.
func TestClosedOutputEndsTheRunCleanly(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the embedded target's temporary files go here
	dir := t.TempDir()
	script := filepath.Join(dir, "piped.star")
	os.WriteFile(script, []byte(`
vsphere.inventory()  # opens the embedded target
calls = []
def measure():
    calls.append(1)
    if len(calls) > 1:
        frame.from_rows([{"run": len(calls)}]).show()  # the reader is gone by now
    return {"iops": 1000.0}
c = campaign.new("piped", factors = [campaign.factor("x", [1, 2, 3], lambda level: 0, restore = lambda old: None)],
    workloads = [campaign.workload("w", measure, duration = 1)])
c.run()
`), 0o644)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // `| head` that has already read what it wanted
	defer w.Close()
	var stderr bytes.Buffer
	out := filepath.Join(dir, "out")
	code := Run(&State{Args: []string{"run", script, "--out", out, "--no-progress"}, Stdin: strings.NewReader(""), Stdout: w, Stderr: &stderr})
	if code != ExitInterrupted || !strings.Contains(stderr.String(), "standard output was closed (broken pipe)") {
		t.Fatalf("exit %d, want %d naming the closed output; stderr:\n%s", code, ExitInterrupted, stderr.String())
	}
	db := filepath.Join(out, "piped.db")
	st, err := store.OpenReadOnly(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sessions, err := st.Frame(context.Background(), "sessions")
	if err != nil {
		t.Fatal(err)
	}
	if status := sessions.Col("status").Records(); len(status) != 1 || status[0] != store.SessionInterrupted {
		t.Errorf("sessions' status %v, want one %s", status, store.SessionInterrupted)
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Errorf("no report after the output closed: %v", err)
	}
	left, _ := os.ReadDir(tmp)
	for _, e := range left {
		t.Errorf("temporary file left behind: %s", e.Name())
	}
}
