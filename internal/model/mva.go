package model

import (
	"context"
	"fmt"
	"math"
)

// station is one kind of resource in the closed network. Copies identical
// copies (one per host, device or disk group) share the load evenly; D is
// the service demand per I/O at one copy, split into per-direction parts so
// response times can be reported per direction.
type station struct {
	Name    string
	Copies  int
	Servers float64 // c; Seidmann: queue D/c plus a pure delay D(c-1)/c
	D       [2]float64
	// Busy, when set, replaces D in the Seidmann delay part: the CPU station
	// must saturate on every cycle but only adds the latency of the cycles
	// no other station already accounts for.
	Busy *[2]float64
}

// demand is the mixed demand of one copy for a read share fr.
func (s *station) demand(fr float64) float64 {
	return fr*s.D[read] + (1-fr)*s.D[write]
}

// delay is Seidmann's pure-delay part of one copy's demand for direction dir.
func (s *station) delay(dir int) float64 {
	d := s.D[dir]
	if s.Busy != nil {
		d = s.Busy[dir]
	}
	return d * (s.Servers - 1) / s.Servers
}

// exactBound is the population up to which the network is solved by exact
// MVA; above it Bard-Schweitzer's approximation is used (benchmarked in
// mva_test.go: both stay well under a millisecond for one cell).
const exactBound = 4096

// solution is the state of the network at population N.
type solution struct {
	X float64   // throughput, I/Os per second
	Q []float64 // mean queue length at one copy of each station
}

// solveMVA solves the network with n customers, read share fr and a pure
// delay z (seconds) per I/O. Every demand must be finite and at least 0,
// and so must the solution: a non-finite number is an error, never a
// result (a NaN reaching the percentile fit would hang it).
func solveMVA(ctx context.Context, st []station, n int, fr, z float64) (solution, error) {
	if n < 1 {
		return solution{}, fmt.Errorf("%d outstanding I/Os: want at least 1", n)
	}
	if err := checkStations(st, z); err != nil {
		return solution{}, err
	}
	var sol solution
	var err error
	if n <= exactBound {
		sol, err = exactMVA(ctx, st, n, fr, z)
	} else {
		sol, err = schweitzerMVA(ctx, st, n, fr, z)
	}
	if err != nil {
		return solution{}, err
	}
	if !finite(sol.X) || sol.X <= 0 {
		return solution{}, fmt.Errorf("the network gives throughput %g at %d outstanding I/Os: want a finite number above 0", sol.X, n)
	}
	for k, q := range sol.Q {
		if !finite(q) || q < 0 {
			return solution{}, fmt.Errorf("station %s: queue length %g at %d outstanding I/Os: want a finite number of at least 0", st[k].Name, q, n)
		}
	}
	return sol, nil
}

// checkStations refuses demands and delays that are not finite numbers of
// at least 0, naming the station.
func checkStations(st []station, z float64) error {
	if !finite(z) || z < 0 {
		return fmt.Errorf("fixed delay %g s per I/O: want a finite number of at least 0", z)
	}
	for _, s := range st {
		if !finite(s.Servers) || s.Servers < 1 || s.Copies < 1 {
			return fmt.Errorf("station %s: %d copies of %g servers: want at least 1 of each", s.Name, s.Copies, s.Servers)
		}
		for _, d := range s.D {
			if !finite(d) || d < 0 {
				return fmt.Errorf("station %s: demand %g s per I/O: want a finite number of at least 0 (check the testbed's rates)", s.Name, d)
			}
		}
		if s.Busy != nil {
			for _, d := range s.Busy {
				if !finite(d) || d < 0 {
					return fmt.Errorf("station %s: busy demand %g s per I/O: want a finite number of at least 0", s.Name, d)
				}
			}
		}
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// checkEvery is how many MVA steps run between looks at the context.
const checkEvery = 256

// queueAndDelay splits each station's mixed demand by Seidmann's
// approximation and returns the queue parts and the total delay.
func queueAndDelay(st []station, fr, z float64) ([]float64, float64) {
	dq := make([]float64, len(st))
	for k := range st {
		dq[k] = st[k].demand(fr) / st[k].Servers
		z += float64(st[k].Copies) * (fr*st[k].delay(read) + (1-fr)*st[k].delay(write))
	}
	return dq, z
}

func exactMVA(ctx context.Context, st []station, n int, fr, z float64) (solution, error) {
	dq, zz := queueAndDelay(st, fr, z)
	q := make([]float64, len(st))
	var x float64
	for i := 1; i <= n; i++ {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return solution{}, err
			}
		}
		r := zz
		for k := range st {
			r += float64(st[k].Copies) * dq[k] * (1 + q[k])
		}
		x = float64(i) / r
		for k := range st {
			q[k] = x * dq[k] * (1 + q[k])
		}
	}
	return solution{X: x, Q: q}, nil
}

// schweitzerMVA approximates Q(n-1) by Q(n)(n-1)/n and iterates to a fixed
// point, starting from the balanced-job-bounds guess of all customers
// queued at the bottleneck.
func schweitzerMVA(ctx context.Context, st []station, n int, fr, z float64) (solution, error) {
	dq, zz := queueAndDelay(st, fr, z)
	q := make([]float64, len(st))
	var total float64
	for k := range st {
		total += float64(st[k].Copies) * dq[k]
	}
	for k := range st {
		if total > 0 {
			q[k] = float64(n) * dq[k] / total
		}
	}
	nf := float64(n)
	shrink := (nf - 1) / nf
	var x float64
	for it := range 500 {
		if it%16 == 0 {
			if err := ctx.Err(); err != nil {
				return solution{}, err
			}
		}
		r := zz
		for k := range st {
			r += float64(st[k].Copies) * dq[k] * (1 + shrink*q[k])
		}
		x = nf / r
		var delta float64
		for k := range st {
			next := x * dq[k] * (1 + shrink*q[k])
			delta = math.Max(delta, math.Abs(next-q[k]))
			q[k] = next
		}
		if !(delta >= 1e-6*nf) { // converged, or NaN: solveMVA refuses the latter
			break
		}
	}
	return solution{X: x, Q: q}, nil
}

// residence is the mean time one I/O of direction dir spends at each
// station kind (all copies together), by the arrival theorem: it sees the
// queue of the network with one customer fewer.
func residence(st []station, sol solution, n int, dir int) []float64 {
	shrink := 1.0
	if n > 0 {
		shrink = float64(n-1) / float64(n)
	}
	r := make([]float64, len(st))
	for k := range st {
		r[k] = float64(st[k].Copies) * (st[k].D[dir]/st[k].Servers*(1+shrink*sol.Q[k]) + st[k].delay(dir))
	}
	return r
}
