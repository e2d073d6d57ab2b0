package sim

import (
	"context"
	"strings"
	"testing"

	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"starbench/internal/testbed"
)

// TestTheWWTTestbedHasItsLAGsOnADistributedSwitch: the switch, its LAGs,
// each host's NICs on LAG ports and the vSAN vmkernel NIC on the portgroup.
func TestTheWWTTestbedHasItsLAGsOnADistributedSwitch(t *testing.T) {
	p, err := testbed.Load("wwt-r640-osa")
	if err != nil {
		t.Fatal(err)
	}
	p.Hosts = 3
	_, c := startAndLogin(t, p)
	ctx := context.Background()
	finder := find.NewFinder(c, true)
	dc, _ := finder.DefaultDatacenter(ctx)
	finder.SetDatacenter(dc)
	net, err := finder.Network(ctx, "vSAN")
	if err != nil {
		t.Fatal(err)
	}
	pg := object.NewDistributedVirtualPortgroup(c, net.Reference())
	var mpg mo.DistributedVirtualPortgroup
	if err := pg.Properties(ctx, pg.Reference(), []string{"config"}, &mpg); err != nil {
		t.Fatal(err)
	}
	order := mpg.Config.DefaultPortConfig.(*types.VMwareDVSPortSetting).UplinkTeamingPolicy.UplinkPortOrder
	if len(order.ActiveUplinkPort) != 1 || order.ActiveUplinkPort[0] != "lag-10g" || len(order.StandbyUplinkPort) != 0 {
		t.Errorf("teaming %+v, want lag-10g alone", order)
	}
	var sw mo.DistributedVirtualSwitch
	if err := pg.Properties(ctx, *mpg.Config.DistributedVirtualSwitch, []string{"config", "summary"}, &sw); err != nil {
		t.Fatal(err)
	}
	if lacp := sw.Config.(*types.VMwareDVSConfigInfo).LacpGroupConfig; len(lacp) != 2 || lacp[1].Name != "lag-25g" || lacp[1].UplinkNum != 2 {
		t.Errorf("LAGs %+v", lacp)
	}
	if len(sw.Summary.HostMember) != 3 {
		t.Errorf("%d host members, want 3", len(sw.Summary.HostMember))
	}
	hosts, err := finder.HostSystemList(ctx, "*")
	if err != nil {
		t.Fatal(err)
	}
	var h mo.HostSystem
	if err := hosts[0].Properties(ctx, hosts[0].Reference(), []string{"config.network"}, &h); err != nil {
		t.Fatal(err)
	}
	ps := h.Config.Network.ProxySwitch
	if len(ps) != 1 || len(ps[0].HostLag) != 2 || len(ps[0].Spec.Backing.(*types.DistributedVirtualSwitchHostMemberPnicBacking).PnicSpec) != 4 {
		t.Fatalf("proxy switch %+v", ps)
	}
	for _, v := range h.Config.Network.Vnic {
		if v.Device == vsanVmk && (v.Spec.DistributedVirtualPort == nil || v.Spec.DistributedVirtualPort.PortgroupKey != mpg.Config.Key) {
			t.Errorf("the vSAN vmkernel NIC is not on the vSAN portgroup: %+v", v.Spec)
		}
	}

	// The portgroup refuses what vCenter refuses.
	for _, tc := range []struct {
		version         string
		active, standby []string
		want            string
	}{
		{"1", []string{"lag-25g", "Uplink 1"}, nil, "InvalidArgument"},
		{"1", []string{"lag-25g"}, []string{"lag-10g"}, "InvalidArgument"},
		{"1", []string{"Uplink 9"}, nil, "InvalidArgument"},
		{"0", []string{"lag-25g"}, nil, "ConcurrentAccess"},
	} {
		task, err := pg.Reconfigure(ctx, types.DVPortgroupConfigSpec{ConfigVersion: tc.version, DefaultPortConfig: &types.VMwareDVSPortSetting{
			UplinkTeamingPolicy: &types.VmwareUplinkPortTeamingPolicy{UplinkPortOrder: &types.VMwareUplinkPortOrderPolicy{ActiveUplinkPort: tc.active, StandbyUplinkPort: tc.standby}},
		}})
		if err == nil {
			err = task.Wait(ctx)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %s", tc, err, tc.want)
		}
	}
	// A LAG standby beside standalone uplinks is a migration step vCenter allows;
	// the portgroup keeps its name and bumps its version.
	task, err := pg.Reconfigure(ctx, types.DVPortgroupConfigSpec{ConfigVersion: "1", DefaultPortConfig: &types.VMwareDVSPortSetting{
		UplinkTeamingPolicy: &types.VmwareUplinkPortTeamingPolicy{UplinkPortOrder: &types.VMwareUplinkPortOrderPolicy{ActiveUplinkPort: []string{"Uplink 1"}, StandbyUplinkPort: []string{"lag-25g"}}},
	}})
	if err == nil {
		err = task.Wait(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := pg.Properties(ctx, pg.Reference(), []string{"config"}, &mpg); err != nil {
		t.Fatal(err)
	}
	if mpg.Config.Name != "vSAN" || mpg.Config.ConfigVersion != "2" {
		t.Errorf("after a partial reconfigure: name %q version %q, want vSAN 2", mpg.Config.Name, mpg.Config.ConfigVersion)
	}
}
