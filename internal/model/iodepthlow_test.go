package model

import (
	"bytes"
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"starbench/internal/fio"
)

// iodepth_low lets a job's queue drain to the mark before fio fills it
// again: about the mean of iodepth and the mark is in flight. 0, or a mark
// at or above iodepth, is iodepth; a synchronous engine keeps one I/O.
func TestIODepthLowDrainsTheQueue(t *testing.T) {
	for _, c := range []struct {
		engine, low string
		depth       int
		note        bool
	}{
		{"libaio", "4", 10, true},
		{"libaio", "1", 9, true}, // 8.5, rounded
		{"libaio", "0", 16, false},
		{"libaio", "32", 16, false},
		{"psync", "4", 1, false},
	} {
		job := fio.Job{IOEngine: c.engine, Direct: true, RW: "randread", IODepth: 16, Options: []fio.Option{{Key: "iodepth_low", Value: c.low}}}
		sh, err := readJob(&job)
		if err != nil {
			t.Fatal(err)
		}
		notes := strings.Join(sh.notes, "\n")
		if sh.depth != c.depth || strings.Contains(notes, "iodepth_low=") != c.note || strings.Contains(notes, "not modelled") {
			t.Errorf("%s iodepth=16 iodepth_low=%s: depth %d, notes %q; want %d, a note %v", c.engine, c.low, sh.depth, notes, c.depth, c.note)
		}
	}
	job := fio.Job{IOEngine: "libaio", RW: "randread", IODepth: 16, Options: []fio.Option{{Key: "iodepth_low", Value: "four"}}}
	if _, err := readJob(&job); err == nil || !strings.Contains(err.Error(), "iodepth_low=four: want a whole number") {
		t.Errorf("iodepth_low=four: %v", err)
	}
}

// The installed fio keeps about the model's number of I/Os in flight under
// iodepth_low (by Little's law, IOPS x mean latency, over its own run):
// within a quarter of it, and well below a full queue's. Skipped where the
// temporary directory cannot take direct I/O.
func TestIODepthLowAgainstFio(t *testing.T) {
	needFio(t)
	inFlight := func(low int) float64 {
		t.Helper()
		out, err := exec.Command("fio", "--output-format=json", "--name=d", "--filename="+filepath.Join(t.TempDir(), "d"), "--size=64m",
			"--rw=randread", "--bs=4k", "--ioengine=libaio", "--direct=1", "--iodepth=16", "--iodepth_low="+strconv.Itoa(low),
			"--time_based", "--runtime=1").Output()
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
		if i := bytes.IndexByte(out, '{'); i >= 0 {
			out = out[i:]
		}
		if err := json.Unmarshal(out, &report); err != nil || len(report.Jobs) != 1 {
			t.Fatalf("fio's report: %v", err)
		}
		return report.Jobs[0].Read.IOPS * report.Jobs[0].Read.LatNs.Mean / 1e9
	}
	full, drained := inFlight(16), inFlight(4)
	job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", IODepth: 16, Options: []fio.Option{{Key: "iodepth_low", Value: "4"}}}
	sh, err := readJob(&job)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(drained/float64(sh.depth)-1) > 0.25 || drained > 0.8*full {
		t.Errorf("fio keeps %.1f I/Os in flight at iodepth_low=4 (%.1f at 16); the model %d", drained, full, sh.depth)
	}
}
