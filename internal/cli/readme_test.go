package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeMainJob runs the README's main command in process, so the
// README cannot point a newcomer at a job that fails.
func TestReadmeMainJob(t *testing.T) {
	inRepoRoot(t)
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?m)^go run ./cmd/starbench (run [^#\n]+?)\\s+# the main job").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no `go run ./cmd/starbench run ...   # the main job` line")
	}
	out := t.TempDir()
	args := append(strings.Fields(string(m[1])), "--out", out, "--no-progress")
	r := runCLI(t, "", nil, args...)
	if r.code != ExitOK {
		t.Fatalf("%v: exit %d\nstderr:\n%s", args, r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Errorf("the main job wrote no report: %v", err)
	}
}
