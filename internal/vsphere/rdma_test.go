package vsphere

import (
	"context"
	"strings"
	"testing"

	"starbench/internal/sim"
)

// TestRDMARunsOnlyWhereItCan: turned on with RoCE v2 devices under the
// failover uplinks it runs (and the model sees it); a device whose link
// goes down takes it off, with the host and NIC named; turning it on there
// is refused, and the uplinks the same call changed are set back.
func TestRDMARunsOnlyWhereItCan(t *testing.T) {
	s, c := startSim(t, sim.Options{Testbed: testbedOf(4, "OSA")})
	ctx := context.Background()
	on := true
	if _, err := c.Configure(ctx, ClusterSettings{RDMA: &on}); err != nil {
		t.Fatal(err)
	}
	st, _ := c.State(ctx)
	if !st.RDMA || !st.RDMAActive || len(st.RDMAMissing) != 0 || st.RDMATeaming != "" {
		t.Fatalf("state %+v, want RDMA on and running", st)
	}
	if m, _ := c.ClusterState(ctx); !m.RDMA {
		t.Errorf("the model does not see RDMA running")
	}
	if err := s.SetRDMALink("DC0_C0_H2", "vmnic1", false); err != nil {
		t.Fatal(err)
	}
	st, _ = c.State(ctx)
	if st.RDMAActive || len(st.RDMAMissing) != 1 || st.RDMAMissing[0] != "vmrdma1 on vmnic1 is down, not active (check the link and the switch port) on host DC0_C0_H2" {
		t.Errorf("with a link down: active %v, missing %q", st.RDMAActive, st.RDMAMissing)
	}
	if m, _ := c.ClusterState(ctx); m.RDMA {
		t.Errorf("the model sees RDMA running with a host's link down")
	}
	s.SetRDMALink("DC0_C0_H2", "vmnic1", true)
	s.SetRDMALink("DC0_C0_H1", "vmnic3", false)
	_, err := c.Configure(ctx, ClusterSettings{RDMA: &on, Uplink: "25g"})
	if err == nil || !strings.Contains(err.Error(), "vmrdma3 on vmnic3 is down") || !strings.Contains(err.Error(), "the vSAN uplinks were set back to 10g") {
		t.Errorf("RDMA on uplinks with a link down: got %v, want it refused and the uplinks set back", err)
	}
	if st, _ := c.State(ctx); st.Uplink != "10g" {
		t.Errorf("uplink %s after the refusal, want 10g", st.Uplink)
	}
}

func TestRDMANeedsRDMADevices(t *testing.T) {
	p := testbedOf(3, "ESA")
	p.RDMACapable = false
	_, c := startSim(t, sim.Options{Testbed: p})
	on := true
	_, err := c.Configure(context.Background(), ClusterSettings{RDMA: &on})
	want := "RDMA (RoCE v2) cannot run on cluster DC0_C0: vmnic0 has no RDMA device (no vmrdma is paired with it: the NIC cannot do RDMA, or its RDMA driver is not loaded) on hosts DC0_C0_H0, DC0_C0_H1, DC0_C0_H2; vmnic1 has no RDMA device"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v\nwant it to start %s", err, want)
	}
	if st, _ := c.State(context.Background()); st.RDMA {
		t.Errorf("RDMA was turned on")
	}
}

// TestRDMAOverALAGRunsOnOneLink: vSAN accepts RDMA on a LAG, which it
// does not support with RDMA; an RDMA connection cannot spread over the
// LAG's links, so RDMA runs on one of them. The state says so, and the
// model gets RDMA with the LAG (it puts RDMA on one link, see
// internal/model's network tests).
func TestRDMAOverALAGRunsOnOneLink(t *testing.T) {
	_, c := startSim(t, sim.Options{Testbed: testbedDVS(3, true)})
	ctx := context.Background()
	on := true
	if _, err := c.Configure(ctx, ClusterSettings{RDMA: &on}); err != nil {
		t.Fatal(err)
	}
	st, _ := c.State(ctx)
	if !st.RDMA || !st.RDMAActive || !strings.Contains(st.RDMATeaming, "LAG lag-10g (LACP), which vSAN does not support with RDMA") || !strings.HasSuffix(st.RDMATeaming, "so RDMA runs on one link of it") {
		t.Errorf("state %+v", st)
	}
	if m, _ := c.ClusterState(ctx); !m.RDMA || m.LAG != "lag-10g" {
		t.Errorf("the model sees RDMA %v over LAG %q, want RDMA over lag-10g", m.RDMA, m.LAG)
	}
}
