package builtins

import "starbench/internal/runtime"

// NewClusterModule returns the `cluster` module: vSAN cluster settings.
func NewClusterModule(deps Deps) *runtime.Module {
	return &runtime.Module{
		Name:    "cluster",
		Doc:     "vSAN cluster settings",
		Members: []runtime.Member{},
	}
}
