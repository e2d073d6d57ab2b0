package model

import (
	"context"
	"math"
	"strings"
	"testing"

	"starbench/internal/fio"
)

// solveLimited solves a 4K (or bs) random read of depth 64 on one RAID-1
// disk of each of vms VMs on StorageReview's 4 hosts (in turn), the
// disks' policy pol.
func solveLimited(t *testing.T, vms int, pol Policy, job *fio.Job) *Output {
	t.Helper()
	var vv []VM
	for v := range vms {
		vv = append(vv, VM{Host: string(rune('a' + v%4))})
	}
	out, err := Solve(t.Context(), mustLoad(t, "storagereview-r6625-esa"), oneDiskEach(vv, pol, job))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func randRead(bs int64) *fio.Job {
	return &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: bs, IODepth: 64}
}

func hasNote(out *Output, part string) bool {
	for _, n := range out.Notes {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

// vSAN's IOPS limit caps each object at the limit, counted in 32 KiB
// units (a 64K I/O counts twice); vSAN delays the I/Os above it, so fio
// keeps its 64 outstanding and their latency is 64 over the disk's rate
// (Little's law). Even (4 VMs on 4 hosts) and uneven (5 on 4: classes)
// layouts alike.
func TestIOPSLimitCapsEachObject(t *testing.T) {
	for _, c := range []struct {
		vms      int
		bs       int64
		perDisk  float64
		scenario string
	}{
		{4, 4096, 5000, "4K, even"},
		{4, 64 << 10, 2500, "64K counts 2 units"},
		{5, 4096, 5000, "4K, uneven (classes)"},
	} {
		out := solveLimited(t, c.vms, Policy{RAID: "raid1", IOPSLimit: 5000}, randRead(c.bs))
		want := float64(c.vms) * c.perDisk
		if math.Abs(out.Read.IOPS-want) > 1e-6*want {
			t.Errorf("%s: %.1f IOPS, want %g (%g a disk)", c.scenario, out.Read.IOPS, want, c.perDisk)
		}
		if lat := 64 / c.perDisk * 1e6; math.Abs(out.Read.LatMeanUs-lat) > 0.01*lat {
			t.Errorf("%s: mean latency %.0f us, want %.0f (64 outstanding at %g IOPS)", c.scenario, out.Read.LatMeanUs, lat, c.perDisk)
		}
		if !hasNote(out, "IOPS limit (5000") {
			t.Errorf("%s: notes %q, want the IOPS limit's", c.scenario, out.Notes)
		}
	}
	// A limit above what the disks do changes nothing and says nothing.
	free, high := solveLimited(t, 4, Policy{RAID: "raid1"}, randRead(4096)), solveLimited(t, 4, Policy{RAID: "raid1", IOPSLimit: 1_000_000}, randRead(4096))
	if free.Read != high.Read || hasNote(high, "IOPS limit") {
		t.Errorf("a limit above the disks' rate: %+v, without one %+v; notes %q", high.Read, free.Read, high.Notes)
	}
	// fio's own rate below the limit holds: fio does not issue the I/Os,
	// so nothing waits in vSAN.
	job := randRead(4096)
	job.Options = []fio.Option{{Key: "rate_iops", Value: "3000"}}
	out := solveLimited(t, 4, Policy{RAID: "raid1", IOPSLimit: 5000}, job)
	if math.Abs(out.Read.IOPS-12000) > 1e-6*12000 || out.Read.LatMeanUs > 1000 || hasNote(out, "IOPS limit") {
		t.Errorf("rate_iops=3000 under a 5000 limit: %.1f IOPS at %.0f us, notes %q; want 12000 at the unloaded latency, no limit note", out.Read.IOPS, out.Read.LatMeanUs, out.Notes)
	}
}

// vSAN's "Disable object checksum" rule takes the CRC-32C's cycles off the
// DOM's work per byte: a 4K read's DOM demand falls by exactly 4096 x
// checksum_cycles_per_byte, nothing else moves.
func TestChecksumDisabledSavesItsCycles(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := randRead(4096)
	on := mustBuild(t, p, oneDiskEach([]VM{{Host: "a"}}, Policy{RAID: "raid1"}, job))
	off := mustBuild(t, p, oneDiskEach([]VM{{Host: "a"}}, Policy{RAID: "raid1", ChecksumDisabled: true}, job))
	saved := 4096 * p.Model.ChecksumCyclesPerByte.Value / (p.CPU.Clock() * 1e9)
	if got := stationsNamed(on, "vsan-dom")[0].D[read] - stationsNamed(off, "vsan-dom")[0].D[read]; !closeTo(got, saved) {
		t.Errorf("vsan-dom per 4K read: %.4g s less without checksum, want %.4g", got, saved)
	}
	for _, name := range []string{"guest", "ssd-capacity", "nic-rx", "nic-tx"} {
		a, b := stationsNamed(on, name), stationsNamed(off, name)
		for i := range a {
			if a[i].D != b[i].D {
				t.Errorf("%s: %v with checksum, %v without; want the same", name, a[i].D, b[i].D)
			}
		}
	}
}

// limitedPlane is a plane on StorageReview with 4 workers of 2 disks
// written at random, their policy RAID-1 with an IOPS limit of 2,000.
func limitedPlane(t *testing.T) (*Plane, []fio.Worker) {
	t.Helper()
	src := &memSource{policies: map[string]Policy{"lim": {RAID: "raid1", FTT: 1, IOPSLimit: 2000}}}
	pl := NewPlane(mustLoad(t, "storagereview-r6625-esa"), src).(*Plane)
	ws := workers(4, 2, "lim")
	if err := pl.Prepare(context.Background(), ws, fio.Prep{Method: "random"}, nil); err != nil {
		t.Fatal(err)
	}
	return pl, ws
}

// vSAN's IOPS limit is the object's, not a job's: jobs running at once on
// the same disks share each disk's limit, in proportion to the I/Os each
// keeps outstanding there (vSAN delays the object's I/Os above the limit
// in turn, so each job's rate is its share of the I/Os waiting). Two jobs
// at depths 48 and 16 on 8 disks under a 2,000 limit: 12,000 and 4,000
// IOPS, 16,000 together as one job would do; both wait the same, 64 I/Os
// over a disk's 2,000 a second.
func TestIOPSLimitIsSharedByJobsOnTheSameDisks(t *testing.T) {
	ctx := context.Background()
	pl, ws := limitedPlane(t)
	a := fio.Job{Name: "a", IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 48, RuntimeSec: 60}
	b := a
	b.Name, b.IODepth = "b", 16
	res, err := pl.Run(ctx, ws, &fio.Workload{Name: "ab", Jobs: []fio.Job{a, b}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"a": 12000, "b": 4000}
	for _, r := range res.Aggregate {
		w, ok := want[r.Job]
		if !ok || r.Direction != "read" {
			continue
		}
		delete(want, r.Job)
		if math.Abs(r.IOPS-w) > 1e-6*w {
			t.Errorf("job %s: %.1f IOPS, want %g (its share of 8 disks x 2,000)", r.Job, r.IOPS, w)
		}
		if lat := 64.0 / 2000 * 1e6; math.Abs(r.LatMeanUs-lat) > 0.01*lat {
			t.Errorf("job %s: mean latency %.0f us, want %.0f (the 64 I/Os waiting on a disk at 2,000 a second)", r.Job, r.LatMeanUs, lat)
		}
	}
	if len(want) > 0 {
		t.Errorf("no read aggregate for jobs %v in %+v", want, res.Aggregate)
	}
}

// A job that fio's own rate holds below its share of a disk's IOPS limit
// leaves the rest to the other jobs on the disk (vSAN delays only the I/Os
// above the object's limit): at rate_iops=500 beside a free job on 8 disks
// under a 2,000 limit, 4,000 and 12,000 IOPS, 16,000 together.
func TestIOPSLimitLeftByARateLimitedJob(t *testing.T) {
	ctx := context.Background()
	pl, ws := limitedPlane(t)
	a := fio.Job{Name: "a", IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 48, RuntimeSec: 60,
		Options: []fio.Option{{Key: "rate_iops", Value: "500"}}}
	b := fio.Job{Name: "b", IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16, RuntimeSec: 60}
	res, err := pl.Run(ctx, ws, &fio.Workload{Name: "ab", Jobs: []fio.Job{a, b}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"a": 4000, "b": 12000}
	for _, r := range res.Aggregate {
		if w, ok := want[r.Job]; ok && r.Direction == "read" {
			delete(want, r.Job)
			if math.Abs(r.IOPS-w) > 1e-6*w {
				t.Errorf("job %s: %.1f IOPS, want %g", r.Job, r.IOPS, w)
			}
			if r.Job == "a" && r.LatMeanUs > 1000 {
				t.Errorf("job a: mean latency %.0f us, want the unloaded latency: fio's rate holds it, vSAN delays none of its I/Os", r.LatMeanUs)
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("no read aggregate for jobs %v", want)
	}
}

// A mixed job held by fio's rates on both directions takes both rates of
// the disk's IOPS limit, where fio settles its mix, and leaves the rest:
// randrw 70/30 at rate_iops=500,100 does 500 reads and 100 writes a second
// on each disk (70/30 would hold it at 333), so beside a free job on 8
// disks under a 2,000 limit it does 4,000 and 800, and the free job the
// other 1,400 a disk, 11,200: 16,000 together, the limit.
func TestIOPSLimitLeftByASettledMixedJob(t *testing.T) {
	ctx := context.Background()
	pl, ws := limitedPlane(t)
	a := fio.Job{Name: "a", IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 4096, IODepth: 48, RuntimeSec: 60,
		Options: []fio.Option{{Key: "rate_iops", Value: "500,100"}}}
	b := fio.Job{Name: "b", IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16, RuntimeSec: 60}
	res, err := pl.Run(ctx, ws, &fio.Workload{Name: "ab", Jobs: []fio.Job{a, b}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[[2]string]float64{{"a", "read"}: 4000, {"a", "write"}: 800, {"b", "read"}: 11200}
	for _, r := range res.Aggregate {
		k := [2]string{r.Job, r.Direction}
		if w, ok := want[k]; ok {
			delete(want, k)
			if math.Abs(r.IOPS-w) > 1e-3*w {
				t.Errorf("job %s %s: %.1f IOPS, want %g", r.Job, r.Direction, r.IOPS, w)
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("no aggregate for %v in %+v", want, res.Aggregate)
	}
}
