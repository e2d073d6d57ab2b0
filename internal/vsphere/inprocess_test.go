package vsphere

import (
	"context"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmware/govmomi/vim25/soap"

	"starbench/internal/model"
	"starbench/internal/sim"
)

// countingTransport counts the calls an in-process client makes.
type countingTransport struct {
	s     *sim.Sim
	calls atomic.Int64
}

func (c *countingTransport) roundTripper(path string) soap.RoundTripper {
	rt := c.s.InProcess(path)
	return roundTripFunc(func(ctx context.Context, req, res soap.HasFault) error {
		c.calls.Add(1)
		return rt.RoundTrip(ctx, req, res)
	})
}

// startInProcess starts a simulator and connects to it in process, with
// reads kept while its version stands still; the transport counts calls.
func startInProcess(t testing.TB, opts sim.Options) (*sim.Sim, *Client, *countingTransport) {
	t.Helper()
	s, err := sim.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	pass, _ := s.Userinfo().Password()
	ct := &countingTransport{s: s}
	c, err := Connect(context.Background(), Options{
		URL: s.URL.String(), Username: s.Userinfo().Username(), Password: pass, CAPEM: s.CertPEM,
		InProcess: ct.roundTripper, Versions: s,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return s, c, ct
}

// answers is what a session of calls read back, to compare transports.
type answers struct {
	Deployed, Applied, Listed []Worker
	Before, After             ClusterState
	Policy                    model.Policy
	Inventory                 *Inventory
	Samples                   int
	Destroyed                 []string
}

// drive deploys workers, sets and applies policies, configures the cluster
// and reads everything back.
func drive(t *testing.T, c *Client) answers {
	t.Helper()
	ctx := context.Background()
	var a answers
	var err error
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err = c.SetPolicy(ctx, PolicySpec{Name: "r1", RAID: "raid1"})
	must(err)
	_, err = c.SetPolicy(ctx, PolicySpec{Name: "r5", RAID: "raid5", StripeWidth: 2})
	must(err)
	spec := smallSpec("w")
	spec.Policy, spec.Pool = "r1", 1
	a.Deployed, err = c.DeployWorkers(ctx, spec)
	must(err)
	a.Applied, err = c.ApplyPolicy(ctx, a.Deployed, "r5", 1, 0)
	must(err)
	a.Before, err = c.State(ctx)
	must(err)
	on := true
	_, err = c.Configure(ctx, ClusterSettings{Compression: &on, RDMA: &on, Uplink: "25g"})
	must(err)
	a.After, err = c.State(ctx)
	must(err)
	a.Policy, err = c.Policy(ctx, "r5")
	must(err)
	a.Listed, err = c.Workers(ctx, "w")
	must(err)
	a.Inventory, err = c.Inventory(ctx)
	must(err)
	samples, err := c.HostMetrics(ctx, nil, time.Now().Add(-time.Minute), time.Now())
	must(err)
	a.Samples = len(samples)
	a.Destroyed, err = c.DestroyWorkers(ctx, "w", 1)
	must(err)
	return a
}

// TestInProcessAnswersAsHTTPS: the same calls give the same answers in
// process as over HTTPS.
func TestInProcessAnswersAsHTTPS(t *testing.T) {
	opts := sim.Options{Testbed: testbedOf(4, "ESA"), Seed: 1}
	_, overHTTPS := startSim(t, opts)
	_, inProcess, _ := startInProcess(t, opts)
	want, got := drive(t, overHTTPS), drive(t, inProcess)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("in process:\n%+v\nover HTTPS:\n%+v", got, want)
	}
	if got.Policy.RAID != "raid5" || len(got.Applied) != 8 || got.Applied[0].Disks[0].Policy != "r5" || !got.After.RDMA {
		t.Errorf("answers %+v", got)
	}
}

// TestReadsAreKeptWhileTheVersionStandsStill: repeated reads make no
// calls; a change, by this client or another, is read back.
func TestReadsAreKeptWhileTheVersionStandsStill(t *testing.T) {
	s, c, ct := startInProcess(t, sim.Options{Testbed: testbedOf(4, "ESA")})
	ctx := context.Background()
	if _, err := c.SetPolicy(ctx, PolicySpec{Name: "r1", RAID: "raid1"}); err != nil {
		t.Fatal(err)
	}
	spec := smallSpec("w")
	spec.Policy = "r1"
	deployed, err := c.DeployWorkers(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, w := range deployed {
		ids = append(ids, w.VM)
	}
	read := func() ([]Worker, ClusterState, model.Policy) {
		t.Helper()
		ws, err := c.WorkersByVM(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		st, err := c.State(ctx)
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.Policy(ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		return ws, st, p
	}
	ws, st, _ := read()
	ws[0].Disks[0].Policy, st.ActiveNICs[0] = "changed by the caller", "changed by the caller"
	before := ct.calls.Load()
	again, st2, _ := read()
	if n := ct.calls.Load() - before; n != 0 {
		t.Errorf("reading again with nothing changed made %d calls", n)
	}
	if again[0].Disks[0].Policy != "r1" || st2.ActiveNICs[0] == "changed by the caller" {
		t.Error("a caller changing what it read changed what the next caller reads")
	}
	for i := range 2 {
		before = ct.calls.Load()
		samples, err := c.HostMetrics(ctx, nil, time.Now().Add(-time.Minute), time.Now())
		if err != nil || len(samples) == 0 {
			t.Fatalf("host metrics: %d samples, %v", len(samples), err)
		}
		if n := ct.calls.Load() - before; i > 0 && n != 1 {
			t.Errorf("host metrics again made %d calls; want 1, the query of the samples", n)
		}
	}

	// A change through another client of the same simulator.
	pass, _ := s.Userinfo().Password()
	other, err := Connect(ctx, Options{URL: s.URL.String(), Username: sim.User, Password: pass, CAPEM: s.CertPEM})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.SetPolicy(ctx, PolicySpec{Name: "r1", RAID: "raid1", StripeWidth: 3}); err != nil {
		t.Fatal(err)
	}
	if p, err := c.Policy(ctx, "r1"); err != nil || p.StripeWidth != 3 {
		t.Errorf("policy r1 after another client updated it: %+v, %v; want stripe width 3", p, err)
	}
	if _, err := c.WorkersByVM(ctx, ids); err != nil {
		t.Fatal(err)
	}
	on := true
	if _, err := other.Configure(ctx, ClusterSettings{Compression: &on, Uplink: "25g"}); err != nil {
		t.Fatal(err)
	}
	// Cluster settings leave the VMs as they were: their read is kept.
	before = ct.calls.Load()
	if _, err := c.WorkersByVM(ctx, ids); err != nil {
		t.Fatal(err)
	}
	if n := ct.calls.Load() - before; n != 0 {
		t.Errorf("reading the workers again after a change of cluster settings made %d calls", n)
	}
	if _, err := other.SetPolicy(ctx, PolicySpec{Name: "r5", RAID: "raid5"}); err != nil {
		t.Fatal(err)
	}
	if _, err := other.ApplyPolicy(ctx, deployed, "r5", 4, 0); err != nil {
		t.Fatal(err)
	}
	ws, st, p := read()
	if ws[0].Disks[0].Policy != "r5" || !st.Compression || st.Uplink != "25g" || p.StripeWidth != 3 {
		t.Errorf("after changes by another client: disk policy %q, compression %v, uplink %s, stripe width %d; want r5, true, 25g, 3",
			ws[0].Disks[0].Policy, st.Compression, st.Uplink, p.StripeWidth)
	}
}
