package model

import (
	"context"
	"fmt"
	"math"
	"slices"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// mixTolerance is how close solveSettled brings a settled read share to
// the point where a direction's rate stops binding, relative to the smaller
// of the two shares (a rate divided by that share caps the job).
const mixTolerance = 1e-4

// solveSettled solves the network as solveNetwork does, with each mixed
// job's read share where fio's rates settle it. fio hands a direction that
// is ahead of its rate to the other while that one is behind its own rate
// or has none (fio 3.33, io_u.c rate_ddir); while both are behind, the mix
// is rwmixread's. So a rate that binds one direction moves the mix towards
// the other until that one reaches its own rate too, or the cluster has no
// capacity left for it: randrw 70/30 at rate_iops=500 does 500 reads and
// 500 writes a second, at rate_iops=,100 100 writes and as many reads as
// the cluster carries beside them. The jobs are settled one after another,
// and passed over again while a settled mix moves another's capacity.
func solveSettled(ctx context.Context, p *testbed.Profile, in Input, deferDestage bool, plan *classPlan) (*Output, []*cell, *classPlan, error) {
	caps, err := mixedRates(in.Jobs)
	if err != nil {
		return nil, nil, nil, err
	}
	if caps == nil {
		return solveNetwork(ctx, p, in, deferDestage, plan)
	}
	settled := in
	settled.Jobs = slices.Clone(in.Jobs) // the caller's input stays as given
	var (
		out     *Output
		cells   []*cell
		outPlan *classPlan
	)
	solve := func() (*Output, error) {
		out, cells, outPlan, err = solveNetwork(ctx, p, settled, deferDestage, plan)
		return out, err
	}
	for range len(in.Jobs) + 1 {
		moved := false
		for j, c := range caps {
			if c == nil {
				continue
			}
			before := settled.Jobs[j].readShare
			if err := c.settle(&settled.Jobs[j], j, solve); err != nil {
				return nil, nil, nil, err
			}
			moved = moved || math.Abs(settled.Jobs[j].readShare-before) > mixTolerance*math.Min(before, 1-before)
		}
		if !moved || len(in.Jobs) == 1 { // alone, a job moves no other's capacity
			break
		}
	}
	if _, err := solve(); err != nil {
		return nil, nil, nil, err
	}
	for j, c := range caps {
		if c != nil && settled.Jobs[j].readShare != 0 {
			out.Notes = append(out.Notes, c.note(settled.Jobs[j]))
		}
	}
	markFree(out, caps)
	if out.Burst != nil {
		markFree(out.Burst, caps)
	}
	return out, cells, outPlan, nil
}

// markFree marks, for each rate-limited job with one direction at its rate
// and the other below its own (or without one), that other direction as
// free (JobOutput.Free): it is what the cluster carries beside the first's
// rate, so the run is not held as a whole. Both below their rates, the job
// is held by something else (a policy's IOPS limit).
func markFree(out *Output, caps []*jobRates) {
	held := true
	for j := range out.Jobs {
		jo := &out.Jobs[j]
		if c := caps[j]; c != nil && jo.RateLimited {
			below := [2]bool{jo.Read.IOPS < c.cap[read]*(1-1e-6), jo.Write.IOPS < c.cap[write]*(1-1e-6)}
			switch {
			case below[read] && !below[write]:
				jo.Free = "read"
			case below[write] && !below[read]:
				jo.Free = "write"
			}
		}
		held = held && jo.RateLimited && jo.Free == ""
	}
	out.RateLimited = held
}

// jobRates is what fio's rates allow one mixed job: per direction, its
// I/Os a second over all its disks and clones (+Inf where unlimited).
type jobRates struct {
	own  float64    // the read share rwmixread gives
	cap  [2]float64 // I/Os a second, over all the job's disks and clones
	free *fio.Job   // the job without its rates: what the cluster carries of it
}

// mixedRates reads every job's rates: nil for a job with one direction or
// without rates, and nil overall when no job is both mixed and rate-limited.
func mixedRates(jobs []JobLoad) ([]*jobRates, error) {
	var caps []*jobRates
	for j, jl := range jobs {
		sh, err := readJob(jl.Job)
		if err != nil {
			return nil, err
		}
		perClone := sh.directionCaps()
		if sh.fr <= 0 || sh.fr >= 1 || (math.IsInf(perClone[read], 1) && math.IsInf(perClone[write], 1)) {
			continue
		}
		if caps == nil {
			caps = make([]*jobRates, len(jobs))
		}
		clones := float64(len(jl.Disks) * max(jl.Job.NumJobs, 1))
		caps[j] = &jobRates{own: sh.fr, cap: [2]float64{clones * perClone[read], clones * perClone[write]}, free: withoutRates(jl.Job)}
	}
	return caps, nil
}

// withoutRates is a copy of job without fio's rate_iops and rate.
func withoutRates(job *fio.Job) *fio.Job {
	free := *job
	free.RateIOPS, free.RateBytes = 0, 0
	free.Options = slices.DeleteFunc(slices.Clone(job.Options), func(o fio.Option) bool { return o.Key == "rate_iops" || o.Key == "rate" })
	return &free
}

// settle finds the read share job j (jl) settles on, solving the network
// with solve at each share it tries, the job without its rates: what the
// cluster carries of it there. At rwmixread's own share the direction
// furthest past its rate binds first (if any does); the mix then moves
// towards the other direction, as far as the share where that one reaches
// its own rate too (both at their rates), or less where the cluster runs
// out of capacity first: the share nearest rwmixread's at which the bound
// direction still reaches its rate, found by bisection.
func (r *jobRates) settle(jl *JobLoad, j int, solve func() (*Output, error)) error {
	job := jl.Job
	defer func() { jl.Job = job }()
	jl.Job = r.free
	carried := func(f float64) ([2]float64, error) {
		jl.readShare = f
		out, err := solve()
		if err != nil {
			return [2]float64{}, err
		}
		return [2]float64{out.Jobs[j].Read.IOPS, out.Jobs[j].Write.IOPS}, nil
	}
	got, err := carried(0) // rwmixread's share
	if err != nil {
		return err
	}
	past := [2]float64{got[read] / r.cap[read], got[write] / r.cap[write]}
	bound := read
	if past[write] > past[read] {
		bound = write
	}
	jl.readShare = 0
	if past[bound] < 1 || past[read] == past[write] {
		return nil // neither rate binds, or both at once: fio's mix stands
	}
	both := r.cap[read] / (r.cap[read] + r.cap[write]) // both at their rates
	switch {
	case math.IsInf(r.cap[read], 1):
		both = 1
	case math.IsInf(r.cap[write], 1):
		both = 0
	}
	near, far := r.own, both // the bound direction reaches its rate at near
	reaches := func(f float64) (bool, error) {
		got, err := carried(f)
		return got[bound] >= r.cap[bound]*(1-1e-6), err
	}
	if far > 0 && far < 1 { // at 0 or 1 the bound direction does nothing
		if ok, err := reaches(far); err != nil || ok {
			jl.readShare = far
			return err
		}
	}
	for math.Abs(far-near) > mixTolerance*math.Min(near, 1-near) {
		mid := (near + far) / 2
		ok, err := reaches(mid)
		if err != nil {
			return err
		}
		if ok {
			near = mid
		} else {
			far = mid
		}
	}
	jl.readShare = near
	return nil
}

// note says where job jl's rates settled its mix.
func (r *jobRates) note(jl JobLoad) string {
	name := ""
	if jl.Name != "" {
		name = jl.Name + ": "
	}
	return fmt.Sprintf("%sthe rates move the %.0f/%.0f mix to %.1f/%.1f: fio hands a direction ahead of its rate to the other while that one is behind its own (or has none)",
		name, 100*r.own, 100*(1-r.own), 100*jl.readShare, 100*(1-jl.readShare))
}
