// Package builtins holds starbench's Starlark modules, one file each. Modules
// translate between Starlark and the internal packages, which do the work.
package builtins

import (
	"context"
	"errors"

	"go.starlark.net/starlark"

	"starbench/internal/runtime"
	"starbench/internal/target"
)

// Deps is what modules are built with. Tests hand in their own (an in-process
// simulator, a fake opener); the CLI hands in the real ones.
type Deps struct {
	// OpenTarget opens a target ("embedded", "vcenter", "local"); nil means
	// target.Open. It is called once per session: on first use with the
	// session's target and testbed, or by vsphere.connect with its arguments.
	// The returned close function runs when the session ends.
	OpenTarget func(ctx context.Context, opts target.Options) (*target.Target, func(), error)
	// Env reads environment variables (GOVC_URL, ...); nil reads none.
	Env func(string) string
}

var targetKey = runtime.NewKey[*target.Target]("target")

// target returns the session's target, opening it on first use.
func (d Deps) target(thread *starlark.Thread) (*target.Target, error) {
	s, err := runtime.SessionFrom(thread)
	if err != nil {
		return nil, err
	}
	return d.open(s, target.Options{Kind: target.Kind(s.Target), Testbed: s.Testbed})
}

// errOpened is returned by open when the session's target is already open.
var errOpened = errors.New("target already open")

// open opens the session's target with opts, once; a session whose target is
// already open keeps it.
func (d Deps) open(s *runtime.Session, opts target.Options) (*target.Target, error) {
	return runtime.Load(s, targetKey, func() (*target.Target, error) {
		open := d.OpenTarget
		if open == nil {
			open = target.Open
		}
		if opts.Env == nil {
			opts.Env = d.env
		}
		ctx := s.Ctx
		if ctx == nil {
			ctx = context.Background()
		}
		t, closeFn, err := open(ctx, opts)
		if err != nil {
			return nil, err
		}
		if closeFn != nil {
			s.OnClose(closeFn)
		}
		return t, nil
	})
}

// env reads the environment Deps was given.
func (d Deps) env(key string) string {
	if d.Env == nil {
		return ""
	}
	return d.Env(key)
}
