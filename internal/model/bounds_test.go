package model

import (
	"testing"

	"starbench/internal/fio"
)

// TestSummaryOfCountsTheWorkloadRows: a result's summary sums the rows of
// the whole workload per direction, not those of single jobs (which the
// whole's already hold) nor the total rows; a one-job workload's rows name
// no job.
func TestSummaryOfCountsTheWorkloadRows(t *testing.T) {
	twoJobs := &fio.Result{Aggregate: []fio.Row{
		{Job: "a", Direction: "read", IOPS: 100, MBps: 1},
		{Job: "b", Direction: "write", IOPS: 200, MBps: 2},
		{Direction: "read", IOPS: 100, MBps: 1},
		{Direction: "write", IOPS: 200, MBps: 2},
		{Direction: fio.TotalDirection, IOPS: 300, MBps: 3},
	}}
	oneJob := &fio.Result{Aggregate: []fio.Row{
		{Direction: "read", IOPS: 100, MBps: 1},
		{Direction: "write", IOPS: 200, MBps: 2},
		{Direction: fio.TotalDirection, IOPS: 300, MBps: 3},
	}}
	want := Summary{ReadIOPS: 100, ReadMBps: 1, WriteIOPS: 200, WriteMBps: 2}
	for name, res := range map[string]*fio.Result{"two jobs": twoJobs, "one job": oneJob} {
		if got := SummaryOf(res); got != want {
			t.Errorf("%s: summary %+v, want %+v", name, got, want)
		}
	}
}

// TestBoundsWithoutMemoryFigures: a profile that gives no memory channels
// has no memory bound, rather than one of 0 MB/s.
func TestBoundsWithoutMemoryFigures(t *testing.T) {
	p := *mustLoad(t, "storagereview-r6625-esa")
	p.MemoryChannels = 0
	if w := CheckBounds(&p, Summary{ReadMBps: 1, WriteMBps: 1}); len(w) > 0 {
		t.Errorf("2 MB/s with no memory figures: warnings %q, want none", w)
	}
}
