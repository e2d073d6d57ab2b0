package model

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"starbench/internal/fio"
)

// runVerified runs a writing job with verify as fio 3.33 runs it: its
// writes, then a pass reading back what they wrote, at the job's depth
// (a 32 MiB randwrite with verify=crc32c on a local file: 32 MiB written in
// 326 ms, then read back in 139 ms; job_runtime 463 ms). The job's write
// row is the writes', its read row the pass's, each over its own time; its
// samples follow one another. A job whose writes use its whole runtime
// reads nothing back. A time-based job alternates a pass of writes with a
// pass of reads while its runtime lasts, which is not modelled (noted),
// unless one pass of writes outlasts the runtime: fio then never reads
// back ("verification read phase will never start because write phase
// uses all of runtime").
func (pl *Plane) runVerified(ctx context.Context, jr JobRun, progress func(fio.Status)) (*fio.Result, error) {
	job := jr.Job
	value := rawValue(job, "verify")
	writes := *job
	writes.Options = slices.DeleteFunc(slices.Clone(job.Options), func(o fio.Option) bool { return o.Key == "verify" })
	writeRun := JobRun{jr.Workers, &writes}
	if job.TimeBased {
		note, err := pl.timeBasedVerify(ctx, writeRun, value)
		if err != nil {
			return nil, err
		}
		res, err := pl.RunJobs(ctx, []JobRun{writeRun}, progress)
		if err != nil {
			return nil, err
		}
		res.Notes = append(res.Notes, note)
		return res, nil
	}
	resW, err := pl.RunJobs(ctx, []JobRun{writeRun}, progress)
	if err != nil {
		return nil, err
	}
	wrote := lastSampleTS(resW)
	if job.RuntimeSec > 0 && wrote >= float64(job.RuntimeSec)*(1-1e-9) {
		resW.Notes = append(resW.Notes, fmt.Sprintf("verify=%s: the writes used the whole runtime (%d s), so fio reads nothing back", value, job.RuntimeSec))
		return resW, nil
	}
	reads := writes
	reads.RW, reads.RWMixRead, reads.RampSec = "read", 0, 0
	if strings.HasPrefix(baseRW(job.RW), "rand") {
		reads.RW = "randread"
	}
	resR, err := pl.RunJobs(ctx, []JobRun{{jr.Workers, &reads}}, nil)
	if err != nil {
		return nil, err
	}
	res := &fio.Result{Simulated: true, Model: resW.Model, Testbed: resW.Testbed}
	res.Rows = withTotals(append(inDirection(resR.Rows, "read"), inDirection(resW.Rows, "write")...))
	res.Aggregate = withTotals(append(inDirection(resR.Aggregate, "read"), inDirection(resW.Aggregate, "write")...))
	res.Samples = slices.Clone(resW.Samples)
	for _, s := range resR.Samples {
		s.TS += wrote
		res.Samples = append(res.Samples, s)
	}
	res.Notes = slices.Clone(resW.Notes)
	for _, n := range resR.Notes {
		switch {
		case slices.Contains(res.Notes, n):
		case strings.HasPrefix(n, bottleneckPrefix):
			res.Notes = append(res.Notes, bottleneckPrefix+"verify pass: "+strings.TrimPrefix(n, bottleneckPrefix))
		case !strings.HasPrefix(n, dataPlanePrefix):
			res.Notes = append(res.Notes, "verify pass: "+n)
		}
	}
	res.Notes = append(res.Notes, fmt.Sprintf("verify=%s: after its writes (%.4g s) fio reads back and checks what they wrote, solved as a %s pass of the same blocks (%.4g s), the reads in the job's read row over their own time; the check's CPU in the guest is not modelled", value, wrote, reads.RW, lastSampleTS(resR)))
	if job.RuntimeSec > 0 && wrote+lastSampleTS(resR) > float64(job.RuntimeSec) {
		res.Notes = append(res.Notes, fmt.Sprintf("verify=%s: fio would stop reading back at the runtime (%d s); the model reads the whole pass", value, job.RuntimeSec))
	}
	if !slices.Contains(res.Notes, totalNote) {
		res.Notes = append(res.Notes, totalNote)
	}
	return res, nil
}

// timeBasedVerify is the note on a time-based job with verify: whether one
// pass of its writes (its extent, at the rate the cell gives it) fits in
// its runtime, after which fio would start reading back.
func (pl *Plane) timeBasedVerify(ctx context.Context, writes JobRun, value string) (string, error) {
	in, _, err := pl.workloadInput(ctx, []JobRun{writes})
	if err != nil {
		return "", err
	}
	out, err := pl.solved.solve(ctx, pl.p, in)
	if err != nil {
		return "", err
	}
	pass := *writes.Job
	pass.TimeBased, pass.RuntimeSec = false, 0
	secs := movingSeconds(&pass, disksOf(writes.Workers), out.Read.MBps+out.Write.MBps)
	if secs >= float64(writes.Job.RuntimeSec) {
		return fmt.Sprintf("verify=%s: one pass of the job's writes takes %.4g s, longer than its runtime (%d s), so fio never reads back (fio 3.33: \"verification read phase will never start because write phase uses all of runtime\")", value, secs, writes.Job.RuntimeSec), nil
	}
	return fmt.Sprintf("verify=%s with time_based is not modelled: fio alternates a pass of writes (%.4g s here) with a pass reading them back until the runtime ends, the reads in the job's read row; the simulator reports the writes alone", value, secs), nil
}

// inDirection is the rows of one direction.
func inDirection(rows []fio.Row, dir string) []fio.Row {
	return slices.DeleteFunc(slices.Clone(rows), func(r fio.Row) bool { return r.Direction != dir })
}

// lastSampleTS is when a result's last sample ends: the measured length.
func lastSampleTS(res *fio.Result) float64 {
	end := 0.0
	for _, s := range res.Samples {
		end = math.Max(end, s.TS)
	}
	return end
}
