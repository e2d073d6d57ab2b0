package builtins

import "starbench/internal/runtime"

// Modules returns every starbench module, built with deps, in doc order.
func Modules(deps Deps) []*runtime.Module {
	return []*runtime.Module{
		NewVSphereModule(deps),
		NewPolicyModule(deps),
		NewClusterModule(deps),
		NewFioModule(deps),
		NewEventsModule(deps),
		NewCampaignModule(deps),
		NewStoreModule(deps),
		NewFrameModule(deps),
		NewPlotModule(deps),
	}
}
