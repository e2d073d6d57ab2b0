package sim

import (
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// vimHandler sees every vim25 call before the simulator serves it. It
// injects faults, and does what the stock simulator leaves out of the VM
// methods: guest IPs at power-on and the storage policies of disks at
// reconfiguration (forgotten with the VM). (A replacement handler it returned would be ignored for
// inventory objects, so it works by side effect.)
func (s *Sim) vimHandler(ctx *simulator.Context, m *simulator.Method) (mo.Reference, types.BaseMethodFault) {
	if f := s.faults.pick(m.Name); f != nil {
		return nil, f
	}
	routeHostCall(m)
	if m.Name == "CancelTask" && s.holds.cancel(m.This) {
		return &cancelAccepted{m.This}, nil
	}
	vm, ok := ctx.Map.Get(m.This).(*simulator.VirtualMachine)
	if !ok {
		return nil, nil
	}
	switch m.Name {
	case "PowerOnVM_Task":
		s.reportGuest(ctx, vm, true)
	case "PowerOffVM_Task":
		s.reportGuest(ctx, vm, false)
	case "ReconfigVM_Task":
		if req, ok := m.Body.(*types.ReconfigVM_Task); ok {
			s.policies.record(vm.Self.Value, &req.Spec)
		}
	case "Destroy_Task":
		off := false
		ctx.WithLock(vm, func() { off = vm.Runtime.PowerState != types.VirtualMachinePowerStatePoweredOn })
		if off { // a powered-on VM refuses to go
			s.policies.forget(vm.Self.Value)
		}
	}
	return nil, nil
}
