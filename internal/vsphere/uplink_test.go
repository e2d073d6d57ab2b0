package vsphere

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"starbench/internal/sim"
	"starbench/internal/testbed"
)

// testbedDVS is testbedOf with vSAN on a distributed switch; lags puts the
// 10 GbE and the 25 GbE pairs in LAGs, as the WWT cluster's MLAG pairs.
func testbedDVS(hosts int, lags bool) *testbed.Profile {
	p := testbedOf(hosts, "OSA")
	p.VSANNetwork = &testbed.VSANNetwork{Switch: testbed.DistributedSwitch, Name: "DSwitch-vSAN", Portgroup: "vSAN-pg"}
	if lags {
		p.VSANNetwork.LAGs = []testbed.LAG{{Name: "lag-10g", NICs: []string{"vmnic0", "vmnic1"}}, {Name: "lag-25g", NICs: []string{"vmnic2", "vmnic3"}}}
		for i := range p.Uplinks {
			p.Uplinks[i].LACP = true
		}
	}
	return p
}

// teaming reads the vSAN portgroup's teaming through a client of its own.
func teaming(t *testing.T, s *sim.Sim, portgroup string) (active, standby []string) {
	t.Helper()
	c := independentClient(t, s)
	ctx := context.Background()
	net, err := finderIn(t, c).Network(ctx, portgroup)
	if err != nil {
		t.Fatal(err)
	}
	var pg mo.DistributedVirtualPortgroup
	if err := propertyOf(ctx, c, net.Reference(), "config", &pg); err != nil {
		t.Fatal(err)
	}
	o := pg.Config.DefaultPortConfig.(*types.VMwareDVSPortSetting).UplinkTeamingPolicy.UplinkPortOrder
	return o.ActiveUplinkPort, o.StandbyUplinkPort
}

func TestUplinkOnADistributedSwitchIsThePortgroupsTeaming(t *testing.T) {
	s, c := startSim(t, sim.Options{Testbed: testbedDVS(4, false)})
	ctx := context.Background()
	st, err := c.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Uplink != "10g" || !slices.Equal(st.ActiveNICs, []string{"vmnic0", "vmnic1"}) || !strings.Contains(st.Switch, "distributed switch DSwitch-vSAN") || st.LAG != "" {
		t.Fatalf("initial state %+v", st)
	}
	prev, err := c.Configure(ctx, ClusterSettings{Uplink: "25g"})
	if err != nil {
		t.Fatal(err)
	}
	if prev.Uplink != "10g" {
		t.Errorf("previous uplink %q, want 10g", prev.Uplink)
	}
	active, standby := teaming(t, s, "vSAN-pg")
	if !slices.Equal(active, []string{"Uplink 3", "Uplink 4"}) || !slices.Equal(standby, []string{"Uplink 1", "Uplink 2"}) {
		t.Errorf("portgroup teaming active %v standby %v, want Uplink 3+4 active, 1+2 standby", active, standby)
	}
	st, _ = c.State(ctx)
	if st.Uplink != "25g" || !slices.Equal(st.ActiveNICs, []string{"vmnic2", "vmnic3"}) || !slices.Equal(st.StandbyNICs, []string{"vmnic0", "vmnic1"}) {
		t.Errorf("state after 25g: %+v", st)
	}
	if _, err := c.Configure(ctx, ClusterSettings{Uplink: "vmnic1"}); err != nil {
		t.Fatal(err)
	}
	if active, _ := teaming(t, s, "vSAN-pg"); !slices.Equal(active, []string{"Uplink 2"}) {
		t.Errorf("by NIC name: active %v, want Uplink 2", active)
	}
}

func TestUplinkOnADistributedSwitchWithLAGsPicksALAG(t *testing.T) {
	s, c := startSim(t, sim.Options{Testbed: testbedDVS(3, true)})
	ctx := context.Background()
	st, err := c.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Uplink != "10g" || st.LAG != "lag-10g" || !slices.Equal(st.ActiveNICs, []string{"vmnic0", "vmnic1"}) || len(st.StandbyNICs) != 0 {
		t.Fatalf("initial state %+v, want LAG lag-10g active, nothing standby", st)
	}
	if _, err := c.Configure(ctx, ClusterSettings{Uplink: "25g"}); err != nil {
		t.Fatal(err)
	}
	if active, standby := teaming(t, s, "vSAN-pg"); !slices.Equal(active, []string{"lag-25g"}) || len(standby) != 0 {
		t.Errorf("teaming active %v standby %v, want lag-25g alone", active, standby)
	}
	if st, _ := c.State(ctx); st.Uplink != "25g" || st.LAG != "lag-25g" || !slices.Equal(st.ActiveNICs, []string{"vmnic2", "vmnic3"}) {
		t.Errorf("state after 25g: %+v", st)
	}
	if _, err := c.Configure(ctx, ClusterSettings{Uplink: "lag-10g"}); err != nil {
		t.Fatal(err)
	}
	if st, _ := c.State(ctx); st.LAG != "lag-10g" {
		t.Errorf("by LAG name: %+v", st)
	}
	_, err = c.Configure(ctx, ClusterSettings{Uplink: "vmnic2"})
	if err == nil || !strings.Contains(err.Error(), "is not the whole of LAG lag-25g, which carries traffic only as a whole") || !strings.Contains(err.Error(), `"lag-25g"`) {
		t.Errorf("half a LAG: got %v, want a refusal naming the LAG", err)
	}
}

// TestAFailedDistributedUplinkChangeLeavesTheTeamingAsItWas: the portgroup
// task fails, or vSAN refuses the rest of the call after the teaming
// changed: either way the teaming reads back as before.
func TestAFailedDistributedUplinkChangeLeavesTheTeamingAsItWas(t *testing.T) {
	s, c := startSim(t, sim.Options{Testbed: testbedDVS(3, false)})
	ctx := context.Background()
	before, _ := teaming(t, s, "vSAN-pg")
	s.SetFaults([]sim.Fault{{Task: "ReconfigureDvPortgroup", Rate: 1, Fault: func() types.BaseMethodFault { return &types.DvsFault{} }}})
	if _, err := c.Configure(ctx, ClusterSettings{Uplink: "25g"}); err == nil || !strings.Contains(err.Error(), "DvsFault") {
		t.Errorf("failed task: got %v, want the DvsFault", err)
	}
	if now, _ := teaming(t, s, "vSAN-pg"); !slices.Equal(now, before) {
		t.Errorf("after a failed task the teaming is %v, want %v", now, before)
	}
	s.SetFaults([]sim.Fault{{Task: "VsanClusterReconfig", Rate: 1, Fault: func() types.BaseMethodFault { return &types.VsanFault{} }}})
	on := true
	_, err := c.Configure(ctx, ClusterSettings{Uplink: "25g", Compression: &on})
	if err == nil || !strings.Contains(err.Error(), "VsanFault") || !strings.Contains(err.Error(), "set back to 10g") {
		t.Errorf("vSAN refusing its part: got %v, want its fault and the uplinks set back", err)
	}
	if now, _ := teaming(t, s, "vSAN-pg"); !slices.Equal(now, before) {
		t.Errorf("after vSAN refused, the teaming is %v, want %v", now, before)
	}
}

// TestAFailedStandardUplinkChangeSetsTheChangedHostsBack: the third host
// refuses; the two changed before it are set back, host by host.
func TestAFailedStandardUplinkChangeSetsTheChangedHostsBack(t *testing.T) {
	s, c := startSim(t, sim.Options{Testbed: testbedOf(4, "OSA")})
	ctx := context.Background()
	s.SetFaults([]sim.Fault{{Method: "UpdatePortGroup", Rate: 1, Skip: 2, Count: 1, Fault: func() types.BaseMethodFault { return &types.HostConfigFault{} }}})
	_, err := c.Configure(ctx, ClusterSettings{Uplink: "25g"})
	if err == nil || !strings.Contains(err.Error(), "DC0_C0_H2") || !strings.Contains(err.Error(), "DC0_C0_H0, DC0_C0_H1, were set back to vmnic0+vmnic1") {
		t.Fatalf("got %v, want the failing host named and the two changed ones set back", err)
	}
	s.SetFaults(nil)
	for _, h := range hostNetworks(t, s) {
		pg, err := vsanPortgroup(h)
		if err != nil {
			t.Fatal(err)
		}
		if active, _ := nicOrder(pg.Spec.Policy.NicTeaming); !slices.Equal(active, []string{"vmnic0", "vmnic1"}) {
			t.Errorf("host %s: active %v, want vmnic0, vmnic1", h.Name, active)
		}
	}
	// Setting back fails too: the error says the hosts disagree.
	s.SetFaults([]sim.Fault{{Method: "UpdatePortGroup", Rate: 1, Skip: 1, Fault: func() types.BaseMethodFault { return &types.HostConfigFault{} }}})
	if _, err := c.Configure(ctx, ClusterSettings{Uplink: "25g"}); err == nil || !strings.Contains(err.Error(), "failed too, so the hosts disagree: set them by hand") {
		t.Errorf("failed rollback: %v", err)
	}
}
