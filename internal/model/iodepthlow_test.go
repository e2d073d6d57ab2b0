package model

import (
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"starbench/internal/fio"
)

// iodepth_low and iodepth_batch_complete_min let a job's queue drain
// before fio fills it again: the queue steps down from iodepth to where
// the reaping stops, so (iodepth + stop + 1) / 2 are in flight, rounded.
// 0, or a mark at or above iodepth, is iodepth; a synchronous engine keeps
// one I/O.
func TestDrainedQueues(t *testing.T) {
	for _, c := range []struct {
		engine  string
		options []fio.Option
		depth   int
		note    string
	}{
		{"libaio", []fio.Option{{Key: "iodepth_low", Value: "4"}}, 11, "drain to 4 before filling it again (reaping 1 at a time), so about 10.5"}, // 10.5, rounded
		{"libaio", []fio.Option{{Key: "iodepth_low", Value: "1"}}, 9, "so about 9.0"},
		{"libaio", []fio.Option{{Key: "iodepth_low", Value: "0"}}, 16, ""},
		{"libaio", []fio.Option{{Key: "iodepth_low", Value: "32"}}, 16, ""},
		{"libaio", []fio.Option{{Key: "iodepth_low", Value: "15"}}, 16, ""}, // one reap of one
		{"psync", []fio.Option{{Key: "iodepth_low", Value: "4"}}, 1, ""},
		{"libaio", []fio.Option{{Key: "iodepth_batch_complete_min", Value: "8"}}, 13, "drain to 8 before filling it again (reaping 8 at a time), so about 12.5"},
		{"libaio", []fio.Option{{Key: "iodepth_batch_complete", Value: "32"}}, 9, "drain to 0 before filling it again (reaping 16 at a time), so about 8.5"}, // fio's alias; at most iodepth
		{"libaio", []fio.Option{{Key: "iodepth_batch_complete_min", Value: "1"}}, 16, ""},
		{"libaio", []fio.Option{{Key: "iodepth_low", Value: "8"}, {Key: "iodepth_batch_complete_min", Value: "3"}}, 12, "drain to 7 before filling it again (reaping 3 at a time), so about 12.0"}, // reaps of 3 overshoot the mark
		{"psync", []fio.Option{{Key: "iodepth_batch_complete_min", Value: "8"}}, 1, ""},
	} {
		job := fio.Job{IOEngine: c.engine, Direct: true, RW: "randread", IODepth: 16, Options: c.options}
		sh, err := readJob(&job)
		if err != nil {
			t.Fatal(err)
		}
		notes := strings.Join(sh.notes, "\n")
		if sh.depth != c.depth || (c.note == "") != !strings.Contains(notes, "drain to") || !strings.Contains(notes, c.note) || strings.Contains(notes, "not modelled") {
			t.Errorf("%s iodepth=16 %v: depth %d, notes %q; want %d, a note saying %q", c.engine, c.options, sh.depth, notes, c.depth, c.note)
		}
	}
	// iodepth_batch (submission) changed nothing measured (15.95 in flight
	// at iodepth=16): quiet.
	notesSay(t, fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", IODepth: 16, Options: []fio.Option{{Key: "iodepth_batch_submit", Value: "8"}}}, "")
	for _, k := range []string{"iodepth_low", "iodepth_batch_complete_min"} {
		job := fio.Job{IOEngine: "libaio", RW: "randread", IODepth: 16, Options: []fio.Option{{Key: k, Value: "four"}}}
		if _, err := readJob(&job); err == nil || !strings.Contains(err.Error(), k+"=four: want a whole number") {
			t.Errorf("%s=four: %v", k, err)
		}
	}
}

// The installed fio keeps about the model's number of I/Os in flight on a
// drained queue (by Little's law, IOPS x mean latency, over its own run):
// within a sixth of it, and at least 1.5 below a full queue's. Skipped where the
// temporary directory cannot take direct I/O.
func TestDrainedQueuesAgainstFio(t *testing.T) {
	needFio(t)
	inFlight := func(args ...string) float64 {
		t.Helper()
		out, err := exec.Command("fio", append([]string{"--output-format=json", "--name=d", "--filename=" + filepath.Join(t.TempDir(), "d"), "--size=64m",
			"--rw=randread", "--bs=4k", "--ioengine=libaio", "--direct=1", "--iodepth=16", "--time_based", "--runtime=1"}, args...)...).Output()
		if err != nil {
			t.Skipf("fio with direct I/O on %s: %v", t.TempDir(), err)
		}
		var report struct {
			Jobs []struct {
				Read struct {
					IOPS  float64 `json:"iops"`
					LatNs struct {
						Mean float64 `json:"mean"`
					} `json:"lat_ns"`
				}
			}
		}
		decodeFioReport(t, out, &report)
		if len(report.Jobs) != 1 {
			t.Fatalf("fio's report has %d jobs, want 1", len(report.Jobs))
		}
		return report.Jobs[0].Read.IOPS * report.Jobs[0].Read.LatNs.Mean / 1e9
	}
	full := inFlight()
	for _, c := range [][]fio.Option{
		{{Key: "iodepth_low", Value: "4"}},
		{{Key: "iodepth_batch_complete_min", Value: "8"}},
		{{Key: "iodepth_low", Value: "8"}, {Key: "iodepth_batch_complete_min", Value: "3"}},
	} {
		var args []string
		for _, o := range c {
			args = append(args, "--"+o.Key+"="+o.Value)
		}
		drained := inFlight(args...)
		job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", IODepth: 16, Options: c}
		sh, err := readJob(&job)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(drained/float64(sh.depth)-1) > 1.0/6 || drained > full-1.5 {
			t.Errorf("fio keeps %.1f I/Os in flight at %v (%.1f with a full queue); the model %d", drained, args, full, sh.depth)
		} else {
			t.Logf("fio keeps %.2f I/Os in flight at %v (%.2f with a full queue); the model %d", drained, args, full, sh.depth)
		}
	}
}
