package sim

import (
	"sync"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// taskGate sees every task before the simulator starts running it. It fails
// the tasks an injected fault names, holds the tasks a Hold names, and runs
// the bodies of the tasks that create, resize or delete disks one at a time:
// vcsim copies a datastore's whole state without its lock while resolving
// vSAN paths, and another task updating the datastore's free space at that
// moment is a data race (go test -race reports it). The task bodies take
// microseconds; the calls around them, with their latency, still run in
// parallel.
type taskGate struct {
	sim *Sim
	mu  sync.Mutex

	// deletes are the file deletions started while a gated body runs: a
	// destroy deletes the VM's files in a task of its own and does not wait
	// for it, so the gate waits for them before the next body.
	deletesMu sync.Mutex
	deletes   []chan struct{}
}

// gatedTasks are the tasks (as vcsim names them) whose bodies touch
// datastores. A clone's nested CreateVM task runs inside the clone's body
// and is not gated itself.
var gatedTasks = map[string]bool{"CloneVm": true, "ReconfigVm": true, "RelocateVm": true, "Destroy": true}

var taskGateRef = types.ManagedObjectReference{Type: "StarbenchTaskGate", Value: "task-gate"}

func (g *taskGate) Reference() types.ManagedObjectReference { return taskGateRef }

// PutObject wraps a new task's body before the simulator starts running it.
func (g *taskGate) PutObject(_ *simulator.Context, obj mo.Reference) {
	t, ok := obj.(*simulator.Task)
	if !ok {
		return
	}
	name := t.Info.Name
	if name == "DeleteDatastoreFile" {
		g.track(t)
	}
	var fault types.BaseMethodFault
	var hold *heldTask
	if g.sim != nil {
		fault = g.sim.faults.pickTask(name)
		hold = g.sim.holds.take(name, t.Self)
	}
	if fault == nil && hold == nil && !gatedTasks[name] {
		return
	}
	body := t.Execute
	run := func(t *simulator.Task) (types.AnyType, types.BaseMethodFault) {
		if !gatedTasks[name] {
			return body(t)
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		defer g.waitDeletes()
		return body(t)
	}
	t.Execute = func(t *simulator.Task) (types.AnyType, types.BaseMethodFault) {
		if hold != nil && <-hold.stop {
			if name == "CloneVm" { // cancelled late: the clone is there
				_, _ = run(t)
			}
			close(hold.stopped)
			return nil, &types.RequestCanceled{}
		}
		if fault != nil {
			return nil, fault
		}
		return run(t)
	}
}

// track notes a file deletion, to be waited for by the gate.
func (g *taskGate) track(t *simulator.Task) {
	done := make(chan struct{})
	body := t.Execute
	t.Execute = func(t *simulator.Task) (types.AnyType, types.BaseMethodFault) {
		defer close(done)
		return body(t)
	}
	g.deletesMu.Lock()
	g.deletes = append(g.deletes, done)
	g.deletesMu.Unlock()
}

// waitDeletes waits for the file deletions started so far.
func (g *taskGate) waitDeletes() {
	g.deletesMu.Lock()
	deletes := g.deletes
	g.deletes = nil
	g.deletesMu.Unlock()
	for _, done := range deletes {
		<-done
	}
}

func (g *taskGate) UpdateObject(*simulator.Context, mo.Reference, []types.PropertyChange) {}
func (g *taskGate) RemoveObject(*simulator.Context, types.ManagedObjectReference)         {}
