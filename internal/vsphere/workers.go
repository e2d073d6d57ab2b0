package vsphere

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vmware/govmomi/fault"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/view"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"starbench/internal/ledger"
)

// DefaultTemplate is the worker template VM deploy_workers clones by default
// (the embedded simulator has one by this name).
const DefaultTemplate = "starbench-worker-template"

// WorkerSpec is a set of worker VMs: Count in all, or PerHost on every host.
type WorkerSpec struct {
	Prefix     string // workers are named Prefix-01, Prefix-02, ...
	Count      int
	PerHost    int
	Template   string // VM template to clone ("" = DefaultTemplate, or the OVA's name)
	OVA        string // an OVA file imported as the template first, unless it exists
	CPUs       int
	MemoryMB   int
	Disks      int // thin data disks per worker
	DiskSizeGB int
	Datastore  string // "" = the cluster's vSAN datastore
	Network    string // "" = the template's network
	Policy     string // storage policy of the data disks ("" = the datastore default)
	// Pool is how many workers are deployed at once (0 = 8).
	Pool int
	// KeepOnFailure keeps what a failed deployment created, for inspection.
	KeepOnFailure bool
	// IPTimeout bounds the wait for a worker's guest IP (0 = 10 minutes).
	IPTimeout time.Duration
}

// Worker is one deployed worker VM.
type Worker struct {
	Name  string
	VM    string // managed object id, "vm-42"
	Host  string
	IP    string
	Disks []Disk // data disks, in device order
	// CPUs is the VM's vCPU count and Controller the virtual controller of
	// its first data disk ("pvscsi", "lsilogic", "nvme"; "" unknown): the
	// guest side the simulated data plane models.
	CPUs       int
	Controller string
}

// Disk is one data disk of a worker.
type Disk struct {
	Name      string // "disk1", ...
	Path      string // guest device, "/dev/sdb", ...
	Key       int32  // device key
	SizeBytes int64
	Policy    string // storage policy name; "" when none is assigned
}

// maxDataDisks is what one paravirtual SCSI controller holds beside the OS disk.
const maxDataDisks = 14

var prefixRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]{0,40}$`)

func (s *WorkerSpec) check() error {
	switch {
	case !prefixRE.MatchString(s.Prefix):
		return fmt.Errorf("prefix %q is not a valid VM name prefix: want a letter, then letters, digits or '-' (at most 41)", s.Prefix)
	case s.Count < 0:
		return fmt.Errorf("count=%d: want 1 or more workers in all", s.Count)
	case s.PerHost < 0:
		return fmt.Errorf("per_host=%d: want 1 or more workers on every host", s.PerHost)
	case (s.Count > 0) == (s.PerHost > 0):
		return fmt.Errorf("give either count= (workers in all) or per_host= (workers on every host), not %s", map[bool]string{true: "both", false: "neither"}[s.Count > 0])
	case s.CPUs < 1 || s.CPUs > 128:
		return fmt.Errorf("cpus=%d: want 1 to 128", s.CPUs)
	case s.MemoryMB < 256:
		return fmt.Errorf("memory=%d MiB: want at least 256", s.MemoryMB)
	case s.Disks < 0 || s.Disks > maxDataDisks:
		return fmt.Errorf("disks=%d: want 0 to %d data disks", s.Disks, maxDataDisks)
	case s.Disks > 0 && s.DiskSizeGB < 1:
		return fmt.Errorf("disk_size=%d GiB: want at least 1", s.DiskSizeGB)
	case s.Pool < 0:
		return fmt.Errorf("pool=%d: want at least 1", s.Pool)
	}
	return nil
}

// fingerprint is the part of a spec a worker cannot change in place; it is
// kept in the VM's annotation so a later deployment can tell its workers apart.
func (s *WorkerSpec) fingerprint(datastore string) string {
	return fmt.Sprintf("starbench worker: template=%s disks=%dx%dGiB datastore=%s network=%s",
		s.Template, s.Disks, s.DiskSizeGB, datastore, s.Network)
}

// DeployWorkers deploys the worker set of spec, or reuses the existing set
// of the same prefix when it matches (CPU and memory are reconfigured in
// place; anything else is refused). A policy, when given, is applied to
// every data disk and checked for compliance. When a worker fails for good,
// what this call created is removed unless spec.KeepOnFailure.
func (c *Client) DeployWorkers(ctx context.Context, spec WorkerSpec) ([]Worker, error) {
	if spec.Template == "" && spec.OVA != "" {
		spec.Template = TemplateName(spec.OVA)
	}
	if spec.Template == "" {
		spec.Template = DefaultTemplate
	}
	if spec.Pool == 0 {
		spec.Pool = 8
	}
	if spec.IPTimeout == 0 {
		spec.IPTimeout = 10 * time.Minute
	}
	if err := spec.check(); err != nil {
		return nil, err
	}
	if spec.OVA != "" {
		if err := c.ImportTemplate(ctx, spec.OVA, spec.Template, spec.Datastore); err != nil {
			return nil, err
		}
	}
	plan, err := c.plan(ctx, &spec)
	if err != nil {
		return nil, err
	}
	var created []*object.VirtualMachine
	var mu sync.Mutex
	err = pool(ctx, spec.Pool, len(plan.steps), func(ctx context.Context, i int) error {
		return c.deployOne(ctx, plan, plan.steps[i], func(vm *object.VirtualMachine) {
			mu.Lock()
			created = append(created, vm)
			mu.Unlock()
		})
	})
	if err != nil {
		if !spec.KeepOnFailure && len(created) > 0 {
			cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Minute)
			defer cancel()
			if cerr := c.destroy(cleanup, created, spec.Pool); cerr != nil {
				return nil, fmt.Errorf("%w; removing the %d workers it created also failed: %v", err, len(created), cerr)
			}
			return nil, fmt.Errorf("%w (the %d workers this deployment created were removed)", err, len(created))
		}
		return nil, err
	}
	workers, err := c.Workers(ctx, spec.Prefix)
	if err != nil {
		return nil, err
	}
	if plan.profile != "" {
		if err := c.waitCompliant(ctx, workers, plan.profile, spec.Policy, 0); err != nil {
			return nil, err
		}
	}
	return workers, nil
}

// deployPlan is what DeployWorkers resolved before touching anything.
type deployPlan struct {
	spec      *WorkerSpec
	template  *object.VirtualMachine
	folder    *object.Folder
	pool      types.ManagedObjectReference
	datastore types.ManagedObjectReference
	dsName    string
	network   types.BaseVirtualDeviceBackingInfo // nil = keep the template's
	profile   string                             // SPBM profile id of spec.Policy
	steps     []deployStep
}

// deployStep is one worker to create (vm nil) or to bring in line (vm set).
type deployStep struct {
	name        string
	host        types.ManagedObjectReference
	hostName    string
	vm          *object.VirtualMachine
	reconfigure bool // CPU or memory differ
	poweredOn   bool
}

func (c *Client) plan(ctx context.Context, spec *WorkerSpec) (*deployPlan, error) {
	p := &deployPlan{spec: spec}
	hosts, err := c.hosts(ctx, "runtime.connectionState", "runtime.inMaintenanceMode")
	if err != nil {
		return nil, err
	}
	var usable []mo.HostSystem
	for _, h := range hosts {
		if h.Runtime.ConnectionState == types.HostSystemConnectionStateConnected && !h.Runtime.InMaintenanceMode {
			usable = append(usable, h)
		}
	}
	if len(usable) == 0 {
		return nil, fmt.Errorf("cluster %s has no connected host out of maintenance mode", c.cluster.Name())
	}
	if usable, err = c.pinHost(ctx, usable); err != nil {
		return nil, err
	}
	count := spec.Count
	if spec.PerHost > 0 {
		count = spec.PerHost * len(usable)
	}

	if p.template, err = c.finder.VirtualMachine(ctx, spec.Template); err != nil {
		return nil, fmt.Errorf("template %q: %w (give template= the name of a VM template in datacenter %s)", spec.Template, err, c.dc.Name())
	}
	if p.folder, p.pool, err = c.folderAndPool(ctx); err != nil {
		return nil, err
	}
	if err := c.pickDatastore(ctx, p); err != nil {
		return nil, err
	}
	if spec.Network == "" {
		spec.Network = c.place.Network
	}
	if spec.Network != "" {
		n, err := c.finder.Network(ctx, spec.Network)
		if err != nil {
			return nil, fmt.Errorf("network %q: %w (network= or GOVC_NETWORK)", spec.Network, err)
		}
		if p.network, err = n.EthernetCardBackingInfo(ctx); err != nil {
			return nil, err
		}
	}
	if spec.Policy != "" {
		if p.profile, err = c.policyID(ctx, spec.Policy); err != nil {
			return nil, err
		}
	}
	return p, c.planSteps(ctx, p, usable, count)
}

func (c *Client) pickDatastore(ctx context.Context, p *deployPlan) error {
	if p.spec.Datastore == "" {
		p.spec.Datastore = c.place.Datastore
	}
	if p.spec.Datastore != "" {
		ds, err := c.finder.Datastore(ctx, p.spec.Datastore)
		if err != nil {
			return fmt.Errorf("datastore %q: %w (datastore= or GOVC_DATASTORE)", p.spec.Datastore, err)
		}
		p.datastore, p.dsName = ds.Reference(), ds.Name()
		return nil
	}
	inv, err := c.datastores(ctx)
	if err != nil {
		return err
	}
	var names []string
	for _, ds := range inv {
		if ds.Summary.Type == "vsan" {
			p.datastore, p.dsName = ds.Self, ds.Summary.Name
			return nil
		}
		names = append(names, ds.Summary.Name)
	}
	return fmt.Errorf("cluster %s has no vSAN datastore; name one with datastore= (it has: %s)", c.cluster.Name(), strings.Join(names, ", "))
}

func (c *Client) datastores(ctx context.Context) ([]mo.Datastore, error) {
	var cl mo.ClusterComputeResource
	if err := c.cluster.Properties(ctx, c.cluster.Reference(), []string{"datastore"}, &cl); err != nil {
		return nil, err
	}
	var dss []mo.Datastore
	if len(cl.Datastore) == 0 {
		return nil, nil
	}
	err := property.DefaultCollector(c.vim).Retrieve(ctx, cl.Datastore, []string{"summary"}, &dss)
	return dss, err
}

// planSteps matches the wanted names against the VMs that already exist.
func (c *Client) planSteps(ctx context.Context, p *deployPlan, hosts []mo.HostSystem, count int) error {
	spec := p.spec
	existing, err := c.workerVMs(ctx, spec.Prefix, "config.annotation", "config.hardware.numCPU", "config.hardware.memoryMB", "runtime.powerState", "runtime.host")
	if err != nil {
		return err
	}
	if len(existing) > count {
		return fmt.Errorf("%d workers named %s-NN exist and %d were asked for: destroy them first (vsphere.destroy_workers(%q)) or ask for %d",
			len(existing), spec.Prefix, count, spec.Prefix, len(existing))
	}
	byName := map[string]mo.VirtualMachine{}
	for _, vm := range existing {
		byName[vm.Name] = vm
	}
	want := spec.fingerprint(p.dsName)
	width := max(2, len(strconv.Itoa(count)))
	for i := range count {
		name := fmt.Sprintf("%s-%0*d", spec.Prefix, width, i+1)
		host := hosts[i%len(hosts)]
		step := deployStep{name: name, host: host.Self, hostName: host.Name}
		if vm, ok := byName[name]; ok {
			if got := vm.Config.Annotation; got != want {
				return fmt.Errorf("worker %s exists with a different spec (%q; asked for %q): destroy the set first (vsphere.destroy_workers(%q)) or use another prefix",
					name, strings.TrimPrefix(got, "starbench worker: "), strings.TrimPrefix(want, "starbench worker: "), spec.Prefix)
			}
			step.vm = object.NewVirtualMachine(c.vim, vm.Self)
			step.reconfigure = int(vm.Config.Hardware.NumCPU) != spec.CPUs || int(vm.Config.Hardware.MemoryMB) != spec.MemoryMB
			step.poweredOn = vm.Runtime.PowerState == types.VirtualMachinePowerStatePoweredOn
			delete(byName, name)
		}
		p.steps = append(p.steps, step)
	}
	if len(byName) > 0 {
		var odd []string
		for n := range byName {
			odd = append(odd, n)
		}
		sort.Strings(odd)
		return fmt.Errorf("workers %s do not fit the numbering of %d workers: destroy the set first (vsphere.destroy_workers(%q))", strings.Join(odd, ", "), count, spec.Prefix)
	}
	return nil
}

// deployOne creates or updates one worker; created is told of a new VM as
// soon as it exists, so a failure later can remove it.
func (c *Client) deployOne(ctx context.Context, p *deployPlan, st deployStep, created func(*object.VirtualMachine)) error {
	vm := st.vm
	if vm == nil {
		var err error
		vm, err = c.clone(ctx, p, st)
		if vm != nil {
			created(vm)
		}
		if err != nil {
			return err
		}
		if err := c.configure(ctx, p, st.name, vm); err != nil {
			return err
		}
	} else if st.reconfigure || !st.poweredOn || p.profile != "" {
		if err := c.recordVMChange(ctx, st.name, vm.Reference().Value); err != nil {
			return err
		}
	}
	if st.vm != nil && st.reconfigure {
		if st.poweredOn {
			if err := c.do(ctx, "power off", st.name, "PowerOffVM_Task", func(ctx context.Context) error {
				_, err := waitTask(ctx, func(ctx context.Context) (*object.Task, error) { return vm.PowerOff(ctx) })
				return err
			}); err != nil {
				return err
			}
			st.poweredOn = false
		}
		cfg := types.VirtualMachineConfigSpec{NumCPUs: int32(p.spec.CPUs), MemoryMB: int64(p.spec.MemoryMB)}
		if err := c.reconfigure(ctx, "resize", st.name, vm, cfg); err != nil {
			return err
		}
	}
	if p.profile != "" {
		if err := c.assignPolicy(ctx, st.name, vm, p.profile); err != nil {
			return err
		}
	}
	if !st.poweredOn {
		if err := c.do(ctx, "power on", st.name, "PowerOnVM_Task", func(ctx context.Context) error {
			_, err := waitTask(ctx, func(ctx context.Context) (*object.Task, error) { return vm.PowerOn(ctx) })
			return err
		}); err != nil {
			return err
		}
	}
	ipctx, cancel := context.WithTimeout(ctx, p.spec.IPTimeout)
	defer cancel()
	if _, err := vm.WaitForIP(ipctx, true); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("worker %s on host %s got no guest IP within %s (do the template's VMware Tools start?): %w", st.name, st.hostName, p.spec.IPTimeout, err)
	}
	return nil
}

// clone creates one worker from the template on st.host. When ctx ends
// during the clone, the clone task is cancelled in vCenter and waited for; a
// VM it left behind is returned with the error, so the cleanup removes it.
func (c *Client) clone(ctx context.Context, p *deployPlan, st deployStep) (*object.VirtualMachine, error) {
	host, pool, ds := st.host, p.pool, p.datastore
	spec := types.VirtualMachineCloneSpec{
		Location: types.VirtualMachineRelocateSpec{Host: &host, Pool: &pool, Datastore: &ds},
	}
	entry, err := c.record(ledger.Entry{Kind: KindVM, Name: st.name, Created: true})
	if err != nil {
		return nil, err
	}
	if entry != "" {
		spec.Config = &types.VirtualMachineConfigSpec{ExtraConfig: []types.BaseOptionValue{&types.OptionValue{Key: ledgerMark, Value: entry}}}
	}
	var vm *object.VirtualMachine
	taken := false
	err = c.do(ctx, "clone "+p.spec.Template+" to", st.name+" on host "+st.hostName, "CloneVM_Task", func(ctx context.Context) error {
		t, err := startTask(ctx, func(call context.Context) (*object.Task, error) {
			return p.template.Clone(call, p.folder, st.name, spec)
		})
		if err != nil {
			return err
		}
		info, err := t.WaitForResult(ctx)
		if ctx.Err() != nil {
			err = cancelTask(t, ctx.Err())
		} else if err == nil {
			if ref, ok := info.Result.(types.ManagedObjectReference); ok {
				vm = object.NewVirtualMachine(c.vim, ref)
				return nil
			}
			err = fmt.Errorf("the clone task reported success but no VM named %s exists", st.name)
		}
		if fault.Is(err, &types.DuplicateName{}) {
			taken = true // by a VM that is not ours (a template, say): never remove it
			return err
		}
		// A clone that failed or was cancelled late may leave its VM
		// behind: the cleanup removes it, and a retry starts afresh.
		lookup, stop := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer stop()
		if left := c.leftover(lookup, st.name); left != nil {
			if ctx.Err() != nil {
				vm = left
				return err
			}
			_ = c.destroy(lookup, []*object.VirtualMachine{left}, 1)
		}
		return err
	})
	if vm != nil {
		c.settle(entry, vm.Reference().Value, "")
	} else {
		c.settle(entry, "", ledger.Gone)
	}
	if taken {
		return nil, fmt.Errorf("a VM or template named %s exists outside the worker set (templates are not reused as workers): rename it or use another prefix: %w", st.name, err)
	}
	return vm, err
}

// leftover returns the VM (not a template) named name, or nil.
func (c *Client) leftover(ctx context.Context, name string) *object.VirtualMachine {
	vm, err := c.finder.VirtualMachine(ctx, name)
	if err != nil {
		return nil
	}
	var mvm mo.VirtualMachine
	if err := vm.Properties(ctx, vm.Reference(), []string{"config.template"}, &mvm); err != nil || (mvm.Config != nil && mvm.Config.Template) {
		return nil
	}
	return vm
}

// configure sizes a new worker, labels it with its spec, adds the thin data
// disks beside the VM's own files and moves its NIC to the asked network.
func (c *Client) configure(ctx context.Context, p *deployPlan, name string, vm *object.VirtualMachine) error {
	var mvm mo.VirtualMachine
	if err := vm.Properties(ctx, vm.Reference(), []string{"config.hardware.device", "config.files.vmPathName"}, &mvm); err != nil {
		return fmt.Errorf("reading worker %s: %w", name, err)
	}
	devices := object.VirtualDeviceList(mvm.Config.Hardware.Device)
	dir := path.Dir(mvm.Config.Files.VmPathName) // "[vsanDatastore] uuid"
	var changes []types.BaseVirtualDeviceConfigSpec
	if p.spec.Disks > 0 {
		var ctrl types.BaseVirtualController
		if scsi, err := devices.FindSCSIController(""); err == nil {
			ctrl = scsi
		} else { // a template without one (an IDE appliance) gets a paravirtual controller
			dev, err := devices.CreateSCSIController("pvscsi")
			if err != nil {
				return err
			}
			devices = append(devices, dev)
			ctrl = dev.(types.BaseVirtualController)
			changes = append(changes, &types.VirtualDeviceConfigSpec{Operation: types.VirtualDeviceConfigSpecOperationAdd, Device: dev})
		}
		for i := range p.spec.Disks {
			file := fmt.Sprintf("%s/%s_data%d.vmdk", dir, name, i+1)
			d := devices.CreateDisk(ctrl, p.datastore, file)
			d.CapacityInKB = int64(p.spec.DiskSizeGB) << 20
			devices = append(devices, d)
			changes = append(changes, &types.VirtualDeviceConfigSpec{
				Operation:     types.VirtualDeviceConfigSpecOperationAdd,
				FileOperation: types.VirtualDeviceConfigSpecFileOperationCreate,
				Device:        d,
			})
		}
	}
	if p.network != nil {
		for _, nic := range devices.SelectByType((*types.VirtualEthernetCard)(nil)) {
			card := nic.(types.BaseVirtualEthernetCard).GetVirtualEthernetCard()
			card.Backing = p.network
			changes = append(changes, &types.VirtualDeviceConfigSpec{
				Operation: types.VirtualDeviceConfigSpecOperationEdit, Device: nic,
			})
			break
		}
	}
	return c.reconfigure(ctx, "configure", name, vm, types.VirtualMachineConfigSpec{
		NumCPUs:      int32(p.spec.CPUs),
		MemoryMB:     int64(p.spec.MemoryMB),
		Annotation:   p.spec.fingerprint(p.dsName),
		DeviceChange: changes,
	})
}

func (c *Client) reconfigure(ctx context.Context, op, name string, vm *object.VirtualMachine, spec types.VirtualMachineConfigSpec) error {
	return c.do(ctx, op, name, "ReconfigVM_Task", func(ctx context.Context) error {
		_, err := waitTask(ctx, func(ctx context.Context) (*object.Task, error) { return vm.Reconfigure(ctx, spec) })
		return err
	})
}

// DestroyWorkers powers off and deletes every worker named prefix-NN and
// returns their names.
func (c *Client) DestroyWorkers(ctx context.Context, prefix string, parallel int) ([]string, error) {
	if !prefixRE.MatchString(prefix) {
		return nil, fmt.Errorf("prefix %q is not a valid VM name prefix: want a letter, then letters, digits or '-'", prefix)
	}
	if parallel <= 0 {
		parallel = 8
	}
	vms, err := c.workerVMs(ctx, prefix)
	if err != nil {
		return nil, err
	}
	var objs []*object.VirtualMachine
	var names []string
	for _, vm := range vms {
		objs = append(objs, object.NewVirtualMachine(c.vim, vm.Self))
		names = append(names, vm.Name)
	}
	return names, c.destroy(ctx, objs, parallel)
}

// destroy powers off and deletes vms. When ctx ends first, the VMs not yet
// removed make it fail: it never reports success for work it did not do.
func (c *Client) destroy(ctx context.Context, vms []*object.VirtualMachine, parallel int) error {
	var mu sync.Mutex
	var errs []error
	perr := pool(ctx, parallel, len(vms), func(ctx context.Context, i int) error {
		vm := vms[i]
		name := vm.Reference().Value
		if n, err := vm.ObjectName(ctx); err == nil {
			name = n
		}
		err := c.do(ctx, "power off", name, "PowerOffVM_Task", func(ctx context.Context) error {
			state, err := vm.PowerState(ctx)
			if err != nil || state != types.VirtualMachinePowerStatePoweredOn {
				return err
			}
			_, err = waitTask(ctx, func(ctx context.Context) (*object.Task, error) { return vm.PowerOff(ctx) })
			return err
		})
		if err == nil {
			err = c.do(ctx, "delete", name, "Destroy_Task", func(ctx context.Context) error {
				_, err := waitTask(ctx, func(ctx context.Context) (*object.Task, error) { return vm.Destroy(ctx) })
				return err
			})
		}
		if err == nil {
			c.forgetVM(vm.Reference().Value)
		}
		if err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
		return nil // keep removing the others
	})
	if perr != nil && !slices.ContainsFunc(errs, func(e error) bool { return errors.Is(e, perr) }) {
		errs = append(errs, perr)
	}
	return errors.Join(errs...)
}

// workerVMs lists the VMs named prefix-NN in the datacenter, with props.
func (c *Client) workerVMs(ctx context.Context, prefix string, props ...string) ([]mo.VirtualMachine, error) {
	re := regexp.MustCompile("^" + regexp.QuoteMeta(prefix) + `-\d+$`)
	out, err := c.vms(ctx, re.MatchString, props...)
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// vms lists the VMs (not templates) of the datacenter whose names match,
// with name, config.template and props.
func (c *Client) vms(ctx context.Context, match func(name string) bool, props ...string) ([]mo.VirtualMachine, error) {
	folders, err := c.dc.Folders(ctx)
	if err != nil {
		return nil, err
	}
	v, err := view.NewManager(c.vim).CreateContainerView(ctx, folders.VmFolder.Reference(), []string{"VirtualMachine"}, true)
	if err != nil {
		return nil, err
	}
	defer v.Destroy(context.WithoutCancel(ctx))
	var all []mo.VirtualMachine
	if err := v.Retrieve(ctx, []string{"VirtualMachine"}, append([]string{"name", "config.template"}, props...), &all); err != nil {
		return nil, fmt.Errorf("listing VMs: %w", err)
	}
	var out []mo.VirtualMachine
	for _, vm := range all {
		if match(vm.Name) && (vm.Config == nil || !vm.Config.Template) {
			out = append(out, vm)
		}
	}
	return out, nil
}

// Workers reads the workers named prefix-NN: host, guest IP, data disks and
// the storage policy of each disk.
func (c *Client) Workers(ctx context.Context, prefix string) ([]Worker, error) {
	vms, err := c.workerVMs(ctx, prefix, "runtime.host", "guest.ipAddress", "config.hardware.device", "config.hardware.numCPU")
	if err != nil {
		return nil, err
	}
	return c.describeWorkers(ctx, vms)
}

// WorkersByVM reads the workers with the given managed object ids.
func (c *Client) WorkersByVM(ctx context.Context, ids []string) ([]Worker, error) {
	return cachedRead(c.vmCache, "workers "+strings.Join(ids, ","), cloneWorkers, func() ([]Worker, error) { return c.workersByVM(ctx, ids) })
}

func (c *Client) workersByVM(ctx context.Context, ids []string) ([]Worker, error) {
	var refs []types.ManagedObjectReference
	for _, id := range ids {
		refs = append(refs, types.ManagedObjectReference{Type: "VirtualMachine", Value: id})
	}
	var vms []mo.VirtualMachine
	if err := property.DefaultCollector(c.vim).Retrieve(ctx, refs, []string{"name", "runtime.host", "guest.ipAddress", "config.hardware.device", "config.hardware.numCPU"}, &vms); err != nil {
		return nil, fmt.Errorf("reading workers: %w", err)
	}
	sort.Slice(vms, func(i, j int) bool { return vms[i].Name < vms[j].Name })
	return c.describeWorkers(ctx, vms)
}

func (c *Client) describeWorkers(ctx context.Context, vms []mo.VirtualMachine) ([]Worker, error) {
	hosts, err := c.hosts(ctx)
	if err != nil {
		return nil, err
	}
	hostName := map[types.ManagedObjectReference]string{}
	for _, h := range hosts {
		hostName[h.Self] = h.Name
	}
	var workers []Worker
	for _, vm := range vms {
		w := Worker{Name: vm.Name, VM: vm.Self.Value}
		if vm.Guest != nil {
			w.IP = vm.Guest.IpAddress
		}
		if vm.Runtime.Host != nil {
			w.Host = hostName[*vm.Runtime.Host]
		}
		if vm.Config != nil {
			w.Disks = dataDisks(vm.Config.Hardware.Device)
			w.CPUs = int(vm.Config.Hardware.NumCPU)
			w.Controller = dataController(vm.Config.Hardware.Device)
		}
		workers = append(workers, w)
	}
	if err := c.readPolicies(ctx, workers); err != nil {
		return nil, err
	}
	return workers, nil
}

// dataController names the virtual controller of a VM's first data disk.
func dataController(devices []types.BaseVirtualDevice) string {
	disks := dataDisks(devices)
	if len(disks) == 0 {
		return ""
	}
	var key int32
	for _, d := range devices {
		if disk, ok := d.(*types.VirtualDisk); ok && disk.Key == disks[0].Key {
			key = disk.ControllerKey
		}
	}
	for _, d := range devices {
		if d.GetVirtualDevice().Key != key {
			continue
		}
		switch d.(type) {
		case *types.ParaVirtualSCSIController:
			return "pvscsi"
		case *types.VirtualLsiLogicSASController, *types.VirtualLsiLogicController:
			return "lsilogic"
		case *types.VirtualNVMEController:
			return "nvme"
		}
	}
	return ""
}

// dataDisks returns a VM's disks but the first (the OS disk), in controller
// and unit order, named disk1... with the guest device each appears as.
func dataDisks(devices []types.BaseVirtualDevice) []Disk {
	var disks []*types.VirtualDisk
	for _, d := range devices {
		if disk, ok := d.(*types.VirtualDisk); ok {
			disks = append(disks, disk)
		}
	}
	sort.Slice(disks, func(i, j int) bool {
		a, b := disks[i], disks[j]
		if a.ControllerKey != b.ControllerKey {
			return a.ControllerKey < b.ControllerKey
		}
		return unit(a) < unit(b)
	})
	var out []Disk
	for i, d := range disks {
		if i == 0 {
			continue
		}
		out = append(out, Disk{
			Name:      fmt.Sprintf("disk%d", i),
			Path:      "/dev/" + blockDevice(i),
			Key:       d.Key,
			SizeBytes: d.CapacityInKB << 10,
		})
	}
	return out
}

func unit(d *types.VirtualDisk) int32 {
	if d.UnitNumber == nil {
		return -1
	}
	return *d.UnitNumber
}

// blockDevice names the i-th SCSI disk as Linux does: sda, ..., sdz, sdaa.
func blockDevice(i int) string {
	name := ""
	for i++; i > 0; i = (i - 1) / 26 {
		name = string(rune('a'+(i-1)%26)) + name
	}
	return "sd" + name
}

// pool runs f(0..n-1) with at most size at once; the first error cancels
// the rest and is returned.
func pool(ctx context.Context, size, n int, f func(context.Context, int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, size)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := f(ctx, i); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}
