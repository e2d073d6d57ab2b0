package campaign

import (
	"context"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
	"gonum.org/v1/gonum/stat"

	"starbench/internal/store"
)

// Stat summarises the repeats of one workload in one cell, per direction.
type Stat struct {
	Cell, Workload, Direction string
	N                         int
	MeanIOPS, StdIOPS, CV     float64 // sample standard deviation; CV = std / mean
	MeanMBps, StdMBps         float64
	// MeanLatUs is the mean of fio's lat (submission to completion), µs.
	MeanLatUs, MeanP95Us, MeanP99Us float64
	// Flagged is set when CV exceeds the campaign's threshold.
	Flagged bool
	// Simulated says the repeats are model results, not measurements.
	Simulated bool
}

// ReadStats summarises the repeats stored in st per cell, workload and
// direction (cells in the order st.Cells gives them), flagging variation
// above threshold (0 = never). It reads one cell and workload at a time
// (store.EachBlock): what it holds is one block of runs and the results.
func ReadStats(ctx context.Context, st *store.Store, threshold float64) ([]Stat, error) {
	var out []Stat
	err := st.EachBlock(ctx, false, func(b store.Block) error {
		out = append(out, Stats(b.Aggregates, threshold)...)
		return nil
	})
	return out, err
}

// Stats summarises aggs (in store order) per cell, workload and direction,
// flagging variation above threshold (0 = never).
func Stats(aggs []store.Aggregate, threshold float64) []Stat {
	type key struct{ cell, workload, direction string }
	var order []key
	groups := map[key][]store.Aggregate{}
	for _, a := range aggs {
		k := key{a.Cell, a.Workload, a.Direction}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], a)
	}
	out := make([]Stat, 0, len(order))
	for _, k := range order {
		g := groups[k]
		iops := make([]float64, len(g))
		mbps := make([]float64, len(g))
		lat := make([]float64, len(g))
		p95 := make([]float64, len(g))
		p99 := make([]float64, len(g))
		for i, a := range g {
			iops[i], mbps[i], lat[i], p95[i], p99[i] = a.IOPS, a.MBps, a.LatMeanUs, a.P95Us, a.P99Us
		}
		st := Stat{Cell: k.cell, Workload: k.workload, Direction: k.direction, N: len(g), Simulated: g[0].Simulated}
		st.MeanIOPS, st.StdIOPS = meanStd(iops)
		st.MeanMBps, st.StdMBps = meanStd(mbps)
		st.MeanLatUs = stat.Mean(lat, nil)
		st.MeanP95Us = stat.Mean(p95, nil)
		st.MeanP99Us = stat.Mean(p99, nil)
		if st.MeanIOPS > 0 {
			st.CV = st.StdIOPS / st.MeanIOPS
		}
		st.Flagged = threshold > 0 && st.N > 1 && st.CV > threshold
		out = append(out, st)
	}
	return out
}

// meanStd returns the mean and the sample standard deviation (0 for one value).
func meanStd(xs []float64) (mean, std float64) {
	if len(xs) < 2 {
		return stat.Mean(xs, nil), 0
	}
	return stat.MeanStdDev(xs, nil)
}

// StatsFrame returns stats as a frame, one row per cell, workload and
// direction, with the factor columns (one value per stat, as
// store.FactorColumns gives them) after cell.
func StatsFrame(stats []Stat, factors []series.Series) dataframe.DataFrame {
	n := len(stats)
	cell, workload, direction := make([]string, n), make([]string, n), make([]string, n)
	count := make([]int, n)
	mean, std, cv, mbps, mbpsStd := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	lat, p95, p99 := make([]float64, n), make([]float64, n), make([]float64, n)
	flagged, simulated := make([]bool, n), make([]bool, n)
	for i, s := range stats {
		cell[i], workload[i], direction[i], count[i] = s.Cell, s.Workload, s.Direction, s.N
		mean[i], std[i], cv[i], mbps[i], mbpsStd[i] = s.MeanIOPS, s.StdIOPS, s.CV, s.MeanMBps, s.StdMBps
		lat[i], p95[i], p99[i] = s.MeanLatUs, s.MeanP95Us, s.MeanP99Us
		flagged[i], simulated[i] = s.Flagged, s.Simulated
	}
	return dataframe.New(append(append([]series.Series{series.New(cell, series.String, "cell")}, factors...),
		series.New(workload, series.String, "workload"),
		series.New(direction, series.String, "direction"),
		series.New(count, series.Int, "n"),
		series.New(mean, series.Float, "iops_mean"),
		series.New(std, series.Float, "iops_std"),
		series.New(cv, series.Float, "iops_cv"),
		series.New(mbps, series.Float, "mbps_mean"),
		series.New(mbpsStd, series.Float, "mbps_std"),
		series.New(lat, series.Float, "lat_mean_us_mean"),
		series.New(p95, series.Float, "p95_us_mean"),
		series.New(p99, series.Float, "p99_us_mean"),
		series.New(flagged, series.Bool, "flagged"),
		series.New(simulated, series.Bool, "simulated"))...,
	)
}

// flaggedBase returns the pairs stored in st whose first spec.Repeat
// repeats vary more than the threshold: the ones that get extra repeats
// with RerunHighCV. Using only the base repeats keeps the decision the same
// after a restart. It reads the store only when spec asks for RerunHighCV.
func flaggedBase(ctx context.Context, spec *Spec, st *store.Store) (map[Pair]bool, error) {
	return flagged(spec, func(f func(store.Block) error) error { return st.EachBlock(ctx, false, f) })
}

// flaggedIn is flaggedBase for one cell's pairs: what the engine asks after
// each cell, reading that cell's runs alone.
func flaggedIn(ctx context.Context, spec *Spec, st *store.Store, cell string) (map[Pair]bool, error) {
	return flagged(spec, func(f func(store.Block) error) error { return st.CellBlocks(ctx, cell, f) })
}

// flagged is the pairs among the blocks each hands out whose base repeats
// vary more than spec's threshold.
func flagged(spec *Spec, each func(func(store.Block) error) error) (map[Pair]bool, error) {
	out := map[Pair]bool{}
	if !spec.RerunHighCV || spec.CVThreshold <= 0 {
		return out, nil
	}
	var base []store.Aggregate
	err := each(func(b store.Block) error {
		base = base[:0]
		for _, a := range b.Aggregates {
			if a.Repeat <= spec.Repeat {
				base = append(base, a)
			}
		}
		for _, s := range Stats(base, spec.CVThreshold) {
			if s.Flagged && s.N == spec.Repeat {
				out[Pair{s.Cell, s.Workload}] = true
			}
		}
		return nil
	})
	return out, err
}
