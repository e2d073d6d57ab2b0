package campaign

import (
	"context"
	"math"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
	"gonum.org/v1/gonum/stat"

	"starbench/internal/store"
)

// HCIRow is one cell and workload summed up as HCIBench's results table
// does, over the successful repeats: IOPS and throughput of reads and
// writes together, read and write latency and their 95th percentiles
// (fio's clat, µs), and CPU when the runs measured it. NaN is not measured.
type HCIRow struct {
	Cell, Workload                               string
	N                                            int
	IOPS, MBps                                   float64
	ReadLatUs, WriteLatUs, ReadP95Us, WriteP95Us float64
	CPUPercent, VSANCPUPercent                   float64
}

// HCIColumns are the HCIBench frame's columns after cell and the factors.
var HCIColumns = []string{"workload", "n", "iops", "mbps", "read_lat_us", "write_lat_us", "read_p95_us", "write_p95_us",
	store.HostCPUMetric, store.VSANCPUMetric}

// HCIBench sums up aggs (in store order) per cell and workload; hostMeans
// are each run's host metric means (store.Block's HostMeans).
func HCIBench(aggs []store.Aggregate, hostMeans map[store.RunKey]map[string]float64) []HCIRow {
	type pair struct{ cell, workload string }
	var order []pair
	runs := map[pair][]store.RunKey{}
	rows := map[store.RunKey][]store.Aggregate{}
	for _, a := range aggs {
		p := pair{a.Cell, a.Workload}
		if _, ok := runs[p]; !ok {
			order = append(order, p)
		}
		if rows[a.RunKey] == nil {
			runs[p] = append(runs[p], a.RunKey)
		}
		rows[a.RunKey] = append(rows[a.RunKey], a)
	}
	out := make([]HCIRow, 0, len(order))
	for _, p := range order {
		var iops, mbps, rlat, wlat, rp95, wp95, cpu, vsan []float64
		for _, k := range runs[p] {
			i, m := totals(rows[k])
			iops, mbps = append(iops, i), append(mbps, m)
			for _, a := range rows[k] {
				switch a.Direction {
				case "read":
					rlat, rp95 = append(rlat, a.LatMeanUs), append(rp95, a.P95Us)
				case "write":
					wlat, wp95 = append(wlat, a.LatMeanUs), append(wp95, a.P95Us)
				}
			}
			if v, ok := hostMeans[k][store.HostCPUMetric]; ok {
				cpu = append(cpu, v)
			}
			if v, ok := vsanCPU(hostMeans[k]); ok {
				vsan = append(vsan, v)
			}
		}
		out = append(out, HCIRow{Cell: p.cell, Workload: p.workload, N: len(runs[p]),
			IOPS: measuredMean(iops), MBps: measuredMean(mbps), ReadLatUs: measuredMean(rlat), WriteLatUs: measuredMean(wlat),
			ReadP95Us: measuredMean(rp95), WriteP95Us: measuredMean(wp95), CPUPercent: measuredMean(cpu), VSANCPUPercent: measuredMean(vsan)})
	}
	return out
}

// vsanCPU is a run's vSAN CPU among its host metric means, under our name
// or the vSAN performance service's.
func vsanCPU(means map[string]float64) (float64, bool) {
	if v, ok := means[store.VSANCPUMetric]; ok {
		return v, true
	}
	v, ok := means[store.VSANPerfCPUMetric]
	return v, ok
}

// totals are a run's IOPS and MB/s over its directions: reads plus writes
// when it has them (a combined row besides them is not counted twice),
// else its one row.
func totals(rows []store.Aggregate) (iops, mbps float64) {
	var rw []store.Aggregate
	for _, a := range rows {
		if a.Direction == "read" || a.Direction == "write" {
			rw = append(rw, a)
		}
	}
	if len(rw) == 0 {
		rw = rows
	}
	for _, a := range rw {
		iops += a.IOPS
		mbps += a.MBps
	}
	return iops, mbps
}

// measuredMean is the mean of the values that were measured (not NaN);
// NaN when none was.
func measuredMean(xs []float64) float64 {
	var ok []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			ok = append(ok, x)
		}
	}
	if len(ok) == 0 {
		return math.NaN()
	}
	return stat.Mean(ok, nil)
}

// HCIBenchFrame returns rows as a frame with the factor columns (one per
// factor, one value per row, as store.FactorColumns gives them) after
// cell; the CPU columns are there only when some run measured them.
func HCIBenchFrame(rows []HCIRow, factors []series.Series) dataframe.DataFrame {
	n := len(rows)
	cell, workload, count := make([]string, n), make([]string, n), make([]int, n)
	floats := map[string][]float64{}
	cols := HCIColumns[2:]
	for _, c := range cols {
		floats[c] = make([]float64, n)
	}
	hasCPU, hasVSAN := false, false
	for i, r := range rows {
		cell[i], workload[i], count[i] = r.Cell, r.Workload, r.N
		for c, v := range map[string]float64{"iops": r.IOPS, "mbps": r.MBps, "read_lat_us": r.ReadLatUs, "write_lat_us": r.WriteLatUs,
			"read_p95_us": r.ReadP95Us, "write_p95_us": r.WriteP95Us, store.HostCPUMetric: r.CPUPercent, store.VSANCPUMetric: r.VSANCPUPercent} {
			floats[c][i] = v
		}
		hasCPU = hasCPU || !math.IsNaN(r.CPUPercent)
		hasVSAN = hasVSAN || !math.IsNaN(r.VSANCPUPercent)
	}
	out := append([]series.Series{series.New(cell, series.String, "cell")}, factors...)
	out = append(out, series.New(workload, series.String, "workload"), series.New(count, series.Int, "n"))
	for _, c := range cols {
		if (c == store.HostCPUMetric && !hasCPU) || (c == store.VSANCPUMetric && !hasVSAN) {
			continue
		}
		out = append(out, series.New(floats[c], series.Float, c))
	}
	return dataframe.New(out...)
}

// ReadHCIBench sums up the store st as HCIBench does, one cell and
// workload at a time (store.EachBlock), and returns the rows with their
// factor columns.
func ReadHCIBench(ctx context.Context, st *store.Store) ([]HCIRow, []series.Series, error) {
	var rows []HCIRow
	err := st.EachBlock(ctx, true, func(b store.Block) error {
		rows = append(rows, HCIBench(b.Aggregates, b.HostMeans)...)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	cells := make([]string, len(rows))
	for i, r := range rows {
		cells[i] = r.Cell
	}
	factors, err := st.FactorColumns(ctx, cells)
	return rows, factors, err
}
