package model

import (
	"context"
	"math"
	"strings"
	"testing"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// split runs job a on the first half of the layout's VMs and job b on the
// second half, as one workload of two concurrent jobs.
func split(p *testbed.Profile, pol Policy, a, b *fio.Job) Input {
	in := uniformInput(p, pol, a)
	disks := in.Jobs[0].Disks
	half := len(disks) / 2
	in.Jobs = []JobLoad{{Name: "a", Job: a, Disks: disks[:half]}, {Name: "b", Job: b, Disks: disks[half:]}}
	return in
}

// One job split into two identical concurrent jobs is the same load: the
// classes share it evenly and the total is the one job's (within the
// multi-class approximation, 3 %).
func TestIdenticalClassesShareTheLoad(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 8192, IODepth: 16}
	one := solve(t, p, uniformInput(p, Policy{RAID: "raid5"}, job))
	two := solve(t, p, split(p, Policy{RAID: "raid5"}, job, job))
	if len(two.Jobs) != 2 || two.Jobs[0].Name != "a" || !(math.Abs(total(two)/total(one)-1) <= 0.03) {
		t.Errorf("two halves: %d jobs, %.0f IOPS; one job %.0f", len(two.Jobs), total(two), total(one))
	}
	a, b := two.Jobs[0].Read.IOPS+two.Jobs[0].Write.IOPS, two.Jobs[1].Read.IOPS+two.Jobs[1].Write.IOPS
	if !(math.Abs(a/b-1) <= 1e-6) || two.Outstanding != one.Outstanding {
		t.Errorf("the halves do %.0f and %.0f IOPS with %d outstanding (one job %d)", a, b, two.Outstanding, one.Outstanding)
	}
}

// With one class the multi-class solver is Bard-Schweitzer.
func TestOneClassIsSchweitzer(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	c := mustBuild(t, p, uniformInput(p, Policy{RAID: "raid6", FTT: 2}, &fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 4096, IODepth: 8}))
	n := c.g.outstanding
	multi, err := solveClasses(context.Background(), []*cell{c}, []int{n})
	if err != nil {
		t.Fatal(err)
	}
	single, err := schweitzerMVA(context.Background(), c.st, n, c.fr, c.zMix)
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(multi.X[0]/single.X-1) <= 1e-4) {
		t.Errorf("one class: X %g, Schweitzer %g", multi.X[0], single.X)
	}
}

// Two classes of single-server stations against exact multi-class MVA
// (the recursion over population vectors), within Schweitzer's accuracy.
func TestTwoClassesAgainstExactMVA(t *testing.T) {
	// Class demands at two stations.
	d := [2][2]float64{{1e-3, 3e-3}, {4e-3, 1e-3}}
	const n1, n2 = 6, 4
	type key [2]int
	q := map[key][2][2]float64{} // queue per class per station
	x := map[key][2]float64{}
	for a := 0; a <= n1; a++ {
		for b := 0; b <= n2; b++ {
			if a+b == 0 {
				continue
			}
			pop := [2]int{a, b}
			var qq [2][2]float64
			var xx [2]float64
			for c := range 2 {
				if pop[c] == 0 {
					continue
				}
				prev := pop
				prev[c]--
				pq := q[key(prev)]
				r := 0.0
				var rk [2]float64
				for k := range 2 {
					rk[k] = d[c][k] * (1 + pq[0][k] + pq[1][k])
					r += rk[k]
				}
				xx[c] = float64(pop[c]) / r
				for k := range 2 {
					qq[c][k] = xx[c] * rk[k]
				}
			}
			q[key(pop)], x[key(pop)] = qq, xx
		}
	}
	cells := make([]*cell, 2)
	for c := range 2 {
		cells[c] = &cell{fr: 1, st: []station{
			{Name: "a", Copies: 1, Servers: 1, D: [2]float64{d[c][0], d[c][0]}},
			{Name: "b", Copies: 1, Servers: 1, D: [2]float64{d[c][1], d[c][1]}},
		}}
	}
	sol, err := solveClasses(context.Background(), cells, []int{n1, n2})
	if err != nil {
		t.Fatal(err)
	}
	want := x[key{n1, n2}]
	for c := range 2 {
		if !(math.Abs(sol.X[c]/want[c]-1) <= 0.06) {
			t.Errorf("class %d: X %g, exact %g", c+1, sol.X[c], want[c])
		}
	}
}

// Concurrent jobs of different shapes compete: each does less than alone,
// a rate-limited one keeps its rate, and the notes say how they were solved.
func TestConcurrentJobsCompete(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	reads := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16}
	writes := &fio.Job{IOEngine: "libaio", Direct: true, RW: "write", BlockSize: 1 << 20, IODepth: 8}
	both := solve(t, p, split(p, Policy{RAID: "raid1"}, reads, writes))
	aloneR := solve(t, p, split(p, Policy{RAID: "raid1"}, reads, &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16, RateIOPS: 1}))
	if both.Jobs[0].Read.IOPS >= aloneR.Jobs[0].Read.IOPS || both.Jobs[1].Write.MBps <= 0 {
		t.Errorf("4K reads beside 1M writes: %.0f IOPS, beside an idle job %.0f; writes %.0f MB/s", both.Jobs[0].Read.IOPS, aloneR.Jobs[0].Read.IOPS, both.Jobs[1].Write.MBps)
	}
	if limit := 64.0; !(math.Abs(aloneR.Jobs[1].Read.IOPS-limit) <= 1e-6) {
		t.Errorf("rate_iops=1 on 64 disks: %.3f IOPS, want %g", aloneR.Jobs[1].Read.IOPS, limit)
	}
	if !strings.Contains(strings.Join(both.Notes, "\n"), "2 concurrent jobs solved as classes of one network") || both.Bottleneck == "" {
		t.Errorf("notes %q, bottleneck %q", both.Notes, both.Bottleneck)
	}
	for _, s := range both.Stations {
		if s.Util > 1+1e-9 {
			t.Errorf("station %s at %.3f", s.Name, s.Util)
		}
	}
}

// Two concurrent jobs of different shapes at 65,536 outstanding I/Os in all.
func BenchmarkSolveTwoJobsN65536(b *testing.B) {
	p := mustLoad(b, "storagereview-r6625-esa")
	r := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 512}
	w := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 65536, IODepth: 512}
	in := split(p, Policy{RAID: "raid5"}, r, w)
	for i := range in.VMs {
		in.VMs[i].Controller = testbed.VNVMe // deep queues: all 65,536 reach vSAN
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Solve(context.Background(), p, in); err != nil {
			b.Fatal(err)
		}
	}
}

// Beside other jobs each job is capped by its own rate: rate_iops per fio
// job, numjobs of them on each of its disks (5 x 2 x 64 = 640 IOPS); a
// latency_target is not applied beside others, and the notes say so.
func TestConcurrentJobsKeepTheirOwnRates(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	reads := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16,
		Options: []fio.Option{{Key: "latency_target", Value: "500us"}}}
	limited := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 16, NumJobs: 2, RateIOPS: 5}
	out := solve(t, p, split(p, Policy{RAID: "raid1"}, reads, limited))
	if got := out.Jobs[1].Write.IOPS; !(math.Abs(got-640) <= 1e-6) {
		t.Errorf("rate_iops=5, numjobs=2 on 64 disks beside another job: %.3f IOPS, want 640", got)
	}
	if !strings.Contains(strings.Join(out.Notes, "\n"), "latency_target is not applied to a job running beside others") {
		t.Errorf("notes %q do not say the latency target was not applied", out.Notes)
	}
	free := solve(t, p, split(p, Policy{RAID: "raid1"}, reads, &fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 16}))
	if out.Jobs[0].Read.IOPS <= free.Jobs[0].Read.IOPS {
		t.Errorf("reads beside a rate-limited job %.0f IOPS, beside a free one %.0f; want more", out.Jobs[0].Read.IOPS, free.Jobs[0].Read.IOPS)
	}
}

// Concurrent jobs' fio threads share the worker VMs' vCPUs: the guest
// station serves as many threads as the jobs run together (at most the
// vCPUs), and each job's CPU station counts them all runnable beside
// vSAN's own worlds, which stay as they are for one job.
func TestConcurrentJobsShareTheGuestThreads(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	a := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16}
	b := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 16, NumJobs: 2}
	in := split(p, Policy{RAID: "raid1"}, a, b)
	_, cells, err := solveJobs(context.Background(), p, in, false)
	if err != nil {
		t.Fatal(err)
	}
	var alone []*cell
	for _, jl := range in.Jobs {
		alone = append(alone, mustBuild(t, p, Input{State: in.State, VMs: in.VMs, Jobs: []JobLoad{jl}}))
	}
	threads := math.Min(alone[0].g.threadsPerHost+alone[1].g.threadsPerHost, alone[0].g.vcpusPerHost)
	if threads == alone[0].g.threadsPerHost || threads == alone[1].g.threadsPerHost {
		t.Fatalf("the two jobs run %g threads per host, as many as one of them: no property to check", threads)
	}
	for i, c := range cells {
		guest, cpu := stationNamed(c, "guest"), stationNamed(c, "cpu")
		cpu1 := stationNamed(alone[i], "cpu")
		if guest.Servers != threads {
			t.Errorf("job %d: guest serves %g threads, want the jobs' %g together", i+1, guest.Servers, threads)
		}
		if got, want := cpu.Threads-threads, cpu1.Threads-alone[i].g.threadsPerHost; !(math.Abs(got-want) <= 1e-9) {
			t.Errorf("job %d: the CPU has %g runnable threads besides fio's %g; alone %g besides its own", i+1, got, threads, want)
		}
	}
}

func stationNamed(c *cell, name string) station {
	for _, s := range c.st {
		if s.Name == name {
			return s
		}
	}
	return station{}
}

// Each concurrent job obeys Little's law with fio's own outstanding I/Os,
// those its virtual controllers do not admit waiting in the guest; the
// jobs together sum their throughput and weight latencies (percentiles
// too) by I/Os; a direction no job uses stays empty.
func TestConcurrentJobsLittleAndTheirSum(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	deep := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 512}
	mixed := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 50, BlockSize: 8192, IODepth: 4}
	out := solve(t, p, split(p, Policy{RAID: "raid1"}, deep, mixed))
	if notes := strings.Join(out.Notes, "\n"); !strings.Contains(notes, "the rest wait in the guest") || strings.Contains(notes, "latency_target") {
		t.Fatalf("iodepth 512: notes %q; want the controllers' cap, and nothing on a latency_target no job has", out.Notes)
	}
	for _, j := range out.Jobs {
		x := j.Read.IOPS + j.Write.IOPS
		r := (j.Read.IOPS*j.Read.LatMeanUs + j.Write.IOPS*j.Write.LatMeanUs) / x * 1e-6
		if !(math.Abs(x*r/float64(j.Outstanding)-1) <= 1e-9) {
			t.Errorf("job %s: X R = %g, want its %d outstanding I/Os", j.Name, x*r, j.Outstanding)
		}
	}
	a, b := out.Jobs[0].Read, out.Jobs[1].Read
	n := a.IOPS + b.IOPS
	mean := func(f func(Direction) float64) float64 { return (a.IOPS*f(a) + b.IOPS*f(b)) / n }
	want := Direction{IOPS: n, MBps: a.MBps + b.MBps,
		LatMeanUs: mean(func(d Direction) float64 { return d.LatMeanUs }), P50Us: mean(func(d Direction) float64 { return d.P50Us }),
		P95Us: mean(func(d Direction) float64 { return d.P95Us }), P99Us: mean(func(d Direction) float64 { return d.P99Us }),
		P999Us: mean(func(d Direction) float64 { return d.P999Us })}
	if !closeDirection(out.Read, want) || !closeDirection(out.Write, out.Jobs[1].Write) {
		t.Errorf("reads together %+v, want %+v; writes %+v, want the one writing job's %+v", out.Read, want, out.Write, out.Jobs[1].Write)
	}
	if out.Outstanding != out.Jobs[0].Outstanding+out.Jobs[1].Outstanding {
		t.Errorf("%d outstanding I/Os in all, jobs %d and %d", out.Outstanding, out.Jobs[0].Outstanding, out.Jobs[1].Outstanding)
	}
	reads := solve(t, p, split(p, Policy{RAID: "raid1"}, deep, deep))
	if reads.Write != (Direction{}) {
		t.Errorf("two read-only jobs write %+v", reads.Write)
	}
}

// A rate above what one outstanding I/O reaches: the job runs with the
// fewest outstanding I/Os that reach it and does exactly its rate
// (500 x 64 disks = 32,000 IOPS; one 4 KiB write at a time does a few
// thousand).
func TestConcurrentJobAtARateNeedingSeveralIOs(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	reads := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16}
	limited := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 16, RateIOPS: 500}
	out := solve(t, p, split(p, Policy{RAID: "raid1"}, reads, limited))
	if got := out.Jobs[1].Write.IOPS; !(math.Abs(got-32000) <= 1e-6) {
		t.Errorf("rate_iops=500 on 64 disks beside another job: %.3f IOPS, want 32000", got)
	}
}

// Two identical halves load every station as the one job does (the
// utilisation law over both classes, within the multi-class
// approximation's 3 %), for a mix of reads and writes.
func TestIdenticalClassesLoadTheStationsAsOneJob(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 65536, IODepth: 4}
	one := solve(t, p, uniformInput(p, Policy{RAID: "raid5"}, job))
	two := solve(t, p, split(p, Policy{RAID: "raid5"}, job, job))
	for _, s := range one.Stations {
		if u := util(two, s.Name); s.Util > 0.01 && !(math.Abs(u/s.Util-1) <= 0.03) {
			t.Errorf("%s: %.3f busy with two halves, %.3f with one job", s.Name, u, s.Util)
		}
	}
}
