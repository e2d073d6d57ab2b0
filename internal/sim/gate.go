package sim

import (
	"sync"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// taskGate runs the bodies of the tasks that create, resize or delete disks
// one at a time. vcsim copies a datastore's whole state without its lock
// while resolving vSAN paths, and another task updating the datastore's free
// space at that moment is a data race (go test -race reports it). The task
// bodies take microseconds; the calls around them, with their latency, still
// run in parallel.
type taskGate struct {
	mu sync.Mutex
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
	if !ok || !gatedTasks[t.Info.Name] {
		return
	}
	body := t.Execute
	t.Execute = func(t *simulator.Task) (types.AnyType, types.BaseMethodFault) {
		g.mu.Lock()
		defer g.mu.Unlock()
		return body(t)
	}
}

func (g *taskGate) UpdateObject(*simulator.Context, mo.Reference, []types.PropertyChange) {}
func (g *taskGate) RemoveObject(*simulator.Context, types.ManagedObjectReference)         {}
