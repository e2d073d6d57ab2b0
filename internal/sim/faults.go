package sim

import (
	"math/rand"
	"sync"

	"github.com/vmware/govmomi/vim25/types"
)

// Fault makes a share of the calls of one method fail: the SOAP call
// returns the fault, as vCenter does when it refuses to start a task.
type Fault struct {
	Method string  // SOAP method name, e.g. "CloneVM_Task"
	Rate   float64 // 0..1
	// Fault returns the fault to report; nil reports a SystemError.
	Fault func() types.BaseMethodFault
}

// injector decides which calls fail. Unlike vcsim's own fault injector it
// draws from a locked random source, so concurrent calls do not race.
type injector struct {
	mu     sync.Mutex
	rng    *rand.Rand
	faults map[string]Fault
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
	in.faults = map[string]Fault{}
	for _, f := range faults {
		in.faults[f.Method] = f
	}
}

// pick returns the fault to inject into a call of method, or nil.
func (in *injector) pick(method string) types.BaseMethodFault {
	in.mu.Lock()
	defer in.mu.Unlock()
	f, ok := in.faults[method]
	if !ok || in.rng.Float64() >= f.Rate {
		return nil
	}
	if f.Fault == nil {
		return &types.SystemError{Reason: "injected fault"}
	}
	return f.Fault()
}
