package model

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"starbench/internal/fio"
)

// Scenario is a measurement the model solves interval by interval on a
// virtual clock while events change the cluster (docs/model.md, "Degraded
// mode"): hosts leave and return, vSAN rebuilds and resynchronises their
// data in the background, snapshots pile up and are consolidated, second
// workloads share the cluster. Each interval is one solve of the cluster as
// the events left it.
type Scenario struct {
	pl       *Plane
	classes  []*class // the measurement's own job first, then second workloads
	progress func(fio.Status)
	rec      recovery
	seen     int // events already applied
	notes    []string
}

// class is one workload of a scenario and what was solved for it.
type class struct {
	name    string
	workers []fio.Worker
	job     *fio.Job
	// The class runs from start to end seconds; fio measures it from
	// measured on, after its job's ramp_time (whose I/O runs but stays
	// out of fio's figures and logs).
	start, measured, end float64
	intervals            []interval
	samples              []fio.Sample
	notes                []string
	relaid               string // what a changed storage policy rewrote before the measurement (relayOut)
}

// interval is one interval's result and length.
type interval struct {
	res *fio.Result
	dt  float64
}

// vSAN's timings and resync sharing (public figures; docs/model.md).
const (
	// RepairDelay is vSAN's object repair timer: absent components (a host
	// failed or in maintenance mode without data migration) are rebuilt
	// elsewhere after 60 minutes.
	RepairDelay = 3600.0
	// FailurePause is how long I/O stands still when a host fails, while
	// vSAN re-evaluates which objects are still available (5-7 s).
	FailurePause = 6.0
	// ResyncMinShare is the share of a contended resource resync keeps
	// (vSAN's adaptive resync halves resync bandwidth while VM latency is
	// high but does not stop it).
	ResyncMinShare = 0.2
)

// Scenario starts a measurement of job on workers over time; progress, when
// set, sees it advance interval by interval.
func (pl *Plane) Scenario(workers []fio.Worker, job *fio.Job, progress func(fio.Status)) *Scenario {
	s := &Scenario{pl: pl, progress: progress, rec: recovery{out: map[string]*absence{}, failed: map[string]*diskOut{}}}
	s.classes = []*class{{name: job.Name, workers: workers, job: job, start: -float64(job.RampSec), end: math.Inf(1)}}
	return s
}

// AddWorkload runs job on workers from start to end seconds, beside the
// measurement's own job, on the same cluster; its ramp_time is its own
// first seconds, run but not measured.
func (s *Scenario) AddWorkload(name string, workers []fio.Worker, job *fio.Job, start, end float64) {
	s.classes = append(s.classes, &class{name: name, workers: workers, job: job, start: start, measured: start + float64(job.RampSec), end: end})
}

// Step solves the interval from t to t+dt after applying the events since
// the last step; it returns the interval's samples and what it computed
// happened (resync and consolidation starting and ending), as events.
func (s *Scenario) Step(ctx context.Context, t, dt float64, evs []fio.Event) ([]fio.Sample, []fio.Event, error) {
	if s.rec.hosts == 0 {
		for _, c := range s.classes {
			c.relaid = s.pl.relayOut(ctx, c.workers)
		}
		if err := s.rec.init(ctx, s.pl, s.classes); err != nil {
			return nil, nil, err
		}
	}
	for _, e := range evs[min(s.seen, len(evs)):] {
		s.rec.apply(e)
	}
	s.seen = len(evs)
	var active []*class
	for _, c := range s.classes {
		if c.start <= t && t < c.end {
			active = append(active, c)
		}
	}
	d := s.rec.degradation()
	in, err := s.input(ctx, active, t)
	if err != nil {
		return nil, nil, err
	}
	d.OutHosts = s.rec.outHosts(hostNames(s.pl.p.Hosts, in.VMs, s.pl.hosts))
	solve := func(bg map[string]float64) (*Output, error) {
		di := d
		di.Background = bg
		in.Degradation = &di
		out, err := Solve(ctx, s.pl.p, in)
		if err != nil {
			return nil, fmt.Errorf("at %g s: %w", t, err)
		}
		return out, nil
	}
	out, err := solve(nil)
	if err != nil {
		return nil, nil, err
	}
	logged := s.rec.ended
	s.rec.ended = nil
	if s.rec.pending(t + dt) {
		rate, load, err := s.resyncRate(in, d, out)
		if err != nil {
			return nil, nil, err
		}
		copies, busy := s.rec.resync(t, dt, rate)
		logged = append(logged, copies...)
		s.pl.mu.Lock()
		s.pl.buffer.add(s.pl.p, rate*busy) // OSA: resync's copies land in the write buffers like any write
		s.pl.mu.Unlock()
		if busy > 0 {
			bg := map[string]float64{}
			for k, v := range load {
				bg[k] = rate * v * busy / dt
			}
			if out, err = solve(bg); err != nil {
				return nil, nil, err
			}
		}
	}
	s.pl.applyNoise(out, out.Burst)
	pause := s.rec.pause(t, dt)
	var samples []fio.Sample
	written := 0.0
	for i, c := range active {
		dirs := s.over(c, out, i, dt, len(active) > 1)
		stall(&dirs, out.Outstanding, dt, pause)
		res := &fio.Result{Simulated: true, Model: out.Version, Testbed: out.Profile}
		res.Rows, res.Aggregate = shareRows(c.workers, dirs)
		classRows(res.Rows, out.Jobs[i])
		res.Notes = append(append([]string{fmt.Sprintf("simulated by %s on testbed %s", out.Version, out.Profile)}, c.notes...), out.Notes...)
		// The interval's part after the class's ramp is measured: the
		// figures hold over the whole interval, so that part weighs them.
		if m := t + dt - math.Max(t, c.measured); m > 1e-9 {
			c.intervals = append(c.intervals, interval{res, m})
			for _, a := range res.Aggregate {
				smp := fio.Sample{Job: c.name, Direction: a.Direction, TS: t + dt, IOPS: a.IOPS, MBps: a.MBps, LatMeanUs: a.LatMeanUs, P99Us: a.P99Us}
				c.samples = append(c.samples, smp)
				samples = append(samples, smp)
			}
		}
		bytes := dirs[write].MBps * 1e6 * dt
		s.pl.recordWrites(c.workers, c.job, nil, bytes, 0) // events' runs: offsets taken as independent
		written += bytes
	}
	s.rec.wrote(written)
	s.pl.reportBuffer()
	if s.progress != nil && len(active) > 0 && active[0] == s.classes[0] && t+dt > 0 {
		x := out.Jobs[0]
		st := fio.Status{Elapsed: int(t + dt), Total: s.classes[0].job.RuntimeSec, IOPS: x.Read.IOPS + x.Write.IOPS, MBps: x.Read.MBps + x.Write.MBps, LatMeanUs: math.NaN()}
		if st.IOPS > 0 {
			st.LatMeanUs = (x.Read.IOPS*x.Read.LatMeanUs + x.Write.IOPS*x.Write.LatMeanUs) / st.IOPS
		}
		s.progress(st)
	}
	return samples, logged, nil
}

// input is one cell of the workloads active in an interval: one job each,
// their VMs side by side.
func (s *Scenario) input(ctx context.Context, active []*class, t float64) (Input, error) {
	var in Input
	vms := map[string]int{}
	for i, c := range active {
		ci, notes, err := s.pl.input(ctx, c.workers, c.job)
		if err != nil {
			return Input{}, fmt.Errorf("%s at %g s: %w", c.name, t, err)
		}
		c.notes = notes
		if c.relaid != "" {
			c.notes = append(c.notes, c.relaid)
		}
		if sh, err := readJob(c.job); err == nil {
			if sh.hasFloors() {
				c.notes = append(c.notes, minRateEventsNote)
			}
			if sh.maxLat != [2]float64{} {
				c.notes = append(c.notes, maxLatencyEventsNote)
			}
		}
		jl := ci.Jobs[0]
		jl.Name = c.name
		if i == 0 {
			in.State = ci.State
		}
		// A workload on the measurement's workers shares their VMs and,
		// on the same disks, their objects.
		in.join(ci, jl, c.workers, vms, len(active) > 1)
	}
	if len(active) > 1 { // a policy's IOPS limit is the object's, whichever workloads use it
		runs := make([]JobRun, len(active))
		for i, c := range active {
			runs[i] = JobRun{Workers: c.workers, Job: c.job}
		}
		shareLimits(runs, in.Jobs)
	}
	return in, nil
}

// over is class i's figures over an interval. Alone on the cluster it moves
// OSA's write buffers on as a run does (burst, then the elevators' pace);
// beside other workloads it is the shared cell's steady state.
func (s *Scenario) over(c *class, out *Output, i int, dt float64, shared bool) [2]Direction {
	if shared {
		return [2]Direction{out.Jobs[i].Read, out.Jobs[i].Write}
	}
	job := *c.job
	job.RuntimeSec, job.RampSec, job.TimeBased = max(1, int(math.Round(dt))), 0, true
	var disks []fio.Disk
	for _, w := range c.workers {
		disks = append(disks, w.Disks...)
	}
	s.pl.mu.Lock()
	sp := layOut(s.pl.p, &s.pl.buffer, out, &job, disks)
	s.pl.mu.Unlock()
	return sp.over(0, math.Min(dt, sp.end))
}

// resyncRate is how many bytes per second resync moves this interval, and
// its load on each station per byte per second: what the foreground leaves
// on the station resync needs most, but never less than ResyncMinShare of
// what it could move alone.
func (s *Scenario) resyncRate(in Input, d Degradation, fg *Output) (float64, map[string]float64, error) {
	in.Degradation = &d
	in.Jobs = in.Jobs[:1] // the stations and their copies are the same for every job
	c, err := buildCell(s.pl.p, in, false)
	if err != nil {
		return 0, nil, err
	}
	load := resyncLoad(s.pl.p, c, &d)
	used := map[string]float64{}
	for _, st := range fg.Stations {
		used[st.Name] = st.Util
	}
	alone, free := math.Inf(1), math.Inf(1)
	for name, l := range load {
		if l <= 0 {
			continue
		}
		alone = math.Min(alone, 1/l)
		free = math.Min(free, math.Max(0, 1-used[name])/l)
	}
	return math.Max(free, ResyncMinShare*alone), load, nil
}

// stall takes a pause (seconds of the interval with all I/O standing
// still, a host failing) out of an interval's throughput; the I/Os in
// flight waited through it, so latency grows by the time lost and, when
// they are at least 1 % of the interval's I/Os, the p99 is at least the pause.
func stall(dirs *[2]Direction, outstanding int, dt, pause float64) {
	if pause <= 0 {
		return
	}
	pause = math.Min(pause, 0.9*dt)
	f := (dt - pause) / dt
	stuck := float64(outstanding) / math.Max(1, (dirs[read].IOPS+dirs[write].IOPS)*f*dt)
	for i := range dirs {
		d := &dirs[i]
		if d.IOPS == 0 {
			continue
		}
		d.IOPS *= f
		d.MBps *= f
		d.LatMeanUs /= f
		if stuck >= 0.01 {
			d.P99Us = math.Max(d.P99Us, pause*1e6)
			d.P999Us = math.Max(d.P999Us, pause*1e6)
		}
	}
}

// Result is the whole measurement: each workload's rows over all its
// intervals (throughput over the whole time; latencies, percentiles
// included, the I/O-weighted mean of the intervals', as the notes say),
// under its job's name, with the samples.
func (s *Scenario) Result() (*fio.Result, error) {
	main := s.classes[0]
	if len(main.intervals) == 0 {
		return nil, fmt.Errorf("internal error: a scenario with no interval solved")
	}
	out := &fio.Result{Simulated: true, Model: main.intervals[0].res.Model, Testbed: main.intervals[0].res.Testbed}
	for _, c := range s.classes {
		if len(c.intervals) == 0 {
			continue
		}
		rows, agg := weighted(c.intervals, func(r *fio.Result) []fio.Row { return r.Rows }), weighted(c.intervals, func(r *fio.Result) []fio.Row { return r.Aggregate })
		rows, agg = withTotals(rows), withTotals(agg)
		for i := range rows {
			rows[i].Job = c.name
		}
		for i := range agg {
			agg[i].Job = c.name
		}
		out.Rows, out.Aggregate = append(out.Rows, rows...), append(out.Aggregate, agg...)
		out.Samples = append(out.Samples, c.samples...)
		for _, sp := range c.intervals {
			for _, n := range sp.res.Notes {
				if !slices.Contains(out.Notes, n) {
					out.Notes = append(out.Notes, n)
				}
			}
		}
	}
	sort.SliceStable(out.Samples, func(a, b int) bool { return out.Samples[a].TS < out.Samples[b].TS })
	if slices.ContainsFunc(out.Aggregate, func(r fio.Row) bool { return r.Direction == fio.TotalDirection }) {
		out.Notes = append(out.Notes, totalNote)
	}
	out.Notes = append(out.Notes, "over the whole measurement, throughput is the mean of the intervals and latencies (percentiles too) their I/O-weighted mean")
	return out, nil
}

// weighted combines the rows of each interval that share worker, disk and
// direction: I/Os and bytes over the total time, latencies weighted by I/Os.
func weighted(spans []interval, rows func(*fio.Result) []fio.Row) []fio.Row {
	type key struct{ worker, disk, dir string }
	type acc struct {
		row                       fio.Row
		ios, bytes                float64
		mean, p50, p95, p99, p999 float64
	}
	var order []key
	accs := map[key]*acc{}
	total := 0.0
	for _, s := range spans {
		total += s.dt
	}
	for _, s := range spans {
		for _, r := range rows(s.res) {
			k := key{r.Worker, r.Disk, r.Direction}
			a := accs[k]
			if a == nil {
				a = &acc{row: r}
				a.row.Errors = 0
				accs[k] = a
				order = append(order, k)
			}
			n := r.IOPS * s.dt
			a.ios += n
			a.bytes += r.MBps * s.dt
			a.mean += n * r.LatMeanUs
			a.p50 += n * r.P50Us
			a.p95 += n * r.P95Us
			a.p99 += n * r.P99Us
			a.p999 += n * r.P999Us
			a.row.Errors += r.Errors
		}
	}
	out := make([]fio.Row, 0, len(order))
	for _, k := range order {
		a := accs[k]
		r := a.row
		r.IOPS, r.MBps = a.ios/total, a.bytes/total
		if a.ios > 0 {
			r.LatMeanUs, r.P50Us, r.P95Us, r.P99Us, r.P999Us = a.mean/a.ios, a.p50/a.ios, a.p95/a.ios, a.p99/a.ios, a.p999/a.ios
		}
		out = append(out, r)
	}
	return out
}
