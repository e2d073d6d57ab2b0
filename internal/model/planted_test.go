package model

import (
	"math"
	"testing"
)

// TestCopiesAreIdenticalStations: a station of Copies identical copies,
// each I/O paying D at every copy, is the network of that many one-copy
// stations side by side, and solves the same, a load-dependent station
// too, where hand-offs wait for a hardware thread: each copy's Seidmann
// delay counts, the part of its extra demand included. (Issue 20's
// planted bug d dropped the copies multiplier of the Seidmann delay; of
// the two delays, only the extra demand's lived through every other test.)
func TestCopiesAreIdenticalStations(t *testing.T) {
	const fr, z = 0.7, 20e-6
	cpu := station{Name: "cpu", Copies: 3, Servers: 4, D: [2]float64{400e-6, 600e-6},
		Extra: [2]float64{30e-6, 50e-6}, Threads: 16, HWThreads: 4}
	disk := station{Name: "disk", Copies: 2, Servers: 1, D: [2]float64{50e-6, 80e-6}}
	one := cpu
	one.Copies = 1
	for _, n := range []int{1, 8, 64} {
		a := mustMVA(t, []station{cpu, disk}, n, fr, z)
		b := mustMVA(t, []station{one, one, one, disk}, n, fr, z)
		if !(math.Abs(a.X/b.X-1) <= 1e-12) || !(math.Abs(a.Q[0]/b.Q[0]-1) <= 1e-12) {
			t.Errorf("N=%d: 3 copies give X=%g, queue %g; 3 one-copy stations X=%g, queue %g", n, a.X, a.Q[0], b.X, b.Q[0])
		}
		// At 64 I/Os the CPU copies hold more threads than run at once.
		if n == 64 && !(a.W[0] > 0) {
			t.Errorf("N=64: no hand-off waits (share %g); the test needs some", a.W[0])
		}
	}
}
