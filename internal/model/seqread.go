package model

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// found is what a job finds on a disk where it reads: the share of the
// blocks written and the compressibility of their data.
type found struct {
	written, compressPct float64
}

// readSegment is a stretch of a sequential reader's pass, from and to
// bytes after each clone's start, over which what each of its disks holds
// is alike.
type readSegment struct {
	from, to float64
	finds    []found // per disk, in disksOf order
}

// passPlan is what a lone reader finds along each of its passes: the
// segments of pass k, from 0.
type passPlan func(k int) []readSegment

// passRate is how fast a reader moves along its pass at the rates of its
// reads and writes, in bytes a second per clone: by its reads where it is
// sequential (fio keeps a position per direction), by every I/O where it
// draws a random stream.
func passRate(r, w Direction, clones float64, sequential bool) float64 {
	if sequential {
		return r.MBps * 1e6 / clones
	}
	return (r.MBps + w.MBps) * 1e6 / clones
}

// meanWritten is the share written of what a reader finds, over its disks.
func meanWritten(finds []found) float64 {
	w := 0.0
	for _, f := range finds {
		w += f.written / float64(len(finds))
	}
	return w
}

// passage is where a job that meets differently written parts of its disks
// in order is along its passes while it runs (overlap): its passes' parts
// (plan), the part it is in and how far along, and what it has moved, and
// found written, so far, in all and part by part (told).
type passage struct {
	plan                passPlan
	what, lead          string  // what the passes follow, for the notes
	sequential          bool    // it moves along its pass by its reads alone
	clones              float64 // fio jobs reading, each on its own pass
	pass, part          int
	at                  float64 // bytes into the pass
	bytes, writtenBytes float64 // moved so far, and of that what found data
	// told is what it found part by part, its first pass, its second and
	// its later ones told apart where their parts differ (bucket).
	told           [3][]toldPart
	same01, same12 bool // pass 0 has the parts of pass 1, pass 1 those of pass 2
}

// toldPart is what a job found over one part of its passes.
type toldPart struct {
	seg                    readSegment
	t, bytes, writtenBytes float64
}

// passageOf is job j's passage, nil where it finds the same all along.
func (pl *Plane) passageOf(j JobRun) *passage {
	plan, what, lead := pl.readSegments(j), "a sequential pass", "a sequential reader meets its disks' parts in order"
	if plan == nil {
		plan, what = pl.replaySegments(j), "fio's seeds draw the offsets of earlier runs of its shape again"
		lead = "fio seeds its random offsets alike on every run (randrepeat, its default): this reader draws the offsets of earlier runs of its shape again, finding data where they wrote along its first pass"
	}
	sh, err := readJob(j.Job)
	if plan == nil || err != nil {
		return nil
	}
	return &passage{plan: plan, what: what, lead: lead, sequential: sh.randomShare == 0, clones: j.fioJobs(),
		same01: slices.EqualFunc(plan(0), plan(1), sameSegment), same12: slices.EqualFunc(plan(1), plan(2), sameSegment)}
}

// bucket is where the notes tell pass k: 0 the first (every pass where
// they are alike), 1 the second, 2 the later ones, together.
func (l *passage) bucket(k int) int {
	switch {
	case l.same01 || k == 0:
		return 0
	case l.same12 || k >= 2:
		return 2
	}
	return 1
}

// finds is what the job finds in the part it is in.
func (l *passage) finds() []found { return l.plan(l.pass)[l.part].finds }

// settled says no later part differs from the one it is in.
func (l *passage) settled() bool {
	now := l.plan(l.pass)
	return len(now) == 1 && slices.EqualFunc(now, l.plan(l.pass+1), sameSegment) && slices.EqualFunc(now, l.plan(l.pass+2), sameSegment)
}

// left is how long the job takes at its rates jo to reach its next part:
// never where it makes no progress or has settled. A part it has all but
// finished (within a billionth of its pass) it leaves first, so that every
// stretch it bounds moves time on.
func (l *passage) left(jo JobOutput) float64 {
	rate := passRate(jo.Read, jo.Write, l.clones, l.sequential)
	l.onward()
	if rate <= 0 || l.settled() {
		return math.Inf(1)
	}
	return (l.plan(l.pass)[l.part].to - l.at) / rate
}

// move moves the job on for dt seconds at its rates jo.
func (l *passage) move(jo JobOutput, dt float64) {
	moved := dt * (jo.Read.MBps + jo.Write.MBps) * 1e6
	written := meanWritten(l.finds())
	l.bytes += moved
	l.writtenBytes += moved * written
	b, j := l.bucket(l.pass), l.part
	if b == 2 {
		j = 0 // the later passes are told together
	}
	for len(l.told[b]) <= j {
		l.told[b] = append(l.told[b], toldPart{seg: l.plan(l.pass)[len(l.told[b])]})
	}
	l.told[b][j].t += dt
	l.told[b][j].bytes += moved
	l.told[b][j].writtenBytes += moved * written
	if !l.settled() {
		l.at += dt * passRate(jo.Read, jo.Write, l.clones, l.sequential)
		l.onward()
	}
}

// onward moves on to the part (of this pass or the next) the job is in
// once it has reached the end of its own.
func (l *passage) onward() {
	parts := l.plan(l.pass)
	end := parts[len(parts)-1].to
	for l.at >= parts[l.part].to-1e-9*end {
		if l.part++; l.part == len(parts) {
			l.pass, l.part, l.at = l.pass+1, 0, math.Max(0, l.at-end)
			parts = l.plan(l.pass)
			end = parts[len(parts)-1].to
		}
	}
}

// readSegments cuts a lone sequential reader's pass where what its disks
// hold changes (a disk written over its first part only, say): fio reads
// the pass in order, so it meets the parts one after another. A sequential
// mix (rw) keeps a position per direction (fio 3.33, measured), so its
// reads also meet its own writes where those are ahead of them: with w
// bytes written per byte read, at p bytes into pass k its writes have
// reached w(kR+p) of a region of R bytes when each direction wraps on its
// own (by time), so from 0 to kwR/(1-w) of the pass (all of it once w >=
// 1, fewer reads than writes); size based, both restart when the reads
// wrap, so a later pass finds the wR bytes the one before wrote (a 70/30
// mix moving 48 MiB of a 16 MiB file: its writes at block 1,838 of 4,096
// when its reads wrapped, both from 0 after; by time its writes went on).
// nil where the reader finds the same all along, reads at random, leaves
// holes (rw=read:4k). A mix's loops go on where the last left off, as one
// run moving loops x size does (fio 3.33: with loops=3 the reads of a 70/30
// mix over a 16 MiB file run on from block 2,824 and wrap at its end, the
// writes with them).
func (pl *Plane) readSegments(jr JobRun) passPlan {
	sh, err := readJob(jr.Job)
	if err != nil || sh.fr <= 0 || sh.randomShare > 0 || sh.extent.hole > 0 || sh.extent.zone.size > 0 || sh.readBack > 0 {
		return nil // a reader leaving holes: what it finds is its reach's mean
	}
	if _, _, steady, _ := steadyWindow(jr.Job); steady {
		return nil // a steady-state criterion stops it on its own terms
	}
	clones := max(jr.Job.NumJobs, 1)
	type diskPass struct {
		data   diskData
		starts []float64
		passes []float64
	}
	var disks []diskPass
	cuts := []float64{0}
	pl.mu.Lock()
	for _, w := range jr.Workers {
		for _, d := range w.Disks {
			dp := diskPass{data: pl.data(w.Name, d)}
			size := pl.diskSize(d)
			for i := range clones {
				start, pass := sh.extent.cloneOffset(size, i), sh.extent.pass(size, i)
				dp.starts, dp.passes = append(dp.starts, start), append(dp.passes, pass)
				cuts = append(cuts, pass)
				for _, p := range dp.data.parts {
					for _, at := range []float64{p.start - start, p.end - start} {
						if at > 0 && at < pass {
							cuts = append(cuts, at)
						}
					}
				}
			}
			disks = append(disks, dp)
		}
	}
	pl.mu.Unlock()
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var segs []readSegment
	for k := 1; k < len(cuts); k++ {
		s := readSegment{from: cuts[k-1], to: cuts[k]}
		for _, dp := range disks {
			var ranges []byteRange
			for i, start := range dp.starts {
				if s.from < dp.passes[i] {
					ranges = append(ranges, byteRange{start + s.from, start + math.Min(s.to, dp.passes[i])})
				}
			}
			written, pct := dp.data.over(ranges)
			s.finds = append(s.finds, found{written, pct})
		}
		if n := len(segs); n > 0 && slices.Equal(segs[n-1].finds, s.finds) {
			segs[n-1].to = s.to
			continue
		}
		segs = append(segs, s)
	}
	w := 0.0 // bytes written per byte read
	if sh.fr < 1 {
		w = (1 - sh.fr) * meanSize(sh.sizes[write]) / (sh.fr * meanSize(sh.sizes[read]))
	}
	end := segs[len(segs)-1].to
	ahead := func(k int) float64 { // how far into pass k the job's own writes are
		switch {
		case w == 0:
			return 0
		case w >= 1:
			return end
		case jr.Job.TimeBased:
			return math.Min(end, float64(k)*w*end/(1-w))
		case k > 0:
			return w * end
		}
		return 0
	}
	own := found{1, float64(sh.compressPct)}
	plan := func(k int) []readSegment { return overlay(segs, ahead(k), own) }
	if first, next := plan(0), plan(1); len(first) < 2 && slices.EqualFunc(first, next, sameSegment) && ahead(0) == 0 {
		return nil // the same all along, as over its whole reach
	}
	return plan
}

// overlay is segs with what lies before at bytes into the pass replaced
// by f on every disk.
func overlay(segs []readSegment, at float64, f found) []readSegment {
	if at <= 0 {
		return segs
	}
	finds := make([]found, len(segs[0].finds))
	for i := range finds {
		finds[i] = f
	}
	out := []readSegment{{from: 0, to: at, finds: finds}}
	for _, s := range segs {
		if s.to > at {
			s.from = math.Max(s.from, at)
			out = append(out, s)
		}
	}
	return out
}

func sameSegment(a, b readSegment) bool {
	return a.from == b.from && a.to == b.to && slices.Equal(a.finds, b.finds)
}

// parts tells what the job found part by part, as read along its passes:
// each part's share of its pass, the share of what it moved there that
// found data, its mean rate and time there.
func (l *passage) parts() string {
	pass0 := l.plan(0)
	whole := pass0[len(pass0)-1].to
	var parts []string
	for b, name := range []string{"each pass", "the second pass", "later passes"} {
		if b == 0 && !l.same01 {
			name = "the first pass"
		}
		for _, x := range l.told[b] {
			mbps, share := 0.0, meanWritten(x.seg.finds)
			if x.t > 0 {
				mbps = x.bytes / x.t / 1e6
			}
			if x.bytes > 0 {
				share = x.writtenBytes / x.bytes
			}
			at := fmt.Sprintf("%.0f-%.0f %% of %s", 100*x.seg.from/whole, 100*x.seg.to/whole, name)
			if b == 2 {
				at = name
			}
			parts = append(parts, fmt.Sprintf("%s %.0f %% written, %.0f MB/s for %.4g s", at, 100*share, mbps, x.t))
		}
	}
	return strings.Join(parts, "; ")
}
