package builtins

import "starbench/internal/runtime"

// NewFioModule returns the `fio` module: fio workloads across workers.
func NewFioModule(deps Deps) *runtime.Module {
	return &runtime.Module{
		Name:    "fio",
		Doc:     "fio workloads across workers",
		Members: []runtime.Member{},
	}
}
