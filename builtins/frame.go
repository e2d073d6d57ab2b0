package builtins

import "starbench/internal/runtime"

// NewFrameModule returns the `frame` module: dataframes.
func NewFrameModule(deps Deps) *runtime.Module {
	return &runtime.Module{
		Name:    "frame",
		Doc:     "dataframes",
		Members: []runtime.Member{},
	}
}
