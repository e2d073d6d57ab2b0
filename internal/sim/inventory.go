package sim

import (
	"context"
	"fmt"
	"strconv"

	"github.com/google/uuid"
	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/types"

	"starbench/internal/testbed"
)

// shape turns the stock inventory into the testbed: host hardware and NICs,
// the vSAN vmkernel portgroup, vSAN with its datastore, and the worker template.
func (s *Sim) shape() error {
	ctx := context.Background()
	c, err := vim25.NewClient(ctx, s.model.Service)
	if err != nil {
		return fmt.Errorf("simulator: %w", err)
	}
	var hosts []*simulator.HostSystem
	for i, e := range s.model.Map().All("HostSystem") {
		h := e.(*simulator.HostSystem)
		shapeHost(h, s.Testbed, i)
		hosts = append(hosts, h)
	}
	s.addVsanSystems(hosts)

	finder := find.NewFinder(c, true)
	dc, err := finder.Datacenter(ctx, Datacenter)
	if err != nil {
		return fmt.Errorf("simulator: %w", err)
	}
	finder.SetDatacenter(dc)
	if s.Testbed.Network().Switch == testbed.DistributedSwitch {
		if err := s.createDVS(ctx, c, dc, hosts); err != nil {
			return fmt.Errorf("simulator: %w", err)
		}
	}
	for _, ref := range s.model.Map().AllReference("HostNetworkSystem") {
		ns := ref.(*simulator.HostNetworkSystem)
		ns.NetworkInfo.Pnic = ns.Host.Config.Network.Pnic
		ns.NetworkInfo.Vswitch = ns.Host.Config.Network.Vswitch
		ns.NetworkInfo.Portgroup = ns.Host.Config.Network.Portgroup
		ns.NetworkInfo.ProxySwitch = ns.Host.Config.Network.ProxySwitch
		ns.NetworkInfo.Vnic = ns.Host.Config.Network.Vnic
	}
	cluster, err := finder.ClusterComputeResource(ctx, Cluster)
	if err != nil {
		return fmt.Errorf("simulator: %w", err)
	}
	task, err := cluster.Reconfigure(ctx, &types.ClusterConfigSpecEx{
		VsanConfig: &types.VsanClusterConfigInfo{Enabled: types.NewBool(true)},
	}, true)
	if err == nil {
		err = task.Wait(ctx)
	}
	if err != nil {
		return fmt.Errorf("simulator: enabling vSAN: %w", err)
	}
	return createTemplate(ctx, c, finder, dc, cluster)
}

// vsanVmk is the VMkernel NIC of every host tagged for vSAN traffic.
const vsanVmk = "vmk2"

// shapeHost gives host number i the profile's CPU, memory and NICs, with a
// vSAN portgroup whose active NICs are the profile's first uplink choice.
func shapeHost(h *simulator.HostSystem, p *testbed.Profile, i int) {
	cores := int16(p.CPU.Cores())
	mhz := int32(p.CPU.GHz * 1000)
	mem := int64(p.MemoryGB) << 30

	hw := *h.Summary.Hardware
	hw.CpuModel = p.CPU.Model
	hw.NumCpuPkgs = int16(p.CPU.Sockets)
	hw.NumCpuCores = cores
	hw.NumCpuThreads = 2 * cores
	hw.CpuMhz = mhz
	hw.MemorySize = mem
	h.Summary.Hardware = &hw

	if h.Hardware != nil {
		hwi := *h.Hardware
		hwi.CpuInfo = types.HostCpuInfo{
			NumCpuPackages: int16(p.CPU.Sockets),
			NumCpuCores:    cores,
			NumCpuThreads:  2 * cores,
			Hz:             int64(mhz) * 1_000_000,
		}
		hwi.MemorySize = mem
		h.Hardware = &hwi
	}

	cfg := *h.Config
	network := *cfg.Network
	var pnics []types.PhysicalNic
	var keys, names []string
	for j, n := range p.NICs {
		speed := types.PhysicalNicLinkInfo{SpeedMb: int32(n.SpeedGbps * 1000), Duplex: true}
		pnics = append(pnics, types.PhysicalNic{
			Key:       "key-vim.host.PhysicalNic-" + n.Name,
			Device:    n.Name,
			Pci:       fmt.Sprintf("0000:%02x:00.0", 0x3b+j),
			Driver:    "nmlx5_core",
			LinkSpeed: &speed,
			Spec:      types.PhysicalNicSpec{LinkSpeed: &speed},
			Mac:       fmt.Sprintf("00:50:56:%02x:%02x:%02x", i/256, i%256, j),
		})
		keys = append(keys, "key-vim.host.PhysicalNic-"+n.Name)
		names = append(names, n.Name)
	}
	network.Pnic = pnics
	if p.RDMACapable { // RoCE v2 NICs, one RDMA device paired with each
		for j, n := range p.NICs {
			network.RdmaDevice = append(network.RdmaDevice, types.HostRdmaDevice{
				Key: "key-vim.host.RdmaDevice-vmrdma" + strconv.Itoa(j), Device: "vmrdma" + strconv.Itoa(j), Driver: "nmlx5_rdma",
				Description:    "MT27710 Family [ConnectX-4 Lx]",
				Backing:        &types.HostRdmaDevicePnicBacking{PairedUplink: n.Name},
				ConnectionInfo: types.HostRdmaDeviceConnectionInfo{State: "active", Mtu: 4096, SpeedInMbps: int32(n.SpeedGbps * 1000)},
				Capability:     types.HostRdmaDeviceCapability{RoceV1Capable: true, RoceV2Capable: true},
			})
		}
	}

	// A standard switch carries the VM network, and vSAN unless a
	// distributed switch does (createDVS moves it there).
	vsanPG, vswitchName := VSANPortgrp, "vSwitch0"
	if net := p.Network(); net.Switch == testbed.StandardSwitch {
		vsanPG, vswitchName = net.Portgroup, net.Name
	}
	vswitch := types.HostVirtualSwitch{
		Name:      vswitchName,
		Key:       "key-vim.host.VirtualSwitch-" + vswitchName,
		NumPorts:  1536,
		Mtu:       9000,
		Portgroup: []string{"key-vim.host.PortGroup-" + VMNetwork, "key-vim.host.PortGroup-" + vsanPG},
		Pnic:      keys,
		Spec: types.HostVirtualSwitchSpec{
			NumPorts: 1536,
			Mtu:      9000,
			Bridge:   &types.HostVirtualSwitchBondBridge{NicDevice: names},
			Policy:   &types.HostNetworkPolicy{NicTeaming: teaming(names, nil)},
		},
	}
	network.Vswitch = []types.HostVirtualSwitch{vswitch}

	active, standby := names, []string(nil)
	if len(p.Uplinks) > 0 {
		active, standby = split(names, p.Uplinks[0].NICs)
	}
	network.Portgroup = []types.HostPortGroup{
		{
			Key:     "key-vim.host.PortGroup-" + VMNetwork,
			Vswitch: vswitch.Key,
			Spec: types.HostPortGroupSpec{
				Name: VMNetwork, VswitchName: vswitch.Name,
				Policy: types.HostNetworkPolicy{NicTeaming: teaming(names, nil)},
			},
		},
		{
			Key:     "key-vim.host.PortGroup-" + vsanPG,
			Vswitch: vswitch.Key,
			Spec: types.HostPortGroupSpec{
				Name: vsanPG, VswitchName: vswitch.Name,
				Policy: types.HostNetworkPolicy{NicTeaming: teaming(active, standby)},
			},
		},
	}
	vmk := types.HostVirtualNic{
		Device: vsanVmk, Key: "key-vim.host.VirtualNic-" + vsanVmk, Portgroup: vsanPG,
		Spec: types.HostVirtualNicSpec{
			Ip:        &types.HostIpConfig{IpAddress: fmt.Sprintf("172.16.%d.%d", i/250, i%250+1), SubnetMask: "255.255.0.0"},
			Portgroup: vsanPG, Mtu: 9000, NetStackInstanceKey: "defaultTcpipStack",
		},
	}
	network.Vnic = append(append([]types.HostVirtualNic(nil), network.Vnic...), vmk)
	cfg.Network = &network

	// vSAN traffic is tagged on the vmkernel NIC, as vCenter reports it.
	nics := types.HostVirtualNicManagerInfo{}
	if cfg.VirtualNicManagerInfo != nil {
		nics.NetConfig = append(nics.NetConfig, cfg.VirtualNicManagerInfo.NetConfig...)
	}
	tagged := vmk
	tagged.Key = "vsan." + vmk.Key
	nics.NetConfig = append(nics.NetConfig, types.VirtualNicManagerNetConfig{
		NicType: "vsan", MultiSelectAllowed: true, CandidateVnic: []types.HostVirtualNic{tagged}, SelectedVnic: []string{tagged.Key},
	})
	cfg.VirtualNicManagerInfo = &nics
	cfg.VsanHostConfig = &types.VsanHostConfigInfo{
		Enabled: types.NewBool(true), HostSystem: &h.Self,
		ClusterInfo: &types.VsanHostConfigInfoClusterInfo{NodeUuid: nodeUUID(h.Name)},
	}
	h.Config = &cfg
}

// nodeUUID is the vSAN node UUID of the host named name, stable per name.
func nodeUUID(name string) string {
	return uuid.NewSHA1(uuid.NameSpaceOID, []byte("starbench vsan node "+name)).String()
}

// teaming is a NIC teaming policy with explicit failover order.
func teaming(active, standby []string) *types.HostNicTeamingPolicy {
	return &types.HostNicTeamingPolicy{
		Policy:   "loadbalance_srcid",
		NicOrder: &types.HostNicOrderPolicy{ActiveNic: active, StandbyNic: standby},
	}
}

// split returns want as active and the rest of all as standby.
func split(all, want []string) (active, standby []string) {
	in := map[string]bool{}
	for _, n := range want {
		in[n] = true
	}
	for _, n := range all {
		if in[n] {
			active = append(active, n)
		} else {
			standby = append(standby, n)
		}
	}
	return active, standby
}

// createTemplate creates the worker template: 1 OS disk on a paravirtual
// SCSI controller, one NIC on the VM network, on the vSAN datastore.
func createTemplate(ctx context.Context, c *vim25.Client, finder *find.Finder, dc *object.Datacenter, cluster *object.ClusterComputeResource) error {
	dcf, err := dc.Folders(ctx)
	if err != nil {
		return err
	}
	pool, err := cluster.ResourcePool(ctx)
	if err != nil {
		return err
	}
	network, err := finder.Network(ctx, VMNetwork)
	if err != nil {
		return fmt.Errorf("simulator: %w", err)
	}
	backing, err := network.EthernetCardBackingInfo(ctx)
	if err != nil {
		return err
	}
	var devices object.VirtualDeviceList
	scsi, err := devices.CreateSCSIController("pvscsi")
	if err != nil {
		return err
	}
	devices = append(devices, scsi)
	nic, err := devices.CreateEthernetCard("vmxnet3", backing)
	if err != nil {
		return err
	}
	devices = append(devices, nic)
	ctrl := scsi.(types.BaseVirtualController)
	ds, err := finder.Datastore(ctx, Datastore)
	if err != nil {
		return fmt.Errorf("simulator: %w", err)
	}
	disk := devices.CreateDisk(ctrl, ds.Reference(), "")
	disk.CapacityInKB = 16 << 20
	devices = append(devices, disk)
	changes, err := devices.ConfigSpec(types.VirtualDeviceConfigSpecOperationAdd)
	if err != nil {
		return err
	}
	for _, ch := range changes {
		if ch.GetVirtualDeviceConfigSpec().Device == disk {
			ch.GetVirtualDeviceConfigSpec().FileOperation = types.VirtualDeviceConfigSpecFileOperationCreate
		}
	}
	spec := types.VirtualMachineConfigSpec{
		Name:         Template,
		GuestId:      string(types.VirtualMachineGuestOsIdentifierUbuntu64Guest),
		NumCPUs:      4,
		MemoryMB:     8192,
		Files:        &types.VirtualMachineFileInfo{VmPathName: "[" + Datastore + "]"},
		DeviceChange: changes,
	}
	task, err := dcf.VmFolder.CreateVM(ctx, spec, pool, nil)
	if err != nil {
		return err
	}
	info, err := task.WaitForResult(ctx)
	if err != nil {
		return fmt.Errorf("simulator: creating the worker template: %w", err)
	}
	vm := object.NewVirtualMachine(c, info.Result.(types.ManagedObjectReference))
	if err := vm.MarkAsTemplate(ctx); err != nil {
		return fmt.Errorf("simulator: marking the worker template: %w", err)
	}
	return nil
}
