package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"

	"starbench/builtins"
	"starbench/internal/livemetrics"
	"starbench/internal/runtime"
)

func runCmd(st *State, args []string) int {
	fs := newFlagSet("run")
	var sets []string
	var out string
	var tf targetFlags
	s := &runtime.Session{}
	fs.StringArrayVar(&sets, "set", nil, "script arg name=value, typed like the script's args.get default; lists comma-separated (repeatable)")
	fs.StringVar(&out, "out", "", "output directory (default out/SCRIPT, SCRIPT without .star)")
	tf.add(fs, st)
	fs.BoolVar(&s.NoProgress, "no-progress", false, "line events instead of progress bars (always so when stderr is not a terminal)")
	fs.BoolVarP(&s.Verbose, "verbose", "v", false, "print() output starts with the script position")
	fs.BoolVar(&s.Plan, "plan", false, "print the campaign plan without running it")
	fs.BoolVar(&s.AllowDisruptive, "allow-disruptive", false, "let the script take hosts of a real cluster out of service (maintenance mode, host failures); what it changes is set back at the end")
	fs.BoolVar(&s.NoNoise, "no-noise", false, "simulated runs without the model's seeded run-to-run noise (repeats identical)")
	fs.BoolVar(&s.Fresh, "fresh", false, "ignore stored campaign results and start over")
	fs.BoolVar(&s.RerunFailed, "rerun-failed", false, "run again only the campaign runs that failed")
	var cleanup bool
	fs.BoolVar(&cleanup, "cleanup", false, "when the script ends (also after an error or Ctrl-C), remove the VMs and policies the run made and restore the settings it changed (see starbench clean)")
	var summary, metricsAddr string
	fs.StringVar(&metricsAddr, "metrics-listen", "", "serve the running campaign's progress and current samples for Prometheus at http://ADDR/metrics (e.g. 127.0.0.1:9464)")
	fs.StringVar(&summary, "summary-json", "", "write a JSON summary (exit code; per campaign: cells, runs, failures, headline figures per cell) to this file")
	pos, code, done := parseFlags(st, "run", fs, args)
	if done {
		return code
	}
	path, err := scriptArg("run", pos)
	if err == nil {
		s.Set, err = parseSets("run", sets)
	}
	if err == nil {
		err = tf.check("run", st)
	}
	if err == nil && s.Fresh && s.RerunFailed {
		err = usagef("run", "--fresh starts over and --rerun-failed resumes: give one of them")
	}
	if err != nil {
		return reportUsage(st, err)
	}
	s.Script, s.OutDir, s.Target, s.Testbed = path, outDir(out, path), tf.target, tf.testbed
	if metricsAddr != "" {
		exp := livemetrics.New()
		addr, stop, err := exp.Serve(metricsAddr)
		if err != nil {
			return reportUsage(st, usagef("run", "%v", err))
		}
		defer stop()
		fmt.Fprintf(st.Stderr, "metrics: http://%s/metrics\n", addr)
		st.observer = exp
		defer func() { st.observer = nil }()
	}
	code, forced := execScript(st, "run", s, cleanup)
	// However the script ended (an error, Ctrl-C, SIGTERM, a closed
	// output), each campaign gets the report of what it stored; not after
	// --plan, nor when a second interrupt asked to stop at once.
	if !forced && !s.Plan {
		if err := writeReports(st, s); err != nil {
			fmt.Fprintf(st.Stderr, "starbench: %v\n", err)
			code = ExitScriptError
		}
	}
	return finishRun(st, s, code, summary)
}

func reportCmd(st *State, args []string) int {
	fs := newFlagSet("report")
	var sets []string
	var out string
	s := &runtime.Session{Target: "none", NoProgress: true}
	fs.StringVar(&s.From, "from", "", "campaign store (the .db file a run wrote) to read; required")
	fs.StringVar(&out, "out", "", "output directory (default out/SCRIPT, SCRIPT without .star)")
	fs.StringArrayVar(&sets, "set", nil, "script arg name=value (repeatable)")
	fs.BoolVarP(&s.Verbose, "verbose", "v", false, "print() output starts with the script position")
	pos, code, done := parseFlags(st, "report", fs, args)
	if done {
		return code
	}
	path, err := scriptArg("report", pos)
	if err == nil {
		s.Set, err = parseSets("report", sets)
	}
	if err == nil && s.From == "" {
		err = usagef("report", "--from DB is required: the campaign store a run wrote (out/SCRIPT/NAME.db, e.g. out/quickstart/quickstart.db)")
	}
	if err == nil {
		if !isStoreFile(s.From) {
			err = usagef("report", "--from: %s", noStore(s.From))
		}
	}
	if err != nil {
		return reportUsage(st, err)
	}
	s.Script, s.OutDir = path, outDir(out, path)
	code, _ = execScript(st, "report", s, false)
	if code == ExitOK {
		if err := writeReport(st, s, s.From, "report"); err != nil {
			fmt.Fprintf(st.Stderr, "starbench: %v\n", err)
			return ExitScriptError
		}
	}
	return code
}

// scriptArg returns the one script path of pos.
func scriptArg(cmd string, pos []string) (string, error) {
	switch {
	case len(pos) == 0:
		return "", usagef(cmd, "missing SCRIPT (a .star file)")
	case len(pos) > 1:
		return "", usagef(cmd, "want one SCRIPT, got %d arguments: %s (give script args as --set name=value)", len(pos), strings.Join(pos, " "))
	}
	if info, err := os.Stat(pos[0]); err != nil || info.IsDir() {
		return "", usagef(cmd, "no such script file %s", pos[0])
	}
	return pos[0], nil
}

func outDir(flag, script string) string {
	if flag != "" {
		return flag
	}
	return filepath.Join("out", strings.TrimSuffix(filepath.Base(script), ".star"))
}

// execScript checks and runs the session's script and returns the exit
// code. The first Ctrl-C (or SIGTERM, or a write to a closed standard
// output or error) cancels the run and lets builtins clean up; a second
// interrupt returns at once, without waiting for them (forced). With
// cleanup, what the run recorded in its ledger is undone at the end.
func execScript(st *State, cmd string, s *runtime.Session, cleanup bool) (code int, forced bool) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	again := make(chan struct{})
	var once sync.Once
	defer watchInterrupts(st, func(os.Signal) {
		if ctx.Err() != nil {
			once.Do(func() { close(again) })
			return
		}
		fmt.Fprintln(st.Stderr, interruptNote)
		cancel(errInterrupted)
	})()
	closed := func() { cancel(errBrokenPipe) }
	s.Ctx, s.Stdout, s.Stderr = ctx, stopOnBrokenPipe(st.Stdout, closed), stopOnBrokenPipe(st.Stderr, closed)
	done := make(chan int, 1)
	go func() {
		code := ExitScriptError
		// A panic in a builtin is a bug, but the session's cleanup (workers
		// deployed on a vCenter, open stores) must run all the same.
		defer func() {
			if r := recover(); r != nil {
				fmt.Fprintf(st.Stderr, "starbench: internal error (please report it): %v\n%s", r, debug.Stack())
			}
			if cleanup {
				if err := builtins.Cleanup(s, st.Stderr); err != nil {
					fmt.Fprintf(st.Stderr, "starbench: %v\n", err)
					if code == ExitOK {
						code = ExitScriptError
					}
				}
			}
			s.Close()
			done <- code
		}()
		code = checkAndExec(st, cmd, s)
	}()
	select {
	case code := <-done:
		return code, false
	case <-again:
		fmt.Fprintln(st.Stderr, "starbench: interrupted twice; exiting without waiting for cleanup")
		return ExitInterrupted, true
	}
}

// interruptNote is what the first interrupt prints at once: a campaign
// may need a while to finish its run in flight and set the cluster back.
const interruptNote = "starbench: interrupt received: finishing the run in flight and setting the cluster back (interrupt again to exit at once)"

func checkAndExec(st *State, cmd string, s *runtime.Session) int {
	ctx := s.Ctx

	mods := builtins.Modules(st.deps())
	root := filepath.Dir(s.Script)
	script, err := runtime.ParseScript(s.Script, root, runtime.ScriptOptions(), runtime.Predeclared(mods))
	if err != nil {
		fmt.Fprintln(st.Stderr, err)
		return ExitScriptError
	}
	if err := runtime.CheckSet(s.Set, runtime.DeclaredArgs(script.Files)); err != nil {
		return reportUsage(st, usagef(cmd, "%v", err))
	}
	_, err = runtime.NewInterp(s, mods, root, runtime.ScriptOptions()).ExecFile(s.Script)
	if cause := context.Cause(ctx); errors.Is(cause, errInterrupted) {
		fmt.Fprintf(s.Stderr, "starbench: %v\n", cause)
		return ExitInterrupted
	}
	if errors.Is(err, runtime.ErrPlanPrinted) {
		return ExitOK
	}
	if err != nil {
		fmt.Fprintln(st.Stderr, runtime.FormatError(err))
		return ExitScriptError
	}
	return ExitOK
}

// runInterruptible runs work with a context an interrupt cancels and
// returns cmd's exit code: a failure is said as "starbench CMD: ERR", and
// exits ExitInterrupted where an interrupt stopped it, else
// ExitScriptError.
func runInterruptible(st *State, cmd string, work func(context.Context) error) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	defer watchInterrupts(st, func(os.Signal) { cancel(errInterrupted) })()
	if err := work(ctx); err != nil {
		fmt.Fprintf(st.Stderr, "starbench %s: %v\n", cmd, err)
		if ctx.Err() != nil {
			return ExitInterrupted
		}
		return ExitScriptError
	}
	return ExitOK
}

// watchInterrupts calls f for each signal on st.Interrupts until the
// returned stop function is called.
func watchInterrupts(st *State, f func(os.Signal)) (stop func()) {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-st.Interrupts:
				f(sig)
			case <-done:
				return
			}
		}
	}()
	return func() { close(done) }
}

func checkCmd(st *State, args []string) int {
	fs := newFlagSet("check")
	var sets []string
	fs.StringArrayVar(&sets, "set", nil, "script arg name=value to check against the script's declarations (repeatable)")
	pos, code, done := parseFlags(st, "check", fs, args)
	if done {
		return code
	}
	path, err := scriptArg("check", pos)
	var set map[string]string
	if err == nil {
		set, err = parseSets("check", sets)
	}
	if err != nil {
		return reportUsage(st, err)
	}
	mods := builtins.Modules(st.deps())
	script, err := runtime.ParseScript(path, filepath.Dir(path), runtime.ScriptOptions(), runtime.Predeclared(mods))
	if err != nil {
		fmt.Fprintln(st.Stderr, err)
		return ExitScriptError
	}
	declared := runtime.DeclaredArgs(script.Files)
	if err := runtime.CheckSet(set, declared); err != nil {
		return reportUsage(st, usagef("check", "%v", err))
	}
	fmt.Fprintf(st.Stdout, "%s: ok (%d files; args: %s)\n", path, len(script.Files), argSummary(declared))
	return ExitOK
}

func argSummary(declared map[string]runtime.DeclaredArg) string {
	if len(declared) == 0 {
		return "none"
	}
	var parts []string
	for name, a := range declared {
		parts = append(parts, fmt.Sprintf("%s=%s", name, a.Default))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
