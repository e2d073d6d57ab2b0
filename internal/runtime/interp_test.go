package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.starlark.net/starlark"
)

// writeFiles writes name -> content under a temp dir and returns the dir.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// run executes main.star under dir and returns stderr and the formatted error.
func run(t *testing.T, dir string, s *Session) (string, string) {
	t.Helper()
	var stderr bytes.Buffer
	if s == nil {
		s = &Session{}
	}
	if s.Ctx == nil {
		s.Ctx = context.Background()
	}
	s.Stdout, s.Stderr = &bytes.Buffer{}, &stderr
	main := filepath.Join(dir, "main.star")
	in := NewInterp(s, nil, dir, ScriptOptions())
	_, err := in.ExecFile(main)
	if err != nil {
		return stderr.String(), FormatError(err)
	}
	return stderr.String(), ""
}

func TestLoadRelativeRootAndCache(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.star":      "load('lib/a.star', 'a')\nload('//lib/b.star', 'b')\nprint(a, b)\n",
		"lib/a.star":     "load('b.star', 'b')\na = 'a' + b\n",
		"lib/b.star":     "print('b runs')\nb = 'b'\n",
		"unrelated.star": "fail('never loaded')\n",
	})
	stderr, errText := run(t, dir, nil)
	if errText != "" {
		t.Fatal(errText)
	}
	if want := "b runs\nab b\n"; stderr != want {
		t.Errorf("stderr = %q, want %q (b.star must run once)", stderr, want)
	}
}

func TestLoadMissingFileNamesTheLoader(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.star": "x = 1\n\nload('nope.star', 'y')\n",
	})
	_, errText := run(t, dir, nil)
	main := filepath.Join(dir, "main.star")
	for _, want := range []string{
		main + ":3:1: in <toplevel>",
		"cannot load nope.star: no such file " + filepath.Join(dir, "nope.star") + " (loaded from " + main + ":3)",
	} {
		if !strings.Contains(errText, want) {
			t.Errorf("error\n%s\nlacks %q", errText, want)
		}
	}
}

func TestLoadCycleShowsChain(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.star": "load('a.star', 'a')\n",
		"a.star":    "load('b.star', 'b')\na = 1\n",
		"b.star":    "load('a.star', 'a')\nb = 1\n",
	})
	_, errText := run(t, dir, nil)
	j := func(n string) string { return filepath.Join(dir, n) }
	want := "cycle in load graph: " + j("main.star") + " -> " + j("a.star") + " -> " + j("b.star") + " -> " + j("a.star")
	if !strings.Contains(errText, want) {
		t.Errorf("error\n%s\nlacks %q", errText, want)
	}
}

func TestLoadingTheMainScriptIsACycle(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.star": "load('a.star', 'a')\nm = 1\n",
		"a.star":    "load('main.star', 'm')\na = 1\n",
	})
	if _, errText := run(t, dir, nil); !strings.Contains(errText, "cycle in load graph") {
		t.Errorf("error %q does not report the cycle", errText)
	}
}

func TestBacktraceSpansLoadedFiles(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.star": "load('lib.star', 'f')\nf(0)\n",
		"lib.star":  "def f(x):\n    return 1 // x\n",
	})
	_, errText := run(t, dir, nil)
	want := "Traceback (most recent call last):\n" +
		"  " + filepath.Join(dir, "main.star") + ":2:2: in <toplevel>\n" +
		"  " + filepath.Join(dir, "lib.star") + ":2:14: in f\n" +
		"Error: floored division by zero"
	if errText != want {
		t.Errorf("error =\n%s\nwant\n%s", errText, want)
	}
}

func TestCallbackErrorKeepsTheBuiltinsContext(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.star": "def apply(v):\n    fail('cannot apply %d' % v)\n\nsetting(apply)\n",
	})
	s := &Session{Ctx: context.Background(), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	in := NewInterp(s, nil, dir, ScriptOptions())
	// setting calls back into the script and wraps its error, as campaign.run does.
	in.Predeclared["setting"] = starlark.NewBuiltin("setting", func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if _, err := starlark.Call(thread, args[0], starlark.Tuple{starlark.MakeInt(1)}, nil); err != nil {
			return nil, fmt.Errorf("setting x=1: %w", err)
		}
		return starlark.None, nil
	})
	_, err := in.ExecFile(filepath.Join(dir, "main.star"))
	main := filepath.Join(dir, "main.star")
	want := "Traceback (most recent call last):\n" +
		"  " + main + ":4:8: in <toplevel>\n" +
		"  <builtin>: in setting\n" +
		"  " + main + ":2:9: in apply\n" +
		"Error in fail: setting x=1: cannot apply 1"
	if got := FormatError(err); got != want {
		t.Errorf("error =\n%s\nwant\n%s", got, want)
	}
}

func TestErrorWhileLoadingSaysWhichLoad(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.star": "load('lib.star', 'x')\n",
		"lib.star":  "x = 1 // 0\n",
	})
	_, errText := run(t, dir, nil)
	want := "Traceback (most recent call last):\n" +
		"  " + filepath.Join(dir, "main.star") + ":1:1: in <toplevel>\n" +
		"  " + filepath.Join(dir, "lib.star") + ":1:7: in <toplevel>\n" +
		"Error: cannot load lib.star: floored division by zero"
	if errText != want {
		t.Errorf("error =\n%s\nwant\n%s", errText, want)
	}
}

func TestBuiltinNameAppearsOnce(t *testing.T) {
	dir := writeFiles(t, map[string]string{"main.star": "args.get('x')\n"})
	_, errText := run(t, dir, nil)
	want := "Error in args.get: missing argument for default"
	if !strings.HasSuffix(errText, want) {
		t.Errorf("error =\n%s\nwant suffix %q", errText, want)
	}
}

func TestDeepRecursionBacktraceIsElided(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.star": "def f(n):\n    if n == 0:\n        fail('bottom')\n    f(n - 1)\nf(100)\n",
	})
	_, errText := run(t, dir, nil)
	if lines := strings.Count(errText, "\n") + 1; lines > maxFrames+3 {
		t.Errorf("backtrace has %d lines, want at most %d:\n%s", lines, maxFrames+3, errText)
	}
	if !strings.Contains(errText, "frames elided") || !strings.HasSuffix(errText, "Error in fail: bottom") {
		t.Errorf("backtrace:\n%s", errText)
	}
}

func TestPrintGoesToStderrWithPositionWhenVerbose(t *testing.T) {
	dir := writeFiles(t, map[string]string{"main.star": "x = 1\nprint('hi', x)\n"})
	stderr, errText := run(t, dir, &Session{Verbose: true})
	if errText != "" {
		t.Fatal(errText)
	}
	if want := filepath.Join(dir, "main.star") + ":2:6: hi 1\n"; stderr != want {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}
}

func TestScriptDialect(t *testing.T) {
	dir := writeFiles(t, map[string]string{"main.star": `
def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)
total = 0
i = 0
while i < 3:
    total += fact(4)
    i += 1
if total == 72:
    print(struct(total = total).total, json.encode([1]), math.floor(1.5), set([1]))
`})
	stderr, errText := run(t, dir, nil)
	if errText != "" {
		t.Fatal(errText)
	}
	if stderr != "72 [1] 1 set([1])\n" {
		t.Errorf("stderr = %q", stderr)
	}
}

func TestCancelStopsARunningScript(t *testing.T) {
	dir := writeFiles(t, map[string]string{"main.star": "print('started')\nwhile True:\n    pass\n"})
	ctx, cancel := context.WithCancelCause(context.Background())
	var stderr bytes.Buffer
	s := &Session{Ctx: ctx, Stderr: &stderr}
	s.Stderr = writerFunc(func(p []byte) (int, error) {
		cancel(errors.New("interrupted"))
		return len(p), nil
	})
	in := NewInterp(s, nil, dir, ScriptOptions())
	_, err := in.ExecFile(filepath.Join(dir, "main.star"))
	if err == nil || !strings.Contains(err.Error(), "cancelled: interrupted") {
		t.Errorf("err = %v, want a cancellation", err)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestStatementContextOverridesSession(t *testing.T) {
	s := &Session{Ctx: context.Background()}
	thread := &starlark.Thread{}
	SetSession(thread, s)
	if Context(thread) != s.Ctx {
		t.Fatal("want the session's context")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	SetThreadContext(thread, ctx)
	if Context(thread) != ctx {
		t.Error("want the statement's context")
	}
}

func TestLoadInitMayUseTheSession(t *testing.T) {
	s := &Session{}
	outer := NewKey[int]("outer")
	inner := NewKey[string]("inner")
	closed := false
	v, err := Load(s, outer, func() (int, error) {
		s.OnClose(func() { closed = true })
		in, err := Load(s, inner, func() (string, error) { return "x", nil })
		return len(in), err
	})
	if err != nil || v != 1 {
		t.Fatalf("Load = %d, %v", v, err)
	}
	if again, _ := Load(s, outer, func() (int, error) { return 0, errors.New("init ran twice") }); again != 1 {
		t.Errorf("second Load = %d, want the cached 1", again)
	}
	s.Close()
	if !closed {
		t.Error("the closer registered during init did not run")
	}
}

func TestLoadRetriesAFailedInitAndSharesOneInit(t *testing.T) {
	s := &Session{}
	k := NewKey[int]("k")
	if _, err := Load(s, k, func() (int, error) { return 0, errors.New("boom") }); err == nil {
		t.Fatal("want the init error")
	}
	var mu sync.Mutex
	inits := 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			v, err := Load(s, k, func() (int, error) {
				mu.Lock()
				inits++
				mu.Unlock()
				return 7, nil
			})
			if err != nil || v != 7 {
				t.Errorf("Load = %d, %v", v, err)
			}
		})
	}
	wg.Wait()
	if inits != 1 {
		t.Errorf("init ran %d times, want once", inits)
	}
}

func TestFailedLoadIsRetried(t *testing.T) {
	dir := writeFiles(t, map[string]string{"lib.star": "x = 1 // 0\n"})
	s := &Session{Script: "<repl>", Ctx: context.Background(), Stdout: io.Discard, Stderr: io.Discard}
	in := NewInterp(s, nil, dir, REPLOptions())
	stmt := []byte("load('lib.star', 'x')\n")
	if _, err := in.Exec(filepath.Join(dir, "<stdin>"), stmt); err == nil {
		t.Fatal("want the division error")
	}
	if err := os.WriteFile(filepath.Join(dir, "lib.star"), []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Exec(filepath.Join(dir, "<stdin2>"), stmt); err != nil {
		t.Errorf("the fixed file does not load: %v", err)
	}
}

// TestLoadAfterAPanickedInit: an init that panics (a bug, recovered by the
// command) leaves no half-made value behind; the next Load runs init again
// instead of waiting forever for the first.
func TestLoadAfterAPanickedInit(t *testing.T) {
	s := &Session{}
	k := NewKey[int]("k")
	func() {
		defer func() { _ = recover() }()
		Load(s, k, func() (int, error) { panic("init bug") })
	}()
	if v, err := Load(s, k, func() (int, error) { return 3, nil }); err != nil || v != 3 {
		t.Errorf("Load after a panicked init = %d, %v; want 3", v, err)
	}
}
