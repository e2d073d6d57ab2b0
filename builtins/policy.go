package builtins

import "starbench/internal/runtime"

// NewPolicyModule returns the `policy` module: vSAN storage policies (SPBM).
func NewPolicyModule(deps Deps) *runtime.Module {
	return &runtime.Module{
		Name:    "policy",
		Doc:     "vSAN storage policies (SPBM)",
		Members: []runtime.Member{},
	}
}
