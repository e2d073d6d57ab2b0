package model

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// Version names the model; results carry it so a change of model is visible.
const Version = "starbench-model/1"

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

// Solve predicts what fio would report for one cell. It is deterministic,
// and it stops early with ctx's error when ctx is cancelled.
func Solve(ctx context.Context, p *testbed.Profile, in Input) (*Output, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	if len(in.Jobs) > 1 {
		return nil, fmt.Errorf("%d concurrent jobs: the model solves one job at a time", len(in.Jobs))
	}
	jl := in.Jobs[0]
	job, disks := jl.Job, jl.Disks
	fr, err := readShare(job)
	if err != nil {
		return nil, err
	}
	sizes, err := blockSizes(job)
	if err != nil {
		return nil, err
	}
	out := &Output{Profile: p.Name, Version: Version}
	linkBps, err := uplinkBytesPerSec(p, in.State.Uplink)
	if err != nil {
		return nil, err
	}
	rdma := in.State.RDMA && p.RDMACapable
	out.RDMA = rdma
	if in.State.RDMA && !p.RDMACapable {
		out.Notes = append(out.Notes, "RDMA requested but not every host is RDMA capable: vSAN falls back to TCP")
	}
	if in.State.Dedup && p.Architecture == "ESA" {
		out.Notes = append(out.Notes, "deduplication is not an ESA data service in this model: ignored")
	}
	cm := newCostModel(p, rdma, in.State.Compression, in.State.Dedup)

	cost, err := accountCosts(p, cm, disks, sizes, job)
	if err != nil {
		return nil, err
	}
	st := stations(p, cost, linkBps, fr)
	hop := p.Model.HopLatencyTCPUs.Value
	if rdma {
		hop = p.Model.HopLatencyRDMAUs.Value
	}
	var z [2]float64
	for dir := range z {
		z[dir] = (p.Model.SoftwareLatencyUs.Value+cost[dir].roundTrips*hop)*1e-6 + cost[dir].deviceLatency
	}
	zMix := fr*z[read] + (1-fr)*z[write]

	meanSize := 0.0
	for _, s := range sizes {
		meanSize += float64(s.size) * s.share
	}

	n := len(disks) * max(job.NumJobs, 1) * max(job.IODepth, 1)
	out.Outstanding = n
	sol, err := solveMVA(ctx, st, n, fr, zMix)
	if err != nil {
		return nil, err
	}
	// fio's rate_iops and rate cap each job (clone): the tighter one holds.
	perJob := math.Inf(1)
	if job.RateIOPS > 0 {
		perJob = float64(job.RateIOPS)
	}
	if job.RateBytes > 0 {
		perJob = math.Min(perJob, float64(job.RateBytes)/meanSize)
	}
	x := sol.X // throughput; a rate limit holds it below what the network carries
	if limit := perJob * float64(len(disks)*max(job.NumJobs, 1)); sol.X > limit {
		if n, sol, err = rateLimited(ctx, st, n, fr, zMix, limit); err != nil {
			return nil, err
		}
		x = math.Min(sol.X, limit)
	}
	// Latency is that of the population's own throughput: the idle gaps fio
	// leaves between rate-limited I/Os are not part of any I/O's latency.
	littleR := float64(n) / sol.X
	var dirs [2]Direction
	var resp [2]float64
	for dir := range dirs {
		resp[dir] = z[dir] + sum(residence(st, sol, n, dir))
	}
	// Scale so the mixed mean obeys Little's law exactly.
	scale := littleR / (fr*resp[read] + (1-fr)*resp[write])
	share := [2]float64{fr, 1 - fr}
	for dir := range dirs {
		if share[dir] == 0 {
			continue
		}
		d := &dirs[dir]
		d.IOPS = x * share[dir]
		d.MBps = d.IOPS * meanSize / 1e6
		d.LatMeanUs = resp[dir] * scale * 1e6
		if d.P50Us, d.P95Us, d.P99Us, d.P999Us, err = percentiles(st, sol, n, dir, z[dir], scale); err != nil {
			return nil, err
		}
	}
	out.Read, out.Write = dirs[read], dirs[write]
	out.Jobs = []JobOutput{{Name: jl.Name, Outstanding: n, Read: dirs[read], Write: dirs[write]}}

	for k := range st {
		u := x * st[k].demand(fr) / st[k].Servers
		out.Stations = append(out.Stations, StationUse{st[k].Name, u})
		if u > out.BottleneckUtil {
			out.Bottleneck, out.BottleneckUtil = st[k].Name, u
		}
		switch st[k].Name {
		case "cpu":
			out.CPUPercent = 100 * u
		case "nic-tx", "nic-rx":
			out.NICPercent = math.Max(out.NICPercent, 100*u)
		}
	}
	out.Notes = append(out.Notes, rangeNotes(p, n, sizes)...)
	out.Notes = append(out.Notes, rawSizeNotes(job)...)
	return out, nil
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

// accountCosts averages the per-I/O costs of each direction over the disks
// and block sizes. Disks in the same state cost the same: each kind is
// accounted once, in first-seen order so sums are deterministic.
func accountCosts(p *testbed.Profile, cm costModel, disks []DiskLoad, sizes []sizeShare, job *fio.Job) ([2]opCost, error) {
	var kinds []DiskLoad
	counts := map[DiskLoad]int{}
	for _, d := range disks {
		if counts[d] == 0 {
			kinds = append(kinds, d)
		}
		counts[d]++
	}
	var cost [2]opCost
	for _, d := range kinds {
		lay, err := policyLayout(p, d.Policy)
		if err != nil {
			return cost, err
		}
		w := float64(counts[d]) / float64(len(disks))
		dm := cm // a policy's compression rule overrides the cluster's
		switch d.Policy.Compression {
		case On:
			dm.compress = true
		case Off:
			dm.compress = false
		}
		for _, s := range sizes {
			b := float64(s.size)
			cost[read].add(dm.readCost(b, d.Written, d.CompressPercentage), w*s.share)
			cost[write].add(dm.writeCost(b, lay, job.BufferCompressPercentage, job.DedupePercentage), w*s.share)
		}
	}
	return cost, nil
}

// stations builds the network for the per-I/O costs.
func stations(p *testbed.Profile, cost [2]opCost, linkBps, fr float64) []station {
	m := &p.Model
	h := float64(p.Hosts)
	hz := p.CPU.GHz * 1e9
	devs := p.Hosts * p.Storage.CapacityDevices
	storeName, stores := "vsan-device", devs
	if p.Architecture == "OSA" {
		storeName, stores = "vsan-diskgroup", p.Hosts*p.Storage.DiskGroups
	}
	contention := 1 + m.MixedContention.Value*2*math.Min(fr, 1-fr)
	storeServers := m.DeviceWorlds.Value
	if p.Architecture == "OSA" {
		storeServers *= float64(p.Storage.CapacityPerGroup)
	}
	per := func(f func(c opCost) float64) [2]float64 {
		return [2]float64{f(cost[read]), f(cost[write])}
	}
	// The software stations' cycles are CPU time too: the CPU station
	// saturates on all cycles but adds only the latency of the others.
	otherCycles := per(func(c opCost) float64 { return (c.cpuCycles - c.hostCycles - c.storeCycles) / hz / h })
	st := []station{
		{Name: "cpu", Copies: p.Hosts, Servers: float64(p.CPU.Cores()), Busy: &otherCycles,
			D: per(func(c opCost) float64 { return c.cpuCycles / hz / h })},
		{Name: "vsan-host", Copies: p.Hosts, Servers: m.HostWorlds.Value,
			D: per(func(c opCost) float64 { return contention * c.hostCycles / hz / h })},
		{Name: storeName, Copies: stores, Servers: storeServers,
			D: per(func(c opCost) float64 { return c.storeCycles / hz / float64(stores) })},
		{Name: "ssd-capacity", Copies: devs, Servers: 1,
			D: per(func(c opCost) float64 { return c.capacityTime / float64(devs) })},
		{Name: "nic-tx", Copies: p.Hosts, Servers: 1,
			D: per(func(c opCost) float64 { return c.netBytes / h / linkBps })},
		{Name: "nic-rx", Copies: p.Hosts, Servers: 1,
			D: per(func(c opCost) float64 { return c.netBytes / h / linkBps })},
	}
	if p.Architecture == "OSA" {
		groups := p.Hosts * p.Storage.DiskGroups
		st = append(st, station{Name: "ssd-cache", Copies: groups, Servers: 1,
			D: per(func(c opCost) float64 { return c.cacheTime / float64(groups) })})
	}
	return st
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
		q := float64(st[k].Copies) * st[k].D[dir] / st[k].Servers * (1 + shrink*sol.Q[k])
		fixed += float64(st[k].Copies) * st[k].delay(dir)
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

// uplinkBytesPerSec is the usable rate of one host's vSAN uplink: a choice
// of the profile by name, or its active NICs listed as "vmnic0,vmnic1".
func uplinkBytesPerSec(p *testbed.Profile, name string) (float64, error) {
	speed := map[string]float64{}
	for _, nic := range p.NICs {
		speed[nic.Name] = nic.SpeedGbps
	}
	idx := 0
	if name != "" {
		idx = slices.IndexFunc(p.Uplinks, func(u testbed.Uplink) bool { return u.Name == name })
	}
	if idx < 0 {
		nics := strings.FieldsFunc(name, func(r rune) bool { return r == ',' || r == '+' })
		idx = slices.IndexFunc(p.Uplinks, func(u testbed.Uplink) bool { return slices.Equal(u.NICs, nics) })
		if idx < 0 && len(nics) > 0 && speed[nics[0]] > 0 {
			return p.Model.NICEfficiency.Value * speed[nics[0]] * 1e9 / 8, nil
		}
	}
	if idx < 0 {
		var names []string
		for _, u := range p.Uplinks {
			names = append(names, u.Name)
		}
		return 0, fmt.Errorf("uplink %q is not a choice of %s: want one of %s, or active NICs such as %q", name, p.Name, strings.Join(names, ", "), p.Uplinks[0].NICs[0])
	}
	u := p.Uplinks[idx]
	gbps := speed[u.NICs[0]] // active/standby: one link carries vSAN
	if u.LACP {
		gbps = 0
		for _, n := range u.NICs {
			gbps += speed[n]
		}
	}
	return p.Model.NICEfficiency.Value * gbps * 1e9 / 8, nil
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
	return notes
}
