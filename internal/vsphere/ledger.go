package vsphere

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/vmware/govmomi/fault"
	"github.com/vmware/govmomi/object"
	pbmtypes "github.com/vmware/govmomi/pbm/types"
	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"starbench/internal/ledger"
)

// The kinds of ledger entries the client records and undoes.
const (
	KindVM         = "vm"          // a worker VM it cloned
	KindVMSettings = "vm-settings" // CPU, memory, power and disk policies of a VM it did not make
	KindPolicy     = "policy"      // a storage policy it created or updated
	KindCluster    = "cluster"     // the cluster settings cluster.configure changed
)

// ledgerMark is the extraConfig key a cloned worker carries with its
// ledger entry's id: the proof, after a crash, that a VM of that name is
// the one the entry announced.
const ledgerMark = "starbench.ledger"

// SetLedger makes the client record in l everything it creates or changes,
// before it does so; nil records nothing.
func (c *Client) SetLedger(l *ledger.Ledger) { c.ledger = l }

// Ledger is the ledger the client records in (nil when none).
func (c *Client) Ledger() *ledger.Ledger { return c.ledger }

// record adds an entry about this vCenter's cluster and returns its id
// ("" without a ledger).
func (c *Client) record(e ledger.Entry) (string, error) {
	if c.ledger == nil {
		return "", nil
	}
	e.VCenter, e.Datacenter, e.Cluster = c.host, c.dc.Name(), c.cluster.Name()
	id, err := c.ledger.Add(e)
	if err != nil {
		return "", fmt.Errorf("not changing %s %s: %w", e.Kind, e.Name, err)
	}
	return id, nil
}

// recordChange records the state of an object before its first change, as
// before: a pending entry of the object holds its original already (a VM
// the ledger says this tool created needs none).
func (c *Client) recordChange(kind, name, ref string, before func() (any, error)) error {
	if c.ledger == nil {
		return nil
	}
	if _, ok := c.ledger.Find(c.host, kind, name, ref); ok {
		return nil
	}
	if kind == KindVMSettings {
		if _, ok := c.ledger.Find(c.host, KindVM, name, ref); ok {
			return nil
		}
	}
	v, err := before()
	if err != nil {
		return fmt.Errorf("reading %s %s before changing it: %w", kind, name, err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = c.record(ledger.Entry{Kind: kind, Name: name, Ref: ref, Before: b})
	return err
}

// settle records what became of entry id (a no-op without a ledger or id).
func (c *Client) settle(id, ref, how string) {
	if c.ledger == nil || id == "" {
		return
	}
	if ref != "" {
		_ = c.ledger.SetRef(id, ref)
		return
	}
	_ = c.ledger.Done(id, how)
}

// forgetVM records that the VM ref was removed: its pending entries are done.
func (c *Client) forgetVM(ref string) {
	if c.ledger == nil {
		return
	}
	for _, e := range c.ledger.Pending() {
		if e.VCenter == c.host && e.Ref == ref && (e.Kind == KindVM || e.Kind == KindVMSettings) {
			how := ledger.Removed
			if e.Kind == KindVMSettings {
				how = ledger.Gone // removed by the script: nothing left to restore
			}
			_ = c.ledger.Done(e.ID, how)
		}
	}
}

// Undoers says how the client undoes the entries of its kinds: VMs first,
// then policies, then cluster settings.
func (c *Client) Undoers() map[string]ledger.Undoer {
	u := map[string]ledger.Undoer{
		KindVM:          {Phase: 0, Undo: c.undoVM},
		KindVMSettings:  {Phase: 0, Undo: c.undoVMSettings},
		KindPolicy:      {Phase: 1, Undo: c.undoPolicy},
		KindCluster:     {Phase: 2, Undo: c.undoCluster},
		KindPerfService: {Phase: 2, Undo: c.undoPerfService},
	}
	maps.Copy(u, c.eventUndoers())
	return u
}

// undoVM removes the worker VM of e, if it is still the one e announced.
func (c *Client) undoVM(ctx context.Context, e ledger.Entry) (string, error) {
	vms, err := c.vms(ctx, func(n string) bool { return n == e.Name }, "config.extraConfig")
	if err != nil {
		return "", err
	}
	for _, vm := range vms {
		if mark(vm) != e.ID || (e.Ref != "" && vm.Self.Value != e.Ref) {
			continue
		}
		if err := c.destroy(ctx, []*object.VirtualMachine{object.NewVirtualMachine(c.vim, vm.Self)}, 1); err != nil {
			return "", err
		}
		return ledger.Removed, nil
	}
	return ledger.Gone, nil
}

// mark is the ledger entry id a VM carries, "" when none.
func mark(vm mo.VirtualMachine) string {
	if vm.Config == nil {
		return ""
	}
	for _, o := range vm.Config.ExtraConfig {
		if v := o.GetOptionValue(); v.Key == ledgerMark {
			s, _ := v.Value.(string)
			return s
		}
	}
	return ""
}

// vmSettings is what a VM the client did not make had before it changed it.
type vmSettings struct {
	CPUs      int32            `json:"cpus"`
	MemoryMB  int32            `json:"memory_mb"`
	PoweredOn bool             `json:"powered_on"`
	Policies  map[int32]string `json:"policies,omitempty"` // data disk key -> profile id ("" = none)
}

// recordVMChange records the settings of VM ref (named name) before the
// client first changes them, unless the client made the VM.
func (c *Client) recordVMChange(ctx context.Context, name, ref string) error {
	return c.recordChange(KindVMSettings, name, ref, func() (any, error) { return c.vmSettingsOf(ctx, ref) })
}

func (c *Client) vmSettingsOf(ctx context.Context, ref string) (vmSettings, error) {
	var vm mo.VirtualMachine
	r := types.ManagedObjectReference{Type: "VirtualMachine", Value: ref}
	if err := property.DefaultCollector(c.vim).RetrieveOne(ctx, r, []string{"name", "config.hardware", "runtime.powerState"}, &vm); err != nil {
		return vmSettings{}, err
	}
	s := vmSettings{
		CPUs: vm.Config.Hardware.NumCPU, MemoryMB: vm.Config.Hardware.MemoryMB,
		PoweredOn: vm.Runtime.PowerState == types.VirtualMachinePowerStatePoweredOn, Policies: map[int32]string{},
	}
	w := Worker{Name: vm.Name, VM: ref, Disks: dataDisks(vm.Config.Hardware.Device)}
	res, err := c.pbm.QueryAssociatedProfiles(ctx, diskEntities([]Worker{w}))
	if err != nil {
		return vmSettings{}, err
	}
	for _, d := range w.Disks {
		s.Policies[d.Key] = "" // none
		for _, q := range res {
			if q.Object.Key == diskEntity(ref, d.Key).Key && len(q.ProfileId) > 0 {
				s.Policies[d.Key] = q.ProfileId[0].UniqueId
			}
		}
	}
	return s, nil
}

// undoVMSettings gives a VM back its CPU, memory, disk policies and power state.
func (c *Client) undoVMSettings(ctx context.Context, e ledger.Entry) (string, error) {
	var before vmSettings
	if err := json.Unmarshal(e.Before, &before); err != nil {
		return "", fmt.Errorf("the ledger's settings of VM %s: %w", e.Name, err)
	}
	now, err := c.vmSettingsOf(ctx, e.Ref)
	if fault.Is(err, &types.ManagedObjectNotFound{}) {
		return ledger.Gone, nil
	}
	if err != nil {
		return "", err
	}
	vm := object.NewVirtualMachine(c.vim, types.ManagedObjectReference{Type: "VirtualMachine", Value: e.Ref})
	power := func(on bool) error {
		op, method := "power off", "PowerOffVM_Task"
		start := vm.PowerOff
		if on {
			op, method, start = "power on", "PowerOnVM_Task", vm.PowerOn
		}
		return c.do(ctx, op, e.Name, method, func(ctx context.Context) error {
			_, err := waitTask(ctx, func(ctx context.Context) (*object.Task, error) { return start(ctx) })
			return err
		})
	}
	resize := now.CPUs != before.CPUs || now.MemoryMB != before.MemoryMB
	if resize && now.PoweredOn {
		if err := power(false); err != nil {
			return "", err
		}
		now.PoweredOn = false
	}
	spec := types.VirtualMachineConfigSpec{}
	if resize {
		spec.NumCPUs, spec.MemoryMB = before.CPUs, int64(before.MemoryMB)
	}
	devices, err := vm.Device(ctx)
	if err != nil {
		return "", err
	}
	for key, id := range before.Policies {
		if now.Policies[key] == id {
			continue
		}
		var profile types.BaseVirtualMachineProfileSpec = &types.VirtualMachineDefinedProfileSpec{ProfileId: id}
		if id == "" {
			profile = &types.VirtualMachineEmptyProfileSpec{}
		}
		if disk := devices.FindByKey(key); disk != nil {
			spec.DeviceChange = append(spec.DeviceChange, &types.VirtualDeviceConfigSpec{
				Operation: types.VirtualDeviceConfigSpecOperationEdit, Device: disk,
				Profile: []types.BaseVirtualMachineProfileSpec{profile},
			})
		}
	}
	if resize || len(spec.DeviceChange) > 0 {
		if err := c.reconfigure(ctx, "restore the settings of", e.Name, vm, spec); err != nil {
			return "", err
		}
	}
	if now.PoweredOn != before.PoweredOn {
		if err := power(before.PoweredOn); err != nil {
			return "", err
		}
	}
	return ledger.Restored, nil
}

// undoPolicy deletes a policy the client created, or gives one it updated
// its rules back, if it is still starbench's.
func (c *Client) undoPolicy(ctx context.Context, e ledger.Entry) (string, error) {
	if e.Ref == "" { // created by a run that died before it learnt the id
		profiles, err := c.profiles(ctx)
		if err != nil {
			return "", err
		}
		e.Ref = profiles[e.Name]
	}
	content, err := c.pbm.RetrieveContent(ctx, []pbmtypes.PbmProfileId{{UniqueId: e.Ref}})
	if e.Ref == "" || err != nil || len(content) == 0 {
		return ledger.Gone, nil // SPBM answers an unknown id with a fault
	}
	p := content[0].GetPbmProfile()
	if e.Created && p.CreationTime.Before(e.At.Add(-time.Minute)) {
		return "", fmt.Errorf("storage policy %s (%s) existed before the run that recorded it: left alone", e.Name, e.Ref)
	}
	if !strings.HasPrefix(p.Description, policyMarker) {
		return "", fmt.Errorf("storage policy %s (%s) no longer carries starbench's mark: left alone", e.Name, e.Ref)
	}
	if e.Created {
		if err := c.deleteProfile(ctx, e.Name, e.Ref); err != nil {
			return "", err
		}
		return ledger.Removed, nil
	}
	var before PolicySpec
	if err := json.Unmarshal(e.Before, &before); err != nil {
		return "", fmt.Errorf("the ledger's rules of storage policy %s: %w", e.Name, err)
	}
	before.Name = p.Name
	if err := c.updateProfile(ctx, e.Ref, before); err != nil {
		return "", err
	}
	return ledger.Restored, nil
}

// clusterSettings is what cluster settings were before a change.
type clusterSettings struct {
	Compression bool `json:"compression"`
	Dedup       bool `json:"dedup"`
	RDMA        bool `json:"rdma"`
	// TransitEncryption is absent from entries written before starbench
	// set it: nil leaves the setting as it is.
	TransitEncryption *bool `json:"transit_encryption,omitempty"`
	// RestEncryption likewise, with the key provider it had when on.
	RestEncryption *bool  `json:"rest_encryption,omitempty"`
	KeyProvider    string `json:"key_provider,omitempty"`
	Uplink         string `json:"uplink"` // a LAG or the active NICs, as configure takes them
}

func settingsOf(st ClusterState) clusterSettings {
	uplink := st.LAG
	if uplink == "" {
		uplink = strings.Join(st.ActiveNICs, ",")
	}
	return clusterSettings{Compression: st.Compression, Dedup: st.Dedup, RDMA: st.RDMA, TransitEncryption: &st.TransitEncryption,
		RestEncryption: &st.RestEncryption, KeyProvider: st.KeyProvider, Uplink: uplink}
}

// undoCluster sets the cluster's settings back.
func (c *Client) undoCluster(ctx context.Context, e ledger.Entry) (string, error) {
	if e.Name != c.cluster.Name() {
		return "", fmt.Errorf("cluster %s: this connection drives cluster %s (set GOVC_CLUSTER=%s)", e.Name, c.cluster.Name(), e.Name)
	}
	var before clusterSettings
	if err := json.Unmarshal(e.Before, &before); err != nil {
		return "", fmt.Errorf("the ledger's settings of cluster %s: %w", e.Name, err)
	}
	s := ClusterSettings{Compression: &before.Compression, Dedup: &before.Dedup, RDMA: &before.RDMA, TransitEncryption: before.TransitEncryption,
		RestEncryption: before.RestEncryption, KeyProvider: before.KeyProvider, Uplink: before.Uplink}
	if _, err := c.Configure(ctx, s); err != nil {
		return "", err
	}
	return ledger.Restored, nil
}
