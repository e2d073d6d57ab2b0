package model

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// solveJobs is Solve's network without OSA's burst: its output and the
// classes solved, each with its result.
func solveJobs(ctx context.Context, p *testbed.Profile, in Input, deferDestage bool) (*Output, []*cell, error) {
	out, cells, _, err := solveNetwork(ctx, p, in, deferDestage, nil)
	return out, cells, err
}

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
	multi, err := solveClasses(context.Background(), []*cell{c}, []float64{float64(n)}, nil)
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
	sol, err := solveClasses(context.Background(), cells, []float64{float64(n1), float64(n2)}, nil)
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

// Concurrent jobs' fio threads share the worker VMs' vCPUs: each job's
// guest serves its own threads (a fio thread runs its own job's I/Os), all
// of them while the jobs' threads together fit the vCPUs and their share
// of the vCPUs where they do not, and each job's CPU station counts every
// job's threads runnable beside vSAN's own worlds, which stay as they are
// for one job.
func TestConcurrentJobsShareTheGuestThreads(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	a := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16}
	for _, numjobs := range []int{2, 64} { // fitting the vCPUs, and not
		b := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 16, NumJobs: numjobs}
		in := split(p, Policy{RAID: "raid1"}, a, b)
		_, cells, err := solveJobs(context.Background(), p, in, false)
		if err != nil {
			t.Fatal(err)
		}
		var alone []*cell
		for _, jl := range in.Jobs {
			alone = append(alone, mustBuild(t, p, Input{State: in.State, VMs: in.VMs, Jobs: []JobLoad{jl}}))
		}
		own := alone[0].g.threadsPerHost + alone[1].g.threadsPerHost
		threads := math.Min(own, alone[0].g.vcpusPerHost)
		if threads == alone[0].g.threadsPerHost || threads == alone[1].g.threadsPerHost {
			t.Fatalf("the two jobs run %g threads per host, as many as one of them: no property to check", threads)
		}
		for i, c := range cells {
			guest, cpu := stationNamed(c, "guest"), stationNamed(c, "cpu")
			cpu1 := stationNamed(alone[i], "cpu")
			if want := alone[i].g.threadsPerHost * threads / own; !(math.Abs(guest.Servers-want) <= 1e-9) || !guest.PerJob {
				t.Errorf("numjobs=%d beside: job %d's guest serves %g threads (its own: %v), want its %g of the jobs' %g on %g vCPUs", numjobs, i+1, guest.Servers, guest.PerJob, want, own, alone[0].g.vcpusPerHost)
			}
			if got, want := cpu.Threads-threads, cpu1.Threads-alone[i].g.threadsPerHost; !(math.Abs(got-want) <= 1e-9) {
				t.Errorf("job %d: the CPU has %g runnable threads besides fio's %g; alone %g besides its own", i+1, got, threads, want)
			}
		}
	}
}

// A job does no more beside another job on the same disks than alone,
// however little the other does (a fio thread serves only its own job's
// I/Os, and both jobs' I/Os land on the disks' one set of components),
// and two identical jobs on the same disks do the same.
func TestAJobDoesNoMoreBesideAnother(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	reads := &fio.Job{Name: "a", IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16}
	in := UniformInput(p, 4, 1, Policy{RAID: "raid1"}, reads)
	for d := range in.Jobs[0].Disks {
		in.Jobs[0].Disks[d].Disk = "disk1"
	}
	in.Jobs[0].Name = "a"
	alone := solve(t, p, in)
	for _, b := range []*fio.Job{
		{Name: "b", IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 1, RateIOPS: 10},
		{Name: "b", IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 1, RateIOPS: 10},
		{Name: "b", IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 1},
		{Name: "b", IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 4},
		{Name: "b", IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16},
	} {
		both := in
		both.Jobs = []JobLoad{in.Jobs[0], {Name: "b", Job: b, Disks: in.Jobs[0].Disks}}
		out := solve(t, p, both)
		if got := out.Jobs[0].Read.IOPS; got > alone.Read.IOPS {
			t.Errorf("4K reads beside %s at iodepth %d, rate_iops %d: %.0f IOPS, alone %.0f: want no more", b.RW, b.IODepth, b.RateIOPS, got, alone.Read.IOPS)
		}
		if b.IODepth == reads.IODepth && b.RW == reads.RW && out.Jobs[0].Read != out.Jobs[1].Read {
			t.Errorf("two identical jobs on the same disks: %+v and %+v, want the same", out.Jobs[0].Read, out.Jobs[1].Read)
		}
	}
}

// Concurrent jobs share their VMs' virtual controllers' queues: PVSCSI
// holds 64 I/Os a disk and 254 an adapter (VMware KB 2053145), so two jobs
// at iodepth 64 on the same disks are admitted 32 each a disk, where alone
// one is admitted all 64; on different disks of the same VMs each keeps its
// disk's queue, the adapter's shared; the rest wait in the guest, noted.
func TestConcurrentJobsShareTheControllersQueues(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	deep := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 64}
	admitted := func(in Input) []int {
		_, cells, _, err := solveNetwork(context.Background(), p, in, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		n := make([]int, len(in.Jobs))
		for _, c := range cells {
			n[c.index] += c.g.outstanding
		}
		return n
	}
	in := UniformInput(p, 4, 2, Policy{RAID: "raid1"}, deep)
	for d := range in.Jobs[0].Disks {
		in.Jobs[0].Disks[d].Disk = fmt.Sprintf("disk%d", d%2)
	}
	if got := admitted(in); got[0] != 8*64 {
		t.Errorf("alone at iodepth 64 on 8 disks: %d admitted, want 512", got[0])
	}
	shared := in
	shared.Jobs = []JobLoad{in.Jobs[0], {Name: "b", Job: deep, Disks: in.Jobs[0].Disks}}
	shared.Jobs[0].Name = "a"
	if got := admitted(shared); got[0] != 8*32 || got[1] != 8*32 {
		t.Errorf("two jobs at iodepth 64 on the same 8 disks: %v admitted, want 256 each", got)
	}
	out := solve(t, p, shared)
	if !strings.Contains(strings.Join(out.Notes, "\n"), "admit 256 of its 512 outstanding I/Os") {
		t.Errorf("notes %q: want the shared queues said", out.Notes)
	}
	// On different disks of the same VMs: 12 disks a VM on one adapter, 6
	// each at 64 a disk, 768 a VM against the adapter's 254 (alone a job's
	// 384 would be admitted 254).
	apart := UniformInput(p, 4, 12, Policy{RAID: "raid1"}, deep)
	var mine, yours []DiskLoad
	for d, dl := range apart.Jobs[0].Disks {
		dl.Disk = fmt.Sprintf("disk%d", d%12)
		if d%2 == 0 {
			mine = append(mine, dl)
		} else {
			yours = append(yours, dl)
		}
	}
	apart.Jobs = []JobLoad{{Name: "a", Job: deep, Disks: mine}, {Name: "b", Job: deep, Disks: yours}}
	if got := admitted(Input{State: apart.State, VMs: apart.VMs, Jobs: apart.Jobs[:1]}); got[0] != 4*254 {
		t.Errorf("a job at iodepth 64 on 6 disks of each of 4 VMs, alone: %v admitted, want 1,016 (an adapter's 254 a VM)", got)
	}
	if got := admitted(apart); got[0] != 4*127 || got[1] != 4*127 {
		t.Errorf("two jobs at iodepth 64 on 6 disks each of 4 VMs' 12: %v admitted, want 508 each (half of an adapter's 254 a VM)", got)
	}
}

// Jobs on the same worker disk use its one vSAN object: placed once, the
// same components for each; disks with no name are objects of their own.
func TestJobsOnOneDiskShareItsObject(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 1}
	for _, name := range []string{"disk1", ""} {
		in := UniformInput(p, 4, 1, Policy{RAID: "raid5"}, job)
		for d := range in.Jobs[0].Disks {
			in.Jobs[0].Disks[d].Disk = name
		}
		in.Jobs = append(in.Jobs, JobLoad{Name: "b", Job: job, Disks: in.Jobs[0].Disks})
		placed, err := placeInput(p, in)
		if err != nil {
			t.Fatal(err)
		}
		same := true
		for d := range placed[0] {
			same = same && slices.Equal(placed[0][d].comps, placed[1][d].comps)
		}
		if same != (name != "") {
			t.Errorf("disks named %q: the two jobs' objects alike %v, want %v", name, same, name != "")
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

// fiveOnFour is TestFiveVMsOnFourHosts's layout: five VMs on four hosts
// (two on the first), one RAID-1 disk each, 4K random reads at 64
// outstanding a disk.
func fiveOnFour(job *fio.Job) Input {
	if job == nil {
		job = &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16, NumJobs: 4}
	}
	vms := []VM{{Host: "a"}, {Host: "b"}, {Host: "c"}, {Host: "d"}, {Host: "a"}}
	return oneDiskEach(vms, Policy{RAID: "raid1", FTT: 1}, job)
}

// On an uneven layout each host's disks run at their own rate. Five VMs on
// four hosts, one RAID-1 disk each, worked out by hand: host a's two disks
// are one class, bound by its DOM worlds as the one class was; the other
// three hosts' disks load their hosts alike (each object starts on its
// owner's host) and are the other class, each disk bound by the LSOM
// world of its remote replica's device (a 4K read does half its reads
// there, each costing lsom + a message + the payload's send), so the
// network carries DOM(a) + 3 x that, where one class gave 2.5 hosts' worth
// of DOM (the old figure, a lower bound).
func TestUnevenLayoutRunsEachGroupAtItsOwnRate(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	m := &p.Model
	hz := p.CPU.Clock() * 1e9
	in := fiveOnFour(nil)
	one := mustBuild(t, p, in)
	before, err := solveCell(context.Background(), p, in, one)
	if err != nil {
		t.Fatal(err)
	}
	out, cells, err := solveJobs(context.Background(), p, in, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 2 || len(cells[0].job.Disks) != 2 || cells[0].g.outstanding != 128 || len(cells[1].job.Disks) != 3 || cells[1].g.outstanding != 192 {
		t.Fatalf("%d classes, the first of %d disks and %d I/Os; want 2: host a's 2 disks with 128 and the other hosts' 3 with 192", len(cells), len(cells[0].job.Disks), cells[0].g.outstanding)
	}
	dom := stationsNamed(cells[0], "vsan-dom")[0] // host a's, the first host
	domA := dom.Servers / dom.D[read]
	lsom := m.LSOMOpCycles.Value + 4096*m.LSOMReadByteCycles.Value
	remote := lsom + m.MessageCyclesTCP.Value + 4096*m.TxByteCyclesTCP.Value
	device := 2 * hz / remote
	for i, c := range cells {
		want := 3 * device
		if i == 0 {
			want = domA
		}
		if x := c.result[read].IOPS; x > want*(1+1e-9) || x < 0.97*want {
			t.Errorf("class %d (%d disks): %.0f IOPS, want just under its bound %.0f", i, len(c.job.Disks), x, want)
		}
	}
	if x, want := out.Read.IOPS, domA+3*device; x > want || x < 0.97*want || x < 1.3*before.Read.IOPS {
		t.Errorf("%.0f IOPS, want just under %.0f and well above the one class's %.0f", x, want, before.Read.IOPS)
	}
	// The job is the classes together, and obeys Little's law.
	sum := 0.0
	for _, c := range cells {
		sum += c.result[read].IOPS
	}
	if jo := out.Jobs[0]; !closeTo(jo.Read.IOPS, sum) || jo.Outstanding != 5*64 || !(math.Abs(jo.Read.LatMeanUs*jo.Read.IOPS/1e6/320-1) <= 1e-9) {
		t.Errorf("job %+v: want the classes' %.0f IOPS summed and 320 outstanding I/Os by Little's law", jo, sum)
	}
	if !strings.Contains(strings.Join(out.Notes, "\n"), "its disks run as 2 classes") {
		t.Errorf("notes %q, want the 2 classes named", out.Notes)
	}
}

// exactClasses is exact multi-class MVA (the recursion over population
// vectors) over the stations of cells, with Seidmann's split as the
// solver makes it: each class's throughput at populations n.
func exactClasses(cells []*cell, n []int) []float64 {
	C, K := len(cells), len(cells[0].st)
	ms := make([]*mixed, C)
	for c, cl := range cells {
		ms[c] = mix(cl.st, cl.fr, cl.zMix)
	}
	key := func(pop []int) string { return fmt.Sprint(pop) }
	q := map[string][]float64{} // total queue at one copy of each station
	var x []float64
	var walk func(pop []int, c int)
	solveAt := func(pop []int) {
		qq := make([]float64, K)
		x = make([]float64, C)
		for c := range C {
			if pop[c] == 0 {
				continue
			}
			prev := slices.Clone(pop)
			prev[c]--
			pq := q[key(prev)]
			r := ms[c].z
			rk := make([]float64, K)
			for k := range K {
				prevQ := 0.0
				if pq != nil {
					prevQ = pq[k]
				}
				rk[k] = float64(cells[c].st[k].Copies) * ms[c].dq[k] * (1 + prevQ)
				r += rk[k]
			}
			x[c] = float64(pop[c]) / r
			for k := range K {
				qq[k] += x[c] * rk[k] / float64(cells[c].st[k].Copies)
			}
		}
		q[key(pop)] = qq
	}
	// Populations in order of their total, so each one's predecessors are known.
	walk = func(pop []int, c int) {
		if c == C {
			solveAt(pop)
			return
		}
		for v := 0; v <= n[c]; v++ {
			pop[c] = v
			walk(pop, c+1)
		}
	}
	walk(make([]int, C), 0)
	return x
}

// A network small enough for exact multi-class MVA: three VMs on two of
// four hosts, one RAID-1 disk each at iodepth 16, so host a's two disks
// and host b's one are two classes of 32 and 16 I/Os. Bard-Schweitzer is
// within 5 % of the exact answer for each class (2 % when written; no CPU
// overcommit at 48 I/Os: the load-dependent station stays at its base
// demand), and the exact answer for the two classes is more than the one
// class's (by 1.7 % when written: host b's disk is held back by host a's
// two), whose figure was a lower bound.
func TestUnevenClassesAgainstExactMVA(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16}
	in := oneDiskEach([]VM{{Host: "a"}, {Host: "a"}, {Host: "b"}}, Policy{RAID: "raid1", FTT: 1}, job)
	_, cells, err := solveJobs(context.Background(), p, in, false)
	if err != nil {
		t.Fatal(err)
	}
	n := []float64{32, 16}
	if len(cells) != 2 || float64(cells[0].g.outstanding) != n[0] || float64(cells[1].g.outstanding) != n[1] {
		t.Fatalf("%d classes, want 2 of 32 and 16 I/Os", len(cells))
	}
	sol, err := solveClasses(context.Background(), cells, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	exact := exactClasses(cells, []int{32, 16})
	for c := range cells {
		if sol.W[0] != 0 || !(math.Abs(sol.X[c]/exact[c]-1) <= 0.05) || !closeTo(cells[c].result[read].IOPS, sol.X[c]) {
			t.Errorf("class %d: %.0f IOPS (Bard-Schweitzer %.0f), exact %.0f; CPU wait share %g", c, cells[c].result[read].IOPS, sol.X[c], exact[c], sol.W[0])
		}
	}
	one := mustBuild(t, p, in)
	single := exactClasses([]*cell{one}, []int{48})
	if !(exact[0]+exact[1] > 1.01*single[0]) {
		t.Errorf("exact: %.0f IOPS as two classes, %.0f as one; want more as two", exact[0]+exact[1], single[0])
	}
}

// Where the layout is even, or one VM does all the I/O, the job stays one
// class and Solve gives exactly what the one-class network gives (the
// model before jobs split by host): the StorageReview calibration layouts
// and WWT's, one VM with one disk, and VMs whose hosts are not known.
func TestEvenLayoutsStayOneClass(t *testing.T) {
	esa4 := mustLoad(t, "storagereview-r6625-esa")
	esa4.Storage.CapacityDevices = 4
	jobs := []*fio.Job{
		{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16},
		{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 8192, IODepth: 16},
		{IOEngine: "libaio", Direct: true, RW: "write", BlockSize: 1 << 20, IODepth: 8},
	}
	type layout struct {
		name string
		p    *testbed.Profile
		in   func(job *fio.Job) Input
	}
	even := func(p *testbed.Profile, pol Policy) func(job *fio.Job) Input {
		return func(job *fio.Job) Input { return uniformInput(p, pol, job) }
	}
	sr := mustLoad(t, "storagereview-r6625-esa")
	layouts := []layout{
		{"storagereview raid1", sr, even(sr, Policy{RAID: "raid1", FTT: 1})},
		{"storagereview raid5", sr, even(sr, Policy{RAID: "raid5", FTT: 1})},
		{"storagereview 4 ssds raid5", esa4, even(esa4, Policy{RAID: "raid5", FTT: 1})},
		{"wwt raid6", mustLoad(t, "wwt-r640-osa"), even(mustLoad(t, "wwt-r640-osa"), Policy{RAID: "raid6", FTT: 2})},
		{"one vm one disk", sr, func(job *fio.Job) Input {
			return oneDiskEach([]VM{{Host: "a"}}, Policy{RAID: "raid1", FTT: 1}, job)
		}},
		{"hosts not known", sr, func(job *fio.Job) Input {
			in := fiveOnFour(job)
			for i := range in.VMs {
				in.VMs[i].Host = ""
			}
			return in
		}},
	}
	for _, l := range layouts {
		for _, job := range jobs {
			in := l.in(job)
			got, cells, err := solveJobs(context.Background(), l.p, in, false)
			if err != nil {
				t.Fatal(err)
			}
			want, err := solveCell(context.Background(), l.p, in, mustBuild(t, l.p, in))
			if err != nil {
				t.Fatal(err)
			}
			if len(cells) != 1 || !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: %d classes, %.0f IOPS; one class %.0f", l.name, job.RW, len(cells), total(got), total(want))
			}
		}
	}
}

// Concurrent jobs on an uneven layout are job x group classes: each job's
// figures are its classes' summed, with Little's law on its own
// outstanding I/Os, and the jobs together sum them.
func TestConcurrentJobsOnAnUnevenLayout(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	in := fiveOnFour(nil)
	w := *in.Jobs[0].Job
	w.RW, w.IODepth = "randwrite", 4
	in.Jobs = []JobLoad{{Name: "r", Job: in.Jobs[0].Job, Disks: in.Jobs[0].Disks}, {Name: "w", Job: &w, Disks: in.Jobs[0].Disks}}
	out, cells, err := solveJobs(context.Background(), p, in, false)
	if err != nil {
		t.Fatal(err)
	}
	var per [2]float64
	var last int
	for i, c := range cells {
		if c.index < last {
			t.Errorf("class %d of job %d after job %d's: want the jobs' classes in order", i, c.index, last)
		}
		last = c.index
		per[c.index] += c.result[read].IOPS + c.result[write].IOPS
	}
	if len(cells) != 4 {
		t.Errorf("%d classes, want each job's two (host a's disks, the others')", len(cells))
	}
	for j, jo := range out.Jobs {
		d := [2]Direction{jo.Read, jo.Write}[j]
		if !closeTo(d.IOPS, per[j]) || !(math.Abs(d.LatMeanUs*d.IOPS/1e6/float64(jo.Outstanding)-1) <= 1e-9) {
			t.Errorf("job %s: %+v, want its classes' %.0f IOPS and Little's law on %d I/Os", jo.Name, d, per[j], jo.Outstanding)
		}
	}
	if !closeTo(out.Read.IOPS, out.Jobs[0].Read.IOPS) || !closeTo(out.Write.IOPS, out.Jobs[1].Write.IOPS) {
		t.Errorf("together %+v / %+v, want the jobs'", out.Read, out.Write)
	}
}

// A job alone with latency_target on an uneven layout: every disk's fio
// job profiles its own depth, so each class settles at its own: host a's
// two disks (DOM-bound) at a lower depth than the other hosts' (16 and 28
// of 64 when written, one class 19), each within the target at its depth,
// and the job does more than the one class whose depth the busiest host
// set for every disk (400k IOPS against 333k when written).
func TestLatencyTargetOnAnUnevenLayoutPerClass(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 64,
		Options: []fio.Option{{Key: "latency_target", Value: "600us"}}}
	in := fiveOnFour(job)
	out, cells, err := solveJobs(context.Background(), p, in, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 2 {
		t.Fatalf("%d classes, want 2", len(cells))
	}
	depth := func(c *cell) int { return c.g.fioOutstanding / len(c.job.Disks) }
	a, rest := depth(cells[0]), depth(cells[1])
	notes := strings.Join(out.Notes, "\n")
	if !(a < rest) || rest >= 64 || a < 1 || strings.Count(notes, "which meets it") != 2 {
		t.Errorf("depths %d (host a) and %d (the others) of 64, notes %q; want host a's lower, both meeting the target", a, rest, out.Notes)
	}
	for _, c := range cells {
		if p99 := c.result[read].P99Us; p99 > 600 {
			t.Errorf("class of %d disks at depth %d: p99 %.0f us, want within 600", len(c.job.Disks), depth(c), p99)
		}
	}
	one, err := solveCell(context.Background(), p, in, mustBuild(t, p, in))
	if err != nil {
		t.Fatal(err)
	}
	if !(total(out) > total(one)) {
		t.Errorf("%.0f IOPS by class, %.0f as one class; want more by class", total(out), total(one))
	}
}

// An uneven cell at 65,536-scale: 33 VMs x 8 disks on StorageReview's 4
// hosts (9 VMs on the first), virtual NVMe at iodepth 248 (65,472 I/Os),
// solved as classes by host with Bard-Schweitzer.
func BenchmarkSolveCellUnevenN65536(b *testing.B) {
	p := mustLoad(b, "storagereview-r6625-esa")
	in := UniformInput(p, 33, 8, Policy{RAID: "raid5"}, &fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 8192, IODepth: 248})
	for i := range in.VMs {
		in.VMs[i].Controller = testbed.VNVMe
	}
	_, cells, err := solveJobs(context.Background(), p, in, false)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, c := range cells {
		n += c.g.outstanding
	}
	if len(cells) < 2 || n != 33*8*248 {
		b.Fatalf("%d classes holding %d outstanding I/Os, want several holding %d", len(cells), n, 33*8*248)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Solve(context.Background(), p, in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(cells)), "classes")
}

// The data plane's rows on an uneven layout carry each disk's class: five
// workers on four hosts, the two on host a each do less than the others
// (held by host a's DOM worlds), and the rows still add up to the
// aggregate, latencies weighted by I/Os; a scenario's rows as the run's;
// an even layout's rows are equal.
func TestPlaneRowsCarryTheirClass(t *testing.T) {
	pl, _ := newTestPlane(t)
	ctx := context.Background()
	ws := workers(5, 1, "r1")
	for i, h := range []string{"a", "b", "c", "d", "a"} {
		ws[i].Host = h
	}
	pl.src.(*memSource).policies["r1"] = Policy{RAID: "raid1", FTT: 1}
	prepareRandom(ctx, t, pl, ws)
	job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16, NumJobs: 4, RuntimeSec: 60}
	res, err := pl.Run(ctx, ws, fio.NewWorkload(job), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 5 || len(res.Aggregate) != 1 {
		t.Fatalf("%d rows, %d aggregate rows; want 5 and 1", len(res.Rows), len(res.Aggregate))
	}
	iops, lat := 0.0, 0.0
	for _, r := range res.Rows {
		iops += r.IOPS
		lat += r.IOPS * r.LatMeanUs
	}
	agg := res.Aggregate[0]
	if !(math.Abs(iops/agg.IOPS-1) <= 1e-9) || !(math.Abs(lat/iops/agg.LatMeanUs-1) <= 1e-9) {
		t.Errorf("rows: %.0f IOPS at %.1f us, aggregate %.0f at %.1f", iops, lat/iops, agg.IOPS, agg.LatMeanUs)
	}
	a, b := res.Rows[0], res.Rows[1]
	if res.Rows[4].IOPS != a.IOPS || !(a.IOPS < 0.8*b.IOPS) || !(a.LatMeanUs > b.LatMeanUs) || res.Rows[2].IOPS != b.IOPS {
		t.Errorf("host a's rows %.0f IOPS at %.0f us (and %.0f), host b's %.0f at %.0f us (c's %.0f); want a's slower", a.IOPS, a.LatMeanUs, res.Rows[4].IOPS, b.IOPS, b.LatMeanUs, res.Rows[2].IOPS)
	}
	// A scenario's intervals too.
	job.TimeBased = true
	s := pl.Scenario(ws, &job, nil)
	if _, _, err := s.Step(ctx, 0, 60, nil); err != nil {
		t.Fatal(err)
	}
	sc, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Rows) != 5 || !(sc.Rows[0].IOPS < 0.8*sc.Rows[1].IOPS) || !(math.Abs(sc.Rows[0].IOPS/a.IOPS-1) <= 1e-9) {
		t.Errorf("scenario rows %+v, want host a's slower, as the run's", sc.Rows)
	}
	for i := range ws {
		ws[i].Host = fmt.Sprintf("h%d", i%4)
	}
	even, err := pl.Run(ctx, ws[:4], fio.NewWorkload(job), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range even.Rows {
		if r.IOPS != even.Rows[0].IOPS || r.LatMeanUs != even.Rows[0].LatMeanUs {
			t.Errorf("even layout: rows %+v, want them equal", even.Rows)
			break
		}
	}
}

// Classes keep the model deterministic: the same uneven input solved
// twice gives the same output, to the bit (five VMs on four hosts; WWT's
// 24 hosts with 37 VMs, OSA, burst and steady).
func TestUnevenLayoutIsDeterministic(t *testing.T) {
	wwt := mustLoad(t, "wwt-r640-osa")
	for _, tc := range []struct {
		p  *testbed.Profile
		in Input
	}{
		{mustLoad(t, "storagereview-r6625-esa"), fiveOnFour(nil)},
		{wwt, UniformInput(wwt, 37, 3, Policy{RAID: "raid6", FTT: 2}, &fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 4096, IODepth: 16})},
	} {
		a, b := solve(t, tc.p, tc.in), solve(t, tc.p, tc.in)
		if !reflect.DeepEqual(a, b) || len(a.Jobs[0].Classes) != 2 {
			t.Errorf("%s: %.0f IOPS then %.0f, %d classes; want the same twice, 2 classes", tc.p.Name, total(a), total(b), len(a.Jobs[0].Classes))
		}
	}
}

// The multi-class solution with extrapolation is the Bard-Schweitzer fixed
// point: one more plain step from it moves no class's throughput by more
// than the convergence allows. WWT's 24 hosts with 37 VMs x 3 RAID-6
// disks, 70/30: two classes sharing saturated stations, where the plain
// iteration took 1,671 steps (1.4 ms with extrapolation against 6.8 ms
// when written).
func TestExtrapolatedClassesAreTheFixedPoint(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	in := UniformInput(p, 37, 3, Policy{RAID: "raid6", FTT: 2}, &fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 4096, IODepth: 16})
	cells, _, err := buildNetwork(p, in, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	var n []float64
	for _, c := range cells {
		n = append(n, float64(c.g.outstanding))
	}
	sol, err := solveClasses(context.Background(), cells, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 2 {
		t.Fatalf("%d classes, want 2", len(cells))
	}
	for c, cl := range cells {
		m := mix(cl.st, cl.fr, cl.zMix)
		r := m.z
		for k := range cl.st {
			seen := sol.seenBy(c, n)[k]
			r += float64(cl.st[k].Copies) * (m.dq[k] + sol.W[k]*m.extraQ[k]) * (1 + seen)
			r += sol.W[k] * m.extraZ[k]
		}
		if x := float64(n[c]) / r; !(math.Abs(x/sol.X[c]-1) <= 1e-5) {
			t.Errorf("class %d: %.0f IOPS, one more step %.0f", c, sol.X[c], x)
		}
	}
}

// fio's rates cap each class of an uneven layout on its own disks: five
// VMs on four hosts at rate_iops=12,000 a fio job, numjobs 4 (48,000 a
// disk), do 240,000 IOPS, each class at its cap (free, host a's two disks
// do 137k and the other three 327k); a cap that does not bind gives the
// free run.
func TestUnevenClassesKeepTheirRates(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16, NumJobs: 4, RateIOPS: 12000}
	out := solve(t, p, fiveOnFour(job))
	if len(out.Jobs[0].Classes) != 2 {
		t.Fatalf("%d classes, want 2", len(out.Jobs[0].Classes))
	}
	for _, c := range out.Jobs[0].Classes {
		if want := float64(len(c.Disks)) * 4 * 12000; !(math.Abs(c.Read.IOPS/want-1) <= 1e-6) {
			t.Errorf("class of %d disks: %.0f IOPS, want its cap %.0f", len(c.Disks), c.Read.IOPS, want)
		}
	}
	free := solve(t, p, fiveOnFour(nil))
	job.RateIOPS = 1e6
	loose := solve(t, p, fiveOnFour(job))
	if !(math.Abs(total(loose)/total(free)-1) <= 1e-9) || !(math.Abs(out.Read.IOPS-5*4*12000) <= 1e-6) {
		t.Errorf("capped %.0f IOPS (want 240,000); a cap that does not bind %.0f, free %.0f", out.Read.IOPS, total(loose), total(free))
	}
}

// A job whose rate only binds once another job is held to its own: the
// reads beside free writes stay under their rate, but once the writes are
// held at theirs the reads would pass it. They run at their rate with the
// fewest outstanding I/Os that reach it (so their latency is that of the
// I/Os, not of fio's full queue waiting behind the rate), as they do
// beside the held writes with their rate alone.
func TestAJobsRateThatBindsOnceAnotherIsHeld(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	pol := Policy{RAID: "raid1"}
	reads := func(rate int) *fio.Job {
		return &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16, RateIOPS: rate}
	}
	writes := func(rate int) *fio.Job {
		return &fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 16, RateIOPS: rate}
	}
	disks := float64(len(split(p, pol, reads(0), writes(0)).Jobs[0].Disks))
	contended := solve(t, p, split(p, pol, reads(0), writes(0))).Jobs[0].Read.IOPS
	relieved := solve(t, p, split(p, pol, reads(0), writes(5))).Jobs[0].Read.IOPS
	if relieved < 1.2*contended {
		t.Fatalf("reads beside free writes %.0f IOPS, beside held ones %.0f: the test needs the held writes to free the reads", contended, relieved)
	}
	rate := int((contended + relieved) / 2 / disks)
	out := solve(t, p, split(p, pol, reads(rate), writes(5)))
	got := out.Jobs[0].Read
	if want := float64(rate) * disks; !(math.Abs(got.IOPS-want) <= 1e-6*want) {
		t.Errorf("reads at rate_iops=%d on %.0f disks: %.1f IOPS, want %.0f", rate, disks, got.IOPS, want)
	}
	queued := float64(out.Jobs[0].Outstanding) / got.IOPS * 1e6 // fio's whole queue at the rate
	if got.LatMeanUs > queued/2 {
		t.Errorf("reads at their rate: %.0f us mean latency, near the %.0f us of fio's whole queue at that rate; want the latency of the fewest I/Os that reach it", got.LatMeanUs, queued)
	}
}

// Beside another job, a mixed job's rates settle its mix as alone (fio's
// rate_ddir): writes capped at 5 per clone (2 clones on each of 64 disks,
// 640), reads free, so the job's reads take the writes' turns.
func TestConcurrentMixedJobFollowsItsRates(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	reads := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16}
	mixed := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 4096, IODepth: 16, NumJobs: 2}
	free := solve(t, p, split(p, Policy{RAID: "raid1"}, reads, mixed))
	limited := *mixed
	limited.Options = []fio.Option{{Key: "rate_iops", Value: ",5"}}
	out := solve(t, p, split(p, Policy{RAID: "raid1"}, reads, &limited))
	if got := out.Jobs[1].Write.IOPS; !(math.Abs(got-640) <= 1e-6*640) {
		t.Errorf("rate_iops=,5, numjobs=2 on 64 disks beside another job: %.3f writes a second, want 640", got)
	}
	if out.Jobs[1].Read.IOPS <= free.Jobs[1].Read.IOPS {
		t.Errorf("reads of the mixed job with writes capped: %.0f a second, without the cap %.0f; want more (the writes' turns pass to reads)", out.Jobs[1].Read.IOPS, free.Jobs[1].Read.IOPS)
	}
	if !strings.Contains(strings.Join(out.Notes, "\n"), "b: the rates move the 70/30 mix to") {
		t.Errorf("notes %q do not say where job b's mix settled", out.Notes)
	}
}

// Two mixed jobs with their writes capped share a saturated cluster: each
// settles where its writes run at their rate, whichever settles first (the
// second one's mix moves the first one's capacity, so the first is settled
// again).
func TestTwoMixedJobsSettleTogether(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := func(reads int, cap string) *fio.Job {
		return &fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: reads, BlockSize: 4096, IODepth: 32,
			Options: []fio.Option{{Key: "rate_iops", Value: cap}}}
	}
	in := split(p, Policy{RAID: "raid1"}, job(70, ",200"), job(50, ",50"))
	out := solve(t, p, in)
	for j, want := range []float64{200, 50} {
		clones := float64(len(in.Jobs[j].Disks))
		if got := out.Jobs[j].Write.IOPS / clones; math.Abs(got-want) > 1e-3*want {
			t.Errorf("job %s: %.3f writes a second per disk, want its rate %g", in.Jobs[j].Name, got, want)
		}
	}
}

// At a station each job has its own copy of (the guest), an I/O sees its
// own job's queue there, not another job's; elsewhere everyone's
// (Bard-Schweitzer: less a share of its own class's).
func TestClassesSeeOtherJobsOnlyAtSharedStations(t *testing.T) {
	sol := classSolution{
		Q:      [][]float64{{4, 4}, {2, 2}, {8, 8}}, // classes 0 and 1 of job 0, class 2 of job 1
		W:      make([]float64, 2),
		job:    []int{0, 0, 1},
		perJob: []bool{false, true}, // station 1 is each job's own
	}
	n := []float64{4, 4, 8}
	got := sol.seenBy(0, n)
	if want := []float64{4 + 2 + 8 - 1, 4 + 2 - 1}; !slices.Equal(got, want) {
		t.Errorf("class 0 sees %v, want %v (everyone's at the shared station, its job's at its own)", got, want)
	}
	if got, want := sol.seenBy(2, n)[1], 8.0-1; got != want {
		t.Errorf("job 1's class sees %g at its own station, want %g", got, want)
	}
}
