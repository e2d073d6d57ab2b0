package model

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"starbench/internal/fio"
)

// Over random cells on the shipped testbeds (jobs, engines, polled I/O and
// drained queues, rates, think time, policies, cluster settings, layouts),
// what every answer must keep: finite, non-negative figures with
// percentiles in order; utilisations within full; each host's CPU within
// 100 % and above what spinning vCPUs hold; what the hosts send equal to
// what they receive; in a closed loop the outstanding I/Os fio keeps equal
// to throughput times latency (Little's law); and the same answer twice.
// The seed is fixed: a failure names the cell.
func TestRandomCellsKeepTheInvariants(t *testing.T) {
	testbeds := []string{"storagereview-r6625-esa", "vxrail-ve660-esa", "wwt-r640-osa"}
	rng := rand.New(rand.NewPCG(12, 2026))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	closedLoops, polled := 0, 0
	for n := range 300 {
		p := mustLoad(t, testbeds[n%len(testbeds)])
		job := &fio.Job{
			IOEngine: pick("libaio", "io_uring", "psync"), Direct: true,
			RW: pick("randread", "randwrite", "randrw", "read", "write", "rw"), RWMixRead: 10 * (1 + rng.IntN(9)),
			IODepth: 1 + rng.IntN(64), NumJobs: 1 + rng.IntN(3),
		}
		job.BlockSize, _ = fio.ParseSize(pick("4k", "8k", "32k", "64k", "256k", "1m"))
		closed := true
		add := func(k, v string) { job.Options = append(job.Options, fio.Option{Key: k, Value: v}) }
		if job.IOEngine == "io_uring" {
			switch rng.IntN(4) {
			case 0:
				add("hipri", "1")
			case 1:
				add("sqthread_poll", "1")
			}
		}
		if rng.IntN(4) == 0 {
			add("iodepth_low", strconv.Itoa(rng.IntN(job.IODepth+1)))
		}
		if rng.IntN(4) == 0 {
			add("iodepth_batch_complete_min", strconv.Itoa(rng.IntN(job.IODepth+1)))
		}
		if rng.IntN(5) == 0 {
			job.RateIOPS, closed = 50*(1+rng.IntN(40)), false
		}
		if rng.IntN(6) == 0 {
			add("thinktime", strconv.Itoa(50*(1+rng.IntN(10))))
			closed = false
		}
		if rng.IntN(3) == 0 {
			job.BufferCompressPercentage = 10 * rng.IntN(10)
		}
		pol := Policy{RAID: pick("raid1", "raid5", "raid6")}
		if pol.RAID == "raid6" && p.Hosts < 6 {
			pol.RAID = "raid1"
		}
		in := UniformInput(p, p.Hosts*(1+rng.IntN(4)), 1+rng.IntN(8), pol, job)
		in.State = ClusterState{Compression: rng.IntN(2) == 0, RDMA: rng.IntN(2) == 0, TransitEncryption: rng.IntN(5) == 0}
		name := fmt.Sprintf("cell %d on %s: %s bs=%d iodepth=%d numjobs=%d %s rate_iops=%d %v, %s, %+v, %d VMs x %d disks",
			n, p.Name, job.RW, job.BlockSize, job.IODepth, job.NumJobs, job.IOEngine, job.RateIOPS, job.Options, pol.RAID, in.State, len(in.VMs), len(in.Jobs[0].Disks)/len(in.VMs))
		out, err := Solve(context.Background(), p, in)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		again, err := Solve(context.Background(), p, in)
		if err != nil || !reflect.DeepEqual(out, again) {
			t.Errorf("%s: a second solve differs (%v)", name, err)
		}
		inFlight := 0.0
		for _, d := range []Direction{out.Read, out.Write} {
			figures := []float64{d.IOPS, d.MBps, d.LatMeanUs, d.P50Us, d.P95Us, d.P99Us, d.P999Us}
			for _, x := range figures {
				if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
					t.Errorf("%s: a figure %v in %+v", name, x, d)
				}
			}
			if d.IOPS > 0 && (d.LatMeanUs <= 0 || !(d.P50Us <= d.P95Us && d.P95Us <= d.P99Us && d.P99Us <= d.P999Us)) {
				t.Errorf("%s: latencies %+v", name, d)
			}
			inFlight += d.IOPS * d.LatMeanUs * 1e-6
		}
		if out.cpuHeld > 0 {
			polled++
		}
		if closed {
			closedLoops++
		}
		if closed && math.Abs(inFlight/float64(out.Outstanding)-1) > 0.01 {
			t.Errorf("%s: throughput x latency %.2f I/Os, fio keeps %d outstanding", name, inFlight, out.Outstanding)
		}
		for _, s := range out.Stations {
			if !(s.Util >= 0 && s.Util <= 1+1e-9) {
				t.Errorf("%s: station %s at %g", name, s.Name, s.Util)
			}
		}
		if !(out.CPUPercent >= out.cpuHeld-1e-9 && out.CPUPercent <= 100+1e-9) {
			t.Errorf("%s: the busiest host's CPU %.2f %%, %.2f held", name, out.CPUPercent, out.cpuHeld)
		}
		tx, rx := 0.0, 0.0
		for h, f := range out.Hosts {
			if c := out.HostCPUPercent[h]; !(c >= out.hostHeld[h]-1e-9 && c <= 100+1e-9 && f.VSANCPUPercent <= c+1e-9) {
				t.Errorf("%s: host %d's CPU %.2f %% (%.2f held, vSAN %.2f)", name, h, c, out.hostHeld[h], f.VSANCPUPercent)
			}
			tx, rx = tx+f.NICTxBytesPerSec, rx+f.NICRxBytesPerSec
		}
		if math.Abs(tx-rx) > 1e-6*math.Max(tx, 1) {
			t.Errorf("%s: the hosts send %.0f B/s and receive %.0f B/s", name, tx, rx)
		}
	}
	t.Logf("300 cells, %d in a closed loop, %d with vCPUs spinning", closedLoops, polled)
}

// Over random pairs of jobs on the same disks of the shipped testbeds, a
// job does no more beside the other than alone (the other's I/Os only add
// to what the stations carry), and two identical jobs do the same. The
// multi-class approximation may drift a little from an exact solution, so
// 0.5 % is let pass. The seed is fixed: a failure names the pair.
func TestRandomPairsNeverGainFromEachOther(t *testing.T) {
	testbeds := []string{"storagereview-r6625-esa", "vxrail-ve660-esa", "wwt-r640-osa"}
	rng := rand.New(rand.NewPCG(7, 2026))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	randomJob := func(name string) *fio.Job {
		job := &fio.Job{Name: name, IOEngine: pick("libaio", "io_uring", "psync"), Direct: true,
			RW: pick("randread", "randwrite", "randrw", "read", "write", "rw"), RWMixRead: 10 * (1 + rng.IntN(9)),
			IODepth: 1 + rng.IntN(64), NumJobs: 1 + rng.IntN(3)}
		job.BlockSize, _ = fio.ParseSize(pick("4k", "8k", "32k", "64k", "256k", "1m"))
		if rng.IntN(4) == 0 {
			job.RateIOPS = 10 * (1 + rng.IntN(100))
		}
		return job
	}
	iops := func(d JobOutput) float64 { return d.Read.IOPS + d.Write.IOPS }
	for n := range 90 {
		p := mustLoad(t, testbeds[n%len(testbeds)])
		a, b := randomJob("a"), randomJob("b")
		if n%10 == 0 {
			*b = *a
			b.Name = "b"
		}
		pol := Policy{RAID: pick("raid1", "raid5")}
		if rng.IntN(3) == 0 {
			pol.IOPSLimit = 100 * (1 + rng.IntN(50))
		}
		vms, disks := p.Hosts*(1+rng.IntN(3)), 1+rng.IntN(4)
		if p.Hosts > 4 { // 24 hosts: each job runs as 24 classes
			vms, disks = p.Hosts, 1
		}
		in := UniformInput(p, vms, disks, pol, a)
		in.Jobs[0].Name = "a"
		for d := range in.Jobs[0].Disks {
			in.Jobs[0].Disks[d].Disk = fmt.Sprintf("disk%d", d%len(in.VMs))
		}
		in.State = ClusterState{Compression: rng.IntN(2) == 0}
		name := fmt.Sprintf("pair %d on %s, %s, %d VMs: a %s bs=%d iodepth=%d numjobs=%d %s rate_iops=%d; b %s bs=%d iodepth=%d numjobs=%d %s rate_iops=%d",
			n, p.Name, pol.RAID, len(in.VMs), a.RW, a.BlockSize, a.IODepth, a.NumJobs, a.IOEngine, a.RateIOPS, b.RW, b.BlockSize, b.IODepth, b.NumJobs, b.IOEngine, b.RateIOPS)
		alone, err := Solve(context.Background(), p, in)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		in.Jobs = append(in.Jobs, JobLoad{Name: "b", Job: b, Disks: in.Jobs[0].Disks})
		both, err := Solve(context.Background(), p, in)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got, was := iops(both.Jobs[0]), iops(alone.Jobs[0]); got > was*1.005 {
			t.Errorf("%s: a does %.0f IOPS beside b, %.0f alone", name, got, was)
		}
		same := *b
		same.Name = a.Name
		if reflect.DeepEqual(*a, same) {
			if x, y := iops(both.Jobs[0]), iops(both.Jobs[1]); math.Abs(x/y-1) > 1e-9 {
				t.Errorf("%s: identical jobs do %.0f and %.0f IOPS", name, x, y)
			}
		}
	}
}

// Over random runs through the plane on StorageReview and WWT (one job or
// two, time or size based, loops, startdelay, ranked and zoned
// distributions, verify with and without verify_backlog, runs after runs
// on the same disks, so readers meet what
// earlier runs wrote, replay them and pass through parts): every run
// answers, with finite rows, samples in time order, and every disk's
// written share within [0, 1]. The seed is fixed: a failure names the run.
func TestRandomRunsKeepTheInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 36))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	runs := 0
	for _, tb := range []string{"storagereview-r6625-esa", "wwt-r640-osa"} {
		for n := range 20 {
			_, src := newTestPlane(t)
			pl := NewPlane(mustLoad(t, tb), src).(*Plane)
			ws := workers(2+rng.IntN(4), 1+rng.IntN(3), pick("", "r5"))
			for i := range ws {
				for d := range ws[i].Disks {
					ws[i].Disks[d].SizeBytes = int64(1+rng.IntN(8)) << 30
				}
			}
			job := func(name string) fio.Job {
				j := fio.Job{Name: name, IOEngine: "libaio", Direct: true, RW: pick("read", "write", "rw", "randread", "randwrite", "randrw"),
					RWMixRead: 10 * (1 + rng.IntN(9)), IODepth: 1 + rng.IntN(16), NumJobs: 1 + rng.IntN(3)}
				j.BlockSize, _ = fio.ParseSize(pick("4k", "64k", "1m"))
				if rng.IntN(2) == 0 {
					j.TimeBased, j.RuntimeSec = true, 10+rng.IntN(600)
				} else {
					j.Options = append(j.Options, fio.Option{Key: "io_size", Value: pick("10%", "50%", "3g")})
				}
				if rng.IntN(4) == 0 {
					j.Options = append(j.Options, fio.Option{Key: "random_distribution", Value: pick("zipf:1.2", "pareto:0.3", "zoned:50/10:50/90")})
				}
				if rng.IntN(4) == 0 {
					j.Options = append(j.Options, fio.Option{Key: "loops", Value: "2"})
				}
				if rng.IntN(4) == 0 { // a read-back after its I/O, or beside it
					j.Options = append(j.Options, fio.Option{Key: "verify", Value: "crc32c"})
					if rng.IntN(2) == 0 {
						j.Options = append(j.Options, fio.Option{Key: "verify_backlog", Value: "16"})
					}
				}
				return j
			}
			for k := range 3 {
				wl := fio.NewWorkload(job("a"))
				if rng.IntN(2) == 0 {
					b := job("b")
					if rng.IntN(3) == 0 {
						b.Options = append(b.Options, fio.Option{Key: "startdelay", Value: "5"})
					}
					wl = &fio.Workload{Name: "two", Jobs: []fio.Job{job("a"), b}}
				}
				name := fmt.Sprintf("%s, plane %d, run %d: %+v", tb, n, k, wl.Jobs)
				res, err := pl.Run(context.Background(), ws, wl, nil)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				runs++
				for _, r := range res.Aggregate {
					if math.IsNaN(r.IOPS) || math.IsInf(r.IOPS, 0) || r.IOPS < 0 || math.IsNaN(r.LatMeanUs) {
						t.Errorf("%s: row %+v", name, r)
					}
				}
				for i := 1; i < len(res.Samples); i++ {
					if s := res.Samples[i]; s.TS < res.Samples[i-1].TS || math.IsNaN(s.IOPS) || math.IsNaN(s.MBps) {
						t.Errorf("%s: sample %d %+v after %+v", name, i, s, res.Samples[i-1])
						break
					}
				}
				for key, d := range pl.disks {
					if w, _ := d.whole(); !(w >= -1e-9 && w <= 1+1e-9) {
						t.Errorf("%s: disk %v written %v", name, key, w)
					}
				}
			}
		}
	}
	t.Logf("%d runs", runs)
}
