package model

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

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
