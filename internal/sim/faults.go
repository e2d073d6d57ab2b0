package sim

import (
	"math/rand"
	"sync"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// Fault makes a share of the calls of one method fail. Task methods
// (CloneVM_Task, ReconfigVM_Task) fail as a real vCenter fails them: the call
// returns a task, and the task ends in error with the fault.
type Fault struct {
	Method string  // SOAP method name, e.g. "CloneVM_Task"
	Rate   float64 // 0..1
	// Fault returns the fault to report; nil reports a SystemError.
	Fault func() types.BaseMethodFault
}

// injector decides which calls fail. Unlike vcsim's own fault injector it
// draws from a locked random source, so concurrent calls do not race.
type injector struct {
	mu     sync.Mutex
	rng    *rand.Rand
	faults map[string]Fault
}

func newInjector(seed int64) *injector {
	if seed == 0 {
		seed = rand.Int63()
	}
	return &injector{rng: rand.New(rand.NewSource(seed))}
}

func (in *injector) set(faults []Fault) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.faults = map[string]Fault{}
	for _, f := range faults {
		in.faults[f.Method] = f
	}
}

// pick returns the fault to inject into a call of method, or nil.
func (in *injector) pick(method string) types.BaseMethodFault {
	in.mu.Lock()
	defer in.mu.Unlock()
	f, ok := in.faults[method]
	if !ok || in.rng.Float64() >= f.Rate {
		return nil
	}
	if f.Fault == nil {
		return &types.SystemError{Reason: "injected fault"}
	}
	return f.Fault()
}

// failing answers a task method with a task that fails with fault.
type failing struct {
	ref   types.ManagedObjectReference
	fault types.BaseMethodFault
}

func (f *failing) Reference() types.ManagedObjectReference { return f.ref }

func (f *failing) task(ctx *simulator.Context, name string) types.ManagedObjectReference {
	return simulator.CreateTask(f, name, func(*simulator.Task) (types.AnyType, types.BaseMethodFault) {
		return nil, f.fault
	}).Run(ctx)
}

func (f *failing) CloneVMTask(ctx *simulator.Context, _ *types.CloneVM_Task) soap.HasFault {
	return &methods.CloneVM_TaskBody{Res: &types.CloneVM_TaskResponse{Returnval: f.task(ctx, "cloneVm")}}
}

func (f *failing) ReconfigVMTask(ctx *simulator.Context, _ *types.ReconfigVM_Task) soap.HasFault {
	return &methods.ReconfigVM_TaskBody{Res: &types.ReconfigVM_TaskResponse{Returnval: f.task(ctx, "reconfigVm")}}
}

func (f *failing) PowerOnVMTask(ctx *simulator.Context, _ *types.PowerOnVM_Task) soap.HasFault {
	return &methods.PowerOnVM_TaskBody{Res: &types.PowerOnVM_TaskResponse{Returnval: f.task(ctx, "powerOn")}}
}

// isTaskMethod says whether an injected fault fails the task rather than the call.
func isTaskMethod(name string) bool {
	switch name {
	case "CloneVM_Task", "ReconfigVM_Task", "PowerOnVM_Task":
		return true
	}
	return false
}
