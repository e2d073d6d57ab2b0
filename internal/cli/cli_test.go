package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"starbench/builtins"
	"starbench/internal/runtime"
	"starbench/internal/syncbuf"
	"starbench/internal/target"
)

// result is what one in-process command run produced.
type result struct {
	code           int
	stdout, stderr string
}

// runCLI runs args with explicit state from the repository root, so the
// paths of the real scripts (scripts/hello.star) work as in the README.
func runCLI(t *testing.T, stdin string, env map[string]string, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Run(&State{Args: args, Env: env, Stdin: strings.NewReader(stdin), Stdout: &stdout, Stderr: &stderr})
	return result{code, stdout.String(), stderr.String()}
}

// inRepoRoot makes the repository root the working directory for the test.
func inRepoRoot(t *testing.T) {
	t.Helper()
	t.Chdir("../..")
}

func writeScript(t *testing.T, name, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func expect(t *testing.T, r result, code int, stdoutRE, stderrRE string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	if !regexp.MustCompile(stdoutRE).MatchString(r.stdout) {
		t.Errorf("stdout\n%s\ndoes not match %q", r.stdout, stdoutRE)
	}
	if !regexp.MustCompile(stderrRE).MatchString(r.stderr) {
		t.Errorf("stderr\n%s\ndoes not match %q", r.stderr, stderrRE)
	}
}

func TestRunHelloUsesLoadArgsAndStruct(t *testing.T) {
	inRepoRoot(t)
	r := runCLI(t, "", nil, "run", "--set", "repeat=3", "scripts/hello.star", "--set", "sizes=4k,1m", "--out", t.TempDir())
	want := "hello 1/3: block sizes 4k, 1m\nhello 2/3: block sizes 4k, 1m\nhello 3/3: block sizes 4k, 1m\na 50 GiB worker disk is 50 GiB\n"
	if r.code != ExitOK || r.stderr != want || r.stdout != "" {
		t.Errorf("exit %d\nstderr:\n%s\nwant:\n%s\nstdout:\n%s", r.code, r.stderr, want, r.stdout)
	}
}

func TestRunSyntaxErrorIsOneScreenWithPosition(t *testing.T) {
	path := writeScript(t, "broken.star", "x = 1\nif x\n    print(x)\n")
	r := runCLI(t, "", nil, "run", path)
	expect(t, r, ExitScriptError, "^$", "^"+regexp.QuoteMeta(path)+`:3:1: got newline, want ':'\n$`)
}

func TestRunBadBuiltinArgumentShowsPositionAndNameOnce(t *testing.T) {
	path := writeScript(t, "badarg.star", "def main():\n    return args.get('repeat')\n\nmain()\n")
	r := runCLI(t, "", nil, "run", path)
	q := regexp.QuoteMeta(path)
	expect(t, r, ExitScriptError, "^$", `^Traceback \(most recent call last\):\n  `+q+`:4:5: in <toplevel>\n  `+q+`:2:20: in main\nError in args.get: missing argument for default\n$`)
}

func TestRunBadDomainBuiltinArgument(t *testing.T) {
	path := writeScript(t, "badframe.star", "rows = 42\nf = frame.from_rows(rows)\n")
	r := runCLI(t, "", nil, "run", path)
	expect(t, r, ExitScriptError, "^$", `^Traceback \(most recent call last\):\n  `+regexp.QuoteMeta(path)+`:2:20: in <toplevel>\nError in frame.from_rows: [^\n]*rows[^\n]*\n$`)
}

func TestRunRejectsBadSetBeforeRunning(t *testing.T) {
	path := writeScript(t, "s.star", "print('ran')\nn = args.get('repeat', 2)\n")
	r := runCLI(t, "", nil, "run", path, "--set", "repeats=3")
	expect(t, r, ExitUsage, "^$", `^starbench run: unknown --set name "repeats": did you mean repeat\? this script declares repeat \(int, default 2\)\n`)
	r = runCLI(t, "", nil, "run", path, "--set", "repeat=many")
	expect(t, r, ExitUsage, "^$", `^starbench run: --set repeat=many: want an int like 2, got "many" \(declared at .*s.star:2:13\)\n`)
	r = runCLI(t, "", nil, "run", path, "--set", "repeat")
	expect(t, r, ExitUsage, "^$", `--set wants name=value \(e.g. --set repeat=3\), got "repeat"`)
}

func TestRunUsageErrors(t *testing.T) {
	path := writeScript(t, "ok.star", "x = 1\n")
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"run"}, nil, "missing SCRIPT"},
		{[]string{"run", path, "extra"}, nil, "want one SCRIPT, got 2 arguments"},
		{[]string{"run", "nope.star"}, nil, "no such script file nope.star"},
		{[]string{"run", path, "--target", "cloud"}, nil, `unknown --target "cloud"; want embedded, vcenter or local`},
		{[]string{"run", path, "--target", "vcenter"}, nil, "--target vcenter needs GOVC_URL"},
		{[]string{"run", path, "--fresh", "--rerun-failed"}, nil, "give one of them"},
		{[]string{"run", path, "--bogus"}, nil, "unknown flag: --bogus"},
		{[]string{"frobnicate"}, nil, `unknown command "frobnicate"`},
		{[]string{"report", path}, nil, "--from DB is required"},
		{[]string{"report", path, "--from", "missing.db"}, nil, "--from: no such store file missing.db"},
		{[]string{"repl", "x.star"}, nil, "takes no arguments"},
		{[]string{"sim", "start", "now"}, nil, "want 'sim serve', got 'sim start now'"},
		{[]string{"sim"}, nil, "want 'sim serve', got 'sim'"},
		{[]string{}, nil, "Usage:"},
	} {
		r := runCLI(t, "", tc.env, tc.args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

func TestHelpDocumentsExitCodesAndEnvWithoutSecrets(t *testing.T) {
	env := map[string]string{"GOVC_URL": "https://admin:s3cret@vc.example/sdk", "GOVC_PASSWORD": "s3cret"}
	for _, args := range [][]string{{"--help"}, {"run", "--help"}, {"help", "repl"}} {
		r := runCLI(t, "", env, args...)
		expect(t, r, ExitOK, `(?s)Exit codes: 0 success, 1 script error, 2 usage error, 3 a campaign holds failed runs,\n4 compare found a significant regression, 130 interrupted.*GOVC_URL .*\[set\].*GOVC_TLS_CA_CERTS`, "^$")
		if strings.Contains(r.stdout, "s3cret") {
			t.Errorf("%v: help shows a secret:\n%s", args, r.stdout)
		}
	}
	r := runCLI(t, "", env, "run", "--help")
	expect(t, r, ExitOK, `--target string .* \(default "vcenter"\)`, "^$")
	r = runCLI(t, "", nil, "run", "--help")
	expect(t, r, ExitOK, `--target string .* \(default "embedded"\)`, "^$")
}

func TestRunInterruptExits130(t *testing.T) {
	path := writeScript(t, "loop.star", "print('started')\nwhile True:\n    pass\n")
	interrupts := make(chan os.Signal, 1)
	started := &signalWriter{on: regexp.MustCompile("started"), fire: func() { interrupts <- os.Interrupt }}
	var stdout bytes.Buffer
	code := Run(&State{Args: []string{"run", path}, Stdout: &stdout, Stderr: started, Interrupts: interrupts})
	if code != ExitInterrupted || !strings.Contains(started.String(), "starbench: interrupted") {
		t.Errorf("exit %d, stderr %q; want 130 and an interrupted note", code, started.String())
	}
}

// signalWriter records output and calls fire once the output matches on.
type signalWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	on   *regexp.Regexp
	fire func()
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.fire != nil && w.on.MatchString(w.buf.String()) {
		fire := w.fire
		w.fire = nil
		go fire()
	}
	return len(p), nil
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func TestReplPipedInput(t *testing.T) {
	r := runCLI(t, "x = 1 + 1\nprint(x)\n", nil, "repl")
	expect(t, r, ExitOK, "^$", "^2\n$")

	r = runCLI(t, "def f(n):\n    return n * 2\nf(21)\ns = struct(a = [1,\n  2])\ns.a\nnope\nargs.get(1, 2)\njson.encode({'k': 1})\n", nil, "repl")
	expect(t, r, ExitOK, `^42\n\[1, 2\]\n"\{\\"k\\":1\}"\n$`,
		`^<stdin>:1:1: undefined: nope\nTraceback \(most recent call last\):\n  <stdin>:1:9: in <expr>\nError in args.get: for parameter name: got int, want string\n$`)

	r = runCLI(t, "x = (1,\n", nil, "repl")
	expect(t, r, ExitOK, "^$", "^incomplete statement at the end of input")
}

func TestReplCtrlCCancelsTheStatementOnly(t *testing.T) {
	stdinR, stdinW := io.Pipe()
	interrupts := make(chan os.Signal, 1)
	stderr := &signalWriter{on: regexp.MustCompile("looping"), fire: func() { interrupts <- os.Interrupt }}
	var stdout syncbuf.Buffer
	done := make(chan int)
	go func() {
		done <- Run(&State{Args: []string{"repl"}, Stdin: stdinR, Stdout: &stdout, Stderr: stderr, Interrupts: interrupts})
	}()
	io.WriteString(stdinW, "def spin():\n    print('looping')\n    while True:\n        pass\n\nspin()\n")
	// The interrupt cancels spin(); the REPL then reads the next line.
	io.WriteString(stdinW, "'still here'\n")
	stdinW.Close()
	if code := <-done; code != ExitOK {
		t.Errorf("exit %d, want 0", code)
	}
	if !strings.Contains(stderr.String(), "Starlark computation cancelled: interrupted") {
		t.Errorf("stderr %q lacks the cancellation", stderr.String())
	}
	if stdout.String() != "\"still here\"\n" {
		t.Errorf("stdout %q, want the statement after the interrupt", stdout.String())
	}
}

func TestReplSigtermEnds(t *testing.T) {
	stdinR, stdinW := io.Pipe()
	defer stdinW.Close()
	interrupts := make(chan os.Signal, 1)
	done := make(chan int)
	go func() {
		done <- Run(&State{Args: []string{"repl"}, Stdin: stdinR, Stdout: io.Discard, Stderr: io.Discard, Interrupts: interrupts})
	}()
	interrupts <- syscall.SIGTERM
	if code := <-done; code != ExitInterrupted {
		t.Errorf("exit %d, want 130", code)
	}
}

func TestCompleterCompletesModuleMembersAndGlobals(t *testing.T) {
	c := completer{runtime.Predeclared(builtins.Modules(builtins.Deps{}))}
	for _, tc := range []struct {
		line string
		want []string
		n    int
	}{
		{"x = args.g", []string{"et"}, 1},
		{"vsphere.de", []string{"ploy_workers", "stroy_workers"}, 2},
		{"js", []string{"on"}, 2},
		{"math.flo", []string{"or"}, 3},
		{"nosuch.x", nil, 0},
		{"le", []string{"n"}, 2},
	} {
		got, n := c.Do([]rune(tc.line), len([]rune(tc.line)))
		var gotS []string
		for _, g := range got {
			gotS = append(gotS, string(g))
		}
		if strings.Join(gotS, ",") != strings.Join(tc.want, ",") || n != tc.n {
			t.Errorf("Do(%q) = %q, %d; want %q, %d", tc.line, gotS, n, tc.want, tc.n)
		}
	}
}

func TestCheck(t *testing.T) {
	inRepoRoot(t)
	r := runCLI(t, "", nil, "check", "scripts/hello.star", "--set", "repeat=4")
	expect(t, r, ExitOK, `^scripts/hello.star: ok \(2 files; args: repeat=2, sizes=\["4k", "64k"\]\)\n$`, "^$")

	path := writeScript(t, "bad.star", "load('missing.star', 'x')\nprint(y)\nargs.gett('a', 1)\n")
	r = runCLI(t, "", nil, "check", path)
	expect(t, r, ExitScriptError, "^$", `(?s)bad.star:2:7: undefined: y.*bad.star:3:6: args has no member gett \(did you mean args.get\?\).*bad.star:1:1: cannot load missing.star: no such file`)

	r = runCLI(t, "", nil, "check", "scripts/hello.star", "--set", "sizes=1")
	expect(t, r, ExitOK, "ok", "^$")
	r = runCLI(t, "", nil, "check", "scripts/hello.star", "--set", "colour=red")
	expect(t, r, ExitUsage, "^$", `unknown --set name "colour"`)
}

func TestDocListsEveryModule(t *testing.T) {
	r := runCLI(t, "", nil, "doc")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, m := range runtime.AllModules(builtins.Modules(builtins.Deps{})) {
		if !strings.Contains(r.stdout, "\n"+m.Name+": ") && !strings.HasPrefix(r.stdout, m.Name+": ") {
			t.Errorf("doc lacks module %s", m.Name)
		}
		for _, mem := range m.Members {
			if !strings.Contains(r.stdout, m.Name+"."+mem.Name+mem.Params) {
				t.Errorf("doc lacks %s.%s", m.Name, mem.Name)
			}
		}
		for _, typ := range m.Types {
			for _, mem := range typ.Members {
				if !strings.Contains(r.stdout, typ.Name+"."+mem.Name+mem.Params+"\n") {
					t.Errorf("doc lacks %s.%s", typ.Name, mem.Name)
				}
			}
		}
	}
	for _, lib := range runtime.Libraries() {
		if !strings.Contains(r.stdout, "  "+lib.Name+" ") {
			t.Errorf("doc lacks library %s", lib.Name)
		}
	}
	expect(t, runCLI(t, "", nil, "doc", "args"), ExitOK, `^args: .*\n  args.get\(name, default\)\n`, "^$")
	expect(t, runCLI(t, "", nil, "doc", "math"), ExitOK, `members: .*floor`, "^$")
	expect(t, runCLI(t, "", nil, "doc", "args.get"), ExitOK, `^args: .*\n  args.get\(name, default\)\n      the --set value`, "^$")
	expect(t, runCLI(t, "", nil, "doc", "args.gte"), ExitUsage, "^$", `args has no member "gte"; members: get`)
	expect(t, runCLI(t, "", nil, "doc", "nope"), ExitUsage, "^$", `no module or value type "nope"; modules: .*args.*json.*; value types: .*frame.groups`)
	// Values' methods are documented like module members.
	expect(t, runCLI(t, "", nil, "doc", "frame.filter"), ExitOK, `(?s)^frame value: .*\n  frame.filter\(fn=None, \*\*conditions\)\n      rows where`, "^$")
	expect(t, runCLI(t, "", nil, "doc", "frame.concat"), ExitOK, `(?s)^frame: .*frame.concat\(\*frames\).*\n\nframe value: .*frame.concat\(\*others\)`, "^$")
	expect(t, runCLI(t, "", nil, "doc", "plot.figure.save"), ExitOK, `^plot.figure value: .*\n  plot.figure.save\(path, `, "^$")
	expect(t, runCLI(t, "", nil, "doc", "frame.groups"), ExitOK, `(?s)^frame.groups value: .*frame.groups.agg\(`, "^$")
	expect(t, runCLI(t, "", nil, "doc", "frame.fliter"), ExitUsage, "^$", `frame has no member "fliter" \(did you mean filter\?\)`)
	expect(t, runCLI(t, "", nil, "doc", "frame"), ExitOK, `(?s)^frame: .*frame.from_rows.*\n\nframe value: .*frame.with_column.*\n\nframe.groups value: `, "^$")
	md := runCLI(t, "", nil, "doc", "--markdown")
	if md.code != ExitOK || md.stdout != runtime.Markdown(builtins.Modules(builtins.Deps{})) {
		t.Errorf("doc --markdown differs from runtime.Markdown (exit %d)", md.code)
	}
}

func TestVersion(t *testing.T) {
	expect(t, runCLI(t, "", nil, "version"), ExitOK, `^starbench .+\ncommit .+\ngo1\.\d+`, "^$")
}

func TestReportRunsWithoutACluster(t *testing.T) {
	db := emptyStore(t)
	path := writeScript(t, "fig.star", "print('figures from', args.get('title', 'x'))\n")
	r := runCLI(t, "", nil, "report", path, "--from", db, "--set", "title=T", "--out", t.TempDir())
	expect(t, r, ExitOK, "^$", "^figures from T\nreport: .*report.html \\(and report.md\\)\n$")
}

func TestRunSecondInterruptDoesNotWaitForAStuckBuiltin(t *testing.T) {
	path := writeScript(t, "stuck.star", "print('started')\n")
	interrupts := make(chan os.Signal, 2)
	release := make(chan struct{})
	var stderr syncbuf.Buffer
	// print() blocks in the writer, as a builtin that ignores cancellation would.
	stuck := writerFunc(func(p []byte) (int, error) {
		if strings.Contains(string(p), "started") {
			interrupts <- os.Interrupt
			interrupts <- os.Interrupt
			<-release
		}
		return stderr.Write(p)
	})
	defer close(release)
	code := Run(&State{Args: []string{"run", path}, Stdout: io.Discard, Stderr: stuck, Interrupts: interrupts})
	if code != ExitInterrupted {
		t.Errorf("exit %d, want 130", code)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestRunPlanIsADryRun: --plan on a vcenter target prints the plan without
// contacting the vCenter (the control plane is the embedded simulator; the
// URL below answers nothing), runs nothing, writes no store and exits 0.
func TestRunPlanIsADryRun(t *testing.T) {
	script := writeScript(t, "plan.star", `
ws = vsphere.deploy_workers("plan", count = 2, disks = 1, disk_size = "1GiB")
def touch(v):
    fail("--plan touched", v)
c = campaign.new("p", factors = [campaign.factor("compression", [False, True], apply = touch)],
    workloads = [campaign.workload("w", lambda: touch("run"), duration = "1m")])
c.run()
fail("the script went on after the plan")
`)
	out := t.TempDir()
	env := map[string]string{"GOVC_URL": "https://127.0.0.1:1/sdk", "GOVC_USERNAME": "u", "GOVC_PASSWORD": "p"}
	r := runCLI(t, "", env, "run", script, "--plan", "--target", "vcenter", "--out", out)
	expect(t, r, ExitOK, `2 cells x 1 workloads x 1 repeats = 2 runs`, `^$`)
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("--plan wrote %d files into the output directory", len(entries))
	}
}

// TestRunPanicInABuiltinStillCleansUp: a builtin that panics (a bug) ends
// the run with exit 1 and an internal-error note, after the session's
// cleanup ran, instead of killing the process with the cluster's workers
// still deployed.
func TestRunPanicInABuiltinStillCleansUp(t *testing.T) {
	path := writeScript(t, "panics.star", "vsphere.inventory()\n")
	closed := false
	var stderr bytes.Buffer
	code := Run(&State{Args: []string{"run", path, "--out", t.TempDir()}, Stdout: io.Discard, Stderr: &stderr,
		OpenTarget: func(context.Context, target.Options) (*target.Target, func(), error) {
			return &target.Target{}, func() { closed = true }, nil // no vSphere client: the builtin dereferences nil
		}})
	if code != ExitScriptError || !strings.Contains(stderr.String(), "starbench: internal error") {
		t.Errorf("exit %d, stderr:\n%s\nwant 1 and an internal error", code, stderr.String())
	}
	if !closed {
		t.Error("the session's cleanup did not run")
	}
}
