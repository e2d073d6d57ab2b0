// Package runtime holds what every Starlark module shares: the per-thread
// session, the module table that feeds both the interpreter and the docs, and
// typed per-session state for modules that need it.
package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"go.starlark.net/starlark"
)

// Session is the state of one script run (or one REPL), attached to every
// Starlark thread of that run.
type Session struct {
	// Ctx is cancelled on Ctrl-C / SIGTERM; every blocking builtin honours it.
	Ctx context.Context
	// Script is the path of the main script ("<repl>" in the REPL).
	Script string
	// OutDir is where results, stores and figures go; it may not exist yet:
	// writers call EnsureOutDir.
	OutDir string
	// Target names what the session drives: "embedded", "vcenter" or "local";
	// "none" for `starbench report`, which reads a store and drives no cluster.
	Target string
	// Stdout receives results; Stderr receives print() output and events.
	Stdout, Stderr io.Writer
	// Verbose makes print() show the script position.
	Verbose bool
	// NoProgress asks for line-mode events instead of progress bars.
	NoProgress bool
	// Testbed names the simulated cluster profile ("" = the target's default).
	Testbed string
	// NoNoise turns off the simulated data plane's seeded run-to-run noise:
	// repeats of a simulated run give identical numbers.
	NoNoise bool
	// Set holds the --set values as typed on the command line, by name;
	// scripts read them typed through args.get(name, default).
	Set map[string]string
	// AllowDisruptive lets a script take hosts of a real cluster out of
	// service (maintenance mode, failures); without it they are refused.
	AllowDisruptive bool
	// Plan asks the campaign engine to print the run plan without running it.
	Plan bool
	// Fresh asks the campaign engine to ignore stored results and start over.
	Fresh bool
	// RerunFailed asks the campaign engine to run again only the failed runs.
	RerunFailed bool
	// From is the campaign store a `starbench report` script reads ("" otherwise).
	From string
	// SayWritten makes Wrote tell Stderr where each file went (the REPL,
	// where no report lists them).
	SayWritten bool

	mu      sync.Mutex
	values  map[any]any
	closers []func()
	written []string
}

const sessionKey = "starbench.session"

// ErrNoSession means a builtin ran on a thread that no session was attached to:
// an internal error, never the script's fault.
var ErrNoSession = errors.New("internal error: no starbench session on this thread")

// ErrPlanPrinted stops a script once a campaign printed its plan under
// --plan: nothing was run, and the command succeeds.
var ErrPlanPrinted = errors.New("plan printed (--plan): nothing was run")

// SetSession attaches s to thread.
func SetSession(thread *starlark.Thread, s *Session) { thread.SetLocal(sessionKey, s) }

// SessionFrom returns the session attached to thread.
func SessionFrom(thread *starlark.Thread) (*Session, error) {
	s, ok := thread.Local(sessionKey).(*Session)
	if !ok || s == nil {
		return nil, ErrNoSession
	}
	return s, nil
}

// Lifetime is the context of what lives as long as the session (a
// simulator, local fio servers): Ctx, else context.Background; never one
// REPL statement's, which ends with the statement.
func (s *Session) Lifetime() context.Context {
	if s.Ctx != nil {
		return s.Ctx
	}
	return context.Background()
}

const contextKey = "starbench.context"

// SetThreadContext makes ctx the context of what thread runs next, in
// place of the session's: the REPL gives each statement its own, so Ctrl-C
// cancels one statement and the session lives on.
func SetThreadContext(thread *starlark.Thread, ctx context.Context) { thread.SetLocal(contextKey, ctx) }

// Context returns the context blocking builtins must honour: the one set
// with SetThreadContext, else the session's, else context.Background when
// the thread has no session (tests that exercise a value in isolation).
func Context(thread *starlark.Thread) context.Context {
	if ctx, ok := thread.Local(contextKey).(context.Context); ok && ctx != nil {
		return ctx
	}
	if s, err := SessionFrom(thread); err == nil && s.Ctx != nil {
		return s.Ctx
	}
	return context.Background()
}

// Key names one typed value kept in a session by the module that owns it.
type Key[T any] struct{ name string }

// NewKey returns a key; keys compare by identity, so each module keeps its own.
func NewKey[T any](name string) *Key[T] { return &Key[T]{name: name} }

// Load returns the session's value under k, creating it with init on first use.
// A failed init is not cached, so the next call tries again. init runs
// without the session's lock, so it may use the session (OnClose, Load of
// other keys); concurrent Loads of k wait for it.
func Load[T any](s *Session, k *Key[T], init func() (T, error)) (T, error) {
	for {
		s.mu.Lock()
		switch e := s.values[k].(type) {
		case loadedValue:
			s.mu.Unlock()
			return e.v.(T), nil
		case *loading:
			s.mu.Unlock()
			<-e.done
			continue
		}
		if s.values == nil {
			s.values = map[any]any{}
		}
		pending := &loading{done: make(chan struct{})}
		s.values[k] = pending
		s.mu.Unlock()
		return runInit(s, k, pending, init)
	}
}

// runInit runs the init of k and records its value. An init that fails or
// panics leaves no value, and whoever waits for it tries again.
func runInit[T any](s *Session, k *Key[T], pending *loading, init func() (T, error)) (v T, err error) {
	ok := false
	defer func() {
		s.mu.Lock()
		if ok && err == nil {
			s.values[k] = loadedValue{v}
		} else {
			delete(s.values, k)
		}
		s.mu.Unlock()
		close(pending.done)
	}()
	v, err = init()
	ok = true
	return v, err
}

// loading marks a value whose init is running; done closes when it ends.
type loading struct{ done chan struct{} }

// loadedValue holds a value Load created.
type loadedValue struct{ v any }

// EnsureOutDir creates the output directory if needed and returns it.
func (s *Session) EnsureOutDir() (string, error) {
	if s.OutDir == "" {
		return "", errors.New("internal error: session has no output directory")
	}
	if err := os.MkdirAll(s.OutDir, 0o755); err != nil {
		return "", fmt.Errorf("cannot create output directory: %w", err)
	}
	return s.OutDir, nil
}

// Wrote records that the session wrote the file at path (a figure, a
// campaign store), so what it wrote is known without guessing from file
// times, e.g. which figures a report embeds.
func (s *Session) Wrote(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.written, path) {
		s.written = append(s.written, path)
	}
	if s.SayWritten && s.Stderr != nil {
		fmt.Fprintf(s.Stderr, "wrote %s\n", path)
	}
}

// Written returns the files the session wrote, in the order first written.
func (s *Session) Written() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.written)
}

// OnClose registers f to run when the session ends (last registered, first run).
func (s *Session) OnClose(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closers = append(s.closers, f)
}

// Close runs the functions registered with OnClose; it is safe to call twice.
func (s *Session) Close() {
	s.mu.Lock()
	closers := s.closers
	s.closers = nil
	s.mu.Unlock()
	for i := len(closers) - 1; i >= 0; i-- {
		closers[i]()
	}
}
