package model

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"starbench/internal/fio"
)

// dedupeWorkingSet reads dedupe_mode=working_set: fio 3.33 takes the
// first unique buffers a job writes, dedupe_working_set_percentage (5 by
// default) of its size, as its working set and draws each duplicate from
// them at random (dedupe.c, io_u.c get_buf_state). It refuses the job
// without a size, with more than one file, or with the working set and
// dedupe_percentage above 100 % together (init.c), and so does the model.
func (sh *jobShape) dedupeWorkingSet(job *fio.Job) error {
	if rawValue(job, "dedupe_mode") != "working_set" || sh.dedupePct == 0 {
		return nil
	}
	pct := 5
	if v := rawValue(job, "dedupe_working_set_percentage"); v != "" {
		pct, _ = strconv.Atoi(v) // option checked its range
	}
	switch {
	case sh.extent.size == amount{}:
		return fmt.Errorf("dedupe_mode=working_set: give size= (fio 3.33 refuses the job: its working set is a share of size)")
	case pct+sh.dedupePct > 100:
		return fmt.Errorf("dedupe_mode=working_set: dedupe_working_set_percentage=%d and dedupe_percentage=%d add up to more than 100 (fio 3.33 refuses the job: the working set's blocks are unique)", pct, sh.dedupePct)
	case strings.TrimSpace(rawValue(job, "nrfiles")) != "" && rawValue(job, "nrfiles") != "1":
		return fmt.Errorf("dedupe_mode=working_set: fio 3.33 supports one file per job, not nrfiles=%s", rawValue(job, "nrfiles"))
	}
	sh.workingSet = float64(pct) / 100
	return nil
}

// workingSetDupes is the share of n writes whose data an earlier write
// wrote, for a job drawing a share p of its writes from a working set of
// set buffers: its unique writes u = (1-p)n are new data, and while they
// have not yet written the whole set a draw may be of a buffer not
// written yet. The draws d = pn reach 1-exp(-d/set) of the set, so the
// data written is u + (set-u)(1-exp(-d/set)) buffers while u < set, u
// after. Measured with fio 3.33 on a 16 MiB file of 4 KiB blocks, 4 MiB
// written at dedupe_percentage=50: 0.181 of the blocks repeat earlier
// ones with a working set of 50 % (the formula: 0.168), 0.498 with 5 %
// and 0.499 in repeat mode (0.5).
func workingSetDupes(p, n, set float64) float64 {
	if n <= 0 {
		return 0
	}
	u, d := (1-p)*n, p*n
	distinct := u
	if u < set {
		distinct += (set - u) * -math.Expm1(-d/set)
	}
	return math.Max(0, 1-distinct/n)
}

// repeatedBuffers reads what makes fio write the same data again and
// again: verify=pattern's verify_pattern (patternOnly), zero_buffers or a
// buffer_pattern (every buffer alike), or
// scramble_buffers=0 (each I/O's buffer filled once and written as it is,
// a buffer per I/O in flight). fio 3.33 fills a buffer anew for every
// write with buffer_compress_percentage, dedupe_percentage or
// refill_buffers, and verify writes a header into each block, so those
// repeat nothing. Measured on a 16 MiB file of 4 KiB blocks, 1,024 writes:
// zero_buffers and buffer_pattern=0xdeadbeef leave 1 distinct block,
// scramble_buffers=0 1 with psync, 8 with libaio at iodepth=8, 16 with
// bs=64k, 4 from numjobs=4; the default 1,024.
func (sh *jobShape) repeatedBuffers(job *fio.Job) {
	refilled := sh.dedupePct > 0 || job.BufferCompressPercentage > 0 || hasRaw(job, "buffer_compress_percentage") ||
		flagSet(job, "refill_buffers") || sh.verifies(job)
	alike := flagSet(job, "zero_buffers") || hasRaw(job, "buffer_pattern")
	switch {
	case patternOnly(job): // the pattern is all it writes, refilled or not
		sh.sameBlocks, sh.sameBecause = 1, "every buffer verify_pattern's pattern, with verify=pattern"
	case refilled:
	case alike:
		sh.sameBlocks, sh.sameBecause = 1, "every buffer alike (zero_buffers or buffer_pattern)"
	case hasRaw(job, "scramble_buffers") && !flagSet(job, "scramble_buffers"):
		sh.sameBlocks = float64(sh.buffers) * math.Ceil(sh.largestWrite()/efficiencyBlock)
		sh.sameBecause = fmt.Sprintf("scramble_buffers=0: its %d buffers written as filled", sh.buffers)
	}
}

// verifies says fio writes verification headers into the job's blocks:
// with a verify that checks headers, or verify_pattern alone (fio 3.33:
// 65 distinct blocks in 65 4 KiB writes, each 76 bytes to lz4).
func (sh *jobShape) verifies(job *fio.Job) bool {
	v := rawValue(job, "verify")
	if !hasRaw(job, "verify") {
		return hasRaw(job, "verify_pattern")
	}
	return v != "0" && v != "null" && v != "pattern"
}

// globalSetDupes is workingSetDupes for threads fio jobs that share one
// working set (dedupe_global): fio 3.33 (dedupe.c) builds each job's set
// of set blocks from the first set/threads unique blocks of every job, so
// the set is one of set blocks for all, each job's first unique writes
// filling its part of it, every duplicate drawn from all of it. Measured
// with two jobs of 1,024 4 KiB writes at dedupe_percentage=50 from sets
// of 2,048: 0.308 of the blocks repeat earlier ones (0.178 without
// dedupe_global); the formula 0.303.
func globalSetDupes(p, n, set, threads float64) float64 {
	if n <= 0 || threads < 1 {
		return 0
	}
	u, d := (1-p)*n*threads, p*n*threads
	filled := threads * math.Min((1-p)*n, set/threads) // the set's blocks the unique writes wrote
	distinct := u + (set-filled)*-math.Expm1(-d/set)
	return math.Max(0, 1-distinct/(n*threads))
}

// threadsPerWorker is how many fio jobs (threads) a worker's job file runs:
// a section per job and disk, its numjobs clones each.
func threadsPerWorker(jobs []JobRun) float64 {
	threads := 0.0
	for _, j := range jobs {
		if len(j.Workers) > 0 {
			threads += float64(len(j.Workers[0].Disks) * max(j.Job.NumJobs, 1))
		}
	}
	return threads
}

// patternOnly says every write is verify_pattern's pattern and nothing
// else: verify=pattern writes no header (fio 3.33: 1 distinct block in 65
// 4 KiB writes, whatever buffer_compress_percentage says).
func patternOnly(job *fio.Job) bool {
	return rawValue(job, "verify") == "pattern" && hasRaw(job, "verify_pattern")
}

// settleDedupe gives each job whose writes repeat earlier data in a way
// its run decides the share of duplicates that run writes, in place of
// dedupe_percentage, with a note: a working set's (workingSetDupes), and
// repeated buffers' (all but their distinct blocks). Its writes per fio
// job are what its size-based run moves, or its rate (solved as given)
// over its runtime.
func (pl *Plane) settleDedupe(ctx context.Context, jobs []JobRun) ([]JobRun, []string, error) {
	var out *Output
	var notes []string
	settled, copied := jobs, false
	for i, j := range jobs {
		sh, err := readJob(j.Job)
		if err != nil || sh.workingSet == 0 && sh.sameBlocks == 0 || sh.fr >= 1 {
			continue // solving reads the same job and says what is wrong
		}
		disks := disksOf(j.Workers)
		if len(disks) == 0 {
			continue
		}
		disk := pl.diskSize(disks[0])
		writeBytes := meanSize(sh.sizes[write])
		var writes float64 // per fio job
		if j.Job.TimeBased {
			if out == nil {
				in, _, err := pl.workloadInput(ctx, jobs)
				if err != nil {
					return nil, nil, err
				}
				if out, err = pl.solved.solve(ctx, pl.p, in); err != nil {
					return nil, nil, err
				}
			}
			writes = out.Jobs[i].Write.IOPS / j.fioJobs() * float64(j.Job.RuntimeSec+j.Job.RampSec)
		} else {
			clones := max(j.Job.NumJobs, 1)
			writes = sh.extent.moved(disk, sh.meanIO(), clones) / float64(clones) * (1 - sh.fr) / writeBytes
		}
		job := *j.Job
		var note string
		if sh.workingSet > 0 {
			smallest := writeBytes
			for _, s := range sh.sizes[write] {
				smallest = math.Min(smallest, float64(s.size))
			}
			set := math.Floor(sh.extent.size.of(disk) * sh.workingSet / smallest)
			p := float64(sh.dedupePct) / 100
			share := workingSetDupes(p, writes, set)
			whose := "the first %.0f unique blocks each fio job writes"
			if flagSet(j.Job, "dedupe_global") {
				threads := threadsPerWorker(jobs)
				share = globalSetDupes(p, writes, set, threads)
				whose = fmt.Sprintf("one working set of %%.0f blocks shared by the %.0f fio jobs of a worker, the first unique ones of each (dedupe_global)", threads)
			}
			job.DedupePercentage = int(math.Round(100 * share))
			note = fmt.Sprintf("%s: dedupe_mode=working_set draws duplicates from "+whose+", so of its about %.0f writes per fio job %.0f %% repeat earlier data, not dedupe_percentage=%d %%: modelled as dedupe_percentage=%d", j.Job.Name, set, writes, 100*share, sh.dedupePct, job.DedupePercentage)
		} else {
			blocks := writes * math.Max(1, writeBytes/efficiencyBlock)
			share := math.Max(0, 1-sh.sameBlocks/blocks)
			job.DedupePercentage = int(math.Round(100 * share))
			note = fmt.Sprintf("%s writes the same data again and again (%s): of its about %.0f 4 KiB blocks per fio job all but %.0f repeat earlier data, which deduplication finds: modelled as dedupe_percentage=%d", j.Job.Name, sh.sameBecause, blocks, sh.sameBlocks, job.DedupePercentage)
		}
		if !copied {
			settled, copied = slices.Clone(jobs), true
		}
		settled[i].Job = &job
		notes = append(notes, note)
	}
	return settled, notes, nil
}
