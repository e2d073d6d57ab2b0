package model

import (
	"cmp"
	"math"
	"slices"
)

// byteRange is a range of a disk's bytes, [start, end).
type byteRange struct{ start, end float64 }

// diskData is what is on a disk of size bytes: for each part of it the
// share of its blocks that hold data and how compressible that data is.
// Bytes outside every part were never written.
type diskData struct {
	size  float64
	parts []part // in order, not overlapping
}

// part is a range of a disk whose blocks are alike: written is the share
// of them that hold data, compressPct the compressibility of that data.
type part struct {
	byteRange
	written, compressPct float64
}

// uniformData is a disk of size bytes with the share written of every
// part of it holding data compressPct % compressible (a prepared disk: 1).
func uniformData(size, written, compressPct float64) diskData {
	if written <= 0 {
		return diskData{size: size}
	}
	return diskData{size: size, parts: []part{{byteRange{0, size}, written, compressPct}}}
}

// over is the share of the bytes in ranges that hold data, and their
// compressibility: what a job reading those ranges evenly finds.
func (dd diskData) over(ranges []byteRange) (written, compressPct float64) {
	total, held, heldPct := 0.0, 0.0, 0.0
	for _, s := range ranges {
		total += s.end - s.start
		for _, p := range dd.parts {
			if n := overlap(s, p.byteRange); n > 0 {
				held += n * p.written
				heldPct += n * p.written * p.compressPct
			}
		}
	}
	if total <= 0 || held <= 0 {
		return 0, 0
	}
	return held / total, heldPct / held
}

// whole is over the whole disk: the share of it that holds data.
func (dd diskData) whole() (written, compressPct float64) {
	return dd.over([]byteRange{{0, dd.size}})
}

// write records writes over ranges that reach covered of the blocks there,
// as many of those written before as of the rest, with data compressPct %
// compressible: a block written before stays written, and holds the new
// data where the writes reached it.
func (dd *diskData) write(ranges []byteRange, covered, compressPct float64) {
	if covered <= 0 {
		return
	}
	for _, s := range ranges {
		s.start, s.end = math.Max(0, s.start), math.Min(dd.size, s.end)
		if s.end <= s.start {
			continue
		}
		var next []part
		for _, p := range dd.parts {
			next = append(next, p.outside(s)...)
		}
		// Inside s: each old part's written share grows, and the bytes no
		// part held are new, written covered.
		at := s.start
		for _, p := range dd.parts {
			in := byteRange{math.Max(p.start, s.start), math.Min(p.end, s.end)}
			if in.end <= in.start {
				continue
			}
			if in.start > at {
				next = append(next, part{byteRange{at, in.start}, covered, compressPct})
			}
			w := p.written + (1-p.written)*covered
			pct := (p.written*(1-covered)*p.compressPct + covered*compressPct) / w
			next = append(next, part{in, w, pct})
			at = in.end
		}
		if at < s.end {
			next = append(next, part{byteRange{at, s.end}, covered, compressPct})
		}
		slices.SortFunc(next, func(a, b part) int { return cmp.Compare(a.start, b.start) })
		dd.parts = next
	}
}

// outside is what of p lies outside s: nothing, one piece or two.
func (p part) outside(s byteRange) []part {
	var out []part
	if p.start < s.start {
		out = append(out, part{byteRange{p.start, math.Min(p.end, s.start)}, p.written, p.compressPct})
	}
	if p.end > s.end {
		out = append(out, part{byteRange{math.Max(p.start, s.end), p.end}, p.written, p.compressPct})
	}
	return out
}

// overlap is how many bytes two ranges share.
func overlap(a, b byteRange) float64 {
	return math.Max(0, math.Min(a.end, b.end)-math.Max(a.start, b.start))
}
