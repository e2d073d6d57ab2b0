package sim

import (
	"fmt"
	"slices"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"

	"starbench/internal/testbed"
)

// A host's vSAN devices, as the testbed profile gives them, and the
// HostVsanSystem calls that take them out of vSAN's use and back, as
// vCenter does them (the stock simulator has no vSAN devices):
//
//   - OSA: disk groups of one cache device and capacity devices, in the
//     host's config.storageInfo (diskMapping and diskMapInfo with its
//     mounted flag). UnmountDiskMapping_Task unmounts a group, keeping its
//     data; AddDisks_Task with a group's cache device mounts it again.
//     RemoveDisk_Task takes a capacity device out of its group, but not the
//     last one (DiskIsLastRemainingNonSSD); AddDisks_Task puts it back.
//   - ESA: single-tier devices with no disk groups; RemoveDisk_Task takes
//     one out of vSAN's use and AddDisks_Task claims it again.
//
// QueryDisksForVsan says which devices vSAN uses (state inUse) and which
// it could (eligible).

// vsanDevice is one device of a host and how vSAN uses it.
type vsanDevice struct {
	disk  types.HostScsiDisk
	cache bool
	group int // OSA: its disk group; ESA: -1
	inUse bool
}

// hostStorage is a host's vSAN devices and its OSA groups' mounted flags.
type hostStorage struct {
	devices []*vsanDevice
	mounted []bool // per OSA disk group
}

// newHostStorage lays out the devices of host number n of profile p.
func newHostStorage(p *testbed.Profile, n int) *hostStorage {
	st := &hostStorage{}
	add := func(dev testbed.Device, cache bool, group int) {
		i := len(st.devices)
		st.devices = append(st.devices, &vsanDevice{disk: scsiDisk(n, i, dev), cache: cache, group: group, inUse: true})
	}
	if p.Architecture != "OSA" {
		for range p.Storage.CapacityDevices {
			add(p.Storage.Capacity, false, -1)
		}
		return st
	}
	for g := range p.Storage.DiskGroups {
		add(p.Storage.Cache, true, g)
		for range p.Storage.CapacityPerGroup {
			add(p.Storage.Capacity, false, g)
		}
		st.mounted = append(st.mounted, true)
	}
	return st
}

// scsiDisk is device i of host n: an NVMe SSD with an NAA name of its own.
func scsiDisk(n, i int, dev testbed.Device) types.HostScsiDisk {
	name := fmt.Sprintf("naa.5000c500%04x%04x", n, i)
	return types.HostScsiDisk{
		ScsiLun: types.ScsiLun{
			HostDevice:    types.HostDevice{DeviceName: "/vmfs/devices/disks/" + name, DeviceType: "disk"},
			Key:           "key-vim.host.ScsiDisk-" + name,
			Uuid:          fmt.Sprintf("0200000000%04x%04x4e564d65", n, i),
			CanonicalName: name,
			DisplayName:   fmt.Sprintf("Local NVMe Disk (%s)", name),
			LunType:       "disk",
			Vendor:        "NVMe",
			Model:         dev.Model,
		},
		Capacity:     types.HostDiskDimensionsLba{BlockSize: 512, Block: int64(dev.CapacityGB * 1e9 / 512)},
		DevicePath:   "/vmfs/devices/disks/" + name,
		Ssd:          types.NewBool(true),
		LocalDisk:    types.NewBool(true),
		VsanDiskInfo: &types.VsanHostVsanDiskInfo{VsanUuid: fmt.Sprintf("52%06x-%04x-%04x-0000-000000000000", n, i, n), FormatVersion: 17},
	}
}

// find returns the device named name.
func (st *hostStorage) find(name string) *vsanDevice {
	for _, d := range st.devices {
		if d.disk.CanonicalName == name {
			return d
		}
	}
	return nil
}

// mapping is OSA disk group g as vSAN uses it: its cache device and the
// capacity devices in use.
func (st *hostStorage) mapping(g int) types.VsanHostDiskMapping {
	var m types.VsanHostDiskMapping
	for _, d := range st.devices {
		switch {
		case d.group != g:
		case d.cache:
			m.Ssd = d.disk
		case d.inUse:
			m.NonSsd = append(m.NonSsd, d.disk)
		}
	}
	return m
}

// info is the host's config.storageInfo: OSA's disk groups (ESA has none).
func (st *hostStorage) info() *types.VsanHostConfigInfoStorageInfo {
	info := &types.VsanHostConfigInfoStorageInfo{AutoClaimStorage: types.NewBool(false)}
	for g, mounted := range st.mounted {
		m := st.mapping(g)
		info.DiskMapping = append(info.DiskMapping, m)
		info.DiskMapInfo = append(info.DiskMapInfo, types.VsanHostDiskMapInfo{Mapping: m, Mounted: mounted})
	}
	return info
}

// groupOf returns the OSA disk group whose cache device is name, or -1.
func (st *hostStorage) groupOf(name string) int {
	if d := st.find(name); d != nil && d.cache {
		return d.group
	}
	return -1
}

// capacityInUse counts the capacity devices group g uses.
func (st *hostStorage) capacityInUse(g int) int {
	n := 0
	for _, d := range st.devices {
		if d.group == g && !d.cache && d.inUse {
			n++
		}
	}
	return n
}

// changeStorage runs f on the host's devices and publishes the host's
// storage configuration as f left it.
func (vs *hostVsanSystem) changeStorage(ctx *simulator.Context, f func(*hostStorage) (types.AnyType, types.BaseMethodFault)) (types.AnyType, types.BaseMethodFault) {
	var res types.AnyType
	var fault types.BaseMethodFault
	ctx.WithLock(vs, func() {
		if res, fault = f(vs.storage); fault != nil {
			return
		}
		ctx.Update(vs, []types.PropertyChange{{Name: "config.storageInfo", Val: vs.storage.info()}})
	})
	return res, fault
}

func (vs *hostVsanSystem) UnmountDiskMappingTask(ctx *simulator.Context, req *types.UnmountDiskMapping_Task) soap.HasFault {
	task := simulator.CreateTask(vs.host, "unmountDiskMapping", func(*simulator.Task) (types.AnyType, types.BaseMethodFault) {
		return vs.changeStorage(ctx, func(st *hostStorage) (types.AnyType, types.BaseMethodFault) {
			var groups []int
			for _, m := range req.Mapping {
				g := st.groupOf(m.Ssd.CanonicalName)
				if g < 0 {
					return nil, &types.InvalidArgument{InvalidProperty: "mapping.ssd"}
				}
				if !st.mounted[g] {
					return nil, &types.InvalidState{}
				}
				groups = append(groups, g)
			}
			var out types.ArrayOfVsanHostDiskMapResult
			for _, g := range groups {
				st.mounted[g] = false
				out.VsanHostDiskMapResult = append(out.VsanHostDiskMapResult, types.VsanHostDiskMapResult{Mapping: st.mapping(g)})
			}
			return out, nil
		})
	})
	return &methods.UnmountDiskMapping_TaskBody{Res: &types.UnmountDiskMapping_TaskResponse{Returnval: task.Run(ctx)}}
}

// AddDisksTask mounts the unmounted disk group of a cache device given, and
// claims again a device vSAN does not use (back into its OSA disk group);
// as vCenter does, it ignores disks it cannot use.
func (vs *hostVsanSystem) AddDisksTask(ctx *simulator.Context, req *types.AddDisks_Task) soap.HasFault {
	task := simulator.CreateTask(vs.host, "addDisks", func(*simulator.Task) (types.AnyType, types.BaseMethodFault) {
		return vs.changeStorage(ctx, func(st *hostStorage) (types.AnyType, types.BaseMethodFault) {
			var out types.ArrayOfVsanHostDiskMapResult
			for _, disk := range req.Disk {
				d := st.find(disk.CanonicalName)
				switch {
				case d == nil:
					continue
				case d.cache && !st.mounted[d.group]:
					st.mounted[d.group] = true
				case !d.inUse:
					d.inUse = true
				default:
					continue
				}
				r := types.VsanHostDiskMapResult{DiskResult: []types.VsanHostDiskResult{{Disk: d.disk, State: string(types.VsanHostDiskResultStateInUse), VsanUuid: d.disk.VsanDiskInfo.VsanUuid}}}
				if d.group >= 0 {
					r.Mapping = st.mapping(d.group)
				}
				out.VsanHostDiskMapResult = append(out.VsanHostDiskMapResult, r)
			}
			return out, nil
		})
	})
	return &methods.AddDisks_TaskBody{Res: &types.AddDisks_TaskResponse{Returnval: task.Run(ctx)}}
}

// RemoveDiskTask takes devices out of vSAN's use. The decommission mode
// (maintenanceSpec.vsanMode) is checked; no data moves in the simulator.
func (vs *hostVsanSystem) RemoveDiskTask(ctx *simulator.Context, req *types.RemoveDisk_Task) soap.HasFault {
	task := simulator.CreateTask(vs.host, "removeDisk", func(*simulator.Task) (types.AnyType, types.BaseMethodFault) {
		if spec := req.MaintenanceSpec; spec != nil && spec.VsanMode != nil && !slices.Contains(vsanModes, spec.VsanMode.ObjectAction) {
			return nil, &types.InvalidArgument{InvalidProperty: "maintenanceSpec.vsanMode.objectAction"}
		}
		return vs.changeStorage(ctx, func(st *hostStorage) (types.AnyType, types.BaseMethodFault) {
			var out types.ArrayOfVsanHostDiskResult
			for _, disk := range req.Disk {
				d := st.find(disk.CanonicalName)
				switch {
				case d == nil || !d.inUse || d.cache:
					// A cache device leaves only with its group (RemoveDiskMapping_Task).
					return nil, &types.InvalidArgument{InvalidProperty: "disk"}
				case d.group >= 0 && st.capacityInUse(d.group) == 1:
					return nil, &types.DiskIsLastRemainingNonSSD{}
				}
				d.inUse = false
				out.VsanHostDiskResult = append(out.VsanHostDiskResult, types.VsanHostDiskResult{Disk: d.disk, State: string(types.VsanHostDiskResultStateEligible)})
			}
			return out, nil
		})
	})
	return &methods.RemoveDisk_TaskBody{Res: &types.RemoveDisk_TaskResponse{Returnval: task.Run(ctx)}}
}

// QueryDisksForVsan says of each device (or those named) whether vSAN uses it.
func (vs *hostVsanSystem) QueryDisksForVsan(ctx *simulator.Context, req *types.QueryDisksForVsan) soap.HasFault {
	var out []types.VsanHostDiskResult
	ctx.WithLock(vs, func() {
		for _, d := range vs.storage.devices {
			if len(req.CanonicalName) > 0 && !slices.Contains(req.CanonicalName, d.disk.CanonicalName) {
				continue
			}
			r := types.VsanHostDiskResult{Disk: d.disk, State: string(types.VsanHostDiskResultStateEligible)}
			if d.inUse {
				r.State, r.VsanUuid = string(types.VsanHostDiskResultStateInUse), d.disk.VsanDiskInfo.VsanUuid
			}
			out = append(out, r)
		}
	})
	return &methods.QueryDisksForVsanBody{Res: &types.QueryDisksForVsanResponse{Returnval: out}}
}
