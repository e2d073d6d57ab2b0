package sim

import (
	"bytes"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
	"github.com/vmware/govmomi/vim25/xml"
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
			if spec, changed := withoutPolicyOnlyEdits(ctx, vm, req.Spec); changed {
				m.Body = &types.ReconfigVM_Task{This: req.This, Spec: spec}
			}
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

// withoutPolicyOnlyEdits returns spec without its policy-only edits, and
// whether it had any: edits that give a disk a storage policy and leave the
// disk as it is (no file operation, the device as the VM has it). The
// simulator keeps the policies itself (diskPolicies.record), and vcsim
// would remove and add each such disk again, refreshing all of the VM's
// storage every time, to end where it began.
func withoutPolicyOnlyEdits(ctx *simulator.Context, vm *simulator.VirtualMachine, spec types.VirtualMachineConfigSpec) (types.VirtualMachineConfigSpec, bool) {
	var edits []*types.VirtualDeviceConfigSpec
	for _, ch := range spec.DeviceChange {
		cs := ch.GetVirtualDeviceConfigSpec()
		if cs.Operation == types.VirtualDeviceConfigSpecOperationEdit && cs.FileOperation == "" && len(cs.Profile) > 0 {
			edits = append(edits, cs)
		}
	}
	if len(edits) == 0 {
		return spec, false
	}
	unchanged := map[*types.VirtualDeviceConfigSpec]bool{}
	ctx.WithLock(vm.Self, func() {
		devices := object.VirtualDeviceList(vm.Config.Hardware.Device)
		for _, cs := range edits {
			if now := devices.FindByKey(cs.Device.GetVirtualDevice().Key); now != nil && sameDevice(now, cs.Device) {
				unchanged[cs] = true
			}
		}
	})
	if len(unchanged) == 0 {
		return spec, false
	}
	var kept []types.BaseVirtualDeviceConfigSpec
	for _, ch := range spec.DeviceChange {
		if !unchanged[ch.GetVirtualDeviceConfigSpec()] {
			kept = append(kept, ch)
		}
	}
	spec.DeviceChange = kept
	return spec, true
}

// sameDevice says whether two devices are the same as the API would send
// them (an absent list and an empty one alike).
func sameDevice(a, b types.BaseVirtualDevice) bool {
	x, errA := xml.Marshal(a)
	y, errB := xml.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(x, y)
}
