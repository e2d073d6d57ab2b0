package sim

import (
	"context"
	"sync"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// Hold keeps the tasks of one kind from running, as a slow vCenter would,
// until it is released or a client cancels them (CancelTask): tests of
// cancellation wait for tasks to be held instead of racing a clock.
type Hold struct {
	name string

	mu        sync.Mutex
	changed   chan struct{} // closed and replaced whenever a task is held or cancelled
	held      map[types.ManagedObjectReference]heldTask
	count     int // tasks held so far
	cancelled int
	released  bool
}

// holds are the holds of a simulator, by task name.
type holds struct {
	mu sync.Mutex
	m  map[string]*Hold
}

// HoldTasks holds the tasks named name (as the simulator's TaskInfo.name
// says: "CloneVm", "ReconfigVm", "PowerOnVm") that start from now on. A
// cancelled clone leaves its VM behind, as a clone cancelled late does on a
// real vCenter. Release the hold before closing the simulator.
func (s *Sim) HoldTasks(name string) *Hold {
	s.holds.mu.Lock()
	defer s.holds.mu.Unlock()
	if s.holds.m == nil {
		s.holds.m = map[string]*Hold{}
	}
	h := &Hold{name: name, changed: make(chan struct{}), held: map[types.ManagedObjectReference]heldTask{}}
	s.holds.m[name] = h
	return h
}

// heldTask is a held task's side of its hold: stop tells it to go on
// (false) or stop (true); a stopped task closes stopped once what it does
// when stopped (a late clone's VM) is done.
type heldTask struct {
	stop    chan bool
	stopped chan struct{}
}

// take registers task as held if a hold on its name is in force, and
// returns its side of the hold (nil when none).
func (hs *holds) take(name string, task types.ManagedObjectReference) *heldTask {
	hs.mu.Lock()
	h := hs.m[name]
	hs.mu.Unlock()
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.released {
		return nil
	}
	t := heldTask{stop: make(chan bool, 1), stopped: make(chan struct{})}
	h.held[task] = t
	h.count++
	h.signal()
	return &t
}

// cancel tells a held task that a client cancelled it and waits until the
// task has done what a cancelled task does (a late clone leaves its VM),
// so that the simulator's own CancelTask, which ends the task at once,
// never reports it ended before that. False when task is not held.
func (hs *holds) cancel(task types.ManagedObjectReference) bool {
	hs.mu.Lock()
	var stopped chan struct{}
	for _, h := range hs.m {
		h.mu.Lock()
		t, ok := h.held[task]
		if ok {
			delete(h.held, task)
			h.cancelled++
			h.signal()
			t.stop <- true
			stopped = t.stopped
		}
		h.mu.Unlock()
		if ok {
			break
		}
	}
	hs.mu.Unlock()
	if stopped == nil {
		return false
	}
	<-stopped
	return true
}

// Wait returns once n tasks have been held (some may have ended since), or
// with ctx's error.
func (h *Hold) Wait(ctx context.Context, n int) error {
	return h.until(ctx, func() bool { return h.count >= n })
}

// WaitCancelled returns once clients have cancelled n held tasks, or with
// ctx's error.
func (h *Hold) WaitCancelled(ctx context.Context, n int) error {
	return h.until(ctx, func() bool { return h.cancelled >= n })
}

// until waits for done (called under h.mu) to hold.
func (h *Hold) until(ctx context.Context, done func() bool) error {
	for {
		h.mu.Lock()
		ok, changed := done(), h.changed
		h.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// signal wakes the waiters; h.mu is held.
func (h *Hold) signal() {
	close(h.changed)
	h.changed = make(chan struct{})
}

// Release lets the held tasks, and the later ones, run.
func (h *Hold) Release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.released = true
	for task, t := range h.held {
		t.stop <- false
		delete(h.held, task)
	}
}

// Cancelled is how many held tasks a client cancelled.
func (h *Hold) Cancelled() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cancelled
}

// cancelAccepted answers CancelTask for a held task: the task learns of it
// and ends by itself, as a real one does at its next checkpoint (the stock
// simulator marks a task failed at once, while its body may still run).
type cancelAccepted struct{ types.ManagedObjectReference }

func (c *cancelAccepted) Reference() types.ManagedObjectReference { return c.ManagedObjectReference }

func (c *cancelAccepted) CancelTask(*simulator.Context, *types.CancelTask) soap.HasFault {
	return &methods.CancelTaskBody{Res: &types.CancelTaskResponse{}}
}
