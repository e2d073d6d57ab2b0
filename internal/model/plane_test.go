package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"starbench/internal/deepcopy"
	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// memSource is a StateSource held in memory; the real ones read vcsim or a
// vCenter (internal/sim, internal/vsphere) and are tested there.
type memSource struct {
	state    ClusterState
	policies map[string]Policy
}

func (m *memSource) ClusterState(context.Context) (ClusterState, error) { return m.state, nil }

func (m *memSource) Policy(_ context.Context, name string) (Policy, error) {
	p, ok := m.policies[name]
	if !ok {
		return Policy{}, fmt.Errorf("no storage policy %q", name)
	}
	return p, nil
}

func workers(n, disks int, policy string) []fio.Worker {
	var ws []fio.Worker
	for i := range n {
		w := fio.Worker{Name: fmt.Sprintf("w%d", i), Simulated: true}
		for j := range disks {
			w.Disks = append(w.Disks, fio.Disk{Name: fmt.Sprintf("disk%d", j+1), SizeBytes: 50 << 30, Policy: policy})
		}
		ws = append(ws, w)
	}
	return ws
}

func newTestPlane(t *testing.T, opts ...Option) (*Plane, *memSource) {
	src := &memSource{policies: map[string]Policy{"r5": {RAID: "raid5", FTT: 1}, "r6": {RAID: "raid6", FTT: 2}}}
	return NewPlane(mustLoad(t, "storagereview-r6625-esa"), src, opts...).(*Plane), src
}

// runJob runs job alone on ws, failing the test on an error.
func runJob(t *testing.T, pl *Plane, ws []fio.Worker, job fio.Job) *fio.Result {
	t.Helper()
	res, err := pl.Run(context.Background(), ws, fio.NewWorkload(job), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestPlaneRunShape(t *testing.T) {
	pl, _ := newTestPlane(t)
	ctx := context.Background()
	ws := workers(4, 2, "r5")
	prepareRandom(ctx, t, pl, ws)
	res, err := pl.Run(ctx, ws, fio.NewWorkload(fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 8192, IODepth: 16, RuntimeSec: 60}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Model != Version || res.Testbed != "storagereview-r6625-esa" {
		t.Errorf("result made by model %q on testbed %q; want %q on storagereview-r6625-esa", res.Model, res.Testbed, Version)
	}
	// As fio's own rows (docs/BUILTINS.md, fio.run): read, write and, where
	// a job moved both, a total row per disk and in the aggregate.
	if !res.Simulated || len(res.Rows) != 4*2*3 || len(res.Aggregate) != 3 {
		t.Fatalf("simulated %v, %d rows, %d aggregate; want true, 24, 3", res.Simulated, len(res.Rows), len(res.Aggregate))
	}
	var sum [3]float64
	perDisk := map[string][3]fio.Row{}
	for _, r := range res.Rows {
		if !r.Simulated || r.Worker == "" || r.Disk == "" {
			t.Errorf("row %+v", r)
		}
		i := slices.Index([]string{"read", "write", "total"}, r.Direction)
		sum[i] += r.IOPS
		d := perDisk[r.Worker+"/"+r.Disk]
		d[i] = r
		perDisk[r.Worker+"/"+r.Disk] = d
	}
	for disk, d := range perDisk {
		lat := (d[0].LatMeanUs*d[0].IOPS + d[1].LatMeanUs*d[1].IOPS) / (d[0].IOPS + d[1].IOPS)
		if math.Abs(d[2].IOPS/(d[0].IOPS+d[1].IOPS)-1) > 1e-9 || math.Abs(d[2].MBps/(d[0].MBps+d[1].MBps)-1) > 1e-9 || math.Abs(d[2].LatMeanUs/lat-1) > 1e-9 {
			t.Errorf("%s: total %+v from read %+v and write %+v", disk, d[2], d[0], d[1])
		}
		if !math.IsNaN(d[2].P99Us) {
			t.Errorf("%s: total p99 %g; the model has no merged histogram to give one", disk, d[2].P99Us)
		}
	}
	for i, a := range res.Aggregate {
		if !a.Simulated || a.Worker != "" || math.Abs(sum[i]/a.IOPS-1) > 1e-9 {
			t.Errorf("aggregate %+v; rows sum to %g", a, sum[i])
		}
	}
	if math.Abs(res.Aggregate[2].IOPS/(res.Aggregate[0].IOPS+res.Aggregate[1].IOPS)-1) > 1e-9 {
		t.Errorf("aggregate total %+v is not read + write", res.Aggregate[2])
	}
	notes := strings.Join(res.Notes, "\n")
	for _, want := range []string{"simulated by " + Version + " on testbed storagereview-r6625-esa", "bottleneck: ", "total rows"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
}

// Reads of unprepared disks are metadata-only, and the plane says the result
// breaks physical bounds; a full sequential write then makes them real.
func TestPlanePrepStateMatters(t *testing.T) {
	pl, _ := newTestPlane(t)
	ctx := context.Background()
	ws := workers(16, 8, "r5")
	readJob := &fio.Job{IOEngine: "libaio", Direct: true, RW: "read", BlockSize: 1 << 20, IODepth: 8, RuntimeSec: 60}
	fresh, err := pl.Run(ctx, ws, fio.NewWorkload(*readJob), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Sequential write of every disk's whole size (not time based).
	if _, err := pl.Run(ctx, ws, fio.NewWorkload(fio.Job{IOEngine: "libaio", Direct: true, RW: "write", BlockSize: 1 << 20, IODepth: 8}), nil); err != nil {
		t.Fatal(err)
	}
	written, err := pl.Run(ctx, ws, fio.NewWorkload(*readJob), nil)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Aggregate[0].MBps < 1.2*written.Aggregate[0].MBps {
		t.Errorf("reads of unprepared disks %.0f MB/s vs written %.0f MB/s; want much faster", fresh.Aggregate[0].MBps, written.Aggregate[0].MBps)
	}
	if !strings.Contains(strings.Join(fresh.Notes, "\n"), "100 % of the blocks read were never written") {
		t.Errorf("unprepared read notes do not say the blocks were never written: %q", fresh.Notes)
	}
	if notes := strings.Join(written.Notes, "\n"); strings.Contains(notes, "exceeds") || strings.Contains(notes, "never written") {
		t.Errorf("written read notes warn: %q", written.Notes)
	}
}

func TestPlaneReadsStateAndPolicies(t *testing.T) {
	pl, src := newTestPlane(t)
	ctx := context.Background()
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 4}
	if _, err := pl.Run(ctx, workers(2, 1, "r6"), fio.NewWorkload(*job), nil); err == nil || !strings.Contains(err.Error(), "raid6 (4+2) needs at least 6 hosts") {
		t.Errorf("raid6 on 4 hosts: %v", err)
	}
	if _, err := pl.Run(ctx, workers(2, 1, "gold"), fio.NewWorkload(*job), nil); err == nil || !strings.Contains(err.Error(), `disk disk1 of w0: policy "gold": no storage policy "gold"`) {
		t.Errorf("unknown policy: %v", err)
	}
	res, err := pl.Run(ctx, workers(2, 1, ""), fio.NewWorkload(*job), nil)
	if err != nil || !strings.Contains(strings.Join(res.Notes, "\n"), "raid1 ftt 1 (vSAN default)") {
		t.Errorf("no policy: %v %q", err, res.Notes)
	}
	src.state.Uplink = "400g"
	if _, err := pl.Run(ctx, workers(2, 1, "r5"), fio.NewWorkload(*job), nil); err == nil || !strings.Contains(err.Error(), `uplink "400g"`) {
		t.Errorf("bad uplink from the control plane: %v", err)
	}
}

func TestPlaneErrors(t *testing.T) {
	pl, _ := newTestPlane(t)
	ctx := context.Background()
	if err := pl.Prepare(ctx, workers(1, 1, ""), fio.Prep{Method: "ones"}, nil); err == nil || err.Error() != `prepare method "ones": want random, zero or none` {
		t.Errorf("bad prep: %v", err)
	}
	// What real fio refuses, the model refuses too: a script checked on the
	// embedded target must not fail on a vCenter.
	for prep, want := range map[fio.Prep]string{
		{Method: "zero", CompressPercentage: 50}: "a zero fill always compresses fully",
		{Method: "none", Age: true}:              "aging needs a fill first",
		{Method: "random", BlockSize: 1000}:      "prepare block size 1000: want a multiple of 512 bytes",
	} {
		if err := pl.Prepare(ctx, workers(1, 1, ""), prep, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v, want an error containing %q", prep, err, want)
		}
	}
	if _, err := pl.Run(ctx, workers(2, 0, ""), fio.NewWorkload(fio.Job{IOEngine: "libaio", Direct: true, RW: "read"}), nil); err == nil || !strings.Contains(err.Error(), "no data disks") {
		t.Errorf("no disks: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := pl.Prepare(cancelled, workers(1, 1, ""), fio.Prep{Method: "zero"}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled prepare: %v", err)
	}
}

func TestPlaneNoiseIsSeeded(t *testing.T) {
	ctx := context.Background()
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16}
	run := func(pl *Plane) []float64 {
		var xs []float64
		for range 3 {
			res, err := pl.Run(ctx, workers(4, 2, "r5"), fio.NewWorkload(*job), nil)
			if err != nil {
				t.Fatal(err)
			}
			xs = append(xs, res.Aggregate[0].IOPS)
		}
		return xs
	}
	quiet, _ := newTestPlane(t)
	q := run(quiet)
	if q[0] != q[1] || q[1] != q[2] {
		t.Errorf("no-noise runs differ: %v", q)
	}
	a, _ := newTestPlane(t, WithNoise(7))
	b, _ := newTestPlane(t, WithNoise(7))
	c, _ := newTestPlane(t, WithNoise(8))
	ra, rb, rc := run(a), run(b), run(c)
	if fmt.Sprint(ra) != fmt.Sprint(rb) || fmt.Sprint(ra) == fmt.Sprint(rc) || ra[0] == ra[1] {
		t.Errorf("seed 7: %v and %v, seed 8: %v; want equal, different, and spread", ra, rb, rc)
	}
	for _, x := range ra {
		if math.Abs(x/q[0]-1) > 0.061 {
			t.Errorf("noisy %g vs quiet %g: beyond 3 x noise_cv", x, q[0])
		}
	}
}

// The noise moves a run's loads with its throughput: every utilisation
// and each host's rates by the run's own factor, none beyond full. An OSA
// run of 4K writes at depth 64 has its disk groups saturated (held at
// full when the draw is up) and its CPU, NICs and devices well under.
func TestPlaneNoiseMovesTheLoadsWithTheRun(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	in := UniformInput(p, 96, 8, Policy{RAID: "raid1", FTT: 1}, &fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 64})
	quiet, err := Solve(context.Background(), p, in)
	if err != nil {
		t.Fatal(err)
	}
	pl := NewPlane(p, &memSource{}, WithNoise(11)).(*Plane)
	ups, downs := 0, 0
	for range 8 {
		out := deepcopy.Of(quiet)
		pl.applyNoise(out)
		f := out.Write.IOPS / quiet.Write.IOPS
		if f > 1 {
			ups++
		} else {
			downs++
		}
		want := func(name string, got, q, full float64) {
			t.Helper()
			if w := math.Min(full, q*f); math.Abs(got-w) > 1e-9*math.Max(w, 1) {
				t.Errorf("factor %.4f: %s %g, want %g (quiet %g)", f, name, got, w, q)
			}
		}
		want("host CPU", out.CPUPercent, quiet.CPUPercent, 100)
		want("NIC", out.NICPercent, quiet.NICPercent, 100)
		want("bottleneck", out.BottleneckUtil, quiet.BottleneckUtil, 1)
		for i, s := range out.Stations {
			want(s.Name, s.Util, quiet.Stations[i].Util, 1)
		}
		for i, h := range out.Hosts {
			q := quiet.Hosts[i]
			want("host CPU of a host", out.HostCPUPercent[i], quiet.HostCPUPercent[i], 100)
			want("component writes", h.CompWriteIOPS, q.CompWriteIOPS, math.Inf(1))
			want("uplink bytes sent", h.NICTxBytesPerSec, q.NICTxBytesPerSec, math.Inf(1))
			want("uplink", h.NICPercent, q.NICPercent, 100)
			want("vSAN CPU", h.VSANCPUPercent, q.VSANCPUPercent, 100)
			want("capacity device", h.DeviceUtil, q.DeviceUtil, 1)
			want("cache device", h.CacheUtil, q.CacheUtil, 1)
		}
	}
	if ups == 0 || downs == 0 || quiet.BottleneckUtil < 0.95 || quiet.Hosts[0].CacheUtil == 0 {
		t.Errorf("%d draws up, %d down, bottleneck %s at %g, cache device %g: want both ways, a saturated station and a busy cache tier", ups, downs, quiet.Bottleneck, quiet.BottleneckUtil, quiet.Hosts[0].CacheUtil)
	}
}

// A run held at a rate limit repeats at the limit, noise or not: fio's
// rate_iops=500 on each of 8 disks is 4,000 IOPS every time. The run after
// it draws as it would have (the limited run takes its draw).
func TestPlaneNoiseLeavesARateLimitedRun(t *testing.T) {
	ctx := context.Background()
	free := fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16}
	limited := free
	limited.Options = []fio.Option{{Key: "rate_iops", Value: "500"}}
	a, _ := newTestPlane(t, WithNoise(7))
	b, _ := newTestPlane(t, WithNoise(7))
	var after [2]float64
	for i, pl := range []*Plane{a, b} {
		first := free
		if i == 0 {
			first = limited
		}
		res, err := pl.Run(ctx, workers(4, 2, "r5"), fio.NewWorkload(first), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Aggregate[0].IOPS; i == 0 && got != 4000 {
			t.Errorf("rate_iops=500 on 8 disks with noise: %g IOPS, want 4000", got)
		}
		if res, err = pl.Run(ctx, workers(4, 2, "r5"), fio.NewWorkload(free), nil); err != nil {
			t.Fatal(err)
		}
		after[i] = res.Aggregate[0].IOPS
	}
	if after[0] != after[1] {
		t.Errorf("the run after a limited one: %g, after a free one %g; want the same draw", after[0], after[1])
	}
}

// A mixed job whose rates hold one direction and leave the other to what
// the cluster carries (randrw 70/30 at rate_iops=,100: fio hands the reads
// every turn the writes do not need) repeats its writes at the rate and
// its reads as the cluster's capacity does, with the noise: 8 disks write
// 800 a second every time, the reads move from run to run, and the run is
// not held as a whole.
func TestPlaneNoiseMovesTheFreeDirection(t *testing.T) {
	ctx := context.Background()
	job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 4096, IODepth: 16,
		Options: []fio.Option{{Key: "rate_iops", Value: ",100"}}}
	pl, _ := newTestPlane(t, WithNoise(3))
	ws := workers(4, 2, "r5")
	prepareRandom(ctx, t, pl, ws) // prepared: no run changes what the next one reads
	reads := map[float64]bool{}
	for range 4 {
		res, err := pl.Run(ctx, ws, fio.NewWorkload(job), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range res.Aggregate {
			switch row.Direction {
			case "write":
				if !(math.Abs(row.IOPS-800) <= 1e-6) {
					t.Errorf("writes at rate_iops=,100 on 8 disks with noise: %g IOPS, want 800", row.IOPS)
				}
			case "read":
				reads[row.IOPS] = true
			}
		}
	}
	if len(reads) != 4 {
		t.Errorf("four runs' reads, free of their rate: %d distinct figures (%v), want 4 (the noise moves them)", len(reads), reads)
	}
	out, err := Solve(ctx, mustLoad(t, "storagereview-r6625-esa"), UniformInput(mustLoad(t, "storagereview-r6625-esa"), 8, 1, Policy{RAID: "raid1", FTT: 1}, &job))
	if err != nil {
		t.Fatal(err)
	}
	if out.RateLimited || !out.Jobs[0].RateLimited || out.Jobs[0].Free != "read" {
		t.Errorf("the run held %v, its job held %v with %q free; want false, true and read", out.RateLimited, out.Jobs[0].RateLimited, out.Jobs[0].Free)
	}
}

// A campaign may run cells concurrently: Prepare and Run share the disk map.
func TestPlaneConcurrentUse(t *testing.T) {
	pl, _ := newTestPlane(t, WithNoise(1))
	ctx := context.Background()
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			ws := workers(2, 2, "r5")
			if i%2 == 0 {
				errs <- pl.Prepare(ctx, ws, fio.Prep{Method: "random"}, nil)
				return
			}
			_, err := pl.Run(ctx, ws, fio.NewWorkload(fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", BlockSize: 4096, IODepth: 2, RuntimeSec: 10, TimeBased: true}), nil)
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// slowSource answers policy lookups only when released, as a slow vCenter
// would; entered (buffered, one) says a lookup has begun.
type slowSource struct {
	memSource
	entered, release chan struct{}
}

func (s *slowSource) Policy(ctx context.Context, name string) (Policy, error) {
	select {
	case s.entered <- struct{}{}:
	default: // a later lookup: the first one was said
	}
	<-s.release
	return s.memSource.Policy(ctx, name)
}

// A run waiting on the control plane for a policy does not hold up other
// cells: the plane's lock is not held across the lookup.
func TestPlanePolicyLookupDoesNotBlockOthers(t *testing.T) {
	src := &slowSource{memSource: memSource{policies: map[string]Policy{"r5": {RAID: "raid5", FTT: 1}}},
		entered: make(chan struct{}, 1), release: make(chan struct{})}
	pl := NewPlane(mustLoad(t, "storagereview-r6625-esa"), src)
	ctx := context.Background()
	ran := make(chan error, 1)
	go func() {
		_, err := pl.Run(ctx, workers(2, 1, "r5"), fio.NewWorkload(fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 2}), nil)
		ran <- err
	}()
	<-src.entered
	prepared := make(chan error, 1)
	go func() { prepared <- pl.Prepare(ctx, workers(2, 1, ""), fio.Prep{Method: "random"}, nil) }()
	select {
	case err := <-prepared:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(10 * time.Second):
		t.Error("Prepare waited for another run's policy lookup")
		close(src.release)
		<-prepared
		<-ran
		return
	}
	close(src.release)
	if err := <-ran; err != nil {
		t.Error(err)
	}
}

// The workers' vCPUs and controllers reach the model's guest side.
func TestPlaneTakesTheWorkersGuestSide(t *testing.T) {
	var got Input
	src := &memSource{policies: map[string]Policy{"r5": {RAID: "raid5", FTT: 1}}}
	pl := NewPlane(mustLoad(t, "storagereview-r6625-esa"), src, WithObserver(func(_ context.Context, _ *testbed.Profile, in Input, _ Output, _ float64) { got = in })).(*Plane)
	ws := workers(4, 2, "r5")
	for i := range ws {
		ws[i].CPUs, ws[i].Controller = 2, "lsilogic"
	}
	if _, err := pl.Run(context.Background(), ws, fio.NewWorkload(fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 8}), nil); err != nil {
		t.Fatal(err)
	}
	if len(got.VMs) != 4 || got.VMs[0].CPUs != 2 || got.VMs[0].Controller != "lsilogic" || got.Jobs[0].Disks[7].VM != 3 {
		t.Errorf("the model saw VMs %+v", got.VMs)
	}
}

// A workload of concurrent jobs runs as one network: rows, aggregates and
// samples per job, keyed by the job's name.
func TestPlaneRunsConcurrentJobs(t *testing.T) {
	pl, _ := newTestPlane(t)
	ctx := context.Background()
	ws := workers(4, 2, "r5")
	oltp := &fio.Job{Name: "oltp", IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 8192, IODepth: 16, RuntimeSec: 60, TimeBased: true}
	backup := &fio.Job{Name: "backup", IOEngine: "libaio", Direct: true, RW: "read", BlockSize: 1 << 20, IODepth: 4, RuntimeSec: 60, TimeBased: true}
	res, err := pl.RunJobs(ctx, []JobRun{{Workers: ws[:2], Job: oltp}, {Workers: ws[2:], Job: backup}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, r := range res.Rows {
		per[r.Job]++
	}
	// oltp's aggregate: read, write, total; backup's: read (Run adds the ones over all jobs).
	if per["oltp"] != 2*2*3 || per["backup"] != 2*2 || len(res.Aggregate) != 4 {
		t.Errorf("rows per job %v, %d aggregate rows; want oltp 12 (2 directions and their total), backup 4, 4 aggregates", per, len(res.Aggregate))
	}
	samples := map[string]int{}
	for _, s := range res.Samples {
		samples[s.Job+"/"+s.Direction]++
	}
	if samples["oltp/read"] != 60 || samples["oltp/write"] != 60 || samples["backup/read"] != 60 {
		t.Errorf("samples per job and direction %v, want 60 each", samples)
	}
	alone, err := pl.Run(ctx, ws[:2], fio.NewWorkload(*oltp), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Aggregate {
		if a.Job == "oltp" && a.Direction == "read" && a.IOPS >= alone.Aggregate[0].IOPS {
			t.Errorf("oltp beside the backup: %.0f read IOPS, alone %.0f; want less", a.IOPS, alone.Aggregate[0].IOPS)
		}
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "2 concurrent jobs solved as classes") {
		t.Errorf("notes %q", res.Notes)
	}
}

// Phases run one after another: a fill, then (stonewall) a read of what
// it wrote, each job with its rows, the read's samples after the fill's,
// and the read as fast as the same read run alone after the same fill.
func TestPlaneRunsPhasesInOrder(t *testing.T) {
	ctx := context.Background()
	text := `[global]
ioengine=libaio
direct=1
time_based=1
runtime=30

[fill]
rw=write
bs=1m
iodepth=8

[check]
stonewall
rw=randread
bs=4k
iodepth=16
`
	wl, err := fio.ParseWorkload("phases", "phases.fio", text, fio.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pl, _ := newTestPlane(t)
	res, err := pl.Run(ctx, workers(4, 2, ""), wl, nil)
	if err != nil {
		t.Fatal(err)
	}
	iops := map[string]float64{}
	for _, a := range res.Aggregate {
		iops[a.Job+"/"+a.Direction] = a.IOPS
	}
	if iops["fill/write"] <= 0 || iops["check/read"] <= 0 || iops["/read"] != iops["check/read"] || iops["/write"] != iops["fill/write"] {
		t.Fatalf("aggregates by job and direction %v", iops)
	}
	last := map[string]float64{}
	first := map[string]float64{}
	for _, s := range res.Samples {
		if _, ok := first[s.Job]; !ok {
			first[s.Job] = s.TS
		}
		last[s.Job] = max(last[s.Job], s.TS)
	}
	if first["check"] <= last["fill"] || last["check"] != 60 {
		t.Fatalf("samples: fill %v to %v, check from %v to %v; want check after fill, ending at 60 s", first["fill"], last["fill"], first["check"], last["check"])
	}
	notes := strings.Join(res.Notes, "\n")
	for _, want := range []string{"2 phases (stonewall, wait_for) solved one after another", "bottleneck: phase 1 (fill): ", "bottleneck: phase 2 (check): "} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if strings.Count(notes, "simulated by ") != 1 {
		t.Errorf("the data plane is named %d times:\n%s", strings.Count(notes, "simulated by "), notes)
	}

	// The same read alone, on a plane whose disks the same fill wrote.
	again, _ := newTestPlane(t)
	fill, check := wl.Jobs[0], wl.Jobs[1]
	if _, err := again.Run(ctx, workers(4, 2, ""), fio.NewWorkload(fill), nil); err != nil {
		t.Fatal(err)
	}
	alone, err := again.Run(ctx, workers(4, 2, ""), fio.NewWorkload(check), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := iops["check/read"], alone.Aggregate[0].IOPS; math.Abs(got-want) > 1e-9*want {
		t.Errorf("check after fill in phases: %.1f IOPS; alone after the same fill: %.1f", got, want)
	}
}

// A steady-state criterion stops a job once fio can judge it (the model is
// steady from the start): after ss_ramp + ss_dur, not its runtime; without
// ss_dur fio never judges it and the job runs its whole runtime.
func TestPlaneStopsAtSteadyState(t *testing.T) {
	ctx := context.Background()
	run := func(ss string) *fio.Result {
		t.Helper()
		text := "[steady]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\niodepth=16\ntime_based=1\nruntime=600\n" + ss
		wl, err := fio.ParseWorkload("ss", "ss.fio", text, fio.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pl, _ := newTestPlane(t)
		res, err := pl.Run(ctx, workers(2, 2, ""), wl, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	lastSample := func(r *fio.Result) float64 {
		end := 0.0
		for _, s := range r.Samples {
			end = max(end, s.TS)
		}
		return end
	}
	steady := run("ss=iops_slope:0.1%\nss_dur=60\nss_ramp=30\n")
	if end := lastSample(steady); end != 90 {
		t.Errorf("with ss_ramp=30 and ss_dur=60 the run ends at %v s, want 90", end)
	}
	if notes := strings.Join(steady.Notes, "\n"); !strings.Contains(notes, "steadystate=iops_slope:0.1%: the model's regime is steady from the start") {
		t.Errorf("notes %q", notes)
	}
	whole := run("ss=iops_slope:0.1%\n")
	if end := lastSample(whole); end != 600 {
		t.Errorf("without ss_dur the run ends at %v s, want its runtime, 600", end)
	}
	if notes := strings.Join(whole.Notes, "\n"); !strings.Contains(notes, "without steadystate_duration (ss_dur): fio does not judge it") {
		t.Errorf("notes %q", notes)
	}
	if steady.Aggregate[0].IOPS != whole.Aggregate[0].IOPS {
		t.Errorf("steady %.0f IOPS, whole run %.0f: the regime is the same", steady.Aggregate[0].IOPS, whole.Aggregate[0].IOPS)
	}
}

// Where a rate limit holds some of a run's disks and not others (an uneven
// layout whose classes run at their own rates), the held disks repeat at
// the limit, noise or not, and the others still vary from run to run: five
// workers on four hosts, one RAID-1 disk each, under an 80,000 IOPS limit
// that holds the three alone on their hosts (109,515 free) and not the two
// sharing one (68,662).
func TestPlaneNoiseLeavesTheHeldClasses(t *testing.T) {
	ctx := context.Background()
	src := &memSource{policies: map[string]Policy{"lim": {RAID: "raid1", FTT: 1, IOPSLimit: 80000}}}
	pl := NewPlane(mustLoad(t, "storagereview-r6625-esa"), src, WithNoise(3)).(*Plane)
	ws := workers(5, 1, "lim")
	for i, h := range []string{"a", "b", "c", "d", "a"} {
		ws[i].Host = h
	}
	prepareRandom(ctx, t, pl, ws)
	job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 64, RuntimeSec: 60}
	free := map[float64]bool{}
	for range 4 {
		res, err := pl.Run(ctx, ws, fio.NewWorkload(job), nil)
		if err != nil {
			t.Fatal(err)
		}
		total := 0.0
		for _, r := range res.Rows {
			total += r.IOPS
			switch r.Worker {
			case "w1", "w2", "w3":
				if math.Abs(r.IOPS-80000) > 1e-6*80000 {
					t.Errorf("%s, held by the limit: %.1f IOPS, want 80000 every run", r.Worker, r.IOPS)
				}
			case "w0":
				free[r.IOPS] = true
			}
		}
		if agg := res.Aggregate[0].IOPS; math.Abs(agg-total) > 1e-6*total {
			t.Errorf("aggregate %.1f IOPS, the disks' rows %.1f: want them the same", agg, total)
		}
	}
	if len(free) < 2 {
		t.Errorf("the disks the limit does not hold ran at %v over 4 runs: want the noise's spread", free)
	}
}

// Over all jobs of a workload, the total row is of read and write combined,
// whichever jobs moved them: a mixed job beside a read-only one, and a
// read-only job beside a write-only one (no job has a total row of its own).
func TestPlaneTotalOverAllJobs(t *testing.T) {
	pl, _ := newTestPlane(t)
	ctx := context.Background()
	ws := workers(4, 2, "r5")
	prepareRandom(ctx, t, pl, ws)
	mixed := fio.Job{Name: "mixed", IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 8192, IODepth: 16, RuntimeSec: 60, TimeBased: true}
	reads := fio.Job{Name: "reads", IOEngine: "libaio", Direct: true, RW: "read", BlockSize: 1 << 20, IODepth: 4, RuntimeSec: 60, TimeBased: true}
	writes := fio.Job{Name: "writes", IOEngine: "libaio", Direct: true, RW: "write", BlockSize: 1 << 20, IODepth: 4, RuntimeSec: 60, TimeBased: true}
	for _, jobs := range [][]fio.Job{{mixed, reads}, {reads, writes}} {
		res, err := pl.Run(ctx, ws, &fio.Workload{Name: "w", Jobs: jobs}, nil)
		if err != nil {
			t.Fatal(err)
		}
		all := map[string]fio.Row{}
		for _, r := range res.Aggregate {
			if r.Job == "" {
				all[r.Direction] = r
			}
		}
		rd, wr, tot := all["read"], all["write"], all[fio.TotalDirection]
		if len(all) != 3 || !(math.Abs(tot.IOPS/(rd.IOPS+wr.IOPS)-1) <= 1e-9) || !(math.Abs(tot.MBps/(rd.MBps+wr.MBps)-1) <= 1e-9) {
			t.Errorf("%s and %s: aggregate over all jobs %+v; want read, write and their sum", jobs[0].Name, jobs[1].Name, all)
		}
	}
}

// Noise never takes a run past a physical bound its quiet run is within:
// 1M reads of never-written disks on vxrail-ve660-esa copy guest memory at
// nearly the hosts' memory bandwidth (and already pass what the uplinks
// carry, a warning the quiet run has too); draws up stop at the memory
// bound, draws down still apply.
func TestPlaneNoiseStopsAtThePhysicalBounds(t *testing.T) {
	p := mustLoad(t, "vxrail-ve660-esa")
	in := UniformInput(p, 16, 8, Policy{RAID: "raid1", FTT: 1}, &fio.Job{IOEngine: "libaio", Direct: true, RW: "read", BlockSize: 1 << 20, IODepth: 8, NumJobs: 2})
	for i := range in.Jobs[0].Disks {
		in.Jobs[0].Disks[i].Written = 0
	}
	quiet, err := Solve(context.Background(), p, in)
	if err != nil {
		t.Fatal(err)
	}
	sum := func(o *Output) Summary { return Summary{ReadIOPS: o.Read.IOPS, ReadMBps: o.Read.MBps} }
	room := headroom(p, sum(quiet))
	warned := CheckBounds(p, sum(quiet))
	if room > 1.03 || len(warned) == 0 {
		t.Fatalf("quiet run %.0f MB/s, %.3f below its nearest bound, warnings %q: want within 3 %% of a bound and past another", quiet.Read.MBps, room, warned)
	}
	pl := NewPlane(p, &memSource{}, WithNoise(5)).(*Plane)
	capped, downs := 0, 0
	for range 16 {
		out := deepcopy.Of(quiet)
		pl.applyNoise(out)
		f := out.Read.MBps / quiet.Read.MBps
		switch {
		case f > room*(1+1e-9):
			t.Errorf("noise took %.0f MB/s to %.0f (x%.4f), past the bound %.4f above it: %q", quiet.Read.MBps, out.Read.MBps, f, room, CheckBounds(p, sum(out)))
		case math.Abs(f-room) <= 1e-9:
			capped++
		case f < 1:
			downs++
		}
		if w := CheckBounds(p, sum(out)); len(w) != len(warned) {
			t.Errorf("factor %.4f: warnings %q, the quiet run's %q", f, w, warned)
		}
	}
	if capped == 0 || downs == 0 {
		t.Errorf("%d draws stopped at the bound, %d went down: want both", capped, downs)
	}
}

// One noise draw per run: OSA's burst and steady state are the same run
// going a little faster or slower, so both take the same factor (drawn
// apart, a 2 % faster burst could come out slower than the steady state,
// as a WWT matrix report once said: "absorb writes at 5296 MB/s ... then
// 5405 MB/s"). The first sample is the burst's, the last the steady
// state's: their ratio is the quiet run's whatever the draw.
func TestPlaneNoiseMovesARunsRegimesTogether(t *testing.T) {
	ctx := context.Background()
	p := mustLoad(t, "wwt-r640-osa")
	job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 32768, IODepth: 8, RuntimeSec: 1800, TimeBased: true}
	ratio := func(pl *Plane) float64 {
		res, err := pl.Run(ctx, workers(96, 8, ""), fio.NewWorkload(job), nil)
		if err != nil {
			t.Fatal(err)
		}
		first, last := res.Samples[0], res.Samples[len(res.Samples)-1]
		return first.MBps / last.MBps
	}
	quiet := ratio(NewPlane(p, &memSource{}).(*Plane))
	if quiet < 1.01 {
		t.Fatalf("burst/steady x%.4f in the quiet run: want a burst", quiet)
	}
	for seed := range uint64(6) {
		if got := ratio(NewPlane(p, &memSource{}, WithNoise(seed)).(*Plane)); math.Abs(got/quiet-1) > 1e-9 {
			t.Errorf("seed %d: burst/steady x%.4f, the quiet run's x%.4f: the regimes drew apart", seed, got, quiet)
		}
	}
}

// inDirection is the rows of one direction.
func inDirection(rows []fio.Row, dir string) []fio.Row {
	return slices.DeleteFunc(slices.Clone(rows), func(r fio.Row) bool { return r.Direction != dir })
}

// lastSampleTS is when a result's last sample ends: the measured length.
func lastSampleTS(res *fio.Result) float64 {
	end := 0.0
	for _, s := range res.Samples {
		end = math.Max(end, s.TS)
	}
	return end
}
