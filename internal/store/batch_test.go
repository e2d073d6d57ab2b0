package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
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

// TestBatchesSeenBeforeStoreWhatBindingStores: a run's batches are bound
// value by value the first time their names come, and written with those
// names as literals the times after; either way every value is stored the
// same, type for type (quote() tells an integer from a text and NULL from
// either), including names with quotes and NaN as NULL. A name with a NUL
// byte, which no literal holds, is bound every time and stored whole.
func TestBatchesSeenBeforeStoreWhatBindingStores(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t, Options{Simulated: true})
	if err := s.SaveCells(ctx, testCells); err != nil {
		t.Fatal(err)
	}
	run := func(i int, worker string) Run {
		start := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
		r := Run{RunKey: RunKey{testCells[0].Label, "mixed", i}, Start: start, End: start.Add(time.Minute), Result: &fio.Result{Simulated: true}}
		for _, dir := range []string{"read", "write"} {
			r.Result.Aggregate = append(r.Result.Aggregate, fio.Row{Direction: dir, IOPS: 2e5, MBps: 800.5, LatMeanUs: 150.25,
				P50Us: math.NaN(), P95Us: 300, P99Us: 450, P999Us: 900, Simulated: true})
			for w, name := range []string{worker, "w2", ""} {
				r.Result.Rows = append(r.Result.Rows, fio.Row{Job: "j'1", Worker: name, Disk: "disk1+disk2", Direction: dir,
					IOPS: float64(1000 + w), MBps: math.NaN(), LatMeanUs: 99.5, P50Us: 1, P95Us: 2, P99Us: 3, P999Us: 4, Errors: w, Simulated: true})
			}
			r.Result.Samples = append(r.Result.Samples, fio.Sample{Job: "", Direction: dir, TS: 1, IOPS: 10, MBps: math.NaN(), LatMeanUs: 5, P99Us: 7})
		}
		r.Metrics = []HostMetric{{Host: "esx'01", Metric: "cpu.usage.average", At: start, Value: 40.5}, {Host: "esx02", Metric: "mem.usage.average", At: start, Value: 12}}
		return r
	}
	// stored is what a run stored, typed: its rows, samples and host metrics
	// (the instant of a metric is the run's own, left out).
	stored := func(repeat int) []string {
		var runID int64
		if err := s.db.QueryRowContext(ctx, `SELECT id FROM runs WHERE workload = 'mixed' AND repeat = ?`, repeat).Scan(&runID); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, q := range []string{
			`SELECT quote(aggregate), quote(job), quote(worker), quote(disk), quote(direction), quote(iops), quote(mbps), quote(lat_mean_us),
				quote(p50_us), quote(p95_us), quote(p99_us), quote(p999_us), quote(errors), quote(simulated) FROM rows WHERE run_id = ? ORDER BY rowid`,
			`SELECT quote(job), quote(direction), quote(t_s), quote(iops), quote(mbps), quote(lat_mean_us), quote(p99_us), '', '', '', '', '', '', '' FROM samples WHERE run_id = ? ORDER BY rowid`,
			`SELECT quote(host), quote(metric), quote(value), '', '', '', '', '', '', '', '', '', '', '' FROM host_metrics WHERE run_id = ? ORDER BY rowid`,
		} {
			rows, err := s.db.QueryContext(ctx, q, runID)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var v [14]string
				if err := rows.Scan(&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &v[12], &v[13]); err != nil {
					t.Fatal(err)
				}
				out = append(out, fmt.Sprint(v))
			}
			rows.Close()
		}
		return out
	}
	for i := 1; i <= 3; i++ {
		if err := s.CommitRun(ctx, run(i, "w'1")); err != nil {
			t.Fatal(err)
		}
	}
	shaped := 0
	for _, cs := range s.batches.conns {
		shaped += len(cs.shaped)
	}
	if shaped != 4 { // the aggregate rows, the workers' rows, the samples, the host metrics
		t.Errorf("%d statements with literals after three runs of the same names, want 4", shaped)
	}
	first := stored(1)
	if len(first) != 2+6+2+2 {
		t.Fatalf("run 1 stored %d rows, samples and metrics, want 12:\n%s", len(first), strings.Join(first, "\n"))
	}
	for _, want := range []string{"[1 '' '' '' 'read' 200000.0 800.5 150.25 NULL 300.0 450.0 900.0 0 1]",
		"[0 'j''1' 'w''1' 'disk1+disk2' 'read' 1000.0 NULL 99.5 1.0 2.0 3.0 4.0 0 1]",
		"[0 'j''1' '' 'disk1+disk2' 'write' 1002.0 NULL 99.5 1.0 2.0 3.0 4.0 2 1]",
		"['' 'read' 1.0 10.0 NULL 5.0 7.0       ]", "['esx''01' 'cpu.usage.average' 40.5           ]"} {
		if !slices.Contains(first, want) {
			t.Errorf("run 1 stored no %s in\n%s", want, strings.Join(first, "\n"))
		}
	}
	for i := 2; i <= 3; i++ {
		if got := stored(i); !slices.Equal(got, first) {
			t.Errorf("run %d stored\n%s\nwhere run 1 stored\n%s", i, strings.Join(got, "\n"), strings.Join(first, "\n"))
		}
	}
	for i := 4; i <= 5; i++ {
		if err := s.CommitRun(ctx, run(i, "w\x001")); err != nil {
			t.Fatal(err)
		}
		var worker string
		if err := s.db.QueryRowContext(ctx, `SELECT w.worker FROM rows w JOIN runs r ON r.id = w.run_id WHERE r.repeat = ? AND w.iops = 1000 AND w.direction = 'read'`, i).Scan(&worker); err != nil || worker != "w\x001" {
			t.Errorf("run %d: worker %q (%v), want %q", i, worker, err, "w\x001")
		}
	}
}
