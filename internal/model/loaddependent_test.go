package model

import (
	"context"
	"math"
	"testing"
)

// TestLoadDependentStationByHand: exact MVA of one load-dependent station
// (2 servers, half a hardware thread, so a hand-off waits as soon as more
// than half a customer is present) at N = 2, worked by hand. Read share
// 0.5, demands D = 1 ms read and 3 ms write (2 ms mixed), extra demands
// 1 and 2 ms (1.5 ms mixed). Seidmann splits each into a queue part D/2
// and a delay D/2: queue part 1 ms, delay 1 ms; extra 0.75 ms each.
//   - N = 1: nobody present, no waiting: R = 1 + 1 = 2 ms, X = 500/s,
//     Q = 500 x 1 ms = 0.5.
//   - N = 2: present = Q + X x 2 ms x 1/2 = 1, so W = (1 - 0.5) / 1 = 0.5;
//     queue part 1 + 0.5 x 0.75 = 1.375 ms; R = 1 + 0.5 x 0.75 + 1.375 x
//     (1 + 0.5) = 3.4375 ms, X = 2 / R = 581.8/s, Q = X x 1.375 ms x 1.5
//     = 1.2.
//   - what an I/O sees: Q x (N-1)/N = 0.6; a read resides (1 + 0.5 x 1) /
//     2 x 1.6 + (1 + 0.5 x 1) / 2 = 1.95 ms, a write (3 + 0.5 x 2) / 2 x
//     1.6 + (3 + 0.5 x 2) / 2 = 5.2 ms.
func TestLoadDependentStationByHand(t *testing.T) {
	st := []station{{Name: "cpu", Copies: 1, Servers: 2, D: [2]float64{1e-3, 3e-3}, Extra: [2]float64{1e-3, 2e-3}, Threads: 10, HWThreads: 0.5}}
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*want }
	one, err := solveMVA(context.Background(), st, 1, 0.5, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !near(one.X, 500) || !near(one.Q[0], 0.5) || one.W[0] != 0 {
		t.Errorf("N=1: X %g, Q %g, W %g; want 500, 0.5, 0", one.X, one.Q[0], one.W[0])
	}
	two, err := solveMVA(context.Background(), st, 2, 0.5, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !near(two.X, 2/3.4375e-3) || !near(two.Q[0], 1.2) || !near(two.W[0], 0.5) {
		t.Errorf("N=2: X %g, Q %g, W %g; want %g, 1.2, 0.5", two.X, two.Q[0], two.W[0], 2/3.4375e-3)
	}
	q := seen(two, 2)
	if r := residence(st, two.W, q, read)[0]; !near(r, 1.95e-3) {
		t.Errorf("a read resides %g s, want 1.95 ms", r)
	}
	if r := residence(st, two.W, q, write)[0]; !near(r, 5.2e-3) {
		t.Errorf("a write resides %g s, want 5.2 ms", r)
	}
}
