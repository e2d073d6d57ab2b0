package model

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// fio keeps a random map for each file of a random job (fio 3.33,
// filesetup.c init_random_map): a bit per block of the job's smallest
// block size, so that a pass gives every block one I/O. A random I/O
// starts at a random block or, where that one is done, at the next free
// one (io_u.c get_next_rand_offset, lib/axmap.c axmap_next_free), and
// mark_random_map cuts it short at the first block already done. With
// mixed block sizes the I/Os of a pass come out smaller than drawn, the
// more so the fuller the map: a size-based randread of bssplit=4k/50:64k/50
// over 64 MiB averages 20,573 bytes an I/O (33,901 with norandommap), a
// quarter pass 29,177. A time-based run starts the map over once it is
// full.

// mapBlocks is the blocks of the map the model simulates: the sizes a
// pass leaves depend on the sizes in blocks, not on the map's length.
const mapBlocks = 1 << 17

// mapTrims says whether fio's random map cuts the job's random I/Os
// short: the job has random I/Os, fio keeps the map (not with
// norandommap, a non-uniform random_distribution, a blockalign off the
// smallest size, or the lfsr generator: init.c, filesetup.c), and some
// random I/O is larger than the map's block. Where reads' and writes'
// smallest sizes differ, fio marks each direction in its own block size
// on one map, which leaves the sizes as drawn but ends a size-based job
// early: noted.
func (sh *jobShape) mapTrims(job *fio.Job) bool {
	if sh.randomShare == 0 || flagSet(job, "norandommap") || !sh.skew.uniform() || sh.alignedApart() || rawValue(job, "random_generator") == "lfsr" {
		return false
	}
	var smallest [2]int64
	mixed := false
	for dir := range sh.sizes {
		if dir == read && sh.fr == 0 || dir == write && sh.fr == 1 {
			continue // no I/O that way
		}
		smallest[dir] = slices.MinFunc(sh.sizes[dir], bySize).size
		mixed = mixed || slices.MaxFunc(sh.sizes[dir], bySize).size > smallest[dir]
	}
	if smallest[read] > 0 && smallest[write] > 0 && smallest[read] != smallest[write] {
		sh.notes = append(sh.notes, fmt.Sprintf("fio's random map, with reads of at least %d bytes and writes of at least %d, marks each in its own block size on one map of %d-byte blocks: measured with fio 3.33 (randrw 70/30, bs=4k,64k, over 64 MiB) the sizes stay as drawn, as the model runs them, but a size-based job stops after half its size (32 MiB), which the model does not follow", smallest[read], smallest[write], min(smallest[read], smallest[write])))
		return false
	}
	return mixed
}

func bySize(a, b sizeShare) int { return cmp.Compare(a.size, b.size) }

// mapSizes sets the job's sizes as fio's random map leaves them over
// passes passes of its random I/O over its region (+Inf: without end),
// its sequential I/Os as drawn, and notes it.
func (sh *jobShape) mapSizes(passes float64) {
	if !(passes > 0) {
		return // no random I/O to cut short
	}
	drawn := sh.meanIO()
	sh.randomSizes(mapPassOf(sh.sizes, sh.fr).over(passes))
	over := "each pass"
	if !math.IsInf(passes, 1) {
		over = fmt.Sprintf("the %.2g passes each fio job makes over its region", passes)
	}
	sh.notes = append(sh.notes, fmt.Sprintf("fio's random map cuts short the random I/Os that reach blocks already done in a pass (io_u.c mark_random_map): over %s they average %.0f bytes, not the %.0f drawn (fio 3.33, bssplit=4k/50:64k/50 over 64 MiB: 20,573 bytes, 33,901 with norandommap); norandommap keeps the sizes as drawn", over, sh.meanIO(), drawn))
}

// randomPasses is how many passes of random I/O each of a job's clones
// makes over its region on a disk of disk bytes: what a size-based job
// moves (extent.moved), its random share; +Inf when time based (see
// settleRandomMap).
func (sh *jobShape) randomPasses(disk float64, clones int) float64 {
	if sh.timeBased {
		return math.Inf(1)
	}
	clones = max(clones, 1)
	return sh.extent.moved(disk, sh.meanIO(), clones) / float64(clones) / sh.extent.region(disk, 0) * sh.randomShare
}

// mapPass is what a pass of the random map leaves of each direction's
// drawn sizes: at[c] the counts of I/Os of each size once c % of the map
// is done.
type mapPass struct {
	at [101][2]map[int64]float64
}

var mapPasses sync.Map // mapPassKey -> *mapPass

type mapPassKey struct {
	sizes string
	fr    float64
}

// mapPassOf simulates a pass of the random map for random I/Os of the
// given sizes, a share fr of them reads, as fio 3.33 makes it (a seeded
// generator: the same sizes give the same pass).
func mapPassOf(sizes [2][]sizeShare, fr float64) *mapPass {
	key := mapPassKey{fmt.Sprint(sizes), fr}
	if p, ok := mapPasses.Load(key); ok {
		return p.(*mapPass)
	}
	unit := int64(math.MaxInt64)
	for dir := range sizes {
		if dir == read && fr > 0 || dir == write && fr < 1 {
			unit = min(unit, slices.MinFunc(sizes[dir], bySize).size)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	// next[b] leads to the first free block at or after b (mapBlocks: none).
	next := make([]int32, mapBlocks+1)
	for i := range next {
		next[i] = int32(i)
	}
	free := func(b int32) int32 {
		root := b
		for next[root] != root {
			root = next[root]
		}
		for next[b] != root {
			next[b], b = root, next[b]
		}
		return root
	}
	p := &mapPass{}
	counts := [2]map[int64]float64{{}, {}}
	done, mark := 0, 0
	for done < mapBlocks {
		dir := write
		if rng.Float64() < fr {
			dir = read
		}
		size := drawSize(sizes[dir], rng.Float64())
		start := free(int32(rng.IntN(mapBlocks)))
		if start == mapBlocks { // axmap_next_free wraps to the map's start
			start = free(0)
		}
		want := int32((size + unit - 1) / unit)
		run := int32(0)
		for run < want && start+run < mapBlocks && free(start+run) == start+run {
			next[start+run] = start + run + 1
			run++
		}
		done += int(run)
		counts[dir][min(size, int64(run)*unit)]++
		for ; mark <= 100 && done*100 >= mark*mapBlocks; mark++ {
			p.at[mark] = [2]map[int64]float64{maps.Clone(counts[read]), maps.Clone(counts[write])}
		}
	}
	mapPasses.Store(key, p)
	return p
}

// drawSize is the size a uniform draw u picks from sizes.
func drawSize(sizes []sizeShare, u float64) int64 {
	for _, s := range sizes {
		if u -= s.share; u < 0 {
			return s.size
		}
	}
	return sizes[len(sizes)-1].size
}

// over is the sizes each direction's random I/Os come out at over passes
// passes (+Inf, or many: whole passes alone); a part of a pass between two
// whole percents of the map as the line between their counts, so the
// sizes move smoothly with the passes (a part under 1 % has the first 1 %'s
// shares).
func (p *mapPass) over(passes float64) [2][]sizeShare {
	whole, part := math.Floor(passes), passes-math.Floor(passes)
	if math.IsInf(passes, 1) || whole >= 100 {
		whole, part = 1, 0
	}
	lo := min(int(100*part), 99)
	w := 100*part - float64(lo) // of the way from lo % to lo+1 %
	var out [2][]sizeShare
	for dir := range out {
		counts := map[int64]float64{}
		for size, n := range p.at[100][dir] {
			counts[size] += whole * n
		}
		if part > 0 {
			for size, n := range p.at[lo][dir] {
				counts[size] += (1 - w) * n
			}
			for size, n := range p.at[lo+1][dir] {
				counts[size] += w * n
			}
		}
		out[dir] = sharesOf(counts)
	}
	return out
}

// between is the sizes each direction's random I/Os come out at while the
// pass takes the map from a share from done to a share to (whole
// percents).
func (p *mapPass) between(from, to float64) [2][]sizeShare {
	a, b := int(math.Round(100*from)), int(math.Round(100*to))
	var out [2][]sizeShare
	for dir := range out {
		counts := maps.Clone(p.at[b][dir])
		for size, n := range p.at[a][dir] {
			counts[size] -= n
		}
		out[dir] = sharesOf(counts)
	}
	return out
}

// sharesOf is counts of I/Os by size as each size's share, by size; nil
// for none.
func sharesOf(counts map[int64]float64) []sizeShare {
	total := 0.0
	for _, n := range counts {
		total += n
	}
	var out []sizeShare
	for _, size := range slices.Sorted(maps.Keys(counts)) {
		if counts[size] > 0 {
			out = append(out, sizeShare{size, counts[size] / total})
		}
	}
	return out
}

// sliceSizes sets the job's sizes as fio's random map leaves them while a
// pass takes the map from slice[0] done to slice[1] (see JobLoad.mapSlice),
// its sequential I/Os as drawn.
func (sh *jobShape) sliceSizes(slice [2]float64) {
	sh.randomSizes(mapPassOf(sh.sizes, sh.fr).between(slice[0], slice[1]))
}

// randomSizes gives the job's random I/Os the sizes of each direction that
// has them in random, its sequential I/Os keeping theirs as drawn.
func (sh *jobShape) randomSizes(random [2][]sizeShare) {
	for dir := range sh.sizes {
		if len(random[dir]) > 0 {
			sh.sizes[dir] = blend(sh.sizes[dir], 1-sh.randomShare, random[dir])
		}
	}
}

// settleRandomMap gives each time-based job whose random I/Os fio's random
// map cuts short the passes its fio jobs make over their regions in its
// ramp and runtime, from a first solve with the sizes of whole passes (the
// smallest: a bound on its bytes). in is returned as given where no job
// is such.
func settleRandomMap(ctx context.Context, p *testbed.Profile, in Input) (Input, error) {
	timed := func(jl JobLoad) bool {
		_, ok := jl.timedMap()
		return ok
	}
	return settleFromFirstSolve(ctx, p, in, timed, func(jl *JobLoad, jo JobOutput) {
		sh, _ := jl.shape()
		perFioJob := (jo.Read.MBps + jo.Write.MBps) * 1e6 * float64(jl.Job.RuntimeSec+jl.Job.RampSec) / float64(len(jl.Disks)*max(jl.Job.NumJobs, 1))
		jl.mapPasses = perFioJob * sh.randomShare / sh.extent.region(diskBytes(p, jl.Disks[0]), 0)
	})
}

// timedMap says whether the job is time based and fio's random map cuts
// its random I/Os short, and gives its shape where it is: what
// settleRandomMap settles and mapPassPhases lays out. A stretch's solve
// (mapSlice) has its sizes already (newCell).
func (jl JobLoad) timedMap() (jobShape, bool) {
	if !jl.Job.TimeBased || jl.Job.RuntimeSec <= 0 || len(jl.Disks) == 0 || jl.mapSlice[1] > 0 {
		return jobShape{}, false // a size-based job's passes are its size's (newCell)
	}
	if len(jl.Job.BSSplit) == 0 && !hasRaw(jl.Job, "bssplit") && !hasRaw(jl.Job, "bsrange") {
		return jobShape{}, false // one size a direction: reading the job's options on every solve for nothing
	}
	sh, err := jl.shape()
	return sh, err == nil && sh.mapTrims(jl.Job)
}

// mapSlices is how many stretches of a pass mapPassPhases solves apart.
const mapSlices = 10

// mapPassPhases lays a lone time-based job whose random I/Os fio's random
// map cuts short out pass by pass, from the run's start (its ramp too):
// each tenth of a pass solved at the sizes it leaves (JobLoad.mapSlice)
// and scaled by the run's noise draw z, lasting what a fio job takes to
// move a tenth of its region at that rate, at the burst's while OSA's
// write buffers absorb its writes (sp.burst) and at the steady one after.
// The samples then show each pass's I/Os shrinking as its map fills, and
// the run's figures are their mean. sp (the job's run laid out) is
// returned as it is, with no note, where the job is not such, moves only
// part of it at random, or makes passes too short for its samples to show
// (under ten intervals at the steady rates).
func (pl *Plane) mapPassPhases(ctx context.Context, in Input, z float64, sp span) (span, string, error) {
	if len(in.Jobs) != 1 {
		return sp, "", nil
	}
	jl := in.Jobs[0]
	sh, ok := jl.timedMap()
	if !ok || sh.randomShare < 1 {
		return sp, "", nil
	}
	tenth := sh.extent.region(diskBytes(pl.p, jl.Disks[0]), 0) / mapSlices // bytes a fio job moves in a tenth of a pass
	fioJobs := float64(len(jl.Disks) * max(jl.Job.NumJobs, 1))
	// Each tenth's figures and rate (bytes a second a fio job) in the
	// steady regime [0] and the burst [1].
	var dirs [mapSlices][2][2]Direction
	var rate [mapSlices][2]float64
	pass := 0.0
	for k := range mapSlices {
		part := in
		part.Jobs = []JobLoad{jl}
		part.Jobs[0].mapSlice = [2]float64{float64(k) / mapSlices, float64(k+1) / mapSlices}
		out, err := pl.solved.solve(ctx, pl.p, part)
		if err != nil {
			return sp, "", err
		}
		pl.applyDraw(z, out, out.Burst)
		regimes := []*Output{out}
		if sp.burst > 0 {
			regimes = append(regimes, out.Burst)
		}
		for r, o := range regimes {
			if o == nil {
				return sp, "", nil
			}
			dirs[k][r], rate[k][r] = [2]Direction{o.Read, o.Write}, (o.Read.MBps+o.Write.MBps)*1e6/fioJobs
			if !(rate[k][r] > 0) {
				return sp, "", nil
			}
		}
		pass += tenth / rate[k][0]
	}
	if pass < 10*sampleInterval(sp.end-sp.ramp) {
		return sp, "", nil
	}
	sp.phases = nil
	left := tenth
	for t, k := 0.0, 0; t < sp.end; {
		r, until := 0, sp.end
		if t < sp.burst {
			r, until = 1, sp.burst
		}
		to := math.Min(t+left/rate[k][r], until)
		sp.phases = append(sp.phases, phase{t, to, dirs[k][r]})
		if left -= (to - t) * rate[k][r]; left <= 1e-9*tenth {
			k, left = (k+1)%mapSlices, tenth
		}
		t = to
	}
	return sp, fmt.Sprintf("fio's random map: each pass over a disk's region takes %.0f s, its I/Os shrinking as the map fills (%.0f bytes on average in its first tenth, %.0f in its last); the samples follow each pass tenth by tenth, and the run's figures are their mean",
		pass, meanBytes(dirs[0][0]), meanBytes(dirs[mapSlices-1][0])), nil
}

// meanBytes is the mean size of the I/Os of both directions.
func meanBytes(dirs [2]Direction) float64 {
	return (dirs[read].MBps + dirs[write].MBps) * 1e6 / (dirs[read].IOPS + dirs[write].IOPS)
}
