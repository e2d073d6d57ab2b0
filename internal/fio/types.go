// Package fio models fio jobs, runs them with fio's client/server mode across
// workers, and turns json+ output into correctly aggregated results.
package fio

import (
	"context"
	"math"
	"slices"
)

// Worker is one fio server and the data disks it drives: a worker VM on a
// cluster, or a local server on loopback.
type Worker struct {
	Name  string // VM name, or "local-1"
	Host  string // ESXi host it runs on; "" when not on a cluster
	Addr  string // fio server address, "host:port"
	Disks []Disk
	// Simulated is true for a worker VM of the embedded target that runs no
	// fio server: its workloads go to the target's model, never to fio.
	Simulated bool
	// CPUs and Controller are the worker VM's vCPUs and its data disks'
	// virtual controller ("pvscsi", "lsilogic", "nvme"); 0 and "" when not
	// known. The simulated data plane models the guest side from them.
	CPUs       int
	Controller string
}

// Disk is one data disk of a worker.
type Disk struct {
	Name      string // "disk1", ...
	Path      string // device or file the job writes to, e.g. /dev/sdb
	SizeBytes int64
	Policy    string // storage policy name; "" when unknown
}

// Job is one fio job. Zero values mean fio's default. Options holds every
// option the model does not name, in file order, so nothing is dropped.
type Job struct {
	Name                     string
	RW                       string    // read, write, randread, randwrite, rw, randrw
	BlockSize                int64     // bytes; 0 when BSSplit is set
	BSSplit                  []BSSplit // mixed block sizes
	RWMixRead                int       // percent reads for rw/randrw
	IODepth                  int
	NumJobs                  int
	RuntimeSec               int
	RampSec                  int
	TimeBased                bool
	Size                     int64 // bytes per file; 0 = whole device
	Direct                   bool
	IOEngine                 string
	BufferCompressPercentage int
	DedupePercentage         int
	// RateIOPS and RateBytes cap each direction of each job (each numjobs
	// clone) on its own, as fio's rate_iops=N and rate=N do; per-direction
	// values (rate_iops=500,200) stay raw options (see Rates).
	RateIOPS    int
	RateBytes   int64     // bytes per second; 0 = unlimited
	Percentiles []float64 // fio's percentile_list; nil = fio's default list
	Options     []Option
}

// BSSplit is one block size of a mix with its share in percent.
type BSSplit struct {
	Size    int64
	Percent int
}

// Option is one raw fio option (value "" for flags).
type Option struct{ Key, Value string }

// Row is one line of results: one job on one worker's disk in one
// direction, or an aggregate over disks, workers and jobs.
type Row struct {
	// Job is fio's job name (the job file's section); "" for a one-job
	// workload's rows and for the aggregate over all jobs.
	Job    string
	Worker string // "" for an aggregate row ("all")
	// Disk is the worker's data disk, "disk1+disk2" for a job spread over
	// several, "-" for a job that uses none (an engine such as net).
	Disk string
	// Direction is "read", "write", "trim" or "total": a job that moved
	// data in several directions has a total row combining them (and
	// holding its I/O errors, which fio does not count per direction).
	Direction string
	IOPS      float64
	MBps      float64 // 10^6 bytes per second
	LatMeanUs float64
	P50Us     float64
	P95Us     float64
	P99Us     float64
	P999Us    float64
	Errors    int
	Simulated bool
	// Percentiles are those of the job's percentile_list beyond the four
	// above, in its order.
	Percentiles []Percentile
}

// Percentile is one latency percentile of a row.
type Percentile struct {
	P  float64 // in percent, e.g. 99.99
	Us float64 // completion latency, µs
}

// Result is one run: per-worker rows and one aggregate row per direction.
type Result struct {
	Rows      []Row
	Aggregate []Row
	Simulated bool
	// Model and Testbed name what made a simulated result: the model version
	// and the testbed profile actually used; both "" for measured results.
	Model, Testbed string
	// Samples is the run over time: one entry per job, direction and
	// interval, on one time axis across all workers; nil when the data
	// plane took none.
	Samples []Sample
	// Events are what happened to the cluster during the run, on the
	// samples' time axis (see internal/events); nil when nothing did.
	Events []Event
	// Notes carry what the data plane wants shown beside the numbers
	// (bottleneck, physical-bound warnings, model version).
	Notes []string
	// Artifacts are files of the run worth keeping with its results, such
	// as the rendered job file and fio's raw output.
	Artifacts []Artifact
}

// Totals sums the IOPS and MB/s of the whole workload: its aggregate rows
// over all jobs, each direction once (not the total row, which repeats them).
func (r *Result) Totals() (iops, mbps float64) {
	for _, a := range r.Aggregate {
		if a.Job == "" && a.Direction != TotalDirection {
			iops += a.IOPS
			mbps += a.MBps
		}
	}
	return iops, mbps
}

// Status is the run's progress sample once it has ended: its totals, and
// the mean latency of all its I/Os (the directions' weighted by IOPS).
func (r *Result) Status(elapsed, total int) Status {
	st := Status{Elapsed: elapsed, Total: total, LatMeanUs: math.NaN()}
	st.IOPS, st.MBps = r.Totals()
	var latSum float64
	for _, a := range r.Aggregate {
		if a.Job == "" && a.Direction != TotalDirection {
			latSum += a.LatMeanUs * a.IOPS
		}
	}
	if st.IOPS > 0 {
		st.LatMeanUs = latSum / st.IOPS
	}
	return st
}

// Artifact is one named file of a run.
type Artifact struct {
	Name    string // e.g. "job.fio", "fio-output.json"
	Content []byte
}

// Sample is one interval of a run across all workers, as fio's per-interval
// logs report it: the interval ending TS seconds after the measurement began.
type Sample struct {
	Job       string // fio's job name; "" for a one-job workload
	Direction string // "read", "write" or "trim"
	TS        float64
	IOPS      float64
	MBps      float64 // 10^6 bytes per second
	LatMeanUs float64
	P99Us     float64
}

// Prep says how data disks were filled before measuring.
type Prep struct {
	Method    string // "none", "zero" or "random"
	BlockSize int64
	// CompressPercentage is the compressibility of the fill (random only).
	CompressPercentage int
	// Age adds an aging pass after the fill: random writes of mixed block
	// sizes over each whole disk, as months of use would leave it.
	Age bool
}

// Status is one progress sample of a running job: while it runs, the rate
// over the last interval; when it ends, its result.
type Status struct {
	Elapsed, Total int // seconds
	IOPS, MBps     float64
	// LatMeanUs is the mean latency in µs; NaN when not known. While a
	// measured run runs, it is Little's law's (the I/Os its jobs keep in
	// flight over IOPS), known only for jobs at a fixed queue depth.
	LatMeanUs float64
}

// DataPlane runs workloads on workers: real fio, or the simulated model.
// Run runs every job of the workload on every worker, mapped onto each
// worker's data disks as Workload.Targets says, in the workload's phases.
type DataPlane interface {
	Run(ctx context.Context, workers []Worker, wl *Workload, progress func(Status)) (*Result, error)
	Prepare(ctx context.Context, workers []Worker, prep Prep, progress func(Status)) error
}

// AsJob returns a copy of r as one job of a longer measurement: its rows
// and samples under job's name, its samples moved start seconds later.
func (r *Result) AsJob(job string, start float64) *Result {
	out := *r
	out.Rows, out.Aggregate, out.Samples = slices.Clone(r.Rows), slices.Clone(r.Aggregate), slices.Clone(r.Samples)
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
