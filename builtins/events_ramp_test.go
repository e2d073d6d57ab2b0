package builtins

import (
	"context"
	"slices"
	"testing"

	"go.starlark.net/starlark"

	"starbench/internal/fio"
)

// statusPlane reports fio's live status once a second for seconds, as the
// runner does from fio's start (ramp included); it stands in for fio
// because the test is about the events' time axis, not the I/O.
type statusPlane struct{ seconds int }

func (p statusPlane) Run(_ context.Context, _ []fio.Worker, _ *fio.Workload, progress func(fio.Status)) (*fio.Result, error) {
	for s := 1; s <= p.seconds; s++ {
		progress(fio.Status{Elapsed: s, IOPS: 100})
	}
	return &fio.Result{Aggregate: []fio.Row{{Direction: "read", IOPS: 100}}}, nil
}

func (statusPlane) Prepare(context.Context, []fio.Worker, fio.Prep, func(fio.Status)) error {
	return nil
}

// A measured run's live samples are on the measurement's axis, from the
// end of the job's ramp, and those of the ramp reach no condition: with a
// 2 s ramp, fio's status at 3, 4 and 5 s is the measurement's 1, 2 and 3 s.
func TestMeasuredLiveSamplesStartAfterTheRamp(t *testing.T) {
	sc := &scenario{thread: &starlark.Thread{}, plane: statusPlane{seconds: 5}}
	job := &fio.Job{Name: "r", RW: "randread", RampSec: 2, RuntimeSec: 3, TimeBased: true}
	var seen []float64
	if _, err := sc.measure(nil, job, 1)(context.Background(), func(s fio.Sample) { seen = append(seen, s.TS) }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, []float64{1, 2, 3}) {
		t.Errorf("conditions saw samples at %v s; want 1, 2 and 3 (fio's 3, 4 and 5, after its 2 s ramp)", seen)
	}
}
