package model

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"starbench/internal/testbed"
)

// AnswerRun is one simulated run whose answer Elasticities follows: its
// input, and the bytes in each OSA disk group's write buffer as it
// started (RunFigures lays the run out in time from them).
type AnswerRun struct {
	Name       string
	In         Input
	BufferFill float64
}

// Sensitivity is how each run's answer moves with each model parameter.
// A run's answer is its I/Os a second, or its mean latency where a rate
// holds its I/Os (the rate's I/Os do not move). Of[r][k] is run r's
// elasticity to parameter k, d ln(answer) / d ln(parameter): +1, the
// answer grows in proportion; -1, in inverse proportion; 0, unmoved.
type Sensitivity struct {
	Runs    []string        // the runs' names
	Names   []string        // the parameters' JSON names, in the order a profile lists them
	Params  []testbed.Param // their values and sources, by Names
	Answers []float64       // by run, on the profile as it is
	Latency []bool          // by run: its answer is its mean latency (a rate holds it)
	Of      [][]float64
}

// Elasticities moves each model parameter of p above 0 a factor step
// (more than 1) up and down, one at a time, solves every run at both, and
// returns each run's elasticity to each parameter by central differences
// in the logarithms; where a move takes a parameter past what a profile
// may hold (an efficiency above 1), the difference is one-sided from p's
// own value. Parameters at 0 are left out: a factor does not move them.
// Runs with the same input are solved once. p is not changed.
func Elasticities(ctx context.Context, p *testbed.Profile, runs []AnswerRun, step float64) (Sensitivity, error) {
	return elasticities(ctx, p, runs, step, runAnswer)
}

// answerFunc is a run's answer where Solve gave out on profile, and
// whether it is a latency.
type answerFunc func(profile *testbed.Profile, run AnswerRun, out *Output) (float64, bool)

// runAnswer is a run's I/Os a second as the run lays them out in time
// (RunFigures), or its mean latency where a rate holds them.
func runAnswer(profile *testbed.Profile, run AnswerRun, out *Output) (float64, bool) {
	f := RunFigures(profile, run.In, out, run.BufferFill)
	if out.RateLimited {
		return f.LatUs, true
	}
	return f.IOPS, false
}

// elasticities is Elasticities with the runs' answers given by answer.
func elasticities(ctx context.Context, p *testbed.Profile, runs []AnswerRun, step float64, answer answerFunc) (Sensitivity, error) {
	if !(step > 1) || math.IsInf(step, 0) {
		return Sensitivity{}, fmt.Errorf("a step of %g: want a factor above 1, such as 1.1", step)
	}
	ins := make([]Input, len(runs))
	for r := range runs {
		ins[r] = runs[r].In
	}
	same := firstOfEach(ins) // the first run with each run's input
	var first []int
	for r := range runs {
		if same[r] == r {
			first = append(first, r)
		}
	}
	// answers are the runs' answers on profile, and which are latencies.
	answers := func(profile *testbed.Profile) ([]float64, []bool, error) {
		outs, errs := solveEach(ctx, profile, ins, first)
		a, latency := make([]float64, len(runs)), make([]bool, len(runs))
		for r := range runs {
			if err := errs[same[r]]; err != nil {
				return nil, nil, fmt.Errorf("run %s: %w", runs[same[r]].Name, err)
			}
			a[r], latency[r] = answer(profile, runs[r], outs[same[r]])
			if !(a[r] > 0) || math.IsInf(a[r], 0) {
				return nil, nil, fmt.Errorf("run %s: an answer of %g, which has no logarithm", runs[r].Name, a[r])
			}
		}
		return a, latency, nil
	}
	base, latency, err := answers(p)
	if err != nil {
		return Sensitivity{}, err
	}
	s := Sensitivity{Answers: base, Latency: latency, Of: make([][]float64, len(runs))}
	for _, r := range runs {
		s.Runs = append(s.Runs, r.Name)
	}
	p.Model.Each(func(name string, q *testbed.Param) {
		if q.Value > 0 {
			s.Names, s.Params = append(s.Names, name), append(s.Params, *q)
		}
	})
	for k, name := range s.Names {
		// side is the answers with the parameter a factor f from p's, or
		// p's own where the profile cannot hold the moved value.
		side := func(f float64) ([]float64, float64, error) {
			profile := *p // parameters are values: the copy changes them alone
			profile.Model.Each(func(n string, q *testbed.Param) {
				if n == name {
					q.Value *= f
				}
			})
			if profile.Model.Check() != nil {
				return base, 1, nil
			}
			a, _, err := answers(&profile)
			return a, f, err
		}
		up, fUp, err := side(step)
		if err != nil {
			return Sensitivity{}, err
		}
		down, fDown, err := side(1 / step)
		if err != nil {
			return Sensitivity{}, err
		}
		if fUp == fDown {
			return Sensitivity{}, fmt.Errorf("model parameter %s at %g cannot move a factor %g either way and stay what a profile may hold", name, s.Params[k].Value, step)
		}
		for r := range runs {
			s.Of[r] = append(s.Of[r], math.Log(up[r]/down[r])/math.Log(fUp/fDown))
		}
	}
	return s, nil
}

// Top is the parameters (indices into Names) run r's answer moves with
// most, largest elasticity first, at most n of them and each at least
// least in size.
func (s Sensitivity) Top(r, n int, least float64) []int {
	ks := make([]int, len(s.Names))
	for k := range ks {
		ks[k] = k
	}
	e := s.Of[r]
	slices.SortStableFunc(ks, func(a, b int) int { return cmp.Compare(math.Abs(e[b]), math.Abs(e[a])) })
	var top []int
	for _, k := range ks[:min(n, len(ks))] {
		if math.Abs(e[k]) >= least {
			top = append(top, k)
		}
	}
	return top
}
