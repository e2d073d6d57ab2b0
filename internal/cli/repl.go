package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/chzyer/readline"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"starbench/builtins"
	"starbench/internal/runtime"
)

func replCmd(st *State, args []string) int {
	fs := newFlagSet("repl")
	var tf targetFlags
	s := &runtime.Session{Script: "<repl>", SayWritten: true}
	fs.StringVar(&s.OutDir, "out", filepath.Join("out", "repl"), "where figures, tables and stores saved with a relative path go; the REPL says each file it writes")
	tf.add(fs, st)
	fs.BoolVarP(&s.Verbose, "verbose", "v", false, "print() output starts with the statement position")
	pos, code, done := parseFlags(st, "repl", fs, args)
	if done {
		return code
	}
	err := tf.check("repl", st)
	if err == nil && len(pos) > 0 {
		err = usagef("repl", "takes no arguments, got %s (to run a script: starbench run SCRIPT)", strings.Join(pos, " "))
	}
	if err != nil {
		return reportUsage(st, err)
	}
	s.Target, s.Testbed = tf.target, tf.testbed

	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	// A closed standard output (`... | starbench repl | head`) ends the REPL.
	s.Ctx, s.Stdout, s.Stderr = ctx, stopOnBrokenPipe(st.Stdout, func() { cancel(errBrokenPipe) }), st.Stderr
	defer s.Close()
	in := runtime.NewInterp(s, builtins.Modules(st.deps()), ".", runtime.REPLOptions())
	r := &repl{st: st, in: in, globals: starlark.StringDict{}}
	for name, v := range in.Predeclared {
		r.globals[name] = v
	}
	lines, err := r.openLines()
	if err != nil {
		fmt.Fprintf(st.Stderr, "starbench repl: %v\n", err)
		return ExitScriptError
	}
	defer lines.Close()
	r.lines = lines

	// SIGTERM ends the REPL; Ctrl-C cancels the running statement (or,
	// without a terminal, ends the REPL while it waits for input).
	defer watchInterrupts(st, func(sig os.Signal) {
		if sig == syscall.SIGTERM || !r.cancelStatement() && !st.Terminal {
			cancel(errInterrupted)
		}
	})()
	for r.rep(ctx) {
	}
	if errors.Is(context.Cause(ctx), errInterrupted) {
		return ExitInterrupted
	}
	return ExitOK
}

// repl reads, evaluates and prints statements on one interpreter.
type repl struct {
	st      *State
	in      *runtime.Interp
	globals starlark.StringDict
	lines   lineReader
	pending []string // lines read past the end of the last statement

	mu     sync.Mutex
	cancel context.CancelCauseFunc // of the running statement; nil while reading
}

// cancelStatement cancels the running statement; false if none runs.
func (r *repl) cancelStatement() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cancel == nil {
		return false
	}
	r.cancel(errInterrupted)
	return true
}

// rep reads one statement (several lines while it is incomplete), runs
// it and prints an expression's value. It returns false at the end of input.
func (r *repl) rep(ctx context.Context) bool {
	var eof, interrupted bool
	var read []string // lines read for this statement
	prompt := ">>> "
	readLine := func() ([]byte, error) {
		if eof {
			return nil, io.EOF
		}
		line, err := r.next(ctx, prompt)
		prompt = "... "
		switch {
		case err == io.EOF:
			eof = true
			return nil, nil // ends the statement being typed, if any
		case errors.Is(err, readline.ErrInterrupt):
			interrupted = true
			return nil, err
		case err != nil:
			return nil, err
		}
		read = append(read, line)
		return []byte(line + "\n"), nil
	}
	f, err := runtime.REPLOptions().ParseCompoundStmt("<stdin>", readLine)
	switch {
	case ctx.Err() != nil:
		return false
	case interrupted:
		return true
	case err != nil:
		if strings.TrimSpace(strings.Join(read, "")) == "" {
			return !eof
		}
		if eof {
			fmt.Fprintf(r.st.Stderr, "incomplete statement at the end of input: %v\n", err)
		} else {
			fmt.Fprintln(r.st.Stderr, err)
		}
		return !eof
	}
	if n := len(f.Stmts); n > 0 {
		// A block ends at the first line that is not part of it; that
		// line starts the next statement rather than being lost.
		_, end := f.Stmts[n-1].Span()
		if end.Line < int32(len(read)) {
			r.pending = append(read[end.Line:], r.pending...)
		}
		r.exec(ctx, f)
	}
	return !eof || len(r.pending) > 0
}

// next returns the next input line: one read ahead and given back by the
// last statement, or a new one.
func (r *repl) next(ctx context.Context, prompt string) (string, error) {
	if len(r.pending) > 0 {
		line := r.pending[0]
		r.pending = r.pending[1:]
		return line, nil
	}
	return r.readLine(ctx, prompt)
}

// readLine reads a line without blocking cancellation of ctx.
func (r *repl) readLine(ctx context.Context, prompt string) (string, error) {
	type result struct {
		line string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		line, err := r.lines.ReadLine(prompt)
		ch <- result{line, err}
	}()
	select {
	case res := <-ch:
		return res.line, res.err
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
}

// exec runs one parsed statement with its own context, so Ctrl-C stops
// it and the REPL goes on.
func (r *repl) exec(ctx context.Context, f *syntax.File) {
	stmtCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r.mu.Lock()
	r.cancel = cancel
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.cancel = nil
		r.mu.Unlock()
	}()

	thread := r.in.Thread
	runtime.SetThreadContext(thread, stmtCtx)
	stop := r.in.CancelOn(stmtCtx)
	var err error
	if expr := soleExpr(f); expr != nil {
		var v starlark.Value
		if v, err = starlark.EvalExprOptions(f.Options, thread, expr, r.globals); err == nil {
			r.globals["_"] = v
			if v != starlark.None {
				fmt.Fprintln(r.in.Session.Stdout, v)
			}
		}
	} else {
		err = starlark.ExecREPLChunk(f, thread, r.globals)
	}
	stop()
	thread.Uncancel()
	if err != nil {
		fmt.Fprintln(r.st.Stderr, runtime.FormatError(err))
	}
}

func soleExpr(f *syntax.File) syntax.Expr {
	if len(f.Stmts) == 1 {
		if stmt, ok := f.Stmts[0].(*syntax.ExprStmt); ok {
			return stmt.X
		}
	}
	return nil
}

// lineReader is where the REPL's input comes from.
type lineReader interface {
	ReadLine(prompt string) (string, error)
	Close() error
}

// openLines returns readline on a terminal, plain lines otherwise (piped
// input prints no prompts, so `printf 'x = 1\nx\n' | starbench repl` is clean).
func (r *repl) openLines() (lineReader, error) {
	if !r.st.Terminal {
		return plainLines{bufio.NewReader(r.st.Stdin)}, nil
	}
	stdin, ok := r.st.Stdin.(io.ReadCloser)
	if !ok {
		stdin = io.NopCloser(r.st.Stdin)
	}
	rl, err := readline.NewEx(&readline.Config{
		Prompt:          ">>> ",
		HistoryFile:     r.historyFile(),
		AutoComplete:    completer{r.globals},
		InterruptPrompt: "^C",
		Stdin:           stdin,
		Stdout:          r.st.Stdout,
		Stderr:          r.st.Stderr,
	})
	if err != nil {
		return nil, err
	}
	return ttyLines{rl}, nil
}

// historyFile returns ConfigDir/starbench/history, creating its directory; "" for no history.
func (r *repl) historyFile() string {
	if r.st.ConfigDir == "" {
		return ""
	}
	dir := filepath.Join(r.st.ConfigDir, "starbench")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		fmt.Fprintf(r.st.Stderr, "starbench repl: no history: %v\n", err)
		return ""
	}
	return filepath.Join(dir, "history")
}

type plainLines struct{ r *bufio.Reader }

func (p plainLines) ReadLine(string) (string, error) {
	line, err := p.r.ReadString('\n')
	if err == io.EOF && line != "" {
		err = nil
	}
	return strings.TrimRight(line, "\r\n"), err
}

func (plainLines) Close() error { return nil }

type ttyLines struct{ rl *readline.Instance }

func (t ttyLines) ReadLine(prompt string) (string, error) {
	t.rl.SetPrompt(prompt)
	return t.rl.Readline()
}

func (t ttyLines) Close() error { return t.rl.Close() }

// completer completes global names and `module.member` at the cursor.
type completer struct{ globals starlark.StringDict }

func (c completer) Do(line []rune, pos int) ([][]rune, int) {
	start := pos
	for start > 0 && isNameRune(line[start-1]) {
		start--
	}
	word := string(line[start:pos])
	var candidates []string
	prefix := word
	if dot := strings.LastIndexByte(word, '.'); dot >= 0 {
		v, ok := c.globals[word[:dot]].(starlark.HasAttrs)
		if !ok {
			return nil, 0
		}
		candidates, prefix = v.AttrNames(), word[dot+1:]
	} else {
		candidates = append(c.globals.Keys(), starlark.Universe.Keys()...)
	}
	sort.Strings(candidates)
	var out [][]rune
	for _, cand := range candidates {
		if strings.HasPrefix(cand, prefix) && !strings.HasPrefix(cand, "_") {
			out = append(out, []rune(cand[len(prefix):]))
		}
	}
	return out, len([]rune(prefix))
}

func isNameRune(r rune) bool {
	return r == '_' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}
