package runtime

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Interp runs Starlark for one session: one thread with the session
// attached, print() to the session's Stderr, the predeclared names and a
// load() with a per-session module cache.
type Interp struct {
	Session *Session
	Thread  *starlark.Thread
	// Predeclared holds the names every file starts with; a test may add
	// to it (an assert module) before running anything.
	Predeclared starlark.StringDict
	loader      *loader
}

// NewInterp prepares a thread for s with mods predeclared (see Predeclared).
// root is the directory that `//` in load paths refers to.
func NewInterp(s *Session, mods []*Module, root string, opts *syntax.FileOptions) *Interp {
	in := &Interp{Session: s, Predeclared: Predeclared(mods)}
	in.loader = &loader{opts: opts, predeclared: in.Predeclared, root: root, cache: map[string]*loaded{}, loading: []string{s.Script}}
	in.Thread = &starlark.Thread{Name: s.Script, Load: in.loader.load, Print: in.print}
	SetSession(in.Thread, s)
	return in
}

// print writes print() output to the session's Stderr (results go to
// Stdout); in verbose mode each line starts with the script position.
func (in *Interp) print(thread *starlark.Thread, msg string) {
	if in.Session.Verbose {
		fmt.Fprintf(in.Session.Stderr, "%s: %s\n", thread.CallFrame(1).Pos, msg)
		return
	}
	fmt.Fprintln(in.Session.Stderr, msg)
}

// ExecFile runs the script at path; it returns the script's globals.
// The run stops with an error when the session's context is cancelled.
func (in *Interp) ExecFile(path string) (starlark.StringDict, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return in.Exec(path, src)
}

// Exec runs src as the script at path (which names it in positions and
// anchors its relative loads), like ExecFile.
func (in *Interp) Exec(path string, src []byte) (starlark.StringDict, error) {
	if key, err := filepath.Abs(path); err == nil {
		in.loader.cache[key] = &loaded{} // in progress: loading it again is a cycle
	}
	in.loader.loading = []string{path}
	defer in.CancelOn(in.Session.Ctx)()
	return starlark.ExecFileOptions(in.loader.opts, in.Thread, path, src, in.Predeclared)
}

// CancelOn cancels the thread's current computation when ctx ends, until
// the returned stop function is called. A cancelled thread stays
// cancelled; call Thread.Uncancel before running more on it.
func (in *Interp) CancelOn(ctx context.Context) (stop func()) {
	if ctx == nil {
		return func() {}
	}
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-ctx.Done():
			in.Thread.Cancel(context.Cause(ctx).Error())
		case <-done:
		}
	}()
	return func() {
		close(done)
		<-exited // no Cancel after stop returns
	}
}
