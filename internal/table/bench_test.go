package table

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

var benchFrame = sync.OnceValue(func() dataframe.DataFrame {
	const n = 1_000_000
	rng := rand.New(rand.NewPCG(1, 2))
	policy := make([]string, n)
	workload := make([]string, n)
	bs := make([]int, n)
	iops := make([]float64, n)
	lat := make([]float64, n)
	worker := make([]string, n)
	for i := range n {
		policy[i] = fmt.Sprintf("raid%d", 1+rng.IntN(3)*2)
		workload[i] = []string{"randread", "randwrite", "seqread", "seqwrite", "oltp", "vdi"}[rng.IntN(6)]
		bs[i] = 4096 << rng.IntN(5)
		iops[i] = 1e5 * rng.Float64()
		lat[i] = 1e3 * rng.ExpFloat64()
		worker[i] = fmt.Sprintf("w%02d", rng.IntN(96))
	}
	return dataframe.New(
		series.New(policy, series.String, "policy"),
		series.New(workload, series.String, "workload"),
		series.New(bs, series.Int, "bs"),
		series.New(worker, series.String, "worker"),
		series.New(iops, series.Float, "iops"),
		series.New(lat, series.Float, "lat_us"),
	)
})

// BenchmarkGroupMean compares group-by + mean on 1,000,000 rows: gota's own
// GroupBy+Aggregation against this package, on the same frame.
//
//	go test ./internal/table/ -run '^$' -bench GroupMean -benchmem -benchtime 3x
func BenchmarkGroupMean(b *testing.B) {
	df := benchFrame()
	b.Run("gota", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out := df.GroupBy("policy").Aggregation([]dataframe.AggregationType{dataframe.Aggregation_MEAN}, []string{"iops"})
			if out.Err != nil || out.Nrow() != 3 {
				b.Fatal(out.Err, out.Nrow())
			}
		}
	})
	b.Run("table", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			g, err := GroupBy(context.Background(), df, "policy")
			if err != nil {
				b.Fatal(err)
			}
			out, err := g.Aggregate([]Agg{{Column: "iops", Stat: "mean"}}, Skip)
			if err != nil || out.Nrow() != 3 {
				b.Fatal(err, out.Nrow())
			}
		}
	})
}

// BenchmarkGroupMultiKey groups by three keys with a mean and a p99.
func BenchmarkGroupMultiKey(b *testing.B) {
	df := benchFrame()
	b.ReportAllocs()
	for b.Loop() {
		g, err := GroupBy(context.Background(), df, "policy", "workload", "bs")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := g.Aggregate([]Agg{{Column: "iops", Stat: "mean"}, {Column: "lat_us", Stat: "p99"}}, Skip); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSort compares sorting 1,000,000 rows on two keys with gota's Arrange.
func BenchmarkSort(b *testing.B) {
	df := benchFrame()
	b.Run("gota", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if out := df.Arrange(dataframe.Sort("policy"), dataframe.RevSort("iops")); out.Err != nil {
				b.Fatal(out.Err)
			}
		}
	})
	b.Run("table", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Sort(context.Background(), df, []SortKey{{Column: "policy"}, {Column: "iops", Desc: true}}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
