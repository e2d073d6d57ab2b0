package scripts_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	goruntime "runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.starlark.net/starlark"

	"starbench/builtins"
	"starbench/internal/cli"
	"starbench/internal/fio"
	"starbench/internal/model"
	"starbench/internal/runtime"
	"starbench/internal/testbed"
)

// The what-if benchmarks: how fast the embedded default answers questions
// at the size of the published campaigns. Run them alone, e.g.
//
//	go test ./scripts -run XXX -bench . -benchtime 1x            (the WWT matrix once)
//	go test ./scripts -run XXX -bench SimulatedRun -benchtime 200x
//
// BenchmarkSimulatedRun reports its own baseline: the model's solve time for
// the same input, measured in the same run (solve-us), and the run's cost
// as a multiple of it (x-solve); cpu-ms/run is the process's CPU time a run
// (steadier than ms/run when other work shares the machine); heap-MB is the
// heap in use after the campaign (compare -benchtime 1000x with 10000x: it
// stays flat).

// BenchmarkWWTMatrix runs scripts/wwt_matrix.star whole (96 workers x 8
// disks per worker set, 80 runs, tables, figures and report) as
// `starbench run` does.
func BenchmarkWWTMatrix(b *testing.B) {
	b.Chdir("..")
	for b.Loop() {
		out := b.TempDir()
		var stderr bytes.Buffer
		code := cli.Run(&cli.State{Args: []string{"run", "scripts/wwt_matrix.star", "--out", out, "--no-progress", "--set", "duration=60"},
			Env: map[string]string{}, Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &stderr})
		if code != 0 {
			b.Fatalf("wwt_matrix.star: exit %d\n%s", code, stderr.String())
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/matrix")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkWhatIfSweep runs scripts/whatif_sweep.star whole at two sizes,
// threads=8 (1,344 runs) and the default (10,752 runs), and reports the
// time per run and the peaks of the Go heap in use and of the live heap,
// sampled every 50 ms: memory stays flat as runs grow when the peaks are
// close. Run it alone, once:
//
//	go test ./scripts -run XXX -bench WhatIfSweep -benchtime 1x
func BenchmarkWhatIfSweep(b *testing.B) {
	b.Chdir("..")
	for _, size := range []struct {
		name string
		sets []string
		runs int
	}{
		{"runs=1344", []string{"--set", "threads=8"}, 1344},
		{"runs=10752", nil, 10752},
	} {
		b.Run(size.name, func(b *testing.B) {
			for b.Loop() {
				stop := make(chan struct{})
				peak := make(chan [2]uint64)
				go samplePeakHeap(stop, peak)
				var stderr bytes.Buffer
				args := append([]string{"run", "scripts/whatif_sweep.star", "--out", b.TempDir(), "--no-progress"}, size.sets...)
				code := cli.Run(&cli.State{Args: args, Env: map[string]string{}, Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &stderr})
				close(stop)
				if code != 0 {
					b.Fatalf("whatif_sweep.star: exit %d\n%s", code, stderr.String())
				}
				if want := fmt.Sprintf("%d runs done now (0 failed)", size.runs); !strings.Contains(stderr.String(), want) {
					b.Fatalf("want %q in\n%s", want, stderr.String())
				}
				most := <-peak
				b.ReportMetric(float64(most[0])/(1<<20), "peak-heap-MB")
				b.ReportMetric(float64(most[1])/(1<<20), "peak-live-MB")
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/sweep")
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*size.runs), "ms/run")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// samplePeakHeap sends the largest heap in use it saw until stop closes,
// and the largest live heap (what the last garbage collection found
// reachable, /gc/heap/live:bytes): the heap in use also holds what the
// collector has not freed yet, up to as much again as the live heap, so it
// moves with the collector's timing. With STARBENCH_PEAK_PROFILE=FILE it
// writes a heap profile to FILE at each new peak of the live heap: the
// last one says what was live at the peak (go tool pprof -sample_index
// inuse_space; -base compares two sizes).
func samplePeakHeap(stop chan struct{}, peak chan<- [2]uint64) {
	profile := os.Getenv("STARBENCH_PEAK_PROFILE")
	var most [2]uint64
	var m goruntime.MemStats
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		goruntime.ReadMemStats(&m)
		metrics.Read(live)
		most[0] = max(most[0], m.HeapInuse)
		if live[0].Value.Kind() == metrics.KindUint64 && live[0].Value.Uint64() > most[1] {
			most[1] = live[0].Value.Uint64()
			if profile != "" {
				writeHeapProfile(profile)
			}
		}
		select {
		case <-stop:
			peak <- most
			return
		case <-tick.C:
		}
	}
}

// writeHeapProfile writes the heap profile as of the last garbage
// collection to path.
func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err != nil {
		return
	}
	defer f.Close()
	pprof.WriteHeapProfile(f)
}

// simulatedRunSetup deploys the WWT general fleet (96 workers x 8 disks on
// wwt-r640-osa, RAID6 FTT2), prepares it, and defines bench(name, n): a
// campaign of one cell whose workload is the WWT "general" mix on that
// fleet, repeated n times, with host metrics per run as the WWT matrix
// records them.
const simulatedRunSetup = `
vsphere.connect(testbed = "wwt-r640-osa")
raid6 = policy.vsan("bench-raid6-ftt2", raid = "raid6", ftt = 2)
workers = vsphere.deploy_workers("bench", per_host = 4, cpus = 4, disks = 8, disk_size = "100GiB", policy = raid6)
fio.prepare(workers, method = "random", bs = "256k")
job = fio.job(name = "general", rw = "randrw", rwmixread = 70, iodepth = 8, runtime = 60, time_based = True,
    bssplit = {"4k": 20, "8k": 20, "16k": 10, "32k": 20, "64k": 20, "256k": 10})

def bench(name, n):
    c = campaign.new(name,
        factors = [campaign.factor("compression", [False], apply = lambda level: cluster.configure(compression = level))],
        workloads = [campaign.workload("general", lambda: fio.run(workers, job), duration = 60)],
        repeat = n,
        metrics = lambda start, end: vsphere.host_metrics(None, start, end),
        cv_threshold = 0)
    return c.run()
`

// simulatedRun is the session simulatedRunSetup ran in, kept for the whole
// benchmark process: deploying the fleet takes seconds, a run milliseconds.
var simulatedRun struct {
	once    sync.Once
	session *runtime.Session
	thread  *starlark.Thread
	bench   starlark.Callable
	err     error
	count   int
}

// TestMain ends the session of BenchmarkSimulatedRun, if one ran.
func TestMain(m *testing.M) {
	code := m.Run()
	if s := simulatedRun.session; s != nil {
		s.Close()
		os.RemoveAll(s.OutDir)
	}
	os.Exit(code)
}

func simulatedRunSession(b *testing.B) (*starlark.Thread, starlark.Callable) {
	simulatedRun.once.Do(func() {
		out, err := os.MkdirTemp("", "starbench-bench-")
		if err != nil {
			simulatedRun.err = err
			return
		}
		s := &runtime.Session{Ctx: context.Background(), Script: "bench.star", OutDir: out,
			Target: "embedded", Stdout: io.Discard, Stderr: io.Discard, NoProgress: true}
		simulatedRun.session = s
		in := runtime.NewInterp(s, builtins.Modules(builtins.Deps{}), ".", runtime.ScriptOptions())
		var globals starlark.StringDict
		globals, err = in.Exec("bench.star", []byte(simulatedRunSetup))
		if err != nil {
			simulatedRun.err = err
			return
		}
		simulatedRun.thread, simulatedRun.bench = in.Thread, globals["bench"].(starlark.Callable)
	})
	if simulatedRun.err != nil {
		b.Fatal(runtime.FormatError(simulatedRun.err))
	}
	return simulatedRun.thread, simulatedRun.bench
}

// BenchmarkSimulatedRun is the cost of one more run of a simulated campaign
// at 96 workers x 8 disks: fio.run through the control plane and the model,
// the store commit of its 1,538 rows, host metrics and progress. One
// campaign of b.N runs; the fleet is deployed once, outside the timing.
func BenchmarkSimulatedRun(b *testing.B) {
	thread, bench := simulatedRunSession(b)
	simulatedRun.count++
	name := fmt.Sprintf("bench-%d", simulatedRun.count)
	cpu := processCPU(b)
	b.ResetTimer()
	if _, err := starlark.Call(thread, bench, starlark.Tuple{starlark.String(name), starlark.MakeInt(b.N)}, nil); err != nil {
		b.Fatal(runtime.FormatError(err))
	}
	b.StopTimer()
	cpu = processCPU(b) - cpu
	var m goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&m)
	b.ReportMetric(float64(m.HeapInuse)/(1<<20), "heap-MB")
	perRun := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	solve := solveTime(b)
	b.ReportMetric(perRun/1e6, "ms/run")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e6, "cpu-ms/run")
	b.ReportMetric(solve.Seconds()*1e6, "solve-us")
	b.ReportMetric(perRun/float64(solve.Nanoseconds()), "x-solve")
}

// processCPU is the CPU time (user and system, every thread) the process
// has used so far: on a machine other work shares, a run's CPU time varies
// less than its wall time.
func processCPU(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// solveTime is the model's own time to solve the input of one run of
// BenchmarkSimulatedRun: 768 RAID6 FTT2 disks, written once, the general mix.
func solveTime(b *testing.B) time.Duration {
	p, err := testbed.Load("wwt-r640-osa")
	if err != nil {
		b.Fatal(err)
	}
	job := fio.Job{Name: "general", RW: "randrw", RWMixRead: 70, IODepth: 8, RuntimeSec: 60, TimeBased: true,
		BSSplit: []fio.BSSplit{{Size: 4 << 10, Percent: 20}, {Size: 8 << 10, Percent: 20}, {Size: 16 << 10, Percent: 10},
			{Size: 32 << 10, Percent: 20}, {Size: 64 << 10, Percent: 20}, {Size: 256 << 10, Percent: 10}}}
	in := model.UniformInput(p, 96, 8, model.Policy{RAID: "raid6", FTT: 2, StripeWidth: 1}, &job)
	in.State = model.ClusterState{Uplink: "10g"}
	const n = 200
	start := time.Now()
	for range n {
		if _, err := model.Solve(context.Background(), p, in); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start) / n
}
