package model

import (
	"context"
	"fmt"
	"strconv"

	"gonum.org/v1/gonum/stat/distuv"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// Version names the model; results carry it so a change of model is visible.
const Version = "starbench-model/2"

// Direction is fio's summary of one direction.
type Direction struct {
	IOPS, MBps                             float64
	LatMeanUs, P50Us, P95Us, P99Us, P999Us float64
}

// StationUse is one station kind's utilisation (0..1).
type StationUse struct {
	Name string
	Util float64
}

// Output is the model's answer for one cell.
type Output struct {
	Profile, Version string
	Outstanding      int
	Read, Write      Direction
	CPUPercent       float64 // mean host CPU
	GuestCPUPercent  float64 // the worker VMs' vCPUs running fio, per host
	NICPercent       float64 // busiest NIC direction
	Bottleneck       string
	BottleneckUtil   float64
	Stations         []StationUse
	RDMA             bool     // RDMA in effect (not only requested)
	Notes            []string // fallbacks, inputs outside the calibrated range
	// Jobs are the per-job results, in the order of Input.Jobs; Read and
	// Write above are all jobs together.
	Jobs []JobOutput
}

// JobOutput is one job's share of a cell.
type JobOutput struct {
	Name        string
	Outstanding int
	Read, Write Direction
}

// rawSizeNotes flags block-size options the model cannot read (per-direction
// sizes like bs=4k,64k, or ranges): it ran fio's default 4k instead.
func rawSizeNotes(job *fio.Job) []string {
	if job.BlockSize > 0 || len(job.BSSplit) > 0 {
		return nil
	}
	var notes []string
	for _, o := range job.Options {
		switch o.Key {
		case "bs", "blocksize", "bssplit", "bsrange", "blocksize_range":
			notes = append(notes, fmt.Sprintf("%s=%s is not one block size or a bssplit the model reads: modelled as 4k I/Os", o.Key, o.Value))
		}
	}
	return notes
}

// rateLimited finds the smallest population that reaches a fio rate limit
// and returns the network at that population.
func rateLimited(ctx context.Context, st []station, n int, fr, z, limit float64) (int, solution, error) {
	lo, hi := 1, n
	for lo < hi {
		mid := (lo + hi) / 2
		sol, err := solveMVA(ctx, st, mid, fr, z)
		if err != nil {
			return 0, solution{}, err
		}
		if sol.X >= limit {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	sol, err := solveMVA(ctx, st, lo, fr, z)
	return lo, sol, err
}

// percentiles fits a Gamma to the queueing part of the response time
// (exponential residence per station, variances summed) shifted by the
// fixed delays. A non-finite moment is an error: gonum's Gamma quantile
// does not return on NaN.
func percentiles(st []station, sol solution, n, dir int, z, scale float64) (p50, p95, p99, p999 float64, err error) {
	shrink := float64(n-1) / float64(n)
	fixed, mean, variance := z, 0.0, 0.0
	for k := range st {
		q := float64(st[k].Copies) * st[k].demandAt(dir, sol.W[k]) / st[k].Servers * (1 + shrink*sol.Q[k])
		fixed += float64(st[k].Copies) * st[k].delay(dir, sol.W[k])
		mean += q
		variance += q * q
	}
	fixed, mean, variance = fixed*scale, mean*scale, variance*scale*scale
	if !finite(fixed) || !finite(mean) || !finite(variance) || fixed < 0 || mean < 0 {
		return 0, 0, 0, 0, fmt.Errorf("latency of %s: fixed part %g s, queueing mean %g s, variance %g: want finite numbers of at least 0", dirName[dir], fixed, mean, variance)
	}
	if variance <= 0 || mean <= 0 {
		v := (fixed + mean) * 1e6
		return v, v, v, v, nil
	}
	g := distuv.Gamma{Alpha: mean * mean / variance, Beta: mean / variance}
	at := func(p float64) float64 { return (fixed + g.Quantile(p)) * 1e6 }
	return at(0.50), at(0.95), at(0.99), at(0.999), nil
}

var dirName = [2]string{"reads", "writes"}

func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

// readShare is the share of I/Os that are reads.
func readShare(job *fio.Job) (float64, error) {
	switch job.RW {
	case "read", "randread":
		return 1, nil
	case "write", "randwrite":
		return 0, nil
	case "rw", "readwrite", "randrw":
		mix := job.RWMixRead
		if mix == 0 {
			mix = 50 // fio's default
			// rwmixread=0 (no reads) and rwmixwrite have no typed field;
			// fio reads them as raw options, so the model does too.
			for _, o := range job.Options {
				v, err := strconv.Atoi(o.Value)
				switch {
				case err != nil:
				case o.Key == "rwmixread":
					mix = v
				case o.Key == "rwmixwrite":
					mix = 100 - v
				}
			}
		}
		if mix < 0 || mix > 100 {
			return 0, fmt.Errorf("rwmixread %d: want a percentage from 0 to 100", job.RWMixRead)
		}
		return float64(mix) / 100, nil
	case "":
		return 1, nil // fio's default is read
	}
	return 0, fmt.Errorf("rw %q: the model runs read, write, randread, randwrite, rw and randrw", job.RW)
}

type sizeShare struct {
	size  int64
	share float64
}

// blockSizes turns bs or bssplit into shares of I/Os.
func blockSizes(job *fio.Job) ([]sizeShare, error) {
	if len(job.BSSplit) == 0 {
		bs := job.BlockSize
		if bs == 0 {
			bs = 4096 // fio's default
		}
		if bs < 512 {
			return nil, fmt.Errorf("block size %d bytes: want at least 512", bs)
		}
		return []sizeShare{{bs, 1}}, nil
	}
	total := 0
	for _, s := range job.BSSplit {
		if s.Size < 512 || s.Percent < 0 {
			return nil, fmt.Errorf("bssplit %d/%d: want sizes of at least 512 bytes and percentages of at least 0", s.Size, s.Percent)
		}
		total += s.Percent
	}
	if total <= 0 {
		return nil, fmt.Errorf("bssplit percentages add up to %d: want 100", total)
	}
	var out []sizeShare
	for _, s := range job.BSSplit {
		out = append(out, sizeShare{s.Size, float64(s.Percent) / float64(total)})
	}
	return out, nil
}

// rangeNotes flags inputs outside what the parameters were fitted on.
func rangeNotes(p *testbed.Profile, n int, sizes []sizeShare) []string {
	m := &p.Model
	var notes []string
	for _, s := range sizes {
		if float64(s.size) < m.CalibratedMinBlockBytes.Value || float64(s.size) > m.CalibratedMaxBlockBytes.Value {
			notes = append(notes, fmt.Sprintf("block size %d bytes is outside the calibrated range %g-%g: extrapolated",
				s.size, m.CalibratedMinBlockBytes.Value, m.CalibratedMaxBlockBytes.Value))
			break
		}
	}
	if float64(n) < m.CalibratedMinOutstanding.Value || float64(n) > m.CalibratedMaxOutstanding.Value {
		notes = append(notes, fmt.Sprintf("%d outstanding I/Os is outside the calibrated range %g-%g: extrapolated",
			n, m.CalibratedMinOutstanding.Value, m.CalibratedMaxOutstanding.Value))
	}
	if p.Architecture == "OSA" {
		notes = append(notes, "OSA: vSAN software costs are the ESA fit; no OSA calibration table")
	}
	if p.Calibration == "" {
		notes = append(notes, fmt.Sprintf("testbed %s is uncalibrated: its hardware with the parameters fitted on storagereview-esa-8u2.csv", p.Name))
	}
	return notes
}
