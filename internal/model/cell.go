package model

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"starbench/internal/testbed"
)

// Solve predicts what fio would report for one cell. It is deterministic,
// and it stops early with ctx's error when ctx is cancelled. The output is
// the steady state; on OSA, Burst is the regime while the write buffers
// absorb writes (see Plane for how a run moves from one to the other).
func Solve(ctx context.Context, p *testbed.Profile, in Input) (*Output, error) {
	in, err := settleReaping(ctx, p, in)
	if err != nil {
		return nil, err
	}
	if in, err = settleRandomMap(ctx, p, in); err != nil {
		return nil, err
	}
	out, _, plan, err := solveSettled(ctx, p, in, false, nil)
	if err != nil || p.Architecture != "OSA" || out.Write.IOPS == 0 {
		return out, err
	}
	burst, cells, _, err := solveSettled(ctx, p, in, true, plan)
	if err != nil {
		return nil, err
	}
	out.Burst = burst
	for _, c := range cells {
		out.BufferBytesPerSec += c.result[write].IOPS * c.cost[write].bufferBytes
	}
	return out, nil
}

// settleReaping finds how much of their time the fio threads of jobs that
// poll between spaced I/Os spin (polling.spaced): a first solve, without
// their spinning, gives each such job's I/Os in flight per thread (its
// IOPS times its latency, over its disks times numjobs), the share of its
// time a thread has one to poll for, at most all. in is returned as given
// where no job is such.
func settleReaping(ctx context.Context, p *testbed.Profile, in Input) (Input, error) {
	spaced := func(jl JobLoad) bool {
		if !hasRaw(jl.Job, "hipri") && !hasRaw(jl.Job, "sqthread_poll") {
			return false // reading the job's options on every solve for nothing
		}
		sh, err := jl.shape()
		return err == nil && sh.poll.reaper && sh.poll.spaced
	}
	return settleFromFirstSolve(ctx, p, in, spaced, func(jl *JobLoad, jo JobOutput) {
		inFlight := (jo.Read.IOPS*jo.Read.LatMeanUs + jo.Write.IOPS*jo.Write.LatMeanUs) * 1e-6
		threads := float64(len(jl.Disks) * max(jl.Job.NumJobs, 1))
		jl.reaping = math.Min(1, inFlight/threads)
	})
}

// settleFromFirstSolve solves in once and lets set settle each job pick
// says needs it from its figures, in a copy of in; in is returned as
// given, unsolved, where no job needs it.
func settleFromFirstSolve(ctx context.Context, p *testbed.Profile, in Input, pick func(JobLoad) bool, set func(*JobLoad, JobOutput)) (Input, error) {
	var picked []int
	for j, jl := range in.Jobs {
		if pick(jl) {
			picked = append(picked, j)
		}
	}
	if len(picked) == 0 {
		return in, nil
	}
	out, _, _, err := solveSettled(ctx, p, in, false, nil)
	if err != nil {
		return in, err
	}
	settled := in
	settled.Jobs = slices.Clone(in.Jobs) // the caller's input stays as given
	for _, j := range picked {
		set(&settled.Jobs[j], out.Jobs[j])
	}
	return settled, nil
}

// solveCell solves a network of one class, cell c of the input (built
// with OSA's destage deferred or not).
func solveCell(ctx context.Context, p *testbed.Profile, in Input, c *cell) (*Output, error) {
	sh, st := c.shape, c.st
	g := c.g
	var err error
	if sh.latTarget > 0 {
		if g, err = c.latencyTarget(ctx, p, in); err != nil {
			return nil, err
		}
	}
	out := &Output{Profile: p.Name, Version: Version, RDMA: c.rdma, Notes: append(c.notes, g.notes...)}
	n := g.outstanding
	sol, err := solveMVA(ctx, st, n, c.fr, c.zMix+sh.think)
	if err != nil {
		return nil, err
	}
	limit, throttled := c.rateCap()
	x := sol.X // throughput; a rate limit holds it below what the network carries
	guestWait := 0.0
	if sol.X > limit {
		if n, sol, err = rateLimited(ctx, st, n, c.fr, c.zMix+sh.think, limit); err != nil {
			return nil, err
		}
		x = math.Min(sol.X, limit)
		out.RateLimited = true
		if throttled {
			guestWait = throttleWait(g.fioOutstanding, float64(n), x)
			out.Notes = append(out.Notes, c.throttleNote())
		}
	} else if g.fioOutstanding > n {
		// I/Os beyond the virtual controllers' queues wait in the guest:
		// fio counts that wait in their latency (Little's law on fio's
		// own outstanding I/Os).
		guestWait = float64(g.fioOutstanding-n) / sol.X
	}
	dirs, err := c.directions(sol.W, seen(sol, n), float64(n), sol.X, x, guestWait)
	if err != nil {
		return nil, err
	}
	if sh.duty < 1 {
		// thinktime_iotime: stalls between stretches of I/O lower the
		// run's throughput, not its I/Os' latency.
		for dir := range dirs {
			dirs[dir].IOPS *= sh.duty
			dirs[dir].MBps *= sh.duty
		}
		out.Notes = append(out.Notes, fmt.Sprintf("thinktime_iotime: I/O %.0f %% of the time", 100*sh.duty))
	}
	out.Outstanding = g.fioOutstanding
	out.Read, out.Write = dirs[read], dirs[write]
	out.Jobs = []JobOutput{{Name: c.job.Name, Outstanding: g.fioOutstanding, Read: dirs[read], Write: dirs[write], RateLimited: out.RateLimited}}

	u := make([]float64, len(st))
	for k := range st {
		s := &st[k]
		u[k] = x * (c.fr*s.demandAt(read, sol.W[k]) + (1-c.fr)*s.demandAt(write, sol.W[k])) / s.Servers
	}
	out.addStations(st, sol.W, u)
	whole := make([]float64, len(u)) // over the run: thinktime_iotime's stalls idle the hosts
	for k := range u {
		whole[k] = u[k] * sh.duty
	}
	out.HostCPUPercent, out.hostHeld = hostPercent(c.hostCPU, st, whole), hostPercent(c.hostCPU, st, make([]float64, len(st)))
	out.Notes = append(out.Notes, rangeNotes(p, g.fioOutstanding, c.sizes)...)
	c.result = dirs
	out.Hosts = hostFigures([]*cell{c}, out.HostCPUPercent, out.hostHeld)
	return out, nil
}

// addStations records each station kind once, at its busiest copy (a
// kind's stations are next to each other), with w and u per station.
func (out *Output) addStations(st []station, w, u []float64) {
	for k := 0; k < len(st); {
		busiest := k
		for k++; k < len(st) && st[k].Name == st[busiest].Name; k++ {
			if u[k] > u[busiest] {
				busiest = k
			}
		}
		out.addStation(&st[busiest], w[busiest], u[busiest])
	}
}

// hostPercent is each host's utilisation in percent, from the station its
// copy became (at, see cell.hostCPU) and the stations' utilisations u,
// what spinning threads hold (station.Held) included: 0 for a host whose
// copy is idle.
func hostPercent(at []int, st []station, u []float64) []float64 {
	pct := make([]float64, len(at))
	for h, k := range at {
		if k >= 0 {
			pct[h] = 100 * st[k].busyShare(u[k])
		}
	}
	return pct
}

// hostFigures is what each host does for the solved cells (each with its
// result): the cells' I/Os per second in each direction times what one
// I/O costs the host (cell.perHost) and each of its capacity devices. cpu
// is each host's CPU (hostPercent), held what spinning vCPUs hold of it,
// and vSAN's share is its cycles' share of the rest: the DOM's, the LSOM's and the
// network's, not the guest's. The
// thread hand-offs' cycles (a load-dependent station's extra) are split
// in the same proportion (an assumption: they fall on both).
func hostFigures(cells []*cell, cpu, held []float64) []HostFigures {
	h := len(cpu)
	out := make([]HostFigures, h)
	vsan, all := make([]float64, h), make([]float64, h)
	devices := len(cells[0].perDevice[read]) / h
	busy := make([]float64, h*devices) // each capacity device's utilisation
	groups := len(cells[0].perCache[read]) / h
	busyCache := make([]float64, h*groups) // each OSA cache device's
	stores := len(cells[0].perStore[read]) / h
	busyStore := make([]float64, h*stores) // each LSOM station's worlds'
	for _, c := range cells {
		for dir := range c.perHost {
			x := c.result[dir].IOPS
			if x == 0 {
				continue
			}
			for i := range out {
				o, f := &c.perHost[dir][i], &out[i]
				f.CompReadIOPS += x * o.compOps[read]
				f.CompWriteIOPS += x * o.compOps[write]
				f.CompReadBytesPerSec += x * o.compBytes[read]
				f.CompWriteBytesPerSec += x * o.compBytes[write]
				f.NICTxBytesPerSec += x * o.txBytes
				f.NICRxBytesPerSec += x * o.rxBytes
				f.DOMUtil += x * o.domCycles * c.domBusy
				all[i] += x * (o.cpuCycles() - c.g.reaping*o.guestCycles) // fio's work on spinning vCPUs is in what they hold
				vsan[i] += x * (o.cpuCycles() - o.guestCycles)
			}
			for d, t := range c.perDevice[dir] {
				busy[d] += x * t
			}
			for g, t := range c.perCache[dir] {
				busyCache[g] += x * t
			}
			for st, t := range c.perStore[dir] {
				busyStore[st] += x * t
			}
		}
	}
	bps := cells[0].link.bps
	for i := range out {
		f := &out[i]
		f.NICPercent = 100 * math.Max(f.NICTxBytesPerSec, f.NICRxBytesPerSec) / bps
		if all[i] > 0 {
			f.VSANCPUPercent = (cpu[i] - held[i]) * vsan[i] / all[i]
		}
		f.DeviceUtil = slices.Max(busy[i*devices : (i+1)*devices])
		if groups > 0 {
			f.CacheUtil = slices.Max(busyCache[i*groups : (i+1)*groups])
		}
		if stores > 0 {
			own := busyStore[i*stores : (i+1)*stores]
			f.LSOMBusiest = slices.Max(own)
			for _, u := range own {
				f.LSOMUtil += u / float64(stores)
			}
		}
	}
	return out
}

// addStation records a station's utilisation u (and w, the share of its
// hand-offs that wait) in the output: the bottleneck, host CPU, the
// guest's vCPUs, the busiest NIC, and a note when the CPU is overcommitted.
func (out *Output) addStation(s *station, w, u float64) {
	out.Stations = append(out.Stations, StationUse{s.Name, u})
	if u > out.BottleneckUtil {
		out.Bottleneck, out.BottleneckUtil = s.Name, u
	}
	switch s.Name {
	case "cpu":
		out.CPUPercent, out.cpuHeld = 100*s.busyShare(u), 100*s.busyShare(0)
	case "guest":
		out.GuestCPUPercent = 100 * u
	case "nic-tx", "nic-rx":
		out.NICPercent = math.Max(out.NICPercent, 100*u)
	}
	if s.loadDependent() && w > 0.01 {
		out.Notes = append(out.Notes, fmt.Sprintf("%s overcommitted: %.0f %% of thread hand-offs wait for a core (ready time); throughput falls as outstanding I/O grows", s.Name, 100*w))
	}
}

// rateCap is the most I/Os a second the cell's disks may do together while
// they do I/O: each disk's fio jobs (clones) under fio's rate limits, and
// each disk under its policy's IOPS limit (the job's share of it,
// DiskLoad.LimitShare, where other jobs use the disk at the same time);
// throttled says an IOPS limit holds some disk below fio's rate. +Inf
// without limits. fio holds its rates on average over the run, and after
// thinktime_iotime's stalls it catches up (fio 3.33: rate_iops=200 with
// thinktime=1s and thinktime_iotime=1s does 1,200 I/Os in 6 s), so while
// the job does I/O its rate is the average's over the duty cycle; vSAN's
// IOPS limit holds at every moment.
func (c *cell) rateCap() (limit float64, throttled bool) {
	perDisk := float64(max(c.job.Job.NumJobs, 1)) * c.shape.rateLimit() / c.shape.duty
	units := normalizedIOs(c.sizes, c.fr)
	for _, d := range c.job.Disks {
		x := perDisk
		if d.Policy.IOPSLimit > 0 {
			limit := float64(d.Policy.IOPSLimit)
			if d.LimitShare > 0 { // other jobs on the disk take the rest
				limit *= d.LimitShare
			}
			if object := limit / units; object < x {
				x, throttled = object, true
			}
		}
		limit += x
	}
	return limit, throttled
}

// iopsLimitUnit is the I/O size vSAN's IOPS limit counts in: an I/O of up
// to 32 KiB is one, of 64 KiB two (Cormac Hogan, "VSAN 6.2 Part 4 - IOPS
// limit for object", 2016: "The IO size for IOPS Limit is normalized to
// 32KB"; larger sizes taken as rounded up to whole units, an assumption).
const iopsLimitUnit = 32 << 10

// normalizedIOs is the IOPS limit's count of one of the job's I/Os, on
// average over its directions and block sizes.
func normalizedIOs(sizes [2][]sizeShare, fr float64) float64 {
	share := [2]float64{fr, 1 - fr}
	units := 0.0
	for dir := range sizes {
		for _, s := range sizes[dir] {
			units += share[dir] * s.share * math.Ceil(float64(s.size)/iopsLimitUnit)
		}
	}
	return units
}

// throttleWait is how long fio's I/Os wait, on average, where a policy's
// IOPS limit holds them back: vSAN delays the I/Os above the limit, so fio
// keeps all its I/Os outstanding and those beyond the n the limited rate
// needs wait their turn (Little's law at throughput x).
func throttleWait(fioOutstanding int, n, x float64) float64 {
	return max(float64(fioOutstanding)-n, 0) / x
}

// throttleNote says which IOPS limit held the cell's disks back.
func (c *cell) throttleNote() string {
	limits := map[int]bool{}
	for _, d := range c.job.Disks {
		if d.Policy.IOPSLimit > 0 {
			limits[d.Policy.IOPSLimit] = true
		}
	}
	var names []string
	for l := range limits {
		names = append(names, strconv.Itoa(l))
	}
	slices.Sort(names)
	return fmt.Sprintf("the storage policy's IOPS limit (%s, counted in %d KiB units: %.3g a mean I/O) holds the disks back: vSAN delays the I/Os above it, and fio's latency includes the wait", strings.Join(names, ", "), iopsLimitUnit>>10, normalizedIOs(c.sizes, c.fr))
}

// rateLimit is the most I/Os per second one job (clone) may do under fio's
// per-direction rate_iops and rate, at its read share; +Inf without them.
func (sh *jobShape) rateLimit() float64 {
	limit := math.Inf(1)
	caps := sh.directionCaps()
	share := [2]float64{sh.fr, 1 - sh.fr}
	for dir := range share {
		if share[dir] > 0 {
			limit = math.Min(limit, caps[dir]/share[dir])
		}
	}
	return limit
}

// heldRate is the most I/Os a second one job (clone) does under fio's
// rates, whatever mix they settle on, and the read share it does them at:
// a mixed job with a rate on both directions ends with both at their rates
// (fio hands a direction ahead of its rate to the other, see
// solveSettled), one with a free direction has no bound (+Inf, at
// rwmixread's share), and a one-direction job is held at its rate.
func (sh *jobShape) heldRate() (rate, readShare float64) {
	if sh.fr <= 0 || sh.fr >= 1 {
		return sh.rateLimit(), sh.fr
	}
	caps := sh.directionCaps()
	total := caps[read] + caps[write]
	if math.IsInf(total, 1) {
		return total, sh.fr
	}
	return total, caps[read] / total
}

// directionCaps is the most I/Os per second one job (clone) may do in each
// direction under fio's rate_iops and rate; +Inf where neither is given.
func (sh *jobShape) directionCaps() [2]float64 {
	caps := [2]float64{math.Inf(1), math.Inf(1)}
	for dir := range caps {
		if r := sh.rate[dir]; r > 0 {
			caps[dir] = r
		}
		if r := sh.rateB[dir]; r > 0 {
			caps[dir] = math.Min(caps[dir], r/meanSize(sh.sizes[dir]))
		}
	}
	return caps
}

// directions is fio's summary per direction at population n and
// throughput x: latency by the arrival theorem, scaled so the mix obeys
// Little's law (think time is not latency), plus what I/Os waited in the
// guest.
func (c *cell) directions(w, seenQ []float64, n, netX, x, guestWait float64) ([2]Direction, error) {
	var dirs [2]Direction
	var resp [2]float64
	fr := c.fr
	for dir := range dirs {
		resp[dir] = c.z[dir] + sum(residence(c.st, w, seenQ, dir))
	}
	littleR := n/netX - c.shape.think
	scale := littleR / (fr*resp[read] + (1-fr)*resp[write])
	share := [2]float64{fr, 1 - fr}
	for dir := range dirs {
		if share[dir] == 0 {
			continue
		}
		d := &dirs[dir]
		d.IOPS = x * share[dir]
		d.MBps = d.IOPS * meanSize(c.sizes[dir]) / 1e6
		d.LatMeanUs = (resp[dir]*scale + guestWait) * 1e6
		q, err := latencyQuantile(c.st, w, seenQ, dir, c.z[dir]+guestWait/scale, scale)
		if err != nil {
			return dirs, err
		}
		d.P50Us, d.P95Us, d.P99Us, d.P999Us = q(0.50)*1e6, q(0.95)*1e6, q(0.99)*1e6, q(0.999)*1e6
	}
	return dirs, nil
}

// latencyTarget follows fio's latency_target: the highest queue depth per
// job at which latency_percentile of the I/Os finish within the target.
func (c *cell) latencyTarget(ctx context.Context, p *testbed.Profile, in Input) (guestLoad, error) {
	sh := c.shape
	meets := func(depth int) (guestLoad, bool, error) {
		g := guestLayout(p, in.VMs, c.job, depth, &sh)
		sol, err := solveMVA(ctx, c.st, g.outstanding, c.fr, c.zMix+sh.think)
		if err != nil {
			return g, false, err
		}
		dirs, err := c.directions(sol.W, seen(sol, g.outstanding), float64(g.outstanding), sol.X, sol.X, 0)
		if err != nil {
			return g, false, err
		}
		for dir, d := range dirs {
			if d.IOPS == 0 {
				continue
			}
			q, err := latencyQuantile(c.st, sol.W, seen(sol, g.outstanding), dir, c.z[dir], 1)
			if err != nil {
				return g, false, err
			}
			scale := d.LatMeanUs / 1e6 / (c.z[dir] + sum(residence(c.st, sol.W, seen(sol, g.outstanding), dir)))
			if q(math.Min(sh.latPct/100, 0.9999))*scale > sh.latTarget {
				return g, false, nil
			}
		}
		return g, true, nil
	}
	lo, hi := 1, sh.depth
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if _, ok, err := meets(mid); err != nil {
			return guestLoad{}, err
		} else if ok {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	g, ok, err := meets(lo)
	if err != nil {
		return g, err
	}
	verdict := "meets it"
	if !ok {
		verdict = "misses it even at depth 1"
	}
	c.notes = append(c.notes, fmt.Sprintf("latency_target %.0f us at p%g: fio settles at iodepth %d of %d, which %s", sh.latTarget*1e6, sh.latPct, lo, sh.depth, verdict))
	return g, nil
}

// cell is one cell's closed network and what it was built from.
type cell struct {
	job   JobLoad
	shape jobShape
	fr    float64 // read share
	sizes [2][]sizeShare
	rdma  bool // RDMA in effect
	// cipher: data-in-transit encryption on (every byte between hosts
	// encrypted and decrypted).
	cipher bool
	// restCipher: data-at-rest encryption on.
	restCipher bool
	link       vsanLink
	pl         platform
	g          guestLoad
	cost       [2]opCost // per I/O, by direction
	// copies are the stations' copies one by one (per kind), before
	// finishCells groups the identical ones into st.
	copies [][]station
	st     []station
	// hostCPU is, for each host, the index in st of the station its CPU
	// copy is part of; -1 where the copy is idle and left out (see
	// groupCopies). The same for every cell of a network.
	hostCPU []int
	// perHost is, per direction, what one I/O of the cell costs each host
	// (placedLoad's spread of it), perDevice each capacity device's time,
	// perCache each OSA disk group's cache device's (none on ESA) and
	// perStore each LSOM station's worlds': the per-host figures of the
	// output (hostFigures).
	perHost   [2][]opCost
	perDevice [2][]float64
	perCache  [2][]float64
	perStore  [2][]float64
	// domBusy turns a host's DOM cycles per I/O (perHost) into its DOM
	// worlds' busy time per I/O, per world (mixed_contention included).
	domBusy float64
	// contention is the factor mixed_contention puts on the cell's DOM
	// work: from its own read share (domContention), or beside other jobs
	// from the mix on its disks' objects (contendOnObjects), whose read
	// share objectsMix is.
	contention, objectsMix float64
	z                      [2]float64 // fixed delay per direction, seconds
	zMix                   float64
	notes                  []string
	// What the cell was placed from, kept to split it into classes (see
	// classes.go): the VMs, the job's disks as placed objects, each disk's
	// kind and the kinds' costs per I/O. index is the job's in the input.
	vms     []VM
	objects []object
	kindOf  []int
	costs   [][2]ioCost
	index   int
	disks   []int // a class's disks, indices into the job's; nil for the whole job
	// result is what the cell's class did, once solved.
	result [2]Direction
}

// buildCell turns an input of one job into its network as one class: the
// per-I/O costs of each named path on the platform, where they land, the
// stations and the fixed delays. It is the network Solve builds where the
// layout is even; on an uneven one Solve splits the job into classes
// (buildNetwork).
func buildCell(p *testbed.Profile, in Input, deferDestage bool) (*cell, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	if len(in.Jobs) > 1 {
		return nil, fmt.Errorf("%d concurrent jobs: the model solves one job at a time", len(in.Jobs))
	}
	objects, err := placeInput(p, in)
	if err != nil {
		return nil, err
	}
	c, err := newCell(p, in, 0, objects[0], deferDestage)
	if err != nil {
		return nil, err
	}
	if err := finishCells(p, in.Degradation, []*cell{c}); err != nil {
		return nil, err
	}
	return c, nil
}

// placeInput places the objects of every job of the input together, so
// jobs beside each other use different components.
func placeInput(p *testbed.Profile, in Input) ([][]object, error) {
	hostOf, err := vmHosts(p, in.VMs)
	if err != nil {
		return nil, err
	}
	return placeObjects(p, in.Jobs, hostOf)
}

// newCell builds job j of the input, its disks placed as objects, up to
// its stations' copies, one by one (c.copies); finishCells groups them
// into the network.
func newCell(p *testbed.Profile, in Input, j int, objects []object, deferDestage bool) (*cell, error) {
	c := &cell{job: in.Jobs[j], index: j}
	var err error
	if c.shape, err = c.job.shape(); err != nil {
		return nil, err
	}
	for _, d := range c.job.Disks {
		vm := VM{}
		if d.VM < len(in.VMs) {
			vm = in.VMs[d.VM]
		}
		if err := checkCPUs(c.shape.cpus, vmCPUs(p, vm), c.shape.cpusGiven); err != nil {
			return nil, err
		}
		if err := checkClock(c.shape.clock, vmCPUs(p, vm)); err != nil {
			return nil, err
		}
		if err := c.shape.extent.check(diskBytes(p, d), c.job.Job.NumJobs, c.shape.randomShare > 0, c.job.Job); err != nil {
			return nil, err
		}
		if err := c.shape.skew.fits(c.shape.extent.region(diskBytes(p, d), 0)); err != nil {
			return nil, err
		}
	}
	switch {
	case len(c.job.Disks) == 0 || !c.shape.mapTrims(c.job.Job):
	case c.job.mapSlice[1] > 0:
		c.shape.sliceSizes(c.job.mapSlice)
	default:
		passes := c.job.mapPasses
		if passes == 0 {
			passes = c.shape.randomPasses(diskBytes(p, c.job.Disks[0]), c.job.Job.NumJobs)
		}
		c.shape.mapSizes(passes)
	}
	c.fr, c.sizes, c.notes = c.shape.fr, c.shape.sizes, c.shape.notes
	c.rdma = in.State.RDMA && p.RDMACapable
	c.cipher, c.restCipher = in.State.TransitEncryption, in.State.RestEncryption
	if in.State.RDMA && !p.RDMACapable {
		c.notes = append(c.notes, "RDMA requested but not every host is RDMA capable: vSAN falls back to TCP")
	}
	if in.State.Dedup && p.Architecture == "ESA" {
		c.notes = append(c.notes, "deduplication is not an ESA data service in this model: ignored")
	}
	if c.link, err = resolveLink(p, in.State, c.rdma); err != nil {
		return nil, err
	}
	c.notes = append(c.notes, c.link.notes...)
	c.notes = append(c.notes, stripeNotes(p, c.job.Disks, c.sizes)...)
	if unwritten := unwrittenShare(c.job.Disks) * (1 - c.shape.readBack); unwritten >= 0.005 && c.fr > 0 && !c.job.inPart { // said when it rounds to 1 % or more
		c.notes = append(c.notes, fmt.Sprintf("%.0f %% of the blocks %s were never written: their reads cost a metadata lookup and the guest's copy, no device (prepare the disks to measure them)", 100*unwritten, c.job.readBy()))
	}
	c.pl = newPlatform(p)
	c.g = guestLayout(p, in.VMs, c.job, c.shape.depth, &c.shape)
	coverage, err := bufferCoverage(p, c.pl, in)
	if err != nil {
		return nil, err
	}
	switch held, destaged := writeBufferState(coverage, c.shape, c.firstDisk(p), c.job.Job.NumJobs); {
	case held >= 0.005:
		c.notes = append(c.notes, fmt.Sprintf("the write buffers hold %.0f %% of the blocks this job writes: reads of them come from the cache devices, and %.0f %% of its writes are overwritten there before the elevator destages them", 100*held, 100*(1-destaged)))
	case 1-destaged >= 0.005: // its reads find none of its writes there (or it does not read)
		c.notes = append(c.notes, fmt.Sprintf("%.0f %% of this job's writes are overwritten in the write buffers before the elevator destages them", 100*(1-destaged)))
	}
	c.notes = append(c.notes, stridedNote(p, in.VMs, c.job.Disks, c.shape, c.job.Job.NumJobs)...)
	kindOf, costs, err := accountCosts(p, c.pl, c.link, in.State, in.VMs, c.job, c.shape, deferDestage, coverage)
	if err != nil {
		return nil, err
	}
	for k := range costs { // thinktime_spin busies the guest's vCPU
		for dir := range costs[k] {
			costs[k][dir].owner.guestCycles += c.shape.spin * c.pl.hz
		}
	}
	c.vms, c.objects, c.kindOf, c.costs = in.VMs, objects, kindOf, costs
	c.place(p, objects, kindOf)
	return c, nil
}

// place lays the cell's disks (placed as objs, of kinds kindOf) onto the
// stations' copies and works out the fixed delays.
func (c *cell) place(p *testbed.Profile, objs []object, kindOf []int) {
	var sp [2]spread
	sp, c.cost = placedLoad(p, objs, kindOf, c.costs)
	c.perHost = [2][]opCost{sp[read].host, sp[write].host}
	c.perDevice = [2][]float64{sp[read].capacity, sp[write].capacity}
	c.perCache = [2][]float64{sp[read].cache, sp[write].cache}
	c.contention = domContention(&p.Model, c.fr)
	c.copies = stationCopies(p, c.pl, c.link, c.g, sp, c.contention)
	c.domBusy = c.contention / c.pl.hz / c.pl.domWorlds
	for dir := range c.perStore {
		c.perStore[dir] = make([]float64, len(sp[dir].store))
		for i, cycles := range sp[dir].store {
			c.perStore[dir][i] = cycles / c.pl.hz / c.pl.storeWorlds
		}
	}
	hop := p.Model.HopLatencyTCPUs.Value
	if c.rdma {
		hop = p.Model.HopLatencyRDMAUs.Value
	}
	for dir := range c.z {
		c.z[dir] = (p.Model.SoftwareLatencyUs.Value+c.cost[dir].roundTrips*hop)*1e-6 + c.cost[dir].deviceLatency
	}
	c.zMix = c.fr*c.z[read] + (1-c.fr)*c.z[write]
}

// finishCells groups the cells' station copies into their networks (the
// same stations for every cell: jobs beside each other share them) and
// applies what events left of the cluster.
func finishCells(p *testbed.Profile, d *Degradation, cells []*cell) error {
	groupCopies(cells)
	if d == nil {
		return nil
	}
	for _, c := range cells {
		if err := d.apply(p, c); err != nil {
			return err
		}
	}
	return nil
}

// guestLoad is the guest side of a job: the worker VMs' vCPUs and virtual
// controllers, and the outstanding I/O the controllers let through.
type guestLoad struct {
	vcpusPerHost   float64            // worker vCPUs per host, on average
	threadsPerHost float64            // guest threads that can run at once (vCPUs busy with fio), on average, at least 1
	hostVCPUs      []float64          // worker vCPUs on each host (see vmHosts; VMs on unknown hosts spread evenly)
	hostThreads    []float64          // guest threads that can run at once on each host, at least 1
	hostSpinning   []float64          // worker vCPUs on each host kept spinning by polled I/O (jobShape.poll)
	hostClocks     []float64          // worker vCPUs on each host spinning fio's clock thread (jobShape.clock)
	clockVMs       []int              // the VMs running that thread for this job
	vmHost         []int              // each VM's host, -1 or nil where not known (vmHosts)
	reaping        float64            // the share of their time fio's threads spin: so much of their work is on vCPUs already busy
	controllers    map[string]float64 // share of the job's disks on each controller
	fioOutstanding int                // I/Os fio keeps outstanding
	outstanding    int                // of those, the ones the controllers admit
	vmOutstanding  [][2]int           // per VM: admitted and fio's outstanding I/Os
	notes          []string
}

// guestLayout works out the guest side of a job of shape sh on its VMs
// (the profile's worker layout when the input names none), its threads on
// the vCPUs of sh.cpus (cpus_allowed; checked by newCell) or on any, at
// depth I/Os per job.
func guestLayout(p *testbed.Profile, vms []VM, jl JobLoad, depth int, sh *jobShape) guestLoad {
	poll, set := sh.poll, sh.cpus
	m := &p.Model
	perDisk := max(jl.Job.NumJobs, 1) * depth
	disksOf := map[int]int{}
	for i, d := range jl.Disks {
		v := d.VM
		if len(vms) == 0 { // the profile's layout: data_disks per VM
			v = i / max(p.Workers.DataDisks, 1)
		}
		disksOf[v]++
	}
	hostOf, err := vmHosts(p, vms)
	if err != nil { // buildCell refuses such an input; here the VMs count as spread
		hostOf = nil
	}
	h := float64(p.Hosts)
	g := guestLoad{controllers: map[string]float64{}, hostVCPUs: make([]float64, p.Hosts), hostThreads: make([]float64, p.Hosts), hostSpinning: make([]float64, p.Hosts),
		hostClocks: make([]float64, p.Hosts), vmHost: hostOf, reaping: poll.reapShare(jl)}
	on := func(per []float64, v int, x float64) { onHost(per, hostOf, v, x) }
	vcpus, threads := 0.0, 0.0
	capped := false
	hosts := map[string]int{}
	nVM := len(vms)
	if nVM == 0 {
		nVM = len(disksOf)
	}
	g.vmOutstanding = make([][2]int, nVM)
	for v := range nVM {
		disks := disksOf[v]
		vm := VM{}
		if v < len(vms) {
			vm = vms[v]
		}
		cpus := vmCPUs(p, vm)
		ctrl := vm.Controller
		if ctrl == "" {
			ctrl = p.Workers.Controller
		}
		vcpus += float64(cpus)
		on(g.hostVCPUs, v, float64(cpus))
		if vm.Host != "" {
			hosts[vm.Host]++
		}
		if disks == 0 {
			continue
		}
		jobs := float64(disks * max(jl.Job.NumJobs, 1))
		usable := float64(cpus)
		if len(set) > 0 {
			usable = float64(len(set))
		}
		t := math.Min(usable, jobs)
		spinning, beside := pollingVCPUs(poll, g.reaping, usable, jobs)
		clock := 0.0
		if sh.clock.given {
			clock = 1
			g.clockVMs = append(g.clockVMs, v)
			on(g.hostClocks, v, clock)
			if sh.sharesClock() {
				beside++
			}
		}
		if beside > 0 && jobs+beside > usable {
			// Spinning submission or clock threads beside fio's: the
			// guest's scheduler shares the vCPUs among them alike.
			t = math.Min(t, usable*jobs/(jobs+beside))
		}
		threads += t
		on(g.hostThreads, v, t)
		on(g.hostSpinning, v, math.Min(spinning, float64(cpus)-clock))
		g.controllers[ctrl] += float64(disks) / float64(len(jl.Disks))
		lun, adapter := controllerQueues(m, ctrl)
		adapters := (disks + maxDisksPerController - 1) / maxDisksPerController
		admitted := min(disks*min(perDisk, lun), adapter*adapters)
		capped = capped || admitted < disks*perDisk
		g.fioOutstanding += disks * perDisk
		g.outstanding += admitted
		g.vmOutstanding[v] = [2]int{admitted, disks * perDisk}
	}
	g.vcpusPerHost, g.threadsPerHost = vcpus/h, math.Max(threads/h, 1)
	for i := range g.hostThreads {
		g.hostThreads[i] = math.Max(g.hostThreads[i], 1)
	}
	if capped {
		g.notes = append(g.notes, fmt.Sprintf("the virtual controllers' queues admit %d of fio's %d outstanding I/Os; the rest wait in the guest", g.outstanding, g.fioOutstanding))
	}
	if len(hosts) > 0 {
		lo, hi := math.MaxInt, 0
		if len(hosts) < p.Hosts {
			lo = 0 // hosts without a worker
		}
		for _, n := range hosts {
			lo, hi = min(lo, n), max(hi, n)
		}
		if hi > lo+1 {
			g.notes = append(g.notes, fmt.Sprintf("worker VMs are spread unevenly (%d to %d per host)", lo, hi))
		}
	}
	return g
}

// onHost adds VM v's share x to its host's in per (hostOf: vmHosts), or
// evenly to every host where its host is not known.
func onHost(per []float64, hostOf []int, v int, x float64) {
	if v < len(hostOf) && hostOf[v] >= 0 {
		per[hostOf[v]] += x
		return
	}
	for i := range per {
		per[i] += x / float64(len(per))
	}
}

// vmCPUs is a worker VM's vCPUs (the profile's workers' when the input
// gives none).
func vmCPUs(p *testbed.Profile, vm VM) int {
	if vm.CPUs == 0 {
		return p.Workers.CPUs
	}
	return vm.CPUs
}

// pollingVCPUs is how many of a VM's cpus vCPUs its jobs' polled I/O keeps
// spinning (all of them at most), fio's threads each the reap share of its
// time, and how many vCPUs' worth of those are submission threads
// (sqthread_poll) rather than fio's own.
func pollingVCPUs(poll polling, reap, cpus, jobs float64) (spinning, submitters float64) {
	if poll.submitter {
		submitters = jobs
		if poll.pinned {
			submitters = 1 // every job's on the one vCPU sqthread_poll_cpu names
		}
	}
	return math.Min(cpus, submitters+reap*jobs), math.Min(cpus, submitters)
}

// maxDisksPerController is how many data disks a worker puts on one
// virtual controller (vsphere.deploy_workers: 14 beside the OS disk).
const maxDisksPerController = 14

// controllerQueues are a virtual controller's queue depths per disk and
// per adapter.
func controllerQueues(m *testbed.ModelParams, controller string) (lun, adapter int) {
	switch controller {
	case testbed.LSILogic:
		return int(m.ControllerQueueLUNLSILogic.Value), int(m.ControllerQueueAdapterLSILogic.Value)
	case testbed.VNVMe:
		return int(m.ControllerQueueLUNNVMe.Value), int(m.ControllerQueueAdapterNVMe.Value)
	}
	return int(m.ControllerQueueLUNPVSCSI.Value), int(m.ControllerQueueAdapterPVSCSI.Value)
}

// diskKind is what decides a disk's cost per I/O: its policy, data and
// virtual controller.
type diskKind struct {
	disk       DiskLoad // with VM 0: the VM matters through its controller and host
	controller string
}

// stridedNote says how OSA writes a job's sequential writes to RAID-5/6
// disks (the first such disk's, on its VM's controller): from vSAN 7.0 U3
// gathered into full stripes (no read-modify-write) where the job keeps a
// stripe's data in flight (fillsStripes), else read-modify-written as its
// random writes are.
func stridedNote(p *testbed.Profile, vms []VM, disks []DiskLoad, sh jobShape, numJobs int) []string {
	i := slices.IndexFunc(disks, func(d DiskLoad) bool { return d.Policy.RAID == "raid5" || d.Policy.RAID == "raid6" })
	if p.Architecture != "OSA" || sh.fr == 1 || sh.randomShare == 1 || i < 0 {
		return nil
	}
	controller := p.Workers.Controller
	if d := disks[i]; d.VM < len(vms) && vms[d.VM].Controller != "" {
		controller = vms[d.VM].Controller
	}
	lun, _ := controllerQueues(&p.Model, controller)
	seq := fmt.Sprintf("%.0f %% of its writes", 100*(1-sh.randomShare))
	if sh.randomShare == 0 {
		seq = "its writes"
	}
	lay, err := policyLayout(p, disks[i].Policy)
	switch {
	case err != nil:
		return nil // solving the cell says what is wrong
	case !releaseAtLeast(p.VSANRelease, 7, 3):
		return []string{fmt.Sprintf("RAID-5/6 on OSA: %s are sequential, but vSAN %s read-modify-writes them as random writes (full-stripe writes of a sequential stream came with 7.0 U3)", seq, p.VSANRelease)}
	case !sh.fillsStripes(lay.dataStripes, numJobs, lun):
		return []string{fmt.Sprintf("RAID-5/6 on OSA: %s are sequential, but a disk's %.0f KiB in flight fill no stripe (%d MiB of data): read-modify-written as random writes", seq, sh.inFlight(numJobs, lun)/1024, lay.dataStripes*stripeUnit>>20)}
	}
	return []string{fmt.Sprintf("RAID-5/6 on OSA: %s are sequential, which vSAN %s gathers into full-stripe writes with their parity, nothing read first (7.0 U3's strided writes)", seq, p.VSANRelease)}
}

// inFlight is the bytes of writes a job keeps outstanding at vSAN on each
// of its disks: its numJobs clones' queue depth, at most the virtual
// controller's queue per disk (lun), at its writes' mean size.
func (sh jobShape) inFlight(numJobs, lun int) float64 {
	return float64(min(sh.depth*max(numJobs, 1), lun)) * meanSize(sh.sizes[write])
}

// fillsStripes says a job keeps at least a full stripe of data in flight
// on each disk (k stripe units, taken as 1 MiB each): what vSAN 7.0 U3
// waits for to write a sequential stream's stripes whole (VMware:
// workloads with sustained high outstanding I/O).
func (sh jobShape) fillsStripes(k, numJobs, lun int) bool {
	return sh.inFlight(numJobs, lun) >= float64(k*stripeUnit)
}

// firstDisk is the size of the cell's job's first disk (0 for none).
func (c *cell) firstDisk(p *testbed.Profile) float64 {
	if len(c.job.Disks) == 0 {
		return 0
	}
	return diskBytes(p, c.job.Disks[0])
}

// accountCosts works out the per-I/O cost of each direction, by where it
// lands, for each kind of disk among the job's (averaged over its block
// sizes): kindOf[i] is disk i's kind. Disks in the same state cost the
// same: each kind is accounted once, in first-seen order so sums are
// deterministic.
func accountCosts(p *testbed.Profile, pl platform, link vsanLink, state ClusterState, vms []VM, jl JobLoad, sh jobShape, deferDestage bool, coverage float64) (kindOf []int, costs [][2]ioCost, err error) {
	disks := jl.Disks
	var kinds []diskKind
	kindOf = make([]int, len(disks))
	state.RDMA = state.RDMA && p.RDMACapable
	for i, d := range disks {
		k := diskKind{disk: d, controller: p.Workers.Controller}
		if len(vms) > 0 && vms[d.VM].Controller != "" {
			k.controller = vms[d.VM].Controller
		}
		k.disk.VM = 0
		kindOf[i] = slices.Index(kinds, k)
		if kindOf[i] >= 0 {
			continue
		}
		kindOf[i] = len(kinds)
		kinds = append(kinds, k)
		lay, err := policyLayout(p, d.Policy)
		if err != nil {
			return nil, nil, err
		}
		compress := state.Compression // a policy's compression rule overrides the cluster's
		switch d.Policy.Compression {
		case On:
			compress = true
		case Off:
			compress = false
		}
		cm := newCostModel(p, pl, link, state, compress, k.controller)
		cm.deferDestage = deferDestage
		cm.chunk = sh.compressChunk
		cm.checksum = !d.Policy.ChecksumDisabled
		cm.fromBuffer, cm.destaged = writeBufferState(coverage, sh, diskBytes(p, d), jl.Job.NumJobs)
		var cost [2]ioCost
		own := sh.sizes[read]
		if sh.readBack > 0 {
			own = sh.ownReads
		}
		for _, s := range own {
			cost[read].add(cm.readIO(float64(s.size), d.Written, d.CompressPercentage), s.share*(1-sh.readBack))
		}
		if sh.readBack > 0 { // blocks just written: data, on OSA still in the write buffers
			if pl.groups > 0 {
				cm.fromBuffer = 1
			}
			for _, s := range sh.sizes[write] {
				cost[read].add(cm.readIO(float64(s.size), 1, sh.compressPct), s.share*sh.readBack)
			}
		}
		strided := 0.0 // the share of the writes OSA gathers into full stripes
		if lun, _ := controllerQueues(&p.Model, k.controller); cm.stridedOK && lay.dataStripes > 0 && sh.fillsStripes(lay.dataStripes, jl.Job.NumJobs, lun) {
			strided = 1 - sh.randomShare
		}
		for _, s := range sh.sizes[write] {
			for _, b := range sh.blockMix(float64(s.size), float64(sh.compressPct)) {
				pct, w := int(math.Round(b.pct)), s.share*b.share
				if strided > 0 {
					cm.fullStripes = true
					cost[write].add(cm.writeIO(float64(s.size), lay, pct, sh.dedupePct), w*strided)
					cm.fullStripes = false
				}
				if strided < 1 {
					cost[write].add(cm.writeIO(float64(s.size), lay, pct, sh.dedupePct), w*(1-strided))
				}
			}
		}
		cost[write].owner.guestCycles += sh.syncs * cm.flushCycles(sh.syncCommands)
		costs = append(costs, cost)
	}
	return kindOf, costs, nil
}

// stationCopies builds every copy of each station kind from where the
// job's I/Os land: per host the CPU (every cycle, load-dependent), the
// guest's vCPUs, vSAN's DOM worlds, the NICs and memory; vSAN's LSOM
// worlds per device (ESA) or disk group (OSA); the devices.
func stationCopies(p *testbed.Profile, pl platform, link vsanLink, g guestLoad, sp [2]spread, contention float64) [][]station {
	m := &p.Model
	per := func(f func(s *spread) float64) [2]float64 {
		return [2]float64{f(&sp[read]), f(&sp[write])}
	}
	kind := func(n int, f func(i int) station) []station {
		out := make([]station, n)
		for i := range out {
			out[i] = f(i)
			out[i].Copies = 1
		}
		return out
	}
	h := p.Hosts
	host := func(i int, f func(c *opCost) float64) [2]float64 {
		return per(func(s *spread) float64 { return f(&s.host[i]) })
	}
	// The threads' cycles are CPU time too: the CPU station saturates on
	// all cycles but adds as latency only those no thread station holds.
	kinds := [][]station{
		kind(h, func(i int) station {
			other := host(i, func(c *opCost) float64 { return c.otherCycles / pl.hz })
			worlds := pl.domWorlds + pl.storeWorldsPerHost() + float64(len(link.nics))
			cpu := station{Name: "cpu", Servers: pl.effCPU, Busy: &other,
				D: host(i, func(c *opCost) float64 {
					return (c.cpuCycles() - g.reaping*c.guestCycles) / pl.hz // fio's work on a spinning vCPU is held already
				}),
				Extra:   host(i, func(c *opCost) float64 { return c.dispatches * m.ContextSwitchCycles.Value / pl.hz }),
				Threads: g.hostThreads[i] + worlds, HWThreads: pl.hwThr}
			cpu.hold(g.hostSpinning[i]+g.hostClocks[i], worlds, pl.effCPU)
			return cpu
		}),
		kind(h, func(i int) station {
			return station{Name: "guest", Servers: g.hostThreads[i], PerJob: true, D: host(i, func(c *opCost) float64 { return c.guestCycles / pl.hz })}
		}),
		kind(h, func(i int) station {
			return station{Name: "vsan-dom", Servers: pl.domWorlds, D: host(i, func(c *opCost) float64 { return contention * c.domCycles / pl.hz })}
		}),
		kind(len(sp[read].store), func(i int) station {
			return station{Name: pl.storeName, Servers: pl.storeWorlds, D: per(func(s *spread) float64 { return s.store[i] / pl.hz })}
		}),
		kind(len(sp[read].capacity), func(i int) station {
			return station{Name: "ssd-capacity", Servers: 1, D: per(func(s *spread) float64 { return s.capacity[i] })}
		}),
		kind(h, func(i int) station {
			return station{Name: "nic-tx", Servers: 1, D: host(i, func(c *opCost) float64 { return c.txBytes / link.bps })}
		}),
		kind(h, func(i int) station {
			return station{Name: "nic-rx", Servers: 1, D: host(i, func(c *opCost) float64 { return c.rxBytes / link.bps })}
		}),
	}
	if pl.memBps > 0 {
		kinds = append(kinds, kind(h, func(i int) station {
			return station{Name: "memory", Servers: 1, D: host(i, func(c *opCost) float64 { return c.memBytes / pl.memBps })}
		}))
	}
	if pl.groups > 0 {
		kinds = append(kinds, kind(len(sp[read].cache), func(i int) station {
			return station{Name: "ssd-cache", Servers: 1, D: per(func(s *spread) float64 { return s.cache[i] })}
		}))
	}
	return kinds
}

// domContention is how much more the DOM's work takes where reads (share
// fr of the I/Os) and writes mix: mixed_contention, most at half and half.
func domContention(m *testbed.ModelParams, fr float64) float64 {
	return 1 + m.MixedContention.Value*2*math.Min(fr, 1-fr)
}

// contend sets the factor mixed_contention puts on the cell's DOM work to
// f: its DOM stations' demands (each copy's and the network's) and its
// worlds' busy time scale with it.
func (c *cell) contend(f float64) {
	r := f / c.contention
	for _, sts := range append([][]station{c.st}, c.copies...) {
		for i := range sts {
			if sts[i].Name == "vsan-dom" {
				sts[i].D[read] *= r
				sts[i].D[write] *= r
			}
		}
	}
	c.contention, c.domBusy = f, c.domBusy*r
}

// hold takes from a CPU station the hardware threads that spin vCPUs (of
// effCPU cores' worth, SMT included, each thread its mean share) hold the
// whole run: the hypervisor shares the hardware threads alike among them
// and vSAN's worlds where there are more than it has.
func (s *station) hold(spinning, worlds, effCPU float64) {
	if spinning <= 0 {
		return
	}
	spinning = math.Min(spinning, s.HWThreads*spinning/(spinning+worlds))
	s.Held = spinning * effCPU / s.HWThreads
	s.Servers -= s.Held
	s.HWThreads -= spinning
}

// groupCopies builds each cell's network from its stations' copies: the
// copies of a kind whose parameters are the same in every cell (within
// rounding) are one station of that many copies, the mean of them, in the
// order of their first copy; copies with no demand in any cell are left
// out (they take no I/O) unless the kind has no other. Each cell's hostCPU
// keeps which station each host's CPU became. Where the layout is
// even this is one station per kind, as the symmetric network; where it is
// not, the busiest copies are a station of their own and bind first.
// Identical copies have identical queues, so the grouped network is the
// network of every copy. It returns the groups: per kind, the copy indices
// of each of its stations.
func groupCopies(cells []*cell) [][][]int {
	for _, c := range cells {
		c.st = c.st[:0]
	}
	blocks := make([][][]int, len(cells[0].copies))
	for k := range cells[0].copies {
		n := len(cells[0].copies[k])
		var groups [][]int // copy indices of each group
		idle := []int{}
		for i := range n {
			if isIdle(cells, k, i) {
				idle = append(idle, i)
				continue
			}
			g := slices.IndexFunc(groups, func(g []int) bool { return sameCopies(cells, k, g[0], i) })
			if g < 0 {
				groups = append(groups, []int{i})
			} else {
				groups[g] = append(groups[g], i)
			}
		}
		if len(groups) == 0 {
			groups = [][]int{idle}
		}
		if cells[0].copies[k][0].Name == "cpu" {
			at := make([]int, n)
			for i := range at {
				at[i] = -1
			}
			for gi, g := range groups {
				for _, i := range g {
					at[i] = len(cells[0].st) + gi
				}
			}
			for _, c := range cells {
				c.hostCPU = at
			}
		}
		for _, c := range cells {
			for _, g := range groups {
				st := meanCopy(c.copies[k], g)
				st.of = g
				c.st = append(c.st, st)
			}
		}
		blocks[k] = groups
	}
	return blocks
}

// isIdle reports whether copy i of kind k has no demand in any cell, in
// the directions the cell's job runs.
func isIdle(cells []*cell, k, i int) bool {
	for _, c := range cells {
		s := &c.copies[k][i]
		for _, dir := range c.directionsRun() {
			if s.D[dir] != 0 || s.Extra[dir] != 0 || s.Busy != nil && s.Busy[dir] != 0 {
				return false
			}
		}
	}
	return true
}

// sameCopies reports whether copies i and j of kind k are the same in
// every cell, within rounding, in the directions the cell's job runs.
func sameCopies(cells []*cell, k, i, j int) bool {
	for _, c := range cells {
		a, b := &c.copies[k][i], &c.copies[k][j]
		if !near(a.Servers, b.Servers) || !near(a.Threads, b.Threads) || a.HWThreads != b.HWThreads {
			return false
		}
		for _, dir := range c.directionsRun() {
			if !near(a.D[dir], b.D[dir]) || !near(a.Extra[dir], b.Extra[dir]) {
				return false
			}
			if a.Busy != nil && !near(a.Busy[dir], b.Busy[dir]) {
				return false
			}
		}
	}
	return true
}

// directionsRun are the directions with I/Os in the cell's job.
func (c *cell) directionsRun() []int {
	switch c.fr {
	case 1:
		return []int{read}
	case 0:
		return []int{write}
	}
	return []int{read, write}
}

func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// meanCopy is the station of the copies g of one kind: their mean, with
// len(g) copies.
func meanCopy(copies []station, g []int) station {
	s := copies[g[0]]
	s.Copies = len(g)
	if len(g) == 1 {
		return s
	}
	var busy [2]float64
	s.D, s.Extra, s.Servers, s.Threads, s.Held = [2]float64{}, [2]float64{}, 0, 0, 0
	for _, i := range g {
		o := &copies[i]
		for dir := range s.D {
			s.D[dir] += o.D[dir]
			s.Extra[dir] += o.Extra[dir]
			if o.Busy != nil {
				busy[dir] += o.Busy[dir]
			}
		}
		s.Servers += o.Servers
		s.Threads += o.Threads
		s.Held += o.Held
	}
	n := float64(len(g))
	for dir := range s.D {
		s.D[dir] /= n
		s.Extra[dir] /= n
		busy[dir] /= n
	}
	s.Servers /= n
	s.Threads /= n
	s.Held /= n
	if s.Busy != nil {
		s.Busy = &busy
	}
	return s
}

// unwrittenShare is the share of the disks' blocks never written.
func unwrittenShare(disks []DiskLoad) float64 {
	u := 0.0
	for _, d := range disks {
		u += 1 - d.Written
	}
	return u / float64(len(disks))
}
