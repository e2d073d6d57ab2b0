package sim

import (
	"slices"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// The calls that take a host out of a vSAN cluster and bring it back, done
// as vCenter does them where the stock simulator does not: maintenance mode
// evacuates the host's running VMs (as DRS does) and checks vSAN's
// decommission mode, a host can be shut down and powered up again, and each
// host has a HostVsanSystem whose network ports say whether its VMkernel NIC
// carries vSAN traffic (taking it off isolates the host from the cluster).

// hostOpsRef names the object serving the host calls below. vcsim looks a
// call's handler up by the object called, and an inventory host cannot be
// wrapped (vcsim's own code type-asserts hosts), so vimHandler points these
// calls here; the request still names the host.
var hostOpsRef = types.ManagedObjectReference{Type: "StarbenchHostOps", Value: "host-ops"}

// hostCalls are the HostSystem methods hostOps serves.
var hostCalls = map[string]bool{
	"EnterMaintenanceMode_Task":   true,
	"ShutdownHost_Task":           true,
	"PowerUpHostFromStandBy_Task": true,
}

type hostOps struct{ sim *Sim }

func (o *hostOps) Reference() types.ManagedObjectReference { return hostOpsRef }

// routeHostCall points a host call the stock simulator lacks at hostOps.
func routeHostCall(m *simulator.Method) {
	if m.This.Type == "HostSystem" && hostCalls[m.Name] {
		m.This = hostOpsRef
	}
}

// vsanModes are vSAN's decommission modes (HostMaintenanceSpec.vsanMode.objectAction).
var vsanModes = []string{
	string(types.VsanHostDecommissionModeObjectActionEnsureObjectAccessibility),
	string(types.VsanHostDecommissionModeObjectActionEvacuateAllData),
	string(types.VsanHostDecommissionModeObjectActionNoAction),
}

func (o *hostOps) EnterMaintenanceModeTask(ctx *simulator.Context, req *types.EnterMaintenanceMode_Task) soap.HasFault {
	body := &methods.EnterMaintenanceMode_TaskBody{}
	host, ok := ctx.Map.Get(req.This).(*simulator.HostSystem)
	if !ok {
		body.Fault_ = simulator.Fault("", &types.ManagedObjectNotFound{Obj: req.This})
		return body
	}
	task := simulator.CreateTask(host, "enterMaintenanceMode", func(*simulator.Task) (types.AnyType, types.BaseMethodFault) {
		if spec := req.MaintenanceSpec; spec != nil && spec.VsanMode != nil && !slices.Contains(vsanModes, spec.VsanMode.ObjectAction) {
			return nil, &types.InvalidArgument{InvalidProperty: "maintenanceSpec.vsanMode.objectAction"}
		}
		if host.Runtime.PowerState != types.HostSystemPowerStatePoweredOn {
			return nil, &types.InvalidState{}
		}
		if host.Runtime.InMaintenanceMode {
			return nil, nil
		}
		if f := o.evacuate(ctx, host); f != nil {
			return nil, f
		}
		ctx.Update(host, []types.PropertyChange{{Name: "runtime.inMaintenanceMode", Val: true}})
		return nil, nil
	})
	body.Res = &types.EnterMaintenanceMode_TaskResponse{Returnval: task.Run(ctx)}
	return body
}

// evacuate moves host's VMs to the other serving hosts of its
// cluster, each to the one running the fewest VMs, as DRS in fully
// automated mode does before a host enters maintenance mode. With nowhere to
// go, vCenter's task would wait until its timeout; here it fails at once.
func (o *hostOps) evacuate(ctx *simulator.Context, host *simulator.HostSystem) types.BaseMethodFault {
	var targets []*simulator.HostSystem
	for _, ref := range o.sim.model.Map().AllReference("HostSystem") {
		h := ref.(*simulator.HostSystem)
		if h.Self != host.Self && h.Parent != nil && host.Parent != nil && *h.Parent == *host.Parent && serving(h) {
			targets = append(targets, h)
		}
	}
	// Powered-off VMs (a template, a stopped worker) move too, as the
	// vSphere Client's default "move powered-off and suspended VMs" does.
	for _, ref := range slices.Clone(host.Vm) {
		vm, ok := ctx.Map.Get(ref).(*simulator.VirtualMachine)
		if !ok {
			continue
		}
		if len(targets) == 0 {
			return &types.InsufficientResourcesFault{}
		}
		dst := slices.MinFunc(targets, func(a, b *simulator.HostSystem) int { return len(a.Vm) - len(b.Vm) })
		ctx.Map.RemoveReference(ctx, host, &host.Vm, vm.Self)
		ctx.Map.AddReference(ctx, dst, &dst.Vm, vm.Self)
		ctx.WithLock(vm, func() {
			ctx.Update(vm, []types.PropertyChange{
				{Name: "runtime.host", Val: dst.Self},
				{Name: "summary.runtime.host", Val: dst.Self},
			})
		})
	}
	return nil
}

// serving says whether a host runs VMs: connected, powered on and not in
// maintenance mode.
func serving(h *simulator.HostSystem) bool {
	return h.Runtime.ConnectionState == types.HostSystemConnectionStateConnected &&
		h.Runtime.PowerState == types.HostSystemPowerStatePoweredOn && !h.Runtime.InMaintenanceMode
}

// ShutdownHostTask powers a host off. As on vCenter, a host outside
// maintenance mode shuts down only when forced; its VMs go down with it.
func (o *hostOps) ShutdownHostTask(ctx *simulator.Context, req *types.ShutdownHost_Task) soap.HasFault {
	body := &methods.ShutdownHost_TaskBody{}
	host, ok := ctx.Map.Get(req.This).(*simulator.HostSystem)
	if !ok {
		body.Fault_ = simulator.Fault("", &types.ManagedObjectNotFound{Obj: req.This})
		return body
	}
	task := simulator.CreateTask(host, "shutdownHost", func(*simulator.Task) (types.AnyType, types.BaseMethodFault) {
		if !req.Force && !host.Runtime.InMaintenanceMode {
			return nil, &types.InvalidState{}
		}
		for _, ref := range host.Vm {
			if vm, ok := ctx.Map.Get(ref).(*simulator.VirtualMachine); ok && vm.Runtime.PowerState == types.VirtualMachinePowerStatePoweredOn {
				ctx.WithLock(vm, func() {
					ctx.Update(vm, []types.PropertyChange{
						{Name: "runtime.powerState", Val: types.VirtualMachinePowerStatePoweredOff},
						{Name: "summary.runtime.powerState", Val: types.VirtualMachinePowerStatePoweredOff},
					})
				})
				o.sim.reportGuest(ctx, vm, false)
			}
		}
		setPower(ctx, host, false)
		return nil, nil
	})
	body.Res = &types.ShutdownHost_TaskResponse{Returnval: task.Run(ctx)}
	return body
}

// PowerUpHostFromStandByTask powers a host on again (vCenter does it through
// the host's BMC, as DPM does); it comes back connected.
func (o *hostOps) PowerUpHostFromStandByTask(ctx *simulator.Context, req *types.PowerUpHostFromStandBy_Task) soap.HasFault {
	body := &methods.PowerUpHostFromStandBy_TaskBody{}
	host, ok := ctx.Map.Get(req.This).(*simulator.HostSystem)
	if !ok {
		body.Fault_ = simulator.Fault("", &types.ManagedObjectNotFound{Obj: req.This})
		return body
	}
	task := simulator.CreateTask(host, "powerUpHostFromStandBy", func(*simulator.Task) (types.AnyType, types.BaseMethodFault) {
		if host.Runtime.PowerState == types.HostSystemPowerStatePoweredOn {
			return nil, &types.InvalidState{}
		}
		setPower(ctx, host, true)
		return nil, nil
	})
	body.Res = &types.PowerUpHostFromStandBy_TaskResponse{Returnval: task.Run(ctx)}
	return body
}

// setPower powers a host on (connected) or off (not responding).
func setPower(ctx *simulator.Context, host *simulator.HostSystem, on bool) {
	power, conn := types.HostSystemPowerStatePoweredOff, types.HostSystemConnectionStateNotResponding
	if on {
		power, conn = types.HostSystemPowerStatePoweredOn, types.HostSystemConnectionStateConnected
	}
	ctx.Update(host, []types.PropertyChange{
		{Name: "runtime.powerState", Val: power},
		{Name: "runtime.connectionState", Val: conn},
		{Name: "summary.runtime.powerState", Val: power},
		{Name: "summary.runtime.connectionState", Val: conn},
	})
}

// hostVsanSystem is a host's HostVsanSystem, which the stock simulator does
// not have for the hosts of a vCenter: its config names the VMkernel NICs
// carrying vSAN traffic, and UpdateVsan_Task changes them as vCenter does,
// retagging the NICs in the host's VirtualNicManagerInfo.
type hostVsanSystem struct {
	mo.HostVsanSystem
	host    *simulator.HostSystem
	storage *hostStorage // its vSAN devices (disks.go)
}

// addVsanSystems gives every host its HostVsanSystem, with the vSAN
// VMkernel NIC as its one network port and the testbed's devices as its
// storage, and registers hostOps.
func (s *Sim) addVsanSystems(hosts []*simulator.HostSystem) {
	m := s.model.Map()
	m.Put(&hostOps{sim: s})
	esa := s.Testbed.Architecture == "ESA"
	for i, h := range hosts {
		ref := types.ManagedObjectReference{Type: "HostVsanSystem", Value: "vsanSystem-" + h.Self.Value}
		h.ConfigManager.VsanSystem = &ref
		self := h.Self
		vs := &hostVsanSystem{host: h, storage: newHostStorage(s.Testbed, i)}
		vs.Self = ref
		vs.Config = types.VsanHostConfigInfo{
			Enabled:        types.NewBool(true),
			HostSystem:     &self,
			NetworkInfo:    &types.VsanHostConfigInfoNetworkInfo{Port: []types.VsanHostConfigInfoNetworkInfoPortConfig{{Device: vsanVmk}}},
			VsanEsaEnabled: types.NewBool(esa),
			StorageInfo:    vs.storage.info(),
		}
		m.Put(vs)
	}
}

func (vs *hostVsanSystem) UpdateVsanTask(ctx *simulator.Context, req *types.UpdateVsan_Task) soap.HasFault {
	task := simulator.CreateTask(vs.host, "updateVsan", func(*simulator.Task) (types.AnyType, types.BaseMethodFault) {
		if req.Config.NetworkInfo == nil {
			return nil, nil
		}
		var devices []string
		for _, p := range req.Config.NetworkInfo.Port {
			if !slices.ContainsFunc(vs.host.Config.Network.Vnic, func(v types.HostVirtualNic) bool { return v.Device == p.Device }) {
				return nil, &types.InvalidArgument{InvalidProperty: "config.networkInfo.port.device"}
			}
			devices = append(devices, p.Device)
		}
		retagVsan(ctx, vs.host, devices)
		ctx.WithLock(vs, func() {
			ports := slices.Clone(req.Config.NetworkInfo.Port)
			ctx.Update(vs, []types.PropertyChange{{Name: "config.networkInfo", Val: &types.VsanHostConfigInfoNetworkInfo{Port: ports}}})
		})
		return nil, nil
	})
	return &methods.UpdateVsan_TaskBody{Res: &types.UpdateVsan_TaskResponse{Returnval: task.Run(ctx)}}
}

// retagVsan makes devices the host's VMkernel NICs selected for vSAN
// traffic; the host's config is replaced, not changed in place, as readers
// may hold the old one.
func retagVsan(ctx *simulator.Context, h *simulator.HostSystem, devices []string) {
	cfg := *h.Config
	nics := *cfg.VirtualNicManagerInfo
	nics.NetConfig = slices.Clone(nics.NetConfig)
	for i, nc := range nics.NetConfig {
		if nc.NicType != string(types.HostVirtualNicManagerNicTypeVsan) {
			continue
		}
		var selected []string
		for _, v := range nc.CandidateVnic {
			if slices.Contains(devices, v.Device) {
				selected = append(selected, v.Key)
			}
		}
		nc.SelectedVnic = selected
		nics.NetConfig[i] = nc
	}
	cfg.VirtualNicManagerInfo = &nics
	ctx.Update(h, []types.PropertyChange{{Name: "config", Val: &cfg}})
}
