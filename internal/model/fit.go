package model

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"sync"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// FitFigures are one run's figures, measured or simulated: its I/Os a
// second, reads and writes together, their mean latency, its hosts' CPU %
// and vSAN's part of it (the performance service's vsan.cpu.usedPct), and
// the cores' worth of time the DOM's worlds and the LSOM's ran (its
// dom-world-cpu and lsom-world-cpu summed on a host), each the mean over
// every host. A measured figure of 0, but for the I/Os, was not measured.
type FitFigures struct {
	IOPS, LatUs, CPU, VSANCPU float64
	DOMBusy, LSOMBusy         float64
}

// figuresOf are out's figures on profile p: its I/Os, mean latency, and
// the hosts', vSAN's and vSAN's worlds' CPU, each the mean over every host.
func figuresOf(p *testbed.Profile, out *Output) FitFigures {
	dom, lsom := out.MeanBusyCores(p)
	return FitFigures{out.Read.IOPS + out.Write.IOPS, out.MeanLatencyUs(), out.MeanHostCPUPercent(), out.MeanVSANCPUPercent(), dom, lsom}
}

// RunFigures are the figures a run of in shows over its measurement where
// Solve gave out on profile p: for a lone job on OSA whose writes fill the
// disk groups' write buffers, from fill bytes in each as the run starts,
// the burst while they fill and the steady state after it, laid out in
// time as a Plane lays the run out (the I/Os and the CPU by their share of
// the measured time, the latency by their share of the I/Os); else the
// steady state's.
func RunFigures(p *testbed.Profile, in Input, out *Output, fill float64) FitFigures {
	steady := figuresOf(p, out)
	if out.Burst == nil || len(in.Jobs) != 1 || in.Jobs[0].Job == nil {
		return steady
	}
	jl := in.Jobs[0]
	disks := make([]fio.Disk, len(jl.Disks))
	for i, d := range jl.Disks {
		disks[i].SizeBytes = d.SizeBytes
	}
	buf := writeBuffer{fill}
	sp := layOut(p, &buf, out, jl.Job, disks)
	if !(sp.end > sp.ramp) || !(sp.burst > sp.ramp) {
		return steady
	}
	burst := figuresOf(p, out.Burst)
	share := math.Min(1, (sp.burst-sp.ramp)/(sp.end-sp.ramp)) // of the measured time at the burst's rates
	mix := func(b, s float64) float64 { return share*b + (1-share)*s }
	m := sp.measured()
	f := FitFigures{IOPS: m[read].IOPS + m[write].IOPS,
		CPU: mix(burst.CPU, steady.CPU), VSANCPU: mix(burst.VSANCPU, steady.VSANCPU),
		DOMBusy: mix(burst.DOMBusy, steady.DOMBusy), LSOMBusy: mix(burst.LSOMBusy, steady.LSOMBusy)}
	if f.IOPS > 0 {
		f.LatUs = (m[read].IOPS*m[read].LatMeanUs + m[write].IOPS*m[write].LatMeanUs) / f.IOPS
	}
	return f
}

// FitRun is one run measured on a real cluster that a fit compares the
// model with: the input the simulator solved for the same run of the same
// script (Plane's observer) and what the cluster measured. The I/Os are
// fitted, and the CPU, vSAN's CPU and its worlds' where measured: the I/Os
// fix each software ceiling only as worlds x cycles, the CPU fixes the
// cycles, vSAN's part of it tells vSAN's cycles from the guest's, and its
// DOM's and LSOM's worlds tell theirs from each other's and from the
// network's. The latency is fitted only where Held says a rate holds the
// run's I/Os (the simulated run's Output.RateLimited: its I/Os are the
// rate's, whatever the cluster's time per I/O); elsewhere the I/Os carry
// it (a closed loop's I/Os are its outstanding I/Os over its latency), so
// it is reported. The hosts' CPU is the model's over their idle CPU
// (host_idle_cpu_percent), as the simulator shows it. Each step lays
// the run out in time from BufferFill, the bytes in each OSA disk group's
// write buffer as the simulated run started (RunFigures: the burst while
// they fill follows the parameters), and Scale is what else the simulated
// run made of those figures, figure by figure (the simulated run's figure
// over RunFigures'; for the host CPU its part above idle: how the CPU's
// samples fell), held as it was while the parameters move; 0 is 1.
// Validation runs are solved with the parameters before and after, never
// fitted.
type FitRun struct {
	Name            string
	In              Input
	BufferFill      float64
	Measured, Scale FitFigures
	Held            bool
	Validation      bool
}

// fitted are the pairs of simulated (of x) and measured figures of r that
// a fit fits: its I/Os, its CPU, vSAN's and its worlds' where measured,
// and its latency where a rate holds it.
func (r FitRun) fitted(x FitFigures) [][2]float64 {
	pairs := [][2]float64{{x.IOPS, r.Measured.IOPS}}
	latency := 0.0
	if r.Held {
		latency = r.Measured.LatUs
	}
	for _, f := range [][2]float64{{x.CPU, r.Measured.CPU}, {x.VSANCPU, r.Measured.VSANCPU}, {x.DOMBusy, r.Measured.DOMBusy}, {x.LSOMBusy, r.Measured.LSOMBusy}, {x.LatUs, latency}} {
		if f[1] > 0 {
			pairs = append(pairs, f)
		}
	}
	return pairs
}

// FitOutcome is what a fit found: the parameters it set (JSON name to
// value), those asked for that no fit run's result moves (left as they
// were: the runs do not reach what they cost), and every run's simulated
// figures before and after.
type FitOutcome struct {
	Params        map[string]float64
	Unmoved       []string
	Before, After []FitFigures
	// The block sizes (bytes) and outstanding I/Os the fit runs span.
	MinBlock, MaxBlock             int64
	MinOutstanding, MaxOutstanding int
}

// fitRestarts is how many times at most a fit starts the simplex again
// from where it stopped.
const fitRestarts = 5

// fitRange is how far a fit may move a parameter either way: a factor of 16.
const fitRange = 16

// fitPrior weighs how far a fit moves each parameter from where it starts
// (its published or calibrated value) against the runs' errors: doubling
// a parameter costs what an error of 1 % on every fitted figure does.
// Real runs scatter by a few percent from repeat to repeat, and parameters
// the runs barely tell apart would otherwise wander by factors to follow
// that scatter (fitting a noisy simulated WWT matrix without it moved
// dom_byte_cycles by x0.08 and mixed_contention by x2.6 for 1.6 % against
// 1.0 % on the fitted runs, and nothing on those kept apart).
var fitPrior = math.Pow(0.01/math.Ln2, 2)

// Fit sets the parameters of p named (by their JSON names) so that the
// model's figures on the fit runs come closest to what was measured (the
// I/Os, the hosts', vSAN's and its worlds' CPU where measured, the latency
// where a rate holds the I/Os: FitRun.fitted): it minimises the mean over
// those figures of the squared logarithm of simulated / measured, so each
// relative error counts alike whatever its size, plus fitPrior times each
// parameter's squared logarithm of how far it moved, by Nelder-Mead over
// the parameters' logarithms, each within a factor of 16 of where it
// starts and within what a profile may hold. A parameter that moves none of those figures by
// 0.1 % when doubled is left as it is (Unmoved). p is not changed.
func Fit(ctx context.Context, p *testbed.Profile, runs []FitRun, names []string) (FitOutcome, error) {
	start := make([]float64, len(names))
	for i, name := range names {
		q, ok := p.Model.Lookup(name)
		if !ok {
			return FitOutcome{}, fmt.Errorf("no model parameter %q: want one of the names under model in a testbed profile, such as dom_io_cycles", name)
		}
		if !(q.Value > 0) {
			return FitOutcome{}, fmt.Errorf("model parameter %s is %g: a fit moves parameters by factors, so it wants one above 0", name, q.Value)
		}
		start[i] = q.Value
	}
	var fitting []int
	for i, r := range runs {
		if m := r.Measured.IOPS; !(m > 0) || math.IsInf(m, 0) {
			return FitOutcome{}, fmt.Errorf("run %s measured %g I/Os a second: want a finite number above 0", r.Name, m)
		}
		if l := r.Measured.LatUs; r.Held && (!(l >= 0) || math.IsInf(l, 0)) {
			return FitOutcome{}, fmt.Errorf("run %s measured a mean latency of %g us: want 0 (not measured) or a finite number above it", r.Name, l)
		}
		for _, c := range []struct {
			what string
			pct  float64
		}{{"host CPU", r.Measured.CPU}, {"vSAN CPU", r.Measured.VSANCPU}} {
			if !(c.pct >= 0 && c.pct <= 100) {
				return FitOutcome{}, fmt.Errorf("run %s measured %g %% %s: want 0 (not measured) up to 100", r.Name, c.pct, c.what)
			}
		}
		for _, c := range []struct {
			what  string
			cores float64
		}{{"DOM", r.Measured.DOMBusy}, {"LSOM", r.Measured.LSOMBusy}} {
			if !(c.cores >= 0) || math.IsInf(c.cores, 0) {
				return FitOutcome{}, fmt.Errorf("run %s measured its %s worlds busy %g cores: want 0 (not measured) or a finite number above it", r.Name, c.what, c.cores)
			}
		}
		if !r.Validation {
			fitting = append(fitting, i)
		}
	}
	if len(fitting) == 0 {
		return FitOutcome{}, fmt.Errorf("no run to fit on: every one of the %d runs is kept for validation", len(runs))
	}
	// profileAt is p with the named parameters at values.
	profileAt := func(values []float64) testbed.Profile {
		profile := *p // parameters are values: the copy changes them alone
		profile.Model.Each(func(n string, q *testbed.Param) {
			if i := slices.Index(names, n); i >= 0 {
				q.Value = values[i]
			}
		})
		return profile
	}
	ins := make([]Input, len(runs))
	for r := range runs {
		ins[r] = runs[r].In
	}
	same := firstOfEach(ins)
	// solveAt is the figures of the runs in which on profile, each
	// distinct input solved once.
	solveAt := func(profile testbed.Profile, which []int) ([]solvedRun, error) {
		distinct := map[int]bool{}
		var first []int
		for _, r := range which {
			if !distinct[same[r]] {
				distinct[same[r]] = true
				first = append(first, same[r])
			}
		}
		outs, errs := solveEach(ctx, &profile, ins, first)
		x := make([]solvedRun, len(runs))
		for _, r := range which {
			if err := errs[same[r]]; err != nil {
				return nil, fmt.Errorf("run %s: %w", runs[same[r]].Name, err)
			}
			out := outs[same[r]]
			f, s := RunFigures(&profile, runs[r].In, out, runs[r].BufferFill), runs[r].Scale
			f.IOPS *= cmp.Or(s.IOPS, 1)
			f.LatUs *= cmp.Or(s.LatUs, 1)
			f.CPU = profile.Model.HostIdleCPUPercent.Value + f.CPU*cmp.Or(s.CPU, 1)
			f.VSANCPU *= cmp.Or(s.VSANCPU, 1)
			f.DOMBusy *= cmp.Or(s.DOMBusy, 1)
			f.LSOMBusy *= cmp.Or(s.LSOMBusy, 1)
			x[r] = solvedRun{f, out.Outstanding}
		}
		return x, nil
	}
	all := make([]int, len(runs))
	for i := range all {
		all[i] = i
	}
	before, err := solveAt(profileAt(start), all)
	if err != nil {
		return FitOutcome{}, err
	}
	out := FitOutcome{Params: map[string]float64{}, MinBlock: math.MaxInt64, MinOutstanding: math.MaxInt}
	out.Before = figures(before)
	for _, r := range fitting {
		out.MinOutstanding, out.MaxOutstanding = min(out.MinOutstanding, before[r].outstanding), max(out.MaxOutstanding, before[r].outstanding)
		for _, jl := range runs[r].In.Jobs {
			sh, err := jl.shape()
			if err != nil {
				return FitOutcome{}, fmt.Errorf("run %s: %w", runs[r].Name, err)
			}
			for _, sizes := range sh.sizes {
				for _, s := range sizes {
					out.MinBlock, out.MaxBlock = min(out.MinBlock, s.size), max(out.MaxBlock, s.size)
				}
			}
		}
	}
	// Only what the fit runs feel is fitted.
	var free []int
	for i, name := range names {
		doubled := slices.Clone(start)
		doubled[i] *= 2
		x, err := solveAt(profileAt(doubled), fitting)
		if err != nil {
			return FitOutcome{}, err
		}
		moved := false
		for _, r := range fitting {
			was := runs[r].fitted(before[r].FitFigures)
			for k, pair := range runs[r].fitted(x[r].FitFigures) {
				moved = moved || math.Abs(pair[0]/was[k][0]-1) > 0.001
			}
		}
		if moved {
			free = append(free, i)
		} else {
			out.Unmoved = append(out.Unmoved, name)
		}
	}
	values := slices.Clone(start)
	if len(free) > 0 {
		at := func(logs []float64) []float64 {
			v := slices.Clone(start)
			for j, i := range free {
				v[i] = start[i] * math.Exp(logs[j])
			}
			return v
		}
		cost := func(logs []float64) (float64, error) {
			profile := profileAt(at(logs))
			if profile.Model.Check() != nil {
				return math.Inf(1), nil // a value the parameter cannot take (fewer worlds than 1)
			}
			x, err := solveAt(profile, fitting)
			if err != nil {
				return 0, err
			}
			sum, n := 0.0, 0
			add := func(simulated, measured float64) {
				e := math.Log(simulated / measured)
				sum += e * e
				n++
			}
			for _, r := range fitting {
				for _, pair := range runs[r].fitted(x[r].FitFigures) {
					add(pair[0], pair[1])
				}
			}
			sum /= float64(n)
			for _, l := range logs {
				sum += fitPrior * l * l
			}
			return sum, nil
		}
		// The simplex can stall on a ridge (parameters the runs trade for
		// each other, as worlds and cycles); started again from where it
		// stopped, with a fresh simplex, it goes on while that gains.
		best := make([]float64, len(free))
		bestCost, err := cost(best)
		if err != nil {
			return FitOutcome{}, err
		}
		for range fitRestarts {
			x, v, err := nelderMead(ctx, cost, best, math.Log(fitRange))
			if err != nil {
				return FitOutcome{}, err
			}
			gain := bestCost - v
			if gain > 0 {
				best, bestCost = x, v
			}
			if gain <= 1e-9 {
				break
			}
		}
		values = at(best)
		for _, i := range free {
			out.Params[names[i]] = values[i]
		}
	}
	after, err := solveAt(profileAt(values), all)
	if err != nil {
		return FitOutcome{}, err
	}
	out.After = figures(after)
	return out, nil
}

// firstOfEach is, for each input, the index of the first input equal to
// it: repeats of a run are one input, solved once.
func firstOfEach(ins []Input) []int {
	same := make([]int, len(ins))
	for i := range ins {
		same[i] = slices.IndexFunc(ins[:i+1], func(o Input) bool { return reflect.DeepEqual(o, ins[i]) })
	}
	return same
}

// solveEach solves ins[i] on profile for each i in which, side by side,
// one a core; the outputs and errors are by index into ins.
func solveEach(ctx context.Context, profile *testbed.Profile, ins []Input, which []int) ([]*Output, []error) {
	outs := make([]*Output, len(ins))
	errs := make([]error, len(ins))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				outs[i], errs[i] = Solve(ctx, profile, ins[i])
			}
		})
	}
	for _, i := range which {
		next <- i
	}
	close(next)
	wg.Wait()
	return outs, errs
}

// solvedRun is what a fit reads of one run's solve.
type solvedRun struct {
	FitFigures
	outstanding int
}

// figures are runs' figures without the rest.
func figures(x []solvedRun) []FitFigures {
	out := make([]FitFigures, len(x))
	for i, f := range x {
		out[i] = f.FitFigures
	}
	return out
}

// nelderMead minimises f over coordinates each within [-bound, bound],
// from the point from, and returns where it stopped and f there: the
// simplex method of Nelder and Mead (1965) with the usual coefficients
// (reflection 1, expansion 2, contraction 1/2, shrink 1/2), a first
// simplex a step of 0.5 from from along each axis. It
// stops when the simplex's values agree to 1e-9 and its points to 1e-4,
// or after 150 evaluations a coordinate.
func nelderMead(ctx context.Context, f func([]float64) (float64, error), from []float64, bound float64) ([]float64, float64, error) {
	dims := len(from)
	type vertex struct {
		x []float64
		v float64
	}
	eval := func(x []float64) (vertex, error) {
		for i := range x {
			x[i] = math.Max(-bound, math.Min(bound, x[i]))
		}
		v, err := f(x)
		return vertex{x, v}, err
	}
	simplex := make([]vertex, dims+1)
	for i := range simplex {
		x := slices.Clone(from)
		if i > 0 {
			x[i-1] += 0.5
		}
		var err error
		if simplex[i], err = eval(x); err != nil {
			return nil, 0, err
		}
	}
	along := func(from, to []float64, t float64) []float64 { // from + t (to - from)
		x := make([]float64, dims)
		for i := range x {
			x[i] = from[i] + t*(to[i]-from[i])
		}
		return x
	}
	for evals := dims + 1; evals < 150*dims; {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		sort.SliceStable(simplex, func(a, b int) bool { return simplex[a].v < simplex[b].v })
		best, worst := simplex[0], simplex[dims]
		size := 0.0
		for _, s := range simplex[1:] {
			for i := range s.x {
				size = math.Max(size, math.Abs(s.x[i]-best.x[i]))
			}
		}
		if worst.v-best.v <= 1e-9 && size <= 1e-4 {
			break
		}
		centroid := make([]float64, dims)
		for _, s := range simplex[:dims] {
			for i := range centroid {
				centroid[i] += s.x[i] / float64(dims)
			}
		}
		r, err := eval(along(centroid, worst.x, -1))
		evals++
		if err != nil {
			return nil, 0, err
		}
		switch {
		case r.v < best.v:
			e, err := eval(along(centroid, worst.x, -2))
			evals++
			if err != nil {
				return nil, 0, err
			}
			simplex[dims] = r
			if e.v < r.v {
				simplex[dims] = e
			}
		case r.v < simplex[dims-1].v:
			simplex[dims] = r
		default:
			c, err := eval(along(centroid, worst.x, 0.5))
			evals++
			if err != nil {
				return nil, 0, err
			}
			if c.v < worst.v {
				simplex[dims] = c
				continue
			}
			for k := 1; k <= dims; k++ {
				if simplex[k], err = eval(along(best.x, simplex[k].x, 0.5)); err != nil {
					return nil, 0, err
				}
				evals++
			}
		}
	}
	sort.SliceStable(simplex, func(a, b int) bool { return simplex[a].v < simplex[b].v })
	return simplex[0].x, simplex[0].v, nil
}
