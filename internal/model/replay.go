package model

import (
	"fmt"
	"math"
	"slices"

	"starbench/internal/fio"
)

// fio seeds its random offsets alike on every run: with randrepeat on (its
// default) a thread's offset seed is a constant times the thread's number
// in its job file, whatever randseed says; with randrepeat=0 and a
// randseed, that seed times the number; only with neither is it drawn
// afresh (fio 3.33, init.c, setup_random_seeds and
// td_fill_rand_seeds_internal). So a random job of the same shape in the
// same place draws the same offsets in the same order, run after run,
// whatever its direction; and its read/write draws are seeded alike (from
// randseed, or fio's default), so a position a 70/30 job wrote, a 70/30
// job run again writes, and a 50/50 one reads there only where the 70/30
// one read. A reader after a writer of its shape reads, I/O for I/O,
// the blocks the writer drew, and finds data where the writer wrote them,
// however little of the disk it covered; a writer run again writes the
// blocks it wrote before.
//
// Measured with fio 3.33 on a 16 MiB file (4,096 blocks of 4 KiB), a
// randwrite of 4 MiB first (a quarter of the blocks): a randread of 4 MiB
// finds 1.000 of its blocks written, of 8 MiB 0.500 (all of its first
// half, none of the rest); with randrepeat=0 0.255; after a 70/30 randrw
// of 4 MiB a randread finds 0.310, a 70/30 randrw 0.000, a 50/50 one
// 0.000, and after a 50/50 one a 70/30 randrw 0.298; a second randwrite of
// 4 MiB leaves 0.25 of the file written, one of 8 MiB 0.50, one with
// randrepeat=0 0.44. A randread with randseed=12345 after a randwrite
// with none, or randseed=99999 after randseed=1, found 0.500 of 8 MiB
// (the same offsets); two runs with randrepeat=0 and randseed=5 did too,
// one with randrepeat=0 and randseed=7 after one with randseed=7 alone
// 0.244. Two mixes with different randseeds draw the same offsets but
// different directions; the model takes their directions as alike.

// streamKey names the sequence of random offsets a fio thread draws on a
// disk.
type streamKey struct {
	disk   diskKey
	thread int    // the thread's number in its worker's job file (JobRun.threads)
	shape  string // the rest the offsets depend on
}

// clone is the stream the i-th clone after the key's thread draws: the
// next thread's, fio numbering a section's clones one after another.
func (k streamKey) clone(i int) streamKey {
	k.thread += i
	return k
}

// streamRun is one run along a stream: how far its thread went along its
// first pass, in bytes of I/O (reads and writes), and the share of
// its I/Os that read.
type streamRun struct{ length, readShare float64 }

// streamOf is the stream a job's fio thread numbered thread draws on a
// disk, and whether the model follows it: a random job (all its offsets),
// evenly distributed, seeded as fio seeds by default,
// with the random map or without (norandommap: the same draws, taken as
// they come; measured, a randread of 8 MiB without the map after a 4 MiB
// randwrite without it finds its first half all written and then 0.22,
// the file's share; after one with the map 0.25), or by a ranked
// random_distribution (zipf, pareto, normal: the same draws, its hot
// blocks first, and beyond them those hot blocks again: restOf). Zoned
// distributions' offsets are taken as independent of every other run's
// (their zones already say where they read: skew.finds).
func streamOf(sh jobShape, job *fio.Job, thread int, disk diskKey) (streamKey, bool) {
	repeatable := rawValue(job, "randrepeat") != "0" && rawValue(job, "randrepeat") != "false"
	if thread < 0 || !repeatable && !hasRaw(job, "randseed") || sh.randomShare < 1 || !sh.skew.uniform() && !sh.skew.ranked() || sh.extent.zone.random {
		return streamKey{}, false
	}
	seed := "repeatable" // fio's constant, whatever randseed says
	if !repeatable {
		seed = "randseed=" + rawValue(job, "randseed")
	}
	sizes := sh.sizes[write]
	if sh.fr > 0 {
		sizes = sh.sizes[read]
	}
	e := sh.extent
	shape := fmt.Sprintf("%v|%v %v %v %v|%s|%s|%s|%s", sizes, e.size, e.offset, e.offsetIncrement, e.fileSize,
		rawValue(job, "random_generator"), seed, rawValue(job, "blockalign"), sh.skew.spec)
	return streamKey{disk, thread, shape}, true
}

// streamPath is what a stream's runs left along a clone's first pass of
// pass bytes: stretches, and on each the least read share of the runs that
// went over it (1 where none did: nothing written there).
type streamPath struct {
	cuts      []float64 // from 0 to the pass's end, ascending
	leastRead []float64 // one per stretch
}

func pathOf(runs []streamRun, pass float64) streamPath {
	cuts := []float64{0, pass}
	for _, r := range runs {
		if r.length > 0 && r.length < pass {
			cuts = append(cuts, r.length)
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	sp := streamPath{cuts: cuts}
	for k := 1; k < len(cuts); k++ {
		least := 1.0
		for _, r := range runs {
			if r.length >= cuts[k] {
				least = math.Min(least, r.readShare)
			}
		}
		sp.leastRead = append(sp.leastRead, least)
	}
	return sp
}

// written is the share of the pass's blocks the runs wrote.
func (sp streamPath) written() float64 {
	w := 0.0
	for k, least := range sp.leastRead {
		w += (sp.cuts[k+1] - sp.cuts[k]) * (1 - least)
	}
	return w / sp.cuts[len(sp.cuts)-1]
}

// fresh is the share of the pass's blocks a run as far as length with
// readShare writes that none of the runs wrote: where it writes (a draw
// above its read share) and every run before it read (at or below theirs).
func (sp streamPath) fresh(length, readShare float64) float64 {
	f := 0.0
	for k, least := range sp.leastRead {
		if span := math.Min(length, sp.cuts[k+1]) - sp.cuts[k]; span > 0 {
			f += span * math.Max(0, least-readShare)
		}
	}
	return f / sp.cuts[len(sp.cuts)-1]
}

// hits is, on stretch k, the share of the reads of a job with readShare
// whose block a run wrote: where it reads (a draw at or below its read
// share) and some run wrote (above theirs).
func (sp streamPath) hits(k int, readShare float64) float64 {
	if readShare <= 0 {
		return 0
	}
	return math.Max(0, readShare-sp.leastRead[k]) / readShare
}

// restOf is what a read of a stream finds where it draws no block the
// stream's runs wrote (they wrote own of the pass's worth), on a region
// of region bytes holding written: with fio's random map, or without it drawing evenly,
// the rest of the region's data (background; without the map any block);
// a ranked distribution draws its hot blocks again, which the runs wrote
// first (the accesses whose block own region's worth of draws wrote:
// hotSpread.hit), and beyond them the rest.
func (sh jobShape) restOf(own, written, region float64) float64 {
	switch {
	case sh.skew.ranked():
		hs := sh.hotSpread(region, 1)
		hit := hs.hit(own)
		return hit + (1-hit)*background(written, hs.covered(own))
	case sh.order == drawnAfresh:
		return written // without the map a draw lands on any block
	}
	return background(written, own) // the map keeps to blocks the stream did not draw
}

// background is the share written, of a range holding written of its
// blocks, that the stream's runs, holding streamWritten of them, did not
// write: what the stream's blocks hold from other runs (taken as
// independent of it).
func background(written, streamWritten float64) float64 {
	if streamWritten >= 1 {
		return written
	}
	return math.Max(0, math.Min(1, (written-streamWritten)/(1-streamWritten)))
}

// writeAlong records on a disk of disk bytes holding data the writes of a
// random job that moved bytes (reads and writes, all its clones) there,
// where it follows a stream (streamOf): each clone writes, along its first
// pass, the blocks of the stream no run before it wrote (fresh), which
// hold other runs' data as the rest of its region does; the caller holds
// pl.mu. False, and nothing written, where the job follows no stream or
// went past its first pass (its later passes draw anew: the caller covers
// them as independent of earlier runs; the stream keeps its first pass).
func (pl *Plane) writeAlong(data *diskData, sh jobShape, job *fio.Job, thread int, disk diskKey, size, moved, compressPct float64) bool {
	clones := max(job.NumJobs, 1)
	pass := sh.extent.region(size, 0)
	length := moved / float64(clones)
	first, ok := streamOf(sh, job, thread, disk)
	if !ok || pass <= 0 {
		return false
	}
	keys := make([]streamKey, clones) // each clone's own thread, its own stream
	for i := range keys {
		keys[i] = first.clone(i)
	}
	if length > pass {
		for _, key := range keys {
			pl.addRun(key, streamRun{pass, sh.fr})
		}
		return false
	}
	for i, key := range keys {
		path := pathOf(pl.streams[key], pass)
		fresh, own := path.fresh(length, sh.fr), path.written()
		start := sh.extent.cloneOffset(size, i)
		r := byteRange{start, start + sh.extent.region(size, i)}
		switch held, _ := data.over([]byteRange{r}); {
		case sh.skew.ranked():
			// The same hot blocks again: its draws beyond the stream's
			// earlier ones write what they add to its coverage.
			hs := sh.hotSpread(pass, 1)
			before, after := hs.covered(own), hs.covered(own+fresh)
			if before < 1 {
				data.write([]byteRange{r}, (after-before)/(1-before), compressPct)
			}
		case sh.order == drawnAfresh:
			// Without the random map the fresh draws land on any block,
			// written or not, as independent draws do.
			reachable := sh.alignedReach()
			data.write([]byteRange{r}, -reachable*math.Expm1(-fresh/reachable), compressPct)
		case held < 1:
			// Raise the region's written share by the fresh blocks that
			// held nothing: write covers (1-held) of what it reaches anew.
			data.write([]byteRange{r}, fresh*(1-background(held, own))/(1-held), compressPct)
		}
		pl.addRun(key, streamRun{length, sh.fr})
	}
	return true
}

// addRun adds a run to a stream, keeping only runs no other covers: one
// that went as far and read no more of its I/Os wrote wherever it did.
func (pl *Plane) addRun(key streamKey, run streamRun) {
	covers := func(a, b streamRun) bool { return a.length >= b.length && a.readShare <= b.readShare }
	runs := pl.streams[key]
	if slices.ContainsFunc(runs, func(r streamRun) bool { return covers(r, run) }) {
		return
	}
	pl.streams[key] = append(slices.DeleteFunc(runs, func(r streamRun) bool { return covers(run, r) }), run)
}

// replaySegments cuts the first pass of a random job that reads and
// follows streams earlier runs wrote along (streamOf) where what its reads
// find changes: on each stretch, per disk and clone (each its own fio
// thread, its own stream), the reads whose block a run wrote (hits) find
// data, the rest what the rest of the region holds (background); a clone
// whose stream no run drew finds the even share. On later passes, drawn anew, it finds its reach's even
// share. nil where it follows no stream with writes, or its disks'
// passes differ in size.
func (pl *Plane) replaySegments(jr JobRun) passPlan {
	sh, err := readJob(jr.Job)
	if err != nil || sh.fr <= 0 || jr.readsBack || sh.readBack > 0 {
		return nil
	}
	type clonePath struct { // what a clone's stream's runs left, where they left any
		path streamPath
		rest float64 // what a read finds that draws no block the runs wrote where it draws
	}
	type diskPaths struct {
		even   found
		clones []*clonePath // per clone, nil where its stream has no runs
	}
	var disks []diskPaths
	cuts := []float64{0}
	pass := -1.0
	pl.mu.Lock()
	for _, w := range jr.Workers {
		for _, d := range w.Disks {
			size := pl.diskSize(d)
			p := sh.extent.region(size, 0)
			if p <= 0 || pass >= 0 && p != pass {
				pl.mu.Unlock()
				return nil
			}
			pass = p
			written, pct := sh.finds(pl.data(w.Name, d), size, jr.Job.NumJobs)
			dp := diskPaths{even: found{written, pct}, clones: make([]*clonePath, max(jr.Job.NumJobs, 1))}
			thread, followed := jr.threads[diskKey{w.Name, d.Name}]
			first, ok := streamOf(sh, jr.Job, thread, diskKey{w.Name, d.Name})
			for c := range dp.clones {
				if runs := pl.streams[first.clone(c)]; followed && ok && len(runs) > 0 {
					path := pathOf(runs, pass)
					dp.clones[c] = &clonePath{path, sh.restOf(path.written(), written, pass)}
					cuts = append(cuts, path.cuts...)
				}
			}
			disks = append(disks, dp)
		}
	}
	pl.mu.Unlock()
	cuts = append(cuts, pass)
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var segs []readSegment
	replays := false
	for k := 1; k < len(cuts); k++ {
		s := readSegment{from: cuts[k-1], to: cuts[k]}
		for _, dp := range disks {
			f := dp.even
			if slices.ContainsFunc(dp.clones, func(cp *clonePath) bool { return cp != nil }) {
				f.written = 0
				for _, cp := range dp.clones { // each clone reads its own stream
					share := dp.even.written
					if cp != nil {
						at, _ := slices.BinarySearch(cp.path.cuts, s.to)
						hits := cp.path.hits(at-1, sh.fr)
						share = hits + (1-hits)*cp.rest
					}
					f.written += share / float64(len(dp.clones))
				}
			}
			replays = replays || f != dp.even
			s.finds = append(s.finds, f)
		}
		if n := len(segs); n > 0 && slices.Equal(segs[n-1].finds, s.finds) {
			segs[n-1].to = s.to
			continue
		}
		segs = append(segs, s)
	}
	if !replays {
		return nil
	}
	var later []found // drawn anew: the even share, or a ranked stream's hot blocks again
	for _, dp := range disks {
		f := dp.even
		if sh.skew.ranked() && slices.ContainsFunc(dp.clones, func(cp *clonePath) bool { return cp != nil }) {
			f.written = 0
			for _, cp := range dp.clones {
				share := dp.even.written
				if cp != nil {
					share = cp.rest
				}
				f.written += share / float64(len(dp.clones))
			}
		}
		later = append(later, f)
	}
	return func(k int) []readSegment {
		if k == 0 {
			return segs
		}
		return []readSegment{{from: 0, to: pass, finds: later}}
	}
}
