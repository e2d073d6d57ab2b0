package vsphere

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"starbench/internal/ledger"
)

// VsanDisk is one device of a host as vSAN uses it.
type VsanDisk struct {
	Name string // canonical name, e.g. naa.5000c500...
	Host string
	// Tier is "cache" (an OSA disk group's cache device) or "capacity"
	// (an OSA capacity device, or any ESA device).
	Tier string
	// Group is an OSA device's disk group, named by its cache device; ""
	// on ESA (no disk groups) and for a device out of its group.
	Group string
	// InUse says whether vSAN stores data on it now: claimed, and on OSA
	// its disk group mounted.
	InUse      bool
	CapacityGB float64
}

// The ways FailDisk takes a device out of vSAN's use, both through the
// host's HostVsanSystem and both leaving its components absent, as an
// unplugged device does (docs/events.md, "Disk failures").
const (
	// DiskUnmount unmounts an OSA disk group (UnmountDiskMapping_Task): its
	// data stays on the devices, and mounting it again (AddDisks_Task with
	// its cache device) brings it back.
	DiskUnmount = "unmount"
	// DiskRemove removes one device from vSAN's use (RemoveDisk_Task, no
	// data migration): an ESA device, or an OSA capacity device that is not
	// the last of its group. Its vSAN data is dropped; AddDisks_Task claims
	// it again, empty.
	DiskRemove = "remove"
)

// DiskFailure is how FailDisk took devices out, what RestoreDisk needs to
// bring them back; the ledger records it before anything changes.
type DiskFailure struct {
	Host string
	// Disk is the device the failure is named after: the device removed,
	// or the cache device of the disk group unmounted.
	Disk string
	How  string // DiskUnmount or DiskRemove
	// Devices are every device out of vSAN's use (a disk group: its cache
	// device first).
	Devices []string
}

// Name names the failure in the ledger and the events log: host/disk.
func (f DiskFailure) Name() string { return f.Host + "/" + f.Disk }

// vsanSystemOf returns host's HostVsanSystem.
func (c *Client) vsanSystemOf(ctx context.Context, host string) (*object.HostVsanSystem, error) {
	h, err := c.hostNamed(ctx, host, "configManager.vsanSystem")
	if err != nil {
		return nil, err
	}
	if h.ConfigManager.VsanSystem == nil {
		return nil, fmt.Errorf("host %s has no vSAN system", host)
	}
	return object.NewHostVsanSystem(c.vim, *h.ConfigManager.VsanSystem), nil
}

// hostStorage is what a host's vSAN system says of its devices: the disk
// groups (OSA) and every device vSAN uses or could use, by name.
type hostStorage struct {
	vs      *object.HostVsanSystem
	groups  []types.VsanHostDiskMapInfo
	devices []types.VsanHostDiskResult
}

func (c *Client) storageOf(ctx context.Context, host string) (*hostStorage, error) {
	vs, err := c.vsanSystemOf(ctx, host)
	if err != nil {
		return nil, err
	}
	st := &hostStorage{vs: vs}
	var sys mo.HostVsanSystem
	if err := property.DefaultCollector(c.vim).RetrieveOne(ctx, vs.Reference(), []string{"config.storageInfo"}, &sys); err != nil {
		return nil, fmt.Errorf("reading the vSAN storage of %s: %w", host, err)
	}
	if sys.Config.StorageInfo != nil {
		st.groups = sys.Config.StorageInfo.DiskMapInfo
	}
	res, err := methods.QueryDisksForVsan(ctx, c.vim, &types.QueryDisksForVsan{This: vs.Reference()})
	if err != nil {
		return nil, fmt.Errorf("listing the vSAN disks of %s: %w", host, err)
	}
	for _, r := range res.Returnval {
		if r.State == string(types.VsanHostDiskResultStateInUse) || r.State == string(types.VsanHostDiskResultStateEligible) {
			st.devices = append(st.devices, r)
		}
	}
	return st, nil
}

// disks lists the host's devices as VsanDisks.
func (st *hostStorage) disks(host string) []VsanDisk {
	out := make([]VsanDisk, 0, len(st.devices))
	for _, r := range st.devices {
		d := VsanDisk{Name: r.Disk.CanonicalName, Host: host, Tier: "capacity", InUse: r.State == string(types.VsanHostDiskResultStateInUse),
			CapacityGB: float64(r.Disk.Capacity.Block*int64(r.Disk.Capacity.BlockSize)) / 1e9}
		if g, ok := st.groupOf(d.Name); ok {
			d.Group = g.Mapping.Ssd.CanonicalName
			d.InUse = d.InUse && g.Mounted
			if d.Group == d.Name {
				d.Tier = "cache"
			}
		}
		out = append(out, d)
	}
	return out
}

// groupOf finds the OSA disk group holding the device named name.
func (st *hostStorage) groupOf(name string) (types.VsanHostDiskMapInfo, bool) {
	for _, g := range st.groups {
		if g.Mapping.Ssd.CanonicalName == name || slices.ContainsFunc(g.Mapping.NonSsd, func(d types.HostScsiDisk) bool { return d.CanonicalName == name }) {
			return g, true
		}
	}
	return types.VsanHostDiskMapInfo{}, false
}

// device returns the device named name.
func (st *hostStorage) device(name string) (types.HostScsiDisk, bool) {
	for _, r := range st.devices {
		if r.Disk.CanonicalName == name {
			return r.Disk, true
		}
	}
	return types.HostScsiDisk{}, false
}

// Disks lists a host's vSAN devices: those vSAN uses and those it could
// use (a device taken out of its use among them).
func (c *Client) Disks(ctx context.Context, host string) ([]VsanDisk, error) {
	st, err := c.storageOf(ctx, host)
	if err != nil {
		return nil, err
	}
	return st.disks(host), nil
}

// FailDisk takes a device of host out of vSAN's use as how says
// (DiskUnmount: the OSA disk group holding disk; DiskRemove: the device
// disk). disk "" is the first disk group (OSA) or device (ESA) in use. The
// ledger records the failure before anything changes.
func (c *Client) FailDisk(ctx context.Context, host, disk, how string) (DiskFailure, error) {
	f := DiskFailure{Host: host, How: how}
	if how != DiskUnmount && how != DiskRemove {
		return f, fmt.Errorf("how=%q: want %q (an OSA disk group, its data kept) or %q (one device, its data dropped)", how, DiskUnmount, DiskRemove)
	}
	st, err := c.storageOf(ctx, host)
	if err != nil {
		return f, err
	}
	disks := st.disks(host)
	if len(disks) == 0 {
		return f, fmt.Errorf("host %s has no vSAN devices", host)
	}
	if how == DiskUnmount && len(st.groups) == 0 {
		return f, fmt.Errorf("host %s has no disk groups to unmount (ESA has none): how=%q takes one device out", host, DiskRemove)
	}
	if disk == "" {
		i := slices.IndexFunc(disks, func(d VsanDisk) bool {
			return d.InUse && (how != DiskUnmount || d.Tier == "cache") && (how != DiskRemove || d.Tier == "capacity")
		})
		if i < 0 {
			return f, fmt.Errorf("host %s has no vSAN device in use to fail", host)
		}
		disk = disks[i].Name
	}
	i := slices.IndexFunc(disks, func(d VsanDisk) bool { return d.Name == disk })
	if i < 0 {
		names := make([]string, len(disks))
		for k, d := range disks {
			names[k] = d.Name
		}
		return f, fmt.Errorf("host %s has no vSAN device %q; its devices are %s", host, disk, strings.Join(names, ", "))
	}
	d := disks[i]
	if !d.InUse {
		return f, fmt.Errorf("device %s of host %s is out of vSAN's use already", disk, host)
	}
	var run func(context.Context) (*object.Task, error)
	method := ""
	switch how {
	case DiskUnmount:
		g, ok := st.groupOf(disk)
		if !ok {
			return f, fmt.Errorf("device %s of host %s is in no disk group: how=%q takes one device out", disk, host, DiskRemove)
		}
		f.Disk = g.Mapping.Ssd.CanonicalName
		f.Devices = []string{f.Disk}
		for _, n := range g.Mapping.NonSsd {
			f.Devices = append(f.Devices, n.CanonicalName)
		}
		method = "UnmountDiskMapping_Task"
		run = func(ctx context.Context) (*object.Task, error) {
			res, err := methods.UnmountDiskMapping_Task(ctx, c.vim, &types.UnmountDiskMapping_Task{This: st.vs.Reference(), Mapping: []types.VsanHostDiskMapping{g.Mapping}})
			if err != nil {
				return nil, err
			}
			return object.NewTask(c.vim, res.Returnval), nil
		}
	default: // DiskRemove
		if d.Tier == "cache" {
			return f, fmt.Errorf("device %s of host %s is its disk group's cache device, which leaves only with its group: how=%q", disk, host, DiskUnmount)
		}
		dev, _ := st.device(disk)
		f.Disk, f.Devices = disk, []string{disk}
		method = "RemoveDisk_Task"
		spec := &types.HostMaintenanceSpec{VsanMode: &types.VsanHostDecommissionMode{ObjectAction: string(types.VsanHostDecommissionModeObjectActionNoAction)}}
		run = func(ctx context.Context) (*object.Task, error) {
			res, err := methods.RemoveDisk_Task(ctx, c.vim, &types.RemoveDisk_Task{This: st.vs.Reference(), Disk: []types.HostScsiDisk{dev}, MaintenanceSpec: spec})
			if err != nil {
				return nil, err
			}
			return object.NewTask(c.vim, res.Returnval), nil
		}
	}
	b, err := json.Marshal(f)
	if err != nil {
		return f, err
	}
	if _, err := c.record(ledger.Entry{Kind: KindDiskFailure, Name: f.Name(), Ref: st.vs.Reference().Value, Before: b}); err != nil {
		return f, err
	}
	op := fmt.Sprintf("%s device %s of", how, f.Disk)
	if err := c.do(ctx, op, host, method, func(ctx context.Context) error {
		_, err := waitTask(ctx, run)
		return err
	}); err != nil {
		return f, err
	}
	return f, c.expectDisks(ctx, f, false)
}

// RestoreDisk brings back devices FailDisk took out: AddDisks_Task with
// the disk group's cache device mounts the group again; with a removed
// device, claims it again.
func (c *Client) RestoreDisk(ctx context.Context, f DiskFailure) error {
	st, err := c.storageOf(ctx, f.Host)
	if err != nil {
		return err
	}
	if inUse(st.disks(f.Host), f.Devices) {
		c.settleEvent(KindDiskFailure, f.Name())
		return nil
	}
	dev, ok := st.device(f.Disk)
	if !ok {
		return fmt.Errorf("host %s no longer has device %s: put it back by hand", f.Host, f.Disk)
	}
	err = c.do(ctx, "put device "+f.Disk+" back into vSAN's use on", f.Host, "AddDisks_Task", func(ctx context.Context) error {
		_, err := waitTask(ctx, func(ctx context.Context) (*object.Task, error) {
			res, err := methods.AddDisks_Task(ctx, c.vim, &types.AddDisks_Task{This: st.vs.Reference(), Disk: []types.HostScsiDisk{dev}})
			if err != nil {
				return nil, err
			}
			return object.NewTask(c.vim, res.Returnval), nil
		})
		return err
	})
	if err != nil {
		return err
	}
	if err := c.expectDisks(ctx, f, true); err != nil {
		return err
	}
	c.settleEvent(KindDiskFailure, f.Name())
	return nil
}

// inUse says whether every device named is in vSAN's use.
func inUse(disks []VsanDisk, names []string) bool {
	for _, n := range names {
		if !slices.ContainsFunc(disks, func(d VsanDisk) bool { return d.Name == n && d.InUse }) {
			return false
		}
	}
	return true
}

// expectDisks reads the failure's devices back and fails unless they are
// all in use (want true) or all out of use.
func (c *Client) expectDisks(ctx context.Context, f DiskFailure, want bool) error {
	disks, err := c.Disks(ctx, f.Host)
	if err != nil {
		return err
	}
	for _, n := range f.Devices {
		i := slices.IndexFunc(disks, func(d VsanDisk) bool { return d.Name == n })
		if i < 0 || disks[i].InUse != want {
			return fmt.Errorf("device %s of host %s did not take the change: want in vSAN's use %v", n, f.Host, want)
		}
	}
	return nil
}

// DiskFailureOf returns how FailDisk took a device of host out, as the
// ledger holds it: the one named disk, or with disk "" the host's only one.
func (c *Client) DiskFailureOf(host, disk string) (DiskFailure, bool) {
	if c.ledger == nil {
		return DiskFailure{}, false
	}
	var found []DiskFailure
	for _, e := range c.ledger.Pending() {
		if e.VCenter != c.host || e.Kind != KindDiskFailure {
			continue
		}
		var f DiskFailure
		if json.Unmarshal(e.Before, &f) != nil || f.Host != host {
			continue
		}
		if disk == "" || slices.Contains(f.Devices, disk) {
			found = append(found, f)
		}
	}
	if len(found) != 1 {
		return DiskFailure{}, false
	}
	return found[0], true
}
