package cli

import (
	"context"
	"errors"

	"starbench/builtins"
	"starbench/internal/target"
)

func (st *State) deps() builtins.Deps {
	open := st.OpenTarget
	if open == nil {
		open = openTarget
	}
	return builtins.Deps{OpenTarget: open, Env: func(k string) string { return st.Env[k] }, Observer: st.observer}
}

// openTarget opens the target a session names.
func openTarget(ctx context.Context, opts target.Options) (*target.Target, func(), error) {
	if opts.Kind == "none" {
		return nil, nil, errors.New("starbench report drives no cluster: read the store given with --from, or use starbench run")
	}
	return target.Open(ctx, opts)
}
