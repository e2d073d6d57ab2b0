package sim

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"

	"starbench/internal/testbed"
)

// dvsUplink names the distributed switch's uplink port of the j-th NIC, as
// the vSphere Client names them ("Uplink 1", ...).
func dvsUplink(j int) string { return "Uplink " + strconv.Itoa(j+1) }

// Uplink port keys: standalone uplinks 100+j, the m-th port of LAG l 200+10l+m.
func uplinkKey(j int) string     { return strconv.Itoa(100 + j) }
func lagPortKey(l, m int) string { return strconv.Itoa(200 + 10*l + m) }

// createDVS builds the testbed's distributed switch as production vSAN
// clusters have it: every host a member with its NICs on the switch's
// uplinks (or on the ports of a LAG), a portgroup carrying each host's vSAN
// vmkernel NIC, whose teaming picks the profile's first uplink choice.
func (s *Sim) createDVS(ctx context.Context, c *vim25.Client, dc *object.Datacenter, hosts []*simulator.HostSystem) error {
	p, net := s.Testbed, s.Testbed.Network()
	folders, err := dc.Folders(ctx)
	if err != nil {
		return err
	}
	var names []string
	for j := range p.NICs {
		names = append(names, dvsUplink(j))
	}
	spec := types.DVSCreateSpec{ConfigSpec: &types.VMwareDVSConfigSpec{
		DVSConfigSpec: types.DVSConfigSpec{
			Name:             net.Name,
			UplinkPortPolicy: &types.DVSNameArrayUplinkPortPolicy{UplinkPortName: names},
		},
		MaxMtu:         9000,
		LacpApiVersion: string(types.VMwareDvsLacpApiVersionMultipleLag),
	}}
	task, err := folders.NetworkFolder.CreateDVS(ctx, spec)
	if err != nil {
		return err
	}
	info, err := task.WaitForResult(ctx)
	if err != nil {
		return fmt.Errorf("creating distributed switch %s: %w", net.Name, err)
	}
	dvsRef := info.Result.(types.ManagedObjectReference)
	dvs := object.NewDistributedVirtualSwitch(c, dvsRef)
	members := &types.DVSConfigSpec{}
	for _, h := range hosts {
		members.Host = append(members.Host, types.DistributedVirtualSwitchHostMemberConfigSpec{
			Operation: string(types.ConfigSpecOperationAdd), Host: h.Self,
		})
	}
	if task, err = dvs.Reconfigure(ctx, members); err == nil {
		err = task.Wait(ctx)
	}
	if err != nil {
		return fmt.Errorf("adding the hosts to distributed switch %s: %w", net.Name, err)
	}
	active, standby := dvsTeaming(p)
	pgSpec := types.DVPortgroupConfigSpec{
		Name: net.Portgroup, Type: string(types.DistributedVirtualPortgroupPortgroupTypeEarlyBinding), NumPorts: 128,
		DefaultPortConfig: &types.VMwareDVSPortSetting{
			Vlan: &types.VmwareDistributedVirtualSwitchVlanIdSpec{},
			UplinkTeamingPolicy: &types.VmwareUplinkPortTeamingPolicy{
				Policy:          &types.StringPolicy{Value: "failover_explicit"},
				UplinkPortOrder: &types.VMwareUplinkPortOrderPolicy{ActiveUplinkPort: active, StandbyUplinkPort: standby},
			},
		},
	}
	if task, err = dvs.AddPortgroup(ctx, []types.DVPortgroupConfigSpec{pgSpec}); err == nil {
		err = task.Wait(ctx)
	}
	if err != nil {
		return fmt.Errorf("adding portgroup %s to %s: %w", net.Portgroup, net.Name, err)
	}

	m := s.model.Map()
	sw := m.Get(dvsRef).(*simulator.DistributedVirtualSwitch)
	cfg := sw.Config.(*types.VMwareDVSConfigInfo)
	for l, lag := range net.LAGs {
		g := types.VMwareDvsLacpGroupConfig{
			Key: "lag-key-" + strconv.Itoa(l), Name: lag.Name, Mode: string(types.VMwareUplinkLacpModeActive),
			UplinkNum:            int32(len(lag.NICs)),
			LoadbalanceAlgorithm: string(types.VMwareDvsLacpLoadBalanceAlgorithmSrcDestIpTcpUdpPortVlan),
		}
		for k := range lag.NICs {
			g.UplinkName = append(g.UplinkName, lag.Name+"-"+strconv.Itoa(k))
			g.UplinkPortKey = append(g.UplinkPortKey, lagPortKey(l, k))
		}
		cfg.LacpGroupConfig = append(cfg.LacpGroupConfig, g)
	}
	var pg *simulator.DistributedVirtualPortgroup
	for _, ref := range sw.Portgroup {
		if x := m.Get(ref).(*simulator.DistributedVirtualPortgroup); x.Name == net.Portgroup {
			pg = x
		}
	}
	pg.Config.ConfigVersion = "1"
	m.Put(&dvPortgroup{DistributedVirtualPortgroup: pg, dvs: sw})
	for _, h := range hosts {
		joinDVS(h, p, sw, pg.Key)
	}
	return nil
}

// dvsTeaming is the vSAN portgroup's first teaming: the first uplink
// choice's LAG, or its NICs' uplinks active and the other standalone ones standby.
func dvsTeaming(p *testbed.Profile) (active, standby []string) {
	net := p.Network()
	if len(p.Uplinks) > 0 {
		if lag, ok := net.LAGFor(p.Uplinks[0]); ok {
			return []string{lag.Name}, nil
		}
	}
	inLAG := lagOf(net)
	for j, n := range p.NICs {
		switch {
		case inLAG[n.Name] != "":
		case len(p.Uplinks) == 0 || slices.Contains(p.Uplinks[0].NICs, n.Name):
			active = append(active, dvsUplink(j))
		default:
			standby = append(standby, dvsUplink(j))
		}
	}
	return active, standby
}

// lagOf maps each NIC in a LAG to the LAG's name.
func lagOf(net testbed.VSANNetwork) map[string]string {
	out := map[string]string{}
	for _, l := range net.LAGs {
		for _, n := range l.NICs {
			out[n] = l.Name
		}
	}
	return out
}

// joinDVS gives host h its proxy switch (NICs on uplinks or LAG ports) and
// moves its vSAN vmkernel NIC onto the distributed portgroup pgKey.
func joinDVS(h *simulator.HostSystem, p *testbed.Profile, sw *simulator.DistributedVirtualSwitch, pgKey string) {
	net := p.Network()
	ps := types.HostProxySwitch{
		DvsUuid: sw.Uuid, DvsName: sw.Name, Key: sw.Uuid, NumPorts: 512, NumPortsAvailable: 500, Mtu: 9000,
	}
	backing := &types.DistributedVirtualSwitchHostMemberPnicBacking{}
	lagIndex := map[string]int{}
	for l, lag := range net.LAGs {
		lagIndex[lag.Name] = l
		hl := types.HostProxySwitchHostLagConfig{LagKey: "lag-key-" + strconv.Itoa(l), LagName: lag.Name}
		for k := range lag.NICs {
			hl.UplinkPort = append(hl.UplinkPort, types.KeyValue{Key: lagPortKey(l, k), Value: lag.Name + "-" + strconv.Itoa(k)})
		}
		ps.HostLag = append(ps.HostLag, hl)
	}
	inLAG := lagOf(net)
	for j, n := range p.NICs {
		ps.UplinkPort = append(ps.UplinkPort, types.KeyValue{Key: uplinkKey(j), Value: dvsUplink(j)})
		key := uplinkKey(j)
		if lag, ok := inLAG[n.Name]; ok {
			l := lagIndex[lag]
			key = lagPortKey(l, slices.Index(net.LAGs[l].NICs, n.Name))
		}
		ps.Pnic = append(ps.Pnic, "key-vim.host.PhysicalNic-"+n.Name)
		backing.PnicSpec = append(backing.PnicSpec, types.DistributedVirtualSwitchHostMemberPnicSpec{PnicDevice: n.Name, UplinkPortKey: key})
	}
	ps.Spec.Backing = backing

	cfg := *h.Config
	network := *cfg.Network
	network.ProxySwitch = []types.HostProxySwitch{ps}
	// The standard switch keeps the VM network, without uplinks.
	vs := network.Vswitch[0]
	vs.Pnic, vs.Spec.Bridge = nil, nil
	vs.Spec.Policy = &types.HostNetworkPolicy{}
	vs.Portgroup = []string{"key-vim.host.PortGroup-" + VMNetwork}
	network.Vswitch = []types.HostVirtualSwitch{vs}
	network.Portgroup = slices.DeleteFunc(slices.Clone(network.Portgroup), func(pg types.HostPortGroup) bool { return pg.Spec.Name != VMNetwork })
	port := &types.DistributedVirtualSwitchPortConnection{SwitchUuid: sw.Uuid, PortgroupKey: pgKey, PortKey: strconv.Itoa(10 + len(h.Name))}
	network.Vnic = slices.Clone(network.Vnic)
	for i, v := range network.Vnic {
		if v.Device == vsanVmk {
			v.Portgroup, v.Spec.Portgroup, v.Spec.DistributedVirtualPort = "", "", port
			network.Vnic[i] = v
		}
	}
	cfg.Network = &network
	nics := *cfg.VirtualNicManagerInfo
	nics.NetConfig = slices.Clone(nics.NetConfig)
	for i, nc := range nics.NetConfig {
		if nc.NicType != string(types.HostVirtualNicManagerNicTypeVsan) {
			continue
		}
		nc.CandidateVnic = slices.Clone(nc.CandidateVnic)
		for k := range nc.CandidateVnic {
			v := &nc.CandidateVnic[k]
			v.Portgroup, v.Spec.Portgroup, v.Spec.DistributedVirtualPort = "", "", port
		}
		nics.NetConfig[i] = nc
	}
	cfg.VirtualNicManagerInfo = &nics
	h.Config = &cfg
}

// dvPortgroup is the vSAN portgroup of a distributed switch. It reconfigures
// as vCenter does, which the stock simulator does not: the spec's unset
// fields are left as they are, its configVersion must be the current one,
// and a teaming order may name only the switch's uplinks and LAGs, a LAG
// alone when it is active.
type dvPortgroup struct {
	*simulator.DistributedVirtualPortgroup
	dvs *simulator.DistributedVirtualSwitch
}

func (p *dvPortgroup) ReconfigureDVPortgroupTask(ctx *simulator.Context, req *types.ReconfigureDVPortgroup_Task) soap.HasFault {
	task := simulator.CreateTask(p, "reconfigureDvPortgroup", func(*simulator.Task) (types.AnyType, types.BaseMethodFault) {
		if req.Spec.ConfigVersion != p.Config.ConfigVersion {
			return nil, &types.ConcurrentAccess{}
		}
		setting, _ := req.Spec.DefaultPortConfig.(*types.VMwareDVSPortSetting)
		if setting != nil && setting.UplinkTeamingPolicy != nil {
			if f := p.checkOrder(setting.UplinkTeamingPolicy.UplinkPortOrder); f != nil {
				return nil, f
			}
		}
		cfg := p.Config
		if req.Spec.Name != "" {
			cfg.Name = req.Spec.Name
		}
		if req.Spec.Description != "" {
			cfg.Description = req.Spec.Description
		}
		if setting != nil {
			current := *cfg.DefaultPortConfig.(*types.VMwareDVSPortSetting)
			if setting.Vlan != nil {
				current.Vlan = setting.Vlan
			}
			if t := setting.UplinkTeamingPolicy; t != nil {
				merged := types.VmwareUplinkPortTeamingPolicy{}
				if current.UplinkTeamingPolicy != nil {
					merged = *current.UplinkTeamingPolicy
				}
				if t.Policy != nil {
					merged.Policy = t.Policy
				}
				if t.UplinkPortOrder != nil {
					merged.UplinkPortOrder = t.UplinkPortOrder
				}
				if t.FailureCriteria != nil {
					merged.FailureCriteria = t.FailureCriteria
				}
				current.UplinkTeamingPolicy = &merged
			}
			cfg.DefaultPortConfig = &current
		}
		n, _ := strconv.Atoi(cfg.ConfigVersion)
		cfg.ConfigVersion = strconv.Itoa(n + 1)
		p.Config = cfg
		return nil, nil
	})
	return &methods.ReconfigureDVPortgroup_TaskBody{Res: &types.ReconfigureDVPortgroup_TaskResponse{Returnval: task.Run(ctx)}}
}

// checkOrder refuses a teaming order vCenter would refuse.
func (p *dvPortgroup) checkOrder(o *types.VMwareUplinkPortOrderPolicy) types.BaseMethodFault {
	if o == nil {
		return nil
	}
	known := map[string]string{} // port name -> "uplink" or "lag"
	if policy, ok := p.dvs.Config.GetDVSConfigInfo().UplinkPortPolicy.(*types.DVSNameArrayUplinkPortPolicy); ok {
		for _, n := range policy.UplinkPortName {
			known[n] = "uplink"
		}
	}
	for _, g := range p.dvs.Config.(*types.VMwareDVSConfigInfo).LacpGroupConfig {
		known[g.Name] = "lag"
	}
	invalid := &types.InvalidArgument{InvalidProperty: "defaultPortConfig.uplinkTeamingPolicy.uplinkPortOrder"}
	lags := 0
	for _, n := range append(slices.Clone(o.ActiveUplinkPort), o.StandbyUplinkPort...) {
		switch known[n] {
		case "":
			return invalid
		case "lag":
			lags++
		}
	}
	activeLAG := slices.ContainsFunc(o.ActiveUplinkPort, func(n string) bool { return known[n] == "lag" })
	if lags > 1 || (activeLAG && len(o.ActiveUplinkPort)+len(o.StandbyUplinkPort) > 1) {
		return invalid
	}
	return nil
}

// SetRDMALink takes the RDMA device paired with NIC nic of host down (or
// up again), as a cable pulled or a switch port shut would.
func (s *Sim) SetRDMALink(host, nic string, up bool) error {
	state := "down"
	if up {
		state = "active"
	}
	for _, e := range s.model.Map().All("HostSystem") {
		h := e.(*simulator.HostSystem)
		if h.Name != host {
			continue
		}
		found := false
		s.model.Map().WithLock(&simulator.Context{}, h, func() {
			cfg := *h.Config
			network := *cfg.Network
			network.RdmaDevice = slices.Clone(network.RdmaDevice)
			for i, d := range network.RdmaDevice {
				if b, ok := d.Backing.(*types.HostRdmaDevicePnicBacking); ok && b.PairedUplink == nic {
					network.RdmaDevice[i].ConnectionInfo.State = state
					found = true
				}
			}
			cfg.Network = &network
			h.Config = &cfg
		})
		if !found {
			return fmt.Errorf("host %s has no RDMA device on %s", host, nic)
		}
		s.bump("updatePhysicalNicLinkSpeed") // the hosts changed; the VMs did not
		return nil
	}
	return fmt.Errorf("no host %s", host)
}
