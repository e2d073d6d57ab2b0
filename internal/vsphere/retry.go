package vsphere

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"time"

	"github.com/vmware/govmomi/fault"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/task"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// Retry says how often and how patiently transient faults are retried.
type Retry struct {
	Attempts int           // total tries, first included
	Backoff  time.Duration // wait before the second try; doubles each time
	Max      time.Duration // longest wait
}

// DefaultRetry suits a real vCenter: 5 tries over about 6 s.
var DefaultRetry = Retry{Attempts: 5, Backoff: 400 * time.Millisecond, Max: 5 * time.Second}

func (r Retry) orDefault() Retry {
	if r.Attempts <= 0 {
		return DefaultRetry
	}
	if r.Max <= 0 {
		r.Max = r.Backoff * 16
	}
	return r
}

// OpError is a failed vSphere operation: what was done to which object,
// through which task or call, and after how many tries.
type OpError struct {
	Op       string // "clone", "add disks to", "power on", ...
	Object   string // VM, host or cluster name
	Task     string // vSphere method, e.g. "CloneVM_Task"
	Attempts int
	Err      error
}

func (e *OpError) Error() string {
	kind := "permanent"
	if transient(e.Err) {
		kind = "transient"
	}
	tries := ""
	if e.Attempts > 1 {
		tries = fmt.Sprintf(" after %d attempts", e.Attempts)
	}
	return fmt.Sprintf("%s %s: %s failed%s: %s (%s fault)", e.Op, e.Object, e.Task, tries, describe(e.Err), kind)
}

func (e *OpError) Unwrap() error { return e.Err }

// transient says whether err may go away by itself.
func transient(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return fault.IsTransientError(err) || vim25.IsTemporaryNetworkError(err)
}

// describe names a fault by its vSphere type with its message, if any.
func describe(err error) string {
	var f types.BaseMethodFault
	var te task.Error
	switch {
	case errors.As(err, &te):
		f = te.Fault()
	case soap.IsSoapFault(err):
		f, _ = soap.ToSoapFault(err).VimFault().(types.BaseMethodFault)
	case soap.IsVimFault(err):
		f = soap.ToVimFault(err)
	}
	if f == nil {
		return err.Error()
	}
	name := reflect.TypeOf(f).String()
	if i := len("*types."); len(name) > i && name[:i] == "*types." {
		name = name[i:]
	}
	if msg := f.GetMethodFault().FaultMessage; len(msg) > 0 && msg[0].Message != "" {
		return name + ": " + msg[0].Message
	}
	return name
}

// do runs f until it succeeds, fails permanently, or runs out of tries.
func (c *Client) do(ctx context.Context, op, object, method string, f func(context.Context) error) error {
	wait := c.retry.Backoff
	for attempt := 1; ; attempt++ {
		err := f(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			var running *stillRunning
			if errors.As(err, &running) {
				return err
			}
			return ctx.Err()
		}
		if !transient(err) || attempt >= c.retry.Attempts {
			return &OpError{Op: op, Object: object, Task: method, Attempts: attempt, Err: err}
		}
		jitter := time.Duration(rand.Int64N(int64(wait)/4 + 1))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait + jitter):
		}
		wait = min(2*wait, c.retry.Max)
	}
}

// waitTask waits for a task started by start (see startTask). When ctx ends first (Ctrl-C),
// the task is cancelled in vCenter and waited for, so that nothing keeps
// changing behind the user's back, and ctx's error is returned.
func waitTask(ctx context.Context, start func(context.Context) (*object.Task, error)) (*types.TaskInfo, error) {
	t, err := startTask(ctx, start)
	if err != nil {
		return nil, err
	}
	info, err := t.WaitForResult(ctx)
	if ctx.Err() == nil {
		return info, err
	}
	return info, cancelTask(t, ctx.Err())
}

// startTask calls start unless ctx has ended. The call itself is not cut
// short by ctx: vCenter may have started the task when the answer is
// abandoned, and a task nobody knows of cannot be cancelled.
func startTask(ctx context.Context, start func(context.Context) (*object.Task, error)) (*object.Task, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	call, stop := context.WithTimeout(context.WithoutCancel(ctx), cancelWait)
	defer stop()
	return start(call)
}

// cancelWait bounds the wait for a cancelled task to end.
var cancelWait = 2 * time.Minute

// cancelTask asks vCenter to cancel task t and waits until it has ended (a
// task that cannot be cancelled runs to its end). It returns cause, or an
// error saying the task may still run.
func cancelTask(t *object.Task, cause error) error {
	ctx, stop := context.WithTimeout(context.Background(), cancelWait)
	defer stop()
	cerr := t.Cancel(ctx)
	if _, err := t.WaitForResult(ctx); err != nil && ctx.Err() != nil {
		if cerr == nil {
			cerr = err
		}
		return &stillRunning{cause: cause, task: t.Reference().Value, err: cerr}
	}
	return cause
}

// stillRunning is a cancelled task that had not ended when we stopped waiting.
type stillRunning struct {
	cause error
	task  string
	err   error
}

func (e *stillRunning) Error() string {
	return fmt.Sprintf("%v; vCenter task %s did not end within %s of being cancelled (%v): check it in the vSphere Client", e.cause, e.task, cancelWait, e.err)
}

func (e *stillRunning) Unwrap() error { return e.cause }
