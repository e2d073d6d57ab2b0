package scripts_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// docsInOrder are the pages whose examples the tests run, in an order in
// which each page's shell examples find the stores the earlier ones wrote
// (README's compare reads compare.md's out/before and out/after).
var docsInOrder = []string{"docs/compare.md", "docs/model.md", "README.md", "docs/campaign.md", "docs/cluster.md",
	"docs/events.md", "docs/store.md", "docs/fio.md", "docs/speed.md", "docs/worker-image.md", "docs/ARCHITECTURE.md"}

// codeBlock is one fenced example of a page.
type codeBlock struct {
	page, lang, text string
	line             int
}

var fence = regexp.MustCompile("(?m)^```([a-z]*)\n")

func codeBlocks(t *testing.T, page string) []codeBlock {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	var out []codeBlock
	for {
		open := fence.FindStringSubmatchIndex(text)
		if open == nil {
			return out
		}
		body := text[open[1]:]
		end := strings.Index(body, "\n```")
		if end < 0 {
			t.Fatalf("%s: a code block is never closed", page)
		}
		line := strings.Count(string(b[:len(b)-len(text)+open[0]]), "\n") + 1
		out = append(out, codeBlock{page: page, lang: text[open[2]:open[3]], text: body[:end+1], line: line})
		text = body[end+4:]
	}
}

// inExampleDir runs the test in a temporary directory that has the
// repository's scripts (as the examples name them), so that whatever an
// example writes (out/...) lands there.
func inExampleDir(t *testing.T) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(root, "scripts"), filepath.Join(dir, "scripts")); err != nil {
		t.Fatal(err)
	}
	for _, page := range docsInOrder {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(page)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(root, page), filepath.Join(dir, page)); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
}

// skippedCommands are starbench commands the examples show that a test on
// the embedded default cannot run, and why.
var skippedCommands = map[string]string{
	"repl":   "interactive (its tests drive it through a pipe)",
	"sim":    "serves until Ctrl-C",
	"worker": "checks a worker template on a vCenter",
	"fit":    "fits to a campaign measured on a real cluster (internal/cli's tests fit to one the model made)",
}

// TestDocsExamplesRun runs every Starlark example of README.md and docs/
// as a script on the embedded default, and every starbench command of
// their shell examples, in order, from one temporary directory; each must
// succeed. Commands that need a vCenter (a block that sets GOVC_URL, or
// the commands in skippedCommands) and other programs (go, sqlite3) are
// listed in the log, not run.
func TestDocsExamplesRun(t *testing.T) {
	inExampleDir(t)
	starlark, commands := 0, 0
	for _, page := range docsInOrder {
		for i, blk := range codeBlocks(t, page) {
			where := page + ":" + itoa(blk.line)
			switch blk.lang {
			case "starlark":
				script := filepath.Join(t.TempDir(), "example.star")
				if err := os.WriteFile(script, []byte(blk.text), 0o644); err != nil {
					t.Fatal(err)
				}
				code, _, stderr := starbench(t, "run", script, "--out", filepath.Join("out", "examples", itoa(i)), "--no-progress")
				if code != 0 {
					t.Errorf("%s: the example exits %d:\n%s", where, code, stderr)
				}
				starlark++
			case "sh":
				if strings.Contains(blk.text, "GOVC_URL") {
					t.Logf("%s: not run: it drives a vCenter", where)
					continue
				}
				for _, line := range strings.Split(blk.text, "\n") {
					args, ok := starbenchArgs(line)
					if !ok {
						continue
					}
					if why, skip := skippedCommands[args[0]]; skip {
						t.Logf("%s: not run (%s): %s", where, why, line)
						continue
					}
					if strings.Contains(line, "--metrics-listen") {
						t.Logf("%s: not run (listens on a fixed port): %s", where, line)
						continue
					}
					code, stdout, stderr := starbench(t, args...)
					if code != 0 {
						t.Errorf("%s: %s exits %d:\n%s%s", where, line, code, stdout, stderr)
					}
					commands++
				}
			}
		}
	}
	t.Logf("ran %d Starlark examples and %d starbench commands", starlark, commands)
	if starlark == 0 || commands == 0 {
		t.Fatal("no examples found: are the code blocks still tagged starlark and sh?")
	}
}

// starbenchArgs reads a shell line running starbench (as starbench,
// ./starbench or go run ./cmd/starbench), without its comment.
func starbenchArgs(line string) ([]string, bool) {
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(line)
	for _, prefix := range [][]string{{"starbench"}, {"./starbench"}, {"go", "run", "./cmd/starbench"}} {
		if len(fields) > len(prefix) && strings.Join(fields[:len(prefix)], " ") == strings.Join(prefix, " ") {
			return fields[len(prefix):], true
		}
	}
	return nil, false
}

func itoa(n int) string { return strconv.Itoa(n) }
