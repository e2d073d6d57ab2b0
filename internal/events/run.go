package events

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"starbench/internal/fio"
)

// Measure is a measurement on the wall clock: it runs to its end and calls
// sample with every interval as it ends.
type Measure func(ctx context.Context, sample func(fio.Sample)) (*fio.Result, error)

// WallClock is seconds since a start on the wall clock.
func WallClock(start time.Time) func() float64 {
	return func() float64 { return time.Since(start).Seconds() }
}

// RunWall runs measure while the timeline's events fire on clock (seconds
// since the measurement began, as the log's). Actions run on the calling
// goroutine. An action or condition that fails stops the measurement and
// is the error; so does ctx's end.
func RunWall(ctx context.Context, tl *Timeline, clock func() float64, measure Measure) (*fio.Result, error) {
	mctx, cancel := context.WithCancel(ctx)
	defer cancel()
	q := &sampleQueue{ready: make(chan struct{}, 1)}
	type outcome struct {
		res *fio.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := measure(mctx, q.push)
		done <- outcome{res, err}
	}()
	stop := func(err error) (*fio.Result, error) {
		cancel()
		<-done
		return nil, err
	}
	for {
		var timer <-chan time.Time
		if next, ok := tl.Next(); ok {
			timer = time.After(time.Duration(math.Max(0, next-clock()) * float64(time.Second)))
		}
		select {
		case <-q.ready:
			for _, s := range q.take() {
				if err := fireMatching(ctx, tl, s, clock); err != nil {
					return stop(err)
				}
			}
		case <-timer:
			for _, i := range tl.Due(clock()) {
				if err := tl.Fire(ctx, i, clock); err != nil {
					return stop(err)
				}
			}
		case o := <-done:
			return o.res, o.err
		case <-ctx.Done():
			return stop(ctx.Err())
		}
	}
}

// fireMatching fires the events whose condition s meets.
func fireMatching(ctx context.Context, tl *Timeline, s fio.Sample, clock func() float64) error {
	ids, err := tl.Match(s)
	if err != nil {
		return err
	}
	for _, i := range ids {
		if err := tl.Fire(ctx, i, clock); err != nil {
			return err
		}
	}
	return nil
}

// sampleQueue hands samples from the measurement's goroutine to the one
// firing events without ever blocking the measurement (an action may take
// minutes, as a host entering maintenance mode does).
type sampleQueue struct {
	mu      sync.Mutex
	samples []fio.Sample
	ready   chan struct{}
}

func (q *sampleQueue) push(s fio.Sample) {
	q.mu.Lock()
	q.samples = append(q.samples, s)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

func (q *sampleQueue) take() []fio.Sample {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.samples
	q.samples = nil
	return out
}

// Stepper is a measurement solved interval by interval on a virtual clock.
type Stepper interface {
	// Step returns the samples of the interval from t to t+dt seconds, the
	// cluster being as the events so far have left it.
	Step(ctx context.Context, t, dt float64) ([]fio.Sample, error)
	// Result is the whole measurement once every interval has been stepped.
	Result(ctx context.Context) (*fio.Result, error)
}

// VirtualClock is the time of a stepped measurement: it moves only when
// the stepper has solved an interval.
type VirtualClock struct {
	mu sync.Mutex
	t  float64
}

// Now is the clock's time in seconds.
func (c *VirtualClock) Now() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *VirtualClock) set(t float64) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// RunStepped steps st through the job's ramp (ramp seconds before the
// measurement, from -ramp to 0, which fio runs but does not measure) and
// then duration seconds, in intervals of interval, firing the timeline's
// events on clock: an event due inside an interval ends the interval there,
// so it acts at its own time; a condition met by an interval's samples
// fires at that interval's end. Events' times count from the ramp's end, as
// the samples' do.
func RunStepped(ctx context.Context, tl *Timeline, clock *VirtualClock, st Stepper, ramp, duration, interval float64) (*fio.Result, error) {
	if duration <= 0 || interval <= 0 || ramp < 0 {
		return nil, fmt.Errorf("a stepped measurement of %g s after a ramp of %g s in intervals of %g s: want the ramp at least 0, the others above 0", duration, ramp, interval)
	}
	const eps = 1e-9
	for t := -ramp; t < -eps; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		clock.set(t)
		dt := math.Min(interval, -t)
		if _, err := st.Step(ctx, t, dt); err != nil { // the ramp is not sampled
			return nil, err
		}
		t += dt
	}
	for t := 0.0; t < duration-eps; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		clock.set(t)
		// Firing one event can make another due at once (after, delay 0).
		for ids := tl.Due(t + eps); len(ids) > 0; ids = tl.Due(t + eps) {
			for _, i := range ids {
				if err := tl.Fire(ctx, i, clock.Now); err != nil {
					return nil, err
				}
			}
		}
		// Intervals keep to the grid of interval (as fio's samples do); an
		// event inside one splits it.
		dt := interval - math.Mod(t, interval)
		if dt < eps {
			dt = interval
		}
		dt = math.Min(dt, duration-t)
		if next, ok := tl.Next(); ok && next > t+eps && next < t+dt-eps {
			dt = next - t
		}
		samples, err := st.Step(ctx, t, dt)
		if err != nil {
			return nil, err
		}
		t += dt
		clock.set(t)
		for _, s := range samples {
			if err := fireMatching(ctx, tl, s, clock.Now); err != nil {
				return nil, err
			}
		}
	}
	res, err := st.Result(ctx)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, errors.New("internal error: a stepped measurement returned no result")
	}
	return res, nil
}
