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

// flowMember is a job in one of fio's flow groups: its weight (flow) and
// group (flow_id).
type flowMember struct {
	job    int
	weight float64
	group  int
}

// flowMembers are the jobs that run under fio's flow control: those whose
// flow is not 0, by their flow_id (0 by default).
func flowMembers(jobs []JobRun) ([]flowMember, error) {
	var members []flowMember
	for i, j := range jobs {
		v := rawValue(j.Job, "flow")
		if v == "" || v == "0" {
			continue
		}
		w, err := strconv.Atoi(v)
		if err != nil {
			return nil, fmt.Errorf("job %s: flow=%s: want a whole number, the job's weight in its flow group", j.Job.Name, v)
		}
		g := 0
		if id := rawValue(j.Job, "flow_id"); id != "" {
			if g, err = strconv.Atoi(id); err != nil {
				return nil, fmt.Errorf("job %s: flow_id=%s: want a whole number", j.Job.Name, id)
			}
		}
		members = append(members, flowMember{i, math.Abs(float64(w)), g})
	}
	return members, nil
}

// flowWaits checks a workload's flow groups against when their jobs start.
// fio holds a group's running jobs until the others have started (measured
// with fio 3.33: a 4 MiB read with flow=1 beside a partner at startdelay=2
// ended after 2,015 ms, the partner 5 ms after it started; a job alone in
// its group runs free). A group split over phases (stonewall, wait_for)
// never ends, the later phase waiting for the earlier to end (fio moved 8
// KiB of a 4 MiB read in 30 s): refused. A partner starting later
// (startdelay) is noted; overlap holds the jobs started before it
// (flowHolds).
func flowWaits(jobs []JobRun, phases [][]int) ([]string, error) {
	members, err := flowMembers(jobs)
	if err != nil || len(members) < 2 {
		return nil, err
	}
	phaseOf := make([]int, len(jobs))
	for n, phase := range phases {
		for _, i := range phase {
			phaseOf[i] = n
		}
	}
	delay := func(m flowMember) float64 {
		sh, _ := readJob(jobs[m.job].Job) // solving reads it and says what is wrong
		return sh.startDelay
	}
	var notes []string
	noted := map[int]bool{}
	for k, m := range members {
		for _, o := range members[k+1:] {
			if o.group != m.group {
				continue
			}
			a, b := jobs[m.job].Job.Name, jobs[o.job].Job.Name
			if phaseOf[m.job] != phaseOf[o.job] {
				return nil, fmt.Errorf("jobs %s and %s share flow_id=%d but run in different phases (stonewall or wait_for): fio holds a flow group's running jobs until the others start, and the later phase starts only once the earlier has ended, so the run would not end (fio 3.33 moved 8 KiB of such a job's 4 MiB in 30 s); put them in one phase or give them different flow_ids", a, b, m.group)
			}
			if da, db := delay(m), delay(o); da != db && !noted[m.group] {
				if da > db {
					a, b = b, a
				}
				noted[m.group] = true
				notes = append(notes, fmt.Sprintf("flow_id=%d: job %s starts %g s after job %s (startdelay); fio holds %s until it starts (fio 3.33: a 4 MiB read beside a partner at startdelay=2 ended after 2,015 ms); so does the model, %s doing no I/O until then", m.group, b, math.Abs(da-db), a, a, a))
			}
		}
	}
	return notes, nil
}

// flowHolds is, for each job, until when (seconds since the run began)
// fio holds it for its flow group's later jobs to start (flowWaits): the
// last start in its group where that is after its own, else 0. A held job
// has started, its runtime going by, but does no I/O.
func flowHolds(jobs []JobRun, start []float64) []float64 {
	hold := make([]float64, len(jobs))
	members, err := flowMembers(jobs)
	if err != nil { // solving the jobs reads them and says what is wrong
		return hold
	}
	for _, g := range groupsOf(members) {
		last := 0.0
		for _, m := range g {
			last = math.Max(last, start[m.job])
		}
		for _, m := range g {
			if len(g) > 1 && start[m.job] < last {
				hold[m.job] = last
			}
		}
	}
	return hold
}

// flowSettleRounds bounds how often settleFlow solves the cell.
const flowSettleRounds = 12

// settleFlow holds the jobs of each flow group to the pace their weights
// give them, as fio's flow control does: a fio job (thread) whose share of
// its group's I/Os passes its share of the group's weight sleeps until the
// others catch up (flow.c), so each runs at its weight times the pace of
// the one furthest behind. Measured with fio 3.33 on local files: beside a
// job held at rate_iops=200, a free job with the same flow ran at 200 IOPS
// and with half its weight at 101, while a job outside the group ran free.
// It returns the jobs as the solver should see them, each one held by its
// group with a rate_iops cap per fio job (at its own mix, and below any
// rate it has), and a note; the jobs as given where none is in a group.
func (pl *Plane) settleFlow(ctx context.Context, jobs []JobRun) ([]JobRun, string, error) {
	members, err := flowMembers(jobs)
	if err != nil || len(members) < 2 {
		return jobs, "", err
	}
	held := slices.Clone(jobs)
	caps := make([]float64, len(jobs)) // I/Os a second per fio job; 0: not held
	for range flowSettleRounds {
		in, _, err := pl.workloadInput(ctx, held)
		if err != nil {
			return nil, "", err
		}
		out, err := pl.solved.solve(ctx, pl.p, in)
		if err != nil {
			return nil, "", err
		}
		moved := false
		for _, g := range groupsOf(members) {
			// The pace: I/Os per fio job per unit of weight of the member
			// furthest behind, a member not held by its group first.
			pace, setter := math.Inf(1), -1
			for _, m := range g {
				r := threadRate(jobs[m.job], out.Jobs[m.job]) / m.weight
				if r < pace*(1-1e-9) || r <= pace*(1+1e-9) && caps[m.job] == 0 {
					pace, setter = r, m.job
				}
			}
			for _, m := range g {
				want := 0.0
				if m.job != setter {
					want = m.weight * pace
				}
				if math.Abs(want-caps[m.job]) > 1e-4*math.Max(want, caps[m.job]) {
					caps[m.job], moved = want, true
					held[m.job] = withFlowCap(jobs[m.job], want)
				}
			}
		}
		if !moved {
			break
		}
	}
	var parts []string
	for _, m := range members {
		if caps[m.job] > 0 {
			parts = append(parts, fmt.Sprintf("%s held at %.0f I/Os a second per fio job (flow=%g)", jobs[m.job].Job.Name, caps[m.job], m.weight))
		} else {
			parts = append(parts, fmt.Sprintf("%s sets the pace (flow=%g)", jobs[m.job].Job.Name, m.weight))
		}
	}
	return held, "flow: fio keeps each job of a flow group to its weight's share of the group's I/Os, the others waiting for the one furthest behind: " + strings.Join(parts, "; "), nil
}

// groupsOf are the members by flow group.
func groupsOf(members []flowMember) [][]flowMember {
	var ids []int
	by := map[int][]flowMember{}
	for _, m := range members {
		if _, ok := by[m.group]; !ok {
			ids = append(ids, m.group)
		}
		by[m.group] = append(by[m.group], m)
	}
	out := make([][]flowMember, len(ids))
	for i, id := range ids {
		out[i] = by[id]
	}
	return out
}

// threadRate is a job's I/Os a second per fio job.
func threadRate(j JobRun, jo JobOutput) float64 {
	return (jo.Read.IOPS + jo.Write.IOPS) / j.fioJobs()
}

// withFlowCap is job held at capIOPS I/Os a second per fio job: rate_iops
// per direction at the job's mix, below any rate it already has; cap 0 is
// the job as given.
func withFlowCap(j JobRun, capIOPS float64) JobRun {
	if capIOPS <= 0 {
		return j
	}
	sh, err := readJob(j.Job)
	if err != nil {
		return j
	}
	own := sh.directionCaps()
	share := [2]float64{sh.fr, 1 - sh.fr}
	var v [2]string
	for dir := range v {
		if share[dir] > 0 {
			v[dir] = strconv.FormatFloat(math.Max(1, math.Round(math.Min(own[dir], share[dir]*capIOPS))), 'f', 0, 64)
		}
	}
	job := *j.Job
	job.RateIOPS = 0
	job.Options = append(slices.DeleteFunc(slices.Clone(job.Options), func(o fio.Option) bool { return o.Key == "rate_iops" }),
		fio.Option{Key: "rate_iops", Value: v[read] + "," + v[write]})
	j.Job = &job
	return j
}
