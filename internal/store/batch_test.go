package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"starbench/internal/fio"
)

// wideRun is a run of 96 workers x 8 disks x 2 directions with 150 metric
// samples, simulated or measured.
func wideRun(i int, simulated bool) Run {
	start := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
	r := Run{RunKey: RunKey{testCells[0].Label, "general", i}, Start: start, End: start.Add(time.Minute), Result: &fio.Result{Simulated: simulated}}
	for _, dir := range []string{"read", "write"} {
		r.Result.Aggregate = append(r.Result.Aggregate, fio.Row{Direction: dir, IOPS: 1e6, Simulated: simulated})
		for w := range 96 {
			for d := range 8 {
				r.Result.Rows = append(r.Result.Rows, fio.Row{Worker: fmt.Sprintf("w%02d", w), Disk: fmt.Sprintf("disk%d", d+1),
					Direction: dir, IOPS: float64(w*8 + d), LatMeanUs: float64(w*8 + d), Simulated: simulated})
			}
		}
	}
	for h := range 50 {
		for s := range 3 {
			r.Metrics = append(r.Metrics, HostMetric{Host: fmt.Sprintf("esx%02d", h), Metric: "cpu.usage.average", At: start.Add(time.Duration(s) * 20 * time.Second), Value: float64(h)})
		}
	}
	return r
}

// BenchmarkCommitWideRun commits runs of 1,538 rows (a run on 96 workers x
// 8 disks) into a measured store (synchronous=FULL) and a simulated one
// (NORMAL); compare with BenchmarkCommitRun (18 rows) in the same run.
func BenchmarkCommitWideRun(b *testing.B) {
	for _, simulated := range []bool{false, true} {
		b.Run(kind(simulated), func(b *testing.B) {
			s := benchStore(b, simulated)
			ctx := context.Background()
			for i := 0; b.Loop(); i++ {
				if err := s.CommitRun(ctx, wideRun(i, simulated)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCommitRunOfManyRows: a run of 768 disks x 2 directions (several full
// batches and a partial one) and 150 metric samples reads back whole, in
// order, NaN as missing.
func TestCommitRunOfManyRows(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t, Options{Simulated: true})
	if err := s.SaveCells(ctx, testCells); err != nil {
		t.Fatal(err)
	}
	r := wideRun(1, true)
	r.Result.Rows[767].LatMeanUs, r.Result.Rows[1535].LatMeanUs = math.NaN(), math.NaN()
	if err := s.CommitRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	rows, err := s.Frame(ctx, "rows")
	if err != nil {
		t.Fatal(err)
	}
	if rows.Nrow() != 1536 {
		t.Fatalf("%d rows read back, want 1536", rows.Nrow())
	}
	iops, lat, worker := rows.Col("iops").Float(), rows.Col("lat_mean_us").Float(), rows.Col("worker").Records()
	for i := range rows.Nrow() { // ordered by worker, disk, direction
		want := float64(i / 2)
		if iops[i] != want || worker[i] != fmt.Sprintf("w%02d", i/16) {
			t.Fatalf("row %d: worker %s, iops %v; want w%02d, %v", i, worker[i], iops[i], i/16, want)
		}
		if i/2 == 767 != math.IsNaN(lat[i]) {
			t.Errorf("row %d: latency %v", i, lat[i])
		}
	}
	if res, err := s.Frame(ctx, "results"); err != nil || res.Nrow() != 2 {
		t.Errorf("results: %v rows, %v; want the 2 aggregate rows", res.Nrow(), err)
	}
	if m, err := s.Frame(ctx, "metrics"); err != nil || m.Nrow() != 150 {
		t.Errorf("metrics: %v rows, %v; want 150", m.Nrow(), err)
	}
}

// TestCommitChecksForeignKeysAgainAfterwards: a run is written without
// foreign-key checks (on the commits connection), while the store's own
// connection keeps them; a run that replaces a failed one is written with
// them, so the failed run's rows go with it (the cascade) and none is left
// pointing at nothing.
func TestCommitChecksForeignKeysAgainAfterwards(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t, Options{Simulated: true})
	if err := s.SaveCells(ctx, testCells); err != nil {
		t.Fatal(err)
	}
	failed := Run{RunKey: RunKey{testCells[0].Label, "general", 1}, Start: time.Now(), End: time.Now(), Err: errors.New("worker w2 died"),
		Metrics: []HostMetric{{Host: "esx01", Metric: "cpu.usage.average", At: time.Now(), Value: 40}}}
	if err := s.CommitRun(ctx, failed); err != nil {
		t.Fatal(err)
	}
	var on int
	if err := s.db.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&on); err != nil || on != 1 {
		t.Fatalf("foreign_keys %d (%v) after a commit, want 1", on, err)
	}
	if err := s.CommitRun(ctx, wideRun(1, true)); err != nil {
		t.Fatal(err)
	}
	var orphans, metrics int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM host_metrics WHERE run_id NOT IN (SELECT id FROM runs)`).Scan(&orphans); err != nil {
		t.Fatal(err)
	}
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM host_metrics`).Scan(&metrics); err != nil {
		t.Fatal(err)
	}
	if orphans != 0 || metrics != 150 {
		t.Errorf("%d host metrics left of the failed run, %d in all; want 0 and the new run's 150", orphans, metrics)
	}
	if err := s.db.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&on); err != nil || on != 1 {
		t.Fatalf("foreign_keys %d (%v) after replacing a failed run, want 1", on, err)
	}
}
