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
	// Extra makes the station load-dependent (the CPU): demand per I/O at
	// one copy added in the share of thread hand-offs that find no free
	// hardware thread. Threads is how many threads can be runnable at one
	// copy, HWThreads how many run at once; with more runnable than that,
	// hand-offs wait (ready time) and pay a switch with cold caches, so
	// throughput falls as the queue grows.
	Extra     [2]float64
	Threads   float64
	HWThreads float64
	// Held is the servers' worth taken out of Servers by threads that spin
	// the whole run and serve no customer (the CPU: vCPUs polling for I/O):
	// busy, but not in the queue.
	Held float64
	// PerJob marks a station whose servers are one job's own (the guest:
	// a job's fio threads): beside other jobs each job has its own copy,
	// its I/Os queueing behind the job's alone.
	PerJob bool
	// of is which copies of its kind groupCopies grouped in the station
	// (before a degradation takes any out); for a kind with a copy per
	// host, the hosts' indices (hostNames).
	of []int
}

// busyShare is the share of a copy's capacity in use at utilisation u of
// the servers left to customers: those and what Held takes.
func (s *station) busyShare(u float64) float64 {
	if s.Held == 0 {
		return u
	}
	return (u*s.Servers + s.Held) / (s.Servers + s.Held)
}

// loadDependent reports whether the station's demand grows with its queue.
func (s *station) loadDependent() bool { return s.Extra != [2]float64{} }

// waitShare is the share of hand-offs that find every hardware thread
// busy when present customers are at one copy (each holds a thread, up to
// Threads).
func (s *station) waitShare(present float64) float64 {
	r := math.Min(s.Threads, present)
	if r <= s.HWThreads || r <= 0 {
		return 0
	}
	return (r - s.HWThreads) / r
}

// demand is the mixed demand of one copy for a read share fr.
func (s *station) demand(fr float64) float64 {
	return fr*s.D[read] + (1-fr)*s.D[write]
}

// delay is Seidmann's pure-delay part of one copy's demand for direction
// dir, with a share w of hand-offs waiting (load-dependent stations).
func (s *station) delay(dir int, w float64) float64 {
	d := s.D[dir]
	if s.Busy != nil {
		d = s.Busy[dir]
	}
	return (d + w*s.Extra[dir]) * (s.Servers - 1) / s.Servers
}

// demandAt is one copy's demand for direction dir with a share w of
// hand-offs waiting.
func (s *station) demandAt(dir int, w float64) float64 { return s.D[dir] + w*s.Extra[dir] }

// exactBound is the population up to which the network is solved by exact
// MVA; above it Bard-Schweitzer's approximation is used (benchmarked in
// mva_test.go: both stay well under a millisecond for one cell).
const exactBound = 4096

// solution is the state of the network at population N.
type solution struct {
	X float64   // throughput, I/Os per second
	Q []float64 // mean queue length at one copy of each station
	W []float64 // share of hand-offs waiting for a thread at each station
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

// mixed is the network's demands for a read share fr, split by Seidmann's
// approximation: the queue part of each station, the pure delay of the
// load-independent ones (with z), and what a load-dependent station adds
// in the share of hand-offs that wait.
type mixed struct {
	st     []station
	dq     []float64 // queue part D/c of one copy
	extraQ []float64 // Extra/c of one copy, load-dependent stations
	extraZ []float64 // Extra's delay part, all copies
	full   []float64 // D of one copy (threads present at low load)
	z      float64
	ld     []int // load-dependent stations
}

func mix(st []station, fr, z float64) *mixed {
	m := &mixed{st: st, dq: make([]float64, len(st)), extraQ: make([]float64, len(st)), extraZ: make([]float64, len(st)), full: make([]float64, len(st)), z: z}
	for k := range st {
		s := &st[k]
		c := s.Servers
		m.full[k] = s.demand(fr)
		m.dq[k] = m.full[k] / c
		m.z += float64(s.Copies) * (fr*s.delay(read, 0) + (1-fr)*s.delay(write, 0))
		if s.loadDependent() {
			e := fr*s.Extra[read] + (1-fr)*s.Extra[write]
			m.extraQ[k] = e / c
			m.extraZ[k] = float64(s.Copies) * e * (c - 1) / c
			m.ld = append(m.ld, k)
		}
	}
	return m
}

// step is one MVA step: from the queues q (seen by an arriving I/O, scaled
// by shrink) and the last throughput x, the response time and each
// station's queue part of demand in dqEff, the wait shares in w. With damp
// set, a wait share moves only halfway from damp's (fixed-point iteration).
func (m *mixed) step(q []float64, shrink, x float64, damp, dqEff, w []float64) float64 {
	copy(dqEff, m.dq)
	r := m.z
	for _, k := range m.ld {
		s := &m.st[k]
		// Present at one copy: its queue plus those in Seidmann's delay part.
		w[k] = s.waitShare(q[k] + x*m.full[k]*(s.Servers-1)/s.Servers)
		if damp != nil {
			w[k] = (w[k] + damp[k]) / 2
		}
		dqEff[k] += w[k] * m.extraQ[k]
		r += w[k] * m.extraZ[k]
	}
	for k := range m.st {
		r += float64(m.st[k].Copies) * dqEff[k] * (1 + shrink*q[k])
	}
	return r
}

func exactMVA(ctx context.Context, st []station, n int, fr, z float64) (solution, error) {
	m := mix(st, fr, z)
	q, w, dqEff := make([]float64, len(st)), make([]float64, len(st)), make([]float64, len(st))
	var x float64
	for i := 1; i <= n; i++ {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return solution{}, err
			}
		}
		r := m.step(q, 1, x, nil, dqEff, w)
		x = float64(i) / r
		for k := range st {
			q[k] = x * dqEff[k] * (1 + q[k])
		}
	}
	return solution{X: x, Q: q, W: w}, nil
}

// schweitzerMVA approximates Q(n-1) by Q(n)(n-1)/n and iterates to a fixed
// point, starting from the balanced-job-bounds guess of all customers
// queued at the bottleneck. Load-dependent stations are damped: their
// wait share moves halfway each iteration.
func schweitzerMVA(ctx context.Context, st []station, n int, fr, z float64) (solution, error) {
	m := mix(st, fr, z)
	q, w, dqEff := make([]float64, len(st)), make([]float64, len(st)), make([]float64, len(st))
	var total float64
	for k := range st {
		total += float64(st[k].Copies) * m.dq[k]
	}
	for k := range st {
		if total > 0 {
			q[k] = float64(n) * m.dq[k] / total
		}
	}
	nf := float64(n)
	shrink := (nf - 1) / nf
	var x float64
	prevW := make([]float64, len(st))
	for it := range 1000 {
		if it%16 == 0 {
			if err := ctx.Err(); err != nil {
				return solution{}, err
			}
		}
		var damp []float64
		if it > 0 {
			damp = prevW
		}
		r := m.step(q, shrink, x, damp, dqEff, w)
		copy(prevW, w)
		x = nf / r
		var delta float64
		for k := range st {
			next := x * dqEff[k] * (1 + shrink*q[k])
			delta = math.Max(delta, math.Abs(next-q[k]))
			q[k] = next
		}
		if !(delta >= 1e-6*nf) { // converged, or NaN: solveMVA refuses the latter
			break
		}
	}
	return solution{X: x, Q: q, W: w}, nil
}

// seen is the queue an arriving I/O sees at one copy of each station, by
// the arrival theorem: the network's with one customer fewer.
func seen(sol solution, n int) []float64 {
	shrink := 1.0
	if n > 0 {
		shrink = float64(n-1) / float64(n)
	}
	q := make([]float64, len(sol.Q))
	for k := range q {
		q[k] = shrink * sol.Q[k]
	}
	return q
}

// residence is the mean time one I/O of direction dir spends at each
// station kind (all copies together) when it sees queues q and wait shares w.
func residence(st []station, w, q []float64, dir int) []float64 {
	r := make([]float64, len(st))
	for k := range st {
		s := &st[k]
		r[k] = float64(s.Copies) * (s.demandAt(dir, w[k])/s.Servers*(1+q[k]) + s.delay(dir, w[k]))
	}
	return r
}
