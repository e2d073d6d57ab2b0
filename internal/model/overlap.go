package model

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
)

// stretch is a stretch of time in a run of concurrent jobs during which the
// same jobs run: one solve of them together.
type stretch struct {
	from, to float64 // seconds since the run began, ramps included
	out      *Output
	jobs     []int   // the run's jobs in this stretch, in out.Jobs' order
	burst    float64 // seconds from `from` at OSA's burst rate
}

// doneTolerance is how close to its whole length a job must have run to
// count as ended with the stretch (jobs ending together end together).
const doneTolerance = 1e-9

// overlap lays concurrent jobs out in time, first the cell of all of them
// (first, solved and scaled by the run's noise draw z, which the later
// stretches take too). Each job runs its
// own length, as fio runs it: its ramp and runtime when time based, or
// until it has moved its extent at the rates of the stretches it runs in.
// When one ends the others run on without it, solved again, faster where it
// held them back. exitall on any job ends them all when the first ends (fio
// 3.33: a job of runtime 1 s with exitall on its 3 s sibling only ends both
// at 1 s, and so does exitall in [global]). Jobs that all end together make
// one stretch, as a single solve. It moves OSA's write buffers on, stretch
// after stretch, and returns notes saying what ran alone.
func (pl *Plane) overlap(ctx context.Context, jobs []JobRun, first *Output, z float64) ([]stretch, []string, error) {
	exitAll := slices.ContainsFunc(jobs, func(j JobRun) bool {
		v := rawValue(j.Job, "exitall")
		return v != "" && v != "0"
	})
	active := make([]int, len(jobs))
	for i := range active {
		active[i] = i
	}
	done := make([]float64, len(jobs))
	out, t := first, 0.0
	var run []stretch
	var notes []string
	for len(active) > 0 {
		length := make([]float64, len(active))
		next := math.Inf(1)
		for k, i := range active {
			jo := out.Jobs[k]
			length[k] = float64(jobs[i].Job.RampSec) + runSeconds(jobs[i].Job, disksOf(jobs[i].Workers), jo.Read.MBps+jo.Write.MBps)
			if length[k] <= 0 {
				next = t // nothing bounds it (no throughput): it ends here
				continue
			}
			next = math.Min(next, t+(1-done[i])*length[k])
		}
		run = append(run, stretch{from: t, to: next, out: out, jobs: active})
		var left []int
		for k, i := range active {
			if length[k] > 0 {
				done[i] += (next - t) / length[k]
			}
			if length[k] > 0 && done[i] < 1-doneTolerance {
				left = append(left, i)
			}
		}
		if exitAll && len(left) > 0 {
			notes = append(notes, fmt.Sprintf("exitall: the first job to end stopped %s at %.4g s, as fio does", jobNames(jobs, left), next))
			break
		}
		t, active = next, left
		if len(active) == 0 {
			break
		}
		sub := make([]JobRun, len(active))
		for k, i := range active {
			sub[k] = jobs[i]
		}
		in, _, err := pl.workloadInput(ctx, sub)
		if err != nil {
			return nil, nil, err
		}
		if out, err = pl.solved.solve(ctx, pl.p, in); err != nil {
			return nil, nil, err
		}
		if pl.observe != nil {
			pl.observe(pl.p, in, *out)
		}
		pl.applyDraw(z, out, out.Burst)
		notes = append(notes, fmt.Sprintf("from %.4g s %s ran on without the jobs that had ended, solved again", t, jobNames(jobs, active)))
		for _, n := range out.Notes {
			if !slices.Contains(first.Notes, n) && !slices.Contains(notes, n) {
				notes = append(notes, n)
			}
		}
	}
	pl.mu.Lock()
	for s := range run {
		run[s].burst = bufferBurst(pl.p, &pl.buffer, run[s].out, run[s].to-run[s].from)
	}
	pl.mu.Unlock()
	return run, notes, nil
}

// jobNames names the run's jobs at indexes.
func jobNames(jobs []JobRun, indexes []int) string {
	names := make([]string, len(indexes))
	for k, i := range indexes {
		names[k] = jobs[i].Job.Name
	}
	return strings.Join(names, ", ")
}

// spanOf is job i's run in time over the stretches it ran in: in each, the
// burst's figures for its first burst seconds and the steady ones after.
func spanOf(run []stretch, i int, ramp float64) span {
	sp := span{ramp: ramp}
	for _, s := range run {
		k := slices.Index(s.jobs, i)
		if k < 0 {
			continue
		}
		burst := math.Min(s.burst, s.to-s.from)
		if burst > 0 && s.out.Burst != nil {
			b := s.out.Burst.Jobs[k]
			sp.phases = append(sp.phases, phase{s.from, s.from + burst, [2]Direction{b.Read, b.Write}})
			if s.from == 0 {
				sp.burst = burst
			}
		}
		if burst < s.to-s.from || s.to == s.from {
			sp.phases = append(sp.phases, phase{s.from + burst, s.to, [2]Direction{s.out.Jobs[k].Read, s.out.Jobs[k].Write}})
		}
		sp.end = s.to
	}
	return sp
}
