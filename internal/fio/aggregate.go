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

func (d *dirSum) add(s DirStats, errs int64) {
	if d.hist == nil {
		d.hist = Histogram{}
	}
	d.iops += s.IOPS
	d.bw += s.BWBytes
	d.ios += s.Clat.N
	d.latSum += s.Clat.Mean * float64(s.Clat.N)
	d.hist.Add(s.Clat.Bins)
	d.errs += errs
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

// row turns the sums into a Row. Latency columns are completion latency
// (fio's clat), the distribution fio reports percentiles for.
func (d *dirSum) row(worker, disk, dir string) Row {
	p := d.hist.Percentiles(50, 95, 99, 99.9)
	mean := math.NaN()
	if d.ios > 0 {
		mean = d.latSum / float64(d.ios) / 1000
	}
	return Row{Worker: worker, Disk: disk, Direction: dir, IOPS: d.iops, MBps: d.bw / 1e6,
		LatMeanUs: mean, P50Us: p[0] / 1000, P95Us: p[1] / 1000, P99Us: p[2] / 1000, P999Us: p[3] / 1000,
		Errors: int(d.errs)}
}

// ClientKey identifies a fio server in client_stats: the host and port the
// client was given.
type ClientKey struct {
	Host string
	Port int
}

// Aggregate turns entries into a Result: one row per worker, disk and
// direction (numjobs clones summed), and one aggregate row per direction.
// IOPS and bandwidth are summed, mean latency is weighted by I/O count and
// percentiles come from the merged histograms, never from averaging.
// clients maps each worker to its key; an entry of a disk or server not
// named there is an error, as is a disk that reported nothing.
func Aggregate(entries []JobStats, workers []Worker, clients map[string]ClientKey) (*Result, error) {
	type diskKey struct {
		worker, disk string
	}
	byKey := map[ClientKey]string{}
	for _, w := range workers {
		byKey[clients[w.Name]] = w.Name
	}
	sums := map[diskKey]*[2]dirSum{}
	for _, e := range entries {
		if (e.Read.Clat.N > 0 && len(e.Read.Clat.Bins) == 0) || (e.Write.Clat.N > 0 && len(e.Write.Clat.Bins) == 0) {
			return nil, fmt.Errorf("job %s on %s:%d has no latency histogram; run fio with --output-format=json+", e.Name, e.Host, e.Port)
		}
		name, ok := byKey[ClientKey{e.Host, e.Port}]
		if !ok {
			return nil, fmt.Errorf("fio reported a job from %s:%d, which is none of the workers", e.Host, e.Port)
		}
		k := diskKey{name, e.Name}
		s := sums[k]
		if s == nil {
			s = &[2]dirSum{}
			sums[k] = s
		}
		// fio counts a job's I/O errors once; they go to the direction it ran.
		readErrs, writeErrs := e.TotalErr, int64(0)
		if e.Read.TotalIOs == 0 {
			readErrs, writeErrs = 0, e.TotalErr
		}
		s[0].add(e.Read, readErrs)
		s[1].add(e.Write, writeErrs)
	}
	res := &Result{}
	var total [2]dirSum
	for _, w := range workers {
		for _, d := range w.Disks {
			s := sums[diskKey{w.Name, d.Name}]
			if s == nil {
				return nil, fmt.Errorf("worker %s reported no result for disk %s", w.Name, d.Name)
			}
			delete(sums, diskKey{w.Name, d.Name})
			for i, dir := range directions {
				if s[i].ios == 0 && s[i].iops == 0 {
					continue
				}
				res.Rows = append(res.Rows, s[i].row(w.Name, d.Name, dir))
				total[i].merge(&s[i])
			}
		}
	}
	for k := range sums {
		return nil, fmt.Errorf("worker %s reported a job %q that is none of its disks", k.worker, k.disk)
	}
	for i, dir := range directions {
		if total[i].ios > 0 || total[i].iops > 0 {
			res.Aggregate = append(res.Aggregate, total[i].row("", "", dir))
		}
	}
	return res, nil
}

var directions = [2]string{"read", "write"}
