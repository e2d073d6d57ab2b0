package deepcopy

import (
	"reflect"
	"testing"

	"github.com/vmware/govmomi/vim25/types"
)

func TestDeepCopyCopiesEverythingReachable(t *testing.T) {
	on := true
	src := &types.VirtualMachineConfigSpec{
		Annotation: "a",
		DeviceChange: []types.BaseVirtualDeviceConfigSpec{&types.VirtualDeviceConfigSpec{
			Device: &types.VirtualDisk{CapacityInKB: 1, VirtualDevice: types.VirtualDevice{Key: 7, Connectable: &types.VirtualDeviceConnectInfo{Connected: true}}},
		}},
		MemoryHotAddEnabled: &on,
		ExtraConfig:         []types.BaseOptionValue{&types.OptionValue{Key: "k", Value: "v"}},
	}
	dst := Of(src)
	if !reflect.DeepEqual(src, dst) {
		t.Fatalf("copy %+v differs from %+v", dst, src)
	}
	disk := dst.DeviceChange[0].GetVirtualDeviceConfigSpec().Device.(*types.VirtualDisk)
	disk.CapacityInKB, disk.Connectable.Connected = 2, false
	*dst.MemoryHotAddEnabled = false
	dst.ExtraConfig[0].(*types.OptionValue).Value = "w"
	orig := src.DeviceChange[0].GetVirtualDeviceConfigSpec().Device.(*types.VirtualDisk)
	if orig.CapacityInKB != 1 || !orig.Connectable.Connected || !*src.MemoryHotAddEnabled || src.ExtraConfig[0].(*types.OptionValue).Value != "v" {
		t.Errorf("changing the copy changed the original: %+v", src)
	}
}

func TestDeepCopyCopiesMapsAndArrays(t *testing.T) {
	type inner struct{ Tags []string }
	src := map[string]*inner{"a": {Tags: []string{"x"}}}
	arr := [2][]int{{1}, {2}}
	dst, arrCopy := Of(src), Of(arr)
	dst["a"].Tags[0], arrCopy[1][0] = "changed", 9
	dst["b"] = nil
	if src["a"].Tags[0] != "x" || len(src) != 1 || arr[1][0] != 2 {
		t.Errorf("changing the copies changed the originals: %v %v", src["a"], arr)
	}
}
