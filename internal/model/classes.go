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

// solveJobs solves several concurrent jobs as classes of one network: each
// job's costs from its own disks and options, one guest side and one CPU
// for all of them.
func solveJobs(ctx context.Context, p *testbed.Profile, in Input, deferDestage bool) (*Output, []*cell, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if err := in.check(); err != nil {
		return nil, nil, err
	}
	cells := make([]*cell, len(in.Jobs))
	n := make([]int, len(in.Jobs))
	threads := make([]float64, p.Hosts) // fio threads per host, all jobs together
	objects, err := placeInput(p, in)
	if err != nil {
		return nil, nil, err
	}
	for i, jl := range in.Jobs {
		c, err := newCell(p, in, i, objects[i], deferDestage)
		if err != nil {
			if jl.Name != "" {
				return nil, nil, fmt.Errorf("job %s: %w", jl.Name, err)
			}
			return nil, nil, err
		}
		cells[i], n[i] = c, c.g.outstanding
		for h, t := range c.g.hostThreads {
			threads[h] += t
		}
		if c.shape.latTarget > 0 {
			c.notes = append(c.notes, "latency_target is not applied to a job running beside others: run at its iodepth")
		}
	}
	// The jobs' fio threads share the VMs' vCPUs and the hosts' cores, host
	// by host.
	for h := range threads {
		threads[h] = math.Max(1, math.Min(threads[h], cells[0].g.hostVCPUs[h]))
	}
	for _, c := range cells {
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
	if err := finishCells(p, in.Degradation, cells); err != nil {
		return nil, nil, err
	}
	sol, err := solveClasses(ctx, cells, n)
	if err != nil {
		return nil, nil, err
	}
	// fio's rates cap each job: a job above its cap runs with fewer
	// outstanding I/Os, the smallest number that reaches it.
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

	out := &Output{Profile: p.Name, Version: Version, RDMA: cells[0].rdma}
	var ios [2]float64
	var lat [2][5]float64
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
		out.Jobs = append(out.Jobs, JobOutput{Name: c.job.Name, Outstanding: c.g.fioOutstanding, Read: dirs[read], Write: dirs[write]})
		out.Outstanding += c.g.fioOutstanding
		for dir, d := range dirs {
			total := [2]*Direction{&out.Read, &out.Write}[dir]
			total.IOPS += d.IOPS
			total.MBps += d.MBps
			ios[dir] += d.IOPS
			for j, v := range []float64{d.LatMeanUs, d.P50Us, d.P95Us, d.P99Us, d.P999Us} {
				lat[dir][j] += d.IOPS * v
			}
		}
		for _, note := range slices.Concat(c.notes, c.g.notes) {
			if !slices.Contains(out.Notes, note) {
				out.Notes = append(out.Notes, note)
			}
		}
	}
	// All jobs together: latencies (percentiles too) weighted by I/Os.
	for dir, d := range [2]*Direction{&out.Read, &out.Write} {
		if ios[dir] > 0 {
			d.LatMeanUs, d.P50Us, d.P95Us, d.P99Us, d.P999Us = lat[dir][0]/ios[dir], lat[dir][1]/ios[dir], lat[dir][2]/ios[dir], lat[dir][3]/ios[dir], lat[dir][4]/ios[dir]
		}
	}
	out.Notes = append(out.Notes, fmt.Sprintf("%d concurrent jobs solved as classes of one network; the jobs together: latencies (percentiles too) are the I/O-weighted mean of the jobs'", len(cells)))
	u := make([]float64, len(cells[0].st))
	for k := range u {
		for i, c := range cells {
			cs := &c.st[k]
			u[k] += sol.X[i] * (c.fr*cs.demandAt(read, sol.W[k]) + (1-c.fr)*cs.demandAt(write, sol.W[k])) / cs.Servers
		}
	}
	out.addStations(cells[0].st, sol.W, u)
	out.HostCPUPercent = hostPercent(cells[0].hostCPU, u)
	var sizes [2][]sizeShare
	for _, c := range cells {
		sizes[read] = append(sizes[read], c.sizes[read]...)
		sizes[write] = append(sizes[write], c.sizes[write]...)
	}
	out.Notes = append(out.Notes, rangeNotes(p, out.Outstanding, sizes)...)
	return out, cells, nil
}
