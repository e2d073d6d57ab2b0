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

const gib = float64(1 << 30)

// newRecovery is the bookkeeping of a cluster of 4 hosts of 8 devices in 4
// OSA disk groups of 2, storing 800 GiB of objects of 2 components each,
// not striped (so a host holds a share 2/4 of the objects, a device 2/32).
func newRecovery() *recovery {
	return &recovery{hosts: 4, osa: true, perHost: 200 * gib, share: 0.5, disks: 400 * gib, stored: 800 * gib, comps: 2, stripes: 2, groupSpans: 2,
		devices: 32, groups: 16, perGroup: 2, out: map[string]*absence{}, failed: map[string]*diskOut{}}
}

func describe(evs []fio.Event) string {
	var s []string
	for _, e := range evs {
		s = append(s, fmt.Sprintf("%g %s %s %s", e.AtS, e.Kind, e.Target, e.Detail))
	}
	return strings.Join(s, "; ")
}

// Background copies run oldest first, one after another at the rate given;
// a copy not ready by the end of the interval waits, one ready later in it
// starts then. Worked by hand at 10 GiB/s from 0 to 20 s: the 100 GiB
// rebuild takes 10 s; the consolidation ready at 20 s waits; the 300 GiB
// resync, ready at 5 s, starts at 10 s and moves 100 GiB by 20 s. In the
// next interval the consolidation (older) takes 5 s, then the resync's
// other 200 GiB 20 s, then the evacuation, waiting since 0 s, 10 s.
func TestResyncRunsCopiesOldestFirstAtTheRate(t *testing.T) {
	r := newRecovery()
	r.queue = []*resyncJob{
		{kind: "rebuild", target: "h1", bytes: 100 * gib},
		{kind: "consolidation", target: "snapshots", bytes: 50 * gib, ready: 20},
		{kind: "resync", target: "h2", bytes: 300 * gib, ready: 5},
		{kind: "evacuation", target: "h3", bytes: 100 * gib},
	}
	evs, busy := r.resync(0, 20, 10*gib)
	if want := "0 resync_start h1 rebuild of 100.0 GiB; 10 resync_end h1 rebuild; 10 resync_start h2 resync of 300.0 GiB"; describe(evs) != want || busy != 20 {
		t.Errorf("first interval: %s, busy %g s\nwant %s, busy 20 s", describe(evs), busy, want)
	}
	if len(r.queue) != 3 || r.queue[1].done != 100*gib || r.queue[2].started {
		t.Errorf("after the first interval %d copies wait, the resync has %g GiB done; want 3 and 100, the evacuation not started", len(r.queue), r.queue[1].done/gib)
	}
	evs, busy = r.resync(20, 60, 10*gib)
	if want := "20 consolidation_start snapshots consolidation of 50.0 GiB; 25 consolidation_end snapshots consolidation; 45 resync_end h2 resync; " +
		"45 resync_start h3 evacuation of 100.0 GiB; 55 resync_end h3 evacuation"; describe(evs) != want || busy != 35 {
		t.Errorf("second interval: %s, busy %g s\nwant %s, busy 35 s", describe(evs), busy, want)
	}
	if len(r.queue) != 0 || r.pending(math.Inf(1)) {
		t.Errorf("%d copies left after both intervals", len(r.queue))
	}
	// Without bandwidth nothing moves.
	r.queue = []*resyncJob{{kind: "rebuild", target: "h1", bytes: gib}}
	if evs, busy := r.resync(0, 60, 0); evs != nil || busy != 0 || r.queue[0].started {
		t.Errorf("at rate 0: %s, busy %g s, started %v", describe(evs), busy, r.queue[0].started)
	}
}

// A copy is pending before a time when it is ready strictly before it and
// not done.
func TestPendingCopies(t *testing.T) {
	r := newRecovery()
	r.queue = []*resyncJob{{kind: "rebuild", bytes: gib, ready: 60}}
	if r.pending(60) || !r.pending(60.5) {
		t.Errorf("a copy ready at 60 s pending before 60 s: %v, before 60.5 s: %v; want false, true", r.pending(60), r.pending(60.5))
	}
	r.queue[0].done = gib
	if r.pending(120) {
		t.Error("a finished copy is still pending")
	}
}

// I/O stands still FailurePause seconds from each failure, within the
// interval it falls in.
func TestPauseOfFailuresInAnInterval(t *testing.T) {
	r := newRecovery()
	r.failures = []float64{0, 10, 58, 60, -1}
	if got := r.pause(0, 60); got != 2*FailurePause+2 {
		t.Errorf("failures at 0, 10 and 58 s: %g s of pause in 0-60 s, want %g", got, 2*FailurePause+2)
	}
	if got := r.pause(60, 60); got != FailurePause {
		t.Errorf("a failure at 60 s: %g s of pause in 60-120 s, want %g", got, float64(FailurePause))
	}
}

// A host failing is absent: its rebuild waits for the repair timer; it
// pauses I/O. Maintenance with full data migration evacuates at once and
// leaves nothing absent; other maintenance is absent like a failure.
func TestHostsLeavingService(t *testing.T) {
	r := newRecovery()
	r.apply(fio.Event{AtS: 100, Kind: "host_failure", Target: "h1"})
	r.apply(fio.Event{AtS: 200, Kind: "maintenance_enter", Target: "h2", Detail: "full_data_migration"})
	r.apply(fio.Event{AtS: 300, Kind: "maintenance_enter", Target: "h3", Detail: "ensure_accessibility"})
	jobs := queued(r)
	want := []string{"rebuild h1 200 GiB from 3700 s", "evacuation h2 200 GiB from 200 s", "rebuild h3 200 GiB from 3900 s"}
	if !slices.Equal(jobs, want) {
		t.Errorf("background work %q, want %q", jobs, want)
	}
	if !slices.Equal(r.failures, []float64{100}) {
		t.Errorf("I/O pauses at %v s, want at the failure only (100 s)", r.failures)
	}
	// Two of four hosts absent, each missing a component of half the
	// objects: 1 - (1 - 1/2)^2 of the objects miss one.
	if d := r.degradation(); d.Out != 3 || d.Absent != 0.75 || d.Devices != 0 {
		t.Errorf("three hosts out, two absent: %+v; want Out 3, Absent 0.75", d)
	}
	// A rebuild half done leaves half its host's share absent.
	r.queue[0].done = 100 * gib
	if d := r.degradation(); d.Absent != 1-0.75*0.5 {
		t.Errorf("h1's rebuild half done: absent %g, want %g", d.Absent, 1-0.75*0.5)
	}
}

// A host back before its rebuild started resynchronises what was written
// to its objects meanwhile (a share of what the workloads wrote); one back
// during the rebuild copies whichever is less, the rest of the rebuild or
// the stale data. A host that was never out changes nothing.
func TestHostsComingBack(t *testing.T) {
	r := newRecovery()
	r.apply(fio.Event{AtS: 0, Kind: "host_failure", Target: "h1"})
	r.apply(fio.Event{AtS: 0, Kind: "host_failure", Target: "h2"})
	r.apply(fio.Event{AtS: 0, Kind: "maintenance_enter", Target: "h3", Detail: "full_data_migration"})
	r.wrote(40 * gib)
	for h, want := range map[string]float64{"h1": 20, "h2": 20, "h3": 0} {
		if got := r.out[h].stale / gib; got != want {
			t.Errorf("%s: %g GiB stale after 40 GiB written, want %g", h, got, want)
		}
	}
	r.apply(fio.Event{AtS: 600, Kind: "host_return", Target: "h1"})
	r.apply(fio.Event{AtS: 600, Kind: "host_return", Target: "h4"})
	r.apply(fio.Event{AtS: 600, Kind: "maintenance_exit", Target: "h3"})
	jobs := queued(r)
	want := []string{"rebuild h2 200 GiB from 3600 s", "evacuation h3 200 GiB from 0 s", "resync h1 20 GiB from 600 s"}
	if !slices.Equal(jobs, want) {
		t.Errorf("background work %q, want %q", jobs, want)
	}
	if d := r.degradation(); d.Out != 1 {
		t.Errorf("h2 still out: %+v", d)
	}
	// h2's rebuild is 150 GiB along when it comes back with 20 GiB stale:
	// 170 GiB is less than the 200 GiB rebuild, so that is what it copies.
	rb := r.queue[0]
	rb.started, rb.done = true, 150*gib
	r.apply(fio.Event{AtS: 4000, Kind: "host_return", Target: "h2"})
	if rb.bytes != 170*gib {
		t.Errorf("h2 back 150 GiB into its rebuild with 20 GiB stale: %g GiB to copy, want 170", rb.bytes/gib)
	}
	// Back with nothing stale before its rebuild: nothing to copy.
	r.apply(fio.Event{AtS: 5000, Kind: "host_failure", Target: "h4"})
	r.apply(fio.Event{AtS: 5100, Kind: "host_return", Target: "h4"})
	for _, j := range r.queue {
		if j.target == "h4" {
			t.Errorf("h4 back with nothing written: %s of %g GiB queued", j.kind, j.bytes/gib)
		}
	}
}

// Snapshots: the chain counts creates and removes, never below zero; what
// the workloads write while it exists is held once per block.
func TestSnapshotChain(t *testing.T) {
	r := newRecovery()
	r.apply(fio.Event{Kind: "snapshot_remove"})
	r.apply(fio.Event{Kind: "snapshot_create"})
	if d := r.degradation(); d.Snapshots != 1 {
		t.Errorf("a remove before any create, then a create: %d snapshots, want 1", d.Snapshots)
	}
	r.wrote(100 * gib)
	r.wrote(150 * gib)
	if r.snapWritten != 250*gib {
		t.Errorf("250 GiB written under a snapshot: delta of %g GiB", r.snapWritten/gib)
	}
	r.wrote(300 * gib)
	if r.snapWritten != r.disks {
		t.Errorf("550 GiB written to 400 GiB of disks: delta of %g GiB, want 400", r.snapWritten/gib)
	}
	r.apply(fio.Event{AtS: 900, Kind: "snapshot_remove"})
	if len(r.queue) != 1 || r.queue[0].kind != "consolidation" || r.queue[0].bytes != 400*gib || r.queue[0].ready != 900 || r.snapWritten != 0 {
		t.Errorf("the last snapshot removed: queue %+v, delta %g; want a 400 GiB consolidation from 900 s", r.queue, r.snapWritten)
	}
	r.wrote(gib)
	if r.snapWritten != 0 {
		t.Errorf("writes without a snapshot fill a delta of %g GiB", r.snapWritten/gib)
	}
}

// A device failure: its share of the objects (components over devices)
// loses a component, its data (what is stored over the devices) is rebuilt
// after the repair timer, or at once when its components are degraded; an
// OSA disk group takes its capacity devices with it. I/O pauses.
func TestDiskFailures(t *testing.T) {
	r := newRecovery()
	r.apply(fio.Event{AtS: 10, Kind: "disk_failure", Target: "h1/naa.1", Detail: "how=remove unit=device components=absent"})
	r.apply(fio.Event{AtS: 20, Kind: "disk_failure", Target: "h2/naa.g", Detail: "how=unmount unit=disk_group components=degraded"})
	r.apply(fio.Event{AtS: 30, Kind: "disk_failure", Target: "h1/naa.1", Detail: "how=remove unit=device"}) // already out
	jobs := queued(r)
	want := []string{"rebuild h1/naa.1 25 GiB from 3610 s", "rebuild h2/naa.g 50 GiB from 20 s"}
	if !slices.Equal(jobs, want) {
		t.Errorf("background work %q, want %q", jobs, want)
	}
	if !slices.Equal(r.failures, []float64{10, 20}) {
		t.Errorf("pauses at %v s, want 10 and 20", r.failures)
	}
	dev, grp := r.failed["h1/naa.1"], r.failed["h2/naa.g"]
	if dev.host != "h1" || dev.group || dev.kept || dev.share != 2.0/32 || grp.host != "h2" || !grp.group || grp.kept || grp.share != 2.0/16 {
		t.Errorf("device %+v, group %+v", dev, grp)
	}
	d := r.degradation()
	if wantAbsent := 1 - (1-2.0/32)*(1-2.0/16); d.Devices != 3 || d.Groups != 1 || !(math.Abs(d.Absent-wantAbsent) <= 1e-15) {
		t.Errorf("a device and a group of 2 out: %+v; want 3 devices, 1 group, absent %g", d, wantAbsent)
	}
	// The device's rebuild half done leaves half its share absent.
	dev.rebuild.done = dev.rebuild.bytes / 2
	if want := 1 - (1-2.0/32/2)*(1-2.0/16); !(math.Abs(r.degradation().Absent-want) <= 1e-15) {
		t.Errorf("the device's rebuild half done: absent %g, want %g", r.degradation().Absent, want)
	}
	// A disk on a host that is out counts with the host, not again.
	r.apply(fio.Event{AtS: 40, Kind: "host_failure", Target: "h1"})
	if d := r.degradation(); d.Devices != 2 || d.Groups != 1 {
		t.Errorf("h1 out with its failed device: %+v; want the group's 2 devices only", d)
	}
	// A cluster without disk groups has no group to fail.
	esa := newRecovery()
	esa.groups = 0
	esa.apply(fio.Event{AtS: 10, Kind: "disk_failure", Target: "h1/g", Detail: "unit=disk_group"})
	if len(esa.queue) != 0 || len(esa.failed) != 0 || len(esa.failures) != 0 {
		t.Errorf("a disk group failing without disk groups: queue %v, failed %v", esa.queue, esa.failed)
	}
}

// A disk group unmounted keeps its data: back before its rebuild, it
// resynchronises its share of what was written; back during the rebuild,
// the lesser of the two. A removed device comes back empty: its rebuild
// runs on, and a second return changes nothing.
func TestDisksComingBack(t *testing.T) {
	r := newRecovery()
	r.apply(fio.Event{AtS: 0, Kind: "disk_failure", Target: "h1/g1", Detail: "how=unmount unit=disk_group components=absent"})
	r.apply(fio.Event{AtS: 0, Kind: "disk_failure", Target: "h1/g2", Detail: "how=unmount unit=disk_group components=absent"})
	r.apply(fio.Event{AtS: 0, Kind: "disk_failure", Target: "h2/d", Detail: "how=remove unit=device components=absent"})
	r.wrote(160 * gib)
	for target, want := range map[string]float64{"h1/g1": 20, "h1/g2": 20, "h2/d": 0} {
		if got := r.failed[target].stale / gib; got != want {
			t.Errorf("%s: %g GiB stale after 160 GiB written, want %g", target, got, want)
		}
	}
	r.apply(fio.Event{AtS: 600, Kind: "disk_return", Target: "h1/g1"})
	r.apply(fio.Event{AtS: 600, Kind: "disk_return", Target: "h2/d"})
	r.apply(fio.Event{AtS: 600, Kind: "disk_return", Target: "h3/none"})
	jobs := queued(r)
	want := []string{"rebuild h1/g2 50 GiB from 3600 s", "rebuild h2/d 25 GiB from 3600 s", "resync h1/g1 20 GiB from 600 s"}
	if !slices.Equal(jobs, want) {
		t.Errorf("background work %q, want %q", jobs, want)
	}
	if _, ok := r.failed["h1/g1"]; ok || !r.failed["h2/d"].back {
		t.Errorf("after the returns: %v", r.failed)
	}
	// A second return of the empty device does not cancel its rebuild.
	r.apply(fio.Event{AtS: 700, Kind: "disk_return", Target: "h2/d"})
	if len(r.queue) != 3 {
		t.Errorf("a second return changed the queue to %d copies", len(r.queue))
	}
	// g2 back 40 GiB into its rebuild with 20 GiB stale: 60 GiB is more
	// than the 50 GiB rebuild, which goes on.
	rb := r.queue[0]
	rb.started, rb.done = true, 40*gib
	r.apply(fio.Event{AtS: 3700, Kind: "disk_return", Target: "h1/g2"})
	if rb.bytes != 50*gib {
		t.Errorf("g2 back 40 GiB into a 50 GiB rebuild with 20 GiB stale: %g GiB to copy, want 50", rb.bytes/gib)
	}
	// Once the removed device's rebuild is done it is forgotten.
	r.resync(3700, 60, 1000*gib)
	if len(r.failed) != 0 || len(r.queue) != 0 {
		t.Errorf("every copy done: still tracking %v, queue %v", r.failed, r.queue)
	}
}

func TestEventDetailFields(t *testing.T) {
	got := detailFields("how=unmount  unit=disk_group components= stray")
	if len(got) != 3 || got["how"] != "unmount" || got["unit"] != "disk_group" || got["components"] != "" {
		t.Errorf("fields %v", got)
	}
	if hostOfDisk("esx-01/naa.5") != "esx-01" || hostOfDisk("esx-01") != "esx-01" {
		t.Errorf("hosts of esx-01/naa.5 and esx-01: %q, %q", hostOfDisk("esx-01/naa.5"), hostOfDisk("esx-01"))
	}
	ws := []fio.Worker{{Disks: make([]fio.Disk, 2)}, {Disks: make([]fio.Disk, 3)}, {Disks: make([]fio.Disk, 1)}}
	if got := diskIndex(ws, 2, 0); got != 5 {
		t.Errorf("the third worker's first disk is disk %d, want 5", got)
	}
	if got := diskIndex(ws, 1, 2); got != 4 {
		t.Errorf("the second worker's third disk is disk %d, want 4", got)
	}
}

// A started rebuild cut to nothing when its host comes back ends there
// and leaves the queue; the other copies wait on.
func TestACutRebuildEndsAndLeavesTheOthers(t *testing.T) {
	r := newRecovery()
	r.apply(fio.Event{AtS: 0, Kind: "host_failure", Target: "h1"})
	r.apply(fio.Event{AtS: 0, Kind: "host_failure", Target: "h2"})
	for _, j := range r.queue {
		j.started, j.done = true, 10*gib
	}
	r.apply(fio.Event{AtS: 3700, Kind: "host_return", Target: "h1"})
	if len(r.queue) != 1 || r.queue[0].target != "h2" {
		t.Errorf("after h1's return the queue holds %+v, want h2's rebuild only", r.queue)
	}
	if got := describe(r.ended); got != "3700 resync_end h1 rebuild" {
		t.Errorf("ended %s, want h1's rebuild at 3700 s", got)
	}
}

// A host or device back after its rebuild is done ends nothing again:
// the rebuild's end was logged when it finished (scripts/node_failure.star
// logged a second resync_end at the host's return).
func TestAReturnAfterTheRebuildEndsNothing(t *testing.T) {
	r := newRecovery()
	r.apply(fio.Event{AtS: 0, Kind: "host_failure", Target: "h1"})
	r.apply(fio.Event{AtS: 0, Kind: "disk_failure", Target: "h2/d", Detail: "how=remove unit=device components=absent"})
	r.wrote(8 * gib)
	evs, _ := r.resync(RepairDelay, 600, 1000*gib)
	if got := describe(evs); strings.Count(got, "resync_end") != 2 {
		t.Fatalf("the rebuilds: %s, want both to end", got)
	}
	r.apply(fio.Event{AtS: 4800, Kind: "host_return", Target: "h1"})
	r.apply(fio.Event{AtS: 4800, Kind: "disk_return", Target: "h2/d"})
	if len(r.ended) != 0 || len(r.queue) != 0 {
		t.Errorf("back after the rebuilds: ended %s, queue %v; want nothing", describe(r.ended), r.queue)
	}
}

// What a scenario's data is on the cluster: each disk's written share
// times its policy's capacity factor (RAID-5 2+1 on 4 hosts: 1.5) spread
// over the hosts; objects of 3 components, each host holding one of 3/4 of
// them; OSA's disk groups counted.
func TestRecoverySizesTheScenariosData(t *testing.T) {
	pl, src := newTestPlane(t)
	src.policies["r5"] = Policy{RAID: "raid5", FTT: 1}
	ws := workers(4, 2, "r5")
	pl.mu.Lock()
	for _, w := range ws {
		for _, d := range w.Disks {
			pl.disks[diskKey{w.Name, d.Name}] = uniformData(pl.diskSize(d), 0.5, 0)
		}
	}
	pl.mu.Unlock()
	s := pl.Scenario(ws, oltpJob(60), nil)
	if err := s.rec.init(context.Background(), pl, s.classes); err != nil {
		t.Fatal(err)
	}
	r := s.rec
	stored := 8 * 50 * gib * 0.5 * 1.5
	if r.stored != stored || r.perHost != stored/4 || r.disks != 8*50*gib || r.comps != 3 || r.stripes != 3 || r.share != 0.75 || r.devices != 32 || r.groups != 0 {
		t.Errorf("8 half-written 50 GiB RAID-5 disks on 4 hosts: %+v; want %g GiB stored, %g per host, 3 components (not striped), share 0.75, 32 devices", r, stored/gib, stored/4/gib)
	}
	// Striped over 4 devices a component: the object spans as many hosts,
	// 4 times the devices, so a failed device takes 12/32 of the objects.
	src.policies["r5"] = Policy{RAID: "raid5", FTT: 1, StripeWidth: 4}
	s = pl.Scenario(ws, oltpJob(60), nil)
	if err := s.rec.init(context.Background(), pl, s.classes); err != nil {
		t.Fatal(err)
	}
	s.rec.apply(fio.Event{AtS: 10, Kind: "disk_failure", Target: "esx-1/naa.1", Detail: "how=remove unit=device components=absent"})
	if r := s.rec; r.comps != 3 || r.stripes != 12 || r.share != 0.75 || r.failed["esx-1/naa.1"].share != 12.0/32 {
		t.Errorf("the same disks striped over 4: %g components over %g devices, host share %g, a device's %g; want 3, 12, 0.75, 12/32", r.comps, r.stripes, r.share, r.failed["esx-1/naa.1"].share)
	}
	// A width above a host's 8 devices spans them all, no more: the
	// model keeps every stripe on its component's host (Placement).
	src.policies["r5"] = Policy{RAID: "raid5", FTT: 1, StripeWidth: 12}
	s = pl.Scenario(ws, oltpJob(60), nil)
	if err := s.rec.init(context.Background(), pl, s.classes); err != nil {
		t.Fatal(err)
	}
	s.rec.apply(fio.Event{AtS: 10, Kind: "disk_failure", Target: "esx-1/naa.1", Detail: "how=remove unit=device components=absent"})
	if r := s.rec; r.stripes != 24 || r.failed["esx-1/naa.1"].share != 24.0/32 {
		t.Errorf("striped over 12 on hosts of 8 devices: %g devices spanned, a device's share %g; want 24, 24/32", r.stripes, r.failed["esx-1/naa.1"].share)
	}
	osa := newOSAPlane(t)
	o := osa.Scenario(workers(2, 1, "r1"), oltpJob(60), nil)
	if err := o.rec.init(context.Background(), osa, o.classes); err != nil {
		t.Fatal(err)
	}
	if o.rec.groups != 48 || o.rec.perGroup != 4 || o.rec.devices != 192 || !o.rec.osa {
		t.Errorf("OSA: %d groups of %d, %d devices, osa %v; want 48 of 4, 192", o.rec.groups, o.rec.perGroup, o.rec.devices, o.rec.osa)
	}
	// On OSA a RAID-1 object striped over 4 spans 2 x 4 devices but only
	// the 2 x 2 disk groups they belong to (a host's devices alternate
	// between its 2 groups): a failed group takes 4/48 of the objects.
	osaSrc := osa.src.(*memSource)
	osaSrc.policies["r1"] = Policy{RAID: "raid1", FTT: 1, StripeWidth: 4}
	o = osa.Scenario(workers(2, 1, "r1"), oltpJob(60), nil)
	if err := o.rec.init(context.Background(), osa, o.classes); err != nil {
		t.Fatal(err)
	}
	o.rec.apply(fio.Event{AtS: 10, Kind: "disk_failure", Target: "h1/naa.d", Detail: "how=remove unit=device components=absent"})
	o.rec.apply(fio.Event{AtS: 10, Kind: "disk_failure", Target: "h2/naa.g", Detail: "how=remove unit=disk_group components=absent"})
	if r := o.rec; r.failed["h1/naa.d"].share != 8.0/192 || r.failed["h2/naa.g"].share != 4.0/48 {
		t.Errorf("OSA RAID-1 striped over 4: a device's share %g, a disk group's %g; want 8/192, 4/48", r.failed["h1/naa.d"].share, r.failed["h2/naa.g"].share)
	}
}

// queued describes r's background work in queue order: kind, target, size
// and when it may start.
func queued(r *recovery) []string {
	var jobs []string
	for _, j := range r.queue {
		jobs = append(jobs, fmt.Sprintf("%s %s %g GiB from %g s", j.kind, j.target, j.bytes/gib, j.ready))
	}
	return jobs
}
