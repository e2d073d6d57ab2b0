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

// stretch is a stretch of time in a run of concurrent jobs during which the
// same jobs run: one solve of them together.
type stretch struct {
	from, to float64 // seconds since the run began, ramps included
	jobs     []int   // the run's jobs in this stretch, in cell.out.Jobs' order
	checking []int   // those of them in verify's read-back pass
	held     []int   // jobs started but held by their flow groups (flowHolds), no I/O
	burst    float64 // seconds from `from` at OSA's burst rate
	cell     *cellTime
}

// cellTime is a solve of the jobs of stretches and the time the run spent
// in them; length and pace are, for each of its jobs, how long it runs at
// the cell's rates (runSeconds, its ramp included before any read-back)
// and how many times faster it gets on at the burst's (1 where its time,
// not its size, bounds it).
type cellTime struct {
	in           Input
	out          *Output
	spent        float64
	length, pace []float64
}

// paces are, for each of the cell's jobs (active, running runs[i]), how
// long it runs at the cell's rates and how many times faster it gets on
// at the burst's, worked out once.
func (c *cellTime) paces(runs []JobRun, active []int, checks []checking) (length, pace []float64) {
	if c.length != nil {
		return c.length, c.pace
	}
	c.length, c.pace = make([]float64, len(active)), make([]float64, len(active))
	for k, i := range active {
		jo, bo := c.out.Jobs[k], burstOf(c.out, k)
		steady, disks := jo.Read.MBps+jo.Write.MBps, disksOf(runs[i].Workers)
		c.length[k], c.pace[k] = runSeconds(runs[i].Job, disks, steady), 1
		if sizeBound(runs[i].Job, disks, c.length[k], steady) {
			c.pace[k] = math.Max(1, (bo.Read.MBps+bo.Write.MBps)/steady)
		}
		if checks[i].from == 0 { // the read-back has no ramp
			c.length[k] += float64(runs[i].Job.RampSec)
		}
	}
	return c.length, c.pace
}

// cellKey names a cell: the jobs running (those in verify's read-back
// marked) and what each finds where it reads.
func cellKey(active, checking []int, finds [][]found) string {
	b := make([]byte, 0, 64)
	for k, i := range active {
		b = strconv.AppendInt(b, int64(i), 10)
		if slices.Contains(checking, i) {
			b = append(b, 'v')
		}
		for _, f := range finds[k] {
			b = append(b, ':')
			b = strconv.AppendFloat(b, f.written, 'g', -1, 64)
			b = append(b, '/')
			b = strconv.AppendFloat(b, f.compressPct, 'g', -1, 64)
		}
		b = append(b, ';')
	}
	return string(b)
}

// doneTolerance is how close to its whole length a job must have run to
// count as ended with the stretch (jobs ending together end together).
const doneTolerance = 1e-9

// overlap lays concurrent jobs out in time, starting from in, the cell of
// all of them, solved as out and scaled by the run's noise draw z (the
// other stretches take the same draw). Each job starts after its
// startdelay and runs its own length, as fio runs it: its ramp and runtime
// when time based, or until it has moved its extent at the rates of the
// stretches it runs in. Each time a job starts or ends, the jobs running
// are solved again, so a job that outlasts the others runs on at its rate
// alone. Under exitall a job's end stops others, as its exit_what says
// (exitAllStops). Jobs that start and end together make one stretch, as a
// single solve. A job that meets differently written parts of its disks in
// order (a sequential reader or mix, or a random reader replaying an
// earlier run: readSegments, replaySegments) goes through them (along[i]),
// a stretch ending where it passes from one part to the next, each solved
// with what it finds there, a lone one too; each set of jobs with what
// they find is solved once. A job with a verify pass
// (passes[i]) reads back what it wrote once its own I/O is done, beside
// whatever then runs, until the blocks written are read or its runtime
// ends. A job whose flow group has a job starting later is held until
// then (flowHolds): its time goes by, a time-based job's runtime too, but
// it does no I/O and is in no solve (a size-based job's runtime cap, if
// any, counts from the hold's end). It moves OSA's write buffers on,
// stretch after stretch, and
// returns the stretches, the one the control plane's view covers (-1
// where no job did I/O; otherwise the one with
// the most jobs, in the cell the run spent longest in) and notes saying
// what ran when and what each such job found.
func (pl *Plane) overlap(ctx context.Context, jobs []JobRun, passes []*verifyPass, along []*passage, in Input, out *Output, z float64) ([]stretch, int, []string, error) {
	phase := fioWorkload(jobs)
	exitAll := phase.Exitall()
	start := make([]float64, len(jobs))
	for i, j := range jobs {
		sh, err := readJob(j.Job)
		if err != nil {
			return nil, 0, nil, err
		}
		start[i] = sh.startDelay
	}
	runs := slices.Clone(jobs) // what each job runs now: its own I/O, then its verify pass
	checks := make([]checking, len(jobs))
	hold := flowHolds(jobs, start)
	done := make([]float64, len(jobs))
	ended := make([]bool, len(jobs))
	var run []stretch
	var notes []string
	filled := 0.0 // when the write buffers reached the destage threshold
	// Each set of jobs running with what they find is solved once (a
	// reader's passes meet the same parts again), and how long the run
	// spends in it is kept: the view is the longest.
	whole := &cellTime{in: in, out: out}
	cells := map[string]*cellTime{}
	for t := 0.0; ; {
		var active, held []int
		nextStart := math.Inf(1)
		for i := range jobs {
			switch {
			case ended[i]:
			case start[i] <= t && t < hold[i]:
				held = append(held, i)
				nextStart = math.Min(nextStart, hold[i])
			case start[i] <= t:
				active = append(active, i)
			default:
				nextStart = math.Min(nextStart, start[i])
			}
		}
		if len(active) == 0 && len(held) == 0 {
			if math.IsInf(nextStart, 1) {
				break
			}
			t = nextStart // nothing runs until the next job starts
			continue
		}
		if len(active) == 0 { // held jobs alone: no I/O to solve
			s := stretch{from: t, held: held}
			s.to = holdUntil(jobs, held, done, t, nextStart)
			finished := holdOn(jobs, held, done, ended, t, s.to)
			run = append(run, s)
			if exitAll {
				notes = append(notes, exitAllStops(phase, jobs, finished, ended, s.to)...)
			}
			t = s.to
			continue
		}
		s := stretch{from: t, jobs: active, held: held, cell: whole}
		for _, i := range active {
			if checks[i].from > 0 {
				s.checking = append(s.checking, i)
			}
		}
		if len(active) < len(jobs) || len(s.checking) > 0 || slices.ContainsFunc(active, func(i int) bool { return along[i] != nil }) {
			sub := make([]JobRun, len(active))
			finds := make([][]found, len(active))
			for k, i := range active {
				sub[k] = runs[i]
				if along[i] != nil {
					sub[k].finds = along[i].finds()
					finds[k] = sub[k].finds
				}
			}
			key := cellKey(active, s.checking, finds)
			if s.cell = cells[key]; s.cell == nil {
				in, out, _, err := pl.solveCell(ctx, sub, z)
				if err != nil {
					return nil, 0, nil, err
				}
				s.cell = &cellTime{in: in, out: out}
				cells[key] = s.cell
				for _, n := range out.Notes {
					if !slices.Contains(whole.out.Notes, n) && !slices.Contains(notes, n) {
						notes = append(notes, n)
					}
				}
			}
		}
		sol := s.cell.out
		// On OSA the stretch starts at the burst's rates while the write
		// buffers fill (for room seconds at most): a job bound by what it
		// moves gets on faster meanwhile, pace times its steady rate.
		pl.mu.Lock()
		room := burstRoom(pl.p, &pl.buffer, sol)
		pl.mu.Unlock()
		length, pace := s.cell.paces(runs, active, checks)
		s.to = nextStart
		for k, i := range active {
			jo, bo := sol.Jobs[k], burstOf(sol, k)
			if length[k] <= 0 {
				s.to = t // nothing bounds it (no throughput): it ends here
				continue
			}
			s.to = math.Min(s.to, t+atBurst((1-done[i])*length[k], pace[k], room))
			if checks[i].from > 0 {
				s.to = math.Min(s.to, checks[i].until)
			}
			if l := along[i]; l != nil {
				g := 1.0
				if r := passRate(jo.Read, jo.Write, l.clones, l.sequential); r > 0 {
					g = math.Max(1, passRate(bo.Read, bo.Write, l.clones, l.sequential)/r)
				}
				s.to = math.Min(s.to, t+atBurst(l.left(jo), g, room))
			}
		}
		s.to = holdUntil(jobs, held, done, t, s.to)
		pl.mu.Lock()
		s.burst = bufferBurst(pl.p, &pl.buffer, sol, s.to-t)
		pl.mu.Unlock()
		if filling := sol.Burst != nil && sol.BufferBytesPerSec > 0; filling && filled == 0 && s.burst < s.to-t {
			filled = t + s.burst
		}
		s.cell.spent += s.to - t
		run = append(run, s)
		var finished []int
		for k, i := range active {
			jo, bo := sol.Jobs[k], burstOf(sol, k)
			if length[k] > 0 {
				done[i] += (s.burst*pace[k] + (s.to - t - s.burst)) / length[k]
			}
			if along[i] != nil {
				along[i].move(bo, s.burst)
				along[i].move(jo, s.to-t-s.burst)
			}
			ends := length[k] <= 0 || done[i] >= 1-doneTolerance
			if p := passes[i]; p != nil {
				c := &checks[i]
				if c.from == 0 {
					c.wrote += bo.Write.MBps*s.burst + jo.Write.MBps*(s.to-t-s.burst)
					c.moved += (bo.Read.MBps+bo.Write.MBps)*s.burst + (jo.Read.MBps+jo.Write.MBps)*(s.to-t-s.burst)
				}
				switch {
				case c.from > 0:
					ends = ends || s.to >= c.until-doneTolerance
				case ends && length[k] > 0:
					// The job's own I/O is done: it reads back the
					// written share of what it moved, unless its
					// runtime is over.
					c.until = start[i] + float64(jobs[i].Job.RampSec+jobs[i].Job.RuntimeSec)
					if jobs[i].Job.RuntimeSec <= 0 {
						c.until = math.Inf(1)
					}
					if c.wrote > 0 && s.to < c.until-doneTolerance {
						c.from, runs[i], along[i], done[i], ends = s.to, p.back, nil, 1-c.wrote/c.moved, false
					}
				}
			}
			if ends {
				ended[i] = true
				finished = append(finished, i)
			}
		}
		finished = append(finished, holdOn(jobs, held, done, ended, t, s.to)...)
		if exitAll {
			notes = append(notes, exitAllStops(phase, jobs, finished, ended, s.to)...)
		}
		t = s.to
	}
	if len(run) > 1 {
		var when []string
		since := 0.0
		for k, s := range run { // back-to-back stretches of the same jobs told as one
			if k == 0 || !continues(run[k-1], s) {
				since = s.from
			}
			if k+1 < len(run) && continues(s, run[k+1]) {
				continue
			}
			names := make([]string, len(s.jobs), len(s.jobs)+len(s.held))
			for k, i := range s.jobs {
				names[k] = jobs[i].Job.Name
				if slices.Contains(s.checking, i) {
					names[k] += " (reading back)"
				}
			}
			for _, i := range s.held {
				names = append(names, jobs[i].Job.Name+" (held by its flow group)")
			}
			when = append(when, fmt.Sprintf("%.4g-%.4g s %s", since, s.to, strings.Join(names, ", ")))
		}
		if len(when) > 1 {
			notes = append(notes, "the jobs in time, each stretch solved on its own: "+strings.Join(when, "; "))
		}
	}
	for i, l := range along {
		switch {
		case l == nil || l.bytes == 0:
		case len(jobs) == 1:
			notes = append(notes, l.lead+", each solved with what it finds there (a read of a block never written costs a metadata lookup and the guest's copy, no device): "+l.parts())
		default:
			notes = append(notes, fmt.Sprintf("%s meets the parts of its disks in order beside the other jobs (%s), each stretch solved with what it finds there: %.0f %% of what it moved found data", jobs[i].Job.Name, l.what, 100*l.writtenBytes/l.bytes))
		}
	}
	// The control plane's view is the stretch with the most jobs in the
	// cell the run spent longest in.
	main := slices.IndexFunc(run, func(s stretch) bool { return s.cell != nil })
	if main < 0 { // fio 3.33: a held job ending by exitall before its partner's start did 8 KiB, the partner nothing
		notes = append(notes, "no job did I/O: the jobs a flow group held ended, and stopped the others under exitall, before their group's later jobs started")
	}
	for k, s := range run {
		if m := run[max(main, 0)]; s.cell != nil && (len(s.jobs) > len(m.jobs) || len(s.jobs) == len(m.jobs) && s.cell.spent > m.cell.spent) {
			main = k
		}
	}
	for i, p := range passes {
		if p == nil {
			continue
		}
		end, bound := readBackOf(run, i)
		if n := p.note(jobs[i].Job, checks[i], done[i], end, bound, len(jobs) > 1); n != "" {
			notes = append(notes, n)
		}
	}
	if filled > 0 {
		notes = append(notes, fmt.Sprintf("OSA write buffers absorb writes at the burst's rates for the first %.4g s of the run, until %.0f %% full; then the elevators set the pace", filled, 100*pl.p.Model.WriteBufferDestageThreshold.Value))
	}
	return run, main, notes, nil
}

// readBackOf is when job i ended in the run and the solve its read-back
// spent longest in: what bound it (nil without one).
func readBackOf(run []stretch, i int) (end float64, bound *Output) {
	longest := stretch{}
	for _, s := range run {
		if slices.Contains(s.jobs, i) {
			end = s.to
		}
		if slices.Contains(s.checking, i) && s.to-s.from > longest.to-longest.from {
			longest = s
		}
	}
	if longest.cell != nil {
		bound = longest.cell.out
	}
	return end, bound
}

// burstOf is job k's figures at OSA's burst rate in out, its steady ones
// where out has no burst.
func burstOf(out *Output, k int) JobOutput {
	if out.Burst != nil {
		return out.Burst.Jobs[k]
	}
	return out.Jobs[k]
}

// atBurst is how long w seconds of work at a steady pace take when the
// first room seconds go at pace times it.
func atBurst(w, pace, room float64) float64 {
	if pace <= 1 || room <= 0 || math.IsInf(w, 1) {
		return w
	}
	if w <= room*pace {
		return w / pace
	}
	return room + w - room*pace
}

// continues says stretch b follows a at once with the same jobs.
func continues(a, b stretch) bool {
	return a.to == b.from && slices.Equal(a.jobs, b.jobs) && slices.Equal(a.checking, b.checking) && slices.Equal(a.held, b.held)
}

// heldLength is how long a held job's time runs before it ends by itself,
// its ramp and runtime when time based; 0 when its I/O, not time, ends it.
func heldLength(j JobRun) float64 {
	if !j.Job.TimeBased || j.Job.RuntimeSec <= 0 {
		return 0
	}
	return runSeconds(j.Job, disksOf(j.Workers), 0) + float64(j.Job.RampSec)
}

// holdUntil is when a stretch from t that would end at to ends, a held
// job's runtime running out first where it does (done: the share of each
// job's length gone by).
func holdUntil(jobs []JobRun, held []int, done []float64, t, to float64) float64 {
	for _, i := range held {
		if l := heldLength(jobs[i]); l > 0 {
			to = math.Min(to, t+(1-done[i])*l)
		}
	}
	return to
}

// holdOn moves the held jobs' time on from t to to, marks those whose
// runtime ran out as ended and returns them.
func holdOn(jobs []JobRun, held []int, done []float64, ended []bool, t, to float64) []int {
	var finished []int
	for _, i := range held {
		if l := heldLength(jobs[i]); l > 0 {
			if done[i] += (to - t) / l; done[i] >= 1-doneTolerance {
				ended[i] = true
				finished = append(finished, i)
			}
		}
	}
	return finished
}

// solveCell solves jobs together, as one cell, held to their flow groups'
// pace (settleFlow) and scaled by the run's noise draw z (not when NaN: no
// noise), showing it to the plane's observer; it returns the cell's input,
// its output and the notes reading the jobs gave.
func (pl *Plane) solveCell(ctx context.Context, jobs []JobRun, z float64) (Input, *Output, []string, error) {
	jobs, flowNote, err := pl.settleFlow(ctx, jobs)
	if err != nil {
		return Input{}, nil, nil, err
	}
	jobs, dedupeNotes, err := pl.settleDedupe(ctx, jobs)
	if err != nil {
		return Input{}, nil, nil, err
	}
	in, notes, err := pl.workloadInput(ctx, jobs)
	if err != nil {
		return Input{}, nil, nil, err
	}
	if flowNote != "" {
		notes = append(notes, flowNote)
	}
	notes = append(notes, dedupeNotes...)
	out, err := pl.solved.solve(ctx, pl.p, in)
	if err != nil {
		return Input{}, nil, nil, err
	}
	if pl.observe != nil {
		pl.mu.Lock()
		fill := pl.buffer.fill
		pl.mu.Unlock()
		pl.observe(ctx, pl.p, in, *out, fill)
	}
	pl.applyDraw(z, out, out.Burst)
	return in, out, notes, nil
}

// exitAllStops ends the jobs that the ends of the jobs finished stop under
// exitall, marking them ended, and says so: each finished job's exit_what
// stops the jobs fio stops (fio.Workload.ExitallStops over the phase's
// jobs: its reporting group by default, the phase with "stonewall", and
// with "all" every later phase too, whose note runPhases reads).
func exitAllStops(phase *fio.Workload, jobs []JobRun, finished []int, ended []bool, at float64) []string {
	var notes []string
	for _, f := range finished {
		var stopped []int
		for i := range jobs {
			if !ended[i] && phase.ExitallStops(f, i) {
				ended[i] = true
				stopped = append(stopped, i)
			}
		}
		if len(stopped) > 0 {
			notes = append(notes, fmt.Sprintf("exitall: %s ended at %.4g s and stopped %s, as fio does", jobs[f].Job.Name, at, jobNames(jobs, stopped)))
		}
		if exitWhat(jobs[f].Job) == "all" {
			notes = append(notes, fmt.Sprintf(exitAllPhasesNote+" (%s ended at %.4g s)", jobs[f].Job.Name, at))
		}
	}
	return notes
}

// fioWorkload is the jobs' fio jobs as one workload, for the rules fio
// reads over a job file's jobs.
func fioWorkload(jobs []JobRun) *fio.Workload {
	wl := &fio.Workload{Jobs: make([]fio.Job, len(jobs))}
	for i, j := range jobs {
		wl.Jobs[i] = *j.Job
	}
	return wl
}

// exitAllPhasesNote begins the note of a phase whose end, under exitall
// with exit_what=all, ends the phases after it too.
const exitAllPhasesNote = "exitall with exit_what=all: fio runs no later phase"

// exitsRun says whether a job's end stops the whole run: exitall with
// exit_what=all.
func exitsRun(job *fio.Job) bool {
	return flagSet(job, "exitall") && exitWhat(job) == "all"
}

// exitWhat is a job's exit_what, fio's default "group" when not given.
func exitWhat(job *fio.Job) string {
	if v := rawValue(job, "exit_what"); v != "" && v != "1" {
		return v
	}
	return "group"
}

// jobNames names the run's jobs at indexes.
func jobNames(jobs []JobRun, indexes []int) string {
	names := make([]string, len(indexes))
	for k, i := range indexes {
		names[k] = jobs[i].Job.Name
	}
	return strings.Join(names, ", ")
}

// spanOf is job i's run in time over the stretches it ran in, from its own
// start (in each, the burst's figures for its first burst seconds and the
// steady ones after), and when it started in the run.
func spanOf(run []stretch, i int, ramp float64) (span, float64) {
	sp := span{ramp: ramp}
	began := math.NaN()
	for _, s := range run {
		if slices.Contains(s.held, i) { // started, no I/O
			if math.IsNaN(began) {
				began = s.from
			}
			sp.phases = append(sp.phases, phase{s.from - began, s.to - began, [2]Direction{}})
			sp.end = s.to - began
			continue
		}
		k := slices.Index(s.jobs, i)
		if k < 0 {
			continue
		}
		if math.IsNaN(began) {
			began = s.from
		}
		from, to := s.from-began, s.to-began
		if slices.Contains(s.checking, i) && sp.readBack == 0 {
			sp.readBack = from
		}
		burst, sol := math.Min(s.burst, to-from), s.cell.out
		if burst > 0 && sol.Burst != nil {
			b := sol.Burst.Jobs[k]
			sp.phases = append(sp.phases, phase{from, from + burst, [2]Direction{b.Read, b.Write}})
		}
		if burst < to-from || to == from {
			sp.phases = append(sp.phases, phase{from + burst, to, [2]Direction{sol.Jobs[k].Read, sol.Jobs[k].Write}})
		}
		sp.end = to
	}
	return sp, began
}
