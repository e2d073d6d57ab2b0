package report

import (
	"slices"
	"testing"
)

// RunSummary counts each note once per run that had it, orders the notes
// most frequent first, keeps the bottlenecks in the order of their runs and
// lists the failed runs apart.
func TestRunSummaryGathersTheRunsAsTheyCome(t *testing.T) {
	var s RunSummary
	for _, r := range []Run{
		{Cell: "a", Workload: "4k", Repeat: 1, Status: "ok", Notes: []string{"simulated by m on t", "bottleneck: cpu", "rare"}},
		{Cell: "a", Workload: "4k", Repeat: 2, Status: "ok", Notes: []string{"simulated by m on t", "bottleneck: nic", "common"}},
		{Cell: "b", Workload: "1m", Repeat: 1, Status: "ok", Notes: []string{"bottleneck: cpu", "common"}},
		{Cell: "b", Workload: "1m", Repeat: 2, Status: "failed", Error: "boom", Notes: []string{"common"}},
		{Cell: "c", Workload: "1m", Repeat: 3, Status: "ok", Notes: []string{"common"}},
	} {
		s.add(r, map[string]string{"cell": r.Cell})
	}
	s.finish()
	if s.OK != 4 || s.Failed != 1 || s.Repeats != 3 || len(s.FailedRuns) != 1 || s.FailedRuns[0].Error != "boom" {
		t.Errorf("ok %d failed %d repeats %d failed runs %v; want 4, 1, 3 and the one that failed", s.OK, s.Failed, s.Repeats, s.FailedRuns)
	}
	if !slices.Equal(s.DataPlane, []string{"simulated by m on t"}) {
		t.Errorf("data plane %q; want the one line once", s.DataPlane)
	}
	if len(s.Bottleneck) != 2 || s.Bottleneck[0].Cell != "a" || !slices.Equal(s.Bottleneck[0].Notes, []string{"cpu", "nic"}) ||
		s.Bottleneck[1].Cell != "b" || s.Bottleneck[1].Levels["cell"] != "b" {
		t.Errorf("bottlenecks %+v; want a (cpu, nic) then b", s.Bottleneck)
	}
	if len(s.Warnings) != 2 || s.Warnings[0].Text != "common" || s.Warnings[0].Count != 3 ||
		!slices.Equal(s.Warnings[0].Runs, []string{"a / 4k #2", "b / 1m #1", "c / 1m #3"}) || s.Warnings[1].Count != 1 {
		t.Errorf("warnings %+v; want common x3 (ok runs only) before rare x1", s.Warnings)
	}
}
