package builtins

import "starbench/internal/runtime"

// NewPlotModule returns the `plot` module: report-quality figures.
func NewPlotModule(deps Deps) *runtime.Module {
	return &runtime.Module{
		Name:    "plot",
		Doc:     "report-quality figures",
		Members: []runtime.Member{},
	}
}
