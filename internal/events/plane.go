package events

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"starbench/internal/fio"
)

// PlaneStepper steps a simulated measurement through a data plane: each
// interval is one run of the job for the interval's length, so the model
// solves the cluster as the control plane says it is at that moment
// (settings changed mid-run, hosts out of service).
type PlaneStepper struct {
	Plane   fio.DataPlane
	Workers []fio.Worker
	Job     *fio.Job
	// Progress, when set, sees the measurement advance interval by interval.
	Progress func(fio.Status)

	neighbours []neighbour
	spans      []span
	samples    []fio.Sample
}

// neighbour is a second workload of a stepped measurement.
type neighbour struct {
	name       string
	workers    []fio.Worker
	job        *fio.Job
	start, end float64
}

// span is one stepped interval's result and length.
type span struct {
	res *fio.Result
	dt  float64
}

// AddWorkload runs job on workers from start to end seconds, beside the
// measurement's own job.
func (p *PlaneStepper) AddWorkload(name string, workers []fio.Worker, job *fio.Job, start, end float64) {
	p.neighbours = append(p.neighbours, neighbour{name, workers, job, start, end})
}

// Step runs the interval from t to t+dt.
func (p *PlaneStepper) Step(ctx context.Context, t, dt float64) ([]fio.Sample, error) {
	for _, n := range p.neighbours {
		if n.start <= t && t < n.end {
			return nil, fmt.Errorf("workload %q runs beside %q from %g s: the simulated data plane solves one workload at a time, so a second one cannot share the cluster with the first here yet", n.name, p.Job.Name, n.start)
		}
	}
	job := *p.Job
	job.RuntimeSec, job.RampSec = max(1, int(math.Round(dt))), 0
	res, err := p.Plane.Run(ctx, p.Workers, &job, nil)
	if err != nil {
		return nil, fmt.Errorf("interval %g-%g s: %w", t, t+dt, err)
	}
	p.spans = append(p.spans, span{res, dt})
	var out []fio.Sample
	var iops, mbps float64
	for _, a := range res.Aggregate {
		out = append(out, fio.Sample{Job: p.Job.Name, Direction: a.Direction, TS: t + dt, IOPS: a.IOPS, MBps: a.MBps, LatMeanUs: a.LatMeanUs, P99Us: a.P99Us})
		iops += a.IOPS
		mbps += a.MBps
	}
	p.samples = append(p.samples, out...)
	if p.Progress != nil {
		p.Progress(fio.Status{Elapsed: int(t + dt), Total: p.Job.RuntimeSec, IOPS: iops, MBps: mbps})
	}
	return out, nil
}

// Result is the whole measurement: every row weighted by its interval's
// I/Os (throughput over the whole time; latencies, percentiles included, as
// the I/O-weighted mean of the intervals', which the notes say), with the
// samples.
func (p *PlaneStepper) Result(context.Context) (*fio.Result, error) {
	if len(p.spans) == 0 {
		return nil, fmt.Errorf("internal error: a stepped measurement with no interval")
	}
	out := &fio.Result{Simulated: true, Samples: slices.Clone(p.samples)}
	first := p.spans[0].res
	out.Model, out.Testbed = first.Model, first.Testbed
	out.Rows = weighted(p.spans, func(r *fio.Result) []fio.Row { return r.Rows })
	out.Aggregate = weighted(p.spans, func(r *fio.Result) []fio.Row { return r.Aggregate })
	for i := range out.Rows {
		out.Rows[i].Job = p.Job.Name
	}
	for i := range out.Aggregate {
		out.Aggregate[i].Job = p.Job.Name
	}
	for _, s := range p.spans {
		for _, n := range s.res.Notes {
			if !slices.Contains(out.Notes, n) {
				out.Notes = append(out.Notes, n)
			}
		}
	}
	out.Notes = append(out.Notes, "over the whole measurement, throughput is the mean of the intervals and latencies (percentiles too) their I/O-weighted mean")
	return out, nil
}

// weighted combines the rows of each interval that share worker, disk and
// direction: I/Os and bytes over the total time, latencies weighted by I/Os.
func weighted(spans []span, rows func(*fio.Result) []fio.Row) []fio.Row {
	type key struct{ worker, disk, dir string }
	type acc struct {
		row                       fio.Row
		ios, t                    float64
		mean, p50, p95, p99, p999 float64
	}
	var order []key
	accs := map[key]*acc{}
	total := 0.0
	for _, s := range spans {
		total += s.dt
	}
	for _, s := range spans {
		for _, r := range rows(s.res) {
			k := key{r.Worker, r.Disk, r.Direction}
			a := accs[k]
			if a == nil {
				a = &acc{row: r}
				accs[k] = a
				order = append(order, k)
			}
			n := r.IOPS * s.dt
			a.ios += n
			a.t += r.MBps * s.dt
			a.mean += n * r.LatMeanUs
			a.p50 += n * r.P50Us
			a.p95 += n * r.P95Us
			a.p99 += n * r.P99Us
			a.p999 += n * r.P999Us
			a.row.Errors += r.Errors
		}
	}
	out := make([]fio.Row, 0, len(order))
	for _, k := range order {
		a := accs[k]
		r := a.row
		r.IOPS, r.MBps = a.ios/total, a.t/total
		if a.ios > 0 {
			r.LatMeanUs, r.P50Us, r.P95Us, r.P99Us, r.P999Us = a.mean/a.ios, a.p50/a.ios, a.p95/a.ios, a.p99/a.ios, a.p999/a.ios
		}
		out = append(out, r)
	}
	return out
}

// Shifted returns res as a second workload of a measurement: its rows and
// samples under job's name, its samples moved to start seconds in.
func Shifted(res *fio.Result, job string, start float64) *fio.Result {
	out := *res
	out.Rows, out.Aggregate, out.Samples = slices.Clone(res.Rows), slices.Clone(res.Aggregate), slices.Clone(res.Samples)
	for i := range out.Rows {
		out.Rows[i].Job = job
	}
	for i := range out.Aggregate {
		out.Aggregate[i].Job = job
	}
	for i := range out.Samples {
		out.Samples[i].Job = job
		out.Samples[i].TS += start
	}
	return &out
}

// Merge adds x's rows, samples and notes to dst.
func Merge(dst, x *fio.Result) {
	dst.Rows = append(dst.Rows, x.Rows...)
	dst.Aggregate = append(dst.Aggregate, x.Aggregate...)
	dst.Samples = append(dst.Samples, x.Samples...)
	sort.SliceStable(dst.Samples, func(a, b int) bool { return dst.Samples[a].TS < dst.Samples[b].TS })
	for _, n := range x.Notes {
		if !slices.Contains(dst.Notes, n) {
			dst.Notes = append(dst.Notes, n)
		}
	}
}
