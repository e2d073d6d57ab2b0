package model

import (
	"context"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"starbench/internal/fio"
)

// Jobs of a flow group run at their weights' shares: beside a job held at
// 200 I/Os a second per fio job, one with the same flow runs at 200 and
// one with half its weight at 100, while a job outside the group runs
// free.
func TestFlowHoldsJobsToTheirWeights(t *testing.T) {
	ws := workers(2, 2, "r5")
	job := func(name string, opts ...fio.Option) fio.Job {
		return fio.Job{Name: name, IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 4, RuntimeSec: 10, TimeBased: true, Options: opts}
	}
	perThread := func(res *fio.Result, name string) float64 {
		for _, r := range res.Aggregate {
			if r.Job == name && r.Direction == "read" {
				return r.IOPS / 4 // two workers of two disks
			}
		}
		t.Fatalf("no read row of %s in %+v", name, res.Aggregate)
		return 0
	}
	for _, c := range []struct {
		name    string
		weights [2]string
		b       float64
	}{
		{"the same weight", [2]string{"1", "1"}, 200},
		{"half the weight", [2]string{"2", "1"}, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			pl, _ := newTestPlane(t)
			wl := &fio.Workload{Name: "flow", Jobs: []fio.Job{
				job("a", fio.Option{Key: "rate_iops", Value: "200"}, fio.Option{Key: "flow", Value: c.weights[0]}),
				job("b", fio.Option{Key: "flow", Value: c.weights[1]}),
				job("c"),
			}}
			res, err := pl.Run(context.Background(), ws, wl, nil)
			if err != nil {
				t.Fatal(err)
			}
			if a, b, free := perThread(res, "a"), perThread(res, "b"), perThread(res, "c"); !nearRel(a, 200, 1e-3) || !nearRel(b, c.b, 0.01) || free < 10*c.b {
				t.Errorf("per fio job: a %.1f, b %.1f, c %.0f I/Os a second; want 200, %.0f and c free", a, b, free, c.b)
			}
			if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "flow: fio keeps each job of a flow group") || !strings.Contains(notes, "a sets the pace") || strings.Contains(notes, "flow is not modelled") {
				t.Errorf("notes %q: want the flow group said", res.Notes)
			}
		})
	}
}

// The installed fio keeps a flow group to its weights: beside a job at
// rate_iops=200, a free job with the same weight runs at about 200 I/Os a
// second and one with half the weight at about 100, while a job outside
// the group runs far faster. A job of the group that starts before the
// others join it runs free until they do, and fio then holds it until the
// group has caught up; the run is long enough (5 s: 1,000 I/Os of a) for
// the catching up to absorb such a start (at 2 s, b once ran at 120 where
// its weight gives 100).
func TestFlowAgainstFio(t *testing.T) {
	needFio(t)
	for _, c := range []struct {
		weightA string
		ratio   float64 // b / a
	}{{"1", 1}, {"2", 0.5}} {
		dir := t.TempDir()
		var report struct {
			Jobs []struct {
				Read struct {
					IOPS float64 `json:"iops"`
				}
			}
		}
		args := []string{"--output-format=json", "--bs=4k", "--ioengine=psync", "--rw=randread", "--size=8m", "--time_based", "--runtime=5"}
		args = append(args, "--name=a", "--filename="+filepath.Join(dir, "a"), "--rate_iops=200", "--flow="+c.weightA)
		args = append(args, "--name=b", "--filename="+filepath.Join(dir, "b"), "--flow=1")
		args = append(args, "--name=c", "--filename="+filepath.Join(dir, "c"))
		if runFio(t, &report, args...); len(report.Jobs) != 3 {
			t.Fatalf("fio's report has %d jobs, want 3", len(report.Jobs))
		}
		a, b, free := report.Jobs[0].Read.IOPS, report.Jobs[1].Read.IOPS, report.Jobs[2].Read.IOPS
		if math.Abs(b/a/c.ratio-1) > 0.1 || free < 5*a {
			t.Errorf("flow=%s and 1: a %.0f, b %.0f, c %.0f IOPS; want b %.1f times a and c far faster", c.weightA, a, b, free, c.ratio)
		}
	}
}

// fio holds a flow group's running jobs until the others start: beside a
// partner at startdelay=2 a 4 MiB read ends no sooner than 2 s (a lower
// bound: a busy machine only lengthens it), and beside a partner in the
// next phase it moves under 1 MiB in 3 s (the partner waits for it to
// end), where alone in its group it moves its size. The model notes the
// first and refuses the second.
func TestFlowGroupsWaitForTheirJobsToStart(t *testing.T) {
	needFio(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	sparseFile(t, a, 4<<20)
	sparseFile(t, b, 4<<20)
	// fioRead runs fio for at most limit and returns what job a read and
	// how long it ran, in ms; fio stopped by the limit reports as it ends.
	fioRead := func(limit time.Duration, second ...string) (kib, ms float64) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()
		args := append([]string{"--output-format=json", "--ioengine=psync", "--bs=4k", "--size=4m", "--rw=randread", "--flow_id=1", "--flow=1",
			"--name=a", "--filename=" + a}, second...)
		cmd := exec.CommandContext(ctx, "fio", args...)
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
		out, _ := cmd.Output()
		var report struct {
			Jobs []struct {
				Read struct {
					IOKBytes float64 `json:"io_kbytes"`
				}
				JobRuntime float64 `json:"job_runtime"`
			}
		}
		decodeFioReport(t, out, &report)
		if len(report.Jobs) == 0 {
			t.Fatalf("fio %v: no jobs in its report", args)
		}
		return report.Jobs[0].Read.IOKBytes, report.Jobs[0].JobRuntime
	}
	if kib, ms := fioRead(30 * time.Second); kib != 4096 {
		t.Fatalf("alone in its group: %.0f KiB in %.0f ms, want its 4 MiB", kib, ms)
	}
	if kib, ms := fioRead(30*time.Second, "--name=b", "--filename="+b, "--startdelay=2"); kib != 4096 || ms < 1900 {
		t.Fatalf("beside a partner at startdelay=2: %.0f KiB in %.0f ms, want 4 MiB after about 2 s", kib, ms)
	}
	if kib, _ := fioRead(3*time.Second, "--name=b", "--filename="+b, "--stonewall"); kib >= 1024 {
		t.Fatalf("beside a partner in the next phase: %.0f KiB in 3 s, want it held (under 1 MiB)", kib)
	}

	job := func(name string, opts ...fio.Option) fio.Job {
		return fio.Job{Name: name, IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16, RuntimeSec: 60, TimeBased: true,
			Options: append([]fio.Option{{Key: "flow_id", Value: "1"}, {Key: "flow", Value: "1"}}, opts...)}
	}
	pl, _ := newTestPlane(t)
	ws := workers(4, 2, "r5")
	together, err := pl.Run(context.Background(), ws, &fio.Workload{Name: "w", Jobs: []fio.Job{job("a"), job("b")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pl.Run(context.Background(), ws, &fio.Workload{Name: "w", Jobs: []fio.Job{job("a"), job("b", fio.Option{Key: "startdelay", Value: "2"})}}, nil)
	if err != nil || !strings.Contains(strings.Join(res.Notes, "\n"), "flow_id=1: job b starts 2 s after job a (startdelay); fio holds a until it starts") {
		t.Fatalf("a partner at startdelay=2: %v; want it noted", err)
	}
	// Held for 2 of its 60 s, a does its I/O beside b for the other 58, at
	// the rate the two have together; fio's report averages over all 60.
	readIOPS := func(res *fio.Result, name string) float64 {
		for _, r := range res.Aggregate {
			if r.Job == name && r.Direction == "read" {
				return r.IOPS
			}
		}
		t.Fatalf("no read row of %s", name)
		return 0
	}
	if got, want := readIOPS(res, "a"), readIOPS(together, "a")*58/60; math.Abs(got/want-1) > 0.005 {
		t.Errorf("a held 2 s by its partner: %.0f IOPS, want %.0f (58/60 of %.0f, the two together)", got, want, readIOPS(together, "a"))
	}
	for _, s := range res.Samples {
		if s.Job == "a" && s.TS <= 2 {
			t.Errorf("a held for 2 s did I/O in the interval ending at %g s: %+v", s.TS, s)
		}
	}
	if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "a (held by its flow group)") {
		t.Errorf("notes %q: want the hold in the run's stretches", notes)
	}
	// As fio read its 4 MiB after the partner started (2,015 ms): a
	// size-based job's I/O starts with the hold's end, its time from its
	// own start.
	sized := func(name string, opts ...fio.Option) fio.Job {
		j := job(name, opts...)
		j.TimeBased, j.RuntimeSec, j.Size = false, 0, 4<<20
		return j
	}
	res, err = pl.Run(context.Background(), ws, &fio.Workload{Name: "w", Jobs: []fio.Job{sized("a"), sized("b", fio.Option{Key: "startdelay", Value: "2"})}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ios := float64(len(ws)*2) * 1024 // 4 MiB of 4 KiB reads on each of the workers' disks
	if seconds := ios / readIOPS(res, "a"); seconds < 2 || seconds > 2.1 {
		t.Errorf("a reading 4 MiB a disk beside a partner at startdelay=2: %.3f s, want just over 2", seconds)
	}
	_, err = pl.Run(context.Background(), ws, &fio.Workload{Name: "w", Jobs: []fio.Job{job("a"), job("b", fio.Option{Key: "stonewall", Value: "1"})}}, nil)
	if err == nil || !strings.Contains(err.Error(), "jobs a and b share flow_id=1 but run in different phases") {
		t.Errorf("a partner in the next phase: %v; want it refused", err)
	}
}
