package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"starbench/internal/fio"
)

// fullRun is a run of 8 workers x 2 directions with 16 host metric samples.
func fullRun(i int) Run {
	start := time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
	r := Run{RunKey: RunKey{testCells[0].Label, "4k", i}, Start: start, End: start.Add(time.Minute),
		Result: &fio.Result{Simulated: true}}
	for _, dir := range []string{"read", "write"} {
		r.Result.Aggregate = append(r.Result.Aggregate, fio.Row{Direction: dir, IOPS: 1e5, Simulated: true})
		for w := range 8 {
			r.Result.Rows = append(r.Result.Rows, fio.Row{Worker: fmt.Sprintf("w%d", w), Disk: "disk1", Direction: dir, IOPS: 1e4, Simulated: true})
		}
	}
	for h := range 4 {
		for s := range 4 {
			r.Metrics = append(r.Metrics, HostMetric{Host: fmt.Sprintf("esx%d", h), Metric: "cpu.usage.average", At: start.Add(time.Duration(s) * 20 * time.Second), Value: 40})
		}
	}
	return r
}

// benchStore is a store of simulated results, or of measured ones.
func benchStore(b *testing.B, simulated bool) *Store {
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "b.db"), "b", Options{Simulated: simulated})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if err := s.SaveCells(context.Background(), testCells); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkCommitMinimalTx is the baseline: the cheapest durable write, one
// small row in its own transaction, in a measured store (WAL,
// synchronous=FULL) and a simulated one (synchronous=NORMAL).
func BenchmarkCommitMinimalTx(b *testing.B) {
	for _, simulated := range []bool{false, true} {
		b.Run(kind(simulated), func(b *testing.B) {
			s := benchStore(b, simulated)
			ctx := context.Background()
			for i := 0; b.Loop(); i++ {
				if err := s.SaveOriginal(ctx, fmt.Sprint(i), "level:0"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCommitRun commits whole runs: 1 run, 18 rows, 16 metric samples each.
func BenchmarkCommitRun(b *testing.B) {
	s := benchStore(b, true)
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		if err := s.CommitRun(ctx, fullRun(i)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFrameResults reads the results frame of a 1,000-run store.
func BenchmarkFrameResults(b *testing.B) {
	s := benchStore(b, true)
	ctx := context.Background()
	for i := range 1000 {
		if err := s.CommitRun(ctx, fullRun(i)); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if f, err := s.Frame(ctx, "results"); err != nil || f.Nrow() != 2000 {
			b.Fatal(err, f.Nrow())
		}
	}
}
