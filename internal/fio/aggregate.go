package fio

import (
	"fmt"
	"math"
	"slices"
)

// Add merges other into h.
func (h Histogram) Add(other Histogram) {
	for k, v := range other {
		h[k] += v
	}
}

// Percentiles returns the values at ps (in percent) the way fio computes
// them: the first bin whose cumulative count reaches p % of all I/Os.
// An empty histogram gives NaN.
func (h Histogram) Percentiles(ps ...float64) []float64 {
	out := make([]float64, len(ps))
	keys := make([]int64, 0, len(h))
	var total int64
	for k, v := range h {
		if v > 0 {
			keys = append(keys, k)
			total += v
		}
	}
	if total == 0 {
		for i := range out {
			out[i] = math.NaN()
		}
		return out
	}
	slices.Sort(keys)
	for i, p := range ps {
		want := p / 100 * float64(total)
		var sum int64
		out[i] = float64(keys[len(keys)-1])
		for _, k := range keys {
			sum += h[k]
			if float64(sum) >= want {
				out[i] = float64(k)
				break
			}
		}
	}
	return out
}

// dirSum accumulates one direction over many jobs.
type dirSum struct {
	iops, bw float64 // I/Os and bytes per second
	ios      int64   // completed I/Os, the weight of each job's mean
	latSum   float64 // sum of mean*N over jobs, ns
	hist     Histogram
	errs     int64
}

func (d *dirSum) add(s DirStats) {
	if d.hist == nil {
		d.hist = Histogram{}
	}
	d.iops += s.IOPS
	d.bw += s.BWBytes
	d.ios += s.Clat.N
	d.latSum += s.Clat.Mean * float64(s.Clat.N)
	d.hist.Add(s.Clat.Bins)
}

func (d *dirSum) merge(o *dirSum) {
	if d.hist == nil {
		d.hist = Histogram{}
	}
	d.iops += o.iops
	d.bw += o.bw
	d.ios += o.ios
	d.latSum += o.latSum
	d.hist.Add(o.hist)
	d.errs += o.errs
}

// moved says whether the direction has a row: it moved data, or failed to.
func (d *dirSum) moved() bool { return d.ios > 0 || d.iops > 0 || d.errs > 0 }

// row turns the sums into a Row. Latency columns are completion latency
// (fio's clat), the distribution fio reports percentiles for; extra are
// percentiles asked for beyond the four every row has.
func (d *dirSum) row(job, worker, disk, dir string, extra []float64) Row {
	p := d.hist.Percentiles(append([]float64{50, 95, 99, 99.9}, extra...)...)
	mean := math.NaN()
	if d.ios > 0 {
		mean = d.latSum / float64(d.ios) / 1000
	}
	r := Row{Job: job, Worker: worker, Disk: disk, Direction: dir, IOPS: d.iops, MBps: d.bw / 1e6,
		LatMeanUs: mean, P50Us: p[0] / 1000, P95Us: p[1] / 1000, P99Us: p[2] / 1000, P999Us: p[3] / 1000,
		Errors: int(d.errs)}
	for i, q := range extra {
		r.Percentiles = append(r.Percentiles, Percentile{P: q, Us: p[4+i] / 1000})
	}
	return r
}

// sums is one row key's directions, and the I/O errors of jobs that moved
// data in several directions: fio counts a job's errors once, not per
// direction, so those belong to the key's total row.
type sums struct {
	dir      [3]dirSum
	mixedErr int64
}

// add adds one fio job entry. Its errors go to the one direction it moved
// data in (or, with no I/O, the first its rw names), else to the total.
func (s *sums) add(e JobStats, rwDirs []string) {
	var moved []int
	for i, d := range e.dirs() {
		s.dir[i].add(d)
		if d.TotalIOs > 0 {
			moved = append(moved, i)
		}
	}
	switch len(moved) {
	case 0:
		s.dir[slices.Index(Directions[:], rwDirs[0])].errs += e.TotalErr
	case 1:
		s.dir[moved[0]].errs += e.TotalErr
	default:
		s.mixedErr += e.TotalErr
	}
}

func (s *sums) merge(o *sums) {
	for i := range s.dir {
		s.dir[i].merge(&o.dir[i])
	}
	s.mixedErr += o.mixedErr
}

// rows returns a row per direction that moved data and, when more than one
// did, a total row: IOPS and MB/s summed, latency weighted by I/Os,
// percentiles from the directions' merged histograms.
func (s *sums) rows(job, worker, disk string, extra []float64) []Row {
	var out []Row
	var total dirSum
	n := 0
	for i, dir := range Directions {
		if !s.dir[i].moved() {
			continue
		}
		out = append(out, s.dir[i].row(job, worker, disk, dir, extra))
		total.merge(&s.dir[i])
		n++
	}
	if n > 1 || s.mixedErr > 0 {
		total.errs += s.mixedErr
		out = append(out, total.row(job, worker, disk, TotalDirection, extra))
	}
	return out
}

// ClientKey identifies a fio server in client_stats: the host and port the
// client was given.
type ClientKey struct {
	Host string
	Port int
}

// Aggregate turns the entries of a run of wl into a Result: one row per
// job, worker, disk and direction (numjobs clones summed), one per job
// across workers (when there are several jobs), and one for the whole
// workload. IOPS and bandwidth are summed, mean latency is weighted by I/O
// count and percentiles come from the merged histograms, never from
// averaging. A one-job workload's rows name no job. clients maps each
// worker to its key; an entry of a section or server not in the run is an
// error, as is a section that reported nothing.
func Aggregate(entries []JobStats, wl *Workload, workers []Worker, clients map[string]ClientKey) (*Result, error) {
	type rowKey struct{ worker, job, disk string }
	type sectionKey struct{ worker, section string }
	byClient := map[ClientKey]string{}
	for _, w := range workers {
		byClient[clients[w.Name]] = w.Name
	}
	keyOf := map[sectionKey]rowKey{}
	var order []rowKey
	for _, w := range workers {
		targets, err := wl.Targets(w)
		if err != nil {
			return nil, err
		}
		for _, t := range targets {
			k := rowKey{w.Name, wl.Jobs[t.Job].Name, t.DiskLabel()}
			keyOf[sectionKey{w.Name, t.Section}] = k
			if !slices.Contains(order, k) {
				order = append(order, k)
			}
		}
	}
	rwDirs := map[string][]string{}
	extra := map[string][]float64{}
	for _, j := range wl.Jobs {
		rwDirs[j.Name] = j.rwDirections()
		extra[j.Name] = extraPercentiles(extra[j.Name], j.Percentiles)
	}
	noPct := map[string]bool{}
	for _, j := range wl.Jobs {
		noPct[j.Name] = j.noPercentiles()
	}
	got := map[rowKey]*sums{}
	for _, e := range entries {
		worker, ok := byClient[ClientKey{e.Host, e.Port}]
		if !ok {
			return nil, fmt.Errorf("fio reported a job from %s:%d, which is none of the workers", e.Host, e.Port)
		}
		k, ok := keyOf[sectionKey{worker, e.Name}]
		if !ok {
			return nil, fmt.Errorf("worker %s reported a job %q, which is none of the workload's", worker, e.Name)
		}
		for _, d := range e.dirs() {
			if d.Clat.N > 0 && len(d.Clat.Bins) == 0 && !noPct[k.job] {
				return nil, fmt.Errorf("job %s on %s:%d has no latency histogram; run fio with --output-format=json+", e.Name, e.Host, e.Port)
			}
		}
		s := got[k]
		if s == nil {
			s = &sums{}
			got[k] = s
		}
		s.add(e, rwDirs[k.job])
	}
	single := len(wl.Jobs) == 1
	label := func(job string) string {
		if single {
			return ""
		}
		return job
	}
	res := &Result{}
	perJob := map[string]*sums{}
	var all sums
	var allExtra []float64
	for _, k := range order {
		s := got[k]
		if s == nil {
			return nil, fmt.Errorf("worker %s reported no result for job %s on %s", k.worker, k.job, k.disk)
		}
		res.Rows = append(res.Rows, s.rows(label(k.job), k.worker, k.disk, extra[k.job])...)
		if perJob[k.job] == nil {
			perJob[k.job] = &sums{}
		}
		perJob[k.job].merge(s)
		all.merge(s)
	}
	if !single {
		for _, name := range wl.JobNames() {
			if s := perJob[name]; s != nil {
				res.Aggregate = append(res.Aggregate, s.rows(name, "", "", extra[name])...)
				perJob[name] = nil // a name shared by sections is one job
			}
			allExtra = extraPercentiles(allExtra, extra[name])
		}
	} else {
		allExtra = extra[wl.Jobs[0].Name]
	}
	res.Aggregate = append(res.Aggregate, all.rows("", "", "", allExtra)...)
	return res, nil
}

// fixedPercentiles are the percentiles every row has.
var fixedPercentiles = []float64{50, 95, 99, 99.9}

// extraPercentiles adds to have the percentiles of ps that are neither
// fixed nor in it already, in order.
func extraPercentiles(have, ps []float64) []float64 {
	for _, p := range ps {
		if !slices.Contains(fixedPercentiles, p) && !slices.Contains(have, p) {
			have = append(have, p)
		}
	}
	return have
}

// CombineJobs returns aggregate rows over all jobs (Job "") from the
// per-job aggregate rows of a data plane that keeps no histograms, one per
// direction (SumRows).
func CombineJobs(aggregate []Row) []Row {
	var out []Row
	for _, dir := range append(Directions[:], TotalDirection) {
		var rows []Row
		for _, a := range aggregate {
			if a.Job != "" && a.Direction == dir {
				rows = append(rows, a)
			}
		}
		if len(rows) > 0 {
			out = append(out, SumRows(dir, rows))
		}
	}
	return out
}

// SumRows combines rows of a data plane that keeps no histograms into one
// row of direction dir (its job, worker and disk left for the caller): IOPS,
// MB/s and errors summed, mean latency weighted by IOPS, percentiles missing
// (they cannot be combined without histograms).
func SumRows(dir string, rows []Row) Row {
	nan := math.NaN()
	r := Row{Direction: dir, LatMeanUs: nan, P50Us: nan, P95Us: nan, P99Us: nan, P999Us: nan}
	var latSum float64
	for _, a := range rows {
		r.IOPS += a.IOPS
		r.MBps += a.MBps
		r.Errors += a.Errors
		r.Simulated = r.Simulated || a.Simulated
		latSum += a.LatMeanUs * a.IOPS
	}
	if r.IOPS > 0 {
		r.LatMeanUs = latSum / r.IOPS
	}
	return r
}
