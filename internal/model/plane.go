package model

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// defaultPolicy is what a disk without a policy gets: vSAN's default
// storage policy.
var defaultPolicy = Policy{RAID: "raid1", FTT: 1}

// Plane is the simulated data plane of one testbed: fio.DataPlane backed by
// the queueing model. It remembers how each disk was prepared and written.
type Plane struct {
	p   *testbed.Profile
	src StateSource

	mu       sync.Mutex
	disks    map[diskKey]diskData
	streams  map[streamKey][]streamRun // random runs that fio's seeds make draw the same offsets (replay.go)
	buffer   writeBuffer               // OSA's write buffers, carried from run to run
	laidOut  map[diskKey]objectLayout  // how each disk's objects were laid out when the plane last saw them
	noise    *rand.Rand                // nil: no noise
	hostLoad HostLoadFunc
	hosts    []string // the cluster's hosts, for hostLoad
	runLoad  RunLoadFunc
	bufferAt BufferFunc
	observe  ObserveFunc
	solved   *solveCache
}

// ObserveFunc receives every cell a Plane solves: the context of the run
// that solved it (a campaign's run says which it is, campaign.RunOf), the
// profile, the input it built from the workers, disks and cluster state,
// the model's output before noise, and the bytes in each OSA disk group's
// write buffer as the cell starts (0 on ESA), from which RunFigures lays
// a lone job's run out in time.
type ObserveFunc func(ctx context.Context, p *testbed.Profile, in Input, out Output, fill float64)

// HostLoadFunc receives what a simulated run predicted on each host it
// loads, by host name (a host the run leaves idle is absent), with the
// run's wall-clock window, so the control plane can report it as metrics.
type HostLoadFunc func(start, end time.Time, hosts map[string]HostLoad)

// HostLoad is what a run costs one host: its CPU (Output.HostCPUPercent)
// and its own figures (Output.Hosts).
type HostLoad struct {
	CPUPercent float64
	HostFigures
}

// Add adds w times o to l (for means over time).
func (l *HostLoad) Add(o HostLoad, w float64) {
	l.CPUPercent += w * o.CPUPercent
	f, g := &l.HostFigures, &o.HostFigures
	f.CompReadIOPS += w * g.CompReadIOPS
	f.CompWriteIOPS += w * g.CompWriteIOPS
	f.CompReadBytesPerSec += w * g.CompReadBytesPerSec
	f.CompWriteBytesPerSec += w * g.CompWriteBytesPerSec
	f.DeviceUtil += w * g.DeviceUtil
	f.CacheUtil += w * g.CacheUtil
	f.DOMUtil += w * g.DOMUtil
	f.LSOMUtil += w * g.LSOMUtil
	f.LSOMBusiest += w * g.LSOMBusiest
	f.NICTxBytesPerSec += w * g.NICTxBytesPerSec
	f.NICRxBytesPerSec += w * g.NICRxBytesPerSec
	f.NICPercent += w * g.NICPercent
	f.VSANCPUPercent += w * g.VSANCPUPercent
}

// RunLoadFunc receives every simulated run's wall-clock window with its
// input and what the model predicted (noise included), so the control
// plane can report vSAN's own metrics of the run (VsanPerfQueryPerf).
type RunLoadFunc func(start, end time.Time, in Input, out Output)

type diskKey struct{ worker, disk string }

var _ fio.DataPlane = (*Plane)(nil)

// Option configures a Plane.
type Option func(*Plane)

// WithNoise adds seeded run-to-run noise with the profile's noise_cv: the
// same seed gives the same sequence of results.
func WithNoise(seed uint64) Option {
	return func(pl *Plane) { pl.noise = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }
}

// WithHostLoad reports what every run predicted of each host to f. hosts
// are the cluster's host names: the model knows the hosts of the worker
// VMs, and puts the components it places elsewhere on the others in
// sorted order (see hostNames).
func WithHostLoad(hosts []string, f HostLoadFunc) Option {
	return func(pl *Plane) { pl.hostLoad, pl.hosts = f, hosts }
}

// WithRunLoad reports every run's window, input and output to f.
func WithRunLoad(f RunLoadFunc) Option {
	return func(pl *Plane) { pl.runLoad = f }
}

// WithObserver shows every solved cell to f (calibration and diagnostics:
// the inputs a campaign really produced).
func WithObserver(f ObserveFunc) Option {
	return func(pl *Plane) { pl.observe = f }
}

// NewPlane returns the simulated data plane for a testbed; src reads the
// cluster's settings and the disks' policies from the control plane.
func NewPlane(p *testbed.Profile, src StateSource, opts ...Option) fio.DataPlane {
	pl := &Plane{p: p, src: src, disks: map[diskKey]diskData{}, laidOut: map[diskKey]objectLayout{}, streams: map[streamKey][]streamRun{}, solved: newSolveCache(maxSolved)}
	for _, o := range opts {
		o(pl)
	}
	return pl
}

// Prepare records how the workers' disks were filled; it returns at once,
// with no progress sample (there is no fill to follow). "none" leaves the
// disks as they are (never-written blocks stay unwritten). On OSA the fill
// goes through the disk groups' write buffers like any write (prepBuffered).
func (pl *Plane) Prepare(ctx context.Context, workers []fio.Worker, prep fio.Prep, _ func(fio.Status)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := prep.Validate(); err != nil {
		return err
	}
	pct := 100.0 // zero
	switch prep.Method {
	case "none":
		return nil
	case "random":
		pct = float64(prep.CompressPercentage)
	}
	pl.relayOut(ctx, workers)
	buffered := pl.prepBuffered(ctx, workers, prep)
	pl.mu.Lock()
	pl.buffer.add(pl.p, buffered)
	for _, w := range workers {
		for _, d := range w.Disks {
			pl.disks[diskKey{w.Name, d.Name}] = uniformData(pl.diskSize(d), 1, pct)
		}
	}
	maps.DeleteFunc(pl.streams, func(k streamKey, _ []streamRun) bool { // every block is written now
		written, _ := pl.disks[k.disk].whole()
		return written >= 1
	})
	pl.mu.Unlock()
	pl.reportBuffer()
	return nil
}

// Run solves the model for the workload's jobs on the workers' disks (each
// job on the disks fio.Workload.Targets maps it to, as concurrent classes
// through RunJobs) and returns fio's result shape, all marked simulated.
// A workload of several jobs also gets aggregate rows over all of them.
// Phases (stonewall, wait_for) run one after another (see runPhases).
func (pl *Plane) Run(ctx context.Context, workers []fio.Worker, wl *fio.Workload, progress func(fio.Status)) (*fio.Result, error) {
	if wl == nil {
		return nil, fmt.Errorf("no workload to run")
	}
	if err := wl.Validate(); err != nil {
		return nil, err
	}
	if err := wl.CheckWithFio(ctx); err != nil {
		return nil, err
	}
	// fio's $ncpus and $mb_memory are the worker VM's.
	machine := fio.Machine{NCPUs: pl.p.Workers.CPUs, MemMB: pl.p.Workers.MemoryMB}
	jobs := make([]JobRun, len(wl.Jobs))
	for i, j := range wl.Jobs {
		job, err := j.Expand(machine)
		if err != nil {
			return nil, err
		}
		jobs[i].Job = &job
	}
	// fio takes exitall from any job for the whole run (fio 3.33: exitall
	// on a stonewalled job only still lets the first job's end stop its
	// sibling in the phase before; fio.Workload.Exitall).
	if wl.Exitall() {
		for _, j := range jobs {
			j.Job.Options = append(slices.Clone(j.Job.Options), fio.Option{Key: "exitall"})
		}
	}
	for _, w := range workers {
		if len(w.Disks) == 0 {
			return nil, fmt.Errorf("the workers have no data disks: give each worker at least one disk")
		}
		targets, err := wl.Targets(w)
		if err != nil {
			return nil, err
		}
		on := make([]fio.Worker, len(wl.Jobs))
		for _, t := range targets {
			if len(t.Disks) == 0 {
				return nil, fmt.Errorf("job %q: ioengine=%s does no disk I/O; the model runs jobs on disks", wl.Jobs[t.Job].Name, wl.Jobs[t.Job].IOEngine)
			}
			on[t.Job].Disks = append(on[t.Job].Disks, t.Disks...)
		}
		numberThreads(jobs, w, targets)
		for i := range jobs {
			if len(on[i].Disks) > 0 {
				jw := w
				jw.Disks = on[i].Disks
				jobs[i].Workers = append(jobs[i].Workers, jw)
			}
		}
	}
	phases := wl.Phases()
	waits, err := flowWaits(jobs, phases)
	if err != nil {
		return nil, err
	}
	var res *fio.Result
	if len(phases) > 1 {
		res, err = pl.runPhases(ctx, jobs, phases, progress)
	} else {
		res, err = pl.RunJobs(ctx, jobs, progress)
	}
	if err != nil || len(jobs) == 1 {
		return res, err
	}
	res.Notes = append(res.Notes, waits...)
	// Over all jobs, the total is of the combined directions, whichever jobs moved them.
	perDir := slices.DeleteFunc(slices.Clone(res.Aggregate), func(r fio.Row) bool { return r.Direction == fio.TotalDirection })
	res.Aggregate = append(res.Aggregate, withTotals(fio.CombineJobs(perDir))...)
	res.Notes = append(res.Notes, "the aggregate over all jobs sums their IOPS and MB/s and weights mean latency by IOPS; simulated jobs have no histograms to merge, so its percentiles are missing")
	return res, nil
}

// runPhases runs a workload's phases (fio's stonewall and wait_for) one
// after another, as fio does: each phase's jobs at once, as classes of one
// network, on the disks the phases before it wrote. Every job keeps its
// rows under its name; the samples of a phase follow the end of the one
// before it on one time axis; notes of each phase name it.
func (pl *Plane) runPhases(ctx context.Context, jobs []JobRun, phases [][]int, progress func(fio.Status)) (*fio.Result, error) {
	res := &fio.Result{Simulated: true}
	offset, ran := 0.0, 0
	for n, phase := range phases {
		ran = n + 1
		part := make([]JobRun, len(phase))
		var names []string
		for k, i := range phase {
			part[k] = jobs[i]
			names = append(names, jobs[i].Job.Name)
		}
		r, err := pl.RunJobs(ctx, part, progress)
		if err != nil {
			return nil, fmt.Errorf("phase %d (%s): %w", n+1, strings.Join(names, ", "), err)
		}
		if len(part) == 1 { // RunJobs names jobs only when it runs several
			r = r.AsJob(part[0].Job.Name, 0)
		}
		end := offset
		for _, s := range r.Samples {
			s.TS += offset
			end = max(end, s.TS)
			res.Samples = append(res.Samples, s)
		}
		res.Rows = append(res.Rows, r.Rows...)
		res.Aggregate = append(res.Aggregate, r.Aggregate...)
		res.Model, res.Testbed = r.Model, r.Testbed
		label := fmt.Sprintf("phase %d (%s): ", n+1, strings.Join(names, ", "))
		for _, note := range r.Notes {
			switch {
			case strings.HasPrefix(note, dataPlanePrefix):
				if !slices.Contains(res.Notes, note) {
					res.Notes = append(res.Notes, note)
				}
			case strings.HasPrefix(note, bottleneckPrefix):
				res.Notes = append(res.Notes, bottleneckPrefix+label+strings.TrimPrefix(note, bottleneckPrefix))
			default:
				res.Notes = append(res.Notes, label+note)
			}
		}
		offset = end
		lone := len(part) == 1 && exitsRun(part[0].Job) // overlap says it of several jobs
		if lone || slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, exitAllPhasesNote) }) {
			var left []string
			for _, later := range phases[n+1:] {
				for _, i := range later {
					left = append(left, jobs[i].Job.Name)
				}
			}
			if len(left) > 0 {
				res.Notes = append(res.Notes, fmt.Sprintf("exit_what=all ended the run in phase %d: %s did not run", n+1, strings.Join(left, ", ")))
			}
			break
		}
	}
	res.Notes = append(res.Notes, fmt.Sprintf("%d phases (stonewall, wait_for) solved one after another, each on the disks the ones before it wrote; the aggregate over all jobs sums them, as fio's own totals do: read each job's rows", ran))
	return res, nil
}

// Prefixes of the notes RunJobs writes that readers pick out.
const (
	dataPlanePrefix  = "simulated by "
	bottleneckPrefix = "bottleneck: "
)

// JobRun is one job of a workload and the workers it runs on.
type JobRun struct {
	Workers []fio.Worker
	Job     *fio.Job
	// readsBack marks verify's read-back pass: it reads only blocks the
	// job wrote, whatever share of its extent they are.
	readsBack bool
	// threads is, for each of the job's disks, the first fio thread of its
	// section in its worker's job file, from 0 (a section per job and disk,
	// the jobs in order; its numjobs clones follow): what fio seeds random
	// offsets with (replay.go). A disk without one follows no stream.
	threads map[diskKey]int
	// finds, where set, is what each of the job's disks (in disksOf
	// order) holds where the job reads, in place of what lies over its
	// whole reach: a reader's part of its passes (passage).
	finds []found
}

// numberThreads gives each job the first fio thread of its section on
// each of its disks on worker w (JobRun.threads): fio numbers the threads
// of the worker's job file in order, a section's numjobs clones together,
// and the workload has a section per job and disk (targets, in order; a
// section over several files gives them all its threads).
func numberThreads(jobs []JobRun, w fio.Worker, targets []fio.Target) {
	thread := 0
	for _, t := range targets {
		if jobs[t.Job].threads == nil {
			jobs[t.Job].threads = map[diskKey]int{}
		}
		for _, d := range t.Disks {
			jobs[t.Job].threads[diskKey{w.Name, d.Name}] = thread
		}
		thread += max(jobs[t.Job].Job.NumJobs, 1)
	}
}

// fioJobs is how many fio jobs (threads) run the job: one per disk and
// numjobs clone. fio's per-job options (rates, floors, flow) hold for each.
func (j JobRun) fioJobs() float64 {
	return float64(len(disksOf(j.Workers)) * max(j.Job.NumJobs, 1))
}

// RunJobs runs jobs at the same time, as one workload: they are classes of
// one network, sharing the cluster. The result has each job's rows and
// aggregate rows (Row.Job names the job when there are several) and each
// job's samples.
func (pl *Plane) RunJobs(ctx context.Context, jobs []JobRun, progress func(fio.Status)) (*fio.Result, error) {
	start := time.Now()
	var workers []fio.Worker
	for _, j := range jobs {
		workers = append(workers, j.Workers...)
	}
	relaid := pl.relayOut(ctx, workers) // one look at the cluster for all the jobs' disks
	jobs, passes := verifyPasses(jobs)
	in, out, notes, err := pl.solveCell(ctx, jobs, math.NaN())
	if err != nil {
		return nil, err
	}
	if relaid != "" {
		notes = append(notes, relaid)
	}
	z := pl.noiseDraw() // taken once solved, so a run that fails takes none
	pl.applyDraw(z, out, out.Burst)
	// Lay every job out in time; OSA's write buffers fill with all of them.
	lo, err := pl.layOutJobs(ctx, jobs, passes, in, out, z)
	if err != nil {
		return nil, err
	}
	in, out, notes = lo.in, lo.out, append(notes, lo.notes...)
	burst, end := lo.burst, lo.end
	whole := overRun(out, burst, end)
	pl.reportBuffer()
	if pl.hostLoad != nil {
		loads := map[string]HostLoad{}
		for h, name := range hostNames(pl.p.Hosts, in.VMs, pl.hosts) {
			if name != "" && h < len(whole.HostCPUPercent) && whole.HostCPUPercent[h] > 0 {
				loads[name] = HostLoad{whole.HostCPUPercent[h], whole.Hosts[h]}
			}
		}
		pl.hostLoad(start, time.Now(), loads)
	}
	if pl.runLoad != nil {
		pl.runLoad(start, time.Now(), in, whole)
	}

	res := &fio.Result{Simulated: true, Model: out.Version, Testbed: out.Profile}
	var status fio.Status
	for i, j := range jobs {
		name := ""
		if len(jobs) > 1 {
			name = j.Job.Name
		}
		jsp, began := lo.spans[i], lo.starts[i]
		// A job's figures are its measured window, the mean of its samples.
		measured := [2]Direction{lo.cell.Jobs[i].Read, lo.cell.Jobs[i].Write}
		switch {
		case math.IsNaN(began): // stopped before it started (exitall): no I/O, as fio reports it
			measured = [2]Direction{}
		case jsp.end > jsp.ramp:
			measured = jsp.measured()
		}
		own := jsp.own() // verify's read-back writes nothing and moves nothing on
		all := own.over(0, own.end)
		pl.recordWrites(j.Workers, j.Job, j.threads, all[write].MBps*1e6*own.end, (all[read].MBps+all[write].MBps)*1e6*own.end)
		rows, aggregate := shareRows(j.Workers, measured)
		classRows(rows, lo.cell.Jobs[i])
		rows, aggregate = withTotals(rows), withTotals(aggregate)
		for k := range rows {
			rows[k].Job = name
		}
		for k := range aggregate {
			aggregate[k].Job = name
		}
		res.Rows = append(res.Rows, rows...)
		res.Aggregate = append(res.Aggregate, aggregate...)
		for _, smp := range jsp.samples(name) {
			smp.TS += began // concurrent jobs' samples share the run's time axis
			res.Samples = append(res.Samples, smp)
		}
		status.Elapsed, status.Total = max(status.Elapsed, j.Job.RuntimeSec), max(status.Total, j.Job.RuntimeSec)
		status.IOPS += measured[read].IOPS + measured[write].IOPS
		status.MBps += measured[read].MBps + measured[write].MBps
	}
	slices.SortStableFunc(res.Samples, func(a, b fio.Sample) int { return cmp.Compare(a.TS, b.TS) })
	res.Notes = append(res.Notes,
		fmt.Sprintf(dataPlanePrefix+"%s on testbed %s", out.Version, out.Profile),
		fmt.Sprintf(bottleneckPrefix+"%s at %.0f %%; host CPU %.0f %%, NIC %.0f %%; %d outstanding I/Os", out.Bottleneck, 100*out.BottleneckUtil, out.CPUPercent, out.NICPercent, out.Outstanding))
	for _, n := range append(notes, out.Notes...) { // a later stretch's notes may be the run's cell's
		if !slices.Contains(res.Notes, n) {
			res.Notes = append(res.Notes, n)
		}
	}
	if lo.bufferNote != "" {
		res.Notes = append(res.Notes, lo.bufferNote)
	}
	if slices.ContainsFunc(res.Aggregate, func(r fio.Row) bool { return r.Direction == fio.TotalDirection }) {
		res.Notes = append(res.Notes, totalNote)
	}
	if lo.phases > 1 || burst > 0 && burst < end {
		res.Notes = append(res.Notes, "over the whole run, throughput is the mean of the samples and latencies (percentiles too) their I/O-weighted mean")
	}
	res.Notes = append(res.Notes, CheckBounds(pl.p, SummaryOf(res))...)
	if progress != nil {
		status.LatMeanUs = res.Status(0, 0).LatMeanUs
		progress(status)
	}
	return res, nil
}

// laidOut is a run of jobs laid out in time.
type laidOut struct {
	spans      []span    // each job's run, from its own start
	starts     []float64 // when each job started in the run
	in         Input     // the cell the control plane's view covers
	out        *Output   // its figures: the run's bottleneck, the hosts' loads
	cell       *Output   // every job's own figures by class, in the jobs' order
	burst, end float64   // OSA's burst and the length of the view's stretch
	phases     int       // stretches of the run solved on their own
	bufferNote string
	notes      []string
}

// layOutJobs lays jobs out in time from in, the cell of all of them,
// solved as out and scaled by the run's noise draw z: a lone job through
// its burst and steady state (layOut); several, a verifying job, or one
// meeting differently written parts of its disks in order, through the
// stretches in which the same jobs run with what they find (overlap). OSA's
// write buffers move on with it. It fails where fio would end a job below
// its minimum rate (belowMinRate) or above its maximum latency
// (aboveMaxLatency).
func (pl *Plane) layOutJobs(ctx context.Context, jobs []JobRun, passes []*verifyPass, in Input, out *Output, z float64) (laidOut, error) {
	lo := laidOut{in: in, out: out, cell: out, spans: make([]span, len(jobs)), starts: make([]float64, len(jobs)), phases: 1}
	along := make([]*passage, len(jobs)) // where each meets differently written parts in order
	for i, j := range jobs {
		along[i] = pl.passageOf(j)
	}
	if len(jobs) == 1 && passes[0] == nil && along[0] == nil {
		pl.mu.Lock()
		sp := layOut(pl.p, &pl.buffer, out, jobs[0].Job, disksOf(jobs[0].Workers))
		pl.mu.Unlock()
		sp, note, err := pl.mapPassPhases(ctx, in, z, sp)
		if err != nil {
			return lo, err
		}
		if note != "" {
			lo.notes = append(lo.notes, note)
		}
		lo.spans[0], lo.burst, lo.end = sp, sp.burst, sp.end
		lo.phases, lo.bufferNote = len(sp.phases), sp.bufferNote
	} else {
		run, main, when, err := pl.overlap(ctx, jobs, passes, along, in, out, z)
		if err != nil {
			return lo, err
		}
		lo.notes, lo.phases = when, len(run)
		for i, j := range jobs {
			lo.spans[i], lo.starts[i] = spanOf(run, i, float64(j.Job.RampSec))
		}
		// The control plane's view (the hosts', vSAN's) and the run's
		// bottleneck are those of the stretch overlap names; a lone job's
		// own figures by class are its.
		if main >= 0 { // else no job did I/O: the whole run's cell stands for the view
			lo.in, lo.out = run[main].cell.in, run[main].cell.out
			lo.burst, lo.end = run[main].burst, run[main].to-run[main].from
		}
		if len(jobs) == 1 {
			lo.cell = lo.out
		}
	}
	for i, j := range jobs {
		sh, err := readJob(j.Job)
		if err != nil {
			continue // solving the job read it and said what is wrong
		}
		if err := belowMinRate(j, sh, lo.spans[i].own()); err != nil { // fio checks rates in the job's own I/O only
			return lo, err
		}
		worst, err := aboveMaxLatency(j, sh, lo.spans[i])
		if err != nil {
			return lo, err
		}
		if worst > 0 {
			lo.notes = append(lo.notes, maxLatencyNote(j.Job.Name, rawValue(j.Job, "max_latency"), worst))
		}
	}
	return lo, nil
}

// workloadInput is the cell of jobs on their workers' disks (see input),
// the VMs of all jobs listed once.
func (pl *Plane) workloadInput(ctx context.Context, jobs []JobRun) (Input, []string, error) {
	if len(jobs) == 0 {
		return Input{}, nil, fmt.Errorf("no job to run")
	}
	var in Input
	var notes []string
	vm := map[string]int{}
	for _, j := range jobs {
		one, n, err := pl.input(ctx, j.Workers, j.Job)
		if err != nil {
			if len(jobs) > 1 {
				return Input{}, nil, fmt.Errorf("job %s: %w", j.Job.Name, err)
			}
			return Input{}, nil, err
		}
		in.State = one.State
		jl := one.Jobs[0]
		jl.Name = ""
		for d := range jl.Disks {
			switch {
			case j.readsBack:
				jl.Disks[d].Written = 1
			case d < len(j.finds):
				jl.Disks[d].Written, jl.Disks[d].CompressPercentage = j.finds[d].written, int(math.Round(j.finds[d].compressPct))
			}
		}
		jl.inPart = j.finds != nil
		if len(jobs) > 1 {
			jl.Name = j.Job.Name
		}
		in.join(one, jl, j.Workers, vm, len(jobs) > 1)
		for _, note := range n {
			if !slices.Contains(notes, note) {
				notes = append(notes, note)
			}
		}
	}
	if len(jobs) > 1 {
		shareLimits(jobs, in.Jobs)
	}
	return in, notes, nil
}

// join appends jl, a job's load read for its workers alone (one), to in:
// each VM once however many jobs run on it (index: a VM's place in in.VMs
// by name), and with other jobs together its disks named, so that jobs on
// the same disk use its one object.
func (in *Input) join(one Input, jl JobLoad, workers []fio.Worker, index map[string]int, together bool) {
	var disks []fio.Disk
	if together {
		disks = disksOf(workers)
	}
	for d := range jl.Disks {
		v := one.VMs[jl.Disks[d].VM]
		idx, ok := index[v.Name]
		if !ok {
			idx = len(in.VMs)
			index[v.Name] = idx
			in.VMs = append(in.VMs, v)
		}
		jl.Disks[d].VM = idx
		if together {
			jl.Disks[d].Disk = disks[d].Name
		}
	}
	in.Jobs = append(in.Jobs, jl)
}

// shareLimits gives each job's disks their share of the disk's policy
// IOPS limit where jobs run at once on the same disk: a worker's disk is
// one vSAN object, and vSAN limits the object. vSAN delays the object's
// I/Os above the limit in turn, so the I/Os waiting there are served in
// the order they came: each job's rate is its outstanding I/Os on the disk
// over the same wait, and its share of the limit's units is its
// outstanding I/Os times the units one of them counts (normalizedIOs). A
// job fio's own rate holds below its share takes only what that rate
// needs (a mixed job at both its directions' rates, where fio settles it),
// and the others share the rest the same way. loads are the jobs'
// loads, their disks in the order of their workers'.
func shareLimits(jobs []JobRun, loads []JobLoad) {
	type use struct {
		job, disk    int
		weight, rate float64 // rate: fio's cap on the disk, in the limit's units
	}
	uses := map[diskKey][]use{}
	for j, jr := range jobs {
		sh, err := readJob(jr.Job)
		if err != nil {
			return // solving reads the same job and says what is wrong
		}
		clones := float64(max(jr.Job.NumJobs, 1))
		held, heldShare := sh.heldRate()
		weight := clones * float64(sh.depth) * normalizedIOs(sh.sizes, sh.fr)
		rate := clones * held * normalizedIOs(sh.sizes, heldShare)
		d := 0
		for _, w := range jr.Workers {
			for _, disk := range w.Disks {
				if loads[j].Disks[d].Policy.IOPSLimit > 0 {
					k := diskKey{w.Name, disk.Name}
					uses[k] = append(uses[k], use{j, d, weight, rate})
				}
				d++
			}
		}
	}
	for _, us := range uses {
		if len(us) < 2 {
			continue
		}
		limit := float64(loads[us[0].job].Disks[us[0].disk].Policy.IOPSLimit)
		left, open := 1.0, us
		for len(open) > 0 {
			total := 0.0
			for _, u := range open {
				total += u.weight
			}
			// A job its own rate holds below its share may take the share
			// (fio's rate binds first) and leaves the rest of it to the
			// others, shared the same way.
			var rest []use
			taken := 0.0
			for _, u := range open {
				share := left * u.weight / total
				loads[u.job].Disks[u.disk].LimitShare = share
				if u.rate/limit < share {
					taken += u.rate / limit
				} else {
					rest = append(rest, u)
				}
			}
			if len(rest) == len(open) {
				break
			}
			left -= taken
			open = rest
		}
	}
}

func disksOf(workers []fio.Worker) []fio.Disk {
	var disks []fio.Disk
	for _, w := range workers {
		disks = append(disks, w.Disks...)
	}
	return disks
}

// input is the cell of job on the workers' disks: the cluster's state and
// the disks' policies read through the control plane, what the plane knows
// of the disks' data, and notes on what it assumed.
func (pl *Plane) input(ctx context.Context, workers []fio.Worker, job *fio.Job) (Input, []string, error) {
	if job == nil {
		return Input{}, nil, fmt.Errorf("no job to run")
	}
	if err := ctx.Err(); err != nil {
		return Input{}, nil, err
	}
	state, err := pl.src.ClusterState(ctx)
	if err != nil {
		return Input{}, nil, fmt.Errorf("reading cluster state: %w", err)
	}
	in := Input{State: state}
	jl := JobLoad{Job: job}
	policies, notes, err := pl.policies(ctx, workers)
	if err != nil {
		return Input{}, nil, err
	}
	sh, shapeErr := readJob(job) // solving reads the same job and says what is wrong
	pl.mu.Lock()
	for v, w := range workers {
		in.VMs = append(in.VMs, VM{Name: w.Name, Host: w.Host, CPUs: w.CPUs, Controller: w.Controller})
		for _, d := range w.Disks {
			// What the job finds written is what lies where it reads.
			size, data := pl.diskSize(d), pl.data(w.Name, d)
			written, pct := data.whole()
			if shapeErr == nil {
				written, pct = sh.finds(data, size, job.NumJobs)
			}
			jl.Disks = append(jl.Disks, DiskLoad{VM: v, Policy: policies[d.Policy], Written: written, CompressPercentage: int(math.Round(pct)), SizeBytes: d.SizeBytes})
		}
	}
	pl.mu.Unlock()
	in.Jobs = []JobLoad{jl}
	if len(jl.Disks) == 0 {
		return Input{}, nil, fmt.Errorf("the workers have no data disks: give each worker at least one disk")
	}
	return in, notes, nil
}

// policies reads the storage policies of the workers' disks through the
// control plane, by name, before the caller takes the lock so that
// concurrent runs do not wait on each other's lookups. A disk without one
// has vSAN's default, noted.
func (pl *Plane) policies(ctx context.Context, workers []fio.Worker) (map[string]Policy, []string, error) {
	policies := map[string]Policy{}
	var notes []string
	for _, w := range workers {
		for _, d := range w.Disks {
			if _, ok := policies[d.Policy]; ok {
				continue
			}
			pol := defaultPolicy
			if d.Policy == "" {
				notes = append(notes, "disks without a storage policy modelled as raid1 ftt 1 (vSAN default)")
			} else if p, err := pl.src.Policy(ctx, d.Policy); err != nil {
				return nil, nil, fmt.Errorf("disk %s of %s: policy %q: %w", d.Name, w.Name, d.Policy, err)
			} else {
				pol = p
			}
			policies[d.Policy] = pol
		}
	}
	return policies, notes, nil
}

// shareRows are fio's rows of a result on the workers: per disk and
// direction the totals divided evenly, then the aggregate rows.
func shareRows(workers []fio.Worker, dirs [2]Direction) (rows, aggregate []fio.Row) {
	n := 0
	for _, w := range workers {
		n += len(w.Disks)
	}
	for dir, name := range [2]string{"read", "write"} {
		d := dirs[dir]
		if d.IOPS == 0 {
			continue
		}
		row := func(worker, disk string, share float64) fio.Row {
			return fio.Row{Worker: worker, Disk: disk, Direction: name, IOPS: d.IOPS * share, MBps: d.MBps * share,
				LatMeanUs: d.LatMeanUs, P50Us: d.P50Us, P95Us: d.P95Us, P99Us: d.P99Us, P999Us: d.P999Us, Simulated: true}
		}
		for _, w := range workers {
			for _, disk := range w.Disks {
				rows = append(rows, row(w.Name, disk.Name, 1/float64(n)))
			}
		}
		aggregate = append(aggregate, row("", "", 1))
	}
	return rows, aggregate
}

// totalNote says what a simulated total row holds.
const totalNote = "total rows sum read and write IOPS and MB/s and weight mean latency by IOPS; simulated directions have no histograms to merge, so their percentiles are missing"

// withTotals appends to rows (one direction's rows after another's, in the
// same order of worker and disk, as shareRows makes them) a total row for
// each worker and disk that moved data in both directions, as fio's own
// rows have, combined as fio.SumRows combines rows without histograms.
func withTotals(rows []fio.Row) []fio.Row {
	type key struct{ job, worker, disk string }
	var order []key
	groups := map[key][]fio.Row{}
	for _, r := range rows {
		k := key{r.Job, r.Worker, r.Disk}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	out := rows
	for _, k := range order {
		if len(groups[k]) < 2 {
			continue
		}
		t := fio.SumRows(fio.TotalDirection, groups[k])
		t.Job, t.Worker, t.Disk = k.job, k.worker, k.disk
		out = append(out, t)
	}
	return out
}

// classRows gives each disk's rows (shareRows's, the disks in the order of
// the job's) its class's rate and latencies where the job ran as classes
// (docs/model.md, Placement, "Classes"): the class's share of the job's
// figures, per disk, and its latencies against the job's, applied to the
// rows' measured figures. The rows still add up to the job's, latencies
// (percentiles too) weighted by I/Os.
func classRows(rows []fio.Row, jo JobOutput) {
	n := 0
	for _, cl := range jo.Classes {
		n += len(cl.Disks)
	}
	if n == 0 {
		return
	}
	classOf := make([]int, n)
	for c, cl := range jo.Classes {
		for _, d := range cl.Disks {
			classOf[d] = c
		}
	}
	ratio := func(a, b float64) float64 {
		if b == 0 {
			return 1
		}
		return a / b
	}
	for r := range rows { // each direction's rows are the disks', in order
		row := &rows[r]
		dir := read
		if row.Direction == "write" {
			dir = write
		}
		cl := &jo.Classes[classOf[r%n]]
		c, j := [2]Direction{cl.Read, cl.Write}[dir], [2]Direction{jo.Read, jo.Write}[dir]
		per := float64(n) / float64(len(cl.Disks))
		row.IOPS *= ratio(c.IOPS, j.IOPS) * per
		row.MBps *= ratio(c.MBps, j.MBps) * per
		row.LatMeanUs *= ratio(c.LatMeanUs, j.LatMeanUs)
		row.P50Us *= ratio(c.P50Us, j.P50Us)
		row.P95Us *= ratio(c.P95Us, j.P95Us)
		row.P99Us *= ratio(c.P99Us, j.P99Us)
		row.P999Us *= ratio(c.P999Us, j.P999Us)
	}
}

// applyNoise scales throughput by one seeded draw and latency inversely,
// as a whole run that went a little faster or slower would, though never
// past a physical bound the quiet run is within. A run held at
// a rate limit repeats at the limit: the draw is taken (so the runs after
// it draw as before) but not applied; where a limit holds some of its jobs
// or classes, those repeat at it and the rest take the draw (noisePartly).
// One draw is taken per run and applied to each of its regimes (outs; nil
// ones skipped), so OSA's burst and steady state move together.
func (pl *Plane) applyNoise(outs ...*Output) {
	pl.applyDraw(pl.noiseDraw(), outs...)
}

// noiseDraw takes a run's draw; NaN when the plane has no noise.
func (pl *Plane) noiseDraw() float64 {
	if pl.noise == nil {
		return math.NaN()
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return pl.noise.NormFloat64()
}

// applyDraw scales each regime of a run (outs; nil ones skipped) by the
// run's draw z, as applyNoise says; a NaN draw (no noise) leaves them.
func (pl *Plane) applyDraw(z float64, outs ...*Output) {
	if math.IsNaN(z) {
		return
	}
	for _, out := range outs {
		if out != nil {
			pl.scaleByDraw(out, z)
		}
	}
}

// scaleByDraw scales one regime of a run by the draw z (see applyNoise).
func (pl *Plane) scaleByDraw(out *Output, z float64) {
	if out.RateLimited {
		return
	}
	f := 1 + math.Max(-3, math.Min(3, z))*pl.p.Model.NoiseCV.Value
	// No run goes faster than the hardware carries: a draw that would take
	// the run past a physical bound it is within stops at the bound.
	sum := Summary{ReadIOPS: out.Read.IOPS, ReadMBps: out.Read.MBps, WriteIOPS: out.Write.IOPS, WriteMBps: out.Write.MBps}
	f = math.Min(f, headroom(pl.p, sum))
	if partlyHeld(out) {
		noisePartly(out, f)
		return
	}
	dirs := []*Direction{&out.Read, &out.Write}
	for i := range out.Jobs {
		dirs = append(dirs, &out.Jobs[i].Read, &out.Jobs[i].Write)
		for c := range out.Jobs[i].Classes {
			dirs = append(dirs, &out.Jobs[i].Classes[c].Read, &out.Jobs[i].Classes[c].Write)
		}
	}
	out.scaleLoads(f)
	for _, d := range dirs {
		d.scale(f)
	}
}

// scale scales a direction's throughput by f and its latencies by 1/f, as
// a run that went f times as fast would have them.
func (d *Direction) scale(f float64) {
	d.IOPS *= f
	d.MBps *= f
	d.LatMeanUs /= f
	d.P50Us /= f
	d.P95Us /= f
	d.P99Us /= f
	d.P999Us /= f
}

// scaleLoads scales by f what follows the run's throughput: each host's
// rates (its components' I/O and its uplink's traffic), and every
// utilisation (the stations', the hosts' CPU and vSAN's share of it, the
// guest's vCPUs, the NICs, each host's busiest devices), none beyond full;
// the CPU spinning vCPUs hold stays as it is.
func (out *Output) scaleLoads(f float64) {
	upTo := func(full float64, xs ...*float64) {
		for _, x := range xs {
			*x = math.Min(full, *x*f)
		}
	}
	// What spinning vCPUs hold does not follow the throughput.
	heldUpTo := func(x *float64, held float64) {
		*x = math.Min(100, held+(*x-held)*f)
	}
	heldUpTo(&out.CPUPercent, out.cpuHeld)
	upTo(100, &out.GuestCPUPercent, &out.NICPercent)
	upTo(1, &out.BottleneckUtil)
	for i := range out.HostCPUPercent {
		held := 0.0
		if i < len(out.hostHeld) {
			held = out.hostHeld[i]
		}
		heldUpTo(&out.HostCPUPercent[i], held)
	}
	for i := range out.Stations {
		upTo(1, &out.Stations[i].Util)
	}
	for i := range out.Hosts {
		h := &out.Hosts[i]
		upTo(math.Inf(1), &h.CompReadIOPS, &h.CompWriteIOPS, &h.CompReadBytesPerSec, &h.CompWriteBytesPerSec, &h.NICTxBytesPerSec, &h.NICRxBytesPerSec)
		upTo(100, &h.NICPercent, &h.VSANCPUPercent)
		upTo(1, &h.DeviceUtil, &h.CacheUtil, &h.DOMUtil, &h.LSOMUtil, &h.LSOMBusiest)
	}
}

// partlyHeld says a rate limit holds some of the run's jobs or classes
// (not all: then the run is RateLimited).
func partlyHeld(out *Output) bool {
	for _, jo := range out.Jobs {
		if jo.RateLimited {
			return true
		}
		for _, cl := range jo.Classes {
			if cl.RateLimited {
				return true
			}
		}
	}
	return false
}

// noisePartly scales by f the throughput of the jobs and classes no rate
// limit holds (latency inversely), and of the direction a held job's rates
// leave free, and leaves the held ones at their limit, as applyNoise
// leaves a run held as a whole; each job and the run
// are their parts together again (latencies weighted by I/Os), and the
// hosts' rates follow the run's.
func noisePartly(out *Output, f float64) {
	before := out.Read.IOPS + out.Write.IOPS
	together := func(total [2]*Direction, parts [][2]Direction) {
		var ios [2]float64
		var lat [2][5]float64
		for dir, t := range total {
			t.IOPS, t.MBps = 0, 0
			for _, p := range parts {
				t.IOPS += p[dir].IOPS
				t.MBps += p[dir].MBps
				ios[dir] += p[dir].IOPS
				addLatencies(&lat[dir], p[dir])
			}
		}
		setLatencies(total, ios, lat)
	}
	// A part no limit holds takes the draw; a held one keeps its limit
	// except in the direction its job's rates leave free (JobOutput.Free).
	unheld := func(held bool, free string, read, write *Direction) {
		if !held || free == "read" {
			read.scale(f)
		}
		if !held || free == "write" {
			write.scale(f)
		}
	}
	var jobs [][2]Direction
	for i := range out.Jobs {
		jo := &out.Jobs[i]
		if len(jo.Classes) > 0 {
			var classes [][2]Direction
			for c := range jo.Classes {
				cl := &jo.Classes[c]
				unheld(cl.RateLimited, jo.Free, &cl.Read, &cl.Write)
				classes = append(classes, [2]Direction{cl.Read, cl.Write})
			}
			together([2]*Direction{&jo.Read, &jo.Write}, classes)
		} else {
			unheld(jo.RateLimited, jo.Free, &jo.Read, &jo.Write)
		}
		jobs = append(jobs, [2]Direction{jo.Read, jo.Write})
	}
	together([2]*Direction{&out.Read, &out.Write}, jobs)
	if before > 0 {
		out.scaleLoads((out.Read.IOPS + out.Write.IOPS) / before)
	}
}

// recordWrites marks what a job wrote where its clones reach (extent).
// Sequential writes cover each clone's pass in order from its offset
// (clones on one region write the same blocks, and a pass starts over at
// the offset). Random writes follow fio's random map: each pass of a clone
// over its region writes distinct blocks, new ones each pass or the same
// ones again as its order says (mapCovered); without the map
// (norandommap, or a blockalign apart from bs) they cover 1-exp(-x) of
// what the clones reach, x the random bytes over it, or t(1-exp(-x/t))
// where blockalign lets them reach a share t of the blocks (fio 3.33 on a
// 16 MiB file, bs=4k ba=8k: 0.426 allocated after a file's worth, the
// model 0.432), and less where a random_distribution skews them
// (fio then turns the map off: coveredShare). percentage_random splits
// the bytes between the two kinds. A random job that draws the offsets of
// earlier runs again (fio's default seeds, replay.go) writes only where
// they did not: threads are its disks' first fio threads (see JobRun; nil
// for none followed), movedBytes its reads' and writes' bytes.
func (pl *Plane) recordWrites(workers []fio.Worker, job *fio.Job, threads map[diskKey]int, writtenBytes, movedBytes float64) {
	if writtenBytes <= 0 {
		return
	}
	disks := 0
	for _, w := range workers {
		disks += len(w.Disks)
	}
	sh, err := readJob(job)
	if err != nil {
		return // Solve read the same job without error
	}
	if sh.readBack > 0 { // it reads back what it writes besides its own I/O
		sh, movedBytes = sh.ownIO(), movedBytes-writtenBytes
	}
	clones := max(job.NumJobs, 1)
	perDisk := writtenBytes / float64(disks)
	pct := float64(sh.compressPct)
	pl.mu.Lock()
	defer pl.mu.Unlock()
	for _, w := range workers {
		for _, d := range w.Disks {
			data, size := pl.data(w.Name, d), pl.diskSize(d)
			union, depth := sh.extent.footprint(size, clones)
			if union <= 0 {
				continue
			}
			if seq := (1 - sh.randomShare) * perDisk / float64(clones); seq > 0 {
				var ranges []byteRange
				for i := range clones {
					start := sh.extent.cloneOffset(size, i)
					ranges = append(ranges, byteRange{start, start + sh.extent.along(seq, sh.meanIO(), sh.extent.pass(size, i))})
				}
				// What it touches there: between its holes, or its zones.
				data.write(ranges, sh.extent.touchedOver(ranges[0].end-ranges[0].start, sh.meanIO()), pct)
			}
			key := diskKey{w.Name, d.Name}
			thread, followed := threads[key]
			replayed := followed && pl.writeAlong(&data, sh, job, thread, key, size, movedBytes/float64(disks), pct)
			if x := sh.randomShare * perDisk / union; x > 0 && !replayed && !sh.writeZones(&data, size, clones, sh.randomShare*perDisk, pct) && !sh.writeStrided(&data, size, clones, sh.randomShare*perDisk, pct) {
				reachable := sh.alignedReach()                   // blockalign above the writes' size
				covered := -reachable * math.Expm1(-x/reachable) // offsets drawn afresh
				switch {
				case !sh.skew.uniform():
					// fio turns the random map off; hot blocks come back.
					covered = sh.hotSpread(union, depth).covered(x)
				case sh.order != drawnAfresh:
					covered = sh.mapCovered(x, depth)
				}
				data.write(sh.extent.reach(size, clones), covered, pct)
			}
			pl.disks[diskKey{w.Name, d.Name}] = data
		}
	}
}

// diskSize is a worker disk's size: its own, or the profile's workers'.
func (pl *Plane) diskSize(d fio.Disk) float64 {
	return diskBytes(pl.p, DiskLoad{SizeBytes: d.SizeBytes})
}

// data is what is on a worker's disk; the caller holds pl.mu.
func (pl *Plane) data(worker string, d fio.Disk) diskData {
	if dd, ok := pl.disks[diskKey{worker, d.Name}]; ok {
		return dd
	}
	return diskData{size: pl.diskSize(d)}
}

// overRun is what a run of end seconds (ramp included) did on average:
// OSA's burst for its first burst seconds, the steady state after, as
// fio's samples over the run have it. The control plane's metrics (the
// hosts' loads, vSAN's client view) cover the whole run, so they are this
// mean, not the steady state alone. Without a burst it is out as it is.
func overRun(out *Output, burst, end float64) Output {
	whole := *out
	b := out.Burst
	if b == nil || burst <= 0 || end <= 0 || len(b.Hosts) != len(out.Hosts) || len(b.HostCPUPercent) != len(out.HostCPUPercent) {
		return whole
	}
	share := math.Min(burst, end) / end
	dirs := jobSpan(0, end, [2]Direction{out.Read, out.Write}, [2]Direction{b.Read, b.Write}, burst).over(0, end)
	whole.Read, whole.Write = dirs[read], dirs[write]
	whole.HostCPUPercent = make([]float64, len(out.HostCPUPercent))
	whole.Hosts = make([]HostFigures, len(out.Hosts))
	for h := range whole.Hosts {
		var l HostLoad
		l.Add(HostLoad{out.HostCPUPercent[h], out.Hosts[h]}, 1-share)
		l.Add(HostLoad{b.HostCPUPercent[h], b.Hosts[h]}, share)
		whole.HostCPUPercent[h], whole.Hosts[h] = l.CPUPercent, l.HostFigures
	}
	return whole
}
