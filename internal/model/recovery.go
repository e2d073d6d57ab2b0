package model

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"

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
	disks     float64
	out       map[string]*absence
	queue     []*resyncJob
	snapshots int
	// snapWritten is what the workloads wrote since the first snapshot of
	// the chain (OSA merges it into the base disks when they go).
	snapWritten float64
	failures    []float64 // when hosts failed (I/O pauses)
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
	seen := map[diskKey]bool{}
	stored, comps, n := 0.0, 0.0, 0.0
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
				stored += float64(d.SizeBytes) * dl.Written * lay.capFactor
				r.disks += float64(d.SizeBytes)
				comps += float64(max(lay.mirrors, lay.dataStripes+lay.parity))
				n++
			}
		}
	}
	r.perHost = stored / float64(r.hosts)
	if n > 0 {
		r.share = math.Min(1, comps/n/float64(r.hosts))
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
	rb.bytes = math.Min(rb.bytes, rb.done+a.stale)
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
	if r.snapshots > 0 {
		// A delta holds each block once, however often it is rewritten.
		r.snapWritten = math.Min(r.disks, r.snapWritten+bytes)
	}
}
