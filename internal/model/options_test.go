package model

import (
	"context"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// oneDisk is a cell of one job on one prepared disk.
func oneDisk(job *fio.Job) Input {
	return Input{Jobs: []JobLoad{{Job: job, Disks: []DiskLoad{{Policy: Policy{RAID: "raid1"}, Written: 1}}}}}
}

func notes(o *Output) string { return strings.Join(o.Notes, "\n") }

// ioengine as fio reads it: engines that do no disk I/O are refused,
// synchronous ones (fio's default psync among them) keep one I/O in flight
// per job whatever iodepth says, libaio queues only with direct I/O.
func TestIOEngines(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	for engine, why := range map[string]string{"null": "does no I/O on the worker's disk", "net": "does no I/O on the worker's disk",
		"rbd": "does no I/O on the worker's disk", "nfs": "does no I/O on the worker's disk", "libpmem": "does no I/O on the worker's disk",
		"falloc": "does no I/O on the worker's disk", "libzbc": "drives a zoned block device", "io_uring_cmd": "needs an NVMe character device"} {
		_, err := Solve(context.Background(), p, oneDisk(&fio.Job{IOEngine: engine, Direct: true, RW: "randread", IODepth: 8}))
		if err == nil || !strings.Contains(err.Error(), "ioengine="+engine+" "+why) {
			t.Errorf("ioengine=%s: %v, want it refused: %s", engine, err, why)
		}
	}
	// The engine is what is wrong with a network job, whatever its sizes
	// (fio's netio_multicast.fio sends 1-byte messages).
	if _, err := Solve(context.Background(), p, oneDisk(&fio.Job{IOEngine: "net", RW: "write", BlockSize: 1})); err == nil || !strings.Contains(err.Error(), "ioengine=net does no I/O") {
		t.Errorf("ioengine=net with bs=1: %v, want the engine refused", err)
	}
	for _, c := range []struct {
		job   fio.Job
		depth int
		note  string
	}{
		{fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", IODepth: 8, NumJobs: 2}, 16, ""},
		{fio.Job{IOEngine: "io_uring", Direct: true, RW: "randread", IODepth: 8}, 8, ""},
		{fio.Job{RW: "randread", IODepth: 8, NumJobs: 2, Direct: true}, 2, "not set (fio's default psync) is synchronous: iodepth=8 has no effect"},
		{fio.Job{IOEngine: "psync", Direct: true, RW: "randread", IODepth: 8}, 1, "ioengine psync is synchronous"},
		{fio.Job{IOEngine: "sg", Direct: true, RW: "randread", IODepth: 8}, 1, "ioengine sg is synchronous"},
		{fio.Job{IOEngine: "libaio", RW: "randread", IODepth: 8}, 1, "libaio with buffered I/O (direct=0) does not queue"},
	} {
		out := solve(t, p, oneDisk(&c.job))
		if out.Outstanding != c.depth || c.note != "" && !strings.Contains(notes(out), c.note) {
			t.Errorf("%s direct=%v iodepth %d numjobs %d: %d outstanding, notes %q; want %d and %q", c.job.IOEngine, c.job.Direct, c.job.IODepth, c.job.NumJobs, out.Outstanding, out.Notes, c.depth, c.note)
		}
	}
}

// thinktime stalls a job after each thinktime_blocks completions: the
// job's I/O rate falls, its I/Os' latency does not, and the queue is
// capped at thinktime_blocks.
func TestThinkTime(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	base := fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 1}
	free := solve(t, p, oneDisk(&base))
	think := base
	think.Options = []fio.Option{{Key: "thinktime", Value: "1ms"}}
	slow := solve(t, p, oneDisk(&think))
	r := free.Read.LatMeanUs * 1e-6
	if want := 1 / (r + 1e-3); !(math.Abs(total(slow)/want-1) <= 1e-6) {
		t.Errorf("thinktime=1ms at depth 1: %.1f IOPS, want 1/(R + 1 ms) = %.1f", total(slow), want)
	}
	if !(math.Abs(slow.Read.LatMeanUs/free.Read.LatMeanUs-1) <= 1e-6) {
		t.Errorf("thinktime changed the I/O latency: %.1f us vs %.1f", slow.Read.LatMeanUs, free.Read.LatMeanUs)
	}
	deep := base
	deep.IODepth = 32
	deep.Options = []fio.Option{{Key: "thinktime", Value: "100"}, {Key: "thinktime_blocks", Value: "4"}}
	if out := solve(t, p, oneDisk(&deep)); out.Outstanding != 4 {
		t.Errorf("iodepth 32 with thinktime_blocks=4: %d outstanding, want 4 (fio caps the queue)", out.Outstanding)
	}
	if _, err := Solve(context.Background(), p, oneDisk(&fio.Job{RW: "read", Options: []fio.Option{{Key: "thinktime", Value: "soon"}}})); err == nil || !strings.Contains(err.Error(), "thinktime=soon: want a time") {
		t.Errorf("bad thinktime: %v", err)
	}
}

// rate_iops and rate cap each direction of a job (fio's HOWTO: one value
// applies to reads and writes alike, "r,w" to each, ",w" to writes only).
func TestRatePerDirection(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		typed      int
		key, value string
		want       [2]float64
	}{
		{500, "", "", [2]float64{500, 500}},
		{0, "rate_iops", "500", [2]float64{500, 500}},
		{0, "rate_iops", "500,100", [2]float64{500, 100}},
		{0, "rate_iops", ",100", [2]float64{inf, 100}},
		{0, "rate_iops", "100,", [2]float64{100, inf}},
		{0, "rate", "1m", [2]float64{256, 256}},
		{0, "rate", ",1m", [2]float64{inf, 256}},
		{0, "", "", [2]float64{inf, inf}},
	} {
		job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 4096, RateIOPS: c.typed}
		if c.key != "" {
			job.Options = []fio.Option{{Key: c.key, Value: c.value}}
		}
		sh, err := readJob(&job)
		if err != nil {
			t.Fatal(err)
		}
		if got := sh.directionCaps(); got != c.want {
			t.Errorf("rate_iops=%d, %s=%s: caps %v I/Os a second (reads, writes), want %v", c.typed, c.key, c.value, got, c.want)
		}
	}
}

// fio 3.33 on a local file, randrw 70/30 at iodepth 4: rate_iops=500 gives
// 500 reads and 500 writes a second, 500,100 gives 500 and 100, ,100 gives
// 8,626 reads (unlimited) and 100 writes: a direction ahead of its rate
// hands its turn to the other (io_u.c, rate_ddir), so the mix follows the
// rates; the model's does too.
func TestRateOnAMixFollowsFio(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	mixed := func(key, rate string) fio.Job {
		job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 4096, IODepth: 16}
		if key != "" {
			job.Options = []fio.Option{{Key: key, Value: rate}}
		}
		return job
	}
	free := mixed("", "")
	unlimited := solve(t, p, oneDisk(&free))
	for _, c := range []struct {
		key, rate   string
		read, write float64 // I/Os a second; 0: not capped, more than the unlimited run's
	}{
		{"rate_iops", "500", 500, 500},
		{"rate_iops", "500,100", 500, 100},
		{"rate_iops", ",100", 0, 100},
		{"rate_iops", "1000,", 1000, 0},
		{"rate", ",1m", 0, float64(1<<20) / 4096},
	} {
		job := mixed(c.key, c.rate)
		out := solve(t, p, oneDisk(&job))
		got := [2]float64{out.Read.IOPS, out.Write.IOPS}
		base := [2]float64{unlimited.Read.IOPS, unlimited.Write.IOPS}
		for dir, want := range [2]float64{c.read, c.write} {
			switch {
			case want > 0 && math.Abs(got[dir]-want) > 1e-6*want:
				t.Errorf("%s=%s on 70/30: direction %d does %.3f I/Os a second, want its rate %g", c.key, c.rate, dir, got[dir], want)
			case want == 0 && got[dir] <= base[dir]:
				t.Errorf("%s=%s on 70/30: the unlimited direction %d does %.0f I/Os a second, no more than without rates (%.0f): the capped direction's turns did not pass to it", c.key, c.rate, dir, got[dir], base[dir])
			}
		}
		if !strings.Contains(notes(out), "the rates move the 70/30 mix to") {
			t.Errorf("%s=%s: notes %q do not say where the mix settled", c.key, c.rate, out.Notes)
		}
	}
	// Below the cluster's capacity for both rates, reads keep their rate
	// and writes take what capacity is left: more than rwmixread's share.
	capped := 0.9 * unlimited.Read.IOPS
	job := mixed("rate_iops", strconv.FormatFloat(capped, 'f', 0, 64)+",")
	out := solve(t, p, oneDisk(&job))
	if want := math.Round(capped); math.Abs(out.Read.IOPS-want) > 1e-6*want || out.Write.IOPS <= unlimited.Write.IOPS {
		t.Errorf("reads capped at 90 %% of the unlimited run's: %.0f reads and %.0f writes, want %.0f and more than %.0f", out.Read.IOPS, out.Write.IOPS, want, unlimited.Write.IOPS)
	}
	// Both rates finite, but no capacity for both: reads keep theirs and
	// writes take what is left, short of their own rate.
	both := math.Round(0.8 * unlimited.Read.IOPS)
	job = mixed("rate_iops", strconv.FormatFloat(both, 'f', 0, 64))
	out = solve(t, p, oneDisk(&job))
	if math.Abs(out.Read.IOPS-both) > 1e-6*both || out.Write.IOPS >= both || out.Write.IOPS <= unlimited.Write.IOPS {
		t.Errorf("rate_iops=%.0f on 70/30: %.0f reads and %.0f writes, want %.0f reads and writes between %.0f and the rate", both, out.Read.IOPS, out.Write.IOPS, both, unlimited.Write.IOPS)
	}
	job = mixed("rate_iops", "500,100")
	if n := notes(solve(t, p, oneDisk(&job))); !strings.Contains(n, "the rates move the 70/30 mix to 83.3/16.7: ") {
		t.Errorf("rate_iops=500,100: notes %q, want the mix at 83.3/16.7", n)
	}
	// A rate that leaves the other direction a sliver: writes at 1 a
	// second beside a policy's IOPS limit of 2,000, which the reads fill.
	job = mixed("rate_iops", ",1")
	in := oneDisk(&job)
	in.Jobs[0].Disks[0].Policy.IOPSLimit = 2000
	if out := solve(t, p, in); math.Abs(out.Write.IOPS-1) > 1e-6 || math.Abs(out.Read.IOPS+out.Write.IOPS-2000) > 2000*1e-3 {
		t.Errorf("rate_iops=,1 under an IOPS limit of 2,000: %.1f reads and %.3f writes, want 1,999 and 1", out.Read.IOPS, out.Write.IOPS)
	}
	// The job's other options stay while its share is settled: writes
	// capped beside 1 MiB reads (bs in options).
	job = mixed("rate_iops", ",100")
	job.BlockSize = 0
	job.Options = append(job.Options, fio.Option{Key: "bs", Value: "1m"})
	if out := solve(t, p, oneDisk(&job)); math.Abs(out.Write.IOPS-100) > 1e-3 {
		t.Errorf("rate_iops=,100 with bs=1m in options: %.3f writes a second, want 100", out.Write.IOPS)
	}
	// A job with one direction keeps it.
	writes := fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 16, RateIOPS: 500}
	if out := solve(t, p, oneDisk(&writes)); out.Read.IOPS != 0 || math.Abs(out.Write.IOPS-500) > 1e-6 || strings.Contains(notes(out), "the rates move") {
		t.Errorf("randwrite at rate_iops=500: %.0f reads, %.0f writes, notes %q; want 0, 500 and no mix", out.Read.IOPS, out.Write.IOPS, out.Notes)
	}
	// A rate that does not bind leaves rwmixread's mix.
	job = mixed("rate_iops", "10000000")
	if out := solve(t, p, oneDisk(&job)); math.Abs(out.Read.IOPS/(out.Read.IOPS+out.Write.IOPS)-0.7) > 1e-9 || strings.Contains(notes(out), "the rates move") {
		t.Errorf("a rate far above the run: %.0f reads and %.0f writes (want 70/30), notes %q", out.Read.IOPS, out.Write.IOPS, out.Notes)
	}
}

// direct and buffered given as raw options are modelled, the last one
// winning as in fio (fio.job's direct=True comes first in the job text):
// fio.job(direct=True, options={"direct": "0"}) runs buffered on fio, and
// a job file's direct=0 is buffered without a note calling it ignored.
func TestRawDirectAndBuffered(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	for _, c := range []struct {
		typed    bool
		opts     []fio.Option
		buffered bool
	}{
		{true, []fio.Option{{Key: "direct", Value: "0"}}, true},
		{false, []fio.Option{{Key: "direct", Value: "0"}}, true},
		{true, []fio.Option{{Key: "buffered", Value: "1"}}, true},
		{false, []fio.Option{{Key: "buffered", Value: "0"}}, false},
		{true, []fio.Option{{Key: "direct", Value: "0"}, {Key: "buffered", Value: "0"}}, false},
		// Read as fio reads a yes-or-no value (fio.FlagOn): 00 and 0x0 are off.
		{true, []fio.Option{{Key: "direct", Value: "00"}}, true},
		{false, []fio.Option{{Key: "buffered", Value: "0x0"}}, false},
	} {
		job := fio.Job{IOEngine: "libaio", Direct: c.typed, RW: "randread", BlockSize: 4096, IODepth: 16, Options: c.opts}
		out := solve(t, p, oneDisk(&job))
		n := notes(out)
		if strings.Contains(n, "buffered I/O (direct=0)") != c.buffered || strings.Contains(n, "not modelled: ignored") {
			t.Errorf("direct=%v with %v: notes %q; want buffered %v and nothing ignored", c.typed, c.opts, out.Notes, c.buffered)
		}
		if depth := out.Outstanding; (depth == 1) != c.buffered {
			t.Errorf("direct=%v with %v: %d outstanding I/Os; libaio queues only with direct I/O", c.typed, c.opts, depth)
		}
	}
}

// fio.job refuses time_based without runtime (builtins validateJob), but a
// job file's reached the model, which ran it for the time to move the
// disks once (82 s on two 10 GiB disks); fio runs such a job until it is
// stopped. A steady-state window still ends it, as fio's does.
func TestTimeBasedWithoutRuntimeIsRefused(t *testing.T) {
	job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 8, TimeBased: true}
	if _, err := readJob(&job); err == nil || !strings.Contains(err.Error(), "time_based without a runtime") {
		t.Errorf("time_based, no runtime: error %v; want a refusal", err)
	}
	job.Options = []fio.Option{{Key: "steadystate", Value: "iops:2%"}, {Key: "ss_dur", Value: "30s"}}
	if _, err := readJob(&job); err != nil {
		t.Errorf("time_based, no runtime, steady state in 30 s: %v", err)
	}
	job.Options, job.RuntimeSec = nil, 60
	if _, err := readJob(&job); err != nil {
		t.Errorf("time_based, runtime 60 s: %v", err)
	}
}

// latency_target: fio settles at the highest queue depth whose latency
// (at latency_percentile) stays within the target.
func TestLatencyTarget(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 64}
	in := uniformInput(p, Policy{RAID: "raid1"}, &job)
	free := solve(t, p, in)
	target := free.Read.P99Us / 4
	job.Options = []fio.Option{{Key: "latency_target", Value: strconv.FormatFloat(target, 'f', 1, 64) + "us"}, {Key: "latency_percentile", Value: "99"}}
	held := solve(t, p, in)
	if held.Read.P99Us > target*1.0001 || held.Outstanding >= free.Outstanding || !strings.Contains(notes(held), "fio settles at iodepth") {
		t.Errorf("latency_target %.0f us at p99: p99 %.0f us at %d outstanding (free: %d), notes %q", target, held.Read.P99Us, held.Outstanding, free.Outstanding, held.Notes)
	}
	// One step deeper would miss the target.
	depth := held.Outstanding / len(in.Jobs[0].Disks)
	job.Options = nil
	job.IODepth = depth + 1
	if deeper := solve(t, p, in); deeper.Read.P99Us <= target {
		t.Errorf("iodepth %d still meets %.0f us (p99 %.0f): fio would have settled deeper", depth+1, target, deeper.Read.P99Us)
	}
}

// Options the model does not model are named, not dropped silently.
func TestUnmodelledOptionsAreNamed(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", IODepth: 4, Options: []fio.Option{
		{Key: "verify", Value: "crc32c"}, {Key: "random_distribution", Value: "zipf:1.2"}, {Key: "fsync", Value: "32"}, {Key: "group_reporting"}}}
	n := notes(solve(t, p, oneDisk(&job)))
	for _, want := range []string{"verify=crc32c is not modelled in a run stepped through events: after its I/O", "random_distribution=zipf:1.2: fio turns its random map off", "fsync=32: the virtual disk reports no write cache"} {
		if !strings.Contains(n, want) {
			t.Errorf("notes %q lack %q", n, want)
		}
	}
	quiet := job
	quiet.Options = []fio.Option{{Key: "fill_device", Value: "1"}, {Key: "fill_fs", Value: "1"}}
	if n := notes(solve(t, p, oneDisk(&quiet))); strings.Contains(n, "fill_") {
		t.Errorf("fill_device, which changes nothing on a block device, is named: %q", n)
	}
	if strings.Contains(n, "group_reporting") {
		t.Errorf("a reporting option is named as unmodelled: %q", n)
	}
}

// thinktime_iotime stalls a job thinktime after every thinktime_iotime of
// I/O, its queue at its depth (fio 3.33 keeps iodepth=4 with thinktime=1ms
// and thinktime_iotime=3ms, and caps it at 1 without thinktime_iotime):
// 3 ms of I/O in every 4 ms keeps 75 % of the throughput at the same
// latency, and the notes say so; a job without it has no such note.
func TestThinkTimeIOTimeIsADutyCycle(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	base := fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 4}
	free := solve(t, p, oneDisk(&base))
	duty := base
	duty.Options = []fio.Option{{Key: "thinktime", Value: "1ms"}, {Key: "thinktime_iotime", Value: "3ms"}}
	out := solve(t, p, oneDisk(&duty))
	if r := total(out) / total(free); !(math.Abs(r-0.75) <= 1e-9) || out.Read.LatMeanUs != free.Read.LatMeanUs {
		t.Errorf("thinktime=1ms, thinktime_iotime=3ms: %.4f of the throughput at %.1f us (free %.1f us); want 0.75 at the same latency", r, out.Read.LatMeanUs, free.Read.LatMeanUs)
	}
	if !strings.Contains(notes(out), "thinktime_iotime: I/O 75 % of the time") || strings.Contains(notes(free), "thinktime_iotime") {
		t.Errorf("notes with a duty cycle %q, without %q", out.Notes, free.Notes)
	}
	// fio's own example: thinktime_iotime=9s and thinktime=1s, a 10-second
	// cycle; a bare thinktime_iotime is seconds.
	duty.Options = []fio.Option{{Key: "thinktime", Value: "1s"}, {Key: "thinktime_iotime", Value: "9"}}
	if r := total(solve(t, p, oneDisk(&duty))) / total(free); !(math.Abs(r-0.9) <= 1e-9) {
		t.Errorf("thinktime=1s, thinktime_iotime=9: %.4f of the throughput, want 0.9", r)
	}
}

// The hosts' figures of a run with thinktime_iotime are the whole run's,
// as fio's rates are: 3 ms of I/O in every 4 ms gives each host 75 % of the
// CPU, vSAN CPU, component writes, device and uplink load of the same job
// without stalls, while the stations (what binds while I/O runs) are the
// same. Two concurrent jobs on the same disks, one of them stalling, give
// the hosts (1 + 0.75) / 2 of two that do not.
func TestThinkTimeIOTimeIdlesTheHostsOverTheRun(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	pol := Policy{RAID: "raid1", FTT: 1}
	base := fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 8}
	duty := base
	duty.Options = []fio.Option{{Key: "thinktime", Value: "1ms"}, {Key: "thinktime_iotime", Value: "3ms"}}
	hostsAt := func(name string, out, free *Output, r float64) {
		t.Helper()
		near := func(what string, got, f float64) {
			t.Helper()
			if f == 0 || math.Abs(got/f-r) > 1e-9 {
				t.Errorf("%s: %s %g, without stalls %g; want %g of it", name, what, got, f, r)
			}
		}
		for i := range out.Hosts {
			h, f := out.Hosts[i], free.Hosts[i]
			near("host CPU", out.HostCPUPercent[i], free.HostCPUPercent[i])
			near("vSAN CPU", h.VSANCPUPercent, f.VSANCPUPercent)
			near("component writes", h.CompWriteIOPS, f.CompWriteIOPS)
			near("uplink", h.NICPercent, f.NICPercent)
			if r == 0.75 { // with two jobs the busiest device is the one's that does not stall
				near("busiest device", h.DeviceUtil, f.DeviceUtil)
			}
		}
		for k, s := range out.Stations {
			if s.Util != free.Stations[k].Util {
				t.Errorf("%s: station %s at %g, without stalls %g; want the same", name, s.Name, s.Util, free.Stations[k].Util)
			}
		}
	}
	hostsAt("one job", solve(t, p, UniformInput(p, 4, 2, pol, &duty)), solve(t, p, UniformInput(p, 4, 2, pol, &base)), 0.75)
	two := func(second *fio.Job) *Output {
		in := UniformInput(p, 4, 2, pol, &base)
		in.Jobs = append(in.Jobs, JobLoad{Job: second, Disks: in.Jobs[0].Disks})
		return solve(t, p, in)
	}
	hostsAt("two jobs", two(&duty), two(&base), 0.875)
}

// A rate limit caps each fio job of a disk (numjobs of them), and holds
// with think time: one I/O at a time with 1 ms of think time between them
// does about 900 a second; at rate_iops=500 it does 500 at the latency of
// one I/O alone.
func TestRateLimitWithNumJobsAndThinkTime(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	two := fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 4, NumJobs: 2, RateIOPS: 100}
	if got := total(solve(t, p, oneDisk(&two))); !(math.Abs(got-200) <= 1e-9) {
		t.Errorf("rate_iops=100, numjobs=2 on one disk: %g IOPS, want 200", got)
	}
	base := fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 1}
	free := solve(t, p, oneDisk(&base))
	think := base
	think.Options = []fio.Option{{Key: "thinktime", Value: "1ms"}}
	if x := total(solve(t, p, oneDisk(&think))); x <= 500 {
		t.Fatalf("thinktime=1ms alone does %g IOPS: the rate would not bind", x)
	}
	think.RateIOPS = 500
	out := solve(t, p, oneDisk(&think))
	if !(math.Abs(total(out)-500) <= 1e-9) || !(math.Abs(out.Read.LatMeanUs/free.Read.LatMeanUs-1) <= 1e-9) {
		t.Errorf("thinktime=1ms, rate_iops=500: %g IOPS at %.2f us; want 500 at the unloaded %.2f us", total(out), out.Read.LatMeanUs, free.Read.LatMeanUs)
	}
}

// I/Os beyond the virtual controller's queue wait in the guest: the job
// runs the network the controller admits, and every I/O, whatever its
// percentile, waits the same (fio's outstanding I/Os minus the admitted,
// over the throughput) on top.
func TestGuestWaitAddsToEveryPercentile(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	lun, _ := controllerQueues(&p.Model, p.Workers.Controller)
	job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: lun}
	admitted := solve(t, p, oneDisk(&job))
	job.IODepth = 4 * lun
	deep := solve(t, p, oneDisk(&job))
	if !strings.Contains(notes(deep), "the rest wait in the guest") || total(deep) != total(admitted) {
		t.Fatalf("iodepth %d over a queue of %d: %g IOPS (admitted %g), notes %q", 4*lun, lun, total(deep), total(admitted), deep.Notes)
	}
	wait := float64(3*lun) / total(deep) * 1e6
	a, d := admitted.Read, deep.Read
	for name, diff := range map[string]float64{"mean": d.LatMeanUs - a.LatMeanUs, "p50": d.P50Us - a.P50Us, "p95": d.P95Us - a.P95Us, "p99": d.P99Us - a.P99Us, "p99.9": d.P999Us - a.P999Us} {
		if !(math.Abs(diff/wait-1) <= 1e-6) {
			t.Errorf("%s latency %g us above the admitted queue's, want the guest wait %g us", name, diff, wait)
		}
	}
}

// size (bytes or a share of the disk), offset, io_size, loops and
// number_ios set what a job covers and moves (extent): modelled, so not
// named as ignored; bad values and an offset past the disk's end are
// refused.
func TestExtentOptions(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", BlockSize: 4096, IODepth: 16, Options: []fio.Option{
		{Key: "size", Value: "10%"}, {Key: "offset", Value: "1g"}, {Key: "io_size", Value: "512m"}, {Key: "loops", Value: "2"}, {Key: "number_ios", Value: "100k"}}}
	out := solve(t, p, oneDisk(&job))
	for _, key := range []string{"size", "offset", "io_size", "loops", "number_ios"} {
		if strings.Contains(notes(out), "option "+key+"=") {
			t.Errorf("%s is modelled, yet the notes say %q", key, out.Notes)
		}
	}
	for _, c := range []struct{ key, value, want string }{
		{"size", "120%", "size=120%: want a percentage above 0 and at most 100"},
		{"offset", "ten", "offset=ten: want a size, like 4g, or a percentage of the disk"},
		{"loops", "0", "loops=0: want a whole number of passes, at least 1"},
		{"number_ios", "-3", "number_ios=-3: want a whole number of I/Os"},
		{"offset", "2t", "offset=2t is at or past the end of a"},
		{"offset", "99%", "passes the end of a"}, // with size=10% below
		{"size", "999g", ""},                     // without an offset fio takes the disk
		{"size", "0%", "size=0%: want a percentage above 0"},
		{"size", "100%", ""},
		{"offset", "0", ""},
		{"loops", "1", ""},
		{"number_ios", "0", ""},
	} {
		bad := fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, Options: []fio.Option{{Key: c.key, Value: c.value}}}
		if c.value == "99%" {
			bad.Options = append(bad.Options, fio.Option{Key: "size", Value: "10%"})
		}
		_, err := Solve(context.Background(), p, oneDisk(&bad))
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s=%s: %v, want %q", c.key, c.value, err, c.want)
		}
	}
}

// offset_increment starts each clone of a job that much after the last
// (fio 3.33, measured on a 10 MiB loop device): numjobs=4 size=1m
// offset_increment=25% wrote 1 MiB at 0, 2.5, 5 and 7.5 MiB; numjobs=3
// size=2m offset=1m offset_increment=4m wrote 2, 2 and 1 MiB (the last
// clone stops at the end); with offset_increment=6m the third clone, at
// 12 MiB, moved nothing, and a random clone whose size passes the end
// repeats its first I/O. The model reaches and moves what fio did, and
// refuses the two clones fio would not run as written.
func TestOffsetIncrement(t *testing.T) {
	const mib, disk = 1 << 20, 10 << 20
	for _, c := range []struct {
		opts          []fio.Option
		clones        int
		union, depth  float64
		moved         float64
		randomRefused string
		refused       string
	}{
		{[]fio.Option{{Key: "size", Value: "1m"}, {Key: "offset_increment", Value: "25%"}}, 4, 4 * mib, 1, 4 * mib, "", ""},
		{[]fio.Option{{Key: "size", Value: "1m"}}, 4, mib, 4, 4 * mib, "", ""},
		{[]fio.Option{{Key: "size", Value: "1m"}, {Key: "offset_increment", Value: "512k"}}, 3, 2 * mib, 1.5, 3 * mib, "", ""},
		{[]fio.Option{{Key: "size", Value: "2m"}, {Key: "offset", Value: "1m"}, {Key: "offset_increment", Value: "4m"}}, 3, 5 * mib, 1, 5 * mib,
			"clone 3 of numjobs=3 (offset + 2 x offset_increment=4m, 9437184 bytes) + size 2097152 bytes passes the end", ""},
		{[]fio.Option{{Key: "size", Value: "2m"}, {Key: "offset_increment", Value: "6m"}}, 3, 0, 0, 0, "",
			"clone 3 of numjobs=3 (offset + 2 x offset_increment=6m, 12582912 bytes) is at or past the end of a 10485760-byte disk"},
	} {
		job := fio.Job{RW: "write", NumJobs: c.clones, Options: c.opts}
		sh, err := readJob(&job)
		if err != nil {
			t.Fatal(err)
		}
		e := sh.extent
		err = e.check(disk, c.clones, false, &job)
		if c.refused != "" {
			if err == nil || !strings.Contains(err.Error(), c.refused) {
				t.Errorf("%v x%d: %v, want %q", c.opts, c.clones, err, c.refused)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v x%d: refused: %v", c.opts, c.clones, err)
		}
		if err := e.check(disk, c.clones, true, &job); (err == nil) != (c.randomRefused == "") || err != nil && !strings.Contains(err.Error(), c.randomRefused) {
			t.Errorf("%v x%d, random: %v, want %q", c.opts, c.clones, err, c.randomRefused)
		}
		union, depth := e.footprint(disk, c.clones)
		if union != c.union || depth != c.depth {
			t.Errorf("%v x%d: the clones reach %.0f bytes %.2f deep, want %.0f and %.2f", c.opts, c.clones, union, depth, c.union, c.depth)
		}
		if got := e.moved(disk, 4096, c.clones); got != c.moved {
			t.Errorf("%v x%d: the clones move %.0f bytes, want %.0f", c.opts, c.clones, got, c.moved)
		}
	}
	p := mustLoad(t, "storagereview-r6625-esa")
	job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, NumJobs: 4, Options: []fio.Option{{Key: "size", Value: "10%"}, {Key: "offset_increment", Value: "25%"}}}
	if out := solve(t, p, oneDisk(&job)); strings.Contains(notes(out), "offset_increment") {
		t.Errorf("offset_increment is modelled, yet the notes say %q", out.Notes)
	}
}

// filesize ends the job's file on the disk (fio 3.33 on a 10 MiB loop
// device, 64 KiB writes): filesize=2m moves 2 MiB with size=4m or without,
// 1 MiB from offset=1m, and random writes there keep to the file
// (offset=1m size=2m: 16 I/Os, no stop at the end); filesize=20m moves the
// device's 10 MiB; with filesize=3m offset_increment=2m the second clone
// moves 1 MiB and a third, at 4 MiB, is refused by fio ("you need to
// specify valid offset="). A size's share is of the file (filesize=4m
// size=50%: 2 MiB), an offset's of the device (offset=50% with filesize=4m
// is at 5 MiB, past the file: no I/O; offset_increment=25% puts a second
// clone at 2.5 MiB, inside it). A range draws each clone's size in it
// (1m-3m: 1.25 to 2.94 MiB over four clones): the mean is modelled, noted.
func TestFileSize(t *testing.T) {
	const mib, disk = 1 << 20, 10 << 20
	for _, c := range []struct {
		opts   []fio.Option
		clones int
		random bool
		moved  float64
		want   string // refusal or note
	}{
		{[]fio.Option{{Key: "filesize", Value: "2m"}, {Key: "size", Value: "4m"}}, 1, false, 2 * mib, ""},
		{[]fio.Option{{Key: "filesize", Value: "4m"}, {Key: "size", Value: "2m"}}, 1, false, 2 * mib, ""},
		{[]fio.Option{{Key: "filesize", Value: "2m"}, {Key: "offset", Value: "1m"}}, 1, false, mib, ""},
		{[]fio.Option{{Key: "filesize", Value: "2m"}, {Key: "offset", Value: "1m"}, {Key: "size", Value: "2m"}}, 1, true, mib, ""},
		{[]fio.Option{{Key: "filesize", Value: "20m"}}, 1, false, disk, ""},
		{[]fio.Option{{Key: "filesize", Value: "4m"}, {Key: "size", Value: "50%"}}, 1, false, 2 * mib, ""},
		{[]fio.Option{{Key: "filesize", Value: "4m"}, {Key: "size", Value: "1m"}, {Key: "offset_increment", Value: "25%"}}, 2, false, 2 * mib, ""},
		{[]fio.Option{{Key: "filesize", Value: "4m"}, {Key: "offset", Value: "50%"}}, 1, false, 0, "offset=50% is at or past the end of its file (filesize=4m)"},
		{[]fio.Option{{Key: "filesize", Value: "3m"}, {Key: "offset_increment", Value: "2m"}}, 2, false, 4 * mib, ""},
		{[]fio.Option{{Key: "filesize", Value: "3m"}, {Key: "offset_increment", Value: "2m"}}, 3, false, 0, "is at or past the end of its file (filesize=3m)"},
		{[]fio.Option{{Key: "filesize", Value: "1m-3m"}}, 4, false, 8 * mib, "filesize=1m-3m: fio draws each clone's file size in the range; the model takes the mean, 2m"},
		{[]fio.Option{{Key: "filesize", Value: "3m-1m"}}, 1, false, 0, "filesize=3m-1m: want a size, like 4g, or a range of sizes"},
	} {
		job := fio.Job{RW: "write", Direct: true, IOEngine: "libaio", NumJobs: c.clones, Options: c.opts}
		var got string
		sh, err := readJob(&job)
		if err == nil {
			got = strings.Join(sh.notes, "\n")
			err = sh.extent.check(disk, c.clones, c.random, &job)
		}
		if err != nil {
			got = err.Error()
		}
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%v x%d: %q, want %q", c.opts, c.clones, got, c.want)
			continue
		}
		if err == nil {
			if moved := sh.extent.moved(disk, 65536, c.clones); moved != c.moved {
				t.Errorf("%v x%d: the clones move %.0f bytes, want %.0f", c.opts, c.clones, moved, c.moved)
			}
		}
	}
}

// buffer_pattern fills fio's buffers with a repeated pattern, which
// compresses as zeros do (unless buffer_compress_percentage says how much
// of each buffer is compressible); a pattern read from a file is unknown,
// noted. time_based=0 is the job as read, nothing to note.
func TestBufferPatternAndTimeBasedOff(t *testing.T) {
	for _, c := range []struct {
		job  fio.Job
		want int
		note string
	}{
		{fio.Job{Options: []fio.Option{{Key: "buffer_pattern", Value: "0xdeadbeef"}}}, 100, ""},
		{fio.Job{BufferCompressPercentage: 30, Options: []fio.Option{{Key: "buffer_pattern", Value: "0x01"}}}, 30, ""},
		{fio.Job{Options: []fio.Option{{Key: "buffer_pattern", Value: "'pattern.bin'"}}}, 0, "buffer_pattern='pattern.bin': the file's data is not known"},
		{fio.Job{Options: []fio.Option{{Key: "time_based", Value: "0"}}}, 0, ""},
	} {
		c.job.RW, c.job.IOEngine, c.job.Direct = "write", "libaio", true
		sh, err := readJob(&c.job)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(sh.notes, "\n")
		if sh.compressPct != c.want || (c.note == "") != (got == "") || !strings.Contains(got, c.note) {
			t.Errorf("%v: compressible %d %%, notes %q; want %d %% and %q", c.job.Options, sh.compressPct, got, c.want, c.note)
		}
	}
}

// verify on a writing job reads back what it wrote, which the model runs
// in a run without events (verifyPasses): the note says what fio does instead of a bare
// "ignored"; on a job that only reads, with do_verify=0, or on a
// time-based job, the model runs what fio runs.
func TestVerifySaysWhatFioDoes(t *testing.T) {
	for _, c := range []struct {
		rw   string
		opts []fio.Option
		want string
	}{
		{"randwrite", []fio.Option{{Key: "verify", Value: "crc32c"}}, "verify=crc32c is not modelled in a run stepped through events: after its I/O fio reads back"},
		{"randrw", []fio.Option{{Key: "verify", Value: "crc32c"}}, "verify=crc32c is not modelled in a run stepped through events"},
		{"randread", []fio.Option{{Key: "verify", Value: "crc32c"}}, "verify=crc32c on a job that only reads"},
		{"write", []fio.Option{{Key: "verify", Value: "md5"}, {Key: "do_verify", Value: "0"}}, "with do_verify=0: fio writes the verification headers"},
		{"write", []fio.Option{{Key: "verify", Value: "0"}}, ""},
	} {
		job := fio.Job{IOEngine: "libaio", Direct: true, RW: c.rw, Options: c.opts}
		sh, err := readJob(&job)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(sh.notes, "\n")
		if c.want == "" && strings.Contains(got, "verify") || !strings.Contains(got, c.want) || strings.Contains(got, "option do_verify") {
			t.Errorf("%s %v: notes %q, want %q", c.rw, c.opts, got, c.want)
		}
	}
}

// A mixed job whose write rate binds: the settle solves the cell at each
// read share it tries (about 16), against BenchmarkSolveCellN2048 (the
// same layout and job at the same population, no rate).
func BenchmarkSolveCellAtMixedRatesN2048(b *testing.B) {
	p := mustLoad(b, "storagereview-r6625-esa")
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 8192, IODepth: 2048 / (p.Hosts * p.Workers.PerHost * 8),
		Options: []fio.Option{{Key: "rate_iops", Value: ",500"}}}
	in := UniformInput(p, p.Hosts*p.Workers.PerHost, 8, Policy{RAID: "raid5"}, job)
	for i := range in.VMs {
		in.VMs[i].Controller = testbed.VNVMe
	}
	out, err := Solve(context.Background(), p, in)
	if err != nil || !strings.Contains(notes(out), "the rates move") {
		b.Fatalf("the rate does not bind: %v %q", err, out.Notes)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Solve(context.Background(), p, in); err != nil {
			b.Fatal(err)
		}
	}
}

// HCIBench's own fio files carry fio's defaults (fsync=0,
// percentage_random=100 on a random job) and continue_on_error=all, which
// change nothing a simulated run does: nothing to note. percentage_random
// and random_distribution apply to random workloads only; on a sequential
// job fio ignores them.
func TestDefaultsAndErrorHandlingAreQuiet(t *testing.T) {
	for _, c := range []struct {
		rw     string
		opts   []fio.Option
		random float64
		note   string
	}{
		{"randrw", []fio.Option{{Key: "fsync", Value: "0"}, {Key: "sync", Value: "none"}, {Key: "percentage_random", Value: "100"}, {Key: "continue_on_error", Value: "all"}, {Key: "ignore_error", Value: ",EIO"}}, 1, ""},
		{"randrw", []fio.Option{{Key: "percentage_random", Value: "60"}}, 0.6, "percentage_random=60: vSAN's costs"},
		{"write", []fio.Option{{Key: "percentage_random", Value: "60"}}, 0, "percentage_random=60 on a sequential job: fio applies it to random workloads only"},
		{"read", []fio.Option{{Key: "random_distribution", Value: "zoned:80/20:20/80"}}, 0, "random_distribution=zoned:80/20:20/80 on a sequential job: fio draws it for random offsets only"},
		{"randwrite", []fio.Option{{Key: "fsync", Value: "32"}}, 1, "fsync=32: the virtual disk reports no write cache"},
	} {
		job := fio.Job{IOEngine: "libaio", Direct: true, RW: c.rw, Options: c.opts}
		sh, err := readJob(&job)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(sh.notes, "\n")
		if sh.randomShare != c.random || (c.note == "") != (got == "") || !strings.Contains(got, c.note) || c.random == 0 && !sh.skew.uniform() {
			t.Errorf("%s %v: random share %g, notes %q; want %g and %q", c.rw, c.opts, sh.randomShare, got, c.random, c.note)
		}
	}
}

// A sequential job whose region passes the disk's end moves to the end and
// stops (fio 3.33 on a 10 MiB device, offset=8m size=4m: 2 MiB read).
func TestSequentialRegionStopsAtTheEnd(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := fio.Job{IOEngine: "libaio", Direct: true, RW: "read", BlockSize: 4096, Options: []fio.Option{{Key: "offset", Value: "99%"}, {Key: "size", Value: "10%"}}}
	if _, err := Solve(context.Background(), p, oneDisk(&job)); err != nil {
		t.Errorf("a sequential job past the end: %v, want it run to the end", err)
	}
}

// bssplit given raw (a job file's per-direction split, a blank percentage
// for the rest) is modelled, not passed over: fio's HOWTO,
// bssplit=2k/50:4k/50,4k/90:8k/10 is reads of 2k and 4k, writes of 4k and
// 8k; a raw bs after a typed one wins, as in the job text.
func TestRawBlockSizes(t *testing.T) {
	for _, c := range []struct {
		job  fio.Job
		want [2][]sizeShare
	}{
		{fio.Job{Options: []fio.Option{{Key: "bssplit", Value: "2k/50:4k/50,4k/90:8k/10"}}}, [2][]sizeShare{{{2048, 0.5}, {4096, 0.5}}, {{4096, 0.9}, {8192, 0.1}}}},
		{fio.Job{Options: []fio.Option{{Key: "bssplit", Value: "4k/10:64k/50:32k/"}}}, [2][]sizeShare{{{4096, 0.1}, {65536, 0.5}, {32768, 0.4}}, {{4096, 0.1}, {65536, 0.5}, {32768, 0.4}}}},
		{fio.Job{Options: []fio.Option{{Key: "bssplit", Value: "4k/50:8k/50,64k"}}}, [2][]sizeShare{{{4096, 0.5}, {8192, 0.5}}, {{65536, 1}}}},
		{fio.Job{BlockSize: 8192, Options: []fio.Option{{Key: "bssplit", Value: ",64k/100"}}}, [2][]sizeShare{{{8192, 1}}, {{65536, 1}}}},
		{fio.Job{BlockSize: 4096, Options: []fio.Option{{Key: "bs", Value: "4k,64k"}}}, [2][]sizeShare{{{4096, 1}}, {{65536, 1}}}},
	} {
		c.job.RW, c.job.IOEngine, c.job.Direct = "randrw", "libaio", true
		sh, err := readJob(&c.job)
		if err != nil {
			t.Fatalf("%v: %v", c.job.Options, err)
		}
		for dir := range c.want {
			if !slices.EqualFunc(sh.sizes[dir], c.want[dir], func(a, b sizeShare) bool { return a.size == b.size && math.Abs(a.share-b.share) < 1e-12 }) {
				t.Errorf("%v: direction %d %v, want %v", c.job.Options, dir, sh.sizes[dir], c.want[dir])
			}
		}
	}
	for value, want := range map[string]string{"4k/60:8k/60": "add up to 120", "4k/50:8k/40": "add up to 90", "100/100": "at least 512 bytes"} {
		job := fio.Job{RW: "randrw", Options: []fio.Option{{Key: "bssplit", Value: value}}}
		if _, err := readJob(&job); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("bssplit=%s: %v, want %q", value, err, want)
		}
	}
}

// fio's rates hold on average across thinktime_iotime's stalls: it catches
// up after each (fio 3.33: rate_iops=200 with thinktime=1s and
// thinktime_iotime=1s did 1,200 I/Os in 6 s; randrw 70/30 at 200 with
// 500 ms stalls every 500 ms, 200 reads and 200 writes a second over 2 s).
// Not checked against a live fio: the catch-up is timing, flaky at the
// rates a loaded test machine holds.
func TestRateHoldsAcrossStalls(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	for _, rw := range []string{"randread", "randrw"} {
		job := fio.Job{IOEngine: "libaio", Direct: true, RW: rw, RWMixRead: 70, BlockSize: 4096, IODepth: 16, RateIOPS: 200,
			Options: []fio.Option{{Key: "thinktime", Value: "1s"}, {Key: "thinktime_iotime", Value: "1s"}}}
		out := solve(t, p, oneDisk(&job))
		if math.Abs(out.Read.IOPS-200) > 1e-6 || rw == "randrw" && math.Abs(out.Write.IOPS-200) > 1e-6 {
			t.Errorf("%s at rate_iops=200, I/O half the time: %.1f reads and %.1f writes a second, want 200 each", rw, out.Read.IOPS, out.Write.IOPS)
		}
	}
}

// fio's flushes end in the guest: the virtual disk reports no write cache,
// so fsync, fdatasync and sync_file_range are a system call every so many
// writes, O_SYNC an fsync after each write of a synchronous engine and a
// dropped FUA with an asynchronous one; the sg engine sends the disk a
// command instead. Bad values are refused as fio would.
func TestFlushesEndInTheGuest(t *testing.T) {
	for _, c := range []struct {
		engine   string
		opt      fio.Option
		syncs    float64
		commands bool
		note     string
	}{
		{"libaio", fio.Option{Key: "fsync", Value: "32"}, 1.0 / 32, false, "fsync=32: the virtual disk reports no write cache"},
		{"libaio", fio.Option{Key: "fdatasync", Value: "8"}, 1.0 / 8, false, "fdatasync=8: the virtual disk"},
		{"libaio", fio.Option{Key: "sync_file_range", Value: "wait_before,write:8"}, 1.0 / 8, false, "sync_file_range=wait_before,write:8: the virtual disk"},
		{"libaio", fio.Option{Key: "sync_file_range", Value: "write"}, 1, false, "sync_file_range=write: the virtual disk"},
		{"psync", fio.Option{Key: "sync", Value: "1"}, 1, false, "sync=1: the virtual disk"},
		{"", fio.Option{Key: "sync", Value: "dsync"}, 1, false, "sync=dsync: the virtual disk"},
		{"libaio", fio.Option{Key: "sync", Value: "1"}, 0, false, "sync=1: with ioengine=libaio each write carries FUA"},
		{"mmap", fio.Option{Key: "sync", Value: "sync"}, 0, false, "sync=sync has no effect with ioengine=mmap"},
		{"sg", fio.Option{Key: "fsync", Value: "4"}, 0.25, true, "fsync=4: the sg engine sends the virtual disk SYNCHRONIZE CACHE"},
		{"libaio", fio.Option{Key: "write_barrier", Value: "4"}, 0, false, "write_barrier=4 has no effect"},
		{"libaio", fio.Option{Key: "end_fsync", Value: "1"}, 0, false, ""},
		{"libaio", fio.Option{Key: "fsync", Value: "0"}, 0, false, ""},
	} {
		job := fio.Job{IOEngine: c.engine, Direct: true, RW: "randwrite", Options: []fio.Option{c.opt}}
		sh, err := readJob(&job)
		if err != nil {
			t.Fatalf("%s %s: %v", c.engine, optionText(c.opt), err)
		}
		got := strings.Join(sh.notes, "\n")
		if math.Abs(sh.syncs-c.syncs) > 1e-12 || sh.syncCommands != c.commands || (c.note == "") != (got == "") || !strings.Contains(got, c.note) {
			t.Errorf("%s %s: %g flushes per write (commands %v), notes %q; want %g (%v) and %q", c.engine, optionText(c.opt), sh.syncs, sh.syncCommands, got, c.syncs, c.commands, c.note)
		}
	}
	for _, o := range []fio.Option{{Key: "fsync", Value: "often"}, {Key: "fdatasync", Value: "-1"}, {Key: "sync", Value: "always"}} {
		job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", Options: []fio.Option{o}}
		if _, err := readJob(&job); err == nil || !strings.Contains(err.Error(), optionText(o)+": want") {
			t.Errorf("%s: %v, want it refused saying what would be right", optionText(o), err)
		}
	}

	// One 4K writer at a time: fsync after every write adds its system
	// call to each write's time in the guest, not a trip through vSAN.
	p := mustLoad(t, "storagereview-r6625-esa")
	job := fio.Job{IOEngine: "psync", Direct: true, RW: "randwrite", BlockSize: 4096}
	base := solve(t, p, oneDisk(&job))
	job.Options = []fio.Option{{Key: "fsync", Value: "1"}}
	synced := solve(t, p, oneDisk(&job))
	want := p.Model.FsyncCycles.Value / newPlatform(p).hz * 1e6
	if got := synced.Write.LatMeanUs - base.Write.LatMeanUs; math.Abs(got-want) > 0.2*want {
		t.Errorf("fsync=1 adds %.2f us to a write (%.1f against %.1f), want about %.2f: the system call's time", got, synced.Write.LatMeanUs, base.Write.LatMeanUs, want)
	}
	if !(synced.GuestCPUPercent > base.GuestCPUPercent) {
		t.Errorf("fsync=1: guest CPU %.3f %%, without %.3f %%; want more", synced.GuestCPUPercent, base.GuestCPUPercent)
	}
	// With libaio, O_SYNC changes nothing the model answers.
	job = fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 8}
	base = solve(t, p, oneDisk(&job))
	job.Options = []fio.Option{{Key: "sync", Value: "1"}}
	if fua := solve(t, p, oneDisk(&job)); fua.Write != base.Write {
		t.Errorf("libaio with sync=1: %+v, without %+v; want the same", fua.Write, base.Write)
	}
}

// rw's offset modifier is read, never dropped: a hole after each
// sequential I/O, or how many I/Os go to each random offset (noted); a
// value fio would not take is refused, as is a rw_sequencer fio does not
// know.
func TestOffsetModifiers(t *testing.T) {
	for _, c := range []struct {
		rw   string
		opts []fio.Option
		hole float64
		note string
		err  string
	}{
		{"write:4k", nil, 4096, "rw=write:4k: a 4k hole after each I/O, so the job touches 50 %", ""},
		{"read:12k", nil, 12288, "rw=read:12k: a 12k hole after each I/O, so the job touches 25 %", ""},
		{"read:-4k", nil, 0, "", "rw=read:-4k: sequential I/O backwards"},
		{"write:0", nil, 0, "", ""},
		{"randread:8", nil, 0, "rw=randread:8: a new random offset every 8 I/Os and the next 7 follow it in order", ""},
		{"randwrite:4", []fio.Option{{Key: "rw_sequencer", Value: "identical"}}, 0, "every 4 I/Os and it is used 3 times more", ""},
		{"randread:1", []fio.Option{{Key: "rw_sequencer", Value: "identical"}}, 0, "", ""},
		{"read:some", nil, 0, "", "rw=read:some: want a hole in bytes"},
		{"randread:0", nil, 0, "", "rw=randread:0: want how many I/Os"},
		{"randread:2", []fio.Option{{Key: "rw_sequencer", Value: "backwards"}}, 0, "", "rw_sequencer=backwards: want sequential or identical"},
	} {
		job := fio.Job{IOEngine: "libaio", Direct: true, RW: c.rw, BlockSize: 4096, Options: c.opts}
		sh, err := readJob(&job)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("rw=%s %v: %v, want %q", c.rw, c.opts, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("rw=%s: %v", c.rw, err)
		}
		got := strings.Join(sh.notes, "\n")
		if sh.extent.hole != c.hole || (c.note == "") != (got == "") || !strings.Contains(got, c.note) {
			t.Errorf("rw=%s %v: hole %g, notes %q; want %g and %q", c.rw, c.opts, sh.extent.hole, got, c.hole, c.note)
		}
	}
}

// fio's other names of an option read as the option: fileoffset was 'not
// modelled: ignored' while it moved the job's region, and
// wait_for_previous was named ignored while it ordered the phases. Notes
// name an option as the job gives it.
func TestAliasesReadAsTheirOption(t *testing.T) {
	for _, c := range []struct {
		alias, name fio.Option
		same        func(a, b jobShape) bool
	}{
		{fio.Option{Key: "fileoffset", Value: "50%"}, fio.Option{Key: "offset", Value: "50%"}, func(a, b jobShape) bool { return a.extent == b.extent && a.extent.offset.share == 0.5 }},
		{fio.Option{Key: "io_limit", Value: "1g"}, fio.Option{Key: "io_size", Value: "1g"}, func(a, b jobShape) bool { return a.extent == b.extent && a.extent.ioSize.bytes == 1<<30 }},
		{fio.Option{Key: "ratemin", Value: "1m"}, fio.Option{Key: "rate_min", Value: "1m"}, func(a, b jobShape) bool { return a.minRateB == b.minRateB && a.minRateB[write] == 1<<20 }},
		{fio.Option{Key: "ratecycle", Value: "500"}, fio.Option{Key: "rate_cycle", Value: "500"}, func(a, b jobShape) bool { return a.rateCycle == b.rateCycle && a.rateCycle == 0.5 }},
		{fio.Option{Key: "wait_for_previous"}, fio.Option{Key: "stonewall"}, func(a, b jobShape) bool { return len(a.notes) == 0 && len(b.notes) == 0 }},
		{fio.Option{Key: "fill_fs", Value: "1"}, fio.Option{Key: "fill_device", Value: "1"}, func(a, b jobShape) bool { return len(a.notes) == 0 }},
		{fio.Option{Key: "iodepth_batch_submit", Value: "4"}, fio.Option{Key: "iodepth_batch", Value: "4"}, func(a, b jobShape) bool { return len(a.notes) == 0 }},
		{fio.Option{Key: "blockalign", Value: "8k"}, fio.Option{Key: "ba", Value: "8k"}, func(a, b jobShape) bool {
			return strings.Contains(strings.Join(a.notes, ""), "blockalign=8k") && strings.Contains(strings.Join(b.notes, ""), "ba=8k")
		}},
	} {
		if a, b := writerShape(t, c.alias), writerShape(t, c.name); !c.same(a, b) {
			t.Errorf("%s read as %+v, %s as %+v", optionText(c.alias), a, optionText(c.name), b)
		}
	}
	steady := []fio.Option{{Key: "ss", Value: "iops:5%"}, {Key: "ss_dur", Value: "30"}}
	if n := strings.Join(writerShape(t, steady...).notes, "\n"); !strings.Contains(n, "the job stops after ss_ramp + ss_dur = 30 s") {
		t.Errorf("ss=iops:5%% with ss_dur=30: notes %q, want the steady-state window read", n)
	}
	job := fio.Job{Options: []fio.Option{{Key: "ratemin", Value: "1m"}}}
	if got := keyGiven(&job, "rate_min"); got != "ratemin" {
		t.Errorf("keyGiven names rate_min given as ratemin %q", got)
	}
	unaligned := fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", Options: []fio.Option{{Key: "blocksize_unaligned"}, {Key: "bsrange", Value: "4k-64k"}}}
	if _, err := readJob(&unaligned); err == nil || !strings.Contains(err.Error(), "bs_unaligned with direct=1") {
		t.Errorf("blocksize_unaligned with direct=1: %v, want it refused as bs_unaligned", err)
	}
}

// Options that put another workload in the job's place are refused, saying
// what to give instead; file_append, which fio ignores on a device, is
// noted.
func TestReplacedWorkloadsAreRefused(t *testing.T) {
	for _, c := range []struct {
		opt  fio.Option
		want string
	}{
		{fio.Option{Key: "read_iolog", Value: "trace.log"}, "read_iolog=trace.log: fio replays the I/O log's recorded I/Os"},
		{fio.Option{Key: "create_only", Value: "1"}, "create_only=1: fio only lays out the job's files"},
		{fio.Option{Key: "verify_only"}, "verify_only: fio does not run the job but reads back"},
		{fio.Option{Key: "create_only", Value: "0"}, ""},
		{fio.Option{Key: "stats", Value: "0"}, "stats=0: fio collects no statistics for the job and reports it as having done no I/O"},
		{fio.Option{Key: "stats", Value: "1"}, ""},
		{fio.Option{Key: "opendir", Value: "/data"}, "opendir=/data: fio runs the job on every file under the directory"},
		{fio.Option{Key: "profile", Value: "tiobench"}, "profile=tiobench: fio runs one of its built-in profiles"},
		{fio.Option{Key: "mem_align", Value: "1"}, "mem_align=1 with direct=1: fio 3.33 fails the job on a buffer off the 512-byte sector"},
		{fio.Option{Key: "mem_align", Value: "4k"}, ""},
		{fio.Option{Key: "io_submit_mode", Value: "offload"}, "io_submit_mode=offload on a size-based job: fio 3.33 did not finish one here"},
		{fio.Option{Key: "io_submit_mode", Value: "inline"}, ""},
		{fio.Option{Key: "rwmixcycle", Value: "100"}, `option "rwmixcycle" is deprecated: fio-3.33 fails parsing it`},
	} {
		job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", Options: []fio.Option{c.opt}}
		_, err := readJob(&job)
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", optionText(c.opt), err, c.want)
		}
	}
	notesSay(t, fio.Job{IOEngine: "libaio", Direct: true, RW: "write", Options: []fio.Option{{Key: "file_append", Value: "1"}}}, "file_append=1 has no effect on the workers' disks")
	for _, o := range []fio.Option{{Key: "fallocate", Value: "native"}, {Key: "overwrite", Value: "1"}, {Key: "unlink", Value: "1"}, {Key: "unlink_each_loop", Value: "1"}} {
		notesSay(t, fio.Job{IOEngine: "libaio", Direct: true, RW: "write", Options: []fio.Option{o}}, optionText(o)+" has no effect on the workers' disks")
	}
	notesSay(t, fio.Job{IOEngine: "libaio", Direct: true, RW: "write", Options: []fio.Option{{Key: "fallocate", Value: "none"}}}, "")
	notesSay(t, fio.Job{IOEngine: "libaio", Direct: true, RW: "write", Options: []fio.Option{{Key: "fadvise_hint", Value: "0"}}}, "fadvise_hint=0 advises the guest's page cache")
	notesSay(t, fio.Job{IOEngine: "libaio", Direct: true, RW: "write", Options: []fio.Option{{Key: "exec_prerun", Value: "sync"}}}, "exec_prerun=sync: fio runs the command in the worker")
	notesSay(t, fio.Job{IOEngine: "libaio", Direct: true, RW: "write", Options: []fio.Option{{Key: "mem", Value: "shm"}}}, "mem=shm chooses where fio allocates its I/O buffers")
	notesSay(t, fio.Job{IOEngine: "libaio", Direct: true, RW: "write", Options: []fio.Option{{Key: "replay_no_stall", Value: "1"}}}, "replay_no_stall=1 has no effect without read_iolog")
	notesSay(t, fio.Job{IOEngine: "libaio", Direct: true, RW: "write", Options: []fio.Option{{Key: "max_open_zones", Value: "8"}}}, "max_open_zones=8 has no effect without zonemode=zbd")
	notesSay(t, fio.Job{IOEngine: "libaio", Direct: true, RW: "write", Options: []fio.Option{{Key: "verify_fatal", Value: "1"}}}, "verify_fatal=1 changes how fio checks the data verify reads back")
	notesSay(t, fio.Job{IOEngine: "libaio", Direct: true, RW: "write", Options: []fio.Option{{Key: "rate_iops", Value: "100"}, {Key: "rate_ignore_thinktime", Value: "1"}}}, "rate_ignore_thinktime has no effect without thinktime")
	notesSay(t, fio.Job{IOEngine: "libaio", RW: "write", Options: []fio.Option{{Key: "atomic", Value: "1"}}}, "atomic=1: fio opens the disk with O_DIRECT and its O_ATOMIC flag, which Linux ignores") // no buffered note
	notesSay(t, fio.Job{IOEngine: "libaio", Direct: true, RW: "write", Options: []fio.Option{{Key: "lockfile", Value: "none"}}}, "")
	notesSay(t, fio.Job{IOEngine: "libaio", Direct: true, RW: "write", TimeBased: true, RuntimeSec: 10, Options: []fio.Option{{Key: "io_submit_mode", Value: "offload"}}}, "io_submit_mode=offload: fio submits through a pool of threads")
	for key, want := range map[string]string{"clocksource": "how fio reads the clock", "gpu_dev_id": "only for GPU memory", "unique_filename": "a worker's disk is named",
		"serialize_overlap": "in-flight I/Os to overlapping blocks", "trim_percentage": "TRIM is not modelled", "write_hint": "write-lifetime hint", "lockmem": "where fio allocates its I/O buffers",
		"verify_offset":     "changes how fio checks the data verify reads back",
		"file_service_type": "a job on a worker's disk has one", "offset_align": "rounds a percentage offset up", "lockfile": "take turns at the file lock",
		"nice": "priority, cgroup or user inside the worker's guest", "numa_cpu_nodes": "virtual NUMA nodes", "ioscheduler": "switches the guest's I/O scheduler", "gtod_cpu": "keeps a thread reading the clock on vCPU 1"} {
		notesSay(t, fio.Job{IOEngine: "libaio", Direct: true, RW: "write", Options: []fio.Option{{Key: key, Value: "1"}}}, want)
	}
	notesSay(t, fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", Options: []fio.Option{{Key: "rate_iops", Value: "100,"}, {Key: "thinktime", Value: "1ms"}, {Key: "rate_ignore_thinktime", Value: "1"}}}, "rate_ignore_thinktime with a direction that has no rate is not modelled")
	if _, err := readJob(&fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", Options: []fio.Option{{Key: "pre_read", Value: "1"}}}); err == nil || !strings.Contains(err.Error(), "pre_read=1: with direct=1 fio 3.33 fails the job") {
		t.Errorf("pre_read=1: %v, want it refused", err)
	}
	if _, err := readJob(&fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", Options: []fio.Option{{Key: "pre_read", Value: "00"}}}); err != nil {
		t.Errorf("pre_read=00 (off, as fio reads it): %v", err)
	}
}

// Options fio's own examples set that change nothing: threads (fio's
// examples/steadystate.fio and waitfor.fio; an option of the tiobench
// profile, which fio 3.33 parses in any job) and nrfiles=1, fio's default,
// are not called unmodelled; nrfiles above it still is. verifysort, which
// fio 3.33 warns is deprecated and ignores, is said to change nothing;
// options that shape only fio's reports are not named at all.
func TestOptionsThatChangeNothingAreSaidSo(t *testing.T) {
	job := func(o fio.Option) fio.Job {
		return fio.Job{IOEngine: "libaio", Direct: true, RW: "write", Options: []fio.Option{o}}
	}
	notesSay(t, job(fio.Option{Key: "threads", Value: "1"}), "threads=1 has no effect on a job: it is an option of fio's tiobench profile")
	notesSay(t, job(fio.Option{Key: "nrfiles", Value: "1"}), "")
	notesSay(t, job(fio.Option{Key: "nrfiles", Value: "4"}), "fio option nrfiles=4 is not modelled: ignored")
	notesSay(t, job(fio.Option{Key: "verifysort", Value: "1"}), "verifysort=1 has no effect: fio 3.33 warns that it is deprecated and ignores it")
	for _, o := range []string{"bwavgtime", "iopsavgtime", "significant_figures", "disk_util", "log_unix_epoch", "log_entries"} {
		notesSay(t, job(fio.Option{Key: o, Value: "1"}), "")
	}
}

// blockalign is read per direction: on a random job it turns fio's random
// map off where it is not the smallest block size, and above the writes'
// size it narrows the blocks they reach; fio ignores it on a sequential
// job.
func TestBlockAlign(t *testing.T) {
	for _, c := range []struct {
		rw, ba string
		order  rewriteOrder
		reach  float64
		note   string
	}{
		{"randwrite", "8k", drawnAfresh, 0.5, "blockalign=8k: random offsets fall on its boundaries and fio turns its random map off"},
		{"randwrite", "4k", samePasses, 1, ""},
		{"randwrite", "2k", drawnAfresh, 1, "the writes can reach 100 %"},
		{"randrw", "4k,16k", drawnAfresh, 0.25, "blockalign=4k,16k"},
		{"write", "8k", samePasses, 0.5, "blockalign=8k on a sequential job: fio aligns only random offsets"},
	} {
		job := fio.Job{IOEngine: "libaio", Direct: true, RW: c.rw, BlockSize: 4096, Options: []fio.Option{{Key: "blockalign", Value: c.ba}}}
		sh, err := readJob(&job)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(sh.notes, "\n")
		if sh.order != c.order || sh.alignedReach() != c.reach || (c.note == "") != (got == "") || !strings.Contains(got, c.note) {
			t.Errorf("%s blockalign=%s: order %v, reach %g, notes %q; want %v, %g and %q", c.rw, c.ba, sh.order, sh.alignedReach(), got, c.order, c.reach, c.note)
		}
	}
	job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", Options: []fio.Option{{Key: "ba", Value: "1"}}}
	if _, err := readJob(&job); err == nil || !strings.Contains(err.Error(), "ba=1: want a boundary") {
		t.Errorf("ba=1: %v, want it refused", err)
	}
}

// fio's zone options are read as fio 3.33 runs them: strided zones are
// said (and modelled: TestStridedZonesAsFioWritesThem,
// TestRandomStridedZonesAsFioWritesThem), what fio refuses is refused (a zonesize without
// zonemode=strided: measured, "--zonemode=none and --zonesize are not
// compatible"), and so is zbd's emulated zoned device.
func TestZoneModes(t *testing.T) {
	for _, c := range []struct {
		opts []fio.Option
		note string
		err  string
	}{
		{[]fio.Option{{Key: "zonemode", Value: "strided"}, {Key: "zonesize", Value: "1g"}, {Key: "zoneskip", Value: "1g"}}, "zonemode=strided (zonesize=1g zoneskip=1g) on a random job: fio visits the zones in order", ""},
		{[]fio.Option{{Key: "zonesize", Value: "1g"}}, "", "zonesize=1g without zonemode=strided: fio 3.33 refuses it"},
		{[]fio.Option{{Key: "zonemode", Value: "strided"}, {Key: "zonesize", Value: "64m"}, {Key: "zonerange", Value: "128m"}}, "zonesize=64m zonerange=128m", ""},
		{[]fio.Option{{Key: "zonemode", Value: "none"}}, "", ""},
		{[]fio.Option{{Key: "zonemode", Value: "zbd"}}, "", "zonemode=zbd: fio runs the job as on a zoned device"},
		{[]fio.Option{{Key: "zonemode", Value: "none"}, {Key: "zonesize", Value: "1g"}}, "", "zonesize=1g without zonemode=strided"},
		{[]fio.Option{{Key: "zonemode", Value: "strided"}}, "", "zonemode=strided without zonesize"},
		{[]fio.Option{{Key: "zonemode", Value: "striped"}}, "", "zonemode=striped: want none, strided or zbd"},
	} {
		job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", Options: c.opts}
		if c.err == "" {
			notesSay(t, job, c.note)
		} else if _, err := readJob(&job); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%v: %v, want %q", c.opts, err, c.err)
		}
	}
}

// A compress chunk above 4 KiB on writes above 4 KiB makes blocks of zeros
// and random ones, said in a note; at or below 4 KiB, or on 4 KiB writes,
// every block is as compressible as the data.
func TestCompressChunksAreNoted(t *testing.T) {
	for _, c := range []struct {
		bs    int64
		chunk string
		note  string
	}{
		{65536, "64k", "buffer_compress_chunk=64k: fio fills each 65536-byte chunk of a write with its random bytes first and its zeros after, so vSAN's 4 KiB blocks come out random, zeros or between (a 65536-byte write's: 50 % of its blocks 0 % compressible, 50 % of its blocks 100 % compressible)"},
		{65536, "0", "buffer_compress_chunk=0: fio fills each 65536-byte chunk"},
		{65536, "4k", ""},
		{4096, "64k", ""},
	} {
		notesSay(t, fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: c.bs, BufferCompressPercentage: 50, Options: []fio.Option{{Key: "buffer_compress_chunk", Value: c.chunk}}}, c.note)
	}
}

// A write's cost is its blocks' mix: a 64 KiB write of 50 % data in 64 KiB
// chunks costs what half a write of random data and half a write of zeros
// cost, on OSA and on ESA, where the default chunk's 50 % blocks cost
// what they do.
func TestChunkedDataCostsItsBlocks(t *testing.T) {
	for _, tb := range []string{"wwt-r640-osa", "storagereview-r6625-esa"} {
		p := mustLoad(t, tb)
		cost := func(pct int, opts ...fio.Option) opCost {
			t.Helper()
			job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 65536, IODepth: 8, BufferCompressPercentage: pct, Options: opts}
			in := UniformInput(p, p.Hosts, 1, Policy{RAID: "raid1"}, job)
			in.State.Compression = true
			return mustBuild(t, p, in).cost[write]
		}
		chunked, random, zeros := cost(50, fio.Option{Key: "buffer_compress_chunk", Value: "64k"}), cost(0), cost(100)
		spread := cost(50)
		for _, f := range []struct {
			name                  string
			got, random, zeros, s float64
		}{
			{"device bytes", chunked.deviceBytes, random.deviceBytes, zeros.deviceBytes, spread.deviceBytes},
			{"DOM cycles", chunked.domCycles, random.domCycles, zeros.domCycles, spread.domCycles},
			{"LSOM cycles", chunked.storeCycles, random.storeCycles, zeros.storeCycles, spread.storeCycles},
			{"wire bytes", chunked.wireBytes, random.wireBytes, zeros.wireBytes, spread.wireBytes},
		} {
			if want := (f.random + f.zeros) / 2; math.Abs(f.got-want) > 1e-9*want {
				t.Errorf("%s: %s %.6g with 64 KiB chunks, want the blocks' mix %.6g (random %.6g, zeros %.6g; spread over every block %.6g)", tb, f.name, f.got, want, f.random, f.zeros, f.s)
			}
		}
		if chunked.deviceBytes >= spread.deviceBytes && tb == "wwt-r640-osa" {
			t.Errorf("%s: %.0f device bytes with 64 KiB chunks, %.0f with the default: want fewer (OSA keeps the zero blocks compressed, no 50 %% block)", tb, chunked.deviceBytes, spread.deviceBytes)
		}
	}
}

// notesSay checks that reading job takes it without an error and notes
// want, or nothing where want is "".
func notesSay(t *testing.T, job fio.Job, want string) {
	t.Helper()
	sh, err := readJob(&job)
	got := strings.Join(sh.notes, "\n")
	if err != nil || (want == "") != (got == "") || !strings.Contains(got, want) {
		t.Errorf("%s %v: %v, notes %q; want %q", job.RW, job.Options, err, got, want)
	}
}

// fio's ranges take '-' or ':' between their ends (parse.c; fio's
// t/jobs/t0002 runs bsrange=512:1M, and measured bsrange=4k:64k runs), a
// bsrange in either order (FIO_OPT_RANGE swaps them); a log of the I/Os
// and a verify backlog (read with verify) are quiet.
func TestRangesAsFioReadsThem(t *testing.T) {
	want := writerShape(t, fio.Option{Key: "bsrange", Value: "4k-64k"}).sizes
	for _, v := range []string{"4k:64k", "64k-4k", "64k:4k"} {
		if got := writerShape(t, fio.Option{Key: "bsrange", Value: v}).sizes; !reflect.DeepEqual(got, want) {
			t.Errorf("bsrange=%s: %v, want bsrange=4k-64k's %v", v, got, want)
		}
	}
	if a, b := writerShape(t, fio.Option{Key: "filesize", Value: "1m:3m"}).extent, writerShape(t, fio.Option{Key: "filesize", Value: "1m-3m"}).extent; a != b {
		t.Errorf("filesize=1m:3m %+v, want filesize=1m-3m's %+v", a, b)
	}
	if a, b := writerShape(t, fio.Option{Key: "startdelay", Value: "10:20"}).startDelay, writerShape(t, fio.Option{Key: "startdelay", Value: "10-20"}).startDelay; a != b || a != 15 {
		t.Errorf("startdelay=10:20 %g, want 10-20's %g (15)", a, b)
	}
	if n := writerShape(t, fio.Option{Key: "write_iolog", Value: "log"}, fio.Option{Key: "verify_backlog", Value: "32"}).notes; len(n) != 0 {
		t.Errorf("write_iolog and verify_backlog without verify: notes %q, want none", n)
	}
}

// writerShape reads a libaio random writer with opts, failing the test on
// an error.
func writerShape(t *testing.T, opts ...fio.Option) jobShape {
	t.Helper()
	job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", Options: opts}
	sh, err := readJob(&job)
	if err != nil {
		t.Fatalf("%v: %v", opts, err)
	}
	return sh
}
