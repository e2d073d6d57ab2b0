package events

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"starbench/internal/fio"
)

// countingStepper reports, per interval, IOPS that drop to 100 once the log
// holds a "host_failure": the shape of a degraded period, with no model.
type countingStepper struct {
	log       *Log
	intervals [][2]float64
}

func (s *countingStepper) Step(_ context.Context, t, dt float64) ([]fio.Sample, error) {
	s.intervals = append(s.intervals, [2]float64{t, dt})
	iops := 1000.0
	for _, e := range s.log.Events() {
		if e.Kind == "host_failure" {
			iops = 100
		}
		if e.Kind == "host_return" {
			iops = 1000
		}
	}
	return []fio.Sample{{Direction: "read", TS: t + dt, IOPS: iops}}, nil
}

func (s *countingStepper) Result(context.Context) (*fio.Result, error) {
	return &fio.Result{Simulated: true}, nil
}

func TestSteppedEventsFireAtTheirTimesAfterOthersAndOnConditions(t *testing.T) {
	clock := &VirtualClock{}
	log := NewLog(clock.Now)
	var order []string
	act := func(name, kind string) func(context.Context) error {
		return func(context.Context) error {
			order = append(order, fmt.Sprintf("%s@%g", name, clock.Now()))
			if kind != "" {
				log.Add(kind, "esx-03", "")
			}
			return nil
		}
	}
	tl, err := NewTimeline([]Event{
		{Name: "fail", At: 25, After: -1, Do: act("fail", "host_failure")},
		{Name: "back", After: 0, Delay: 40, Do: act("back", "host_return")},
		{Name: "slow", After: -1, When: func(s fio.Sample) (bool, error) { return s.IOPS < 500, nil }, Do: act("slow", "")},
		{Name: "late", At: 500, After: -1, Do: act("late", "")},
	})
	if err != nil {
		t.Fatal(err)
	}
	st := &countingStepper{log: log}
	if _, err := RunStepped(context.Background(), tl, clock, st, 0, 100, 10); err != nil {
		t.Fatal(err)
	}
	if want := []string{"fail@25", "slow@30", "back@65"}; !slices.Equal(order, want) {
		t.Errorf("fired %v, want %v", order, want)
	}
	if got := tl.Unfired(); !slices.Equal(got, []string{"late"}) {
		t.Errorf("unfired %v, want [late]", got)
	}
	// The interval holding an event ends at the event; the next ones keep
	// to the 10 s grid.
	var starts []float64
	for _, iv := range st.intervals {
		starts = append(starts, iv[0])
	}
	if want := []float64{0, 10, 20, 25, 30, 40, 50, 60, 65, 70, 80, 90}; !slices.Equal(starts, want) {
		t.Errorf("intervals start at %v, want %v", starts, want)
	}
	evs := log.Events()
	if len(evs) != 2 || evs[0].AtS != 25 || evs[1].AtS != 65 {
		t.Errorf("log %+v, want the failure at 25 and the return at 65", evs)
	}
}

// A job's ramp is stepped before the measurement, from -ramp to 0 (its
// last interval cut at 0), its samples left out of conditions; events'
// times count from its end, as the samples' do.
func TestSteppedRampComesBeforeTheEvents(t *testing.T) {
	clock := &VirtualClock{}
	log := NewLog(clock.Now)
	var fired []string
	tl, err := NewTimeline([]Event{
		{Name: "fail", At: 15, After: -1, Do: func(context.Context) error { fired = append(fired, fmt.Sprint("fail@", clock.Now())); return nil }},
		{Name: "any", After: -1, When: func(s fio.Sample) (bool, error) { return true, nil }, Do: func(context.Context) error {
			fired = append(fired, fmt.Sprint("any@", clock.Now()))
			return nil
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	st := &countingStepper{log: log}
	if _, err := RunStepped(context.Background(), tl, clock, st, 25, 30, 10); err != nil {
		t.Fatal(err)
	}
	var starts []float64
	for _, iv := range st.intervals {
		starts = append(starts, iv[0])
	}
	if want := []float64{-25, -15, -5, 0, 10, 15, 20}; !slices.Equal(starts, want) {
		t.Errorf("intervals start at %v, want %v", starts, want)
	}
	if want := []string{"any@10", "fail@15"}; !slices.Equal(fired, want) {
		t.Errorf("fired %v, want %v: the condition on the first measured sample, the event 15 s after the ramp", fired, want)
	}
}

func TestTimelineRefusesWhatCanNeverFire(t *testing.T) {
	nop := func(context.Context) error { return nil }
	for _, tc := range []struct {
		events []Event
		want   string
	}{
		{[]Event{{Name: "a", After: 1, Do: nop}, {Name: "b", After: 0, Do: nop}}, "waits for itself"},
		{[]Event{{Name: "a", After: 0, Do: nop}}, "not another event"},
		{[]Event{{Name: "a", After: 3, Do: nop}}, "not another event"},
		{[]Event{{Name: "a", At: -1, After: -1, Do: nop}}, "want 0 or more"},
	} {
		if _, err := NewTimeline(tc.events); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.events, err, tc.want)
		}
	}
}

func TestAFailingActionStopsTheMeasurement(t *testing.T) {
	boom := errors.New("no host to evacuate to")
	tl, err := NewTimeline([]Event{{Name: "mm", At: 20, After: -1, Do: func(context.Context) error { return boom }}})
	if err != nil {
		t.Fatal(err)
	}
	clock := &VirtualClock{}
	st := &countingStepper{log: NewLog(clock.Now)}
	_, err = RunStepped(context.Background(), tl, clock, st, 0, 100, 10)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), `event "mm"`) {
		t.Fatalf("got %v, want the action's error naming the event", err)
	}
	if n := len(st.intervals); n != 2 {
		t.Errorf("stepped %d intervals, want the 2 before the event", n)
	}
}

// TestWallEventsFireOnSamplesAndTime runs a measurement that emits a sample
// whenever the test says, so the order of things is the test's, not the
// machine's speed.
func TestWallEventsFireOnSamplesAndTime(t *testing.T) {
	start := time.Now()
	clock := WallClock(start)
	fired := make(chan string, 4)
	tl, err := NewTimeline([]Event{
		{Name: "now", After: -1, Do: func(context.Context) error { fired <- "now"; return nil }},
		{Name: "slow", After: -1, When: func(s fio.Sample) (bool, error) { return s.IOPS < 500, nil }, Do: func(context.Context) error { fired <- "slow"; return nil }},
		{Name: "then", After: 1, Do: func(context.Context) error { fired <- "then"; return nil }},
	})
	if err != nil {
		t.Fatal(err)
	}
	measure := func(ctx context.Context, sample func(fio.Sample)) (*fio.Result, error) {
		if got := <-fired; got != "now" {
			return nil, fmt.Errorf("first event %q, want now", got)
		}
		sample(fio.Sample{IOPS: 1000})
		sample(fio.Sample{IOPS: 100})
		for _, want := range []string{"slow", "then"} {
			select {
			case got := <-fired:
				if got != want {
					return nil, fmt.Errorf("event %q, want %q", got, want)
				}
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return &fio.Result{}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := RunWall(ctx, tl, clock, measure); err != nil {
		t.Fatal(err)
	}
	if u := tl.Unfired(); len(u) != 0 {
		t.Errorf("unfired %v", u)
	}
}
