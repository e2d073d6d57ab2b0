package model

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"starbench/internal/fio"
)

// A job below its minimum rate fails the run, as fio ends it with error 5
// once it has settled for 2 s and run a rate cycle: here each fio job is
// held at 100 IOPS by rate_iops. A job that keeps its floor, one too short
// to be checked, or a floor on a direction the job does not move runs.
// (Measured with fio 3.33: a job below its floor under runtime=3 still
// ends with error 5, its check falling on the run's last second.)
func TestMinRateFailsTheRunAsFioDoes(t *testing.T) {
	ws := workers(2, 2, "r5")
	held := func(runtime int, opts ...fio.Option) fio.Job {
		return fio.Job{Name: "m", IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 4, RuntimeSec: runtime, TimeBased: true,
			Options: append([]fio.Option{{Key: "rate_iops", Value: "100"}}, opts...)}
	}
	for _, c := range []struct {
		name string
		job  fio.Job
		fail string
	}{
		{"below rate_iops_min", held(10, fio.Option{Key: "rate_iops_min", Value: "500"}), "job m: rate_iops_min=500 not met: the model gives each of its 4 fio jobs 100 IOPS of reads"},
		{"below ratemin", held(10, fio.Option{Key: "ratemin", Value: "1m"}), "job m: ratemin=1m not met: the model gives each of its 4 fio jobs 409600 B/s of reads"},
		{"rate_min wins over rate_iops_min", held(10, fio.Option{Key: "rate_iops_min", Value: "50"}, fio.Option{Key: "rate_min", Value: "1m"}), "rate_min=1m not met"},
		{"checked after a short rate cycle", held(3, fio.Option{Key: "rate_iops_min", Value: "500"}, fio.Option{Key: "ratecycle", Value: "500"}), "a rate cycle (500 ms)"},
		{"checked at the end of a 3 s run", held(3, fio.Option{Key: "rate_iops_min", Value: "500"}), "a rate cycle (1000 ms)"}, // fio 3.33: runtime=3, error 5
		{"per fio job, numjobs clones each", func() fio.Job {
			j := held(10, fio.Option{Key: "rate_iops_min", Value: "500"})
			j.NumJobs = 2
			return j
		}(), "each of its 8 fio jobs 100 IOPS"},
		{"above its floor", held(10, fio.Option{Key: "rate_iops_min", Value: "50"}), ""},
		{"too short to be checked", held(2, fio.Option{Key: "rate_iops_min", Value: "500"}), ""},
		{"a floor on writes only", held(10, fio.Option{Key: "rate_iops_min", Value: ",500"}), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			pl, _ := newTestPlane(t)
			_, err := pl.Run(context.Background(), ws, fio.NewWorkload(c.job), nil)
			switch {
			case c.fail == "" && err != nil:
				t.Errorf("the run failed: %v", err)
			case c.fail != "" && (err == nil || !strings.Contains(err.Error(), c.fail)):
				t.Errorf("error %v, want one saying %q", err, c.fail)
			}
		})
	}
}

// A job below its floor beside another fails the run too, checked over its
// own stretches; a run stepped through events says it is not checked.
func TestMinRateBesideOthersAndInEvents(t *testing.T) {
	ws := workers(2, 2, "r5")
	m := fio.Job{Name: "m", IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 4, RuntimeSec: 10, TimeBased: true,
		Options: []fio.Option{{Key: "rate_iops", Value: "100"}, {Key: "rate_iops_min", Value: "500"}}}
	o := m
	o.Name, o.Options = "o", nil
	pl, _ := newTestPlane(t)
	if _, err := pl.Run(context.Background(), ws, &fio.Workload{Name: "two", Jobs: []fio.Job{o, m}}, nil); err == nil || !strings.Contains(err.Error(), "job m: rate_iops_min=500 not met") {
		t.Errorf("error %v, want job m's floor not met", err)
	}
	s := pl.Scenario(ws, &m, nil)
	if _, _, err := s.Step(context.Background(), 0, 10, nil); err != nil {
		t.Fatal(err)
	}
	res, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), minRateEventsNote) {
		t.Errorf("notes %q lack that events' runs are not checked", res.Notes)
	}
}

// The installed fio ends a job below its minimum rate with error 5 and a
// failed exit, about a rate cycle after its 2 s settle, and lets a job
// above it run its whole time.
func TestMinRateAgainstFio(t *testing.T) {
	needFio(t)
	run := func(floor string) (jobError int, runtimeMs float64, exitErr error) {
		t.Helper()
		cmd := exec.Command("fio", "--output-format=json", "--name=m", "--filename="+filepath.Join(t.TempDir(), "m"), "--size=4m", "--rw=randread",
			"--bs=4k", "--ioengine=psync", "--thinktime=10ms", "--time_based", "--runtime=5", "--rate_iops_min="+floor)
		raw, exitErr := cmd.Output()
		var report struct {
			Jobs []struct {
				Error      int     `json:"error"`
				JobRuntime float64 `json:"job_runtime"`
			}
		}
		decodeFioReport(t, raw, &report)
		if len(report.Jobs) != 1 {
			t.Fatalf("fio's report (%v) has %d jobs, want 1", exitErr, len(report.Jobs))
		}
		return report.Jobs[0].Error, report.Jobs[0].JobRuntime, exitErr
	}
	var exit *exec.ExitError
	if e, ms, err := run("500"); e != 5 || !errors.As(err, &exit) || ms >= 4500 {
		t.Errorf("rate_iops_min=500 at under 100 IOPS: fio error %d, exit %v, ran %.0f ms; want error 5, a failed exit, ended before the 5 s runtime", e, err, ms)
	}
	if e, ms, err := run("20"); e != 0 || err != nil || ms < 4900 {
		t.Errorf("rate_iops_min=20 at under 100 IOPS: fio error %d, exit %v, ran %.0f ms; want it to run its 5 s", e, err, ms)
	}
}
