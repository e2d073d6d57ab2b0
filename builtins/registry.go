package builtins

import "starbench/internal/runtime"

// Modules returns every starbench module, built with deps, in doc order.
func Modules(deps Deps) []*runtime.Module {
	return []*runtime.Module{
		NewVSphereModule(deps).With(workerDoc),
		NewPolicyModule(deps).With(policyDoc),
		NewClusterModule(deps),
		NewFioModule(deps).With(jobDoc, workloadDocType),
		NewHCIBenchModule(deps),
		NewEventsModule(deps).With(eventDoc, eventWorkloadDoc, eventsResultDoc),
		NewCampaignModule(deps).With(campaignDoc, factorDoc, workloadDoc),
		NewStoreModule(deps).With(storeDoc),
		NewFrameModule(deps),
		NewPlotModule(deps),
	}
}
