package builtins

import "starbench/internal/runtime"

// NewCampaignModule returns the `campaign` module: matrices of cluster settings, repeated and stored.
func NewCampaignModule(deps Deps) *runtime.Module {
	return &runtime.Module{
		Name:    "campaign",
		Doc:     "matrices of cluster settings, repeated and stored",
		Members: []runtime.Member{},
	}
}
