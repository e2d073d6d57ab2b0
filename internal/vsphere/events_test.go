package vsphere

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"starbench/internal/ledger"
	"starbench/internal/sim"
	"starbench/internal/syncbuf"
	"starbench/internal/testbed"
)

// hostSeen reads a host through an independent client.
func hostSeen(t *testing.T, c *vim25.Client, name string) mo.HostSystem {
	t.Helper()
	ctx := context.Background()
	ref, err := find.NewFinder(c, false).HostSystem(ctx, "/"+sim.Datacenter+"/host/"+sim.Cluster+"/"+name)
	if err != nil {
		t.Fatal(err)
	}
	var h mo.HostSystem
	if err := property.DefaultCollector(c).RetrieveOne(ctx, ref.Reference(), []string{"runtime", "vm", "configManager"}, &h); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestMaintenanceModeMovesWorkersAndComesBack(t *testing.T) {
	s, c := startSim(t, sim.Options{Testbed: testbedOf(4, "ESA")})
	ctx := context.Background()
	workers, err := c.DeployWorkers(ctx, smallSpec("w"))
	if err != nil {
		t.Fatal(err)
	}
	victim := workers[0].Host
	other := independentClient(t, s)

	if _, err := c.Maintenance(ctx, victim, true, "keep_everything", 0); err == nil || !strings.Contains(err.Error(), "ensure_accessibility, full_data_migration, no_data_migration") {
		t.Fatalf("an unknown evacuation mode: %v, want the modes listed", err)
	}
	prev, err := c.Maintenance(ctx, victim, true, "full_data_migration", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if prev.Maintenance || !prev.Serving() {
		t.Errorf("the host before: %+v, want serving", prev)
	}
	h := hostSeen(t, other, victim)
	if !h.Runtime.InMaintenanceMode {
		t.Errorf("%s is not in maintenance mode as another client sees it", victim)
	}
	if len(h.Vm) != 0 {
		t.Errorf("%s still runs %d VMs in maintenance mode; the workers should have moved", victim, len(h.Vm))
	}
	moved, err := c.WorkersByVM(ctx, []string{workers[0].VM, workers[1].VM})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range moved {
		if w.Host == victim || w.Host == "" {
			t.Errorf("worker %s runs on %q after its host entered maintenance mode", w.Name, w.Host)
		}
	}
	if _, err := c.Maintenance(ctx, victim, false, "", time.Minute); err != nil {
		t.Fatal(err)
	}
	if hostSeen(t, other, victim).Runtime.InMaintenanceMode {
		t.Errorf("%s is still in maintenance mode as another client sees it", victim)
	}
}

func TestMaintenanceModeFailsWhenNoHostCanTakeTheVMs(t *testing.T) {
	_, c := startSim(t, sim.Options{Testbed: testbedOf(3, "ESA")})
	ctx := context.Background()
	if _, err := c.DeployWorkers(ctx, smallSpec("w")); err != nil {
		t.Fatal(err)
	}
	states, err := c.HostStates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range states[:2] {
		if _, err := c.Maintenance(ctx, h.Name, true, "no_data_migration", time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	_, err = c.Maintenance(ctx, states[2].Name, true, "ensure_accessibility", time.Minute)
	if err == nil || !strings.Contains(err.Error(), "InsufficientResourcesFault") {
		t.Fatalf("the last serving host into maintenance mode with workers on it: %v, want InsufficientResourcesFault", err)
	}
}

func TestIsolateHostTakesVsanTrafficOffItsVmknicAndBack(t *testing.T) {
	s, c := startSim(t, sim.Options{Testbed: testbedOf(4, "OSA")})
	ctx := context.Background()
	other := independentClient(t, s)
	victim := "DC0_C0_H1"
	f, err := c.FailHost(ctx, victim, Isolate)
	if err != nil {
		t.Fatal(err)
	}
	if f.Vnic != "vmk2" {
		t.Errorf("isolated through %q, want the vSAN vmknic vmk2", f.Vnic)
	}
	var vs mo.HostVsanSystem
	if err := propertyOf(ctx, other, *hostSeen(t, other, victim).ConfigManager.VsanSystem, "config", &vs); err != nil {
		t.Fatal(err)
	}
	if vs.Config.NetworkInfo == nil || len(vs.Config.NetworkInfo.Port) != 0 {
		t.Errorf("the isolated host's vSAN ports as another client sees them: %+v, want none", vs.Config.NetworkInfo)
	}
	st, err := c.HostState(ctx, victim)
	if err != nil || st.VSANNetwork || st.Serving() {
		t.Fatalf("isolated host reads %+v, %v; want off the vSAN network", st, err)
	}
	// The cluster's settings still read (from the hosts on the vSAN network).
	if _, err := c.State(ctx); err != nil {
		t.Errorf("cluster state with one host isolated: %v", err)
	}
	if _, err := c.FailHost(ctx, victim, Isolate); err == nil {
		t.Error("isolating an isolated host succeeded")
	}
	if err := c.RestoreHost(ctx, f, 0); err != nil {
		t.Fatal(err)
	}
	if err := propertyOf(ctx, other, vs.Self, "config", &vs); err != nil {
		t.Fatal(err)
	}
	if vs.Config.NetworkInfo == nil || len(vs.Config.NetworkInfo.Port) != 1 || vs.Config.NetworkInfo.Port[0].Device != "vmk2" {
		t.Errorf("the restored host's vSAN ports: %+v, want vmk2", vs.Config.NetworkInfo)
	}
	if st, _ := c.HostState(ctx, victim); !st.Serving() {
		t.Errorf("restored host reads %+v, want serving", st)
	}
}

func TestPowerOffHostStopsItsVMsAndPowersBackOn(t *testing.T) {
	s, c := startSim(t, sim.Options{Testbed: testbedOf(4, "ESA")})
	ctx := context.Background()
	workers, err := c.DeployWorkers(ctx, smallSpec("w"))
	if err != nil {
		t.Fatal(err)
	}
	victim := workers[0].Host
	other := independentClient(t, s)
	if _, err := c.FailHost(ctx, victim, "unplug"); err == nil || !strings.Contains(err.Error(), `"isolate"`) {
		t.Fatalf("an unknown failure: %v, want the choices named", err)
	}
	f, err := c.FailHost(ctx, victim, PowerOff)
	if err != nil {
		t.Fatal(err)
	}
	h := hostSeen(t, other, victim)
	if h.Runtime.PowerState != types.HostSystemPowerStatePoweredOff || h.Runtime.ConnectionState == types.HostSystemConnectionStateConnected {
		t.Errorf("powered-off host as another client sees it: %s, %s", h.Runtime.PowerState, h.Runtime.ConnectionState)
	}
	for _, ref := range h.Vm {
		var vm mo.VirtualMachine
		if err := propertyOf(ctx, other, ref, "runtime.powerState", &vm); err != nil {
			t.Fatal(err)
		}
		if vm.Runtime.PowerState != types.VirtualMachinePowerStatePoweredOff {
			t.Errorf("VM %s on the powered-off host is %s", ref.Value, vm.Runtime.PowerState)
		}
	}
	if err := c.RestoreHost(ctx, f, time.Minute); err != nil {
		t.Fatal(err)
	}
	if h := hostSeen(t, other, victim); h.Runtime.PowerState != types.HostSystemPowerStatePoweredOn || h.Runtime.ConnectionState != types.HostSystemConnectionStateConnected {
		t.Errorf("restored host as another client sees it: %s, %s", h.Runtime.PowerState, h.Runtime.ConnectionState)
	}
}

func TestSnapshotsOfWorkersAreCreatedAndDeleted(t *testing.T) {
	s, c := startSim(t, sim.Options{Testbed: testbedOf(3, "ESA")})
	ctx := context.Background()
	workers, err := c.DeployWorkers(ctx, smallSpec("w"))
	if err != nil {
		t.Fatal(err)
	}
	other := independentClient(t, s)
	seen := func(w Worker) []string {
		var vm mo.VirtualMachine
		if err := propertyOf(ctx, other, types.ManagedObjectReference{Type: "VirtualMachine", Value: w.VM}, "snapshot", &vm); err != nil {
			t.Fatal(err)
		}
		var names []string
		if vm.Snapshot != nil {
			for _, t := range vm.Snapshot.RootSnapshotList {
				names = append(names, t.Name)
			}
		}
		return names
	}
	if err := c.CreateSnapshot(ctx, workers, "backup-1", 4); err != nil {
		t.Fatal(err)
	}
	for _, w := range workers {
		if got := seen(w); !slices.Equal(got, []string{"backup-1"}) {
			t.Errorf("%s has snapshots %v as another client sees them, want [backup-1]", w.Name, got)
		}
	}
	if err := c.DeleteSnapshot(ctx, workers, "backup-1", 4); err != nil {
		t.Fatal(err)
	}
	for _, w := range workers {
		if got := seen(w); len(got) != 0 {
			t.Errorf("%s still has snapshots %v", w.Name, got)
		}
	}
	// Deleting again is a no-op: undo after a crash may find it done.
	if err := c.DeleteSnapshot(ctx, workers, "backup-1", 4); err != nil {
		t.Errorf("deleting a deleted snapshot: %v", err)
	}
}

// The simulator's own log lines go where sim.Options.Log says, not to the
// user's terminal: a second snapshot of a VM makes govmomi's simulator log
// "*types.FileAlreadyExists" while it looks for a free file name
// (scripts/snapshot_impact.star printed eight such lines).
func TestSimulatorLogStaysOffTheTerminal(t *testing.T) {
	var logged syncbuf.Buffer
	_, c := startSim(t, sim.Options{Testbed: testbedOf(3, "ESA"), Log: &logged})
	ctx := context.Background()
	spec := smallSpec("w")
	spec.PerHost = 1
	workers, err := c.DeployWorkers(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"b1", "b2"} {
		if err := c.CreateSnapshot(ctx, workers[:1], name, 1); err != nil {
			t.Fatal(err)
		}
	}
	if got := logged.String(); !strings.Contains(got, "FileAlreadyExists") {
		t.Errorf("the simulator's log: %q, want its FileAlreadyExists line", got)
	}
}

// TestEventChangesAreInTheLedgerAndUndone: what events change is recorded
// before it is made, settled when the script sets it back itself, and set
// back by the ledger's undo (as starbench clean does) otherwise.
func TestEventChangesAreInTheLedgerAndUndone(t *testing.T) {
	s, c := startSim(t, sim.Options{Testbed: testbedOf(4, "ESA")})
	ctx := context.Background()
	l, err := ledger.Open("")
	if err != nil {
		t.Fatal(err)
	}
	c.SetLedger(l)
	workers, err := c.DeployWorkers(ctx, smallSpec("w"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Maintenance(ctx, "DC0_C0_H0", true, "no_data_migration", time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := c.FailHost(ctx, "DC0_C0_H1", Isolate); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateSnapshot(ctx, workers, "b1", 4); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateSnapshot(ctx, workers, "b2", 4); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteSnapshot(ctx, workers, "b2", 4); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range l.Pending() {
		if EventKind(e.Kind) {
			kinds = append(kinds, e.Kind+" "+e.Name)
		}
	}
	if want := []string{"maintenance DC0_C0_H0", "host-failure DC0_C0_H1", "snapshot b1"}; !slices.Equal(kinds, want) {
		t.Fatalf("pending changes by events %v, want %v (b2 was deleted by the script)", kinds, want)
	}
	if f, ok := c.HostFailureOf("DC0_C0_H1"); !ok || f.Vnic != "vmk2" {
		t.Errorf("the ledger's record of the failure: %+v, %v", f, ok)
	}
	if err := l.Undo(ctx, c.Host(), c.Undoers(), nil); err != nil {
		t.Fatal(err)
	}
	other := independentClient(t, s)
	for _, h := range []string{"DC0_C0_H0", "DC0_C0_H1"} {
		if hostSeen(t, other, h).Runtime.InMaintenanceMode {
			t.Errorf("%s is still in maintenance mode", h)
		}
	}
	if st, _ := c.HostState(ctx, "DC0_C0_H1"); !st.Serving() {
		t.Errorf("the isolated host is not back: %+v", st)
	}
	for _, w := range workers {
		if names, _ := c.Snapshots(ctx, w); len(names) != 0 {
			t.Errorf("%s keeps snapshots %v", w.Name, names)
		}
	}
}

// withDisks gives a test testbed vSAN devices: OSA two disk groups of one
// cache and two capacity devices per host, ESA four devices.
func withDisks(p *testbed.Profile) *testbed.Profile {
	dev := testbed.Device{Model: "test NVMe", CapacityGB: 1920}
	if p.Architecture == "OSA" {
		p.Storage = testbed.Storage{DiskGroups: 2, CapacityPerGroup: 2, CapacityDevices: 4, Cache: testbed.Device{Model: "test cache", CapacityGB: 400}, Capacity: dev}
	} else {
		p.Storage = testbed.Storage{CapacityDevices: 4, Capacity: dev}
	}
	return p
}

// groupsSeen reads a host's disk groups through an independent client:
// cache device -> mounted.
func groupsSeen(t *testing.T, c *vim25.Client, host string) map[string]bool {
	t.Helper()
	var vs mo.HostVsanSystem
	if err := propertyOf(context.Background(), c, *hostSeen(t, c, host).ConfigManager.VsanSystem, "config.storageInfo", &vs); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, g := range vs.Config.StorageInfo.DiskMapInfo {
		out[g.Mapping.Ssd.CanonicalName] = g.Mounted
	}
	return out
}

// disksSeen asks a host's vSAN system, through an independent client,
// which devices vSAN uses: name -> state.
func disksSeen(t *testing.T, c *vim25.Client, host string) map[string]string {
	t.Helper()
	res, err := methods.QueryDisksForVsan(context.Background(), c, &types.QueryDisksForVsan{This: *hostSeen(t, c, host).ConfigManager.VsanSystem})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range res.Returnval {
		out[r.Disk.CanonicalName] = r.State
	}
	return out
}

func TestUnmountDiskGroupKeepsItsDevicesAndMountsBack(t *testing.T) {
	s, c := startSim(t, sim.Options{Testbed: withDisks(testbedOf(4, "OSA"))})
	ctx := context.Background()
	other := independentClient(t, s)
	host := "DC0_C0_H2"
	disks, err := c.Disks(ctx, host)
	if err != nil {
		t.Fatal(err)
	}
	if len(disks) != 6 || disks[0].Tier != "cache" || disks[1].Group != disks[0].Name || !disks[1].InUse || disks[1].CapacityGB != 1920 {
		t.Fatalf("disks of an OSA host with 2 groups of 1+2: %+v", disks)
	}
	if _, err := c.FailDisk(ctx, host, disks[1].Name, "pull"); err == nil || !strings.Contains(err.Error(), `"unmount"`) {
		t.Fatalf("an unknown way: %v, want the choices named", err)
	}
	if _, err := c.FailDisk(ctx, host, disks[0].Name, DiskRemove); err == nil || !strings.Contains(err.Error(), "cache device") {
		t.Fatalf("removing a cache device: %v, want it refused (it leaves with its group)", err)
	}
	// Any device of a group names the group.
	f, err := c.FailDisk(ctx, host, disks[2].Name, DiskUnmount)
	if err != nil {
		t.Fatal(err)
	}
	if f.Disk != disks[0].Name || len(f.Devices) != 3 {
		t.Errorf("the failure %+v; want the group of cache device %s, 3 devices", f, disks[0].Name)
	}
	if g := groupsSeen(t, other, host); g[disks[0].Name] || !g[disks[3].Name] {
		t.Errorf("disk groups as another client sees them: %v; want the first unmounted, the second mounted", g)
	}
	if seen := disksSeen(t, other, host); seen[disks[1].Name] != "inUse" {
		t.Errorf("an unmounted group's device reads %q; want inUse (its data is kept)", seen[disks[1].Name])
	}
	if _, err := c.FailDisk(ctx, host, disks[1].Name, DiskUnmount); err == nil || !strings.Contains(err.Error(), "out of vSAN's use already") {
		t.Errorf("unmounting an unmounted group: %v", err)
	}
	if err := c.RestoreDisk(ctx, f); err != nil {
		t.Fatal(err)
	}
	if g := groupsSeen(t, other, host); !g[disks[0].Name] {
		t.Errorf("disk groups after the restore: %v; want all mounted", g)
	}
}

func TestRemoveDiskTakesOneDeviceOutAndClaimsItBack(t *testing.T) {
	s, c := startSim(t, sim.Options{Testbed: withDisks(testbedOf(4, "ESA"))})
	ctx := context.Background()
	other := independentClient(t, s)
	host := "DC0_C0_H1"
	if _, err := c.FailDisk(ctx, host, "", DiskUnmount); err == nil || !strings.Contains(err.Error(), "no disk groups to unmount") {
		t.Fatalf("unmounting on ESA: %v, want it refused", err)
	}
	f, err := c.FailDisk(ctx, host, "", DiskRemove)
	if err != nil {
		t.Fatal(err)
	}
	seen := disksSeen(t, other, host)
	if len(seen) != 4 || seen[f.Disk] != "eligible" {
		t.Fatalf("devices as another client sees them: %v; want %s eligible (out of vSAN's use)", seen, f.Disk)
	}
	for name, state := range seen {
		if name != f.Disk && state != "inUse" {
			t.Errorf("device %s is %s; only %s was removed", name, state, f.Disk)
		}
	}
	if err := c.RestoreDisk(ctx, f); err != nil {
		t.Fatal(err)
	}
	if seen := disksSeen(t, other, host); seen[f.Disk] != "inUse" {
		t.Errorf("after the restore %s is %q, want inUse", f.Disk, seen[f.Disk])
	}
	// OSA: the last capacity device of a group stays (vCenter refuses).
	_, osa := startSim(t, sim.Options{Testbed: withDisks(testbedOf(4, "OSA"))})
	disks, err := osa.Disks(ctx, host)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := osa.FailDisk(ctx, host, disks[1].Name, DiskRemove); err != nil {
		t.Fatal(err)
	}
	if _, err := osa.FailDisk(ctx, host, disks[2].Name, DiskRemove); err == nil || !strings.Contains(err.Error(), "DiskIsLastRemainingNonSSD") {
		t.Errorf("removing a group's last capacity device: %v, want DiskIsLastRemainingNonSSD", err)
	}
}

// TestDiskFailuresAreInTheLedgerAndUndone: a disk failure is recorded
// before it is made and set back by the ledger's undo, as starbench clean
// and the next run do.
func TestDiskFailuresAreInTheLedgerAndUndone(t *testing.T) {
	s, c := startSim(t, sim.Options{Testbed: withDisks(testbedOf(4, "OSA"))})
	ctx := context.Background()
	l, err := ledger.Open("")
	if err != nil {
		t.Fatal(err)
	}
	c.SetLedger(l)
	g, err := c.FailDisk(ctx, "DC0_C0_H0", "", DiskUnmount)
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.FailDisk(ctx, "DC0_C0_H1", "", DiskRemove)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range l.Pending() {
		if EventKind(e.Kind) {
			names = append(names, e.Kind+" "+e.Name)
		}
	}
	if want := []string{"disk-failure " + g.Name(), "disk-failure " + d.Name()}; !slices.Equal(names, want) {
		t.Fatalf("pending changes %v, want %v", names, want)
	}
	if f, ok := c.DiskFailureOf("DC0_C0_H1", ""); !ok || f.Disk != d.Disk || f.How != DiskRemove {
		t.Errorf("the ledger's record of the removal: %+v, %v", f, ok)
	}
	if err := l.Undo(ctx, c.Host(), c.Undoers(), nil); err != nil {
		t.Fatal(err)
	}
	other := independentClient(t, s)
	if groups := groupsSeen(t, other, "DC0_C0_H0"); !groups[g.Disk] {
		t.Errorf("the unmounted group is not back: %v", groups)
	}
	if seen := disksSeen(t, other, "DC0_C0_H1"); seen[d.Disk] != "inUse" {
		t.Errorf("the removed device is not back: %v", seen)
	}
	if n := len(l.Pending()); n != 0 {
		t.Errorf("%d changes still pending", n)
	}
}
