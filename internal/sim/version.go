package sim

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// Version counts the changes to the simulated inventory and configuration:
// it moves on every call that is not a read, when such a call returns (in
// process), and when a task finishes. A client may keep what it read while
// the version stands still (vsphere.Options.Versions); what hosts report as
// metrics (RecordHostCPU) is no change.
func (s *Sim) Version() uint64 { return s.version.Load() }

// VMVersion is Version without the changes that leave every VM as it was
// (cluster settings: vSAN services, uplinks): it moves when what a read of
// worker VMs returns (hosts, guest IPs, devices, the names of their disks'
// policies) may have changed.
func (s *Sim) VMVersion() uint64 { return s.vmVersion.Load() }

// vmNeutral are the changes that leave every VM as it was, by method and
// by task name, with a lower-case first letter (vcsim names a task by its
// method, or as its creator said, with either case).
var vmNeutral = map[string]bool{
	"vsanClusterReconfig":         true,
	"reconfigureDVPortgroup_Task": true, "reconfigureDvPortgroup": true,
	"reconfigureDvs_Task": true, "reconfigureDvs": true,
	"updatePortGroup": true, "updateVirtualSwitch": true, "updateVirtualNic": true, "updatePhysicalNicLinkSpeed": true,
	"pbmCreate": true,
}

// bump moves the versions for a change by the method or task name.
func (s *Sim) bump(name string) {
	s.version.Add(1)
	if name == "" || !vmNeutral[strings.ToLower(name[:1])+name[1:]] {
		s.vmVersion.Add(1)
	}
}

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
		s.bump(method)
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

// taskWatch moves the version when a task's body has run (tasks change the
// inventory after the call that started them returned) and tells in-process
// calls when the tasks they started have ended.
//
// It also holds each running task's lock, on behalf of the context that
// runs the task, from its start until it ends: a task body that started a
// task of its own (a clone's CreateVM, a destroy's disk deletions) waits for
// it in vcsim's Task.Wait, which checks the task's state under that lock and
// otherwise sleeps 10 ms between checks. Held so, the first check returns
// when the task has ended instead of after a sleep. A task a Hold keeps is
// left unlocked, so that its state stays readable while it is held.
type taskWatch struct {
	sim *Sim

	mu      sync.Mutex
	running map[types.ManagedObjectReference]chan struct{} // closed when the task ends
	unlock  map[types.ManagedObjectReference]func()        // releases a running task's lock
}

var taskWatchRef = types.ManagedObjectReference{Type: "StarbenchTaskWatch", Value: "task-watch"}

func (w *taskWatch) Reference() types.ManagedObjectReference { return taskWatchRef }

func (w *taskWatch) PutObject(_ *simulator.Context, obj mo.Reference) {
	t, ok := obj.(*simulator.Task)
	if !ok || t.Execute == nil {
		return
	}
	w.mu.Lock()
	if w.running == nil {
		w.running = map[types.ManagedObjectReference]chan struct{}{}
	}
	w.running[t.Self] = make(chan struct{})
	w.mu.Unlock()
	body, name := t.Execute, t.Info.Name
	t.Execute = func(t *simulator.Task) (types.AnyType, types.BaseMethodFault) {
		defer w.sim.bump(name)
		return body(t)
	}
}

// UpdateObject sees a task's state change to running, and to success or
// error. vcsim makes both changes under the task's lock, on behalf of the
// context the task runs in (ctx), so taking the lock again is immediate.
func (w *taskWatch) UpdateObject(ctx *simulator.Context, obj mo.Reference, changes []types.PropertyChange) {
	ref := obj.Reference()
	if ref.Type != "Task" {
		return
	}
	for _, c := range changes {
		if c.Name != "info.state" {
			continue
		}
		switch st, _ := c.Val.(types.TaskInfoState); st {
		case types.TaskInfoStateRunning:
			w.lock(ctx, ref)
		case types.TaskInfoStateSuccess, types.TaskInfoStateError:
			w.mu.Lock()
			if done, ok := w.running[ref]; ok {
				close(done)
				delete(w.running, ref)
			}
			unlock := w.unlock[ref]
			delete(w.unlock, ref)
			w.mu.Unlock()
			if unlock != nil {
				unlock()
			}
		}
	}
}

// lock takes the lock of a task that starts running, unless a Hold keeps it.
func (w *taskWatch) lock(ctx *simulator.Context, task types.ManagedObjectReference) {
	w.mu.Lock()
	_, run := w.running[task]
	_, locked := w.unlock[task]
	w.mu.Unlock()
	if !run || locked || w.sim.holds.isHeld(task) {
		return
	}
	unlock := ctx.Map.AcquireLock(ctx, task)
	w.mu.Lock()
	if w.unlock == nil {
		w.unlock = map[types.ManagedObjectReference]func(){}
	}
	w.unlock[task] = unlock
	w.mu.Unlock()
}

func (w *taskWatch) RemoveObject(_ *simulator.Context, ref types.ManagedObjectReference) {}

// wait returns when task has ended, after at most limit, or when ctx ends.
func (w *taskWatch) wait(ctx context.Context, task types.ManagedObjectReference, limit time.Duration) {
	w.mu.Lock()
	done, ok := w.running[task]
	w.mu.Unlock()
	if !ok {
		return
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	case <-ctx.Done():
	}
}
