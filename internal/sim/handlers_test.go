package sim

import (
	"context"
	"testing"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

// TestPolicyOnlyEditsSkipTheDeviceChurn: an edit that only gives a disk a
// policy is taken out of the reconfiguration vcsim runs, and the policy is
// kept; an edit that also changes the disk is left in, and both take effect.
func TestPolicyOnlyEditsSkipTheDeviceChurn(t *testing.T) {
	s, c := startInProcess(t, Options{})
	ctx := context.Background()
	vm := cloneTemplate(t, c)
	devices, err := vm.Device(ctx)
	if err != nil {
		t.Fatal(err)
	}
	disks := devices.SelectByType((*types.VirtualDisk)(nil))
	if len(disks) == 0 {
		t.Fatal("the clone has no disk")
	}
	disk := disks[0].(*types.VirtualDisk)
	policy := func(id string) []types.BaseVirtualMachineProfileSpec {
		return []types.BaseVirtualMachineProfileSpec{&types.VirtualMachineDefinedProfileSpec{ProfileId: id}}
	}
	policyOnly := &types.VirtualDeviceConfigSpec{Operation: types.VirtualDeviceConfigSpecOperationEdit, Device: disk, Profile: policy("p1")}
	annotated := types.VirtualMachineConfigSpec{Annotation: "kept", DeviceChange: []types.BaseVirtualDeviceConfigSpec{policyOnly}}

	simVM := s.model.Map().Get(vm.Reference()).(*simulator.VirtualMachine)
	simCtx := *s.model.Service.Context
	simCtx.Map = s.model.Map()
	got, changed := withoutPolicyOnlyEdits(&simCtx, simVM, annotated)
	if !changed || len(got.DeviceChange) != 0 || got.Annotation != "kept" {
		t.Errorf("policy-only edit: changed %v, %d device changes left, annotation %q; want it taken out and the rest kept", changed, len(got.DeviceChange), got.Annotation)
	}

	task, err := vm.Reconfigure(ctx, annotated)
	if err != nil {
		t.Fatal(err)
	}
	if err := task.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	key := diskKey(vm.Reference().Value, disk.Key)
	if p := s.policies.get(key); p != "p1" {
		t.Errorf("after the policy-only edit the disk has policy %q, want p1", p)
	}

	grown := *disk
	grown.CapacityInKB *= 2
	resize := &types.VirtualDeviceConfigSpec{Operation: types.VirtualDeviceConfigSpecOperationEdit, Device: &grown, Profile: policy("p2")}
	spec := types.VirtualMachineConfigSpec{DeviceChange: []types.BaseVirtualDeviceConfigSpec{resize}}
	if _, changed := withoutPolicyOnlyEdits(&simCtx, simVM, spec); changed {
		t.Error("an edit that grows the disk was taken out")
	}
	if task, err = vm.Reconfigure(ctx, spec); err != nil {
		t.Fatal(err)
	}
	if err := task.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := vm.Device(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := after.FindByKey(disk.Key).(*types.VirtualDisk); d.CapacityInKB != grown.CapacityInKB {
		t.Errorf("disk of %d KB after growing it to %d", d.CapacityInKB, grown.CapacityInKB)
	}
	if p := s.policies.get(key); p != "p2" {
		t.Errorf("after the resize the disk has policy %q, want p2", p)
	}
}
