package fio

import (
	"math"
	"testing"
)

// TestResultStatus: a finished run's status sums the directions of the
// workload's rows (never the total row, nor a job's own rows) and weighs
// their latencies by IOPS; with no I/O it has no latency.
func TestResultStatus(t *testing.T) {
	r := &Result{Aggregate: []Row{
		{Direction: "read", IOPS: 100, MBps: 0.4, LatMeanUs: 200},
		{Direction: "write", IOPS: 300, MBps: 1.2, LatMeanUs: 100},
		{Direction: TotalDirection, IOPS: 400, MBps: 1.6, LatMeanUs: 125},
		{Job: "a", Direction: "read", IOPS: 100, MBps: 0.4, LatMeanUs: 200},
	}}
	st := r.Status(7, 10)
	if st.Elapsed != 7 || st.Total != 10 || st.IOPS != 400 || !(math.Abs(st.MBps-1.6) <= 1e-12) || !(math.Abs(st.LatMeanUs-125) <= 1e-12) {
		t.Errorf("status %+v: want 7 of 10 s, 400 IOPS, 1.6 MB/s at (100 x 200 + 300 x 100) / 400 = 125 us", st)
	}
	if st := (&Result{}).Status(1, 1); st.IOPS != 0 || !math.IsNaN(st.LatMeanUs) {
		t.Errorf("status of no I/O %+v: want 0 IOPS and no latency", st)
	}
}
