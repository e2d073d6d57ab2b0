// Package builtins holds starbench's Starlark modules, one file each. Modules
// translate between Starlark and the internal packages, which do the work.
package builtins

import (
	"context"

	"go.starlark.net/starlark"

	"starbench/internal/campaign"
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
	// Observer follows the campaigns the session runs (live metrics); nil: none.
	Observer campaign.Observer
}

var targetKey = runtime.NewKey[*target.Target]("target")

// target returns the session's target, opening it on first use.
func (d Deps) target(thread *starlark.Thread) (*target.Target, error) {
	s, err := runtime.SessionFrom(thread)
	if err != nil {
		return nil, err
	}
	t, _, err := d.open(s, target.Options{Kind: target.Kind(s.Target), Testbed: s.Testbed})
	return t, err
}

// open opens the session's target with opts, once; a session whose target is
// already open keeps it, and fresh is false.
func (d Deps) open(s *runtime.Session, opts target.Options) (t *target.Target, fresh bool, err error) {
	var closeFn func()
	t, err = runtime.Load(s, targetKey, func() (*target.Target, error) {
		fresh = true
		open := d.OpenTarget
		if open == nil {
			open = target.Open
		}
		if opts.Env == nil {
			opts.Env = d.env
		}
		opts.ExactModel = opts.ExactModel || s.NoNoise
		if s.Plan {
			// --plan is a dry run: whatever the script targets, the
			// control plane is the embedded simulator, so nothing real
			// is touched before the plan is printed.
			opts.Kind, opts.VSphere = target.Embedded, nil
		}
		var t *target.Target
		var err error
		t, closeFn, err = open(s.Lifetime(), opts)
		return t, err
	})
	if err == nil && closeFn != nil {
		s.OnClose(closeFn)
	}
	if err == nil && fresh {
		err = keepLedger(s, t)
	}
	if err == nil && fresh && t.VSphere != nil {
		// What events of a crashed run left changed on this cluster is set
		// back before the script touches anything (docs/events.md).
		_, err = recoverChanges(s, t)
	}
	return t, fresh, err
}

// env reads the environment Deps was given.
func (d Deps) env(key string) string {
	if d.Env == nil {
		return ""
	}
	return d.Env(key)
}
