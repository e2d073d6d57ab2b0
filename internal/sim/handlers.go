package sim

import (
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// vimHandler routes vim25 calls to the simulator's extensions: injected
// faults first, then the methods the stock simulator lacks or gets wrong.
func (s *Sim) vimHandler(ctx *simulator.Context, m *simulator.Method) (mo.Reference, types.BaseMethodFault) {
	if f := s.faults.pick(m.Name); f != nil {
		if isTaskMethod(m.Name) {
			return &failing{ref: m.This, fault: f}, nil
		}
		return nil, f
	}
	obj := ctx.Map.Get(m.This)
	switch m.Name {
	case "PowerOnVM_Task":
		if vm, ok := obj.(*simulator.VirtualMachine); ok {
			return &guestVM{VirtualMachine: vm, sim: s}, nil
		}
	case "ReconfigVM_Task":
		if vm, ok := obj.(*simulator.VirtualMachine); ok {
			return &policyVM{VirtualMachine: vm, sim: s}, nil
		}
	case "UpdatePortGroup":
		if ns, ok := obj.(*simulator.HostNetworkSystem); ok {
			return &hostNetwork{HostNetworkSystem: ns}, nil
		}
	case "QueryPerf":
		if pm, ok := obj.(*simulator.PerformanceManager); ok {
			return &perfManager{PerformanceManager: pm, sim: s}, nil
		}
	}
	return nil, nil
}
