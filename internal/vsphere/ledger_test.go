package vsphere

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	pbmtypes "github.com/vmware/govmomi/pbm/types"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"starbench/internal/ledger"
	"starbench/internal/sim"
)

// vmsOf reads, through an independent client, the VMs whose names start
// with prefix, by name.
func vmsOf(t *testing.T, s *sim.Sim, prefix string) map[string]mo.VirtualMachine {
	t.Helper()
	ctx := context.Background()
	vms, err := finderIn(t, independentClient(t, s)).VirtualMachineList(ctx, prefix+"*")
	out := map[string]mo.VirtualMachine{}
	if err != nil {
		return out // none
	}
	for _, vm := range vms {
		var m mo.VirtualMachine
		if err := vm.Properties(ctx, vm.Reference(), []string{"name", "config.hardware", "runtime.powerState"}, &m); err != nil {
			t.Fatal(err)
		}
		out[m.Name] = m
	}
	return out
}

// TestTheLedgerUndoesWhatARunDidAndNothingElse: a run with a ledger makes
// workers and a policy, changes workers, a policy and cluster settings an
// earlier run left; another process undoes it from the ledger file. What
// the run made is gone, what it changed is as before, and what it never
// touched (a VM of someone else, another policy) is untouched.
func TestTheLedgerUndoesWhatARunDidAndNothingElse(t *testing.T) {
	s, before := startSim(t, sim.Options{Testbed: testbedDVS(4, false)})
	ctx := context.Background()
	// Left by an earlier run without a ledger, and someone else's VM.
	old := smallSpec("old")
	old.PerHost = 1
	if _, err := before.DeployWorkers(ctx, old); err != nil {
		t.Fatal(err)
	}
	if _, err := before.SetPolicy(ctx, PolicySpec{Name: "kept", RAID: "raid1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := before.SetPolicy(ctx, PolicySpec{Name: "shared", RAID: "raid1", StripeWidth: 2}); err != nil {
		t.Fatal(err)
	}
	other := smallSpec("theirs")
	other.Count, other.PerHost = 1, 0
	if _, err := before.DeployWorkers(ctx, other); err != nil {
		t.Fatal(err)
	}
	stBefore, _ := before.State(ctx)
	oldBefore := vmsOf(t, s, "old-")

	path := filepath.Join(t.TempDir(), ledger.FileName)
	l, err := ledger.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	c := connectTo(t, s)
	c.SetLedger(l)
	if _, err := c.SetPolicy(ctx, PolicySpec{Name: "made", RAID: "raid5"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetPolicy(ctx, PolicySpec{Name: "shared", RAID: "raid5"}); err != nil {
		t.Fatal(err)
	}
	w := smallSpec("w")
	w.PerHost, w.Policy = 1, "made"
	if _, err := c.DeployWorkers(ctx, w); err != nil {
		t.Fatal(err)
	}
	old.CPUs, old.Policy = 8, "made"
	if _, err := c.DeployWorkers(ctx, old); err != nil {
		t.Fatal(err)
	}
	on := true
	if _, err := c.Configure(ctx, ClusterSettings{Compression: &on, TransitEncryption: &on, RestEncryption: &on, Uplink: "25g"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Configure(ctx, ClusterSettings{Uplink: "vmnic0"}); err != nil {
		t.Fatal(err)
	}
	l.Close()

	// Another process, from the file.
	again, err := ledger.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	cleaner := connectTo(t, s)
	var outcomes []string
	if err := again.Undo(ctx, cleaner.Host(), cleaner.Undoers(), func(o ledger.Outcome) { outcomes = append(outcomes, o.Entry.Kind+" "+o.Entry.Name+" "+o.How) }); err != nil {
		t.Fatalf("undo: %v (%v)", err, outcomes)
	}
	if p := again.Pending(); len(p) != 0 {
		t.Errorf("pending after undo: %+v", p)
	}
	if left := vmsOf(t, s, "w-"); len(left) != 0 {
		t.Errorf("workers the run made are still there: %v", slices.Collect(maps.Keys(left)))
	}
	for name, vm := range vmsOf(t, s, "old-") {
		was := oldBefore[name]
		if vm.Config.Hardware.NumCPU != was.Config.Hardware.NumCPU || vm.Runtime.PowerState != was.Runtime.PowerState {
			t.Errorf("%s: %d CPUs %s, want %d %s as before the run", name, vm.Config.Hardware.NumCPU, vm.Runtime.PowerState, was.Config.Hardware.NumCPU, was.Runtime.PowerState)
		}
	}
	ws, err := cleaner.Workers(ctx, "old")
	if err != nil || len(ws) != len(oldBefore) {
		t.Fatalf("old workers %v, %v", ws, err)
	}
	for _, w := range ws {
		for _, d := range w.Disks {
			if d.Policy != "" {
				t.Errorf("%s %s keeps policy %q the run gave it", w.Name, d.Name, d.Policy)
			}
		}
	}
	if len(vmsOf(t, s, "theirs-")) != 1 {
		t.Errorf("someone else's VM was touched")
	}
	profiles, _ := cleaner.profiles(ctx)
	if _, ok := profiles["made"]; ok {
		t.Errorf("the policy the run made is still there")
	}
	if _, ok := profiles["kept"]; !ok {
		t.Errorf("a policy the run never touched is gone")
	}
	if got, _ := cleaner.Policy(ctx, "shared"); got.RAID != "raid1" || got.StripeWidth != 2 {
		t.Errorf("the policy the run updated reads %+v, want raid1 stripe 2 as before", got)
	}
	stAfter, _ := cleaner.State(ctx)
	if stAfter.Compression != stBefore.Compression || stAfter.TransitEncryption != stBefore.TransitEncryption || stAfter.RestEncryption != stBefore.RestEncryption || !slices.Equal(stAfter.ActiveNICs, stBefore.ActiveNICs) || !slices.Equal(stAfter.StandbyNICs, stBefore.StandbyNICs) {
		t.Errorf("cluster after undo %+v, want %+v", stAfter, stBefore)
	}
}

// TestUndoFindsACloneItsRunDidNotSeeFinish: a run died between starting a
// clone and learning its VM; the VM carries the entry's mark and is
// removed, and a VM of the same name without it is left alone.
func TestUndoFindsACloneItsRunDidNotSeeFinish(t *testing.T) {
	_, c := startSim(t, sim.Options{Testbed: testbedOf(3, "ESA")})
	ctx := context.Background()
	l, _ := ledger.Open("")
	c.SetLedger(l)
	id, err := c.record(ledger.Entry{Kind: KindVM, Name: "lost-01", Created: true})
	if err != nil {
		t.Fatal(err)
	}
	folders, _ := c.dc.Folders(ctx)
	cloneMarked := func(folder, name, markValue string) {
		tmpl, err := c.finder.VirtualMachine(ctx, DefaultTemplate)
		if err != nil {
			t.Fatal(err)
		}
		dst := folders.VmFolder
		if folder != "" {
			if dst, err = folders.VmFolder.CreateFolder(ctx, folder); err != nil {
				t.Fatal(err)
			}
		}
		rp, _ := c.cluster.ResourcePool(ctx)
		pool := rp.Reference()
		spec := types.VirtualMachineCloneSpec{Location: types.VirtualMachineRelocateSpec{Pool: &pool}}
		if markValue != "" {
			spec.Config = &types.VirtualMachineConfigSpec{ExtraConfig: []types.BaseOptionValue{&types.OptionValue{Key: ledgerMark, Value: markValue}}}
		}
		task, err := tmpl.Clone(ctx, dst, name, spec)
		if err == nil {
			_, err = task.WaitForResult(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	cloneMarked("a", "lost-01", "")        // a namesake without the mark
	cloneMarked("b", "lost-01", "other-9") // and one of another entry
	cloneMarked("", "lost-01", id)
	var hows []string
	if err := l.Undo(ctx, c.Host(), c.Undoers(), func(o ledger.Outcome) { hows = append(hows, o.How) }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(hows, []string{ledger.Removed}) {
		t.Errorf("outcomes %v, want one removal", hows)
	}
	vms, err := c.vms(ctx, func(n string) bool { return n == "lost-01" }, "config.extraConfig")
	if err != nil {
		t.Fatal(err)
	}
	if len(vms) != 2 || slices.ContainsFunc(vms, func(vm mo.VirtualMachine) bool { return mark(vm) == id }) {
		t.Errorf("left %d VMs named lost-01 (marks %q, %q), want the 2 unmarked by the entry", len(vms), mark(vms[0]), mark(vms[len(vms)-1]))
	}
}

// TestUndoLeavesAPolicyThatLostItsMark: a policy someone re-described
// (it is no longer starbench's) is reported, not deleted.
func TestUndoLeavesAPolicyThatLostItsMark(t *testing.T) {
	_, c := startSim(t, sim.Options{Testbed: testbedOf(3, "ESA")})
	ctx := context.Background()
	l, _ := ledger.Open("")
	c.SetLedger(l)
	id, err := c.SetPolicy(ctx, PolicySpec{Name: "adopted", RAID: "raid1"})
	if err != nil {
		t.Fatal(err)
	}
	c.ledger = nil
	if err := c.pbm.UpdateProfile(ctx, pbmtypes.PbmProfileId{UniqueId: id}, pbmtypes.PbmCapabilityProfileUpdateSpec{Description: "now the gold policy"}); err != nil {
		t.Fatal(err)
	}
	err = l.Undo(ctx, c.Host(), c.Undoers(), nil)
	if err == nil || !strings.Contains(err.Error(), "no longer carries starbench's mark: left alone") {
		t.Errorf("got %v, want the policy left alone", err)
	}
	if _, err := c.policyID(ctx, "adopted"); err != nil {
		t.Errorf("the policy was deleted: %v", err)
	}
}
