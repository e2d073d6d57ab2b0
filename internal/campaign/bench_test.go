package campaign

import (
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"starbench/internal/fio"
	"starbench/internal/progress"
	"starbench/internal/store"
)

func oneCellSpec(repeat int) *Spec {
	return &Spec{Name: "bench", Repeat: repeat,
		Factors:   []Factor{{Name: "compression", Levels: []string{"False"}}},
		Workloads: []Workload{{Name: "4k"}}}
}

// BenchmarkStoreCommitBaseline is the baseline of BenchmarkEnginePerRun:
// committing the same run straight to the store.
func BenchmarkStoreCommitBaseline(b *testing.B) {
	ctx := context.Background()
	s := oneCellSpec(1)
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "b.db"), "bench", store.Options{Simulated: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if err := st.SaveCells(ctx, []store.Cell{s.StoreCell(Cell{Levels: []int{0}}, 0)}); err != nil {
		b.Fatal(err)
	}
	label := s.Label(Cell{Levels: []int{0}})
	for i := 0; b.Loop(); i++ {
		now := time.Now()
		r := store.Run{RunKey: store.RunKey{Cell: label, Workload: "4k", Repeat: i}, Start: now, End: now,
			Result:  &fio.Result{Simulated: true, Aggregate: []fio.Row{{Direction: "read", IOPS: 100, Simulated: true}}},
			Metrics: []store.HostMetric{{Host: "esx1", Metric: "cpu", At: now, Value: 1}}}
		if err := st.CommitRun(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEnginePerRun is the engine's cost per run with instant actions:
// progress events, the run's commit, metrics, and the final stats.
func BenchmarkEnginePerRun(b *testing.B) {
	ctx := context.Background()
	s := oneCellSpec(b.N)
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "b.db"), "bench", store.Options{Simulated: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	plan, err := PlanFrom(ctx, s, st, false)
	if err != nil {
		b.Fatal(err)
	}
	e := &Engine{Spec: s, Store: st, Actions: newCluster(s), Progress: progress.New(io.Discard, false)}
	b.ResetTimer()
	sum, err := e.Execute(ctx, plan)
	if err != nil || sum.Ran != b.N {
		b.Fatalf("%+v %v", sum, err)
	}
}

// BenchmarkOrder729Cells orders a 3^6 matrix.
func BenchmarkOrder729Cells(b *testing.B) {
	s := &Spec{}
	for i := range 6 {
		s.Factors = append(s.Factors, Factor{Name: string(rune('a' + i)), Levels: []string{"0", "1", "2"}, Cost: float64(i)})
	}
	for b.Loop() {
		if len(Order(s)) != 729 {
			b.Fatal("wrong cell count")
		}
	}
}
