package sim

import (
	"context"
	"testing"
	"time"

	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/pbm"
	pbmmethods "github.com/vmware/govmomi/pbm/methods"
	pbmtypes "github.com/vmware/govmomi/pbm/types"
	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
	"github.com/vmware/govmomi/vsan"
	vsantypes "github.com/vmware/govmomi/vsan/types"

	"starbench/internal/testbed"
	"starbench/internal/vsphere/vsanext"
)

func startInProcess(t *testing.T, opts Options) (*Sim, *vim25.Client) {
	t.Helper()
	if opts.Testbed == nil {
		p, err := testbed.Load("vxrail-ve660-esa")
		if err != nil {
			t.Fatal(err)
		}
		opts.Testbed = p
	}
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	c, err := vim25.NewClient(context.Background(), s.InProcess(vim25.Path))
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

// cloneTemplate clones the worker template into a VM.
func cloneTemplate(t *testing.T, c *vim25.Client) *object.VirtualMachine {
	t.Helper()
	ctx := context.Background()
	finder := find.NewFinder(c)
	tmpl, err := finder.VirtualMachine(ctx, "/"+Datacenter+"/vm/"+Template)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := finder.ClusterComputeResource(ctx, "/"+Datacenter+"/host/"+Cluster)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := cl.ResourcePool(ctx)
	if err != nil {
		t.Fatal(err)
	}
	folder, err := finder.Folder(ctx, "/"+Datacenter+"/vm")
	if err != nil {
		t.Fatal(err)
	}
	ref := pool.Reference()
	task, err := tmpl.Clone(ctx, folder, "vm-under-test", types.VirtualMachineCloneSpec{Location: types.VirtualMachineRelocateSpec{Pool: &ref}})
	if err != nil {
		t.Fatal(err)
	}
	info, err := task.WaitForResult(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return object.NewVirtualMachine(c, info.Result.(types.ManagedObjectReference))
}

func clusterRef(t *testing.T, c *vim25.Client) types.ManagedObjectReference {
	t.Helper()
	cl, err := find.NewFinder(c).ClusterComputeResource(context.Background(), "/"+Datacenter+"/host/"+Cluster)
	if err != nil {
		t.Fatal(err)
	}
	return cl.Reference()
}

// TestInProcessSharesNoMemory: a client that changes a request after the
// call, or a response it got, changes nothing in the simulator.
func TestInProcessSharesNoMemory(t *testing.T) {
	s, c := startInProcess(t, Options{})
	ctx := context.Background()

	// A response: the vSAN configuration the simulator keeps.
	rt := s.InProcess(vsan.Path)
	cluster := clusterRef(t, c)
	cfg, err := vsanext.GetConfig(ctx, rt, cluster)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DataEfficiencyConfig.DedupEnabled = true
	if again, _ := vsanext.GetConfig(ctx, rt, cluster); again.DataEfficiencyConfig.DedupEnabled {
		t.Error("changing a response changed the simulator's vSAN configuration")
	}

	// A request: the disk a reconfiguration adds to a VM.
	vm := cloneTemplate(t, c)
	devices, err := vm.Device(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ctrl, err := devices.FindDiskController("")
	if err != nil {
		t.Fatal(err)
	}
	disk := devices.CreateDisk(ctrl, types.ManagedObjectReference{}, "["+Datastore+"] extra-disk.vmdk")
	disk.CapacityInKB = 1 << 20
	req := types.ReconfigVM_Task{This: vm.Reference(), Spec: types.VirtualMachineConfigSpec{
		DeviceChange: []types.BaseVirtualDeviceConfigSpec{&types.VirtualDeviceConfigSpec{
			Operation: types.VirtualDeviceConfigSpecOperationAdd, FileOperation: types.VirtualDeviceConfigSpecFileOperationCreate, Device: disk}},
	}}
	res, err := methods.ReconfigVM_Task(ctx, c, &req)
	if err != nil {
		t.Fatal(err)
	}
	if err := object.NewTask(c, res.Returnval).Wait(ctx); err != nil {
		t.Fatal(err)
	}
	disk.CapacityInKB = 7
	after, err := vm.Device(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range after.SelectByType((*types.VirtualDisk)(nil)) {
		if d.(*types.VirtualDisk).CapacityInKB == 7 {
			t.Error("changing a request after the call changed the disk the simulator added")
		}
	}
}

// TestInProcessServesEveryEndpoint: vim25, SPBM and vSAN calls in process,
// with the stock vSAN client, whose response type differs from the one the
// simulator answers with (the RDMA-aware vsanext type).
func TestInProcessServesEveryEndpoint(t *testing.T) {
	s, c := startInProcess(t, Options{})
	ctx := context.Background()
	if c.ServiceContent.About.ApiType != "VirtualCenter" {
		t.Errorf("about %+v", c.ServiceContent.About)
	}
	pc := s.InProcess(pbm.Path)
	content, err := pbmmethods.PbmRetrieveServiceContent(ctx, pc, &pbmtypes.PbmRetrieveServiceContent{This: pbm.ServiceInstance})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pbmmethods.PbmQueryProfile(ctx, pc, &pbmtypes.PbmQueryProfile{This: content.Returnval.ProfileManager,
		ResourceType: pbmtypes.PbmProfileResourceType{ResourceType: string(pbmtypes.PbmProfileResourceTypeEnumSTORAGE)}}); err != nil {
		t.Errorf("SPBM: %v", err)
	}
	vc := &vsan.Client{RoundTripper: s.InProcess(vsan.Path)}
	on := true
	if _, err := vsanext.Reconfigure(ctx, s.InProcess(vsan.Path), clusterRef(t, c), vsanext.ReconfigSpec{
		VimVsanReconfigSpec: vsantypes.VimVsanReconfigSpec{DataEfficiencyConfig: &vsantypes.VsanDataEfficiencyConfig{CompressionEnabled: &on}},
	}); err != nil {
		t.Fatal(err)
	}
	var cfg *vsantypes.VsanConfigInfoEx
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cfg, err = vc.VsanClusterGetConfig(ctx, clusterRef(t, c)); err != nil {
			t.Fatal(err)
		}
		if cfg.DataEfficiencyConfig != nil && cfg.DataEfficiencyConfig.CompressionEnabled != nil && *cfg.DataEfficiencyConfig.CompressionEnabled {
			break
		}
	}
	if cfg.DataEfficiencyConfig == nil || cfg.DataEfficiencyConfig.CompressionEnabled == nil || !*cfg.DataEfficiencyConfig.CompressionEnabled {
		t.Errorf("stock client read %+v, want compression on", cfg.DataEfficiencyConfig)
	}
	if s.InProcess("/nope") != nil {
		t.Error("a round tripper for a path the simulator does not serve")
	}
}

// TestInProcessFaultsAndLatency: injected faults reach the client as SOAP
// faults, as over HTTPS, and every call takes the simulated latency.
func TestInProcessFaultsAndLatency(t *testing.T) {
	s, c := startInProcess(t, Options{Latency: 5 * time.Millisecond})
	ctx := context.Background()
	s.SetFaults([]Fault{{Method: "CurrentTime", Rate: 1}})
	_, err := methods.GetCurrentTime(ctx, c)
	if !soap.IsSoapFault(err) {
		t.Fatalf("injected fault: got %v, want a SOAP fault", err)
	}
	if _, ok := soap.ToSoapFault(err).VimFault().(*types.SystemError); !ok {
		t.Errorf("fault %#v, want the injected SystemError", soap.ToSoapFault(err).VimFault())
	}
	s.SetFaults(nil)
	start := time.Now()
	if _, err := methods.GetCurrentTime(ctx, c); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 5*time.Millisecond {
		t.Errorf("a call took %s, less than the simulated latency", d)
	}
}

// TestVersionMovesOnChangesOnly: reads leave the version as it is; a
// change, and the end of a task, move it.
func TestVersionMovesOnChangesOnly(t *testing.T) {
	s, c := startInProcess(t, Options{})
	ctx := context.Background()
	v := s.Version()
	var hosts []mo.HostSystem
	refs := []types.ManagedObjectReference{}
	for _, h := range s.model.Map().All("HostSystem") {
		refs = append(refs, h.Reference())
	}
	if err := property.DefaultCollector(c).Retrieve(ctx, refs, []string{"name", "config.network"}, &hosts); err != nil {
		t.Fatal(err)
	}
	if _, err := vsanext.GetConfig(ctx, s.InProcess(vsan.Path), clusterRef(t, c)); err != nil {
		t.Fatal(err)
	}
	if s.Version() != v {
		t.Fatalf("reads moved the version from %d to %d", v, s.Version())
	}
	// Cluster settings move the version, not the VMs'.
	v, vms := s.Version(), s.VMVersion()
	on := true
	if _, err := vsanext.Reconfigure(ctx, s.InProcess(vsan.Path), clusterRef(t, c), vsanext.ReconfigSpec{RdmaConfig: &vsanext.RdmaConfig{RdmaEnabled: on}}); err != nil {
		t.Fatal(err)
	}
	if s.Version() == v || s.VMVersion() != vms {
		t.Errorf("vSAN reconfiguration: version %d -> %d, VM version %d -> %d; want the first to move, not the second", v, s.Version(), vms, s.VMVersion())
	}
	v = s.Version()
	var pgs []mo.DistributedVirtualPortgroup
	var pgRefs []types.ManagedObjectReference
	for _, r := range s.model.Map().AllReference("DistributedVirtualPortgroup") {
		pgRefs = append(pgRefs, r.Reference())
	}
	if err := property.DefaultCollector(c).Retrieve(ctx, pgRefs, []string{"config.configVersion"}, &pgs); err != nil || len(pgs) == 0 {
		t.Fatalf("%d distributed portgroups: %v", len(pgs), err)
	}
	pg := object.NewDistributedVirtualPortgroup(c, pgs[0].Self)
	pgTask, err := pg.Reconfigure(ctx, types.DVPortgroupConfigSpec{ConfigVersion: pgs[0].Config.ConfigVersion, Description: "changed"})
	if err != nil {
		t.Fatal(err)
	}
	if err := pgTask.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if s.Version() == v || s.VMVersion() != vms {
		t.Errorf("portgroup reconfiguration: version %d -> %d, VM version %d -> %d; want the first to move, not the second", v, s.Version(), vms, s.VMVersion())
	}
	vm := cloneTemplate(t, c)
	if s.VMVersion() == vms {
		t.Error("a clone left the VM version as it was")
	}
	hold := s.HoldTasks("ReconfigVm")
	v = s.Version()
	task, err := vm.Reconfigure(ctx, types.VirtualMachineConfigSpec{Annotation: "changed"})
	if err != nil {
		t.Fatal(err)
	}
	if err := hold.Wait(ctx, 1); err != nil {
		t.Fatal(err)
	}
	called := s.Version()
	if called <= v {
		t.Errorf("a reconfiguration left the version at %d", called)
	}
	hold.Release()
	if err := task.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if s.Version() <= called {
		t.Errorf("version %d after the task as after the call that started it: the task's change went unnoticed", s.Version())
	}
}

// TestInProcessTaskCallsAnswerOnceTheTaskEnded: a call that starts a task
// returns once the task ended; a task that does not end (held) does not
// hold the call.
func TestInProcessTaskCallsAnswerOnceTheTaskEnded(t *testing.T) {
	s, c := startInProcess(t, Options{})
	ctx := context.Background()
	vm := cloneTemplate(t, c)
	task, err := vm.Reconfigure(ctx, types.VirtualMachineConfigSpec{Annotation: "changed"})
	if err != nil {
		t.Fatal(err)
	}
	var info mo.Task
	if err := property.DefaultCollector(c).RetrieveOne(ctx, task.Reference(), []string{"info.state"}, &info); err != nil {
		t.Fatal(err)
	}
	if info.Info.State != types.TaskInfoStateSuccess {
		t.Errorf("task %s when the call that started it returned, want success", info.Info.State)
	}
	hold := s.HoldTasks("ReconfigVm")
	defer hold.Release()
	if _, err := vm.Reconfigure(ctx, types.VirtualMachineConfigSpec{Annotation: "held"}); err != nil {
		t.Fatal(err)
	}
}

// TestRunningTaskIsLocked: a task is locked while its body runs, so that
// whoever waits for it under the lock (vcsim's Task.Wait, in the body of a
// clone or a destroy) sees it end without polling; the lock is free once
// the task has ended.
func TestRunningTaskIsLocked(t *testing.T) {
	s, _ := startInProcess(t, Options{})
	m := s.model.Map()
	ctx := *s.model.Service.Context
	ctx.Map = m
	release := make(chan struct{})
	task := simulator.CreateTask(m.Get(s.model.ServiceContent.RootFolder), "starbenchProbe",
		func(*simulator.Task) (types.AnyType, types.BaseMethodFault) {
			<-release
			return nil, nil
		})
	ref := task.Run(&ctx)
	seen := make(chan types.TaskInfoState, 1)
	go m.WithLock(&simulator.Context{}, ref, func() { seen <- task.Info.State })
	select {
	case st := <-seen:
		close(release)
		t.Fatalf("another context read the task (%s) while its body ran", st)
	case <-time.After(100 * time.Millisecond): // still waiting for the lock
	}
	close(release)
	if st := <-seen; st != types.TaskInfoStateSuccess {
		t.Errorf("read the task %s once it ended, want success", st)
	}
	m.WithLock(&simulator.Context{}, ref, func() {}) // free again
}
