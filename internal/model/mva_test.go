package model

import (
	"context"
	"math"
	"testing"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// A balanced network of K single-server stations with demand D and no delay
// has X(N) = N / (D (N + K - 1)) exactly.
func TestExactMVABalancedNetwork(t *testing.T) {
	const d = 2e-3
	st := []station{
		{Name: "a", Copies: 1, Servers: 1, D: [2]float64{d, d}},
		{Name: "b", Copies: 2, Servers: 1, D: [2]float64{d, d}}, // two copies = two stations
	}
	for _, n := range []int{1, 2, 7, 100} {
		got := mustMVA(t, st, n, 1, 0).X
		want := float64(n) / (d * float64(n+3-1))
		if math.Abs(got/want-1) > 1e-12 {
			t.Errorf("N=%d: X=%g, want %g", n, got, want)
		}
	}
}

// One queueing station and a think time: the machine-repairman model.
// At N=1 the response is D + Z; at large N throughput tends to 1/D.
func TestExactMVALimits(t *testing.T) {
	st := []station{{Name: "q", Copies: 1, Servers: 1, D: [2]float64{1e-3, 1e-3}}}
	if x := mustMVA(t, st, 1, 1, 4e-3).X; math.Abs(x-200) > 1e-9 {
		t.Errorf("N=1: X=%g, want 200", x)
	}
	if x := mustMVA(t, st, 1000, 1, 4e-3).X; math.Abs(x/1000-1) > 1e-3 {
		t.Errorf("N=1000: X=%g, want about 1000", x)
	}
}

func TestSchweitzerAgreesWithExact(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	for _, rw := range []string{"randread", "randwrite", "randrw", "write"} {
		in := uniformInput(p, Policy{RAID: "raid5"}, &fio.Job{IOEngine: "libaio", Direct: true, RW: rw, BlockSize: 8192, RWMixRead: 70, IODepth: 32})
		st := mustBuild(t, p, in).st
		for _, n := range []int{64, 512, 4096, 16384} {
			ex, _ := exactMVA(context.Background(), st, n, 0.7, 1e-4)
			sw, _ := schweitzerMVA(context.Background(), st, n, 0.7, 1e-4)
			if math.Abs(sw.X/ex.X-1) > 0.02 {
				t.Errorf("%s N=%d: Schweitzer X=%g, exact %g (more than 2 %% apart)", rw, n, sw.X, ex.X)
			}
		}
	}
}

// mustBuild returns the network of in's one job as one class (Solve's
// where the layout is even).
func mustBuild(t testing.TB, p *testbed.Profile, in Input) *cell {
	t.Helper()
	c, err := buildCell(p, in, false)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// costModelFor is the per-I/O accounting of a profile (TCP unless rdma,
// on its first uplink, PVSCSI workers).
func costModelFor(t testing.TB, p *testbed.Profile, rdma, compress, dedup bool) costModel {
	t.Helper()
	link, err := resolveLink(p, ClusterState{Uplink: ""}, rdma)
	if err != nil {
		t.Fatal(err)
	}
	return newCostModel(p, newPlatform(p), link, ClusterState{RDMA: rdma, Dedup: dedup}, compress, testbed.PVSCSI)
}

func mustLoad(t testing.TB, name string) *testbed.Profile {
	t.Helper()
	p, err := testbed.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// uniformInput runs job on every worker disk of the profile's layout, all
// prepared with incompressible random data.
func uniformInput(p *testbed.Profile, pol Policy, job *fio.Job) Input {
	return UniformInput(p, p.Hosts*p.Workers.PerHost, p.Workers.DataDisks, pol, job)
}

// benchCell solves one cell with n I/Os outstanding in the network:
// StorageReview's 8 disks a VM on virtual NVMe controllers (256 I/Os a
// disk, 2048 an adapter), with as many VMs as n needs beyond the 16 of the
// profile's layout, so the controllers admit all of fio's n.
func benchCell(b *testing.B, n int) {
	p := mustLoad(b, "storagereview-r6625-esa")
	vms := max(p.Hosts*p.Workers.PerHost, n/2048)
	in := UniformInput(p, vms, 8, Policy{RAID: "raid5"}, &fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 8192, IODepth: n / (vms * 8)})
	for i := range in.VMs {
		in.VMs[i].Controller = testbed.VNVMe
	}
	if got := mustBuild(b, p, in).g.outstanding; got != n {
		b.Fatalf("the network holds %d outstanding I/Os, want %d", got, n)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Solve(context.Background(), p, in); err != nil {
			b.Fatal(err)
		}
	}
}

// Baseline: the calibration cells' population, solved exactly.
func BenchmarkSolveCellN2048(b *testing.B) { benchCell(b, 2048) }

// The largest population solved exactly (exactBound).
func BenchmarkSolveCellN4096(b *testing.B) { benchCell(b, exactBound) }

// The largest cell: 65,536 outstanding I/Os in the network, Bard-Schweitzer.
func BenchmarkSolveCellN65536(b *testing.B) { benchCell(b, 65536) }

// What exact MVA would cost at 65,536: the reason for the switch.
func BenchmarkExactMVAN65536(b *testing.B) {
	p := mustLoad(b, "storagereview-r6625-esa")
	in := uniformInput(p, Policy{RAID: "raid5"}, &fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 8192})
	st := mustBuild(b, p, in).st
	for b.Loop() {
		exactMVA(context.Background(), st, 65536, 0.7, 1e-4)
	}
}

// A CPU-bound, overcommitted cell at 65,536 outstanding I/Os: the
// load-dependent CPU station's fixed point inside Bard-Schweitzer.
func BenchmarkSolveCellOvercommittedN65536(b *testing.B) {
	p := mustLoad(b, "vxrail-ve660-esa")
	p.CPU.CoresPerSocket = 4
	in := UniformInput(p, 32, 8, Policy{RAID: "raid1"}, &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 256})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Solve(context.Background(), p, in); err != nil {
			b.Fatal(err)
		}
	}
}
