package sim

import (
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// Version counts the changes to the simulated inventory and configuration:
// it moves on every call that is not a read, when such a call returns (in
// process), and when a task finishes. A client may keep what it read while
// the version stands still (vsphere.Options.Version); what hosts report as
// metrics (RecordHostCPU) is no change.
func (s *Sim) Version() uint64 { return s.version.Load() }

// readOnly are the methods that change nothing a client reads back: reads,
// and the per-session views and filters reads go through.
var readOnly = map[string]bool{
	// vim25
	"RetrieveServiceContent": true, "RetrieveProperties": true, "RetrievePropertiesEx": true,
	"ContinueRetrievePropertiesEx": true, "CancelRetrievePropertiesEx": true, "Fetch": true,
	"CreateFilter": true, "DestroyPropertyFilter": true, "WaitForUpdates": true, "WaitForUpdatesEx": true,
	"CheckForUpdates": true, "CreatePropertyCollector": true, "DestroyPropertyCollector": true,
	"CreateContainerView": true, "CreateListView": true, "DestroyView": true,
	"CurrentTime": true, "SessionIsActive": true,
	"QueryPerf": true, "QueryPerfCounter": true, "QueryPerfCounterByLevel": true,
	"QueryAvailablePerfMetric": true, "QueryPerfProviderSummary": true,
	// SPBM
	"PbmRetrieveServiceContent": true, "PbmQueryProfile": true, "PbmRetrieveContent": true,
	"PbmQueryAssociatedProfile": true, "PbmQueryAssociatedProfiles": true, "PbmQueryAssociatedEntity": true,
	"PbmQueryAssociatedEntities": true, "PbmCheckCompliance": true, "PbmFetchComplianceResult": true,
	"PbmQueryMatchingHub": true, "PbmFetchCapabilityMetadata": true, "PbmFetchResourceType": true,
	// vSAN
	"VsanClusterGetConfig": true, "VsanPerfQueryPerf": true,
}

// changed notes that method may have changed something.
func (s *Sim) changed(method string) {
	if !readOnly[method] {
		s.version.Add(1)
	}
}

// versioned wraps a registry's handler hook so that every call that is not
// a read moves the version before the simulator serves it.
func (s *Sim) versioned(next func(*simulator.Context, *simulator.Method) (mo.Reference, types.BaseMethodFault)) func(*simulator.Context, *simulator.Method) (mo.Reference, types.BaseMethodFault) {
	return func(ctx *simulator.Context, m *simulator.Method) (mo.Reference, types.BaseMethodFault) {
		s.changed(m.Name)
		if next == nil {
			return nil, nil
		}
		return next(ctx, m)
	}
}

// taskVersions moves the version when a task's body has run: tasks change
// the inventory after the call that started them returned.
type taskVersions struct{ sim *Sim }

var taskVersionsRef = types.ManagedObjectReference{Type: "StarbenchTaskVersions", Value: "task-versions"}

func (v *taskVersions) Reference() types.ManagedObjectReference { return taskVersionsRef }

func (v *taskVersions) PutObject(_ *simulator.Context, obj mo.Reference) {
	t, ok := obj.(*simulator.Task)
	if !ok || t.Execute == nil {
		return
	}
	body := t.Execute
	t.Execute = func(t *simulator.Task) (types.AnyType, types.BaseMethodFault) {
		defer v.sim.version.Add(1)
		return body(t)
	}
}

func (v *taskVersions) UpdateObject(*simulator.Context, mo.Reference, []types.PropertyChange) {}
func (v *taskVersions) RemoveObject(*simulator.Context, types.ManagedObjectReference)         {}
