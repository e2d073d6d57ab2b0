// Package builtins holds starbench's Starlark modules, one file each. Modules
// translate between Starlark and the internal packages, which do the work.
package builtins

import (
	"context"

	"go.starlark.net/starlark"

	"starbench/internal/runtime"
	"starbench/internal/target"
)

// Deps is what modules are built with. Tests hand in their own (an in-process
// simulator, a fake opener); the CLI hands in the real ones.
type Deps struct {
	// OpenTarget opens the target a session names ("embedded", "vcenter",
	// "local"). It is called once per session, on first use; the returned
	// close function runs when the session ends.
	OpenTarget func(ctx context.Context, s *runtime.Session) (*target.Target, func(), error)
}

var targetKey = runtime.NewKey[*target.Target]("target")

// target returns the session's target, opening it on first use.
func (d Deps) target(thread *starlark.Thread) (*target.Target, error) {
	s, err := runtime.SessionFrom(thread)
	if err != nil {
		return nil, err
	}
	return runtime.Load(s, targetKey, func() (*target.Target, error) {
		if d.OpenTarget == nil {
			return nil, runtime.ErrNoSession
		}
		t, closeFn, err := d.OpenTarget(s.Ctx, s)
		if err != nil {
			return nil, err
		}
		if closeFn != nil {
			s.OnClose(closeFn)
		}
		return t, nil
	})
}
