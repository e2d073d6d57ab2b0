package campaign

import (
	"starbench/internal/fio"
	"starbench/internal/store"
)

// Observer follows a campaign as it runs (live metrics for dashboards). The
// engine calls it from the campaign's goroutine; Sample may come from the
// goroutine of a workload's progress.
type Observer interface {
	// CampaignStarted: total runs are planned, stored of them already in the store.
	CampaignStarted(name string, simulated bool, total, stored int)
	// RunsAdded: n more runs were planned (extra repeats of a flagged cell).
	RunsAdded(n int)
	RunStarted(k store.RunKey)
	// RunStored: a run was committed, with its result or its error.
	RunStored(k store.RunKey, res *fio.Result, err error)
	// Sample is a progress sample of the run in flight.
	Sample(s fio.Status)
	// CampaignEnded: the campaign stopped; complete says every run is stored.
	CampaignEnded(complete bool)
}

// noObserver observes nothing.
type noObserver struct{}

func (noObserver) CampaignStarted(string, bool, int, int)     {}
func (noObserver) RunsAdded(int)                              {}
func (noObserver) RunStarted(store.RunKey)                    {}
func (noObserver) RunStored(store.RunKey, *fio.Result, error) {}
func (noObserver) Sample(fio.Status)                          {}
func (noObserver) CampaignEnded(bool)                         {}
