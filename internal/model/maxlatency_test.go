package model

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"starbench/internal/fio"
)

// max_latency ends a job at its first I/O slower than the limit, failing
// the run: where the model's p99.9 passes it, the run fails; where the
// p99.9 stays within it, the run says the maximum is not known; a limit on
// the other direction changes nothing; events' runs say they are not
// checked.
func TestMaxLatencyFailsTheRunAsFioDoes(t *testing.T) {
	ws := workers(2, 2, "r5")
	job := fio.Job{Name: "m", IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16, RuntimeSec: 10, TimeBased: true}
	pl, _ := newTestPlane(t)
	res, err := pl.Run(context.Background(), ws, fio.NewWorkload(job), nil)
	if err != nil {
		t.Fatal(err)
	}
	p999 := res.Aggregate[len(res.Aggregate)-1].P999Us
	if !(p999 > 0) {
		t.Fatalf("no p99.9 to compare with: %+v", res.Aggregate)
	}
	for _, c := range []struct {
		limit string
		fail  string
		note  string
	}{
		{fmt.Sprintf("%.0fus", p999/2), "job m: max_latency=" + fmt.Sprintf("%.0fus", p999/2) + " passed: the model's p99.9 read latency", ""},
		{fmt.Sprintf("%.0fus", 2*p999), "", "the model's p99.9 stays within it"},
		{fmt.Sprintf(",%.0fus", p999/2), "", ""},
	} {
		j := job
		j.Options = []fio.Option{{Key: "max_latency", Value: c.limit}}
		pl, _ := newTestPlane(t)
		res, err := pl.Run(context.Background(), ws, fio.NewWorkload(j), nil)
		switch {
		case c.fail != "":
			if err == nil || !strings.Contains(err.Error(), c.fail) {
				t.Errorf("max_latency=%s (p99.9 %.0f us): %v, want the run failed saying %q", c.limit, p999, err, c.fail)
			}
		case err != nil:
			t.Errorf("max_latency=%s (p99.9 %.0f us): %v, want the run to pass", c.limit, p999, err)
		default:
			notes := strings.Join(res.Notes, "\n")
			if (c.note == "") != !strings.Contains(notes, "max_latency") || !strings.Contains(notes, c.note) {
				t.Errorf("max_latency=%s: notes %q, want %q", c.limit, notes, c.note)
			}
		}
	}
	job.Options = []fio.Option{{Key: "max_latency", Value: "1us"}}
	s := pl.Scenario(ws, &job, nil)
	if _, _, err := s.Step(context.Background(), 0, 10, nil); err != nil {
		t.Fatal(err)
	}
	res, err = s.Result()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), maxLatencyEventsNote) {
		t.Errorf("notes %q lack that events' runs are not checked", res.Notes)
	}
	for _, bad := range []string{"soon", "0"} {
		j := fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", Options: []fio.Option{{Key: "max_latency", Value: bad}}}
		if _, err := readJob(&j); err == nil || !strings.Contains(err.Error(), "max_latency="+bad+": want a time above 0") {
			t.Errorf("max_latency=%s: %v, want it refused", bad, err)
		}
	}
}
