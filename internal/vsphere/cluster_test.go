package vsphere

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vmware/govmomi/crypto"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"starbench/internal/model"
	"starbench/internal/sim"
)

func TestConfigureAppliesVerifiesAndReturnsThePreviousState(t *testing.T) {
	_, c := startSim(t, sim.Options{Testbed: testbedOf(4, "OSA")})
	ctx := context.Background()
	st, err := c.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Compression || st.RDMA || st.TransitEncryption || st.Uplink != "10g" || st.Architecture != "OSA" {
		t.Fatalf("initial state %+v, want compression off, rdma off, transit encryption off, 10g, OSA", st)
	}
	on := true
	prev, err := c.Configure(ctx, ClusterSettings{Compression: &on, Dedup: &on, RDMA: &on, TransitEncryption: &on, RestEncryption: &on, Uplink: "25g"})
	if err != nil {
		t.Fatal(err)
	}
	if prev.Compression || prev.Uplink != "10g" {
		t.Errorf("previous state %+v", prev)
	}
	now, err := c.ClusterState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(now, model.ClusterState{Compression: true, Dedup: true, RDMA: true, TransitEncryption: true, RestEncryption: true, Uplink: "25g", ActiveNICs: []string{"vmnic2", "vmnic3"}}) {
		t.Errorf("state after configure = %+v", now)
	}
	full, _ := c.State(ctx)
	if !slices.Equal(full.ActiveNICs, []string{"vmnic2", "vmnic3"}) || !slices.Equal(full.StandbyNICs, []string{"vmnic0", "vmnic1"}) {
		t.Errorf("NIC order active %v standby %v", full.ActiveNICs, full.StandbyNICs)
	}
	if _, err := c.Configure(ctx, ClusterSettings{Uplink: "vmnic0"}); err != nil {
		t.Fatal(err)
	}
	if st, _ := c.State(ctx); st.Uplink != "10g" || !slices.Equal(st.ActiveNICs, []string{"vmnic0"}) || !st.TransitEncryption {
		t.Errorf("by NIC name: %+v; want the other settings kept", st)
	}
	off := false
	if prev, err := c.Configure(ctx, ClusterSettings{TransitEncryption: &off}); err != nil || !prev.TransitEncryption {
		t.Fatalf("transit encryption off: previous %+v, %v", prev, err)
	}
	if st, _ := c.State(ctx); st.TransitEncryption || !st.Compression || !st.RestEncryption || st.KeyProvider != sim.KeyProvider {
		t.Errorf("transit encryption off: %+v; want it off, compression and data-at-rest encryption (with vCenter's default key provider %s) kept", st, sim.KeyProvider)
	}
	if prev, err := c.Configure(ctx, ClusterSettings{RestEncryption: &off}); err != nil || !prev.RestEncryption {
		t.Fatalf("data-at-rest encryption off: previous %+v, %v", prev, err)
	}
	if st, _ := c.State(ctx); st.RestEncryption || st.KeyProvider != "" {
		t.Errorf("data-at-rest encryption off: %+v", st)
	}
	if _, err := c.Configure(ctx, ClusterSettings{RestEncryption: &on, KeyProvider: sim.KeyProvider}); err != nil {
		t.Errorf("data-at-rest encryption with the key provider named: %v", err)
	}
}

// An ESA cluster created with data-at-rest encryption (a testbed with
// rest_encryption) has it, with vCenter's default key provider, passes it
// to the model and keeps it.
func TestAnESAClusterCreatedEncryptedStaysSo(t *testing.T) {
	esa := testbedOf(3, "ESA")
	esa.RestEncryption = true
	_, c := startSim(t, sim.Options{Testbed: esa})
	ctx := context.Background()
	if st, err := c.State(ctx); err != nil || !st.RestEncryption || st.KeyProvider != sim.KeyProvider {
		t.Fatalf("state %+v, %v; want data-at-rest encryption on with %s", st, err, sim.KeyProvider)
	}
	if ms, err := c.ClusterState(ctx); err != nil || !ms.RestEncryption {
		t.Errorf("the model's state %+v, %v; want RestEncryption", ms, err)
	}
	off := false
	if _, err := c.Configure(ctx, ClusterSettings{RestEncryption: &off}); err == nil || !strings.Contains(err.Error(), "when the cluster is created") {
		t.Errorf("turning it off on ESA: %v, want it refused", err)
	}
	if st, _ := c.State(ctx); !st.RestEncryption {
		t.Errorf("after the refusal: %+v, want it still on", st)
	}
}

// Without a default key provider, data-at-rest encryption is refused
// before anything changes, saying what to do.
func TestRestEncryptionWithoutAKeyProvider(t *testing.T) {
	_, c := startSim(t, sim.Options{Testbed: testbedOf(3, "OSA")})
	ctx := context.Background()
	m, err := crypto.GetManagerKmip(c.vim)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.UnregisterKmsCluster(ctx, sim.KeyProvider); err != nil {
		t.Fatal(err)
	}
	on := true
	_, err = c.Configure(ctx, ClusterSettings{RestEncryption: &on})
	if err == nil || !strings.Contains(err.Error(), "vCenter has no default one for cluster DC0_C0") || !strings.Contains(err.Error(), "or give key_provider=") {
		t.Errorf("no key provider: %v, want it refused saying what to do", err)
	}
	if st, _ := c.State(ctx); st.RestEncryption {
		t.Errorf("after the refusal: %+v, want it off", st)
	}
}

func TestConfigureRefusesWhatTheClusterCannotDo(t *testing.T) {
	esa := testbedOf(3, "ESA")
	esa.RDMACapable = false
	_, c := startSim(t, sim.Options{Testbed: esa})
	ctx := context.Background()
	on, off := true, false
	for _, tc := range []struct {
		s    ClusterSettings
		want string
	}{
		{ClusterSettings{Dedup: &on}, "dedup is not available on vSAN ESA"},
		{ClusterSettings{RDMA: &on}, "vmnic0 has no RDMA device"},
		{ClusterSettings{Uplink: "100g"}, `has no 100 GbE NIC (it has vmnic0 10g`},
		{ClusterSettings{Uplink: "vmnic9"}, `no NIC "vmnic9"`},
		{ClusterSettings{RestEncryption: &on}, "vSAN ESA sets data-at-rest encryption when the cluster is created"},
		{ClusterSettings{RestEncryption: &on, KeyProvider: "elsewhere"}, `vCenter has no key provider "elsewhere"`},
	} {
		if _, err := c.Configure(ctx, tc.s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.s, err, tc.want)
		}
	}
	osa := testbedOf(4, "OSA")
	_, c2 := startSim(t, sim.Options{Testbed: osa})
	if _, err := c2.Configure(ctx, ClusterSettings{Dedup: &on, Compression: &off}); err == nil || !strings.Contains(err.Error(), "needs compression=True") {
		t.Errorf("dedup without compression: %v", err)
	}
	if _, err := c2.Configure(ctx, ClusterSettings{Dedup: &on, Compression: &on}); err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Configure(ctx, ClusterSettings{Compression: &off}); err == nil || !strings.Contains(err.Error(), "compression=False needs dedup=False too") {
		t.Errorf("compression off under dedup: got %v, want it to say dedup must go off too", err)
	}
}

func TestHostMetricsShowRecordedLoad(t *testing.T) {
	s, c := startSim(t, sim.Options{Testbed: testbedOf(3, "ESA")})
	ctx := context.Background()
	spec := smallSpec("m")
	spec.PerHost = 1
	if _, err := c.DeployWorkers(ctx, spec); err != nil {
		t.Fatal(err)
	}
	end := time.Now().Truncate(time.Minute)
	start := end.Add(-10 * time.Minute)
	s.RecordHostCPU("DC0_C0_H1", start.Add(5*time.Minute), end, 60)
	rows, err := c.HostMetrics(ctx, []string{"DC0_C0_H1", "DC0_C0_H0"}, start, end)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2*30 {
		t.Fatalf("got %d samples, want 60 (2 hosts x 10 min / 20 s)", len(rows))
	}
	var busy, idle int
	for _, r := range rows {
		if r.MemoryPercent <= 0 {
			t.Errorf("%+v: no memory usage with a powered-on worker", r)
		}
		switch {
		case r.Host == "DC0_C0_H1" && r.Time.After(start.Add(5*time.Minute)):
			if r.CPUPercent != 60 {
				t.Errorf("%+v: want 60 %% CPU", r)
			}
			busy++
		default:
			if r.CPUPercent > 5 {
				t.Errorf("%+v: want idle CPU", r)
			}
			idle++
		}
	}
	if busy != 15 || idle != 45 {
		t.Errorf("busy %d idle %d samples, want 15 and 45", busy, idle)
	}
	if _, err := c.HostMetrics(ctx, []string{"nohost"}, start, end); err == nil || !strings.Contains(err.Error(), "want one of DC0_C0_H0") {
		t.Errorf("unknown host: %v", err)
	}
}

func TestVSANPortgroupFollowsTheTaggedVMkernelNIC(t *testing.T) {
	host := func(tagged *types.HostVirtualNic, portgroups ...string) mo.HostSystem {
		h := mo.HostSystem{ManagedEntity: mo.ManagedEntity{Name: "esx1"}}
		h.Config = &types.HostConfigInfo{Network: &types.HostNetworkInfo{}}
		for _, n := range portgroups {
			h.Config.Network.Portgroup = append(h.Config.Network.Portgroup, types.HostPortGroup{Spec: types.HostPortGroupSpec{Name: n}})
		}
		if tagged != nil {
			h.Config.VirtualNicManagerInfo = &types.HostVirtualNicManagerInfo{NetConfig: []types.VirtualNicManagerNetConfig{
				{NicType: "vsan", CandidateVnic: []types.HostVirtualNic{*tagged}, SelectedVnic: []string{tagged.Key}},
			}}
		}
		return h
	}
	pg, err := vsanPortgroup(host(&types.HostVirtualNic{Key: "vsan.vmk3", Device: "vmk3", Portgroup: "storage-a"}, "vSAN-old", "storage-a"))
	if err != nil || pg.Spec.Name != "storage-a" {
		t.Errorf("tagged vmk: got %v, %v; want storage-a", pg, err)
	}
	if pg, err := vsanPortgroup(host(nil, "Management", "VSAN Network")); err != nil || pg.Spec.Name != "VSAN Network" {
		t.Errorf("by name: got %v, %v", pg, err)
	}
	dvs := &types.HostVirtualNic{Key: "vsan.vmk1", Device: "vmk1", Spec: types.HostVirtualNicSpec{DistributedVirtualPort: &types.DistributedVirtualSwitchPortConnection{}}}
	if _, err := vsanPortgroup(host(dvs, "Management")); err == nil || !strings.Contains(err.Error(), "distributed switch") {
		t.Errorf("vDS: %v", err)
	}
	if _, err := vsanPortgroup(host(nil, "Management", "VM Network")); err == nil || !strings.Contains(err.Error(), "(Management, VM Network)") {
		t.Errorf("none: %v", err)
	}
}
