package runtime

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"go.starlark.net/starlark"
)

// The benchmarks measure what the runtime adds around go.starlark.net on a
// small script that loads a helper file: BenchmarkPlainStarlark is the
// baseline (bare ExecFileOptions with a minimal loader); compare the others
// to it in the same run.

var benchFiles = map[string]string{
	"main.star": `load("lib.star", "double")
repeat = args.get("repeat", 2)
plan = struct(name = "bench", sizes = ["4k", "64k"])
total = 0
for i in range(100):
    total += double(i) * repeat
`,
	"lib.star": "def double(n):\n    return n * 2\n",
}

func benchDir(b *testing.B) string {
	dir := b.TempDir()
	for name, src := range benchFiles {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkPlainStarlark: the baseline.
func BenchmarkPlainStarlark(b *testing.B) {
	dir := benchDir(b)
	predeclared := Predeclared(nil)
	main := filepath.Join(dir, "main.star")
	for b.Loop() {
		thread := &starlark.Thread{}
		SetSession(thread, &Session{})
		thread.Load = func(t *starlark.Thread, module string) (starlark.StringDict, error) {
			return starlark.ExecFileOptions(ScriptOptions(), t, filepath.Join(dir, module), nil, predeclared)
		}
		if _, err := starlark.ExecFileOptions(ScriptOptions(), thread, main, nil, predeclared); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInterpExecFile: a session's interpreter (predeclared modules,
// loader with cache and cycle detection, cancellation watcher).
func BenchmarkInterpExecFile(b *testing.B) {
	dir := benchDir(b)
	main := filepath.Join(dir, "main.star")
	for b.Loop() {
		s := &Session{Ctx: context.Background(), Stderr: io.Discard}
		if _, err := NewInterp(s, nil, dir, ScriptOptions()).ExecFile(main); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseScript: the static pass `run` makes before running
// (parse, resolve, loads followed, member and args scan).
func BenchmarkParseScript(b *testing.B) {
	dir := benchDir(b)
	main := filepath.Join(dir, "main.star")
	predeclared := Predeclared(nil)
	for b.Loop() {
		script, err := ParseScript(main, dir, ScriptOptions(), predeclared)
		if err != nil {
			b.Fatal(err)
		}
		if err := CheckSet(map[string]string{"repeat": "3"}, DeclaredArgs(script.Files)); err != nil {
			b.Fatal(err)
		}
	}
}
