package model

import (
	"context"
	"fmt"
	"math"
	"slices"

	"starbench/internal/testbed"
)

// Solve predicts what fio would report for one cell. It is deterministic,
// and it stops early with ctx's error when ctx is cancelled. The output is
// the steady state; on OSA, Burst is the regime while the write buffers
// absorb writes (see Plane for how a run moves from one to the other).
func Solve(ctx context.Context, p *testbed.Profile, in Input) (*Output, error) {
	solve := func(deferDestage bool) (*Output, []*cell, error) {
		if len(in.Jobs) == 1 {
			out, c, err := solveCell(ctx, p, in, deferDestage)
			return out, []*cell{c}, err
		}
		return solveJobs(ctx, p, in, deferDestage)
	}
	out, _, err := solve(false)
	if err != nil || p.Architecture != "OSA" || out.Write.IOPS == 0 {
		return out, err
	}
	burst, cells, err := solve(true)
	if err != nil {
		return nil, err
	}
	out.Burst = burst
	for i, c := range cells {
		out.BufferBytesPerSec += burst.Jobs[i].Write.IOPS * c.cost[write].bufferBytes
	}
	return out, nil
}

// solveCell solves one cell, with OSA's destage deferred or not.
func solveCell(ctx context.Context, p *testbed.Profile, in Input, deferDestage bool) (*Output, *cell, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	c, err := buildCell(p, in, deferDestage)
	if err != nil {
		return nil, nil, err
	}
	sh, st := c.shape, c.st
	g := c.g
	if sh.latTarget > 0 {
		if g, err = c.latencyTarget(ctx, p, in); err != nil {
			return nil, nil, err
		}
	}
	out := &Output{Profile: p.Name, Version: Version, RDMA: c.rdma, Notes: append(c.notes, g.notes...)}
	n := g.outstanding
	sol, err := solveMVA(ctx, st, n, c.fr, c.zMix+sh.think)
	if err != nil {
		return nil, nil, err
	}
	// fio's rate_iops and rate cap each job (clone) per direction: the
	// tighter direction holds the mix.
	jobs := float64(len(c.job.Disks) * max(c.job.Job.NumJobs, 1))
	limit := jobs * c.rateLimit()
	x := sol.X // throughput; a rate limit holds it below what the network carries
	guestWait := 0.0
	if sol.X > limit {
		if n, sol, err = rateLimited(ctx, st, n, c.fr, c.zMix+sh.think, limit); err != nil {
			return nil, nil, err
		}
		x = math.Min(sol.X, limit)
	} else if g.fioOutstanding > n {
		// I/Os beyond the virtual controllers' queues wait in the guest:
		// fio counts that wait in their latency (Little's law on fio's
		// own outstanding I/Os).
		guestWait = float64(g.fioOutstanding-n) / sol.X
	}
	dirs, err := c.directions(sol.W, seen(sol, n), n, sol.X, x, guestWait)
	if err != nil {
		return nil, nil, err
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
	out.Jobs = []JobOutput{{Name: c.job.Name, Outstanding: g.fioOutstanding, Read: dirs[read], Write: dirs[write]}}

	for k := range st {
		s := &st[k]
		out.addStation(s, sol.W[k], x*(c.fr*s.demandAt(read, sol.W[k])+(1-c.fr)*s.demandAt(write, sol.W[k]))/s.Servers)
	}
	out.Notes = append(out.Notes, rangeNotes(p, g.fioOutstanding, c.sizes)...)
	return out, c, nil
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
		out.CPUPercent = 100 * u
	case "guest":
		out.GuestCPUPercent = 100 * u
	case "nic-tx", "nic-rx":
		out.NICPercent = math.Max(out.NICPercent, 100*u)
	}
	if s.loadDependent() && w > 0.01 {
		out.Notes = append(out.Notes, fmt.Sprintf("%s overcommitted: %.0f %% of thread hand-offs wait for a core (ready time); throughput falls as outstanding I/O grows", s.Name, 100*w))
	}
}

// rateLimit is the most I/Os per second one job (clone) may do under fio's
// per-direction rate_iops and rate; +Inf without them.
func (c *cell) rateLimit() float64 {
	limit := math.Inf(1)
	share := [2]float64{c.fr, 1 - c.fr}
	for dir := range share {
		if share[dir] == 0 {
			continue
		}
		if r := c.shape.rate[dir]; r > 0 {
			limit = math.Min(limit, r/share[dir])
		}
		if r := c.shape.rateB[dir]; r > 0 {
			limit = math.Min(limit, r/meanSize(c.sizes[dir])/share[dir])
		}
	}
	return limit
}

// directions is fio's summary per direction at population n and
// throughput x: latency by the arrival theorem, scaled so the mix obeys
// Little's law (think time is not latency), plus what I/Os waited in the
// guest.
func (c *cell) directions(w, seenQ []float64, n int, netX, x, guestWait float64) ([2]Direction, error) {
	var dirs [2]Direction
	var resp [2]float64
	fr := c.fr
	for dir := range dirs {
		resp[dir] = c.z[dir] + sum(residence(c.st, w, seenQ, dir))
	}
	littleR := float64(n)/netX - c.shape.think
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
		g := guestLayout(p, in.VMs, c.job, depth)
		sol, err := solveMVA(ctx, c.st, g.outstanding, c.fr, c.zMix+sh.think)
		if err != nil {
			return g, false, err
		}
		dirs, err := c.directions(sol.W, seen(sol, g.outstanding), g.outstanding, sol.X, sol.X, 0)
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
	link  vsanLink
	pl    platform
	g     guestLoad
	cost  [2]opCost // per I/O, by direction
	st    []station
	z     [2]float64 // fixed delay per direction, seconds
	zMix  float64
	notes []string
}

// buildCell turns an input into its network: the per-I/O costs of each
// named path on the platform, the stations and the fixed delays.
func buildCell(p *testbed.Profile, in Input, deferDestage bool) (*cell, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	if len(in.Jobs) > 1 {
		return nil, fmt.Errorf("%d concurrent jobs: the model solves one job at a time", len(in.Jobs))
	}
	c := &cell{job: in.Jobs[0]}
	job := c.job.Job
	var err error
	if c.shape, err = readJob(job); err != nil {
		return nil, err
	}
	c.fr, c.sizes, c.notes = c.shape.fr, c.shape.sizes, c.shape.notes
	c.rdma = in.State.RDMA && p.RDMACapable
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
	if unwritten := unwrittenShare(c.job.Disks); unwritten > 0 && c.fr > 0 {
		c.notes = append(c.notes, fmt.Sprintf("%.0f %% of the blocks read were never written: their reads cost a metadata lookup and the guest's copy, no device (prepare the disks to measure them)", 100*unwritten))
	}
	c.pl = newPlatform(p)
	c.g = guestLayout(p, in.VMs, c.job, c.shape.depth)
	if c.cost, err = accountCosts(p, c.pl, c.link, in.State, c.g, c.job.Disks, c.shape, deferDestage); err != nil {
		return nil, err
	}
	for dir := range c.cost { // thinktime_spin busies the guest's vCPU
		c.cost[dir].guestCycles += c.shape.spin * c.pl.hz
	}
	c.st = stations(p, c.pl, c.link, c.g, c.cost, c.fr)
	if in.Degradation != nil {
		if err := in.Degradation.apply(p, c); err != nil {
			return nil, err
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
	return c, nil
}

// guestLoad is the guest side of a job: the worker VMs' vCPUs and virtual
// controllers, and the outstanding I/O the controllers let through.
type guestLoad struct {
	vcpusPerHost   float64            // worker vCPUs per host
	threadsPerHost float64            // guest threads that can run at once (vCPUs busy with fio)
	controllers    map[string]float64 // share of the job's disks on each controller
	fioOutstanding int                // I/Os fio keeps outstanding
	outstanding    int                // of those, the ones the controllers admit
	notes          []string
}

// guestLayout works out the guest side of a job on its VMs (the profile's
// worker layout when the input names none).
func guestLayout(p *testbed.Profile, vms []VM, jl JobLoad, depth int) guestLoad {
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
	g := guestLoad{controllers: map[string]float64{}}
	vcpus, threads := 0.0, 0.0
	capped := false
	hosts := map[string]int{}
	nVM := len(vms)
	if nVM == 0 {
		nVM = len(disksOf)
	}
	for v := range nVM {
		disks := disksOf[v]
		vm := VM{}
		if v < len(vms) {
			vm = vms[v]
		}
		cpus := vm.CPUs
		if cpus == 0 {
			cpus = p.Workers.CPUs
		}
		ctrl := vm.Controller
		if ctrl == "" {
			ctrl = p.Workers.Controller
		}
		vcpus += float64(cpus)
		if vm.Host != "" {
			hosts[vm.Host]++
		}
		if disks == 0 {
			continue
		}
		threads += math.Min(float64(cpus), float64(disks*max(jl.Job.NumJobs, 1)))
		g.controllers[ctrl] += float64(disks) / float64(len(jl.Disks))
		lun, adapter := controllerQueues(m, ctrl)
		adapters := (disks + maxDisksPerController - 1) / maxDisksPerController
		admitted := min(disks*min(perDisk, lun), adapter*adapters)
		capped = capped || admitted < disks*perDisk
		g.fioOutstanding += disks * perDisk
		g.outstanding += admitted
	}
	h := float64(p.Hosts)
	g.vcpusPerHost, g.threadsPerHost = vcpus/h, math.Max(threads/h, 1)
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
			g.notes = append(g.notes, fmt.Sprintf("worker VMs are spread unevenly (%d to %d per host); the model takes hosts as symmetric", lo, hi))
		}
	}
	return g
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

// accountCosts averages the per-I/O costs of each direction over the disks,
// their controllers and block sizes. Disks in the same state cost the
// same: each kind is accounted once, in first-seen order so sums are
// deterministic.
func accountCosts(p *testbed.Profile, pl platform, link vsanLink, state ClusterState, g guestLoad, disks []DiskLoad, sh jobShape, deferDestage bool) ([2]opCost, error) {
	var kinds []DiskLoad
	counts := map[DiskLoad]int{}
	for _, d := range disks {
		d.VM = 0 // the VM matters through the guest layout, not here
		if counts[d] == 0 {
			kinds = append(kinds, d)
		}
		counts[d]++
	}
	var cost [2]opCost
	rdma := state.RDMA && p.RDMACapable
	for _, ctrl := range sortedKeys(g.controllers) {
		for _, d := range kinds {
			lay, err := policyLayout(p, d.Policy)
			if err != nil {
				return cost, err
			}
			compress := state.Compression // a policy's compression rule overrides the cluster's
			switch d.Policy.Compression {
			case On:
				compress = true
			case Off:
				compress = false
			}
			cm := newCostModel(p, pl, link, rdma, compress, state.Dedup, ctrl)
			cm.deferDestage = deferDestage
			w := g.controllers[ctrl] * float64(counts[d]) / float64(len(disks))
			for _, s := range sh.sizes[read] {
				cost[read].add(cm.readCost(float64(s.size), d.Written, d.CompressPercentage), w*s.share)
			}
			for _, s := range sh.sizes[write] {
				cost[write].add(cm.writeCost(float64(s.size), lay, sh.compressPct, sh.dedupePct), w*s.share)
			}
		}
	}
	return cost, nil
}

// stations builds the network for the per-I/O costs: per host the CPU
// (every cycle, load-dependent), the guest's vCPUs, vSAN's DOM worlds, the
// NICs and memory; vSAN's LSOM worlds per device (ESA) or disk group
// (OSA); the devices.
func stations(p *testbed.Profile, pl platform, link vsanLink, g guestLoad, cost [2]opCost, fr float64) []station {
	m := &p.Model
	h := float64(p.Hosts)
	contention := 1 + m.MixedContention.Value*2*math.Min(fr, 1-fr)
	per := func(f func(c opCost) float64) [2]float64 {
		return [2]float64{f(cost[read]), f(cost[write])}
	}
	// The threads' cycles are CPU time too: the CPU station saturates on
	// all cycles but adds as latency only those no thread station holds.
	other := per(func(c opCost) float64 { return c.otherCycles / pl.hz / h })
	st := []station{
		{Name: "cpu", Copies: p.Hosts, Servers: pl.effCPU, Busy: &other,
			D:       per(func(c opCost) float64 { return c.cpuCycles() / pl.hz / h }),
			Extra:   per(func(c opCost) float64 { return c.dispatches * m.ContextSwitchCycles.Value / pl.hz / h }),
			Threads: g.threadsPerHost + pl.domWorlds + pl.storeWorldsPerHost() + float64(len(link.nics)), HWThreads: pl.hwThr},
		{Name: "guest", Copies: p.Hosts, Servers: g.threadsPerHost,
			D: per(func(c opCost) float64 { return c.guestCycles / pl.hz / h })},
		{Name: "vsan-dom", Copies: p.Hosts, Servers: pl.domWorlds,
			D: per(func(c opCost) float64 { return contention * c.domCycles / pl.hz / h })},
		{Name: pl.storeName, Copies: pl.stores, Servers: pl.storeWorlds,
			D: per(func(c opCost) float64 { return c.storeCycles / pl.hz / float64(pl.stores) })},
		{Name: "ssd-capacity", Copies: pl.devices, Servers: 1,
			D: per(func(c opCost) float64 { return c.capacityTime / float64(pl.devices) })},
		{Name: "nic-tx", Copies: p.Hosts, Servers: 1,
			D: per(func(c opCost) float64 { return c.wireBytes / h / link.bps })},
		{Name: "nic-rx", Copies: p.Hosts, Servers: 1,
			D: per(func(c opCost) float64 { return c.wireBytes / h / link.bps })},
	}
	if pl.memBps > 0 {
		st = append(st, station{Name: "memory", Copies: p.Hosts, Servers: 1,
			D: per(func(c opCost) float64 { return c.memBytes / h / pl.memBps })})
	}
	if pl.groups > 0 {
		st = append(st, station{Name: "ssd-cache", Copies: pl.groups, Servers: 1,
			D: per(func(c opCost) float64 { return c.cacheTime / float64(pl.groups) })})
	}
	return st
}

// sortedKeys returns a map's keys in order, for deterministic sums.
func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// unwrittenShare is the share of the disks' blocks never written.
func unwrittenShare(disks []DiskLoad) float64 {
	u := 0.0
	for _, d := range disks {
		u += 1 - d.Written
	}
	return u / float64(len(disks))
}
