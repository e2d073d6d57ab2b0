package model

import (
	"context"
	"fmt"
	"math"
	"slices"

	"starbench/internal/testbed"
)

// classSolution is a network of several classes (concurrent jobs) at
// their populations: per class throughput and queue at one copy of each
// station, and the stations' shared wait shares.
type classSolution struct {
	X []float64
	Q [][]float64
	W []float64
}

// seenBy is the queue an I/O of class c sees at each station: everyone's
// but itself (Bard-Schweitzer).
func (s classSolution) seenBy(c int, n []int) []float64 {
	q := make([]float64, len(s.W))
	for k := range q {
		for d := range s.Q {
			q[k] += s.Q[d][k]
		}
		q[k] -= s.Q[c][k] / float64(n[c])
	}
	return q
}

// solveClasses solves concurrent jobs as classes of one closed network by
// Bard-Schweitzer's multi-class approximation: every class has its own
// demands at the same stations (built from its own costs) and its own
// population; they queue together, and a load-dependent station's wait
// share follows everyone's queue (damped).
func solveClasses(ctx context.Context, cells []*cell, n []int) (classSolution, error) {
	C, K := len(cells), len(cells[0].st)
	ms := make([]*mixed, C)
	total := 0
	for c, cl := range cells {
		if err := checkStations(cl.st, cl.zMix+cl.shape.think); err != nil {
			return classSolution{}, err
		}
		if n[c] < 1 {
			return classSolution{}, fmt.Errorf("job %d: %d outstanding I/Os: want at least 1", c+1, n[c])
		}
		ms[c] = mix(cl.st, cl.fr, cl.zMix+cl.shape.think)
		total += n[c]
	}
	sol := classSolution{X: make([]float64, C), Q: make([][]float64, C), W: make([]float64, K)}
	for c := range cells {
		sol.Q[c] = make([]float64, K)
		sum := 0.0
		for k := range K {
			sum += float64(cells[c].st[k].Copies) * ms[c].dq[k]
		}
		for k := range K {
			if sum > 0 {
				sol.Q[c][k] = float64(n[c]) * ms[c].dq[k] / sum
			}
		}
	}
	ld := ms[0].ld
	qk := make([]float64, K)
	for it := range 2000 {
		if it%16 == 0 {
			if err := ctx.Err(); err != nil {
				return classSolution{}, err
			}
		}
		for k := range K {
			qk[k] = 0
			for c := range C {
				qk[k] += sol.Q[c][k]
			}
		}
		for _, k := range ld {
			s := &cells[0].st[k]
			present := qk[k]
			for c := range C {
				present += sol.X[c] * ms[c].full[k] * (s.Servers - 1) / s.Servers
			}
			w := s.waitShare(present)
			if it > 0 {
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
			}
			for k := range K {
				a := qk[k] - sol.Q[c][k]/float64(n[c])
				r += float64(cells[c].st[k].Copies) * (m.dq[k] + sol.W[k]*m.extraQ[k]) * (1 + a)
			}
			sol.X[c] = float64(n[c]) / r
			for k := range K {
				a := qk[k] - sol.Q[c][k]/float64(n[c])
				next := sol.X[c] * (m.dq[k] + sol.W[k]*m.extraQ[k]) * (1 + a)
				delta = math.Max(delta, math.Abs(next-sol.Q[c][k]))
				sol.Q[c][k] = next
			}
		}
		if !(delta >= 1e-7*float64(total)) { // converged, or NaN: refused below
			break
		}
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

// solveJobs builds the network of an input (buildNetwork) and solves it:
// one class alone as one closed network (solveCell), several (concurrent
// jobs, or a job whose disks split by where their load lands) by
// Bard-Schweitzer's multi-class approximation. It returns the classes
// solved, each with its result.
func solveJobs(ctx context.Context, p *testbed.Profile, in Input, deferDestage bool) (*Output, []*cell, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	cells, err := buildNetwork(p, in, deferDestage)
	if err != nil {
		return nil, nil, err
	}
	if len(cells) == 1 {
		out, err := solveCell(ctx, p, in, cells[0])
		return out, cells, err
	}
	n := make([]int, len(cells))
	for i, c := range cells {
		n[i] = c.g.outstanding
		if c.shape.latTarget > 0 {
			c.notes = append(c.notes, "latency_target is not applied to a job running beside others: run at its iodepth")
		}
	}
	sol, err := solveClasses(ctx, cells, n)
	if err != nil {
		return nil, nil, err
	}
	// fio's rates cap each job (clone): a class above its disks' cap runs
	// with fewer outstanding I/Os, the smallest number that reaches it.
	for i, c := range cells {
		limit := float64(len(c.job.Disks)*max(c.job.Job.NumJobs, 1)) * c.rateLimit()
		if sol.X[i] <= limit {
			continue
		}
		lo, hi := 1, n[i]
		for lo < hi {
			mid := (lo + hi) / 2
			n[i] = mid
			s, err := solveClasses(ctx, cells, n)
			if err != nil {
				return nil, nil, err
			}
			if s.X[i] >= limit {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		n[i] = lo
		if sol, err = solveClasses(ctx, cells, n); err != nil {
			return nil, nil, err
		}
	}

	out := &Output{Profile: p.Name, Version: Version, RDMA: cells[0].rdma, Jobs: make([]JobOutput, len(in.Jobs))}
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
	for i, c := range cells {
		limit := float64(len(c.job.Disks)*max(c.job.Job.NumJobs, 1)) * c.rateLimit()
		x := math.Min(sol.X[i], limit)
		guestWait := 0.0
		if x == sol.X[i] && c.g.fioOutstanding > n[i] {
			guestWait = float64(c.g.fioOutstanding-n[i]) / sol.X[i]
		}
		dirs, err := c.directions(sol.W, sol.seenBy(i, n), n[i], sol.X[i], x, guestWait)
		if err != nil {
			return nil, nil, err
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
		for _, note := range slices.Concat(c.notes, c.g.notes) {
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
	u := make([]float64, len(cells[0].st))
	for k := range u {
		for i, c := range cells {
			cs := &c.st[k]
			u[k] += sol.X[i] * (c.fr*cs.demandAt(read, sol.W[k]) + (1-c.fr)*cs.demandAt(write, sol.W[k])) / cs.Servers
		}
	}
	out.addStations(cells[0].st, sol.W, u)
	out.HostCPUPercent = hostPercent(cells[0].hostCPU, u)
	out.Notes = append(out.Notes, rangeNotes(p, out.Outstanding, sizes)...)
	return out, cells, nil
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
func buildNetwork(p *testbed.Profile, in Input, deferDestage bool) ([]*cell, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	objects, err := placeInput(p, in)
	if err != nil {
		return nil, err
	}
	jobs := make([]*cell, len(in.Jobs))
	for i, jl := range in.Jobs {
		if jobs[i], err = newCell(p, in, i, objects[i], deferDestage); err != nil {
			if jl.Name != "" && len(in.Jobs) > 1 {
				return nil, fmt.Errorf("job %s: %w", jl.Name, err)
			}
			return nil, err
		}
	}
	cells := splitClasses(p, jobs)
	if in.Degradation != nil {
		for _, c := range cells {
			if err := in.Degradation.apply(p, c); err != nil {
				return nil, err
			}
		}
	}
	return cells, nil
}

// splitClasses splits each job into classes by where its load lands, and
// groups the copies of every class's stations (groupCopies). fio runs a
// job's disks each with its own outstanding I/Os, so disks whose load
// lands on different copies run at different rates: on an uneven layout a
// job's disks on a less loaded host run ahead of those on the busiest.
// The disks are grouped by their DOM owner's host (where their guest and
// DOM work lands; the disks of VMs whose host is not known are one group),
// and groups are one class while their demands at every station (the
// mean of its copies) and their outstanding I/Os per disk are the same:
// where the layout is even every group is the same at every station and
// the job stays one class, as it was. Classes are split, and the copies
// regrouped for them, until both hold. A job alone with latency_target
// stays one class (its depth search is single-class; noted where the
// layout is uneven).
func splitClasses(p *testbed.Profile, jobs []*cell) []*cell {
	var threads []float64
	if len(jobs) > 1 {
		threads = sharedThreads(jobs)
		for _, c := range jobs {
			c.shareThreads(threads)
		}
	}
	cells := jobs
	groups := make([][][]int, len(jobs))  // per job: the disks of each owner's group
	classes := make([][][]int, len(jobs)) // per job: the groups of each class
	fine := make([][]*cell, len(jobs))    // per job: each group as a class, to compare
	for j, c := range jobs {
		groups[j] = ownerGroups(c.objects)
		all := make([]int, len(groups[j]))
		for g := range all {
			all[g] = g
		}
		classes[j] = [][]int{all}
	}
	for {
		blocks := groupCopies(cells)
		split := false
		for j, c := range jobs {
			if len(groups[j]) < 2 {
				continue
			}
			if fine[j] == nil {
				for _, disks := range groups[j] {
					fine[j] = append(fine[j], c.class(p, disks))
				}
			}
			var parts [][]int
			for _, cl := range classes[j] {
				var by [][]int
				for _, g := range cl {
					at := slices.IndexFunc(by, func(b []int) bool { return sameLoad(fine[j][b[0]], fine[j][g], blocks) })
					if at < 0 {
						by = append(by, []int{g})
					} else {
						by[at] = append(by[at], g)
					}
				}
				parts = append(parts, by...)
			}
			if len(parts) > len(classes[j]) && c.shape.latTarget > 0 && len(jobs) == 1 {
				c.notes = append(c.notes, "latency_target on an uneven layout: the job's disks are solved as one class, so the busiest host paces them all (a lower bound)")
				continue
			}
			split = split || len(parts) > len(classes[j])
			classes[j] = parts
		}
		if !split {
			return cells
		}
		cells = nil
		for j, c := range jobs {
			for _, cl := range classes[j] {
				if len(cl) == len(groups[j]) {
					cells = append(cells, c)
					continue
				}
				var disks []int
				for _, g := range cl {
					disks = append(disks, groups[j][g]...)
				}
				slices.Sort(disks)
				k := c.class(p, disks)
				if threads != nil {
					k.shareThreads(threads)
				}
				cells = append(cells, k)
			}
		}
	}
}

// ownerGroups groups a job's disks (indices into objs) by their DOM
// owner's host, in the order of their first disks; the disks whose owner
// is not known are one group.
func ownerGroups(objs []object) [][]int {
	var owners []int
	var groups [][]int
	for i, o := range objs {
		g := slices.Index(owners, o.owner)
		if g < 0 {
			g = len(owners)
			owners = append(owners, o.owner)
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

// class is the part of job cell c on its disks (indices into the job's):
// the same job on fewer disks, with their own outstanding I/Os, placed
// where those disks' objects are. The guest's threads per host stay the
// job's (they serve all its disks).
func (c *cell) class(p *testbed.Profile, disks []int) *cell {
	k := *c
	k.job.Disks = make([]DiskLoad, len(disks))
	k.objects = make([]object, len(disks))
	k.kindOf = make([]int, len(disks))
	for i, d := range disks {
		k.job.Disks[i], k.objects[i], k.kindOf[i] = c.job.Disks[d], c.objects[d], c.kindOf[d]
	}
	g := guestLayout(p, c.vms, k.job, c.shape.depth)
	k.g.outstanding, k.g.fioOutstanding = g.outstanding, g.fioOutstanding
	k.g.notes = slices.Clip(c.g.notes)
	k.notes = slices.Clip(c.notes)
	k.st, k.hostCPU = nil, nil
	k.place(p, k.objects, k.kindOf)
	return &k
}

// sameLoad reports whether two groups of a job's disks (each as a class)
// load the network alike: the same outstanding I/Os per disk, the same
// fixed delays and, at every station (blocks: per kind, the copies of each
// station), the same demand over its copies, within rounding.
func sameLoad(a, b *cell, blocks [][][]int) bool {
	if a.g.outstanding*len(b.job.Disks) != b.g.outstanding*len(a.job.Disks) {
		return false
	}
	dirs := a.directionsRun()
	for _, dir := range dirs {
		if !near(a.z[dir], b.z[dir]) {
			return false
		}
	}
	for k, groups := range blocks {
		for _, g := range groups {
			var sa, sb [3][2]float64 // D, Extra, Busy over the copies
			for _, i := range g {
				for _, x := range []struct {
					s   *station
					sum *[3][2]float64
				}{{&a.copies[k][i], &sa}, {&b.copies[k][i], &sb}} {
					for dir := range 2 {
						x.sum[0][dir] += x.s.D[dir]
						x.sum[1][dir] += x.s.Extra[dir]
						if x.s.Busy != nil {
							x.sum[2][dir] += x.s.Busy[dir]
						}
					}
				}
			}
			for _, dir := range dirs {
				for q := range sa {
					if !near(sa[q][dir], sb[q][dir]) {
						return false
					}
				}
			}
		}
	}
	return true
}

// sharedThreads is the fio threads that can run at once on each host, all
// jobs together: at most the host's worker vCPUs, at least 1.
func sharedThreads(jobs []*cell) []float64 {
	threads := make([]float64, len(jobs[0].g.hostThreads))
	for _, c := range jobs {
		for h, t := range c.g.hostThreads {
			threads[h] += t
		}
	}
	for h := range threads {
		threads[h] = math.Max(1, math.Min(threads[h], jobs[0].g.hostVCPUs[h]))
	}
	return threads
}

// shareThreads lets concurrent jobs' fio threads share the VMs' vCPUs and
// the hosts' cores, host by host: the guest serves threads, and the CPU
// counts them all runnable beside vSAN's worlds.
func (c *cell) shareThreads(threads []float64) {
	for k := range c.copies {
		for h := range c.copies[k] {
			s := &c.copies[k][h]
			switch s.Name {
			case "guest":
				s.Servers = threads[h]
			case "cpu":
				s.Threads += threads[h] - c.g.hostThreads[h]
			}
		}
	}
}
