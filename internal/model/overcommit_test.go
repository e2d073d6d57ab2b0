package model

import (
	"context"
	"math"
	"testing"

	"starbench/internal/fio"
)

// With one class, an overcommitted CPU and think time, the multi-class
// solver is still Bard-Schweitzer: the same throughput, queues and wait
// shares (within 1 %, the two iterations' convergence), so the
// load-dependent station's Seidmann and ready-time parts and the think time
// enter both alike. 24 VMs at iodepth 1 on 4 cores a host leave the CPU's
// wait share between 0 and its ceiling, where it follows the queue.
func TestOneOvercommittedClassIsSchweitzer(t *testing.T) {
	p := mustLoad(t, "vxrail-ve660-esa")
	p.CPU.CoresPerSocket = 4
	c := mustBuild(t, p, UniformInput(p, 24, 8, Policy{RAID: "raid1"}, &fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 4096, IODepth: 1}))
	c.shape.think = 200e-6
	n := c.g.outstanding
	multi, err := solveClasses(context.Background(), []*cell{c}, []float64{float64(n)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	single, err := schweitzerMVA(context.Background(), c.st, n, c.fr, c.zMix+c.shape.think)
	if err != nil {
		t.Fatal(err)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 0.01*math.Max(math.Abs(b), 1e-3) }
	waits := false
	for k, s := range c.st {
		waits = waits || single.W[k] > 0.05
		if !near(multi.Q[0][k], single.Q[k]) || !near(multi.W[k], single.W[k]) {
			t.Errorf("station %s: queue %g and wait share %g, Schweitzer %g and %g", s.Name, multi.Q[0][k], multi.W[k], single.Q[k], single.W[k])
		}
	}
	t.Logf("X %.0f IOPS, R %.3g s with %.3g s think time, wait shares %.3g", single.X, float64(n)/single.X, c.shape.think, single.W)
	if !waits {
		t.Errorf("no station's hand-offs wait: the CPU is not overcommitted (%v)", single.W)
	}
	if !near(multi.X[0], single.X) {
		t.Errorf("X %g, Schweitzer %g", multi.X[0], single.X)
	}
}
