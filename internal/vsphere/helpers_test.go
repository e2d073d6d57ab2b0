package vsphere

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/session"
	"github.com/vmware/govmomi/view"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"

	"starbench/internal/sim"
	"starbench/internal/testbed"
)

// testbedOf returns a small profile: hosts hosts with 2 x 10 GbE and 2 x 25 GbE.
func testbedOf(hosts int, arch string) *testbed.Profile {
	return &testbed.Profile{
		Name:         "test",
		Architecture: arch,
		Hosts:        hosts,
		CPU:          testbed.CPU{Model: "Test CPU 6240", Sockets: 2, CoresPerSocket: 18, GHz: 2.6},
		MemoryGB:     512,
		NICs: []testbed.NIC{
			{Name: "vmnic0", SpeedGbps: 10}, {Name: "vmnic1", SpeedGbps: 10},
			{Name: "vmnic2", SpeedGbps: 25}, {Name: "vmnic3", SpeedGbps: 25},
		},
		Uplinks: []testbed.Uplink{
			{Name: "10g", NICs: []string{"vmnic0", "vmnic1"}},
			{Name: "25g", NICs: []string{"vmnic2", "vmnic3"}},
		},
		RDMACapable: true,
		Workers:     testbed.WorkerLayout{PerHost: 2, CPUs: 4, MemoryMB: 4096, DataDisks: 2, DiskSizeGB: 10},
		Model:       testbed.DefaultModel(arch), // as loading a profile fills it
	}
}

// startSim starts a simulator of p and connects a client to it over HTTPS,
// trusting the simulator's certificate.
func startSim(t testing.TB, opts sim.Options) (*sim.Sim, *Client) {
	t.Helper()
	s, err := sim.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, connectTo(t, s)
}

// independentClient logs in to s with a client of its own, to check what
// the client under test did without trusting its reading of it.
func independentClient(t testing.TB, s *sim.Sim) *vim25.Client {
	t.Helper()
	ctx := context.Background()
	u := *s.URL
	u.User = s.Userinfo()
	sc := soap.NewClient(&u, true)
	c, err := vim25.NewClient(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	if err := session.NewManager(c).Login(ctx, s.Userinfo()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = session.NewManager(c).Logout(context.Background()) })
	return c
}

// propertyOf reads one property of ref into dst through c.
func propertyOf(ctx context.Context, c *vim25.Client, ref types.ManagedObjectReference, prop string, dst any) error {
	return property.DefaultCollector(c).RetrieveOne(ctx, ref, []string{prop}, dst)
}

// hostNetworks reads every host's network through an independent client.
func hostNetworks(t testing.TB, s *sim.Sim) []mo.HostSystem {
	t.Helper()
	var hosts []mo.HostSystem
	retrieveAll(t, s, "HostSystem", []string{"name", "config.network", "config.virtualNicManagerInfo"}, &hosts)
	return hosts
}

// vmNames lists, through an independent client, the VMs whose names start
// with prefix.
func vmNames(t testing.TB, s *sim.Sim, prefix string) []string {
	t.Helper()
	var vms []mo.VirtualMachine
	retrieveAll(t, s, "VirtualMachine", []string{"name"}, &vms)
	var out []string
	for _, vm := range vms {
		if strings.HasPrefix(vm.Name, prefix) {
			out = append(out, vm.Name)
		}
	}
	return out
}

// retrieveAll reads props of every object of kind through an independent client.
func retrieveAll(t testing.TB, s *sim.Sim, kind string, props []string, dst any) {
	t.Helper()
	c := independentClient(t, s)
	ctx := context.Background()
	v, err := view.NewManager(c).CreateContainerView(ctx, c.ServiceContent.RootFolder, []string{kind}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Destroy(ctx)
	if err := v.Retrieve(ctx, []string{kind}, props, dst); err != nil {
		t.Fatal(err)
	}
}

// connectTo connects another client to the running simulator s.
func connectTo(t testing.TB, s *sim.Sim) *Client {
	t.Helper()
	pass, _ := s.Userinfo().Password()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := Connect(ctx, Options{
		URL: s.URL.String(), Username: s.Userinfo().Username(), Password: pass, CAPEM: s.CertPEM,
		Retry: Retry{Attempts: 6, Backoff: 5 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// finderIn returns a finder of c set to the default datacenter.
func finderIn(t testing.TB, c *vim25.Client) *find.Finder {
	t.Helper()
	finder := find.NewFinder(c, true)
	dc, err := finder.DefaultDatacenter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	finder.SetDatacenter(dc)
	return finder
}
