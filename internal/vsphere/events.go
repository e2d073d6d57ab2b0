package vsphere

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"starbench/internal/ledger"
)

// vSAN's decommission modes for a host entering maintenance mode, as
// scripts name them, with the objectAction vCenter takes.
var evacuations = map[string]types.VsanHostDecommissionModeObjectAction{
	"ensure_accessibility": types.VsanHostDecommissionModeObjectActionEnsureObjectAccessibility,
	"full_data_migration":  types.VsanHostDecommissionModeObjectActionEvacuateAllData,
	"no_data_migration":    types.VsanHostDecommissionModeObjectActionNoAction,
}

// Evacuations lists the decommission modes Maintenance takes.
func Evacuations() []string {
	return []string{"ensure_accessibility", "full_data_migration", "no_data_migration"}
}

// The ways FailHost takes a host out of the cluster.
const (
	// Isolate takes vSAN traffic off the host's VMkernel NIC: the other
	// hosts lose it as they would to a failed host or a cut cable, and
	// putting the tag back undoes it.
	Isolate = "isolate"
	// PowerOff shuts the host down without maintenance mode (forced), as a
	// power failure would; it comes back through vCenter's power-on from
	// standby, which needs the host's BMC (IPMI/iLO) known to vCenter.
	PowerOff = "power_off"
)

// HostState is one host as events leave it.
type HostState struct {
	Name        string
	Connected   bool
	PoweredOn   bool
	Maintenance bool
	// VSANNetwork says whether a VMkernel NIC of the host carries vSAN traffic.
	VSANNetwork bool
	VMs         int
}

// Serving says whether the host serves vSAN I/O: up, on the vSAN network
// and not in maintenance mode.
func (h HostState) Serving() bool {
	return h.Connected && h.PoweredOn && !h.Maintenance && h.VSANNetwork
}

var hostStateProps = []string{"runtime", "config.virtualNicManagerInfo", "vm", "configManager.vsanSystem"}

func hostStateOf(h mo.HostSystem) HostState {
	st := HostState{Name: h.Name, VMs: len(h.Vm)}
	st.Connected = h.Runtime.ConnectionState == types.HostSystemConnectionStateConnected
	st.PoweredOn = h.Runtime.PowerState == types.HostSystemPowerStatePoweredOn
	st.Maintenance = h.Runtime.InMaintenanceMode
	st.VSANNetwork = vsanVnic(h) != nil
	return st
}

// isolated says whether h has VMkernel NICs that could carry vSAN traffic
// but none does (FailHost with Isolate took it off).
func isolated(h mo.HostSystem) bool {
	if h.Config == nil || h.Config.VirtualNicManagerInfo == nil {
		return false
	}
	candidates := false
	for _, nc := range h.Config.VirtualNicManagerInfo.NetConfig {
		if nc.NicType == string(types.HostVirtualNicManagerNicTypeVsan) {
			if len(nc.SelectedVnic) > 0 {
				return false
			}
			candidates = candidates || len(nc.CandidateVnic) > 0
		}
	}
	return candidates
}

// HostStates reads every host of the cluster, sorted by name.
func (c *Client) HostStates(ctx context.Context) ([]HostState, error) {
	hosts, err := c.hosts(ctx, hostStateProps...)
	if err != nil {
		return nil, err
	}
	out := make([]HostState, len(hosts))
	for i, h := range hosts {
		out[i] = hostStateOf(h)
	}
	return out, nil
}

// hostNamed finds one host of the cluster by name, with props.
func (c *Client) hostNamed(ctx context.Context, name string, props ...string) (mo.HostSystem, error) {
	hosts, err := c.hosts(ctx, props...)
	if err != nil {
		return mo.HostSystem{}, err
	}
	var names []string
	for _, h := range hosts {
		if h.Name == name {
			return h, nil
		}
		names = append(names, h.Name)
	}
	return mo.HostSystem{}, fmt.Errorf("cluster %s has no host %q; its hosts are %s", c.cluster.Name(), name, strings.Join(names, ", "))
}

// HostState reads one host.
func (c *Client) HostState(ctx context.Context, name string) (HostState, error) {
	h, err := c.hostNamed(ctx, name, hostStateProps...)
	if err != nil {
		return HostState{}, err
	}
	return hostStateOf(h), nil
}

// Maintenance puts host into maintenance mode with vSAN's decommission mode
// evacuation (see Evacuations), or takes it out (enter false; evacuation
// ignored), waiting at most timeout (0 = no limit) for vCenter to move the
// host's VMs and, per the mode, its vSAN data. It returns the host as it was.
func (c *Client) Maintenance(ctx context.Context, host string, enter bool, evacuation string, timeout time.Duration) (HostState, error) {
	action, ok := evacuations[evacuation]
	if enter && !ok {
		return HostState{}, fmt.Errorf("evacuation %q: want one of %s", evacuation, strings.Join(Evacuations(), ", "))
	}
	h, err := c.hostNamed(ctx, host, hostStateProps...)
	if err != nil {
		return HostState{}, err
	}
	prev := hostStateOf(h)
	if prev.Maintenance == enter {
		return prev, nil
	}
	obj := object.NewHostSystem(c.vim, h.Self)
	secs := int32(timeout / time.Second)
	if enter {
		if _, err := c.record(ledger.Entry{Kind: KindMaintenance, Name: host, Ref: h.Self.Value}); err != nil {
			return prev, err
		}
		spec := &types.HostMaintenanceSpec{VsanMode: &types.VsanHostDecommissionMode{ObjectAction: string(action)}}
		err = c.do(ctx, "put into maintenance mode", host, "EnterMaintenanceMode_Task", func(ctx context.Context) error {
			_, err := waitTask(ctx, func(ctx context.Context) (*object.Task, error) {
				return obj.EnterMaintenanceMode(ctx, secs, true, spec)
			})
			return err
		})
	} else {
		err = c.do(ctx, "take out of maintenance mode", host, "ExitMaintenanceMode_Task", func(ctx context.Context) error {
			_, err := waitTask(ctx, func(ctx context.Context) (*object.Task, error) { return obj.ExitMaintenanceMode(ctx, secs) })
			return err
		})
	}
	if err != nil {
		return prev, err
	}
	if err := c.expectHost(ctx, host, func(s HostState) bool { return s.Maintenance == enter }, fmt.Sprintf("maintenance mode %v", enter)); err != nil {
		return prev, err
	}
	if !enter {
		c.settleEvent(KindMaintenance, host)
	}
	return prev, nil
}

// expectHost reads host back and fails unless ok says it is as asked.
func (c *Client) expectHost(ctx context.Context, host string, ok func(HostState) bool, want string) error {
	st, err := c.HostState(ctx, host)
	if err != nil {
		return err
	}
	if !ok(st) {
		return fmt.Errorf("host %s did not take the change: want %s, reads back connected=%v powered on=%v maintenance=%v vSAN network=%v",
			host, want, st.Connected, st.PoweredOn, st.Maintenance, st.VSANNetwork)
	}
	return nil
}

// HostFailure is how FailHost took a host out, what RestoreHost needs to
// bring it back.
type HostFailure struct {
	Host string
	How  string // Isolate or PowerOff
	// Vnic is the VMkernel NIC that carried vSAN traffic (Isolate).
	Vnic string
}

// FailHost takes host out of the cluster as a failure would (how is
// Isolate or PowerOff) and returns what RestoreHost needs, which the
// ledger records before anything changes.
func (c *Client) FailHost(ctx context.Context, host, how string) (HostFailure, error) {
	f := HostFailure{Host: host, How: how}
	h, err := c.hostNamed(ctx, host, hostStateProps...)
	if err != nil {
		return f, err
	}
	switch how {
	case Isolate:
		v := vsanVnic(h)
		if v == nil {
			return f, fmt.Errorf("host %s has no VMkernel NIC carrying vSAN traffic: it is isolated already", host)
		}
		f.Vnic = v.Device
	case PowerOff:
		if h.Runtime.PowerState != types.HostSystemPowerStatePoweredOn {
			return f, fmt.Errorf("host %s is powered %s already", host, h.Runtime.PowerState)
		}
	default:
		return f, fmt.Errorf("how=%q: want %q (take vSAN traffic off the host's VMkernel NIC) or %q (forced shutdown)", how, Isolate, PowerOff)
	}
	b, err := json.Marshal(f)
	if err != nil {
		return f, err
	}
	if _, err := c.record(ledger.Entry{Kind: KindHostFailure, Name: host, Ref: h.Self.Value, Before: b}); err != nil {
		return f, err
	}
	if how == Isolate {
		err = c.tagVsan(ctx, h, f.Vnic, false)
	} else {
		err = c.do(ctx, "power off", host, "ShutdownHost_Task", func(ctx context.Context) error {
			_, err := waitTask(ctx, func(ctx context.Context) (*object.Task, error) {
				res, err := methods.ShutdownHost_Task(ctx, c.vim, &types.ShutdownHost_Task{This: h.Self, Force: true})
				if err != nil {
					return nil, err
				}
				return object.NewTask(c.vim, res.Returnval), nil
			})
			return err
		})
	}
	if err != nil {
		return f, err
	}
	return f, c.expectHost(ctx, host, func(s HostState) bool { return !s.Serving() }, "out of the vSAN cluster")
}

// RestoreHost brings back a host FailHost took out, waiting at most
// timeout (0 = 30 minutes) for a powered-off host to come back connected.
func (c *Client) RestoreHost(ctx context.Context, f HostFailure, timeout time.Duration) error {
	h, err := c.hostNamed(ctx, f.Host, hostStateProps...)
	if err != nil {
		return err
	}
	switch f.How {
	case Isolate:
		if vsanVnic(h) != nil {
			c.settleEvent(KindHostFailure, f.Host)
			return nil
		}
		err = c.tagVsan(ctx, h, f.Vnic, true)
	case PowerOff:
		if h.Runtime.PowerState == types.HostSystemPowerStatePoweredOn {
			c.settleEvent(KindHostFailure, f.Host)
			return nil
		}
		if timeout <= 0 {
			timeout = 30 * time.Minute
		}
		err = c.do(ctx, "power on", f.Host, "PowerUpHostFromStandBy_Task", func(ctx context.Context) error {
			_, err := waitTask(ctx, func(ctx context.Context) (*object.Task, error) {
				res, err := methods.PowerUpHostFromStandBy_Task(ctx, c.vim, &types.PowerUpHostFromStandBy_Task{This: h.Self, TimeoutSec: int32(timeout / time.Second)})
				if err != nil {
					return nil, err
				}
				return object.NewTask(c.vim, res.Returnval), nil
			})
			return err
		})
		if err != nil {
			return fmt.Errorf("%w (if vCenter cannot power %s on, power it on from its BMC)", err, f.Host)
		}
	default:
		return fmt.Errorf("internal error: host failure %q", f.How)
	}
	if err != nil {
		return err
	}
	if err := c.expectHost(ctx, f.Host, func(s HostState) bool { return s.Connected && s.PoweredOn && s.VSANNetwork }, "back in the vSAN cluster"); err != nil {
		return err
	}
	c.settleEvent(KindHostFailure, f.Host)
	return nil
}

// tagVsan adds or removes device among the VMkernel NICs of h carrying
// vSAN traffic, through the host's HostVsanSystem as vCenter requires.
func (c *Client) tagVsan(ctx context.Context, h mo.HostSystem, device string, on bool) error {
	if h.ConfigManager.VsanSystem == nil {
		return fmt.Errorf("host %s has no vSAN system", h.Name)
	}
	vs := object.NewHostVsanSystem(c.vim, *h.ConfigManager.VsanSystem)
	op, method := "take vSAN traffic off "+device+" of", "UpdateVsan_Task"
	if on {
		op = "put vSAN traffic back on " + device + " of"
	}
	return c.do(ctx, op, h.Name, method, func(ctx context.Context) error {
		var sys mo.HostVsanSystem
		if err := property.DefaultCollector(c.vim).RetrieveOne(ctx, vs.Reference(), []string{"config.networkInfo"}, &sys); err != nil {
			return err
		}
		var ports []types.VsanHostConfigInfoNetworkInfoPortConfig
		if sys.Config.NetworkInfo != nil {
			ports = slices.DeleteFunc(slices.Clone(sys.Config.NetworkInfo.Port), func(p types.VsanHostConfigInfoNetworkInfoPortConfig) bool { return p.Device == device })
		}
		if on {
			ports = append(ports, types.VsanHostConfigInfoNetworkInfoPortConfig{Device: device})
		}
		_, err := waitTask(ctx, func(ctx context.Context) (*object.Task, error) {
			return vs.Update(ctx, types.VsanHostConfigInfo{NetworkInfo: &types.VsanHostConfigInfoNetworkInfo{Port: ports}})
		})
		return err
	})
}

// CreateSnapshot takes a snapshot called name of every worker VM (no
// memory, no quiescing: a crash-consistent point, as backup software takes).
func (c *Client) CreateSnapshot(ctx context.Context, workers []Worker, name string, parallel int) error {
	b, err := json.Marshal(workers)
	if err != nil {
		return err
	}
	if _, err := c.record(ledger.Entry{Kind: KindSnapshot, Name: name, Before: b}); err != nil {
		return err
	}
	return c.eachWorker(ctx, workers, parallel, func(ctx context.Context, w Worker, vm *object.VirtualMachine) error {
		return c.do(ctx, "snapshot", w.Name, "CreateSnapshot_Task", func(ctx context.Context) error {
			_, err := waitTask(ctx, func(ctx context.Context) (*object.Task, error) {
				return vm.CreateSnapshot(ctx, name, "starbench", false, false)
			})
			return err
		})
	})
}

// DeleteSnapshot deletes the snapshot called name of every worker VM,
// consolidating its delta disks; a worker without it is left as it is.
func (c *Client) DeleteSnapshot(ctx context.Context, workers []Worker, name string, parallel int) error {
	err := c.eachWorker(ctx, workers, parallel, func(ctx context.Context, w Worker, vm *object.VirtualMachine) error {
		names, err := c.Snapshots(ctx, w)
		if err != nil || !slices.Contains(names, name) {
			return err
		}
		consolidate := true
		return c.do(ctx, "delete snapshot "+name+" of", w.Name, "RemoveSnapshot_Task", func(ctx context.Context) error {
			_, err := waitTask(ctx, func(ctx context.Context) (*object.Task, error) {
				return vm.RemoveSnapshot(ctx, name, false, &consolidate)
			})
			return err
		})
	})
	if err == nil {
		c.settleEvent(KindSnapshot, name)
	}
	return err
}

// Snapshots lists the names of a worker VM's snapshots, depth first.
func (c *Client) Snapshots(ctx context.Context, w Worker) ([]string, error) {
	var vm mo.VirtualMachine
	ref := types.ManagedObjectReference{Type: "VirtualMachine", Value: w.VM}
	if err := property.DefaultCollector(c.vim).RetrieveOne(ctx, ref, []string{"snapshot"}, &vm); err != nil {
		return nil, fmt.Errorf("reading the snapshots of %s: %w", w.Name, err)
	}
	var names []string
	var walk func([]types.VirtualMachineSnapshotTree)
	walk = func(trees []types.VirtualMachineSnapshotTree) {
		for _, t := range trees {
			names = append(names, t.Name)
			walk(t.ChildSnapshotList)
		}
	}
	if vm.Snapshot != nil {
		walk(vm.Snapshot.RootSnapshotList)
	}
	return names, nil
}

// eachWorker runs f on every worker, parallel (0 = 8) at once, and joins
// the errors: one worker's failure does not stop the others.
func (c *Client) eachWorker(ctx context.Context, workers []Worker, parallel int, f func(context.Context, Worker, *object.VirtualMachine) error) error {
	if parallel <= 0 {
		parallel = 8
	}
	errs := make([]error, len(workers))
	perr := pool(ctx, parallel, len(workers), func(ctx context.Context, i int) error {
		w := workers[i]
		errs[i] = f(ctx, w, object.NewVirtualMachine(c.vim, types.ManagedObjectReference{Type: "VirtualMachine", Value: w.VM}))
		return nil
	})
	return errors.Join(append(errs, perr)...)
}

// The ledger kinds of what events change, each set back by its undoer.
const (
	KindMaintenance = "maintenance"  // a host put into maintenance mode
	KindHostFailure = "host-failure" // a host isolated or powered off (Before: the HostFailure)
	KindSnapshot    = "snapshot"     // a snapshot of workers (Before: the workers)
	// KindDiskFailure is a vSAN device or disk group taken out of use
	// (Before: the DiskFailure).
	KindDiskFailure = "disk-failure"
)

// EventKind says whether a ledger entry is a change an event made: those
// are set back at the end of every run, whatever --cleanup says.
func EventKind(kind string) bool {
	return kind == KindMaintenance || kind == KindHostFailure || kind == KindSnapshot || kind == KindDiskFailure
}

// settleEvent marks the pending entries of kind about name done: the
// script set them back itself.
func (c *Client) settleEvent(kind, name string) {
	if c.ledger == nil {
		return
	}
	for _, e := range c.ledger.Pending() {
		if e.VCenter == c.host && e.Kind == kind && e.Name == name {
			_ = c.ledger.Done(e.ID, ledger.Restored)
		}
	}
}

// HostFailureOf returns how FailHost took host out, as the ledger holds it.
func (c *Client) HostFailureOf(host string) (HostFailure, bool) {
	if c.ledger == nil {
		return HostFailure{}, false
	}
	e, ok := c.ledger.Find(c.host, KindHostFailure, host, "")
	if !ok {
		return HostFailure{}, false
	}
	var f HostFailure
	if err := json.Unmarshal(e.Before, &f); err != nil {
		return HostFailure{}, false
	}
	return f, true
}

// eventUndoers set back what events changed, before anything else is
// undone (a VM on a host in maintenance mode cannot be deleted there).
func (c *Client) eventUndoers() map[string]ledger.Undoer {
	return map[string]ledger.Undoer{
		KindMaintenance: {Phase: -1, Undo: func(ctx context.Context, e ledger.Entry) (string, error) {
			_, err := c.Maintenance(ctx, e.Name, false, "", 0)
			return ledger.Restored, err
		}},
		KindHostFailure: {Phase: -1, Undo: func(ctx context.Context, e ledger.Entry) (string, error) {
			var f HostFailure
			if err := json.Unmarshal(e.Before, &f); err != nil {
				return "", fmt.Errorf("host failure of %s: the ledger's record is not one: %w", e.Name, err)
			}
			return ledger.Restored, c.RestoreHost(ctx, f, 0)
		}},
		KindDiskFailure: {Phase: -1, Undo: func(ctx context.Context, e ledger.Entry) (string, error) {
			var f DiskFailure
			if err := json.Unmarshal(e.Before, &f); err != nil {
				return "", fmt.Errorf("disk failure %s: the ledger's record is not one: %w", e.Name, err)
			}
			return ledger.Restored, c.RestoreDisk(ctx, f)
		}},
		KindSnapshot: {Phase: 0, Undo: func(ctx context.Context, e ledger.Entry) (string, error) {
			var ws []Worker
			if err := json.Unmarshal(e.Before, &ws); err != nil {
				return "", fmt.Errorf("snapshot %s: the ledger's record is not one: %w", e.Name, err)
			}
			return ledger.Restored, c.DeleteSnapshot(ctx, ws, e.Name, 0)
		}},
	}
}
