package model

import "math"

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
// delay z (seconds) per I/O.
func solveMVA(st []station, n int, fr, z float64) solution {
	if n <= exactBound {
		return exactMVA(st, n, fr, z)
	}
	return schweitzerMVA(st, n, fr, z)
}

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

func exactMVA(st []station, n int, fr, z float64) solution {
	dq, zz := queueAndDelay(st, fr, z)
	q := make([]float64, len(st))
	var x float64
	for i := 1; i <= n; i++ {
		r := zz
		for k := range st {
			r += float64(st[k].Copies) * dq[k] * (1 + q[k])
		}
		x = float64(i) / r
		for k := range st {
			q[k] = x * dq[k] * (1 + q[k])
		}
	}
	return solution{X: x, Q: q}
}

// schweitzerMVA approximates Q(n-1) by Q(n)(n-1)/n and iterates to a fixed
// point, starting from the balanced-job-bounds guess of all customers
// queued at the bottleneck.
func schweitzerMVA(st []station, n int, fr, z float64) solution {
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
	for range 500 {
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
		if delta < 1e-6*nf {
			break
		}
	}
	return solution{X: x, Q: q}
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
