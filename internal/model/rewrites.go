package model

import (
	"math"
)

// rewriteOrder is how a uniform random job comes back to its blocks, as
// fio 3.33 draws its offsets.
type rewriteOrder int

const (
	// freshPasses: fio's random map gives every block one I/O a pass,
	// each pass in a new order (time based, or randrepeat=0).
	freshPasses rewriteOrder = iota
	// samePasses: the random map's passes in the same order loop after
	// loop (size based with randrepeat on: fio reseeds on each loop), the
	// reads' and writes' blocks too; random_generator=lfsr's cycles, time
	// based too.
	samePasses
	// drawnAfresh: without the map (norandommap) every offset is drawn
	// anew.
	drawnAfresh
)

// bufferHits is, for a job's random I/Os, the share of its reads and of
// its writes whose block was written within the last x region's worth of
// writes (what OSA's write buffer holds), with w the writes' share of its
// I/Os, clones fio jobs reaching each block and passes the passes each
// makes over its region. Measured with fio 3.33's write_iolog on a 16
// MiB file (4,096 blocks), writes back within 0.1, 0.5, 1 and 2 regions:
// a time-based randwrite 0.005, 0.125, 0.50, 1.0 (offsets drawn afresh
// give 0.095, 0.39, 0.63, 0.86); randrw 70/30 0.015, 0.32, 0.62, 0.88;
// two clones 0.051, 0.27, 0.53, 0.92; a size-based one of 4 loops 0, 0,
// 1, 1.
func (sh jobShape) bufferHits(x, regionBytes, clones, passes float64) (reads, writes float64) {
	if !sh.skew.uniform() {
		h := sh.hotSpread(regionBytes, clones).hit(x)
		return h, h
	}
	w := 1 - sh.fr
	d := math.Max(1, clones)
	y := x / (d * w) // the window in passes of one clone's I/Os
	switch {
	case sh.order == drawnAfresh:
		h := -math.Expm1(-x / sh.alignedReach()) // the blocks blockalign lets it reach
		return h, h
	case passes <= 1:
		// One pass: each clone touches a block once, so only the
		// others' writes come back to it.
		h := othersHit(w*math.Min(1, y), d)
		return h, h
	case sh.order == samePasses:
		// The same order every loop: a write's block is written again
		// exactly a pass later, a read's block never by its own clone.
		own := 0.0
		if y >= 1 {
			own = 1
		}
		others := othersHit(w*math.Min(1, y), d)
		return others, 1 - (1-own)*(1-others)
	}
	// A new order each pass: the last write of a block by the same clone
	// lies a pass's remainder and the next's start back (a triangular
	// distance of two uniform parts), plus whole passes where the block's
	// I/O was a read.
	own := passDistance(y, w)
	h := 1 - (1-own)*math.Pow(1-w*(y-passDistanceIntegral(y, w)), d-1)
	return h, h
}

// othersHit is the chance that one of the other d-1 clones wrote a block
// within the window, each with probability p.
func othersHit(p, d float64) float64 {
	return 1 - math.Pow(1-p, d-1)
}

// passDistance is P(S <= y) for S, in passes, the distance back from an
// I/O to the last write of its block by the same clone under fresh
// passes: T + G - 1, T triangular on (0, 2) and G geometric with the
// writes' share w.
func passDistance(y, w float64) float64 {
	p := 0.0
	for g, weight := 1.0, w; weight > 1e-12 && y-g+1 > 0; g, weight = g+1, weight*(1-w) {
		p += weight * triangularCDF(y-g+1)
	}
	return p
}

// passDistanceIntegral is the integral of passDistance from 0 to y: a
// clone that is not the one issuing has written a block within y passes
// with probability w (y - passDistanceIntegral), the renewal's stationary
// form (one write every 1/w passes).
func passDistanceIntegral(y, w float64) float64 {
	p := 0.0
	for g, weight := 1.0, w; weight > 1e-12 && y-g+1 > 0; g, weight = g+1, weight*(1-w) {
		p += weight * triangularIntegral(y-g+1)
	}
	return p
}

// triangularCDF is P(U1 + U2 <= t), U uniform on (0, 1).
func triangularCDF(t float64) float64 {
	switch {
	case t <= 0:
		return 0
	case t <= 1:
		return t * t / 2
	case t <= 2:
		return 1 - (2-t)*(2-t)/2
	}
	return 1
}

// triangularIntegral is the integral of triangularCDF from 0 to t.
func triangularIntegral(t float64) float64 {
	switch {
	case t <= 0:
		return 0
	case t <= 1:
		return t * t * t / 6
	case t <= 2:
		return t - 1 + (2-t)*(2-t)*(2-t)/6
	}
	return t - 1
}

// passes is how many passes each clone makes over its region of a disk
// of disk bytes: without end when time based, else its loops of io_size
// (the region when not given).
func (sh jobShape) passes(disk float64) float64 {
	if sh.timeBased {
		return math.Inf(1)
	}
	p := float64(max(sh.extent.loops, 1))
	if r := sh.extent.region(disk, 0); r > 0 {
		if io := sh.extent.ioSize.of(r); io > r {
			p *= io / r
		}
	}
	return p
}

// mapCovered is the share of a region that random writes under fio's
// random map have written, x the region's worth of writes its clones made
// together and depth the clones reaching each block. Each pass of a clone
// gives every block one I/O, a write with the writes' share w: a new
// order each pass writes w of the blocks not yet written again (1 -
// (1-w)^passes), the same order rewrites the same ones (w at most). fio
// 3.33 on a 16 MiB file: 8 MiB of 4 KiB random writes allocate 8,192 KiB
// by time or cut by a runtime (6,380 with norandommap), 24 MiB all of it;
// randrw 70/30 over two loops writes 31 % of the blocks, 51 % with
// randrepeat=0.
func (sh jobShape) mapCovered(x, depth float64) float64 {
	w := 1 - sh.fr
	if w <= 0 || depth <= 0 {
		return 0
	}
	perClone := x / depth
	c := math.Min(perClone, w)
	if sh.order != samePasses {
		passes := perClone / w
		full := math.Floor(passes)
		c = 1 - math.Pow(1-w, full)*(1-w*(passes-full))
	}
	return 1 - math.Pow(1-math.Min(1, c), depth)
}
