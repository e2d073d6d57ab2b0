package model

import (
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"starbench/internal/fio"
)

// Polled I/O is read as what it keeps spinning: io_uring's sqthread_poll a
// submission thread per job always, and fio's own thread in a closed loop
// (hipri too); pvsync2's hipri nothing; on other engines fio refuses them.
func TestPolledIOIsReadAsSpinningThreads(t *testing.T) {
	for _, c := range []struct {
		engine string
		opts   []fio.Option
		want   polling
		note   string // "" for none; the error's text where err
		err    bool
	}{
		{"io_uring", nil, polling{}, "", false},
		{"io_uring", []fio.Option{{Key: "rate_iops", Value: "200"}}, polling{}, "", false}, // no polling, spaced or not
		{"io_uring", []fio.Option{{Key: "sqthread_poll", Value: "1"}}, polling{submitter: true, reaper: true}, "a kernel thread per job spins on io_uring's submission ring, a vCPU each; fio's thread spins reading the completion ring", false},
		{"io_uring", []fio.Option{{Key: "sqthread_poll", Value: "1"}, {Key: "sqthread_poll_cpu", Value: "0"}}, polling{submitter: true, pinned: true, reaper: true}, "all on the vCPU sqthread_poll_cpu names", false},
		{"io_uring", []fio.Option{{Key: "sqthread_poll", Value: "1"}, {Key: "rate_iops", Value: "200"}}, polling{submitter: true, reaper: true, spaced: true}, "between the I/Os its rate or think time spaces out fio's thread sleeps", false},
		{"io_uring", []fio.Option{{Key: "hipri", Value: "1"}}, polling{reaper: true}, "fio's thread spins in the kernel polling for completions", false},
		{"io_uring", []fio.Option{{Key: "hipri", Value: "1"}, {Key: "thinktime", Value: "100"}}, polling{reaper: true, spaced: true}, "it spins the share of its time its I/Os are in flight", false},
		{"io_uring", []fio.Option{{Key: "hipri", Value: "0"}}, polling{}, "", false},
		{"pvsync2", []fio.Option{{Key: "hipri", Value: "1"}}, polling{}, "hipri with pvsync2 has no effect", false},
		{"libaio", []fio.Option{{Key: "hipri", Value: "1"}}, polling{}, "hipri with ioengine=libaio: hipri belongs to io_uring, pvsync2 and sg", true},
		{"", []fio.Option{{Key: "sqthread_poll", Value: "1"}}, polling{}, "sqthread_poll=1 with ioengine=psync: sqthread_poll is io_uring's", true},
	} {
		job := fio.Job{IOEngine: c.engine, Direct: true, RW: "randread", IODepth: 4, Options: c.opts}
		sh, err := readJob(&job)
		if c.err {
			if err == nil || !strings.Contains(err.Error(), c.note) {
				t.Errorf("%s %v: %v, want an error saying %q", c.engine, c.opts, err, c.note)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s %v: %v", c.engine, c.opts, err)
		}
		notes := strings.Join(sh.notes, "\n")
		noted := strings.Contains(notes, "polled I/O") || strings.Contains(notes, "hipri")
		if sh.poll != c.want || !strings.Contains(notes, c.note) || noted != (c.note != "") {
			t.Errorf("%s %v: %+v, notes %q; want %+v and a note saying %q", c.engine, c.opts, sh.poll, notes, c.want, c.note)
		}
	}
}

// A VM's spinning vCPUs: its jobs' submission threads (one vCPU for all
// when pinned) and fio's reaping threads, at most its vCPUs; fio's threads
// share the vCPUs alike with spinning submission threads.
func TestPollingVCPUs(t *testing.T) {
	for _, c := range []struct {
		poll                 polling
		reap, cpus, jobs     float64
		spinning, submitters float64
	}{
		{polling{}, 0, 4, 8, 0, 0},
		{polling{reaper: true}, 1, 4, 2, 2, 0},
		{polling{reaper: true}, 1, 4, 8, 4, 0},
		{polling{reaper: true, spaced: true}, 0.25, 4, 8, 2, 0},
		{polling{submitter: true}, 0, 4, 2, 2, 2},
		{polling{submitter: true, reaper: true}, 1, 8, 2, 4, 2},
		{polling{submitter: true, pinned: true}, 0, 4, 8, 1, 1},
		{polling{submitter: true, pinned: true, reaper: true}, 1, 4, 2, 3, 1},
	} {
		spinning, submitters := pollingVCPUs(c.poll, c.reap, c.cpus, c.jobs)
		if spinning != c.spinning || submitters != c.submitters {
			t.Errorf("%+v at %g, %g vCPUs, %g jobs: %g spinning (%g submitting), want %g (%g)", c.poll, c.reap, c.cpus, c.jobs, spinning, submitters, c.spinning, c.submitters)
		}
	}
}

// Spinning vCPUs hold hardware threads the whole run: a host's CPU is what
// vSAN does plus what they hold (fio's work runs on the spinning vCPUs), the
// same IOPS where the DOM binds; on hosts with too few cores for vSAN
// beside them the CPU binds and the IOPS fall; a polling job beside one
// that does not poll holds its vCPUs all the same.
func TestSpinningVCPUsHoldTheHostsCPU(t *testing.T) {
	p := mustLoad(t, "vxrail-ve660-esa") // 4 VMs of 4 vCPUs a host, 8 disks each: 16 spinning of 32 hardware threads
	solve := func(opts ...fio.Option) *Output {
		t.Helper()
		job := &fio.Job{IOEngine: "io_uring", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 4096, IODepth: 8, Options: opts}
		out, err := Solve(context.Background(), p, UniformInput(p, p.Hosts*p.Workers.PerHost, p.Workers.DataDisks, Policy{RAID: "raid1"}, job))
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	base := solve()
	held := 100 * float64(p.Workers.PerHost*p.Workers.CPUs) / float64(p.CPU.Threads())
	for _, opt := range []fio.Option{{Key: "hipri", Value: "1"}, {Key: "sqthread_poll", Value: "1"}} {
		out := solve(opt)
		want := base.Hosts[0].VSANCPUPercent + held
		if math.Abs(out.HostCPUPercent[0]-want) > 0.5 || math.Abs(out.CPUPercent-want) > 0.5 || math.Abs(out.Read.IOPS-base.Read.IOPS) > 1e-3*base.Read.IOPS {
			t.Errorf("%s: host CPU %.1f %% (busiest %.1f %%), %.0f read IOPS; want vSAN's %.1f + %.1f held, %.0f IOPS", opt.Key, out.HostCPUPercent[0], out.CPUPercent, out.Read.IOPS, base.Hosts[0].VSANCPUPercent, held, base.Read.IOPS)
		}
		if math.Abs(out.Hosts[0].VSANCPUPercent-base.Hosts[0].VSANCPUPercent) > 0.1 {
			t.Errorf("%s: vSAN's CPU %.1f %%, without polling %.1f %%", opt.Key, out.Hosts[0].VSANCPUPercent, base.Hosts[0].VSANCPUPercent)
		}
	}
	// A noise draw scales what follows the throughput, not what spinning
	// vCPUs hold.
	out := solve(fio.Option{Key: "hipri", Value: "1"})
	host, busiest := out.HostCPUPercent[0], out.CPUPercent
	out.scaleLoads(0.5)
	if math.Abs(out.HostCPUPercent[0]-(held+(host-held)/2)) > 1e-9 || math.Abs(out.CPUPercent-(held+(busiest-held)/2)) > 1e-9 {
		t.Errorf("hipri, scaled by 0.5: host CPU %.2f %% (busiest %.2f %%) from %.2f %%: want the %.1f held kept", out.HostCPUPercent[0], out.CPUPercent, host, held)
	}
	// Held to a rate, fio's threads sleep; the submission threads still spin.
	limited := solve(fio.Option{Key: "sqthread_poll", Value: "1"}, fio.Option{Key: "rate_iops", Value: "500"})
	unpolled := solve(fio.Option{Key: "rate_iops", Value: "500"})
	if d := limited.HostCPUPercent[0] - unpolled.HostCPUPercent[0]; math.Abs(d-held) > 0.5 {
		t.Errorf("sqthread_poll at rate_iops=500: host CPU %.1f %%, %.1f without: want %.1f more", limited.HostCPUPercent[0], unpolled.HostCPUPercent[0], held)
	}

	// Held to a rate, fio's polling threads spin the share of their time
	// they have I/O in flight: each VM's 8 threads that many vCPUs.
	spaced := solve(fio.Option{Key: "hipri", Value: "1"}, fio.Option{Key: "rate_iops", Value: "500"})
	threads := float64(p.Workers.PerHost * p.Workers.DataDisks)
	share := (spaced.Read.IOPS*spaced.Read.LatMeanUs + spaced.Write.IOPS*spaced.Write.LatMeanUs) * 1e-6 / (threads * float64(p.Hosts))
	spun := 100 * threads * share / float64(p.CPU.Threads())
	if d := spaced.HostCPUPercent[0] - unpolled.HostCPUPercent[0]; !(share > 0.01 && share < 1) || d < spun-1 || d > spun+0.1 {
		t.Errorf("hipri at rate_iops=500: host CPU %.1f %%, %.1f without: want %.1f more (threads with I/O in flight %.3f of the time)", spaced.HostCPUPercent[0], unpolled.HostCPUPercent[0], spun, share)
	}
	t.Logf("hipri at rate_iops=500: host CPU %.2f %%, %.2f without; threads with I/O in flight %.3f of the time", spaced.HostCPUPercent[0], unpolled.HostCPUPercent[0], share)

	// Half the cores: vSAN's worlds and the spinning vCPUs share the 16
	// hardware threads alike, and the CPU binds.
	p.CPU.CoresPerSocket = 8
	base, polled := solve(), solve(fio.Option{Key: "hipri", Value: "1"})
	if !(polled.Read.IOPS < 0.9*base.Read.IOPS) || polled.Bottleneck != "cpu" {
		t.Errorf("8 cores a host: %.0f read IOPS polling (bottleneck %s), %.0f without (%s): want fewer, bound by the CPU", polled.Read.IOPS, polled.Bottleneck, base.Read.IOPS, base.Bottleneck)
	}
	t.Logf("8 cores a host: %.0f read IOPS polling, %.0f without; host CPU %.0f %% and %.0f %%", polled.Read.IOPS, base.Read.IOPS, polled.CPUPercent, base.CPUPercent)

	// Two jobs at once, one polling: its vCPUs are held beside the other's work.
	p = mustLoad(t, "vxrail-ve660-esa")
	plain := &fio.Job{Name: "plain", IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 1}
	in := UniformInput(p, p.Hosts*p.Workers.PerHost, p.Workers.DataDisks, Policy{RAID: "raid1"}, plain)
	alone, err := Solve(context.Background(), p, in)
	if err != nil {
		t.Fatal(err)
	}
	poller := *plain
	poller.Name, poller.IOEngine, poller.RateIOPS = "poller", "io_uring", 10
	poller.Options = []fio.Option{{Key: "sqthread_poll", Value: "1"}}
	in.Jobs = append(in.Jobs, JobLoad{Name: "poller", Job: &poller, Disks: in.Jobs[0].Disks})
	in.Jobs[0].Name = "plain"
	both, err := Solve(context.Background(), p, in)
	if err != nil {
		t.Fatal(err)
	}
	// The other job's work follows its IOPS, which fall as its hand-offs
	// find fewer free hardware threads (ready time).
	work := alone.HostCPUPercent[0] * both.Read.IOPS / alone.Read.IOPS
	if math.Abs(both.HostCPUPercent[0]-work-held) > 1 || !(both.Read.IOPS < alone.Read.IOPS) {
		t.Errorf("a polling job at 10 IOPS a disk beside a free one: host CPU %.1f %% at %.0f IOPS, %.1f %% at %.0f alone: want its work at that rate and %.1f held", both.HostCPUPercent[0], both.Read.IOPS, alone.HostCPUPercent[0], alone.Read.IOPS, held)
	}
}

// What the model charges polled I/O for, against fio 3.33: with
// sqthread_poll a submission thread spins whatever the rate (the fio
// process's CPU time at 200 IOPS far above the same job's without it), and
// fio's own thread spins while its I/Os are in flight: all the time in a
// closed loop, at 200 IOPS no more than the share of its time it has one
// in flight (its IOPS times its latency) and fio's own work. CPU time, not
// wall time, and against what a thread spinning beside fio gets meanwhile
// (spinShare): on a busy machine a spinning thread gets less than a CPU,
// fio's as much as any.
func TestPolledIOSpinsAsFioRunsIt(t *testing.T) {
	needFio(t)
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, bytes.Repeat([]byte{0x5a}, 16<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	const seconds = 2.0
	run := func(args ...string) (processSeconds, jobShare, inFlight, spinning, others float64) {
		t.Helper()
		cmd := exec.Command("fio", append([]string{"--output-format=json", "--name=p", "--filename=" + file, "--size=16m", "--direct=1",
			"--rw=randread", "--bs=4k", "--ioengine=io_uring", "--iodepth=4", "--time_based", "--runtime=2"}, args...)...)
		var out []byte
		var err error
		busy := machineBusy()
		began := time.Now()
		spinning = spinShare(func() { out, err = cmd.Output() })
		wall := time.Since(began).Seconds()
		busy = machineBusy() - busy
		if err != nil {
			t.Skipf("fio with io_uring and direct I/O on %s: %v", file, err)
		}
		var report struct {
			Jobs []struct {
				Error  int     `json:"error"`
				UsrCPU float64 `json:"usr_cpu"`
				SysCPU float64 `json:"sys_cpu"`
				Read   struct {
					IOPS  float64 `json:"iops"`
					LatNs struct {
						Mean float64 `json:"mean"`
					} `json:"lat_ns"`
				}
			}
		}
		decodeFioReport(t, out, &report)
		if len(report.Jobs) != 1 || report.Jobs[0].Error != 0 {
			t.Skipf("fio with io_uring on %s: %+v", file, report.Jobs)
		}
		st, j := cmd.ProcessState, report.Jobs[0]
		fioSeconds := (st.UserTime() + st.SystemTime()).Seconds()
		others = (busy - fioSeconds - spinning*wall) / wall // what other processes ran meanwhile, in CPUs
		return fioSeconds, (j.UsrCPU + j.SysCPU) / 100, j.Read.IOPS * j.Read.LatNs.Mean / 1e9, spinning, others
	}
	// A busy machine starves fio's threads unevenly (seen with other
	// packages' tests beside it: 1.6 CPU seconds without polling, a
	// closed loop's thread at 0.05 of a CPU): measure when a spinning
	// thread gets most of a CPU, or say the machine was too busy.
	var quiet, submitting, spacedShare, spacedInFlight, spunBeside, closedShare, spunClosed, others float64
	for attempt := 0; ; attempt++ {
		var spunQuiet, o1, o2, o3 float64
		quiet, _, _, spunQuiet, o1 = run("--rate_iops=200")
		submitting, spacedShare, spacedInFlight, spunBeside, o2 = run("--rate_iops=200", "--sqthread_poll=1")
		_, closedShare, _, spunClosed, o3 = run("--sqthread_poll=1")
		least := min(spunQuiet, spunBeside, spunClosed)
		others = max(o1, o2, o3)
		if least >= 0.75 && others < 0.25 {
			break
		}
		if attempt == 2 {
			t.Skipf("the machine is too busy to compare fio's CPU shares: a thread spinning beside fio got %.2f of a CPU, other processes used %.2f CPUs", least, others)
		}
	}
	t.Logf("fio's CPU seconds over %g s at 200 IOPS: %.2f, %.2f with sqthread_poll (a thread spinning beside it: %.2f of a CPU); its job thread's share %.3f at 200 IOPS (%.3f I/Os in flight), %.3f in a closed loop (a thread beside it %.2f); other processes at most %.2f CPUs",
		seconds, quiet, submitting, spunBeside, spacedShare, spacedInFlight, closedShare, spunClosed, others)
	if submitting-quiet < 0.5*spunBeside*seconds {
		t.Errorf("sqthread_poll at 200 IOPS: %.2f CPU seconds, %.2f without: want a spinning thread's worth more (one beside it got %.2f of a CPU)", submitting, quiet, spunBeside)
	}
	// In a closed loop three threads spin: the one beside fio, io_uring's
	// submission thread and fio's own. With the first on a CPU of its own,
	// fio's can count on half of what the others leave (on 2 CPUs fio's
	// thread got 0.46 to 0.55 of a CPU beside 0.89 to 0.96), and on no
	// more than the thread beside it got.
	fair := math.Min(spunClosed, (float64(runtime.NumCPU())-spunClosed)/2)
	if closedShare < 0.7*fair || spacedShare > math.Min(1, spacedInFlight)+0.05 {
		t.Errorf("fio's thread with sqthread_poll: %.3f of a CPU in a closed loop (a thread spinning beside it %.2f, so a spinning thread's fair share %.2f), %.3f at 200 IOPS with %.3f I/Os in flight: want it spinning while they are in flight", closedShare, spunClosed, fair, spacedShare, spacedInFlight)
	}
}

// machineBusy is the CPU seconds every CPU of the machine has spent
// busy since boot (/proc/stat: all but idle and iowait, in USER_HZ, 100
// a second on Linux).
func machineBusy() float64 {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(data), "\n")
	busy := 0.0
	for i, f := range strings.Fields(line)[1:] {
		n, _ := strconv.ParseFloat(f, 64)
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy / 100
}

// spinShare runs f with a thread spinning beside it and returns the share
// of a CPU that thread got meanwhile: what any spinning thread gets on
// this machine at the time.
func spinShare(f func()) float64 {
	stop, share := make(chan struct{}), make(chan float64)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		const rusageThread = 1 // RUSAGE_THREAD
		cpu := func() time.Duration {
			var ru syscall.Rusage
			_ = syscall.Getrusage(rusageThread, &ru)
			return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
		began, used := time.Now(), cpu()
		for {
			select {
			case <-stop:
				share <- float64(cpu()-used) / float64(time.Since(began))
				return
			default:
			}
		}
	}()
	f()
	close(stop)
	return <-share
}
