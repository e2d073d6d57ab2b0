package builtins

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarktest"

	"starbench/internal/runtime"
)

// TestFrameAndPlotScripts runs builtins/testdata/frame*.star and plot*.star:
// chunks separated by "---" lines, each run on its own; a chunk with a
// `### "regex"` comment must fail with an error matching regex, any other
// chunk must succeed.
func TestFrameAndPlotScripts(t *testing.T) {
	var files []string
	for _, pattern := range []string{"frame*.star", "plot*.star"} {
		m, _ := filepath.Glob(filepath.Join("testdata", pattern))
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no frame or plot scripts in testdata")
	}
	assert, err := starlarktest.LoadAssertModule()
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`### "(.*)"`)
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, chunk := range strings.Split(string(src), "\n---\n") {
			t.Run(filepath.Base(file)+"#"+string(rune('0'+i/10))+string(rune('0'+i%10)), func(t *testing.T) {
				predeclared := starlark.StringDict{"assert": assert["assert"]}
				for _, m := range []*runtime.Module{NewFrameModule(Deps{}), NewPlotModule(Deps{})} {
					predeclared[m.Name] = m.Struct()
				}
				s := &runtime.Session{Ctx: context.Background(), Script: file, OutDir: t.TempDir(), Stdout: os.Stdout, Stderr: os.Stderr}
				thread := &starlark.Thread{Name: file, Print: func(_ *starlark.Thread, msg string) { t.Log(msg) }}
				runtime.SetSession(thread, s)
				starlarktest.SetReporter(thread, t)
				// Blank out earlier chunks so error positions keep their line numbers.
				prefix := strings.Repeat("\n", strings.Count(strings.Join(strings.Split(string(src), "\n---\n")[:i], "\n---\n"), "\n")+boolInt(i > 0))
				_, err := starlark.ExecFileOptions(runtime.ScriptOptions(), thread, file, prefix+chunk, predeclared)
				m := want.FindStringSubmatch(chunk)
				switch {
				case m == nil && err != nil:
					t.Fatalf("unexpected error: %s", errText(err))
				case m != nil && err == nil:
					t.Fatalf("want an error matching %q, got none", m[1])
				case m != nil && !regexp.MustCompile(m[1]).MatchString(errText(err)):
					t.Fatalf("error %q does not match %q", errText(err), m[1])
				}
			})
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func errText(err error) string {
	if e, ok := err.(*starlark.EvalError); ok {
		return e.Backtrace()
	}
	return err.Error()
}
