package store

import (
	"context"
	"testing"

	"starbench/internal/fio"
)

func TestEventsAreStoredWithTheirRunAndReadAsAFrame(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t, Options{Simulated: true})
	if err := s.SaveCells(ctx, testCells); err != nil {
		t.Fatal(err)
	}
	r := okRun(testCells[0].Label, "node-failure", 1, 1000, true)
	r.Result.Events = []fio.Event{
		{AtS: 300, Kind: "host_failure", Target: "esx-04", Detail: "isolate"},
		{AtS: 1500, Kind: "host_return", Target: "esx-04"},
	}
	if err := s.CommitRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	df, err := s.Frame(ctx, "events")
	if err != nil {
		t.Fatal(err)
	}
	if df.Nrow() != 2 {
		t.Fatalf("events frame has %d rows, want 2:\n%v", df.Nrow(), df)
	}
	for _, col := range []string{"run_id", "cell", "policy", "compression", "workload", "repeat", "at_s", "kind", "target", "detail", "simulated"} {
		if df.Col(col).Err != nil {
			t.Errorf("events frame has no column %s: %v", col, df.Names())
		}
	}
	if k := df.Col("kind").Records(); k[0] != "host_failure" || k[1] != "host_return" {
		t.Errorf("kinds %v", k)
	}
	if at := df.Col("at_s").Float(); at[0] != 300 || at[1] != 1500 {
		t.Errorf("at_s %v", at)
	}
	if d := df.Col("detail").Records(); d[0] != "isolate" {
		t.Errorf("detail %v", d)
	}
	// A run that is deleted takes its events with it.
	if _, err := s.db.ExecContext(ctx, `DELETE FROM runs`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM events`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d events left after their run was deleted (%v)", n, err)
	}
}
