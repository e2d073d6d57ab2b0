package model

import (
	"context"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

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
	// CPUPercent is the host CPU at the busiest host (every host's on an
	// even layout) while the jobs issue I/O, as the stations' utilisation
	// is: what notes and validation tables quote.
	// HostCPUPercent is each host's own over the whole run, as fio's rates
	// and Hosts are (thinktime_iotime's stalls idle it), by the model's
	// host index (see hostNames); 0 for a host the cell leaves idle.
	CPUPercent     float64
	HostCPUPercent []float64
	// cpuHeld and hostHeld are the parts of CPUPercent and HostCPUPercent
	// that spinning vCPUs hold (station.Held): busy whatever the run's
	// throughput, so noise leaves them as they are.
	cpuHeld  float64
	hostHeld []float64
	// Hosts are each host's own figures, by the same index: its
	// components' I/O, its vSAN uplink's traffic and vSAN's share of its
	// CPU; all 0 for a host the cell leaves idle.
	Hosts           []HostFigures
	GuestCPUPercent float64 // the worker VMs' vCPUs running fio, on the busiest host
	NICPercent      float64 // busiest NIC direction
	Bottleneck      string
	BottleneckUtil  float64
	Stations        []StationUse
	RDMA            bool // RDMA in effect (not only requested)
	// RateLimited says a rate limit (fio's rate_iops or rate, a policy's
	// IOPS limit) holds every job below what the cluster carries: the
	// run's figures are the limit's, not the cluster's capacity.
	RateLimited bool
	Notes       []string // fallbacks, inputs outside the calibrated range
	// Jobs are the per-job results, in the order of Input.Jobs; Read and
	// Write above are all jobs together.
	Jobs []JobOutput
	// Burst is OSA's regime while the disk groups' write buffers absorb
	// writes with destage deferred; nil when no write lands in a write
	// buffer. BufferBytesPerSec is how fast the burst fills the buffers,
	// cluster-wide.
	Burst             *Output
	BufferBytesPerSec float64
}

// MeanLatencyUs is the mean latency of the run's I/Os, reads and writes
// weighted by their IOPS; 0 without I/O.
func (out *Output) MeanLatencyUs() float64 {
	if n := out.Read.IOPS + out.Write.IOPS; n > 0 {
		return (out.Read.IOPS*out.Read.LatMeanUs + out.Write.IOPS*out.Write.LatMeanUs) / n
	}
	return 0
}

// MeanHostCPUPercent is the hosts' CPU over the whole run, the mean of
// every host's (HostCPUPercent), idle hosts counted: what a campaign that
// reads all the cluster's hosts' CPU averages.
func (out *Output) MeanHostCPUPercent() float64 {
	return meanOver(len(out.HostCPUPercent), func(h int) float64 { return out.HostCPUPercent[h] })
}

// MeanVSANCPUPercent is vSAN's part of the hosts' CPU over the whole run
// (HostFigures.VSANCPUPercent), the mean over every host, idle ones
// counted.
func (out *Output) MeanVSANCPUPercent() float64 {
	return meanOver(len(out.Hosts), func(h int) float64 { return out.Hosts[h].VSANCPUPercent })
}

// MeanBusyCores is the cores' worth of time the DOM's worlds and the
// LSOM's ran on a host over the whole run, the mean over every host, idle
// ones counted, for the cluster of profile p: what vSAN's performance
// service shows summed over a host's worlds (dom-world-cpu, lsom-world-cpu).
func (out *Output) MeanBusyCores(p *testbed.Profile) (dom, lsom float64) {
	pl := newPlatform(p)
	dom = pl.domWorlds * meanOver(len(out.Hosts), func(h int) float64 { return out.Hosts[h].DOMUtil })
	lsom = pl.storeWorldsPerHost() * meanOver(len(out.Hosts), func(h int) float64 { return out.Hosts[h].LSOMUtil })
	return dom, lsom
}

// meanOver is the mean of of(0) ... of(n-1); 0 when n is 0.
func meanOver(n int, of func(int) float64) float64 {
	if n == 0 {
		return 0
	}
	sum := 0.0
	for i := range n {
		sum += of(i)
	}
	return sum / float64(n)
}

// HostFigures is what one host does in a cell (docs/model.md, Placement):
// the cell's I/Os at the costs that land on the host.
type HostFigures struct {
	// The component ops the host's components serve per second (the ops
	// the DOM owners send them, vSAN's DOM component manager's view), and
	// their payload bytes per second, by the op's direction: a guest read
	// is a component read at one component of its object, a guest write
	// the writes of its leg's components (RAID-1: each mirror; ESA also
	// the destage to the capacity leg), a RAID-5/6 partial-stripe write on
	// OSA reads as well.
	CompReadIOPS, CompWriteIOPS               float64
	CompReadBytesPerSec, CompWriteBytesPerSec float64
	// DeviceUtil is the utilisation (0..1) of the host's busiest capacity
	// device.
	DeviceUtil float64
	// CacheUtil is the utilisation (0..1) of the host's busiest OSA cache
	// device, where OSA's writes land (0 on ESA).
	CacheUtil float64
	// The bytes the host's vSAN uplink sends and receives per second on
	// the wire (frames and message headers included), and its busier
	// direction's share of the uplink's usable rate, in percent.
	NICTxBytesPerSec, NICRxBytesPerSec float64
	NICPercent                         float64
	// DOMUtil is the utilisation (0..1) of the host's DOM worlds
	// (DOMWorlds of them): the share of their time each is busy.
	DOMUtil float64
	// LSOMUtil and LSOMBusiest are the utilisations (0..1) of the host's
	// LSOM worlds (LSOMWorlds): their mean over its LSOM stations
	// (devices on ESA, disk groups on OSA) and its busiest station's.
	LSOMUtil, LSOMBusiest float64
	// VSANCPUPercent is vSAN's share of the host's CPU (HostCPUPercent):
	// the DOM's, the LSOM's and the network's cycles, not the worker VMs'
	// guest path.
	VSANCPUPercent float64
}

// JobOutput is one job's share of a cell.
type JobOutput struct {
	Name        string
	Outstanding int
	Read, Write Direction
	// Classes are the classes the job's disks ran as on an uneven layout
	// (docs/model.md, Placement, "Classes"), in order; nil when the job
	// ran as one class. Read and Write above are theirs together.
	Classes []ClassOutput
	// RateLimited says a rate limit holds every one of the job's disks
	// (Output.RateLimited, for the job).
	RateLimited bool
	// Free is the direction ("read" or "write") of a RateLimited job that
	// its rates leave to what the cluster carries: fio's rates settled its
	// mix with the other direction at its rate. "" when none is.
	Free string
}

// ClassOutput is one class of a job's disks: the disks it holds (indices
// into the job's JobLoad.Disks) and what they did together.
type ClassOutput struct {
	Disks       []int
	Read, Write Direction
	RateLimited bool // a rate limit holds the class's disks
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
// fixed delays: the quantile function of direction dir's latency, in
// seconds. A non-finite moment is an error: gonum's Gamma quantile does
// not return on NaN.
func latencyQuantile(st []station, w, seenQ []float64, dir int, z, scale float64) (func(p float64) float64, error) {
	fixed, mean, variance := z, 0.0, 0.0
	for k := range st {
		q := float64(st[k].Copies) * st[k].demandAt(dir, w[k]) / st[k].Servers * (1 + seenQ[k])
		fixed += float64(st[k].Copies) * st[k].delay(dir, w[k])
		mean += q
		variance += q * q
	}
	fixed, mean, variance = fixed*scale, mean*scale, variance*scale*scale
	if !finite(fixed) || !finite(mean) || !finite(variance) || fixed < 0 || mean < 0 {
		return nil, fmt.Errorf("latency of %s: fixed part %g s, queueing mean %g s, variance %g: want finite numbers of at least 0", dirName[dir], fixed, mean, variance)
	}
	if variance <= 0 || mean <= 0 {
		return func(float64) float64 { return fixed + mean }, nil
	}
	g := distuv.Gamma{Alpha: mean * mean / variance, Beta: mean / variance}
	return func(p float64) float64 { return fixed + g.Quantile(p) }, nil
}

var dirName = [2]string{"reads", "writes"}

func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

// rangeNotes flags inputs outside what the parameters were fitted on.
func rangeNotes(p *testbed.Profile, n int, sizes [2][]sizeShare) []string {
	m := &p.Model
	var notes []string
	for _, s := range slices.Concat(sizes[read], sizes[write]) {
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
	if p.Architecture == "OSA" && p.Calibration == "" {
		notes = append(notes, "OSA: vSAN software costs are the ESA fit; no OSA calibration table")
	}
	if note := UncalibratedNote(p); note != "" {
		notes = append(notes, note)
	}
	return notes
}

// UncalibratedNote says that testbed p is uncalibrated, its hardware run
// with the parameters fitted on another's table; "" where p names the
// table its parameters were fitted on.
func UncalibratedNote(p *testbed.Profile) string {
	if p.Calibration != "" {
		return ""
	}
	return fmt.Sprintf("testbed %s is uncalibrated: its hardware with the parameters fitted on storagereview-esa-8u2.csv", p.Name)
}
