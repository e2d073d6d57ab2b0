package model

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"starbench/internal/fio"
)

// recovery is what vSAN does over a measurement as hosts leave and come
// back (docs/model.md, "Degraded mode"): which hosts are out, which of
// their components are absent, the data it must rebuild, resynchronise,
// evacuate or consolidate, and when it may start.
type recovery struct {
	hosts int
	osa   bool
	// perHost is the bytes of the scenario's disks one host stores (all
	// replicas and components spread evenly); share is the share of
	// objects with a component on any one host.
	perHost, share float64
	// disks is the size of the scenario's disks, as the guests see them.
	disks float64
	// stored is what the scenario's disks store on the cluster (replicas
	// and components); comps the mean number of components of an object;
	// stripes the devices it spans and groupSpans the OSA disk groups
	// (each component's stripes on as many of its host's devices, taken
	// round-robin over the host's disk groups: Placement).
	stored, comps, stripes, groupSpans float64
	// devices and groups count the cluster's capacity devices and OSA disk
	// groups; perGroup is an OSA disk group's capacity devices.
	devices, groups, perGroup int
	out                       map[string]*absence
	// failed are the devices and disk groups out, by event target.
	failed    map[string]*diskOut
	queue     []*resyncJob
	snapshots int
	// snapWritten is what the workloads wrote since the first snapshot of
	// the chain (OSA merges it into the base disks when they go).
	snapWritten float64
	failures    []float64 // when hosts failed (I/O pauses)
	// ended are copies that ended when a host or device came back (a
	// started rebuild with nothing left to copy), for the next step's log.
	ended []fio.Event
}

// absence is one host out of service.
type absence struct {
	since float64
	// absent says its components are missing (a failure, or maintenance
	// mode without full data migration); their objects run on the rest.
	absent bool
	// stale is what was written to objects with a component on the host
	// since it left: what resynchronises when it comes back.
	stale   float64
	rebuild *resyncJob
}

// diskOut is a vSAN device or OSA disk group out of service.
type diskOut struct {
	host  string
	group bool // an OSA disk group: its cache device and capacity devices
	// kept says its data stays on it (a disk group unmounted): when it is
	// back, what was written meanwhile resynchronises, as for a host.
	kept bool
	// back says it serves again; a device that lost its data comes back
	// empty, and the rebuild of what it held goes on.
	back bool
	// share is the share of objects with a component on it.
	share   float64
	stale   float64
	rebuild *resyncJob
}

// resyncJob is data to copy in the background.
type resyncJob struct {
	kind, target string // "rebuild", "resync", "evacuation", "consolidation"; the host or "snapshots"
	bytes, done  float64
	ready        float64 // when it may start
	started      bool
}

// init sizes the data of the scenario's workloads on the cluster.
func (r *recovery) init(ctx context.Context, pl *Plane, classes []*class) error {
	p := pl.p
	r.hosts, r.osa = p.Hosts, p.Architecture == "OSA"
	r.devices, r.perGroup = p.Hosts*p.Storage.CapacityDevices, p.Storage.CapacityPerGroup
	if r.osa {
		r.groups = p.Hosts * p.Storage.DiskGroups
	}
	perHost := max(p.Storage.CapacityDevices, 1)
	groupsPerHost := max(p.Storage.DiskGroups, 1)
	seen := map[diskKey]bool{}
	stored, comps, stripes, groupSpans, n := 0.0, 0.0, 0.0, 0.0, 0.0
	for _, c := range classes {
		in, _, err := pl.input(ctx, c.workers, c.job)
		if err != nil {
			return err
		}
		for i, w := range c.workers {
			for j, d := range w.Disks {
				k := diskKey{w.Name, d.Name}
				if seen[k] {
					continue
				}
				seen[k] = true
				dl := in.Jobs[0].Disks[diskIndex(c.workers, i, j)]
				lay, err := policyLayout(p, dl.Policy)
				if err != nil {
					return err
				}
				pl.mu.Lock()
				written, _ := pl.data(w.Name, d).whole()
				pl.mu.Unlock()
				stored += float64(d.SizeBytes) * written * lay.capFactor
				r.disks += float64(d.SizeBytes)
				// The hosts an object spans, and the devices: each of
				// its components striped over the policy's stripe width
				// of its host's devices (no more than the host has), so
				// over as many of its disk groups.
				spans := float64(max(lay.mirrors, lay.dataStripes+lay.parity))
				width := max(dl.Policy.StripeWidth, 1)
				comps += spans
				stripes += spans * float64(min(width, perHost))
				groupSpans += spans * float64(min(width, groupsPerHost))
				n++
			}
		}
	}
	r.stored, r.perHost = stored, stored/float64(r.hosts)
	if n > 0 {
		r.comps, r.stripes, r.groupSpans = comps/n, stripes/n, groupSpans/n
		r.share = math.Min(1, r.comps/float64(r.hosts))
	}
	return nil
}

// diskIndex is the position of worker i's disk j among all the workers' disks.
func diskIndex(workers []fio.Worker, i, j int) int {
	k := j
	for _, w := range workers[:i] {
		k += len(w.Disks)
	}
	return k
}

// apply takes one event into account.
func (r *recovery) apply(e fio.Event) {
	switch e.Kind {
	case "host_failure":
		r.leave(e.Target, e.AtS, true)
		r.failures = append(r.failures, e.AtS)
	case "maintenance_enter":
		if e.Detail == "full_data_migration" {
			// The host's data is copied away before it leaves service.
			r.leave(e.Target, e.AtS, false)
			r.queue = append(r.queue, &resyncJob{kind: "evacuation", target: e.Target, bytes: r.perHost, ready: e.AtS})
		} else {
			r.leave(e.Target, e.AtS, true)
		}
	case "host_return", "maintenance_exit":
		r.back(e.Target, e.AtS)
	case "disk_failure":
		r.failDisk(e)
	case "disk_return":
		r.diskBack(e.Target, e.AtS)
	case "snapshot_create":
		r.snapshots++
	case "snapshot_remove":
		if r.snapshots == 0 {
			return
		}
		r.snapshots--
		if r.snapshots == 0 && r.osa && r.snapWritten > 0 {
			r.queue = append(r.queue, &resyncJob{kind: "consolidation", target: "snapshots", bytes: r.snapWritten, ready: e.AtS})
			r.snapWritten = 0
		}
	}
}

func (r *recovery) leave(host string, at float64, absent bool) {
	if _, ok := r.out[host]; ok {
		return
	}
	a := &absence{since: at, absent: absent}
	if absent {
		a.rebuild = &resyncJob{kind: "rebuild", target: host, bytes: r.perHost, ready: at + RepairDelay}
		r.queue = append(r.queue, a.rebuild)
	}
	r.out[host] = a
}

// back brings a host back: what was written to its objects meanwhile
// resynchronises, unless a rebuild already started and has less left to
// do (vSAN takes whichever is shorter).
func (r *recovery) back(host string, at float64) {
	a, ok := r.out[host]
	if !ok {
		return
	}
	delete(r.out, host)
	if !a.absent {
		return
	}
	rb := a.rebuild
	if !rb.started {
		r.queue = slices.DeleteFunc(r.queue, func(j *resyncJob) bool { return j == rb })
		if a.stale > 0 {
			r.queue = append(r.queue, &resyncJob{kind: "resync", target: host, bytes: a.stale, ready: at})
		}
		return
	}
	r.cut(rb, a.stale, at)
}

// failDisk takes a device or OSA disk group out (docs/events.md, "Disk
// failures"): its objects' components are absent, rebuilt once the repair
// timer runs out, or degraded, rebuilt at once; I/O stands still while
// vSAN re-evaluates the objects, as for a host.
func (r *recovery) failDisk(e fio.Event) {
	if _, ok := r.failed[e.Target]; ok {
		return
	}
	f := detailFields(e.Detail)
	d := &diskOut{host: hostOfDisk(e.Target), group: f["unit"] == "disk_group"}
	degraded := f["components"] == "degraded"
	d.kept = f["how"] == "unmount" && !degraded
	units, spans := r.devices, r.stripes
	if d.group {
		units, spans = r.groups, r.groupSpans
	}
	if units == 0 {
		return
	}
	d.share = math.Min(1, spans/float64(units))
	ready := e.AtS + RepairDelay
	if degraded {
		ready = e.AtS
	}
	d.rebuild = &resyncJob{kind: "rebuild", target: e.Target, bytes: r.stored / float64(units), ready: ready}
	r.queue = append(r.queue, d.rebuild)
	r.failed[e.Target] = d
	r.failures = append(r.failures, e.AtS)
}

// diskBack brings a device or disk group back into service. One that kept
// its data resynchronises what was written meanwhile (or the rebuild goes
// on, whichever is shorter, as for a host); one that lost it comes back
// empty and the rebuild of what it held runs its course.
func (r *recovery) diskBack(target string, at float64) {
	d, ok := r.failed[target]
	if !ok || d.back {
		return
	}
	d.back = true
	if !d.kept {
		return
	}
	delete(r.failed, target)
	rb := d.rebuild
	if !rb.started {
		r.queue = slices.DeleteFunc(r.queue, func(j *resyncJob) bool { return j == rb })
		if d.stale > 0 {
			r.queue = append(r.queue, &resyncJob{kind: "resync", target: target, bytes: d.stale, ready: at})
		}
		return
	}
	r.cut(rb, d.stale, at)
}

// cut shortens a started rebuild to what is left of it or the stale data,
// whichever is less (vSAN takes the shorter); one with nothing left ends at.
// A rebuild already done has ended (resync logged it): the returning
// components are stale copies of what was rebuilt elsewhere, nothing to do.
func (r *recovery) cut(rb *resyncJob, stale, at float64) {
	if rb.done >= rb.bytes {
		return
	}
	rb.bytes = math.Min(rb.bytes, rb.done+stale)
	if rb.done >= rb.bytes {
		r.queue = slices.DeleteFunc(r.queue, func(j *resyncJob) bool { return j == rb })
		r.ended = append(r.ended, fio.Event{AtS: at, Kind: endKind(rb.kind), Target: rb.target, Detail: rb.kind})
	}
}

// hostOfDisk is the host of a disk event's target, host/disk.
func hostOfDisk(target string) string {
	host, _, _ := strings.Cut(target, "/")
	return host
}

// detailFields reads an event's detail of key=value words.
func detailFields(detail string) map[string]string {
	out := map[string]string{}
	for _, w := range strings.Fields(detail) {
		if k, v, ok := strings.Cut(w, "="); ok {
			out[k] = v
		}
	}
	return out
}

// outHosts are the hosts out by their index among names (a cell's
// hostNames, "" where it names no host): a host out that names does not
// hold runs no worker, and takes the first unnamed index left, as all such
// hosts are alike to the cell.
func (r *recovery) outHosts(names []string) []int {
	var out []int
	unnamed := 0
	for _, h := range slices.Sorted(maps.Keys(r.out)) {
		if i := slices.Index(names, h); i >= 0 {
			out = append(out, i)
		} else {
			unnamed++
		}
	}
	for i, name := range names {
		if unnamed > 0 && name == "" {
			out, unnamed = append(out, i), unnamed-1
		}
	}
	slices.Sort(out)
	return out
}

// degradation is the cluster for the next interval.
func (r *recovery) degradation() Degradation {
	d := Degradation{Out: len(r.out), Snapshots: r.snapshots}
	whole := 1.0
	for _, h := range slices.Sorted(maps.Keys(r.out)) { // a fixed order: the same sums every run
		a := r.out[h]
		if a.absent && a.rebuild.bytes > 0 {
			left := 1 - a.rebuild.done/a.rebuild.bytes
			whole *= 1 - r.share*left
		}
	}
	for _, t := range slices.Sorted(maps.Keys(r.failed)) {
		f := r.failed[t]
		if !f.back && r.out[f.host] == nil {
			if f.group {
				d.Groups++
				d.Devices += r.perGroup
			} else {
				d.Devices++
			}
		}
		if f.rebuild.bytes > 0 {
			whole *= 1 - f.share*(1-f.rebuild.done/f.rebuild.bytes)
		}
	}
	d.Absent = 1 - whole
	return d
}

// pending says whether any background copy may run before until.
func (r *recovery) pending(until float64) bool {
	for _, j := range r.queue {
		if j.ready < until && j.done < j.bytes {
			return true
		}
	}
	return false
}

// resync moves background copies at rate bytes/s through the interval
// from t to t+dt, oldest first, and returns their start and end as events
// with how many seconds of the interval it was busy.
func (r *recovery) resync(t, dt, rate float64) ([]fio.Event, float64) {
	var evs []fio.Event
	if rate <= 0 {
		return nil, 0
	}
	now, end, busy := t, t+dt, 0.0
	for _, j := range r.queue {
		if j.done >= j.bytes || j.ready >= end {
			continue
		}
		start := math.Max(now, j.ready)
		if !j.started {
			j.started = true
			evs = append(evs, fio.Event{AtS: start, Kind: startKind(j.kind), Target: j.target, Detail: fmt.Sprintf("%s of %.1f GiB", j.kind, j.bytes/(1<<30))})
		}
		need := (j.bytes - j.done) / rate
		spent := math.Min(need, end-start)
		j.done += spent * rate
		busy += spent
		now = start + spent
		if j.done >= j.bytes*(1-1e-9) {
			j.done = j.bytes
			evs = append(evs, fio.Event{AtS: now, Kind: endKind(j.kind), Target: j.target, Detail: j.kind})
		}
		if now >= end {
			break
		}
	}
	r.queue = slices.DeleteFunc(r.queue, func(j *resyncJob) bool { return j.done >= j.bytes })
	maps.DeleteFunc(r.failed, func(_ string, d *diskOut) bool { return d.back && d.rebuild.done >= d.rebuild.bytes })
	return evs, math.Min(busy, dt)
}

func startKind(kind string) string {
	if kind == "consolidation" {
		return "consolidation_start"
	}
	return "resync_start"
}

func endKind(kind string) string {
	if kind == "consolidation" {
		return "consolidation_end"
	}
	return "resync_end"
}

// pause is how long I/O stood still in the interval from t to t+dt.
func (r *recovery) pause(t, dt float64) float64 {
	p := 0.0
	for _, at := range r.failures {
		if at >= t && at < t+dt {
			p += math.Min(FailurePause, t+dt-at)
		}
	}
	return p
}

// wrote accounts for what the workloads wrote in an interval: stale data
// of the hosts out, and data the snapshots' deltas hold.
func (r *recovery) wrote(bytes float64) {
	for _, a := range r.out {
		if a.absent {
			a.stale += bytes * r.share
		}
	}
	for _, d := range r.failed {
		if d.kept {
			d.stale += bytes * d.share
		}
	}
	if r.snapshots > 0 {
		// A delta holds each block once, however often it is rewritten.
		r.snapWritten = math.Min(r.disks, r.snapWritten+bytes)
	}
}
