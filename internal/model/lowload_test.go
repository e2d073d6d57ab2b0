package model

import (
	"context"
	"math"
	"strings"
	"testing"

	"starbench/internal/fio"
)

// The solver pinned at low load and on small networks by closed forms that
// do not use MVA: the normalisation constant of a product-form network.

func mustMVA(t testing.TB, st []station, n int, fr, z float64) solution {
	t.Helper()
	sol, err := solveMVA(context.Background(), st, n, fr, z)
	if err != nil {
		t.Fatal(err)
	}
	return sol
}

// normalisation returns G(0..n) of a closed network of single-server
// queues with demands d (each copy its own queue) and a pure delay z, by
// convolution: G(n) = sum over queue lengths of prod d^n_k x z^m / m!.
// Throughput is then X(n) = G(n-1) / G(n) (Buzen).
func normalisation(d []float64, z float64, n int) []float64 {
	g := make([]float64, n+1)
	// The delay centre first: z^m / m!.
	g[0] = 1
	for m := 1; m <= n; m++ {
		g[m] = g[m-1] * z / float64(m)
	}
	for _, dk := range d {
		for m := 1; m <= n; m++ {
			g[m] += dk * g[m-1]
		}
	}
	return g
}

// With one outstanding I/O nothing queues: the response is the sum of all
// demands (every copy's share, both Seidmann parts) and the fixed delay.
func TestMVAOneCustomerIsTheSumOfDemands(t *testing.T) {
	st := []station{
		{Name: "cpu", Copies: 4, Servers: 32, D: [2]float64{3e-6, 5e-6}},
		{Name: "worlds", Copies: 4, Servers: 8, D: [2]float64{20e-6, 30e-6}},
		{Name: "ssd", Copies: 16, Servers: 1, D: [2]float64{6e-6, 9e-6}},
	}
	const z = 70e-6
	for _, fr := range []float64{1, 0, 0.7} {
		want := z
		for _, s := range st {
			want += float64(s.Copies) * s.demand(fr)
		}
		if x := mustMVA(t, st, 1, fr, z).X; math.Abs(x*want-1) > 1e-12 {
			t.Errorf("read share %g: response %g s at N=1, want the sum of demands %g s", fr, 1/x, want)
		}
	}
}

// A two-station network (plus a think time) against its textbook solution
// by the normalisation constant, at every population up to 40; the exact
// and the Schweitzer solvers both.
func TestMVATwoStationsAgainstNormalisationConstant(t *testing.T) {
	const d1, d2, z = 1e-3, 2.5e-3, 4e-3
	st := []station{
		{Name: "a", Copies: 1, Servers: 1, D: [2]float64{d1, d1}},
		{Name: "b", Copies: 1, Servers: 1, D: [2]float64{d2, d2}},
	}
	g := normalisation([]float64{d1, d2}, z, 40)
	for n := 1; n <= 40; n++ {
		want := g[n-1] / g[n]
		if x := mustMVA(t, st, n, 1, z).X; math.Abs(x/want-1) > 1e-9 {
			t.Errorf("N=%d: exact MVA X=%g, want G(N-1)/G(N) = %g", n, x, want)
		}
	}
	// Mean queue at b with N=5: sum_k d2^k G(N-k) / G(N).
	sol := mustMVA(t, st, 5, 1, z)
	q := 0.0
	for k := 1; k <= 5; k++ {
		q += math.Pow(d2, float64(k)) * g[5-k] / g[5]
	}
	if math.Abs(sol.Q[1]/q-1) > 1e-9 {
		t.Errorf("N=5: queue at b %g, want %g", sol.Q[1], q)
	}
	// Schweitzer is an approximation, worst at a handful of customers (it
	// runs only above exactBound): within 7 % here, closer as N grows.
	for _, n := range []int{1, 2, 5, 20, 40} {
		sw, err := schweitzerMVA(context.Background(), st, n, 1, z)
		if err != nil {
			t.Fatal(err)
		}
		if want := g[n-1] / g[n]; math.Abs(sw.X/want-1) > 0.07 || n >= 40 && math.Abs(sw.X/want-1) > 0.01 {
			t.Errorf("N=%d: Schweitzer X=%g, textbook %g", n, sw.X, want)
		}
	}
}

// Seidmann's approximation for a station of c > 1 servers and several
// copies: each copy is a single-server queue with demand D/c followed by a
// pure delay D(c-1)/c, so the network equals a product-form one of Copies
// queues of D/c and a delay of z + Copies x D(c-1)/c. Checked against that
// network's normalisation constant, with reads and writes of different
// demands mixed.
func TestSeidmannMultiServerStation(t *testing.T) {
	const c, copies, z, fr = 4.0, 3, 50e-6, 0.7
	dr, dw := 400e-6, 200e-6
	st := []station{{Name: "m", Copies: copies, Servers: c, D: [2]float64{dr, dw}}}
	d := fr*dr + (1-fr)*dw
	qd := make([]float64, copies)
	for i := range qd {
		qd[i] = d / c
	}
	delay := z + copies*d*(c-1)/c
	g := normalisation(qd, delay, 30)
	for _, n := range []int{1, 2, 3, 12, 30} {
		want := g[n-1] / g[n]
		if x := mustMVA(t, st, n, fr, z).X; math.Abs(x/want-1) > 1e-9 {
			t.Errorf("N=%d: X=%g, want %g", n, x, want)
		}
	}
	// At N=1 a multi-server station adds its whole demand, not D/c.
	if r := 1 / mustMVA(t, st, 1, fr, 0).X; math.Abs(r/(copies*d)-1) > 1e-12 {
		t.Errorf("N=1: response %g, want copies x D = %g", r, copies*d)
	}
}

// Solve at queue depth 1 on one disk: the latency fio would report is the
// unloaded path, and throughput is its inverse (one I/O at a time).
func TestSolveOneOutstandingIO(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	for _, rw := range []string{"randread", "randwrite"} {
		job := &fio.Job{IOEngine: "libaio", Direct: true, RW: rw, BlockSize: 4096, IODepth: 1}
		out := solve(t, p, Input{Jobs: []JobLoad{{Job: job, Disks: []DiskLoad{{Policy: Policy{RAID: "raid1"}, Written: 1}}}}})
		d := out.Read
		if rw == "randwrite" {
			d = out.Write
		}
		if out.Outstanding != 1 || math.Abs(d.IOPS*d.LatMeanUs*1e-6-1) > 1e-9 {
			t.Errorf("%s at N=1: %d outstanding, %.0f IOPS x %.1f us = %g, want 1", rw, out.Outstanding, d.IOPS, d.LatMeanUs, d.IOPS*d.LatMeanUs*1e-6)
		}
		if d.LatMeanUs < 50 || d.LatMeanUs > 2000 {
			t.Errorf("%s at N=1: %.1f us; want an unloaded NVMe vSAN path, 50 us to 2 ms", rw, d.LatMeanUs)
		}
	}
}

// Numbers that are not finite become errors naming what was wrong, never
// results and never a hang (a NaN reaching the Gamma quantile loops).
func TestNonFiniteIsAnError(t *testing.T) {
	st := []station{{Name: "ssd", Copies: 1, Servers: 1, D: [2]float64{math.NaN(), 1e-3}}}
	if _, err := solveMVA(context.Background(), st, 8, 0.5, 0); err == nil || !strings.Contains(err.Error(), "station ssd: demand NaN") {
		t.Errorf("NaN demand: %v", err)
	}
	st[0].D[0] = 1e-3
	if _, err := solveMVA(context.Background(), st, 0, 0.5, 0); err == nil || !strings.Contains(err.Error(), "0 outstanding I/Os") {
		t.Errorf("no customers: %v", err)
	}
	if _, err := solveMVA(context.Background(), st, 4, 0.5, math.Inf(1)); err == nil || !strings.Contains(err.Error(), "fixed delay") {
		t.Errorf("infinite delay: %v", err)
	}
	if _, err := latencyQuantile(st, []float64{0}, []float64{math.NaN()}, read, 0, 1); err == nil {
		t.Error("percentiles of a NaN queue: no error")
	}
	// Through Solve: a profile whose clock is not a number.
	p := mustLoad(t, "storagereview-r6625-esa")
	p.CPU.GHz = math.NaN()
	in := uniformInput(p, Policy{RAID: "raid1"}, &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 4})
	if _, err := Solve(context.Background(), p, in); err == nil || !strings.Contains(err.Error(), "not finite") && !strings.Contains(err.Error(), "NaN") {
		t.Errorf("NaN clock: %v", err)
	}
}

// A cancelled context stops Solve with the context's error.
func TestSolveHonoursCancellation(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in := uniformInput(p, Policy{RAID: "raid1"}, &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 32})
	if _, err := Solve(ctx, p, in); err != context.Canceled {
		t.Errorf("cancelled Solve: %v, want context.Canceled", err)
	}
}
