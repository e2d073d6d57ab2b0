package model

import (
	"context"
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

// readSegments cuts a lone sequential reader's pass where what its disks
// hold changes (a disk written over its first part only, say): fio reads
// the pass in order, so it meets the parts one after another. A sequential
// mix (rw) keeps a position per direction, its writes behind its reads, so
// its reads meet the parts as they were too, on its first pass (a later
// pass would find its own writes: a time-based mix, or one of several
// loops, is left out).
// nil where the reader finds the same all along, reads at random or leaves
// holes (rw=read:4k).
func (pl *Plane) readSegments(jr JobRun) []readSegment {
	sh, err := readJob(jr.Job)
	if err != nil || sh.fr <= 0 || sh.randomShare > 0 || sh.extent.hole > 0 {
		return nil // a reader leaving holes: what it finds is its reach's mean
	}
	if sh.fr < 1 && (jr.Job.TimeBased || sh.extent.loops > 1) {
		return nil
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
	if len(segs) < 2 {
		return nil
	}
	return segs
}

// readThrough runs a lone reader through its pass as fio reads it:
// segment after segment, each solved with what the reader finds there
// (scaled by the run's noise draw z) for as long as reading it takes at
// that rate, pass after pass, until the job's time or extent ends; where
// later is given, passes after the first find that all along. So a
// sequential reader of a disk written over its first part reads that part
// at the rate of written blocks and the rest at the rate of blocks never
// written, its samples showing the step. It returns the run in time, the
// input and output of the segment it spent the longest in (the run's
// view), and a note, after lead, saying what it read where.
func (pl *Plane) readThrough(ctx context.Context, jr JobRun, segs []readSegment, later []found, lead string, z float64) (span, Input, *Output, string, error) {
	job := jr.Job
	sh, err := readJob(job)
	if err != nil {
		return span{}, Input{}, nil, "", err
	}
	first := len(segs) // segments of the first pass; a later one follows
	if later != nil {
		segs = append(slices.Clone(segs), readSegment{from: 0, to: segs[len(segs)-1].to, finds: later})
	}
	ins, outs := make([]Input, len(segs)), make([]*Output, len(segs))
	for k, s := range segs {
		run := jr
		run.finds = s.finds
		if ins[k], outs[k], _, err = pl.solveCell(ctx, []JobRun{run}, z); err != nil {
			return span{}, Input{}, nil, "", err
		}
		outs[k].Notes = slices.DeleteFunc(outs[k].Notes, func(n string) bool { return strings.Contains(n, "never written") })
	}
	disks := disksOf(jr.Workers)
	perClone := jr.fioJobs() // readers, each on its own pass
	ramp := float64(job.RampSec)
	limit := math.Inf(1)
	if job.RuntimeSec > 0 {
		limit = ramp + float64(job.RuntimeSec)
	}
	// A sequential job keeps a position per direction (fio 3.33: a 70/30
	// rw mix moving a 16 MiB file's size reads its first 2,824 blocks and
	// writes its first 1,272), so its reads move along the pass by reads
	// alone; a random stream moves by every I/O.
	sequential := sh.randomShare == 0
	moves := 1.0 // the share of the bytes moved that move the pass on
	if sequential {
		moves = sh.fr * meanSize(sh.sizes[read]) / sh.meanIO()
	}
	toRead := math.Inf(1) // bytes each clone moves along its pass on each disk
	if !job.TimeBased {
		moved := 0.0
		for _, d := range disks {
			moved += sh.extent.moved(pl.diskSize(d), sh.meanIO(), job.NumJobs)
		}
		toRead = moves * moved / perClone
	}
	sp := span{ramp: ramp}
	spent := make([]float64, len(segs))
	t, read := 0.0, 0.0
	pass := make([]int, first) // the segments of a pass, in order
	for k := range pass {
		pass[k] = k
	}
	for t < limit*(1-1e-12) && read < toRead*(1-1e-12) {
		before := t
		for _, k := range pass {
			s := segs[k]
			rate := (outs[k].Read.MBps + outs[k].Write.MBps) * 1e6 / perClone
			if sequential {
				rate = outs[k].Read.MBps * 1e6 / perClone
			}
			if rate <= 0 {
				return span{}, Input{}, nil, "", fmt.Errorf("the reader makes no progress where its disks are %.0f %% written", 100*s.finds[0].written)
			}
			dt := math.Min((s.to-s.from)/rate, math.Min(limit-t, (toRead-read)/rate))
			sp.phases = append(sp.phases, phase{t, t + dt, [2]Direction{outs[k].Read, outs[k].Write}})
			spent[k] += dt
			t, read = t+dt, read+dt*rate
			if t >= limit*(1-1e-12) || read >= toRead*(1-1e-12) {
				break
			}
		}
		if t == before {
			break
		}
		if later != nil {
			pass = []int{first}
		}
	}
	sp.end = t
	pl.mu.Lock()
	bufferBurst(pl.p, &pl.buffer, outs[0], t) // reads let OSA's elevators drain the buffers
	pl.mu.Unlock()
	main := 0
	for k := range spent {
		if spent[k] > spent[main] {
			main = k
		}
	}
	var parts []string
	whole := segs[len(segs)-1].to
	where := "each pass"
	if later != nil {
		where = "the first pass"
	}
	for k, s := range segs {
		written := 0.0
		for _, f := range s.finds {
			written += f.written
		}
		at := fmt.Sprintf("%.0f-%.0f %% of %s", 100*s.from/whole, 100*s.to/whole, where)
		if k == first {
			at = "later passes"
		}
		parts = append(parts, fmt.Sprintf("%s %.0f %% written, %.0f MB/s for %.4g s", at, 100*written/float64(len(s.finds)), outs[k].Read.MBps+outs[k].Write.MBps, spent[k]))
	}
	note := lead + ", each solved with what it finds there (a read of a block never written costs a metadata lookup and the guest's copy, no device): " + strings.Join(parts, "; ")
	return sp, ins[main], outs[main], note, nil
}
