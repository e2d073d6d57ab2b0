package vsphere

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/types"

	"starbench/internal/sim"
)

func smallSpec(prefix string) WorkerSpec {
	return WorkerSpec{Prefix: prefix, PerHost: 2, CPUs: 4, MemoryMB: 4096, Disks: 3, DiskSizeGB: 10, IPTimeout: time.Minute}
}

func TestDeployWorkersSpreadsEvenlyWithDisksAndIPs(t *testing.T) {
	_, c := startSim(t, sim.Options{Testbed: testbedOf(4, "ESA")})
	ctx := context.Background()
	workers, err := c.DeployWorkers(ctx, smallSpec("w"))
	if err != nil {
		t.Fatal(err)
	}
	if len(workers) != 8 {
		t.Fatalf("got %d workers, want 8", len(workers))
	}
	perHost := map[string]int{}
	ips := map[string]bool{}
	for _, w := range workers {
		perHost[w.Host]++
		if w.IP == "" || ips[w.IP] {
			t.Errorf("worker %s has IP %q (empty or duplicate)", w.Name, w.IP)
		}
		ips[w.IP] = true
		if len(w.Disks) != 3 {
			t.Fatalf("worker %s has %d data disks, want 3", w.Name, len(w.Disks))
		}
		for i, d := range w.Disks {
			if d.SizeBytes != 10<<30 || d.Path != "/dev/sd"+string(rune('b'+i)) {
				t.Errorf("worker %s disk %d = %+v", w.Name, i, d)
			}
		}
	}
	if len(perHost) != 4 {
		t.Errorf("workers on %d hosts, want 4: %v", len(perHost), perHost)
	}
	for h, n := range perHost {
		if n != 2 {
			t.Errorf("host %s has %d workers, want 2", h, n)
		}
	}
	if workers[0].Name != "w-01" || workers[7].Name != "w-08" {
		t.Errorf("names %s..%s, want w-01..w-08", workers[0].Name, workers[7].Name)
	}
}

func TestDeployWorkersIsIdempotent(t *testing.T) {
	_, c := startSim(t, sim.Options{Testbed: testbedOf(3, "ESA")})
	ctx := context.Background()
	spec := smallSpec("idem")
	first, err := c.DeployWorkers(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.DeployWorkers(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	for i := range first {
		if first[i].VM != again[i].VM {
			t.Errorf("worker %s was recreated (%s, then %s)", first[i].Name, first[i].VM, again[i].VM)
		}
	}

	bigger := spec
	bigger.CPUs, bigger.MemoryMB = 8, 8192
	resized, err := c.DeployWorkers(ctx, bigger)
	if err != nil {
		t.Fatal(err)
	}
	if resized[0].VM != first[0].VM {
		t.Errorf("resizing recreated the worker")
	}
	vms, err := c.workerVMs(ctx, "idem", "config.hardware.numCPU", "config.hardware.memoryMB", "runtime.powerState")
	if err != nil {
		t.Fatal(err)
	}
	for _, vm := range vms {
		if vm.Config.Hardware.NumCPU != 8 || vm.Config.Hardware.MemoryMB != 8192 || vm.Runtime.PowerState != types.VirtualMachinePowerStatePoweredOn {
			t.Errorf("%s: %d CPUs, %d MiB, %s; want 8, 8192, poweredOn", vm.Name, vm.Config.Hardware.NumCPU, vm.Config.Hardware.MemoryMB, vm.Runtime.PowerState)
		}
	}

	moreDisks := spec
	moreDisks.Disks = 5
	_, err = c.DeployWorkers(ctx, moreDisks)
	if err == nil || !strings.Contains(err.Error(), "different spec") || !strings.Contains(err.Error(), "destroy_workers") {
		t.Errorf("different disks: got %v, want a refusal that says how to proceed", err)
	}

	names, err := c.DestroyWorkers(ctx, "idem", 4)
	if err != nil || len(names) != 6 {
		t.Fatalf("destroy: %v, %v", names, err)
	}
	if left, _ := c.workerVMs(ctx, "idem"); len(left) != 0 {
		t.Errorf("%d workers left after destroy", len(left))
	}
}

func TestDeployWorkersRefusesBadSpecs(t *testing.T) {
	_, c := startSim(t, sim.Options{Testbed: testbedOf(3, "ESA")})
	for _, tc := range []struct {
		edit func(*WorkerSpec)
		want string
	}{
		{func(s *WorkerSpec) { s.Count = 4 }, "either count= "},
		{func(s *WorkerSpec) { s.Prefix = "9x" }, "not a valid VM name prefix"},
		{func(s *WorkerSpec) { s.Disks = 20 }, "want 0 to 14"},
		{func(s *WorkerSpec) { s.Template = "nope" }, `template "nope"`},
		{func(s *WorkerSpec) { s.Policy = "gold" }, `no storage policy named "gold"`},
		{func(s *WorkerSpec) { s.Datastore = "nfs9" }, `datastore "nfs9"`},
	} {
		spec := smallSpec("bad")
		tc.edit(&spec)
		_, err := c.DeployWorkers(context.Background(), spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want an error containing %q", err, tc.want)
		}
	}
}

func TestDeployWorkersRidesOutTransientFaults(t *testing.T) {
	s, c := startSim(t, sim.Options{Testbed: testbedOf(4, "ESA"), Seed: 7})
	s.SetFaults([]sim.Fault{
		{Method: "CloneVM_Task", Rate: 0.1, Fault: func() types.BaseMethodFault { return &types.TaskInProgress{} }},
		{Method: "ReconfigVM_Task", Rate: 0.1, Fault: func() types.BaseMethodFault { return &types.TaskInProgress{} }},
	})
	spec := smallSpec("flaky")
	spec.PerHost = 6
	workers, err := c.DeployWorkers(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(workers) != 24 {
		t.Fatalf("got %d workers, want 24", len(workers))
	}
	for _, w := range workers {
		if len(w.Disks) != 3 || w.IP == "" {
			t.Errorf("worker %s: %d disks, IP %q", w.Name, len(w.Disks), w.IP)
		}
	}
}

func TestDeployWorkersFailingForGoodLeavesNothing(t *testing.T) {
	for _, method := range []string{"CloneVM_Task", "ReconfigVM_Task"} {
		t.Run(method, func(t *testing.T) {
			s, c := startSim(t, sim.Options{Testbed: testbedOf(4, "ESA")})
			s.SetFaults([]sim.Fault{{Method: method, Rate: 1, Fault: func() types.BaseMethodFault { return &types.TaskInProgress{} }}})
			_, err := c.DeployWorkers(context.Background(), smallSpec("doomed"))
			if err == nil {
				t.Fatal("deploy succeeded with every call failing")
			}
			msg := err.Error()
			for _, want := range []string{method, "doomed-0", "after 6 attempts", "TaskInProgress"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not mention %q", msg, want)
				}
			}
			s.SetFaults(nil)
			if left, _ := c.workerVMs(context.Background(), "doomed"); len(left) != 0 {
				t.Errorf("%d VMs left behind", len(left))
			}
		})
	}
}

func TestDeployWorkersKeepsWhatItMadeWhenAsked(t *testing.T) {
	s, c := startSim(t, sim.Options{Testbed: testbedOf(3, "ESA")})
	s.SetFaults([]sim.Fault{{Method: "ReconfigVM_Task", Rate: 1, Fault: func() types.BaseMethodFault { return &types.InvalidDeviceSpec{} }}})
	spec := smallSpec("kept")
	spec.KeepOnFailure = true
	_, err := c.DeployWorkers(context.Background(), spec)
	if err == nil || !strings.Contains(err.Error(), "permanent fault") || strings.Contains(err.Error(), "attempts") {
		t.Fatalf("got %v, want a permanent fault reported at the first attempt", err)
	}
	s.SetFaults(nil)
	if left, _ := c.workerVMs(context.Background(), "kept"); len(left) == 0 {
		t.Errorf("keep_on_failure removed the workers")
	}
}

// TestCancelledDeploymentCancelsItsTasksAndRemovesWhatItMade: Ctrl-C while
// three workers' disks are being added (tasks the simulator holds, as a slow
// vCenter would) cancels the three tasks in vCenter and removes the three
// VMs; nothing depends on how fast the machine is.
func TestCancelledDeploymentCancelsItsTasksAndRemovesWhatItMade(t *testing.T) {
	s, c := startSim(t, sim.Options{Testbed: testbedOf(3, "ESA")})
	hold := s.HoldTasks("ReconfigVm")
	defer hold.Release()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		if hold.Wait(ctx, 3) == nil {
			cancel()
			releaseUnlessCancelled(t, hold, 3)
		}
	}()
	spec := smallSpec("cut")
	spec.PerHost, spec.Pool = 1, 3
	_, err := c.DeployWorkers(ctx, spec)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if n := hold.Cancelled(); n != 3 {
		t.Errorf("%d tasks were cancelled in vCenter, want the 3 in flight", n)
	}
	if left := vmNames(t, s, "cut-"); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// releaseUnlessCancelled releases the hold when the client does not cancel
// n held tasks: a held task keeps its VM locked in the simulator, and the
// test would hang instead of failing. The bound only matters to a failing test.
func releaseUnlessCancelled(t *testing.T, hold *sim.Hold, n int) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if hold.WaitCancelled(ctx, n) != nil {
		t.Errorf("the client did not cancel the %d tasks in flight in vCenter", n)
		hold.Release()
	}
}

// TestACloneCancelledLateIsRemoved: a clone task cancelled after it made
// its VM (vCenter may leave it) ends the deployment without that VM.
func TestACloneCancelledLateIsRemoved(t *testing.T) {
	s, c := startSim(t, sim.Options{Testbed: testbedOf(3, "ESA")})
	hold := s.HoldTasks("CloneVm")
	defer hold.Release()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		if hold.Wait(ctx, 1) == nil {
			cancel()
			releaseUnlessCancelled(t, hold, 1)
		}
	}()
	spec := smallSpec("part")
	spec.Count, spec.PerHost, spec.Pool = 1, 0, 1
	_, err := c.DeployWorkers(ctx, spec)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if hold.Cancelled() != 1 {
		t.Errorf("the clone task was not cancelled in vCenter")
	}
	if left := vmNames(t, s, "part-"); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	if _, err := c.finder.VirtualMachine(context.Background(), DefaultTemplate); err != nil {
		t.Errorf("the template is gone: %v", err)
	}
}

func TestDestroyCutShortByCancellationFails(t *testing.T) {
	_, c := startSim(t, sim.Options{Testbed: testbedOf(3, "ESA")})
	spec := smallSpec("stay")
	spec.PerHost, spec.Disks = 1, 0
	workers, err := c.DeployWorkers(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	var vms []*object.VirtualMachine
	for _, w := range workers {
		vms = append(vms, object.NewVirtualMachine(c.vim, types.ManagedObjectReference{Type: "VirtualMachine", Value: w.VM}))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.destroy(ctx, vms, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("destroy with a cancelled context: got %v, want context.Canceled", err)
	}
	if left, _ := c.workerVMs(context.Background(), "stay"); len(left) != 3 {
		t.Errorf("%d workers left, want all 3 (nothing was removed)", len(left))
	}
}

// TestDeployNeverRemovesAVMItDidNotCreate: a template named like a worker
// makes the clone fail, and the cleanup must leave the template alone.
func TestDeployNeverRemovesAVMItDidNotCreate(t *testing.T) {
	_, c := startSim(t, sim.Options{Testbed: testbedOf(3, "ESA")})
	ctx := context.Background()
	tmpl, err := c.finder.VirtualMachine(ctx, DefaultTemplate)
	if err != nil {
		t.Fatal(err)
	}
	folders, err := c.dc.Folders(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := c.cluster.ResourcePool(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pool := rp.Reference()
	task, err := tmpl.Clone(ctx, folders.VmFolder, "gold-01", types.VirtualMachineCloneSpec{Location: types.VirtualMachineRelocateSpec{Pool: &pool}})
	if err != nil {
		t.Fatal(err)
	}
	info, err := task.WaitForResult(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := object.NewVirtualMachine(c.vim, info.Result.(types.ManagedObjectReference)).MarkAsTemplate(ctx); err != nil {
		t.Fatal(err)
	}
	spec := smallSpec("gold")
	spec.PerHost, spec.Disks = 1, 0
	if _, err := c.DeployWorkers(ctx, spec); err == nil || !strings.Contains(err.Error(), "named gold-01 exists outside the worker set") {
		t.Errorf("deploy over a template named gold-01: got %v, want a refusal naming it", err)
	}
	if _, err := c.finder.VirtualMachine(ctx, "gold-01"); err != nil {
		t.Errorf("the template gold-01 was removed: %v", err)
	}
}
