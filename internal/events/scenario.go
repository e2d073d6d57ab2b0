package events

import (
	"context"
	"slices"
	"sort"

	"starbench/internal/fio"
)

// Scenario is a simulated measurement solved interval by interval: it
// sees the events so far and reports what it computed happened (resync,
// consolidation) as events of its own.
type Scenario interface {
	Step(ctx context.Context, t, dt float64, evs []fio.Event) ([]fio.Sample, []fio.Event, error)
	// AddWorkload runs a second workload from start to end seconds.
	AddWorkload(name string, workers []fio.Worker, job *fio.Job, start, end float64)
	Result() (*fio.Result, error)
}

// Logged steps a scenario with a log's events and adds to the log what the
// scenario reports.
type Logged struct {
	Scenario Scenario
	Log      *Log
}

var _ Stepper = Logged{}

// Step steps the scenario through one interval.
func (l Logged) Step(ctx context.Context, t, dt float64) ([]fio.Sample, error) {
	samples, evs, err := l.Scenario.Step(ctx, t, dt, l.Log.Events())
	for _, e := range evs {
		l.Log.AddAt(e.AtS, e.Kind, e.Target, e.Detail)
	}
	return samples, err
}

// Result is the scenario's whole measurement.
func (l Logged) Result(context.Context) (*fio.Result, error) { return l.Scenario.Result() }

// Merge adds x's rows, samples and notes to dst.
func Merge(dst, x *fio.Result) {
	dst.Rows = append(dst.Rows, x.Rows...)
	dst.Aggregate = append(dst.Aggregate, x.Aggregate...)
	dst.Samples = append(dst.Samples, x.Samples...)
	sort.SliceStable(dst.Samples, func(a, b int) bool { return dst.Samples[a].TS < dst.Samples[b].TS })
	for _, n := range x.Notes {
		if !slices.Contains(dst.Notes, n) {
			dst.Notes = append(dst.Notes, n)
		}
	}
}
