package model

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"starbench/internal/fio"
)

// The degraded mode's tests check its mechanisms and vSAN's published
// behaviour (docs/model.md, "Degraded mode"): the repair timer, the I/O
// pause at a failure, what a rebuild copies, adaptive resync's share, and
// the measured cost of ESA snapshots.

func oltpJob(runtime int) *fio.Job {
	return &fio.Job{Name: "oltp", RW: "randrw", RWMixRead: 70, BlockSize: 8192, IODepth: 16, RuntimeSec: runtime, TimeBased: true, IOEngine: "libaio", Direct: true}
}

func solveDegraded(t *testing.T, profile string, job *fio.Job, d *Degradation) *Output {
	t.Helper()
	p := mustLoad(t, profile)
	in := UniformInput(p, 4*p.Hosts, 4, Policy{RAID: "raid1", FTT: 1}, job)
	in.Degradation = d
	out, err := Solve(context.Background(), p, in)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func iops(o *Output) float64 { return o.Read.IOPS + o.Write.IOPS }

func TestAHostOutLeavesTheOthersItsLoad(t *testing.T) {
	read := &fio.Job{RW: "randread", BlockSize: 4096, IODepth: 64, RuntimeSec: 60, IOEngine: "libaio", Direct: true}
	whole := solveDegraded(t, "storagereview-r6625-esa", read, nil)
	one := solveDegraded(t, "storagereview-r6625-esa", read, &Degradation{Out: 1})
	// Saturated random reads: three hosts of four carry what they can.
	if r := iops(one) / iops(whole); r < 0.65 || r > 0.85 {
		t.Errorf("one host of 4 out: %.0f IOPS of %.0f (%.2f); want about 3/4", iops(one), iops(whole), r)
	}
	if one.Read.LatMeanUs <= whole.Read.LatMeanUs {
		t.Errorf("latency with a host out %.0f us, whole %.0f us; want it higher", one.Read.LatMeanUs, whole.Read.LatMeanUs)
	}
	if _, err := Solve(context.Background(), mustLoad(t, "storagereview-r6625-esa"), Input{Jobs: []JobLoad{{Job: read, Disks: []DiskLoad{{Written: 1}}}}, Degradation: &Degradation{Out: 4}}); err == nil || !strings.Contains(err.Error(), "at least one host must serve") {
		t.Errorf("every host out: %v", err)
	}
}

// TestAHostOutWithoutWorkersLeavesTheWorkersHosts: where the hosts out
// are known (a scenario knows them), a host out that runs none of the
// measured VMs takes nothing from the worker hosts' own stations (guest,
// DOM, CPU, NICs), while a worker host out leaves its VMs' load to the
// other two. (With only a count, a failure of the idle fourth host shrank
// the three worker hosts' stations to two, and scripts/node_failure.star's
// OLTP fell by a third through the failure.)
func TestAHostOutWithoutWorkersLeavesTheWorkersHosts(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	in := UniformInput(p, 6, 4, Policy{RAID: "raid1", FTT: 1}, oltpJob(60))
	for v := range in.VMs {
		in.VMs[v].Host = fmt.Sprintf("host%d", v%3) // hosts 0-2 (indices 0-2); host 3 has no worker
	}
	solve := func(d *Degradation) *Output {
		t.Helper()
		in := in
		in.Degradation = d
		out, err := Solve(context.Background(), p, in)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	whole, idle, busy := solve(nil), solve(&Degradation{Out: 1, OutHosts: []int{3}}), solve(&Degradation{Out: 1, OutHosts: []int{0}})
	if r := iops(idle) / iops(whole); r < 0.95 || r > 1.05 {
		t.Errorf("the idle host out: %.0f IOPS of %.0f (x%.3f); want about the same", iops(idle), iops(whole), r)
	}
	if r := iops(busy) / iops(whole); r > 0.85 {
		t.Errorf("a worker host out: %.0f IOPS of %.0f (x%.3f); want its VMs' load on the other two to cost throughput", iops(busy), iops(whole), r)
	}
}

func TestAbsentComponentsSaveReplicaWrites(t *testing.T) {
	write := &fio.Job{RW: "write", BlockSize: 1 << 20, IODepth: 8, RuntimeSec: 60, IOEngine: "libaio", Direct: true}
	out := solveDegraded(t, "storagereview-r6625-esa", write, &Degradation{Out: 1})
	absent := solveDegraded(t, "storagereview-r6625-esa", write, &Degradation{Out: 1, Absent: 0.5})
	// Half the objects write one RAID-1 mirror instead of two.
	if absent.Write.MBps <= out.Write.MBps {
		t.Errorf("writes with half the objects missing a mirror %.0f MB/s, all mirrors %.0f MB/s; want faster (fewer replicas)", absent.Write.MBps, out.Write.MBps)
	}
}

func TestBackgroundWorkTakesItsShareOfTheBottleneck(t *testing.T) {
	read := &fio.Job{RW: "randread", BlockSize: 4096, IODepth: 64, RuntimeSec: 60, IOEngine: "libaio", Direct: true}
	whole := solveDegraded(t, "storagereview-r6625-esa", read, nil)
	bg := map[string]float64{}
	for _, st := range whole.Stations {
		bg[st.Name] = 0.2
	}
	shared := solveDegraded(t, "storagereview-r6625-esa", read, &Degradation{Background: bg})
	if r := iops(shared) / iops(whole); r < 0.75 || r > 0.85 {
		t.Errorf("a fifth of every station taken: %.2f of the throughput; want about 0.8", r)
	}
}

func TestSnapshotCostOnESAIsSmallAndGrowsWithTheChainOnOSA(t *testing.T) {
	job := oltpJob(60)
	esa := solveDegraded(t, "storagereview-r6625-esa", job, nil)
	esa5 := solveDegraded(t, "storagereview-r6625-esa", job, &Degradation{Snapshots: 5})
	// Yellow Bricks measured below 2 % on ESA, the same with one snapshot or five.
	if loss := 1 - iops(esa5)/iops(esa); loss < 0 || loss > 0.02 {
		t.Errorf("ESA with 5 snapshots loses %.1f %% of its IOPS; the published figure is below 2 %%", 100*loss)
	}
	osa := solveDegraded(t, "wwt-r640-osa", job, nil)
	osa1 := solveDegraded(t, "wwt-r640-osa", job, &Degradation{Snapshots: 1})
	osa3 := solveDegraded(t, "wwt-r640-osa", job, &Degradation{Snapshots: 3})
	if !(iops(osa3) < iops(osa1) && iops(osa1) < iops(osa)) {
		t.Errorf("OSA IOPS without, with 1 and with 3 snapshots: %.0f, %.0f, %.0f; want each lower", iops(osa), iops(osa1), iops(osa3))
	}
}

func TestResyncOverloadsA10GbENetworkOnOSA(t *testing.T) {
	// VMware KB 371138: with modern SSDs, OSA resync can overload a 10 Gb
	// network. The stations resync loads most on the WWT testbed at 10 GbE
	// are the NICs, not the devices.
	p := mustLoad(t, "wwt-r640-osa")
	in := UniformInput(p, 4*p.Hosts, 4, Policy{RAID: "raid1", FTT: 1}, oltpJob(60))
	in.State.Uplink = "10g"
	d := &Degradation{Out: 1}
	in.Degradation = d
	c, err := buildCell(p, in, false)
	if err != nil {
		t.Fatal(err)
	}
	load := resyncLoad(p, c, d)
	busiest, most := "", 0.0
	for k, v := range load {
		if v > most {
			busiest, most = k, v
		}
	}
	if !strings.HasPrefix(busiest, "nic-") {
		t.Errorf("resync alone is bound by %s (%v); want the 10 GbE NICs", busiest, load)
	}
	// Alone it moves what 23 hosts' links carry: 2 x 10 GbE in a LAG, at
	// most 2.5 GB/s each.
	if rate := 1 / most; rate < 30e9 || rate > 23*2.5e9 {
		t.Errorf("resync alone moves %.1f GB/s on 23 hosts with 2 x 10 GbE; want up to 23 x 2.5 GB/s", rate/1e9)
	}
}

// scenarioPlane is a test plane with 8 prepared workers of 4 x 50 GiB RAID-1 disks.
func scenarioPlane(t *testing.T) (*Plane, []fio.Worker) {
	pl, src := newTestPlane(t)
	src.policies["r1"] = Policy{RAID: "raid1", FTT: 1}
	ws := workers(8, 4, "r1")
	if err := pl.Prepare(context.Background(), ws, fio.Prep{Method: "random"}, nil); err != nil {
		t.Fatal(err)
	}
	return pl, ws
}

// dueBy are the events of evs due by at (seconds).
func dueBy(evs []fio.Event, at float64) []fio.Event {
	var due []fio.Event
	for _, e := range evs {
		if e.AtS <= at {
			due = append(due, e)
		}
	}
	return due
}

// stepThrough steps a scenario in 60 s intervals to end, giving it the
// events due by each step, and returns the aggregate IOPS per interval and
// what it logged.
func stepThrough(t *testing.T, s *Scenario, evs []fio.Event, end float64) ([]float64, []fio.Event) {
	t.Helper()
	var series []float64
	var logged []fio.Event
	for at := 0.0; at < end; at += 60 {
		samples, l, err := s.Step(context.Background(), at, 60, dueBy(evs, at))
		if err != nil {
			t.Fatal(err)
		}
		x := 0.0
		for _, smp := range samples {
			if smp.Job == "oltp" {
				x += smp.IOPS
			}
		}
		series = append(series, x)
		logged = append(logged, l...)
	}
	return series, logged
}

func TestRebuildStartsWhenTheRepairTimerRunsOut(t *testing.T) {
	pl, ws := scenarioPlane(t)
	s := pl.Scenario(ws, oltpJob(6000), nil)
	fail := fio.Event{AtS: 300, Kind: "host_failure", Target: "esx-04"}
	series, logged := stepThrough(t, s, []fio.Event{fail}, 5400)
	if len(logged) < 2 || logged[0].Kind != "resync_start" || logged[0].AtS != 300+RepairDelay {
		t.Fatalf("logged %+v; want the rebuild to start at %g s (60 minutes after the failure)", logged, 300+RepairDelay)
	}
	// The rebuild copies the host's share of the disks' data: 8 x 4 x 50 GiB,
	// two mirrors, over 4 hosts (what is stored, not the devices' size).
	if want := "rebuild of 800.0 GiB"; logged[0].Detail != want {
		t.Errorf("rebuild detail %q, want %q", logged[0].Detail, want)
	}
	if logged[1].Kind != "resync_end" || logged[1].AtS <= logged[0].AtS {
		t.Errorf("the rebuild ends %+v", logged[1])
	}
	before, pause, down := series[3], series[5], series[10]
	// vSAN stops I/O 5-7 s while it re-evaluates the objects: a 60 s
	// interval holding the failure loses about a tenth.
	if r := pause / down; r > 0.95 || r < 0.8 {
		t.Errorf("the interval of the failure has %.0f IOPS against %.0f after it (%.2f); want about 54/60 of it", pause, down, r)
	}
	if down >= before {
		t.Errorf("IOPS with a host out %.0f, before %.0f; want lower", down, before)
	}
	during := series[int((logged[0].AtS+30)/60)]
	if during >= down {
		t.Errorf("IOPS during the rebuild %.0f, before it %.0f; want lower (resync competes)", during, down)
	}
}

// TestAFailedHostWithoutWorkersTakesNothingFromTheirHosts: the workers
// run on three hosts and the fourth fails (scripts/node_failure.star's
// layout): their hosts' own stations are untouched, so throughput holds
// but for what the devices out and the replicas left change; it fell by a
// third while the model took any host out as one of the workers'.
func TestAFailedHostWithoutWorkersTakesNothingFromTheirHosts(t *testing.T) {
	pl, ws := scenarioPlane(t)
	ws = ws[:6] // two on each of three hosts
	for i := range ws {
		ws[i].Host = fmt.Sprintf("esx-%02d", 1+i%3)
	}
	s := pl.Scenario(ws, oltpJob(3000), nil)
	series, _ := stepThrough(t, s, []fio.Event{{AtS: 300, Kind: "host_failure", Target: "esx-04"}}, 1200)
	before, down := series[3], series[10]
	if r := down / before; r < 0.95 || r > 1.1 {
		t.Errorf("IOPS with the host without workers out %.0f, before %.0f (x%.3f); want about the same", down, before, r)
	}
}

func TestAHostBackBeforeTheTimerResyncsOnlyWhatChanged(t *testing.T) {
	pl, ws := scenarioPlane(t)
	s := pl.Scenario(ws, oltpJob(3000), nil)
	evs := []fio.Event{{AtS: 120, Kind: "host_failure", Target: "esx-04"}, {AtS: 1320, Kind: "host_return", Target: "esx-04"}}
	_, logged := stepThrough(t, s, evs, 2400)
	if len(logged) != 2 || logged[0].Kind != "resync_start" || logged[0].AtS != 1320 || !strings.HasPrefix(logged[0].Detail, "resync of ") {
		t.Fatalf("logged %+v; want a resync of the stale data when the host is back at 1320 s", logged)
	}
	var gib float64
	if _, err := fmt.Sscanf(logged[0].Detail, "resync of %f GiB", &gib); err != nil {
		t.Fatal(err)
	}
	if gib <= 0 || gib >= 800 {
		t.Errorf("resync of %.1f GiB; want more than nothing and less than the 800 GiB a rebuild copies", gib)
	}
}

func TestResyncKeepsItsShareUnderASaturatingForeground(t *testing.T) {
	pl, ws := scenarioPlane(t)
	s := pl.Scenario(ws, &fio.Job{Name: "oltp", RW: "randwrite", BlockSize: 65536, IODepth: 64, RuntimeSec: 6000, TimeBased: true, IOEngine: "libaio", Direct: true}, nil)
	evs := []fio.Event{{AtS: 0, Kind: "maintenance_enter", Target: "esx-04", Detail: "full_data_migration"}}
	_, logged := stepThrough(t, s, evs, 3600)
	if len(logged) < 2 || logged[0].AtS != 0 || logged[1].Kind != "resync_end" {
		t.Fatalf("logged %+v; want the evacuation to start at once and end", logged)
	}
	// Under a saturating foreground, adaptive resync still moves its share
	// of what it could move alone (the foreground leaves it less than that).
	d := Degradation{Out: 1}
	in, _, err := pl.input(context.Background(), ws, s.classes[0].job)
	if err != nil {
		t.Fatal(err)
	}
	in.Degradation = &d
	c, err := buildCell(pl.p, in, false)
	if err != nil {
		t.Fatal(err)
	}
	alone := math.Inf(1)
	for _, l := range resyncLoad(pl.p, c, &d) {
		alone = math.Min(alone, 1/l)
	}
	var gib float64
	if _, err := fmt.Sscanf(logged[0].Detail, "evacuation of %f GiB", &gib); err != nil {
		t.Fatal(err)
	}
	took := logged[1].AtS - logged[0].AtS
	if rate := gib * (1 << 30) / took; !(math.Abs(rate/(ResyncMinShare*alone)-1) <= 1e-3) {
		t.Errorf("evacuation at %.2f GB/s; adaptive resync keeps %.0f %% of %.2f GB/s, and a saturating foreground leaves it no more", rate/1e9, 100*ResyncMinShare, alone/1e9)
	}
}

func TestSecondWorkloadSharesTheCluster(t *testing.T) {
	pl, ws := scenarioPlane(t)
	db, other := ws[:4], ws[4:]
	s := pl.Scenario(db, oltpJob(1800), nil)
	s.AddWorkload("backup", other, &fio.Job{Name: "backup", RW: "read", BlockSize: 1 << 20, IODepth: 8, RuntimeSec: 600, TimeBased: true, IOEngine: "libaio", Direct: true}, 600, 1200)
	series, _ := stepThrough(t, s, nil, 1800)
	alone, beside, after := series[5], series[15], series[25]
	if beside >= 0.95*alone {
		t.Errorf("OLTP beside the backup %.0f IOPS, alone %.0f; want lower", beside, alone)
	}
	if math.Abs(after-alone)/alone > 0.05 {
		t.Errorf("OLTP after the backup %.0f IOPS, before %.0f; want it back", after, alone)
	}
	res, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	jobs := map[string]bool{}
	for _, r := range res.Aggregate {
		jobs[r.Job] = true
	}
	if !jobs["oltp"] || !jobs["backup"] {
		t.Errorf("the result's rows are of jobs %v; want oltp and backup", jobs)
	}
}

func TestOSAConsolidatesWhatTheSnapshotsHeldWhenTheLastGoes(t *testing.T) {
	for _, osa := range []bool{true, false} {
		r := recovery{hosts: 4, osa: osa, disks: 10 << 30, out: map[string]*absence{}}
		r.apply(fio.Event{AtS: 60, Kind: "snapshot_create"})
		r.apply(fio.Event{AtS: 120, Kind: "snapshot_create"})
		if d := r.degradation(); d.Snapshots != 2 {
			t.Fatalf("%d snapshots in the chain, want 2", d.Snapshots)
		}
		r.wrote(6 << 30)
		r.wrote(6 << 30) // a delta holds each block once: at most the disks' 10 GiB
		r.apply(fio.Event{AtS: 600, Kind: "snapshot_remove"})
		if r.pending(math.Inf(1)) {
			t.Errorf("osa %v: a consolidation while a snapshot is left", osa)
		}
		r.apply(fio.Event{AtS: 600, Kind: "snapshot_remove"})
		// ESA keeps snapshots in its metadata: deleting one merges nothing.
		if r.pending(math.Inf(1)) != osa {
			t.Errorf("osa %v: consolidation pending %v once the last snapshot went", osa, !osa)
		}
		evs, busy := r.resync(600, 60, 1<<30)
		if osa && (len(evs) != 2 || evs[0].Kind != "consolidation_start" || evs[1].Kind != "consolidation_end" || busy != 10) {
			t.Errorf("consolidating 10 GiB at 1 GiB/s: %+v, busy %g s", evs, busy)
		}
	}
}

func TestADeviceOutLeavesTheOtherDevicesItsLoad(t *testing.T) {
	job := &fio.Job{RW: "randread", BlockSize: 4096, IODepth: 64, RuntimeSec: 60, IOEngine: "libaio", Direct: true}
	stations := func(profile string, d *Degradation) map[string]station {
		out, _ := stationsOf(t, profile, Policy{RAID: "raid1", FTT: 1}, job, d)
		return out
	}
	// What the devices out served, the others serve: copies x demand stays.
	same := func(whole, less station, lost int) {
		t.Helper()
		if less.Copies != whole.Copies-lost {
			t.Errorf("%s: %d copies with %d out, whole %d", whole.Name, less.Copies, lost, whole.Copies)
		}
		if a, b := float64(whole.Copies)*whole.D[read], float64(less.Copies)*less.D[read]; !(math.Abs(a-b) <= 1e-9*a) {
			t.Errorf("%s: the cluster's read demand %g with devices out, %g whole", whole.Name, b, a)
		}
	}
	esa, esa1 := stations("storagereview-r6625-esa", nil), stations("storagereview-r6625-esa", &Degradation{Devices: 1})
	same(esa["ssd-capacity"], esa1["ssd-capacity"], 1)
	same(esa["vsan-device"], esa1["vsan-device"], 1)
	same(esa["cpu"], esa1["cpu"], 0)
	// An OSA disk group out takes its cache device, its LSOM and its four
	// capacity devices.
	osa, osa1 := stations("wwt-r640-osa", nil), stations("wwt-r640-osa", &Degradation{Groups: 1, Devices: 4})
	same(osa["ssd-cache"], osa1["ssd-cache"], 1)
	same(osa["vsan-diskgroup"], osa1["vsan-diskgroup"], 1)
	same(osa["ssd-capacity"], osa1["ssd-capacity"], 4)
	p := mustLoad(t, "storagereview-r6625-esa")
	in := UniformInput(p, 4, 1, Policy{RAID: "raid1", FTT: 1}, job)
	in.Degradation = &Degradation{Devices: p.Hosts * p.Storage.CapacityDevices}
	if _, err := Solve(context.Background(), p, in); err == nil || !strings.Contains(err.Error(), "at least one must serve") {
		t.Errorf("every device out: %v", err)
	}
}

func TestAnAbsentDeviceRebuildsAfterTheTimerADegradedOneAtOnce(t *testing.T) {
	for _, tc := range []struct {
		components string
		start      float64
	}{{"absent", 300 + RepairDelay}, {"degraded", 300}} {
		pl, ws := scenarioPlane(t)
		s := pl.Scenario(ws, oltpJob(6000), nil)
		fail := fio.Event{AtS: 300, Kind: "disk_failure", Target: "esx-02/naa.1", Detail: "how=remove unit=device components=" + tc.components}
		series, logged := stepThrough(t, s, []fio.Event{fail}, 4500)
		if len(logged) < 2 || logged[0].Kind != "resync_start" || logged[0].AtS != tc.start || logged[0].Target != fail.Target {
			t.Fatalf("%s: logged %+v; want the rebuild of %s to start at %g s", tc.components, logged, fail.Target, tc.start)
		}
		// One device of 32 holds a 32nd of what is stored: 8 x 4 x 50 GiB
		// RAID-1 disks, two mirrors.
		if want := "rebuild of 100.0 GiB"; logged[0].Detail != want {
			t.Errorf("%s: rebuild detail %q, want %q", tc.components, logged[0].Detail, want)
		}
		if logged[1].Kind != "resync_end" || logged[1].AtS <= logged[0].AtS {
			t.Errorf("%s: the rebuild ends %+v", tc.components, logged[1])
		}
		before, pause, after := series[3], series[5], series[6]
		// vSAN stops I/O 5-7 s at a device failure as at a host's; a
		// degraded device's rebuild runs in the same interval.
		if r := pause / after; r > 0.95 || (tc.components == "absent" && r < 0.8) {
			t.Errorf("%s: the interval of the failure has %.0f IOPS against %.0f after it (%.2f); want about 54/60 of it, or less with the rebuild", tc.components, pause, after, r)
		}
		during := series[int((logged[0].AtS+30)/60)]
		if during >= 0.99*before {
			t.Errorf("%s: IOPS during the rebuild %.0f, before the failure %.0f; want lower (the rebuild competes)", tc.components, during, before)
		}
		t.Logf("%s: %.0f IOPS before, %.0f in the failure's interval, %.0f during the rebuild (%s %.0f s to %.0f s)", tc.components, before, pause, during, logged[0].Detail, logged[0].AtS, logged[1].AtS)
	}
}

func TestADiskGroupBackResyncsWhatChangedARemovedDeviceIsRebuilt(t *testing.T) {
	r := recovery{hosts: 4, osa: true, devices: 32, groups: 8, perGroup: 4, stored: 800 << 30, comps: 2, stripes: 2, groupSpans: 2, out: map[string]*absence{}, failed: map[string]*diskOut{}}
	r.apply(fio.Event{AtS: 60, Kind: "disk_failure", Target: "h1/naa.g", Detail: "how=unmount unit=disk_group components=absent"})
	r.apply(fio.Event{AtS: 60, Kind: "disk_failure", Target: "h2/naa.d", Detail: "how=remove unit=device components=absent"})
	if d := r.degradation(); d.Groups != 1 || d.Devices != 5 || d.Absent <= 0 {
		t.Fatalf("a group of 4 and a device out: %+v", d)
	}
	r.wrote(8 << 30)
	r.apply(fio.Event{AtS: 600, Kind: "disk_return", Target: "h1/naa.g"})
	r.apply(fio.Event{AtS: 600, Kind: "disk_return", Target: "h2/naa.d"})
	d := r.degradation()
	if d.Groups != 0 || d.Devices != 0 || d.Absent <= 0 {
		t.Errorf("both back: %+v; want every device serving and the removed one's components still absent", d)
	}
	var jobs []string
	for _, j := range r.queue {
		jobs = append(jobs, fmt.Sprintf("%s %s %.1f GiB from %g s", j.kind, j.target, j.bytes/(1<<30), j.ready))
	}
	// The group kept its data: a 4th of what was written to its objects
	// (2 components over 8 groups) resyncs; the device came back empty: its
	// 25 GiB are rebuilt when the timer runs out.
	want := []string{"rebuild h2/naa.d 25.0 GiB from 3660 s", "resync h1/naa.g 2.0 GiB from 600 s"}
	if !slices.Equal(jobs, want) {
		t.Errorf("background work %v, want %v", jobs, want)
	}
	r.resync(3660, 60, 1<<30)
	if d := r.degradation(); d.Absent != 0 || len(r.failed) != 0 {
		t.Errorf("after the rebuild: %+v, %d devices still tracked", d, len(r.failed))
	}
}

// degradedStations are the stations of 4 VMs per host with 4 disks each
// running the OLTP job under pol, degraded by d (nil: whole), by name.
func degradedStations(t *testing.T, profile string, pol Policy, d *Degradation) (map[string]station, *cell) {
	t.Helper()
	return stationsOf(t, profile, pol, oltpJob(60), d)
}

// stationsOf are the stations of 4 VMs per host with 4 disks each running
// job under pol, degraded by d (nil: whole), by name.
func stationsOf(t *testing.T, profile string, pol Policy, job *fio.Job, d *Degradation) (map[string]station, *cell) {
	t.Helper()
	p := mustLoad(t, profile)
	in := UniformInput(p, 4*p.Hosts, 4, pol, job)
	in.Degradation = d
	c, err := buildCell(p, in, false)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]station{}
	for _, s := range c.st {
		out[s.Name] = s
	}
	return out, c
}

// Each mechanism of the degraded mode on its own, station by station.
func TestDegradationStationByStation(t *testing.T) {
	const esa, osa = "storagereview-r6625-esa", "wwt-r640-osa"
	r1 := Policy{RAID: "raid1", FTT: 1}
	whole, _ := degradedStations(t, esa, r1, nil)
	ratio := func(a, b station, dir int) float64 { return a.D[dir] / b.D[dir] }

	// One host of 4 out: the per-host and device stations keep 3/4 of their
	// copies (rounded), and the cluster's demand (copies x demand) stays.
	out, _ := degradedStations(t, esa, r1, &Degradation{Out: 1})
	for name, s := range whole {
		o := out[name]
		switch {
		case slices.Contains(perHostStations, name), slices.Contains(deviceStations, name):
			if want := int(math.Round(float64(s.Copies) * 3 / 4)); o.Copies != want {
				t.Errorf("one host out: %s has %d copies of %d, want %d", name, o.Copies, s.Copies, want)
			}
			for dir := range 2 {
				if a, b := float64(o.Copies)*o.D[dir], float64(s.Copies)*s.D[dir]; !(math.Abs(a/b-1) <= 1e-12) && b > 0 {
					t.Errorf("one host out: %s's cluster demand %g, whole %g", name, a, b)
				}
			}
		default:
			if o.Copies != s.Copies || o.D != s.D {
				t.Errorf("one host out changed %s: %+v, whole %+v", name, o, s)
			}
		}
	}

	// Half the objects missing a component: on every station that works
	// per replica, a RAID-1 write reaches 1.5 mirrors of 2 (3/4 of the
	// demand); RAID-1 reads need no reconstruction.
	absent, _ := degradedStations(t, esa, r1, &Degradation{Absent: 0.5})
	for name, s := range whole {
		a := absent[name]
		wantW := 1.0
		if slices.Contains(replicaStations, name) {
			wantW = 0.75
		}
		if s.D[write] > 0 && !(math.Abs(ratio(a, s, write)-wantW) <= 1e-12) || a.D[read] != s.D[read] {
			t.Errorf("half absent, RAID-1: %s write demand x%g, read x%g; want x%g and x1", name, ratio(a, s, write), ratio(a, s, read), wantW)
		}
	}
	// Erasure coding: on ESA (RAID-5 2+1 on 4 hosts) writes land on the
	// performance leg's 2 mirrors; on OSA (3+1) on the stripe's 4
	// components. A read of a missing data component (1 time in k) reads
	// the stripe's others: x(1 + absent x data/k).
	for _, c := range []struct {
		profile      string
		write, reads float64
	}{{esa, 1 - 0.5/2, 1 + 0.5*2.0/3}, {osa, 1 - 0.5/4, 1 + 0.5*3.0/4}} {
		r5 := Policy{RAID: "raid5", FTT: 1}
		w, _ := degradedStations(t, c.profile, r5, nil)
		a, _ := degradedStations(t, c.profile, r5, &Degradation{Absent: 0.5})
		for _, name := range []string{"ssd-capacity", "nic-tx"} {
			if gw, gr := ratio(a[name], w[name], write), ratio(a[name], w[name], read); !(math.Abs(gw-c.write) <= 1e-12) || !(math.Abs(gr-c.reads) <= 1e-12) {
				t.Errorf("%s RAID-5 half absent: %s write x%g, read x%g; want x%g, x%g", c.profile, name, gw, gr, c.write, c.reads)
			}
		}
	}

	// Snapshots add DOM cycles per I/O, spread over the copies, on the DOM
	// and CPU stations only: ESA a flat 2 % of a DOM I/O; OSA a tenth of a
	// DOM I/O per level to read, plus an LSOM operation to write.
	for _, c := range []struct {
		profile string
		n       int
	}{{esa, 5}, {osa, 3}} {
		w, cl := degradedStations(t, c.profile, r1, nil)
		snap, _ := degradedStations(t, c.profile, r1, &Degradation{Snapshots: c.n})
		m := &cl.pl
		p := mustLoad(t, c.profile)
		want := [2]float64{0.02 * p.Model.DOMIOCycles.Value, 0.02 * p.Model.DOMIOCycles.Value}
		if c.profile == osa {
			lookup := float64(c.n) * 0.1 * p.Model.DOMIOCycles.Value
			want = [2]float64{lookup, lookup + p.Model.LSOMOpCycles.Value}
		}
		for name, s := range w {
			for dir := range 2 {
				added := (snap[name].D[dir] - s.D[dir]) * m.hz * float64(s.Copies)
				if name != "cpu" && name != "vsan-dom" {
					if added != 0 {
						t.Errorf("%s, %d snapshots: %s gains %g cycles per I/O", c.profile, c.n, name, added)
					}
					continue
				}
				if !(math.Abs(added/want[dir]-1) <= 1e-9) {
					t.Errorf("%s, %d snapshots: %s gains %g cycles per %s, want %g", c.profile, c.n, name, added, dirName[dir], want[dir])
				}
			}
		}
	}

	// Background work takes its share of a station's capacity, at most 95 %.
	bg, _ := degradedStations(t, esa, r1, &Degradation{Background: map[string]float64{"cpu": 0.5, "nic-tx": 0.99}})
	for name, s := range whole {
		f := map[string]float64{"cpu": 2, "nic-tx": 20}[name]
		if f == 0 {
			f = 1
		}
		b := bg[name]
		for dir := range 2 {
			if s.D[dir] > 0 && !(math.Abs(ratio(b, s, dir)/f-1) <= 1e-12) || b.Extra[dir] != s.Extra[dir]*f {
				t.Errorf("background: %s demand x%g, extra %g (whole %g); want x%g", name, ratio(b, s, dir), b.Extra[dir], s.Extra[dir], f)
			}
			if s.Busy != nil && !(math.Abs(b.Busy[dir]/s.Busy[dir]/f-1) <= 1e-12) {
				t.Errorf("background: %s busy part x%g, want x%g", name, b.Busy[dir]/s.Busy[dir], f)
			}
		}
	}
}

// One byte per second of resync, station by station: the byte is read on
// a source device and written on a target device (through the cache tier
// on OSA), sent by one host and received by another, with DOM cycles
// (and checksums) on both ends, LSOM's read and write, and the network
// stack's per-byte cycles (RDMA's instead of TCP's), all spread over what
// still serves.
func TestResyncLoadPerByte(t *testing.T) {
	for _, c := range []struct {
		profile string
		rdma    bool
		d       Degradation
	}{
		{"storagereview-r6625-esa", false, Degradation{Out: 1, Devices: 2}},
		{"wwt-r640-osa", false, Degradation{Out: 2, Groups: 1, Devices: 4}},
		{"wwt-r640-osa", true, Degradation{}},
	} {
		p := mustLoad(t, c.profile)
		in := UniformInput(p, 4*p.Hosts, 4, Policy{RAID: "raid1", FTT: 1}, oltpJob(60))
		in.State.RDMA = c.rdma
		in.Degradation = &c.d
		cl, err := buildCell(p, in, false)
		if err != nil {
			t.Fatal(err)
		}
		if cl.rdma != c.rdma {
			t.Fatalf("%s: RDMA %v, want %v", c.profile, cl.rdma, c.rdma)
		}
		m := &p.Model
		pl := newPlatform(p)
		link, err := resolveLink(p, in.State, c.rdma)
		if err != nil {
			t.Fatal(err)
		}
		hosts := float64(p.Hosts - c.d.Out)
		share := hosts / float64(p.Hosts)
		devices := float64(p.Hosts*p.Storage.CapacityDevices)*share - float64(c.d.Devices)
		net := m.TxByteCyclesTCP.Value + m.RxByteCyclesTCP.Value
		if c.rdma {
			net = 2 * m.ByteCyclesRDMA.Value
		}
		dom := 2 * (m.DOMByteCycles.Value + m.ChecksumCyclesPerByte.Value)
		lsom := m.LSOMReadByteCycles.Value + m.LSOMWriteByteCycles.Value
		capRead, capWrite := deviceRates(p.Storage.Capacity)
		want := map[string]float64{
			"cpu":          (dom + lsom + net) / pl.hz / (hosts * pl.effCPU),
			"vsan-dom":     dom / pl.hz / (hosts * pl.domWorlds),
			"nic-tx":       link.frame / (hosts * link.bps),
			"nic-rx":       link.frame / (hosts * link.bps),
			"ssd-capacity": (1/capRead + 1/capWrite) / devices,
		}
		if p.Architecture == "OSA" {
			groups := float64(p.Hosts*p.Storage.DiskGroups)*share - float64(c.d.Groups)
			_, cacheWrite := deviceRates(p.Storage.Cache)
			want["ssd-cache"] = 1 / cacheWrite / groups
			want["vsan-diskgroup"] = lsom / pl.hz / (groups * m.DiskGroupWorlds.Value)
		} else {
			want["vsan-device"] = lsom / pl.hz / (devices * m.DeviceWorlds.Value)
		}
		got := resyncLoad(p, cl, &c.d)
		if len(got) != len(want) {
			t.Errorf("%s %+v: load on %v, want %v", c.profile, c.d, got, want)
		}
		for name, w := range want {
			if !(math.Abs(got[name]/w-1) <= 1e-12) {
				t.Errorf("%s %+v rdma %v: %s %g per byte/s, want %g", c.profile, c.d, c.rdma, name, got[name], w)
			}
		}
	}
}

// Resync checksums the bytes it moves only where the objects' policy keeps
// vSAN's checksum: with "Disable object checksum" both ends' DOM work per
// byte loses checksum_cycles_per_byte, as a guest I/O's does.
func TestResyncOfObjectsWithoutChecksum(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	d := &Degradation{Out: 1}
	load := func(off bool) (map[string]float64, *cell) {
		in := UniformInput(p, 4*p.Hosts, 4, Policy{RAID: "raid1", FTT: 1, ChecksumDisabled: off}, oltpJob(60))
		in.Degradation = d
		c, err := buildCell(p, in, false)
		if err != nil {
			t.Fatal(err)
		}
		return resyncLoad(p, c, d), c
	}
	on, c := load(false)
	off, _ := load(true)
	hosts := float64(p.Hosts - d.Out)
	want := 2 * p.Model.ChecksumCyclesPerByte.Value / c.pl.hz / (hosts * c.pl.domWorlds)
	if got := on["vsan-dom"] - off["vsan-dom"]; !closeTo(got, want) {
		t.Errorf("vsan-dom per resync byte a second: %.4g less without checksum, want %.4g (both ends' checksum)", got, want)
	}
	if !(off["cpu"] < on["cpu"]) || off["nic-tx"] != on["nic-tx"] {
		t.Errorf("without checksum: cpu %g (with %g), nic-tx %g (with %g); want less CPU, the same wire", off["cpu"], on["cpu"], off["nic-tx"], on["nic-tx"])
	}
}
