package model

import (
	"context"
	"fmt"
	"math"
	"slices"

	"starbench/internal/testbed"
)

// classSolution is a network of several classes (concurrent jobs, groups
// of a job's disks) at their populations: per class throughput and queue
// at one copy of each station, and the stations' shared wait shares; job
// is each class's job, perJob marks the stations each job has its own
// copy of (station.PerJob); iterations is how many steps the solve took.
type classSolution struct {
	X          []float64
	Q          [][]float64
	W          []float64
	job        []int
	perJob     []bool
	iterations int
}

// seenBy is the queue an I/O of class c sees at each station: everyone's
// but itself (Bard-Schweitzer), at a station each job has its own copy of
// its own job's classes' only.
func (s classSolution) seenBy(c int, n []float64) []float64 {
	var t queueTotals
	t.sum(s)
	q := make([]float64, len(s.W))
	for k := range q {
		q[k] = t.seenBy(s, c, k, n[c])
	}
	return q
}

// queueTotals is every class's queue summed at each station (all) and, at
// each station, each job's classes' (byJob), the sums seenBy and the
// iteration of solveClasses take what an arriving I/O sees from.
type queueTotals struct {
	all   []float64
	byJob [][]float64
}

// sum sets t to s's queues' totals, reusing t's slices.
func (t *queueTotals) sum(s classSolution) {
	K := len(s.W)
	jobs := slices.Max(s.job) + 1
	if len(t.all) != K || len(t.byJob) != jobs {
		t.all, t.byJob = make([]float64, K), make([][]float64, jobs)
		for j := range t.byJob {
			t.byJob[j] = make([]float64, K)
		}
	}
	clear(t.all)
	for j := range t.byJob {
		clear(t.byJob[j])
	}
	for c, q := range s.Q {
		for k, x := range q {
			t.all[k] += x
			t.byJob[s.job[c]][k] += x
		}
	}
}

// seenBy is the queue an I/O of class c (of n outstanding I/Os) sees at
// station k: everyone's but itself, at a station each job has its own copy
// of its own job's only.
func (t *queueTotals) seenBy(s classSolution, c, k int, n float64) float64 {
	q := t.all[k]
	if s.perJob[k] {
		q = t.byJob[s.job[c]][k]
	}
	return q - s.Q[c][k]/n
}

// solveClasses solves classes (concurrent jobs, groups of a job's disks on
// an uneven layout) as one closed network by Bard-Schweitzer's multi-class
// approximation: every class has its own demands at the same stations
// (built from its own costs) and its own population; they queue together,
// and a load-dependent station's wait share follows everyone's queue
// (damped). Slow convergence is extrapolated (see extrapolate). A solve
// after another of the same classes (from; nil for none) starts from its
// queues, scaled to n, and wait shares: the same fixed point in fewer
// iterations.
func solveClasses(ctx context.Context, cells []*cell, n []float64, from *classSolution) (classSolution, error) {
	C, K := len(cells), len(cells[0].st)
	ms := make([]*mixed, C)
	total := 0.0
	for c, cl := range cells {
		if err := checkStations(cl.st, cl.zMix+cl.shape.think); err != nil {
			return classSolution{}, err
		}
		if !(n[c] >= 1) {
			return classSolution{}, fmt.Errorf("job %d: %g outstanding I/Os: want at least 1", c+1, n[c])
		}
		ms[c] = mix(cl.st, cl.fr, cl.zMix+cl.shape.think)
		total += n[c]
	}
	sol := classSolution{X: make([]float64, C), Q: make([][]float64, C), W: make([]float64, K), job: make([]int, C), perJob: make([]bool, K)}
	for c, cl := range cells {
		sol.job[c] = cl.index
	}
	for k, st := range cells[0].st {
		sol.perJob[k] = st.PerJob
	}
	warm := from != nil && len(from.Q) == C
	for c := range cells {
		sol.Q[c] = make([]float64, K)
		start := ms[c].dq
		if warm {
			start = from.Q[c]
		}
		sum := 0.0
		for k := range K {
			sum += float64(cells[c].st[k].Copies) * start[k]
		}
		if sum > 0 {
			for k := range K {
				sol.Q[c][k] = n[c] * start[k] / sum
			}
			if warm {
				sol.X[c] = from.X[c] * n[c] / sum
			}
		}
	}
	if warm {
		copy(sol.W, from.W)
	}
	ld := ms[0].ld
	var t queueTotals
	// Per class and station: the queue part of one copy's demand with the
	// wait share (f) and that for all copies (e); only the load-dependent
	// stations' change between iterations.
	f, e := make([][]float64, C), make([][]float64, C)
	for c := range C {
		f[c], e[c] = slices.Clone(ms[c].dq), make([]float64, K)
		for k := range K {
			e[c][k] = float64(cells[c].st[k].Copies) * f[c][k]
		}
	}
	seen := make([]float64, K)
	h := &iterates{older: make([]float64, C*K), last: make([]float64, C*K)}
	for it := range 2000 {
		if it%16 == 0 {
			if err := ctx.Err(); err != nil {
				return classSolution{}, err
			}
		}
		t.sum(sol)
		for _, k := range ld {
			s := &cells[0].st[k]
			present := t.all[k]
			for c := range C {
				present += sol.X[c] * ms[c].full[k] * (s.Servers - 1) / s.Servers
			}
			w := s.waitShare(present)
			if it > 0 || warm {
				w = (w + sol.W[k]) / 2
			}
			sol.W[k] = w
		}
		delta := 0.0
		for c := range C {
			m := ms[c]
			r := m.z
			for _, k := range ld {
				r += sol.W[k] * m.extraZ[k]
				f[c][k] = m.dq[k] + sol.W[k]*m.extraQ[k]
				e[c][k] = float64(cells[c].st[k].Copies) * f[c][k]
			}
			q, fc, ec := sol.Q[c], f[c], e[c]
			for k := range K { // seen: 1 + what an arriving I/O of c sees
				seen[k] = 1 + t.seenBy(sol, c, k, n[c])
				r += ec[k] * seen[k]
			}
			x := n[c] / r
			sol.X[c] = x
			for k := range K {
				next := x * fc[k] * seen[k]
				delta = max(delta, math.Abs(next-q[k])) // NaN carries, as math.Max does
				q[k] = next
			}
		}
		sol.iterations++
		if !(delta >= 1e-7*total) { // converged, or NaN: refused below
			break
		}
		sol.extrapolate(h, it)
	}
	for c := range C {
		if !finite(sol.X[c]) || sol.X[c] <= 0 {
			return classSolution{}, fmt.Errorf("job %d: the network gives throughput %g: want a finite number above 0", c+1, sol.X[c])
		}
		for k, q := range sol.Q[c] {
			if !finite(q) || q < 0 {
				return classSolution{}, fmt.Errorf("job %d, station %s: queue length %g: want a finite number of at least 0", c+1, cells[c].st[k].Name, q)
			}
		}
	}
	return sol, nil
}

// iterates are the last two iterates of a multi-class solution's queues
// (all classes', flat), n of them kept.
type iterates struct {
	older, last []float64
	n           int
}

// extrapolate speeds up the fixed-point iteration where it converges
// slowly (classes sharing a saturated station: a thousand iterations and
// more): where the last two steps of all the queues point the same way
// (cosine above 0.999) and shrink by a steady ratio rho below 0.999, the
// rest of the geometric series, rho / (1 - rho) times the last step, is
// added at once (vector Aitken), at most every fourth iteration, the
// queues kept at least 0; the iterates are then gathered anew. The fixed
// point and the convergence test are the iteration's own.
func (s *classSolution) extrapolate(h *iterates, it int) {
	K := len(s.W)
	if h.n == 2 && it%4 == 0 {
		var d1, d0, dot float64
		for c, q := range s.Q {
			for k, x := range q {
				a, b := x-h.last[c*K+k], h.last[c*K+k]-h.older[c*K+k]
				d1 += a * a
				d0 += b * b
				dot += a * b
			}
		}
		if d1 > 0 && d0 > 0 {
			rho := math.Sqrt(d1 / d0)
			if rho < 0.999 && dot/math.Sqrt(d1*d0) > 0.999 {
				f := rho / (1 - rho)
				for c, q := range s.Q {
					for k, x := range q {
						q[k] = math.Max(0, x+f*(x-h.last[c*K+k]))
					}
				}
				h.n = 0
				return
			}
		}
	}
	h.older, h.last = h.last, h.older
	for c, q := range s.Q {
		copy(h.last[c*K:], q)
	}
	h.n = min(h.n+1, 2)
}

// solveNetwork builds the network of an input (buildNetwork, with the
// classes of plan when one is given: from an earlier build of the same
// input) and solves it: one class alone as one closed network (solveCell),
// several (concurrent jobs, or a job whose disks split by where their load
// lands) by Bard-Schweitzer's multi-class approximation. It returns the
// classes solved, each with its result, and their plan.
func solveNetwork(ctx context.Context, p *testbed.Profile, in Input, deferDestage bool, plan *classPlan) (*Output, []*cell, *classPlan, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	cells, plan, err := buildNetwork(p, in, deferDestage, plan)
	if err != nil {
		return nil, nil, nil, err
	}
	out, err := solveCells(ctx, p, in, cells)
	return out, cells, plan, err
}

// solveCells solves the classes of a network: one alone as one closed
// network (solveCell), several by Bard-Schweitzer's multi-class
// approximation.
func solveCells(ctx context.Context, p *testbed.Profile, in Input, cells []*cell) (*Output, error) {
	if len(cells) == 1 {
		return solveCell(ctx, p, in, cells[0])
	}
	n := make([]float64, len(cells))
	for i, c := range cells {
		n[i] = float64(c.g.outstanding)
		if c.shape.latTarget > 0 && len(in.Jobs) > 1 {
			c.notes = append(c.notes, "latency_target is not applied to a job running beside others: run at its iodepth")
		}
	}
	if len(in.Jobs) == 1 && cells[0].shape.latTarget > 0 {
		if err := classDepths(ctx, p, cells, n); err != nil {
			return nil, err
		}
	}
	// Jobs of different read shares on the same disks contend as their mix
	// does (contendOnObjects): solved again until the mix settles, each
	// class from where the last solve held it (holdRates), each solve from
	// the one before.
	full, caps := slices.Clone(n), classCaps(cells)
	var sol classSolution
	for round := 0; ; round++ {
		var err error
		if sol, err = solveClasses(ctx, cells, n, &sol); err != nil {
			return nil, err
		}
		if sol, err = holdRates(ctx, cells, caps, n, full, sol); err != nil {
			return nil, err
		}
		// Damped after a few rounds, and stopped at 12 whatever it does.
		if !contendOnObjects(p, cells, sol.X, caps, max(0.5, 1-float64(round/4)*0.25)) || round == 11 {
			break
		}
	}

	out := &Output{Profile: p.Name, Version: Version, RDMA: cells[0].rdma, Jobs: make([]JobOutput, len(in.Jobs)), RateLimited: true}
	classes := make([]int, len(in.Jobs))
	for _, c := range cells {
		classes[c.index]++
	}
	// Latencies (percentiles too) weighted by I/Os: of a job's classes,
	// and of all classes together.
	var ios [2]float64
	var lat [2][5]float64
	jobIOs := make([][2]float64, len(in.Jobs))
	jobLat := make([][2][5]float64, len(in.Jobs))
	var sizes [2][]sizeShare
	seen := make([]bool, len(in.Jobs))
	for j := range out.Jobs {
		out.Jobs[j].RateLimited = true // until a class of the job runs free
	}
	for i, c := range cells {
		limit, throttled := c.rateCap()
		x, held := sol.X[i], heldAt(sol.X[i], limit)
		if held {
			x = limit
		}
		out.RateLimited = out.RateLimited && held
		out.Jobs[c.index].RateLimited = out.Jobs[c.index].RateLimited && held
		guestWait := 0.0
		notes := slices.Concat(c.notes, c.g.notes)
		switch {
		case held && throttled:
			guestWait = throttleWait(c.g.fioOutstanding, n[i], x)
			notes = append(notes, c.throttleNote())
		case !held && float64(c.g.fioOutstanding) > n[i]:
			guestWait = (float64(c.g.fioOutstanding) - n[i]) / sol.X[i]
		}
		dirs, err := c.directions(sol.W, sol.seenBy(i, n), n[i], sol.X[i], x, guestWait)
		if err != nil {
			return nil, err
		}
		for dir := range dirs {
			dirs[dir].IOPS *= c.shape.duty
			dirs[dir].MBps *= c.shape.duty
		}
		c.result = dirs
		jo := &out.Jobs[c.index]
		if !seen[c.index] { // the job's first class
			seen[c.index] = true
			jo.Name = c.job.Name
			sizes[read] = append(sizes[read], c.sizes[read]...)
			sizes[write] = append(sizes[write], c.sizes[write]...)
		}
		jo.Outstanding += c.g.fioOutstanding
		out.Outstanding += c.g.fioOutstanding
		if classes[c.index] > 1 {
			jo.Classes = append(jo.Classes, ClassOutput{Disks: c.disks, Read: dirs[read], Write: dirs[write], RateLimited: held})
		}
		for dir, d := range dirs {
			if classes[c.index] == 1 {
				*[2]*Direction{&jo.Read, &jo.Write}[dir] = d
			} else {
				jd := [2]*Direction{&jo.Read, &jo.Write}[dir]
				jd.IOPS += d.IOPS
				jd.MBps += d.MBps
				jobIOs[c.index][dir] += d.IOPS
				addLatencies(&jobLat[c.index][dir], d)
			}
			total := [2]*Direction{&out.Read, &out.Write}[dir]
			total.IOPS += d.IOPS
			total.MBps += d.MBps
			ios[dir] += d.IOPS
			addLatencies(&lat[dir], d)
		}
		for _, note := range notes {
			if !slices.Contains(out.Notes, note) {
				out.Notes = append(out.Notes, note)
			}
		}
	}
	for j := range out.Jobs {
		if classes[j] > 1 {
			setLatencies([2]*Direction{&out.Jobs[j].Read, &out.Jobs[j].Write}, jobIOs[j], jobLat[j])
		}
	}
	setLatencies([2]*Direction{&out.Read, &out.Write}, ios, lat)
	for j, k := range classes {
		if k > 1 {
			job := "the job"
			if len(in.Jobs) > 1 {
				job = fmt.Sprintf("job %s", in.Jobs[j].Name)
			}
			out.Notes = append(out.Notes, fmt.Sprintf("%s: the layout is uneven, so its disks run as %d classes grouped by where their load lands, each at its own rate; its figures are theirs summed, latencies (percentiles too) weighted by I/Os", job, k))
		}
	}
	if len(in.Jobs) > 1 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d concurrent jobs solved as classes of one network; the jobs together: latencies (percentiles too) are the I/O-weighted mean of the jobs'", len(in.Jobs)))
	}
	out.Notes = append(out.Notes, contentionNotes(p, in, cells)...)
	// The stations' load while the classes issue I/O, and the hosts' over
	// the run (thinktime_iotime's stalls idle them).
	u, whole := make([]float64, len(cells[0].st)), make([]float64, len(cells[0].st))
	for k := range u {
		all := 0.0 // a station each job has its own copy of: every job's servers
		if cells[0].st[k].PerJob {
			all = jobServers(cells, k)
		}
		for i, c := range cells {
			cs := &c.st[k]
			servers := cs.Servers
			if cs.PerJob {
				servers = all
			}
			x := sol.X[i] * (c.fr*cs.demandAt(read, sol.W[k]) + (1-c.fr)*cs.demandAt(write, sol.W[k])) / servers
			u[k] += x
			whole[k] += x * c.shape.duty
		}
	}
	out.addStations(cells[0].st, sol.W, u)
	out.HostCPUPercent, out.hostHeld = hostPercent(cells[0].hostCPU, cells[0].st, whole), hostPercent(cells[0].hostCPU, cells[0].st, make([]float64, len(cells[0].st)))
	out.Hosts = hostFigures(cells, out.HostCPUPercent, out.hostHeld)
	out.Notes = append(out.Notes, rangeNotes(p, out.Outstanding, sizes)...)
	return out, nil
}

// contendOnObjects sets each class's mixed_contention (domContention)
// from the mix of reads and writes on its disks' objects: every class's
// I/Os there counted, at x (each class's I/O rate, spread evenly over its
// disks, held to its cap, caps). mixed_contention stands for the lock and log
// contention between reads and writes in vSAN's path, which is the
// object's: a reader and a writer on the same disks contend as one job
// mixing their I/Os does. A class meets at least what its own mix gives
// (its own reads and writes still meet whatever else runs; other jobs add
// conflicts, they take none away), so a mixed job beside a reader keeps
// its own. It says whether any class's factor moved by more than 0.1 %;
// each moves that step of the way (1: all of it; less damps a swing).
func contendOnObjects(p *testbed.Profile, cells []*cell, x, caps []float64, step float64) bool {
	type objectKey struct {
		vm   int
		disk string
	}
	reads, all := map[objectKey]float64{}, map[objectKey]float64{}
	for c, cl := range cells {
		for _, d := range cl.job.Disks {
			if d.Disk == "" {
				continue // an object of the job's own
			}
			rate := math.Min(x[c], caps[c]) / float64(len(cl.job.Disks))
			all[objectKey{d.VM, d.Disk}] += rate
			reads[objectKey{d.VM, d.Disk}] += rate * cl.fr
		}
	}
	if len(all) == 0 {
		return false
	}
	moved := false
	for _, cl := range cells {
		r, a := 0.0, 0.0
		for _, d := range cl.job.Disks {
			if d.Disk == "" {
				r, a = r+cl.fr, a+1
				continue
			}
			o := objectKey{d.VM, d.Disk}
			r, a = r+reads[o]/all[o], a+1 // each disk alike
		}
		cl.objectsMix = r / a
		f := math.Max(domContention(&p.Model, cl.fr), domContention(&p.Model, r/a))
		if math.Abs(f-cl.contention) > 1e-3*cl.contention {
			cl.contend(cl.contention + step*(f-cl.contention))
			moved = true
		}
	}
	return moved
}

// contentionNotes says, for each job whose reads and writes meet other
// jobs' on its disks' objects more than its own mix gives
// (contendOnObjects), by how much vSAN's DOM work per I/O grows there.
func contentionNotes(p *testbed.Profile, in Input, cells []*cell) []string {
	var notes []string
	for j, jl := range in.Jobs {
		var most *cell
		for _, c := range cells {
			if c.index == j && (most == nil || c.contention > most.contention) {
				most = c
			}
		}
		if own := domContention(&p.Model, most.fr); most.contention > own*1.001 {
			notes = append(notes, fmt.Sprintf("job %s: on its disks other jobs' reads and writes mix with its own, %.0f/%.0f there against its %.0f/%.0f: vSAN's DOM work per I/O contends as for that mix (mixed_contention), x%.3f against x%.3f",
				jl.Name, 100*most.objectsMix, 100*(1-most.objectsMix), 100*most.fr, 100*(1-most.fr), most.contention, own))
		}
	}
	return notes
}

// classCaps is each class's cap (rateCap).
func classCaps(cells []*cell) []float64 {
	caps := make([]float64, len(cells))
	for i, c := range cells {
		caps[i], _ = c.rateCap()
	}
	return caps
}

// holdTolerance is how close to its cap a held class's throughput is
// settled, relative: well within what any figure is shown with.
const holdTolerance = 1e-4

// heldAt says whether a class doing x against its cap is held there.
func heldAt(x, cap float64) bool { return x >= cap*(1-holdTolerance) }

// holdRates settles each class with a cap (caps: fio's rates per job
// clone, a policy's IOPS limit per disk) at the outstanding I/Os that
// reach it, at most its full queue (full) and at least one: n is set in
// place and the solution there returned. fio paces a rate-limited job's
// I/Os, so on average it keeps what Little's law gives at its rate
// outstanding, a fraction of an I/O included: the populations are real
// numbers (Bard-Schweitzer's approximation takes them).
//
// All the classes step together, as fio paces every rate-limited job from
// its start: each to n * cap / X (a class doing X at n I/Os spends n/X on
// each, so cap * n/X reach its cap at that response time), then the
// network is solved again. A class's response time grows with its own
// I/Os, more slowly than they do (its throughput rises with them), so the
// steps close in on the cap from either side without passing it; once two
// steps have been taken, each class's next is the secant through its last
// two (n, X) pairs, which the coupling through the others' queues leaves
// nearly exact. A class still below its cap at its full queue runs free.
// Taking the classes one at a time instead (each against the others' full
// queues) holds the first ones against everyone's congestion: on a host
// that loses throughput past saturation they keep nearly all their I/Os
// and fall below their caps once the others are held, a state fio's
// pacing never reaches (WWT's 24 classes of a 70/30 job capped at 9,000
// IOPS each beside a reader: 23 left at 8,878 IOPS and 7.8 ms, where held
// together each reaches its cap at 0.87 ms).
func holdRates(ctx context.Context, cells []*cell, caps, n, full []float64, sol classSolution) (classSolution, error) {
	last, lastX := make([]float64, len(n)), make([]float64, len(n))
	for step := 0; step < 100; step++ {
		moved := false
		for i, x := range sol.X {
			if math.IsInf(caps[i], 1) || (n[i] >= full[i] && x < caps[i]) || (n[i] <= 1 && x > caps[i]) {
				continue // no cap, or free at its full queue, or held at one I/O
			}
			next := n[i] * caps[i] / x
			if step > 0 && x != lastX[i] && n[i] != last[i] {
				if secant := n[i] + (caps[i]-x)*(n[i]-last[i])/(x-lastX[i]); secant > 0 && (x-lastX[i])/(n[i]-last[i]) > 0 {
					next = secant
				}
			}
			next = math.Min(full[i], math.Max(1, next))
			if math.Abs(x/caps[i]-1) > holdTolerance/2 && next != n[i] {
				last[i], lastX[i] = n[i], x
				n[i], moved = next, true
			}
		}
		if !moved {
			return sol, nil
		}
		var err error
		if sol, err = solveClasses(ctx, cells, n, &sol); err != nil {
			return sol, err
		}
	}
	return sol, nil
}

// jobServers is the servers of station k over all jobs' own copies: each
// job's once, however many classes it runs as.
func jobServers(cells []*cell, k int) float64 {
	counted := map[int]bool{}
	servers := 0.0
	for _, c := range cells {
		if !counted[c.index] {
			counted[c.index] = true
			servers += c.st[k].Servers
		}
	}
	return servers
}

// classDepths follows fio's latency_target for a job alone that runs as
// classes: every disk's fio job profiles its own queue depth, so each class
// settles at the highest depth (at most iodepth) at which its latency at
// latency_percentile stays within the target, the other classes at
// theirs: found class by class in turn until none moves (at most four
// rounds). It sets n and each class's outstanding I/Os to its depth's, and
// notes each class's depth.
func classDepths(ctx context.Context, p *testbed.Profile, cells []*cell, n []float64) error {
	sh := cells[0].shape
	depth := make([]int, len(cells))
	at := func(c, d int) guestLoad {
		return guestLayout(p, cells[c].vms, cells[c].job, d, &cells[c].shape)
	}
	meets := func(c int) (bool, error) {
		sol, err := solveClasses(ctx, cells, n, nil)
		if err != nil {
			return false, err
		}
		cl := cells[c]
		seen := sol.seenBy(c, n)
		dirs, err := cl.directions(sol.W, seen, n[c], sol.X[c], sol.X[c], 0)
		if err != nil {
			return false, err
		}
		for dir, d := range dirs {
			if d.IOPS == 0 {
				continue
			}
			q, err := latencyQuantile(cl.st, sol.W, seen, dir, cl.z[dir], 1)
			if err != nil {
				return false, err
			}
			scale := d.LatMeanUs / 1e6 / (cl.z[dir] + sum(residence(cl.st, sol.W, seen, dir)))
			if q(math.Min(sh.latPct/100, 0.9999))*scale > sh.latTarget {
				return false, nil
			}
		}
		return true, nil
	}
	for c := range depth {
		depth[c] = sh.depth
	}
	for range 4 {
		moved := false
		for c := range cells {
			lo, hi := 1, sh.depth
			for lo < hi {
				mid := (lo + hi + 1) / 2
				n[c] = float64(at(c, mid).outstanding)
				if ok, err := meets(c); err != nil {
					return err
				} else if ok {
					lo = mid
				} else {
					hi = mid - 1
				}
			}
			moved = moved || lo != depth[c]
			depth[c] = lo
			n[c] = float64(at(c, lo).outstanding)
		}
		if !moved {
			break
		}
	}
	for c, cl := range cells {
		ok, err := meets(c)
		if err != nil {
			return err
		}
		verdict := "meets it"
		if !ok {
			verdict = "misses it even at depth 1"
		}
		g := at(c, depth[c])
		cl.g.outstanding, cl.g.fioOutstanding = g.outstanding, g.fioOutstanding
		cl.notes = append(cl.notes, fmt.Sprintf("latency_target %.0f us at p%g: the disks of class %d (%d) settle at iodepth %d of %d, which %s", sh.latTarget*1e6, sh.latPct, c+1, len(cl.job.Disks), depth[c], sh.depth, verdict))
	}
	return nil
}

// addLatencies adds d's latencies weighted by its I/Os to sum.
func addLatencies(sum *[5]float64, d Direction) {
	for j, v := range []float64{d.LatMeanUs, d.P50Us, d.P95Us, d.P99Us, d.P999Us} {
		sum[j] += d.IOPS * v
	}
}

// setLatencies sets each direction's latencies to the I/O-weighted means
// whose sums addLatencies made.
func setLatencies(dirs [2]*Direction, ios [2]float64, lat [2][5]float64) {
	for dir, d := range dirs {
		if ios[dir] > 0 {
			d.LatMeanUs, d.P50Us, d.P95Us, d.P99Us, d.P999Us = lat[dir][0]/ios[dir], lat[dir][1]/ios[dir], lat[dir][2]/ios[dir], lat[dir][3]/ios[dir], lat[dir][4]/ios[dir]
		}
	}
}

// buildNetwork builds the network of an input: every job's disks placed
// together, each job split into classes by where its load lands
// (splitClasses), the copies grouped into stations, and what events left
// of the cluster applied.
func buildNetwork(p *testbed.Profile, in Input, deferDestage bool, plan *classPlan) ([]*cell, *classPlan, error) {
	if err := in.check(); err != nil {
		return nil, nil, err
	}
	objects, err := placeInput(p, in)
	if err != nil {
		return nil, nil, err
	}
	jobs := make([]*cell, len(in.Jobs))
	for i, jl := range in.Jobs {
		if jobs[i], err = newCell(p, in, i, objects[i], deferDestage); err != nil {
			if jl.Name != "" && len(in.Jobs) > 1 {
				return nil, nil, fmt.Errorf("job %s: %w", jl.Name, err)
			}
			return nil, nil, err
		}
	}
	cells, plan := splitClasses(p, jobs, plan)
	if in.Degradation != nil {
		for _, c := range cells {
			if err := in.Degradation.apply(p, c); err != nil {
				return nil, nil, err
			}
		}
	}
	return cells, plan, nil
}

// classPlan is how the jobs of an input split into classes: per job, the
// disks of each class (nil for a job that is one class). It depends on the
// placement and the outstanding I/Os only, so OSA's burst and steady
// networks of one input share it.
type classPlan struct {
	classes [][][]int
}

// splitClasses splits each job into classes by where its load lands, and
// groups the copies of every class's stations (groupCopies). fio runs a
// job's disks each with its own outstanding I/Os, so disks whose load
// lands on busier copies run slower: on an uneven layout a job's disks on
// a less loaded host run ahead of those on the busiest. The disks are
// grouped by their DOM owner's host (where their guest and DOM work lands;
// the disks of VMs whose host is not known are one group), and groups that
// load the cluster alike (groupLoad: as many disks and outstanding I/Os,
// and the same work on the hosts they use, whichever hosts those are) are
// one class: where the layout is even every group is alike and the job
// stays one class, as it was; with five VMs on four hosts the host with
// two is one class and the three with one another. A class's disks share
// its I/Os evenly, as a job's did; with latency_target each class finds
// its own depth (classDepths).
//
// With a plan (see classPlan) the jobs split as it says, without comparing
// groups again. It returns the plan of the classes made.
func splitClasses(p *testbed.Profile, jobs []*cell, plan *classPlan) ([]*cell, *classPlan) {
	var threads, share, spinning []float64
	if len(jobs) > 1 {
		shareControllerQueues(p, jobs)
		threads, share = sharedThreads(jobs)
		spinning = sharedSpinning(jobs)
		for _, c := range jobs {
			c.shareThreads(threads, share, spinning)
		}
	}
	if plan == nil {
		plan = &classPlan{classes: make([][][]int, len(jobs))}
		for j, c := range jobs {
			plan.classes[j] = c.classesOf(p)
		}
	}
	var cells []*cell
	for j, c := range jobs {
		if plan.classes[j] == nil {
			cells = append(cells, c)
			continue
		}
		for _, disks := range plan.classes[j] {
			k := c.class(p, disks)
			if threads != nil {
				k.shareThreads(threads, share, spinning)
			}
			cells = append(cells, k)
		}
	}
	groupCopies(cells)
	return cells, plan
}

// classesOf compares the groups of job cell c's disks by owner host
// (splitClasses) and returns the disks of each class, nil where the job is
// one class.
func (c *cell) classesOf(p *testbed.Profile) [][]int {
	groups := ownerGroups(p.Hosts, c.objects)
	if len(groups) < 2 {
		return nil
	}
	var of [][]int // groups of each class
	var loads []groupLoad
	for g, disks := range groups {
		l := c.groupLoad(p, disks)
		at := slices.IndexFunc(loads, l.same)
		if at < 0 {
			of, loads = append(of, []int{g}), append(loads, l)
		} else {
			of[at] = append(of[at], g)
		}
	}
	if len(of) == 1 {
		return nil
	}
	var classes [][]int
	for _, cl := range of {
		var disks []int
		for _, g := range cl {
			disks = append(disks, groups[g]...)
		}
		slices.Sort(disks)
		classes = append(classes, disks)
	}
	return classes
}

// groupLoad is how a group of a job's disks loads the cluster: its disks
// and outstanding I/Os (admitted, fio's), the share of its I/Os of each
// kind of disk whose owner is not known, and per host the weights of each
// kind's cost parts there (hostWeights; the work of a host's devices is
// its host's), the hosts in a canonical order (sorted) so that groups
// that load different hosts alike compare equal. Every demand is linear in
// these, with the same costs for every group of a job.
type groupLoad struct {
	disks, outstanding, fio int
	evenly                  []float64
	hosts                   [][]float64
}

// groupLoad works out the load of the job's disks (indices into its
// disks).
func (c *cell) groupLoad(p *testbed.Profile, disks []int) groupLoad {
	l := groupLoad{disks: len(disks)}
	objs := make([]object, len(disks))
	kindOf := make([]int, len(disks))
	counted := make([]bool, len(c.vms))
	for i, d := range disks {
		objs[i], kindOf[i] = c.objects[d], c.kindOf[d]
		if v := c.job.Disks[d].VM; v < len(counted) && !counted[v] {
			counted[v] = true
			n := c.g.vmOutstanding[v]
			l.outstanding += n[0]
			l.fio += n[1]
		}
	}
	var w [][]hostWeight
	w, l.evenly = hostWeights(p.Hosts, objs, kindOf, len(c.costs), nil, 0)
	const per = 7 // numbers in a hostWeight
	flat := make([]float64, p.Hosts*len(w)*per)
	l.hosts = make([][]float64, p.Hosts)
	for h := range l.hosts {
		l.hosts[h] = flat[h*len(w)*per : (h+1)*len(w)*per]
		for k := range w {
			x := &w[k][h]
			copy(l.hosts[h][k*per:], []float64{x.owner, x.ownerNet[0], x.ownerNet[1], x.comp[0], x.comp[1], x.compNet[0], x.compNet[1]})
		}
	}
	slices.SortFunc(l.hosts, slices.Compare)
	return l
}

// same reports whether two groups load the cluster alike, within rounding.
func (l groupLoad) same(o groupLoad) bool {
	if l.disks != o.disks || l.outstanding != o.outstanding || l.fio != o.fio {
		return false
	}
	for k := range l.evenly {
		if !near(l.evenly[k], o.evenly[k]) {
			return false
		}
	}
	for h := range l.hosts {
		for q := range l.hosts[h] {
			if !near(l.hosts[h][q], o.hosts[h][q]) {
				return false
			}
		}
	}
	return true
}

// ownerGroups groups a job's disks (indices into objs) by their DOM
// owner's host, in the order of their first disks; the disks whose owner
// is not known are one group.
func ownerGroups(hosts int, objs []object) [][]int {
	at := make([]int, hosts+1) // group of owner h at h+1, plus 1; 0: none yet
	var groups [][]int
	for i, o := range objs {
		g := &at[o.owner+1]
		if *g == 0 {
			groups = append(groups, nil)
			*g = len(groups)
		}
		groups[*g-1] = append(groups[*g-1], i)
	}
	return groups
}

// class is the part of job cell c on its disks (indices into the job's):
// the same job on fewer disks, with their own outstanding I/Os, placed
// where those disks' objects are. The guest's threads per host stay the
// job's (they serve all its disks). The disks' owners must be known (so
// are their VMs): a class holds whole VMs, all of a VM's disks having its
// host as owner.
func (c *cell) class(p *testbed.Profile, disks []int) *cell {
	k := *c
	k.disks = disks
	k.job.Disks = make([]DiskLoad, len(disks))
	k.objects = make([]object, len(disks))
	k.kindOf = make([]int, len(disks))
	k.g.outstanding, k.g.fioOutstanding = 0, 0
	counted := make([]bool, len(c.vms))
	for i, d := range disks {
		k.job.Disks[i], k.objects[i], k.kindOf[i] = c.job.Disks[d], c.objects[d], c.kindOf[d]
		if v := c.job.Disks[d].VM; !counted[v] {
			counted[v] = true
			n := c.g.vmOutstanding[v]
			k.g.outstanding += n[0]
			k.g.fioOutstanding += n[1]
		}
	}
	k.g.notes = slices.Clip(c.g.notes)
	k.notes = slices.Clip(c.notes)
	k.st, k.hostCPU = nil, nil
	k.place(p, k.objects, k.kindOf)
	return &k
}

// shareControllerQueues lets concurrent jobs share their VMs' virtual
// controllers' queues: a disk's queue (lun) holds every job's I/Os on that
// disk, an adapter's every disk's, so beside other jobs on its disks a job
// is admitted its share of a full queue, in proportion to what fio keeps
// outstanding there, and the rest of its I/Os wait in the guest (alone,
// guestLayout's count). Each job's outstanding I/Os are set VM by VM, and
// a job held below what it had alone says so.
func shareControllerQueues(p *testbed.Profile, jobs []*cell) {
	type use struct {
		job         int
		outstanding float64
	}
	if len(jobs[0].vms) == 0 {
		return // the profile's layout: each job on VMs of its own
	}
	before := make([]int, len(jobs))
	for j, c := range jobs {
		before[j] = c.g.outstanding
	}
	for v := range jobs[0].vms {
		uses := map[string][]use{}
		var disks []string
		for j, c := range jobs {
			on := 0
			for _, d := range c.job.Disks {
				if d.VM == v {
					on++
				}
			}
			if on == 0 || v >= len(c.g.vmOutstanding) {
				continue
			}
			per := float64(c.g.vmOutstanding[v][1]) / float64(on)
			for i, d := range c.job.Disks {
				if d.VM != v {
					continue
				}
				name := d.Disk
				if name == "" { // a disk of its own
					name = fmt.Sprintf("%d/%d", j, i)
				}
				if _, ok := uses[name]; !ok {
					disks = append(disks, name)
				}
				uses[name] = append(uses[name], use{j, per})
			}
		}
		if len(disks) == 0 {
			continue
		}
		ctrl := jobs[0].vms[v].Controller
		if ctrl == "" {
			ctrl = p.Workers.Controller
		}
		lun, adapter := controllerQueues(&p.Model, ctrl)
		admitted := make([]float64, len(jobs))
		total := 0.0
		for _, name := range disks {
			queued := 0.0
			for _, u := range uses[name] {
				queued += u.outstanding
			}
			held := math.Min(1, float64(lun)/queued)
			for _, u := range uses[name] {
				admitted[u.job] += u.outstanding * held
				total += u.outstanding * held
			}
		}
		adapters := (len(disks) + maxDisksPerController - 1) / maxDisksPerController
		held := math.Min(1, float64(adapter*adapters)/total)
		for j, c := range jobs {
			if v >= len(c.g.vmOutstanding) || c.g.vmOutstanding[v][1] == 0 {
				continue
			}
			n := max(1, int(math.Floor(admitted[j]*held+1e-9)))
			c.g.outstanding += n - c.g.vmOutstanding[v][0]
			c.g.vmOutstanding[v][0] = n
		}
	}
	for j, c := range jobs {
		if c.g.outstanding < before[j] {
			c.g.notes = append(c.g.notes, fmt.Sprintf("beside the other jobs on its disks the virtual controllers' queues (each disk's and adapter's holding every job's I/Os) admit %d of its %d outstanding I/Os; the rest wait in the guest", c.g.outstanding, c.g.fioOutstanding))
		}
	}
}

// sharedThreads is the fio threads that can run at once on each host, all
// jobs together (at most the host's worker vCPUs, at least 1), and the
// share of its own threads each job runs at once there: all of them
// unless the jobs' threads together outnumber the vCPUs, which the guest's
// scheduler then shares alike.
func sharedThreads(jobs []*cell) (threads, share []float64) {
	threads = hostSums(jobs, func(g *guestLoad) []float64 { return g.hostThreads }, 1)
	share = make([]float64, len(threads))
	for h := range share {
		own := 0.0
		for _, c := range jobs {
			own += c.g.hostThreads[h]
		}
		share[h] = math.Min(1, threads[h]/own)
	}
	return threads, share
}

// sharedSpinning is the worker vCPUs polled I/O and fio's clock threads
// keep spinning on each host, all jobs together: a clock thread once a
// worker, whichever of its jobs ask for it; at most the host's worker
// vCPUs.
func sharedSpinning(jobs []*cell) []float64 {
	sums := hostSums(jobs, func(g *guestLoad) []float64 { return g.hostSpinning }, 0)
	clocks := map[int]bool{}
	var hostOf []int
	for _, c := range jobs {
		for _, v := range c.g.clockVMs {
			clocks[v], hostOf = true, c.g.vmHost
		}
	}
	for v := range clocks {
		onHost(sums, hostOf, v, 1)
	}
	for h := range sums {
		sums[h] = math.Min(sums[h], jobs[0].g.hostVCPUs[h])
	}
	return sums
}

// hostSums adds up a per-host figure of the jobs' guest sides (of), host
// by host, each sum within least and the host's worker vCPUs.
func hostSums(jobs []*cell, of func(g *guestLoad) []float64, least float64) []float64 {
	sums := make([]float64, len(jobs[0].g.hostVCPUs))
	for _, c := range jobs {
		for h, x := range of(&c.g) {
			sums[h] += x
		}
	}
	for h := range sums {
		sums[h] = math.Max(least, math.Min(sums[h], jobs[0].g.hostVCPUs[h]))
	}
	return sums
}

// shareThreads lets concurrent jobs' fio threads share the VMs' vCPUs and
// the hosts' cores, host by host: each job's guest is its own threads (a
// fio thread serves its own job's I/Os), their share of the vCPUs where
// all jobs' threads outnumber them, and the CPU counts them all runnable
// beside vSAN's worlds, less the hardware threads every job's spinning
// vCPUs hold.
func (c *cell) shareThreads(threads, share, spinning []float64) {
	for k := range c.copies {
		for h := range c.copies[k] {
			s := &c.copies[k][h]
			switch s.Name {
			case "guest":
				s.Servers = c.g.hostThreads[h] * share[h]
				if s.Servers < 1 { // under a vCPU's time: one thread, that much slower
					for dir := range s.D {
						s.D[dir] /= s.Servers
					}
					s.Servers = 1
				}
			case "cpu":
				worlds := s.Threads - c.g.hostThreads[h]
				s.Threads = threads[h] + worlds
				s.Servers, s.HWThreads, s.Held = c.pl.effCPU, c.pl.hwThr, 0
				s.hold(spinning[h], worlds, c.pl.effCPU)
			}
		}
	}
}
