// Package events fires scheduled actions inside a measurement (at a time
// into it, after another event's end, or when a sample meets a condition)
// and keeps the log of what happened when. It runs a measurement on the wall
// clock (real fio) or steps a simulated one on a virtual clock (the model),
// with the same timeline (see docs/events.md).
package events

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"

	"starbench/internal/fio"
)

// Event is one scheduled action.
type Event struct {
	Name string
	// At is when the event fires, in seconds into the measurement, unless
	// After or When says otherwise.
	At float64
	// After, when 0 or more, is the index of the event whose end (its
	// action returned) starts Delay.
	After int
	Delay float64
	// When, when set, fires the event at the first sample it holds for.
	When func(fio.Sample) (bool, error)
	// Do is the action. It runs on the goroutine that runs the measurement
	// (a script's thread may call it), never concurrently with another.
	Do func(ctx context.Context) error
}

// Timeline is the events of one measurement and which have fired.
type Timeline struct {
	events []Event
	fired  []bool
	ends   []float64 // when each fired event's action returned; NaN before
}

// NewTimeline checks events and returns their timeline.
func NewTimeline(events []Event) (*Timeline, error) {
	tl := &Timeline{events: events, fired: make([]bool, len(events)), ends: make([]float64, len(events))}
	for i, e := range events {
		tl.ends[i] = math.NaN()
		switch {
		case e.Do == nil:
			return nil, fmt.Errorf("internal error: event %q has no action", e.Name)
		case e.After >= len(events) || e.After == i:
			return nil, fmt.Errorf("event %q waits for event %d, which is not another event of this measurement", e.Name, e.After)
		case e.At < 0 || e.Delay < 0 || math.IsNaN(e.At) || math.IsNaN(e.Delay):
			return nil, fmt.Errorf("event %q: time %g s, delay %g s: want 0 or more", e.Name, e.At, e.Delay)
		}
	}
	// A chain of afters that loops back never fires.
	for i := range events {
		seen := map[int]bool{}
		for j := i; j >= 0 && events[j].When == nil; j = events[j].After {
			if seen[j] {
				return nil, fmt.Errorf("event %q waits for itself through other events", events[i].Name)
			}
			seen[j] = true
		}
	}
	return tl, nil
}

// due is when event i fires by the clock: NaN while it waits for a
// condition or for an event that has not ended.
func (tl *Timeline) due(i int) float64 {
	e := tl.events[i]
	switch {
	case e.When != nil:
		return math.NaN()
	case e.After >= 0:
		return tl.ends[e.After] + e.Delay
	}
	return e.At
}

// Next is the time of the next event due by the clock, false when none is.
func (tl *Timeline) Next() (float64, bool) {
	next, ok := math.Inf(1), false
	for i := range tl.events {
		if d := tl.due(i); !tl.fired[i] && !math.IsNaN(d) && d < next {
			next, ok = d, true
		}
	}
	return next, ok
}

// Due returns the events due by now that have not fired, earliest first.
func (tl *Timeline) Due(now float64) []int {
	var out []int
	for i := range tl.events {
		if d := tl.due(i); !tl.fired[i] && !math.IsNaN(d) && d <= now {
			out = append(out, i)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return tl.due(out[a]) < tl.due(out[b]) })
	return out
}

// Match returns the events whose condition holds for s and have not fired.
func (tl *Timeline) Match(s fio.Sample) ([]int, error) {
	var out []int
	for i, e := range tl.events {
		if tl.fired[i] || e.When == nil {
			continue
		}
		ok, err := e.When(s)
		if err != nil {
			return nil, fmt.Errorf("condition of event %q: %w", e.Name, err)
		}
		if ok {
			out = append(out, i)
		}
	}
	return out, nil
}

// Fire runs event i's action; clock says the measurement's time when the
// action has returned (its end).
func (tl *Timeline) Fire(ctx context.Context, i int, clock func() float64) error {
	tl.fired[i] = true
	if err := tl.events[i].Do(ctx); err != nil {
		return fmt.Errorf("event %q: %w", tl.events[i].Name, err)
	}
	tl.ends[i] = clock()
	return nil
}

// Unfired names the events that did not fire, for the run's notes.
func (tl *Timeline) Unfired() []string {
	var out []string
	for i, e := range tl.events {
		if !tl.fired[i] {
			out = append(out, e.Name)
		}
	}
	return out
}

// Log is what happened during one measurement, on its time axis. Actions
// add to it as they act; it is safe for concurrent use (a second workload
// logs its end from its own goroutine).
type Log struct {
	mu     sync.Mutex
	clock  func() float64
	events []fio.Event
}

// NewLog returns a log whose entries are stamped by clock.
func NewLog(clock func() float64) *Log { return &Log{clock: clock} }

// Add records kind, target and detail at the current time.
func (l *Log) Add(kind, target, detail string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, fio.Event{AtS: l.clock(), Kind: kind, Target: target, Detail: detail})
}

// AddAt records an entry at a given time (the model reports what it
// computed for an interval).
func (l *Log) AddAt(at float64, kind, target, detail string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, fio.Event{AtS: at, Kind: kind, Target: target, Detail: detail})
}

// Now is the log's time.
func (l *Log) Now() float64 { return l.clock() }

// Events returns the entries so far, in time order.
func (l *Log) Events() []fio.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := append([]fio.Event(nil), l.events...)
	sort.SliceStable(out, func(a, b int) bool { return out[a].AtS < out[b].AtS })
	return out
}
