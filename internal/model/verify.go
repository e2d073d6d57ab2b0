package model

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"starbench/internal/fio"
)

// runVerified runs a size-based writing job with verify as fio 3.33 runs
// it: its I/O as given (its writes, or its mix of reads and writes), then
// a pass reading back the blocks it wrote (readBackJob). Measured on local
// files: a 32 MiB randwrite with verify=crc32c writes 32 MiB in 326 ms,
// then reads them back in 139 ms (job_runtime 463 ms); a 16 MiB randrw
// moves 16 MiB, 2,104 of its 4,096 I/Os writes, then reads those 2,104
// back. The job's write row is its writes'; its read row holds the mix's
// reads and the read-back's, over both their times, as fio counts them
// (the randrw: writes over 116 ms, reads over 226). fio stops reading back
// at the job's runtime, and reads nothing back when its I/O used the
// runtime. Its samples follow one another.
func (pl *Plane) runVerified(ctx context.Context, jr JobRun, progress func(fio.Status)) (*fio.Result, error) {
	job := jr.Job
	value := rawValue(job, "verify")
	first := *job
	first.Options = slices.DeleteFunc(slices.Clone(job.Options), func(o fio.Option) bool { return o.Key == "verify" })
	resW, err := pl.RunJobs(ctx, []JobRun{{Workers: jr.Workers, Job: &first}}, progress)
	if err != nil {
		return nil, err
	}
	wrote := lastSampleTS(resW)
	runtime := float64(job.RuntimeSec)
	if runtime > 0 && wrote >= runtime*(1-1e-9) {
		resW.Notes = append(resW.Notes, fmt.Sprintf("verify=%s: the job's I/O used the whole runtime (%d s), so fio reads nothing back", value, job.RuntimeSec))
		return resW, nil
	}
	back := readBackJob(&first)
	resR, err := pl.RunJobs(ctx, []JobRun{{Workers: jr.Workers, Job: back, readsBack: true}}, nil)
	if err != nil {
		return nil, err
	}
	// The pass reads what the job wrote: its written share of what it
	// moved, of the extent a whole pass of reads covers.
	full := lastSampleTS(resR)
	share := writtenShare(resW.Aggregate)
	pass := share * full
	cut := runtime > 0 && wrote+pass > runtime
	if cut {
		pass = runtime - wrote
	}
	res := &fio.Result{Simulated: true, Model: resW.Model, Testbed: resW.Testbed}
	res.Rows = withTotals(append(readRows(resW.Rows, resR.Rows, wrote, pass), inDirection(resW.Rows, "write")...))
	res.Aggregate = withTotals(append(readRows(resW.Aggregate, resR.Aggregate, wrote, pass), inDirection(resW.Aggregate, "write")...))
	res.Samples = slices.Clone(resW.Samples)
	prev := 0.0 // the read-back's samples, one direction, in order
	for _, s := range resR.Samples {
		from := prev
		if prev = s.TS; from >= pass-1e-9 {
			continue // past the blocks written, or after fio stopped reading back
		}
		s.TS = wrote + math.Min(s.TS, pass)
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
	what := "its writes"
	if share < 1 {
		what = fmt.Sprintf("its mix of reads and writes (%.0f %% of the bytes written)", 100*share)
	}
	res.Notes = append(res.Notes, fmt.Sprintf("verify=%s: after %s (%.4g s) fio reads back and checks the blocks written, solved as a %s pass of them (%.4g s) at the job's depth, without its rate limits or think time; the job's read row holds every read it made, over their time; the check's CPU in the guest is not modelled", value, what, wrote, back.RW, pass))
	if cut {
		res.Notes = append(res.Notes, fmt.Sprintf("verify=%s: fio stops reading back at the job's runtime (%d s), %.0f %% of the way through the blocks written", value, job.RuntimeSec, 100*pass/(share*full)))
	}
	if !slices.Contains(res.Notes, totalNote) {
		res.Notes = append(res.Notes, totalNote)
	}
	return res, nil
}

// readBackJob is the pass with which fio's verify reads back what job
// wrote: the same extent at the job's write block sizes, random where its
// I/O was, at its depth, without its ramp, rate limits or think time,
// which fio's verify phase leaves out (fio 3.33, a 16 MiB randwrite on a
// local file: written at rate_iops=4000 and at thinktime=1ms, 16 and 3.8
// MiB/s, read back at 78 and 91).
func readBackJob(job *fio.Job) *fio.Job {
	back := *job
	back.RW, back.RWMixRead, back.RampSec = "read", 0, 0
	if strings.HasPrefix(baseRW(job.RW), "rand") {
		back.RW = "randread"
	}
	back.RateIOPS, back.RateBytes = 0, 0
	back.Options = nil
	for _, o := range job.Options {
		switch {
		case strings.HasPrefix(o.Key, "rate"), strings.HasPrefix(o.Key, "thinktime"), o.Key == "rwmixread", o.Key == "rwmixwrite":
		case slices.Contains([]string{"bs", "bsrange", "bssplit"}, fio.Canonical(o.Key)) && strings.Contains(o.Value, ","):
			// The blocks read back are the ones written.
			for _, dv := range perDirection(o.Value) {
				if dv.dir == write {
					back.Options = append(back.Options, fio.Option{Key: o.Key, Value: dv.value})
				}
			}
		default:
			back.Options = append(back.Options, o)
		}
	}
	return &back
}

// writtenShare is the share of the bytes that aggregate rows moved that
// were written.
func writtenShare(aggregate []fio.Row) float64 {
	var r, w float64
	for _, row := range aggregate {
		switch row.Direction {
		case "read":
			r += row.MBps
		case "write":
			w += row.MBps
		}
	}
	if r+w <= 0 {
		return 1
	}
	return w / (r + w)
}

// readRows are a verifying job's read rows: the read-back's (back, over
// tb seconds) where its own I/O read nothing, else each row of the mix's
// reads (over ta) with the read-back's for the same worker and disk, as
// fio counts them: throughput over both times, latencies weighted by I/Os.
func readRows(own, back []fio.Row, ta, tb float64) []fio.Row {
	mix := inDirection(own, "read")
	var rows []fio.Row
	for _, b := range inDirection(back, "read") {
		k := slices.IndexFunc(mix, func(a fio.Row) bool { return a.Worker == b.Worker && a.Disk == b.Disk && a.Job == b.Job })
		if k < 0 {
			rows = append(rows, b)
			continue
		}
		rows = append(rows, overBoth(mix[k], b, ta, tb))
	}
	return rows
}

// overBoth is row a over ta seconds and row b over tb as one row.
func overBoth(a, b fio.Row, ta, tb float64) fio.Row {
	na, nb := a.IOPS*ta, b.IOPS*tb
	out := a
	out.IOPS = (na + nb) / (ta + tb)
	out.MBps = (a.MBps*ta + b.MBps*tb) / (ta + tb)
	out.Errors = a.Errors + b.Errors
	if na+nb <= 0 {
		return out
	}
	mean := func(x, y float64) float64 { return (x*na + y*nb) / (na + nb) }
	out.LatMeanUs, out.P50Us, out.P95Us = mean(a.LatMeanUs, b.LatMeanUs), mean(a.P50Us, b.P50Us), mean(a.P95Us, b.P95Us)
	out.P99Us, out.P999Us = mean(a.P99Us, b.P99Us), mean(a.P999Us, b.P999Us)
	out.Percentiles = slices.Clone(a.Percentiles)
	for i := range out.Percentiles {
		if i < len(b.Percentiles) {
			out.Percentiles[i].Us = mean(a.Percentiles[i].Us, b.Percentiles[i].Us)
		}
	}
	return out
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
