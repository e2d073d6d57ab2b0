package model

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

func newOSAPlane(t *testing.T) *Plane {
	src := &memSource{state: ClusterState{Uplink: "25g"}, policies: map[string]Policy{"r1": {RAID: "raid1", FTT: 1}}}
	return NewPlane(mustLoad(t, "wwt-r640-osa"), src).(*Plane)
}

// prepareRandom fills the workers' disks with random data, as most runs
// on a plane start.
func prepareRandom(ctx context.Context, t *testing.T, pl *Plane, ws []fio.Worker) {
	t.Helper()
	if err := pl.Prepare(ctx, ws, fio.Prep{Method: "random"}, nil); err != nil {
		t.Fatal(err)
	}
}

// prepareDrained fills the workers' disks with random data, then lets an
// hour's sequential read drain the OSA write buffers the fill left at the
// destage threshold: writes after it start with the burst.
func prepareDrained(ctx context.Context, t *testing.T, pl *Plane, ws []fio.Worker) {
	t.Helper()
	prepareRandom(ctx, t, pl, ws)
	read := fio.Job{IOEngine: "libaio", Direct: true, RW: "read", BlockSize: 1 << 20, IODepth: 2, RuntimeSec: 3600, TimeBased: true}
	if _, err := pl.Run(ctx, ws, fio.NewWorkload(read), nil); err != nil {
		t.Fatal(err)
	}
	if pl.buffer.fill != 0 {
		t.Fatalf("an hour's read left %.0f bytes in each write buffer; want them drained", pl.buffer.fill)
	}
}

// meanOf is the time-weighted mean IOPS of a direction's samples.
func meanOf(samples []fio.Sample, dir string, measured float64) float64 {
	total, prev := 0.0, 0.0
	for _, s := range samples {
		if s.Direction != dir {
			continue
		}
		total += s.IOPS * (s.TS - prev)
		prev = s.TS
	}
	return total / measured
}

// An OSA run that fills its write buffers starts faster than it ends: the
// samples show the burst, then the steady rate once the elevators must keep
// pace; the run's figure is the samples' mean; the buffers stay full for
// the next run, and a read-only run lets the elevators drain them. A fill
// of the disks (fio.prepare) writes through the buffers too: a write run
// right after it has no burst.
func TestOSAWriteBufferFillsOverARun(t *testing.T) {
	pl := newOSAPlane(t)
	ctx := context.Background()
	ws := workers(96, 8, "r1")
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 65536, IODepth: 8, RuntimeSec: 1800, TimeBased: true}
	run := func() *fio.Result {
		t.Helper()
		res, err := pl.Run(ctx, ws, fio.NewWorkload(*job), nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run()
	first, last := res.Samples[0], res.Samples[len(res.Samples)-1]
	if first.IOPS < 1.1*last.IOPS || first.Direction != "write" {
		t.Errorf("first sample %.0f IOPS, last %.0f: want the burst well above the steady rate", first.IOPS, last.IOPS)
	}
	if len(res.Samples) < 50 || len(res.Samples) > 120 || last.TS != 1800 {
		t.Errorf("%d samples ending at %g s; want 50-120 over the 1800 s run", len(res.Samples), last.TS)
	}
	if got, want := res.Aggregate[0].IOPS, meanOf(res.Samples, "write", 1800); !(math.Abs(got/want-1) <= 1e-9) {
		t.Errorf("run %.1f IOPS, samples' mean %.1f: want the run to be its samples' mean", got, want)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "OSA write buffers absorb writes") {
		t.Errorf("notes %q do not explain the fall", res.Notes)
	}
	steady := func(label string, res *fio.Result) {
		t.Helper()
		if a, b := res.Samples[0].IOPS, res.Samples[len(res.Samples)-1].IOPS; !(math.Abs(a/b-1) <= 1e-9) || !(math.Abs(b/last.IOPS-1) <= 1e-9) {
			t.Errorf("%s: the run starts at %.0f IOPS and ends at %.0f; want the steady %.0f throughout", label, a, b, last.IOPS)
		}
	}
	// The buffers are still at the threshold: the next run has no burst.
	steady("a second run", run())
	// A long read-only run drains them; writes burst again.
	drain := func() {
		t.Helper()
		if _, err := pl.Run(ctx, ws, fio.NewWorkload(fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 65536, IODepth: 8, RuntimeSec: 3600, TimeBased: true}), nil); err != nil {
			t.Fatal(err)
		}
	}
	drain()
	if third := run(); third.Samples[0].IOPS < 1.1*last.IOPS {
		t.Errorf("after a read-only hour the first sample is %.0f IOPS; want the burst again", third.Samples[0].IOPS)
	}
	// Drained again, then the disks filled: 768 disks' replicas are far
	// more than the buffers' threshold, so the fill leaves them there.
	drain()
	prepareRandom(ctx, t, pl, ws)
	steady("after fio.prepare", run())
}

// A fill of the disks lands in OSA's write buffers as its policy writes it:
// each disk whole times the replicas (RAID-1 FTT 1: 2) or the stripe's
// share (RAID-5 3+1: 4/3), spread over the cluster's disk groups, twice
// with the aging pass; "none" writes nothing.
func TestFillGoesThroughTheWriteBuffers(t *testing.T) {
	ctx := context.Background()
	src := &memSource{policies: map[string]Policy{"r1": {RAID: "raid1", FTT: 1}, "r5": {RAID: "raid5", FTT: 1}}}
	p := mustLoad(t, "wwt-r640-osa")
	groups := float64(p.Hosts * p.Storage.DiskGroups)
	for _, c := range []struct {
		policy string
		prep   fio.Prep
		copies float64
	}{
		{"r1", fio.Prep{Method: "random"}, 2},
		{"r1", fio.Prep{Method: "zero"}, 2},
		{"r5", fio.Prep{Method: "random"}, 4.0 / 3},
		{"r5", fio.Prep{Method: "random", Age: true}, 2 * 4.0 / 3},
		{"r1", fio.Prep{Method: "none"}, 0},
	} {
		pl := NewPlane(p, src).(*Plane)
		if err := pl.Prepare(ctx, workers(3, 2, c.policy), c.prep, nil); err != nil {
			t.Fatal(err)
		}
		if got, want := pl.buffer.fill, 6*(50<<30)*c.copies/groups; !nearRel(got, want, 1e-12) && !(got == 0 && want == 0) {
			t.Errorf("%s, %+v: each buffer holds %.4g bytes after the fill; want %.4g", c.policy, c.prep, got, want)
		}
	}
}

// A storage policy that lays a disk's objects out otherwise (RAID-1 to
// RAID-5, a stripe width) makes vSAN rewrite them before the next run, and
// so does OSA's rolling reformat of its disk groups for a change of space
// efficiency or encryption; on OSA that rewrite goes through the write
// buffers: a writer after it has no burst, and a note says why. A rule
// that moves no data (an IOPS limit, RDMA) leaves the buffers as they were.
func TestPolicyChangeRewritesThroughTheWriteBuffers(t *testing.T) {
	ctx := context.Background()
	ws := workers(96, 8, "p")
	job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 65536, IODepth: 8, RuntimeSec: 600, TimeBased: true}
	r1, tcp := Policy{RAID: "raid1", FTT: 1}, ClusterState{Uplink: "25g"}
	for _, c := range []struct {
		to    Policy
		state ClusterState
		says  string // "" for a burst
	}{
		{Policy{RAID: "raid5", FTT: 1}, tcp, "the storage policy of 768 disks lays out their objects otherwise"},
		{Policy{RAID: "raid1", FTT: 1, StripeWidth: 2}, tcp, "the storage policy of 768 disks"},
		{r1, ClusterState{Uplink: "25g", Compression: true}, "a change of space efficiency or encryption reformatted every disk group, moving the components of the 768 workers' disks written so far (a rolling reformat, a disk group at a time: moving them takes a real cluster at least"},
		{r1, ClusterState{Uplink: "25g", RestEncryption: true}, "reformatted every disk group"},
		{Policy{RAID: "raid1", FTT: 1, IOPSLimit: 100000}, tcp, ""},
		{r1, ClusterState{Uplink: "25g", RDMA: true}, ""},
	} {
		src := &memSource{state: tcp, policies: map[string]Policy{"p": r1}}
		pl := NewPlane(mustLoad(t, "wwt-r640-osa"), src).(*Plane)
		prepareDrained(ctx, t, pl, ws)
		src.policies["p"], src.state = c.to, c.state
		res, err := pl.Run(ctx, ws, fio.NewWorkload(job), nil)
		if err != nil {
			t.Fatal(err)
		}
		first, last := res.Samples[0].IOPS, res.Samples[len(res.Samples)-1].IOPS
		notes := strings.Join(res.Notes, "\n")
		said := strings.Contains(notes, "vSAN rewrote")
		if burst := first > 1.1*last; burst != (c.says == "") || said == burst || !strings.Contains(notes, c.says) {
			t.Errorf("to %+v, %+v: the writer starts at %.0f IOPS and ends at %.0f, notes %q; want a burst %v, and %q said", c.to, c.state, first, last, notes, c.says == "", c.says)
		}
	}
	// A measurement through events starts from what the rewrite left too.
	src := &memSource{state: ClusterState{Uplink: "25g"}, policies: map[string]Policy{"p": {RAID: "raid1", FTT: 1}}}
	pl := NewPlane(mustLoad(t, "wwt-r640-osa"), src).(*Plane)
	prepareDrained(ctx, t, pl, ws)
	src.policies["p"] = Policy{RAID: "raid5", FTT: 1}
	s := pl.Scenario(ws, &job, nil)
	if _, _, err := s.Step(ctx, 0, 10, nil); err != nil {
		t.Fatal(err)
	}
	res, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	if full := pl.p.Model.WriteBufferDestageThreshold.Value * WriteBufferBytes(pl.p); pl.buffer.fill != full || !strings.Contains(strings.Join(res.Notes, "\n"), "vSAN rewrote") {
		t.Errorf("an events measurement after the change: buffers at %.4g bytes, notes %q; want %.4g and the rewrite said", pl.buffer.fill, res.Notes, full)
	}
}

// A reformat is the whole cluster's: the first run after compression is
// turned on says it moved the components of every disk written so far, a
// fleet that did not run yet included, once; that fleet's next run finds
// nothing more to say and the buffers as the reformat left them.
func TestReformatMovesEveryFleetOnce(t *testing.T) {
	ctx := context.Background()
	src := &memSource{state: ClusterState{Uplink: "25g"}, policies: map[string]Policy{"p": {RAID: "raid1", FTT: 1}}}
	pl := NewPlane(mustLoad(t, "wwt-r640-osa"), src).(*Plane)
	a, b := workers(24, 4, "p"), workers(24, 4, "p")
	for i := range b {
		b[i].Name = fmt.Sprintf("b%d", i)
	}
	prepareDrained(ctx, t, pl, slices.Concat(a, b))
	src.state.Compression = true
	write := fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 65536, IODepth: 8, RuntimeSec: 60, TimeBased: true}
	first, err := pl.Run(ctx, a, fio.NewWorkload(write), nil)
	if err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(first.Notes, "\n"); !strings.Contains(notes, "moving the components of the 192 workers' disks written so far") {
		t.Errorf("the first run after the change: notes %q; want the reformat of both fleets' 192 disks", notes)
	}
	second, err := pl.Run(ctx, b, fio.NewWorkload(write), nil)
	if err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(second.Notes, "\n"); strings.Contains(notes, "reformatted") {
		t.Errorf("the other fleet's run after the reformat says it again: %q", notes)
	}
}

// A rolling reformat empties one disk group at a time, so it takes at
// least the group's data over the lesser of what its capacity devices read
// and what its host's vSAN uplinks send: on WWT's 4 capacity devices of 3
// GB/s a group, the 2 x 10 GbE LAG binds, and on a 2 x 100 GbE one the
// devices' 12 GB/s do; RDMA, one link of the LAG, takes longer than TCP.
func TestReformatTakesADiskGroupAtATime(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	hours := func(p *testbed.Profile, state ClusterState) float64 {
		t.Helper()
		note := reformatTime(p, state, 100e12)
		var h float64
		if _, err := fmt.Sscanf(note[strings.Index(note, "at least ")+len("at least "):], "%g h", &h); err != nil || !strings.Contains(note, "moving them takes a real cluster") {
			t.Fatalf("%q: %v", note, err)
		}
		return h
	}
	ten, twentyFive := hours(p, ClusterState{Uplink: "10g"}), hours(p, ClusterState{Uplink: "25g"})
	if !(ten > 2*twentyFive) {
		t.Errorf("100 TB moved in at least %.1f h on 2 x 10 GbE and %.1f h on 2 x 25 GbE: want the 10 GbE LAG to bind, more than twice as long", ten, twentyFive)
	}
	if rdma := hours(p, ClusterState{Uplink: "25g", RDMA: true}); !(rdma > 1.5*twentyFive) {
		t.Errorf("at least %.1f h with RDMA (one link of the LAG), %.1f h with TCP (both): want RDMA's longer", rdma, twentyFive)
	}
	fat := *p
	fat.NICs = slices.Clone(p.NICs)
	for i := range fat.NICs {
		fat.NICs[i].SpeedGbps, fat.NICs[i].PCIeGen, fat.NICs[i].PCIeLanes = 100, 5, 16
	}
	if got, want := hours(&fat, ClusterState{Uplink: "25g"}), 100e12/(4*3000e6)/3600; math.Abs(got-want) > 0.05 {
		t.Errorf("on 2 x 100 GbE: at least %.1f h, want the capacity devices' %.1f h (4 x 3 GB/s)", got, want)
	}
}

// A run without writes drains the buffers at write_buffer_idle_destage of
// the capacity devices' write rate: all of it by default, none at 0, and
// at a share, that share of what the full rate would drain (5 s of
// reads drain part of WWT's buffers at the full rate).
func TestIdleDestageDrainsAtItsShare(t *testing.T) {
	ctx := context.Background()
	ws := workers(96, 8, "r1")
	read := fio.Job{IOEngine: "libaio", Direct: true, RW: "read", BlockSize: 1 << 20, IODepth: 2, RuntimeSec: 5, TimeBased: true}
	for _, share := range []float64{1, 0.5, 0} {
		p := mustLoad(t, "wwt-r640-osa")
		p.Model.WriteBufferIdleDestage.Value = share
		pl := NewPlane(p, &memSource{state: ClusterState{Uplink: "25g"}, policies: map[string]Policy{"r1": {RAID: "raid1", FTT: 1}}}).(*Plane)
		prepareRandom(ctx, t, pl, ws)
		full := pl.buffer.fill
		if _, err := pl.Run(ctx, ws, fio.NewWorkload(read), nil); err != nil {
			t.Fatal(err)
		}
		_, wr := deviceRates(p.Storage.Capacity)
		want := full - share*float64(p.Storage.CapacityPerGroup)*wr*5
		if got := pl.buffer.fill; !nearRel(got, want, 1e-12) || want <= 0 {
			t.Errorf("idle destage at %g: 5 s of reads leave %.4g bytes in each buffer of %.4g; want %.4g", share, got, full, want)
		}
	}
}

// The plane tells the control plane how full OSA's write buffers are
// after every run and fill (vSAN's wbFreePct): empty after a read, at the
// destage threshold after a writer that filled them, and after a fill;
// never on ESA.
func TestPlaneSaysHowFullTheWriteBuffersAre(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		testbed string
		want    []float64
	}{{"wwt-r640-osa", []float64{0, 0.3, 0, 0.3}}, {"storagereview-r6625-esa", nil}} {
		var seen []float64
		src := &memSource{policies: map[string]Policy{"r1": {RAID: "raid1", FTT: 1}}}
		pl := NewPlane(mustLoad(t, c.testbed), src, WithWriteBuffer(func(_ time.Time, full float64) { seen = append(seen, full) })).(*Plane)
		ws := workers(16, 4, "r1")
		for _, rw := range []string{"read", "randwrite", "read"} {
			if _, err := pl.Run(ctx, ws, fio.NewWorkload(fio.Job{IOEngine: "libaio", Direct: true, RW: rw, BlockSize: 65536, IODepth: 8, RuntimeSec: 3600, TimeBased: true}), nil); err != nil {
				t.Fatal(err)
			}
		}
		prepareRandom(ctx, t, pl, ws)
		if !reflect.DeepEqual(seen, c.want) {
			t.Errorf("%s: the buffers reported %v full; want %v (a read, a writer, a read, a fill)", c.testbed, seen, c.want)
		}
	}
}

// ramp_time runs I/O before anything is logged: a ramp longer than the
// burst leaves a measured window at the steady rate, and samples count
// from the end of the ramp.
func TestRampTimeIsNotMeasured(t *testing.T) {
	pl := newOSAPlane(t)
	ctx := context.Background()
	ws := workers(96, 8, "r1")
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 65536, IODepth: 8, RuntimeSec: 600, RampSec: 3600, TimeBased: true}
	res, err := pl.Run(ctx, ws, fio.NewWorkload(*job), nil)
	if err != nil {
		t.Fatal(err)
	}
	first, last := res.Samples[0], res.Samples[len(res.Samples)-1]
	if !(math.Abs(first.IOPS/last.IOPS-1) <= 1e-9) || last.TS != 600 || first.TS != sampleInterval(600) {
		t.Errorf("after an hour's ramp: samples %.0f..%.0f IOPS at %g..%g s; want steady, 0-600 s", first.IOPS, last.IOPS, first.TS, last.TS)
	}
}

// ESA has no write buffer to fill: samples are the steady state and the
// run is their mean.
func TestESASamplesAreSteady(t *testing.T) {
	pl, _ := newTestPlane(t)
	ctx := context.Background()
	res, err := pl.Run(ctx, workers(4, 2, "r5"), fio.NewWorkload(fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 8192, IODepth: 16, RuntimeSec: 60, TimeBased: true}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Samples) != 2*60 {
		t.Fatalf("%d samples, want 60 one-second intervals x 2 directions", len(res.Samples))
	}
	for _, s := range res.Samples {
		agg := res.Aggregate[0]
		if s.Direction == "write" {
			agg = res.Aggregate[1]
		}
		if !(math.Abs(s.IOPS/agg.IOPS-1) <= 1e-12) || !(math.Abs(s.P99Us/agg.P99Us-1) <= 1e-12) {
			t.Fatalf("sample %+v differs from the run %+v", s, agg)
		}
	}
}

// How long fio runs a job: its runtime when time based; else until each
// fio job has moved its size (or its disk's, from offset; io_size on each of
// its loops) at the run's rate, capped by a runtime; 0 when nothing bounds
// it; sooner after number_ios (unless time based: fio 3.33 ignores it
// there), or with a steady-state criterion, after ss_ramp + ss_dur.
func TestRunSeconds(t *testing.T) {
	opts := func(job fio.Job, key, value string) fio.Job {
		job.Options = append(job.Options, fio.Option{Key: key, Value: value})
		return job
	}
	disks := []fio.Disk{{SizeBytes: 1e10}, {SizeBytes: 1e10}}
	ss := []fio.Option{{Key: "steadystate", Value: "iops:1%"}, {Key: "steadystate_ramp_time", Value: "10s"}, {Key: "steadystate_duration", Value: "20s"}}
	for _, c := range []struct {
		name string
		job  fio.Job
		mbps float64
		want float64
	}{
		{"time based", fio.Job{TimeBased: true, RuntimeSec: 60}, 100, 60},
		{"the disks' size", fio.Job{}, 100, 2e10 / 100e6},
		{"size capped by the runtime", fio.Job{Size: 1 << 30, NumJobs: 3, RuntimeSec: 30}, 100, 30},
		{"size within the runtime", fio.Job{Size: 1 << 30, RuntimeSec: 300}, 100, 2 * (1 << 30) / 100e6},
		{"the ramp's I/O counts toward the size", fio.Job{Size: 1 << 30, RampSec: 5}, 100, 2*(1<<30)/100e6 - 5},
		{"a time-based job runs its runtime after the ramp", fio.Job{TimeBased: true, RuntimeSec: 60, RampSec: 5}, 100, 60},
		{"no rate: the runtime", fio.Job{RuntimeSec: 40}, 0, 40},
		{"nothing bounds it", fio.Job{}, 0, 0},
		{"steady state before the runtime", fio.Job{TimeBased: true, RuntimeSec: 60, Options: ss}, 100, 30},
		{"steady state after the runtime", fio.Job{TimeBased: true, RuntimeSec: 25, Options: ss}, 100, 25},
		{"steady state bounds a job without bounds", fio.Job{Options: ss}, 0, 30},
		{"steady state without a duration", fio.Job{TimeBased: true, RuntimeSec: 60, Options: ss[:2]}, 100, 60},
		{"size as a share of the disk", opts(fio.Job{BlockSize: 4096}, "size", "10%"), 100, 2e9 / 100e6},
		{"from an offset to the end", opts(fio.Job{BlockSize: 4096}, "offset", "25%"), 100, 1.5e10 / 100e6},
		{"an offset and a size past the end", opts(fio.Job{BlockSize: 4096, Size: 8e9}, "offset", "4g"), 100, 2 * (1e10 - (4 << 30)) / 100e6},
		{"io_size", opts(fio.Job{BlockSize: 4096}, "io_size", "1g"), 100, 2 * (1 << 30) / 100e6},
		{"loops over the size", opts(fio.Job{BlockSize: 4096, Size: 1 << 30, NumJobs: 2}, "loops", "3"), 100, 2 * 2 * 3 * (1 << 30) / 100e6},
		{"number_ios before the size", opts(fio.Job{BlockSize: 4096, Size: 1 << 30}, "number_ios", "1000"), 100, 2 * 1000 * 4096 / 100e6},
		{"number_ios=0 is no limit", opts(fio.Job{BlockSize: 4096, Size: 1 << 30}, "number_ios", "0"), 100, 2 * (1 << 30) / 100e6},
		{"number_ios after the size", opts(fio.Job{BlockSize: 4096, Size: 1 << 20}, "number_ios", "1000"), 100, 2 * (1 << 20) / 100e6},
		{"a time-based job runs its runtime, number_ios or not", opts(fio.Job{BlockSize: 4096, TimeBased: true, RuntimeSec: 60}, "number_ios", "100k"), 100, 60},
		{"number_ios over a mix of sizes", opts(fio.Job{RW: "randrw", RWMixRead: 50, Options: []fio.Option{{Key: "bs", Value: "4k,64k"}}}, "number_ios", "100"), 100, 2 * 100 * (4096 + 65536) / 2 / 100e6},
	} {
		if got := runSeconds(&c.job, disks, c.mbps); !(math.Abs(got-c.want) <= 1e-9) {
			t.Errorf("%s: %g s, want %g", c.name, got, c.want)
		}
	}
	if got := runSeconds(&fio.Job{}, []fio.Disk{{}}, 100); got != 0 {
		t.Errorf("empty disks, no size: %g s, want 0", got)
	}
	if got := runSeconds(&fio.Job{RuntimeSec: 40}, []fio.Disk{{}}, 100); got != 40 {
		t.Errorf("empty disks, no size, a runtime of 40 s: %g s, want the runtime", got)
	}
}

// OSA's write buffers: a disk group buffers up to its cache device's
// capacity, at most 600 GB before vSAN 8 and 1.6 TB from it; writes burst
// until the buffers are at the destage threshold (30 %); a run without
// writes lets the elevators drain them at the capacity devices' rate. On
// the WWT testbed, 48 disk groups with 375 GB cache devices: 112.5 GB each
// to fill, at 1.125 GB/s a group: 100 s.
func TestWriteBufferBurst(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	if got := WriteBufferBytes(p); got != 375e9 {
		t.Errorf("a 375 GB cache device buffers %g bytes, want all of it", got)
	}
	big := *p
	big.Storage.Cache.CapacityGB = 2000
	big.VSANRelease = "7.0 U3"
	if got := WriteBufferBytes(&big); got != 600e9 {
		t.Errorf("vSAN 7 with a 2 TB cache device buffers %g bytes, want 600 GB", got)
	}
	big.VSANRelease = "8.0"
	if got := WriteBufferBytes(&big); got != 1600e9 {
		t.Errorf("vSAN 8 with a 2 TB cache device buffers %g bytes, want 1.6 TB", got)
	}

	writing := &Output{Burst: &Output{}, BufferBytesPerSec: 48 * 1.125e9, Write: Direction{IOPS: 1}}
	for _, c := range []struct {
		name              string
		fill, end         float64
		burst, afterwards float64
	}{
		{"empty, a long run", 0, 300, 100, 112.5e9},
		{"half full", 56.25e9, 300, 50, 112.5e9},
		{"empty, a short run", 0, 40, 40, 45e9},
		{"above the threshold", 200e9, 300, 0, 112.5e9},
	} {
		buf := writeBuffer{fill: c.fill}
		got := bufferBurst(p, &buf, writing, c.end)
		if !(math.Abs(got-c.burst) <= 1e-9) || !(math.Abs(buf.fill-c.afterwards) <= 1) {
			t.Errorf("%s: a burst of %g s leaving %g bytes; want %g s, %g", c.name, got, buf.fill, c.burst, c.afterwards)
		}
	}
	// Four 2.9 GB/s capacity devices drain a group's buffer at 11.6 GB/s.
	buf := writeBuffer{fill: 50e9}
	if got := bufferBurst(p, &buf, &Output{Read: Direction{IOPS: 1}}, 2); got != 0 || !(math.Abs(buf.fill-(50e9-2*11.6e9)) <= 1) {
		t.Errorf("2 s of reads: burst %g s, %g bytes left; want 0 s, %g", got, buf.fill, 50e9-2*11.6e9)
	}
	if bufferBurst(p, &buf, &Output{Read: Direction{IOPS: 1}}, 60); buf.fill != 0 {
		t.Errorf("a minute of reads leaves %g bytes in the buffer", buf.fill)
	}
	// Writes that skip the buffer neither fill nor drain it.
	buf = writeBuffer{fill: 50e9}
	if got := bufferBurst(p, &buf, &Output{Write: Direction{IOPS: 1}}, 60); got != 0 || buf.fill != 50e9 {
		t.Errorf("writes without a burst: %g s, %g bytes; want 0 s, 50 GB", got, buf.fill)
	}
	// A burst regime that puts nothing into the buffers does not burst.
	buf = writeBuffer{}
	if got := bufferBurst(p, &buf, &Output{Burst: &Output{}, Write: Direction{IOPS: 1}}, 60); got != 0 || buf.fill != 0 {
		t.Errorf("a burst at 0 bytes/s: %g s, %g bytes", got, buf.fill)
	}
	// ESA has no disk group and no buffer.
	esa := mustLoad(t, "storagereview-r6625-esa")
	if got := bufferBurst(esa, &writeBuffer{}, writing, 300); got != 0 {
		t.Errorf("ESA bursts %g s", got)
	}
}

// A run in time: the burst's figures for its first seconds, the steady
// ones after; over a window, throughput is the I/Os and bytes over the
// window, latencies weighted by I/Os. Worked by hand: 2,000 IOPS for 20 s
// then 1,000 for 70 s are 110,000 I/Os in 90 s.
func TestJobSpanOverAWindow(t *testing.T) {
	steady := [2]Direction{{IOPS: 1000, MBps: 8, LatMeanUs: 300, P50Us: 250, P95Us: 600, P99Us: 900, P999Us: 1200}}
	burst := [2]Direction{{IOPS: 2000, MBps: 16, LatMeanUs: 100, P50Us: 80, P95Us: 200, P99Us: 300, P999Us: 400}}
	sp := jobSpan(10, 100, steady, burst, 30)
	got := sp.over(10, 100)
	mean := func(b, s float64) float64 { return (40000*b + 70000*s) / 110000 }
	want := Direction{IOPS: 110000.0 / 90, MBps: (320 + 560) / 90.0, LatMeanUs: mean(100, 300), P50Us: mean(80, 250), P95Us: mean(200, 600), P99Us: mean(300, 900), P999Us: mean(400, 1200)}
	if !closeDirection(got[read], want) || got[write] != (Direction{}) {
		t.Errorf("over 10-100 s: %+v, want %+v and no writes", got, want)
	}
	if got := sp.over(40, 40); got != ([2]Direction{}) {
		t.Errorf("an empty window: %+v", got)
	}
	if got := sp.over(0, 30)[read]; !closeDirection(got, burst[read]) {
		t.Errorf("the burst alone: %+v, want %+v", got, burst[read])
	}
	if got := sp.over(30, 100)[read]; !closeDirection(got, steady[read]) {
		t.Errorf("the steady part alone: %+v, want %+v", got, steady[read])
	}
	if sp := jobSpan(0, 100, steady, burst, 0); len(sp.phases) != 1 || sp.phases[0] != (phase{0, 100, steady}) {
		t.Errorf("without a burst: %+v", sp.phases)
	}
	if sp := jobSpan(0, 100, steady, burst, 150); len(sp.phases) != 1 || sp.phases[0] != (phase{0, 100, burst}) {
		t.Errorf("a burst through the run: %+v", sp.phases)
	}
	if sp := jobSpan(0, 0, steady, burst, 0); len(sp.phases) != 1 || sp.phases[0] != (phase{0, 0, steady}) {
		t.Errorf("a run of no length: %+v", sp.phases)
	}
}

// Samples: a second each, or longer so that a run has at most about a
// hundred; they count from the end of the ramp, the last ends with the
// run (a tail under half an interval joining the one before, as measured
// samples do), and a direction without I/O has none.
func TestSamplesOfASpan(t *testing.T) {
	for measured, want := range map[float64]float64{50: 1, 149: 1, 150: 2, 250: 3, 1800: 18} {
		if got := sampleInterval(measured); got != want {
			t.Errorf("%g s measured: samples of %g s, want %g", measured, got, want)
		}
	}
	steady := [2]Direction{{}, {IOPS: 500, MBps: 4, LatMeanUs: 200, P99Us: 700}}
	sp := jobSpan(10, 35.5, steady, [2]Direction{}, 0)
	smp := sp.samples("j")
	if len(smp) != 26 || smp[0].TS != 1 || smp[24].TS != 25 || smp[25].TS != 25.5 {
		t.Fatalf("25.5 s measured: %d samples at %v..; want 26, at 1, 2, .., 25, 25.5 s", len(smp), smp[0].TS)
	}
	for _, s := range smp {
		if s.Job != "j" || s.Direction != "write" || s.IOPS != 500 || s.MBps != 4 || s.LatMeanUs != 200 || s.P99Us != 700 {
			t.Fatalf("sample %+v", s)
		}
	}
	if smp := jobSpan(10, 35.4, steady, [2]Direction{}, 0).samples("j"); len(smp) != 25 || smp[23].TS != 24 || smp[24].TS != 25.4 {
		t.Errorf("25.4 s measured: %d samples; want 25, the last from 24 to 25.4 s", len(smp))
	}
	if smp := jobSpan(10, 10.3, steady, [2]Direction{}, 0).samples("j"); len(smp) != 1 || math.Abs(smp[0].TS-0.3) > 1e-9 {
		t.Errorf("0.3 s measured: %+v; want one sample at 0.3 s", smp)
	}
	if smp := jobSpan(10, 10, steady, [2]Direction{}, 0).samples("j"); smp != nil {
		t.Errorf("no measured window: %d samples", len(smp))
	}
}

// The control plane's metrics of an OSA run that bursts cover the whole
// run, as fio's samples do: vSAN's client view is the run's figure, and
// each host's load the burst's for the share of the run it lasted and the
// steady state's for the rest (the same share fio's figure has).
func TestOSAMetricsCoverTheBurstAndTheSteadyState(t *testing.T) {
	src := &memSource{state: ClusterState{Uplink: "25g"}, policies: map[string]Policy{"r1": {RAID: "raid1", FTT: 1}}}
	var names []string
	for i := range 24 {
		names = append(names, fmt.Sprintf("esx-%02d", i+1))
	}
	var model Output
	var client Output
	var hosts map[string]HostLoad
	pl := NewPlane(mustLoad(t, "wwt-r640-osa"), src,
		WithObserver(func(_ context.Context, _ *testbed.Profile, _ Input, o Output, _ float64) { model = o }),
		WithRunLoad(func(_, _ time.Time, _ Input, o Output) { client = o }),
		WithHostLoad(names, func(_, _ time.Time, l map[string]HostLoad) { hosts = l })).(*Plane)
	ctx := context.Background()
	ws := workers(96, 8, "r1")
	prepareDrained(ctx, t, pl, ws)
	job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 65536, IODepth: 8, RuntimeSec: 1800, TimeBased: true}
	res, err := pl.Run(ctx, ws, fio.NewWorkload(job), nil)
	if err != nil {
		t.Fatal(err)
	}
	if model.Burst == nil {
		t.Fatal("no burst: the test needs a run that fills the write buffers")
	}
	run := res.Aggregate[0].IOPS
	if math.Abs(client.Write.IOPS/run-1) > 1e-9 {
		t.Errorf("vSAN's client view %.1f write IOPS, fio's figure %.1f: want the same", client.Write.IOPS, run)
	}
	share := (run - model.Write.IOPS) / (model.Burst.Write.IOPS - model.Write.IOPS)
	if share <= 0.01 || share >= 0.99 {
		t.Fatalf("the burst lasts %.3f of the run; the test needs a part of it", share)
	}
	sum := func(fs []HostFigures) (x float64) {
		for _, f := range fs {
			x += f.CompWriteIOPS
		}
		return x
	}
	var got float64
	for _, l := range hosts {
		got += l.CompWriteIOPS
	}
	steady, burst := sum(model.Hosts), sum(model.Burst.Hosts)
	if want := steady + share*(burst-steady); len(hosts) != 24 || math.Abs(got/want-1) > 1e-9 {
		t.Errorf("%d hosts' component writes %.1f/s, want 24 at %.1f (steady %.1f, burst %.1f, burst for %.3f of the run)", len(hosts), got, want, steady, burst, share)
	}
}

// Resync's copies land in OSA's write buffers like any write: an
// evacuation beside a reader that writes nothing fills the buffers by what
// it moves (here with the idle drain off, so nothing else moves them).
func TestResyncFillsTheWriteBuffers(t *testing.T) {
	ctx := context.Background()
	p := mustLoad(t, "wwt-r640-osa")
	pl := NewPlane(p, &memSource{state: ClusterState{Uplink: "25g"}, policies: map[string]Policy{"r1": {RAID: "raid1", FTT: 1}}}).(*Plane)
	ws := workers(8, 4, "r1")
	prepareDrained(ctx, t, pl, ws)
	p.Model.WriteBufferIdleDestage.Value = 0
	s := pl.Scenario(ws, &fio.Job{Name: "reader", RW: "randread", BlockSize: 4096, IODepth: 8, RuntimeSec: 7200, TimeBased: true, IOEngine: "libaio", Direct: true}, nil)
	_, logged := stepThrough(t, s, []fio.Event{{AtS: 0, Kind: "maintenance_enter", Target: "esx-04", Detail: "full_data_migration"}}, 7200)
	var gib float64
	if len(logged) < 2 || logged[1].Kind != "resync_end" {
		t.Fatalf("logged %+v; want the evacuation to start and end", logged)
	}
	if _, err := fmt.Sscanf(logged[0].Detail, "evacuation of %f GiB", &gib); err != nil {
		t.Fatal(err)
	}
	limit := p.Model.WriteBufferDestageThreshold.Value * WriteBufferBytes(p)
	if want := math.Min(limit, gib*(1<<30)/float64(p.Hosts*p.Storage.DiskGroups)); !nearRel(pl.buffer.fill, want, 1e-3) || want == 0 { // the log gives tenths of a GiB
		t.Errorf("after evacuating %.1f GiB each buffer holds %.4g bytes; want %.4g", gib, pl.buffer.fill, want)
	}
}
