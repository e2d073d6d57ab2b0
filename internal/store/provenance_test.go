package store

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// A session's provenance comes back whole: every --set value and ESXi
// version, not only the first.
func TestSessionProvenanceRoundTrips(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t, Options{Simulated: true})
	want := Provenance{Script: "wwt.star", Target: "embedded", Testbed: "wwt-r640-osa", ModelVersion: "starbench-model/2",
		Sets: map[string]string{"repeat": "3", "duration": "60", "testbed": "wwt-r640-osa"}, ESXiVersions: []string{"8.0.2", "8.0.3"}}
	if _, err := s.BeginSession(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Sessions(ctx)
	if err != nil || len(got) != 1 {
		t.Fatalf("sessions %v (%v)", got, err)
	}
	g := got[0]
	if len(g.Sets) != 3 || g.Sets["duration"] != "60" || g.Sets["testbed"] != "wwt-r640-osa" {
		t.Errorf("sets %v, want all three", g.Sets)
	}
	if !slices.Equal(g.ESXiVersions, want.ESXiVersions) || g.Testbed != want.Testbed || g.ModelVersion != want.ModelVersion {
		t.Errorf("session %+v", g)
	}
	s2, _ := openTemp(t, Options{Simulated: true})
	if _, err := s2.BeginSession(ctx, Provenance{Script: "x.star"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s2.Sessions(ctx); got[0].ESXiVersions != nil {
		t.Errorf("no ESXi versions read back as %q", got[0].ESXiVersions)
	}
}

// --fresh starts over: no runs, cells or sessions of before are left.
func TestFreshForgetsEverything(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t, Options{Simulated: true})
	if err := s.SaveCells(ctx, testCells); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BeginSession(ctx, Provenance{Script: "wwt.star"}); err != nil {
		t.Fatal(err)
	}
	if err := s.CommitRun(ctx, okRun(testCells[0].Label, "4k", 1, 1000, true)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err := Open(ctx, path, "wwt", Options{Simulated: true, Fresh: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	done, _ := s.Done(ctx)
	cells, _ := s.Cells(ctx)
	sessions, _ := s.Sessions(ctx)
	if len(done) != 0 || len(cells) != 0 || len(sessions) != 0 {
		t.Errorf("after --fresh: %d runs, %d cells, %d sessions; want none", len(done), len(cells), len(sessions))
	}
}

// The CSV export writes numbers exactly, as the store holds them.
func TestCSVNumbersAreExact(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t, Options{Simulated: true})
	if err := s.SaveCells(ctx, testCells); err != nil {
		t.Fatal(err)
	}
	r := okRun(testCells[0].Label, "4k", 1, 1234.5678, true)
	if err := s.CommitRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := s.WriteCSV(ctx, "results_wide", &b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), ",1234.5678,") || !strings.Contains(b.String(), ",900,") {
		t.Errorf("results_wide.csv:\n%s\nwant iops 1234.5678 and p99 900 exactly", b.String())
	}
}
