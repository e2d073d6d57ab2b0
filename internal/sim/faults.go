package sim

import (
	"math/rand"
	"sync"

	"github.com/vmware/govmomi/vim25/types"
)

// Fault makes a share of the calls of one method, or of the tasks of one
// kind, fail.
type Fault struct {
	// Method is a SOAP method name, e.g. "CloneVM_Task": the call returns
	// the fault, as vCenter does when it refuses to start a task.
	Method string
	// Task names a task as the simulator's TaskInfo.name does ("CloneVm",
	// "ReconfigVm", "ReconfigureDvPortgroup", "VsanClusterReconfig"): the
	// call that starts it succeeds and the task ends with the fault.
	Task string
	Rate float64 // 0..1
	// Skip lets the first Skip matching calls or tasks through, so that
	// with Rate 1 exactly the later ones fail (the third host, say).
	Skip int
	// Count is how many calls or tasks fail after those skipped (0 = all).
	Count int
	// Fault returns the fault to report; nil reports a SystemError.
	Fault func() types.BaseMethodFault
}

func (f Fault) key() string {
	if f.Task != "" {
		return "task:" + f.Task
	}
	return f.Method
}

// injector decides which calls fail. Unlike vcsim's own fault injector it
// draws from a locked random source, so concurrent calls do not race.
type injector struct {
	mu     sync.Mutex
	rng    *rand.Rand
	faults map[string]Fault
	seen   map[string]int
}

func newInjector(seed int64) *injector {
	if seed == 0 {
		seed = rand.Int63()
	}
	return &injector{rng: rand.New(rand.NewSource(seed))}
}

func (in *injector) set(faults []Fault) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.faults, in.seen = map[string]Fault{}, map[string]int{}
	for _, f := range faults {
		in.faults[f.key()] = f
	}
}

// pick returns the fault to inject into a call of method, or nil.
func (in *injector) pick(method string) types.BaseMethodFault { return in.draw(method) }

// pickTask returns the fault a task named name ends with, or nil.
func (in *injector) pickTask(name string) types.BaseMethodFault { return in.draw("task:" + name) }

func (in *injector) draw(key string) types.BaseMethodFault {
	in.mu.Lock()
	defer in.mu.Unlock()
	f, ok := in.faults[key]
	if !ok {
		return nil
	}
	in.seen[key]++
	n := in.seen[key]
	if n <= f.Skip || (f.Count > 0 && n > f.Skip+f.Count) || in.rng.Float64() >= f.Rate {
		return nil
	}
	if f.Fault == nil {
		return &types.SystemError{Reason: "injected fault"}
	}
	return f.Fault()
}
