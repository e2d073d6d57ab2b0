package builtins

import "starbench/internal/runtime"

// NewStoreModule returns the `store` module: campaign result stores.
func NewStoreModule(deps Deps) *runtime.Module {
	return &runtime.Module{
		Name:    "store",
		Doc:     "campaign result stores",
		Members: []runtime.Member{},
	}
}
