package campaign

import (
	"math"
	"slices"
	"testing"

	"github.com/go-gota/gota/series"

	"starbench/internal/fio"
	"starbench/internal/store"
)

func agg(cell, workload string, repeat int, dir string, iops, mbps, lat, p95 float64) store.Aggregate {
	return store.Aggregate{RunKey: store.RunKey{Cell: cell, Workload: workload, Repeat: repeat},
		Row: fio.Row{Direction: dir, IOPS: iops, MBps: mbps, LatMeanUs: lat, P95Us: p95}}
}

func TestHCIBenchSumsDirectionsAndAveragesRepeats(t *testing.T) {
	nan := math.NaN()
	aggs := []store.Aggregate{
		// 70/30 mix, two repeats, with a combined row that must not count twice.
		agg("a=x", "oltp", 1, "read", 700, 2.8, 100, 200),
		agg("a=x", "oltp", 1, "write", 300, 1.2, 400, 900),
		agg("a=x", "oltp", 1, "all", 1000, 4.0, 190, nan),
		agg("a=x", "oltp", 2, "read", 900, 3.6, 120, 220),
		agg("a=x", "oltp", 2, "write", 500, 2.0, 600, 1100),
		// A callable's single row.
		agg("a=y", "plain", 1, "all", 50, 0.2, 10, 20),
	}
	means := map[store.RunKey]map[string]float64{
		{Cell: "a=x", Workload: "oltp", Repeat: 1}: {store.HostCPUMetric: 40, store.VSANCPUMetric: 8},
		// vsphere.vsan_metrics' name for vSAN's CPU counts as well.
		{Cell: "a=x", Workload: "oltp", Repeat: 2}: {store.HostCPUMetric: 60, store.VSANPerfCPUMetric: 12},
	}
	rows := HCIBench(aggs, means)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	x := rows[0]
	want := HCIRow{Cell: "a=x", Workload: "oltp", N: 2, IOPS: 1200, MBps: 4.8, ReadLatUs: 110, WriteLatUs: 500,
		ReadP95Us: 210, WriteP95Us: 1000, CPUPercent: 50, VSANCPUPercent: 10}
	if x != want {
		t.Errorf("mixed workload:\n got %+v\nwant %+v", x, want)
	}
	y := rows[1]
	if y.IOPS != 50 || y.MBps != 0.2 || !math.IsNaN(y.ReadLatUs) || !math.IsNaN(y.CPUPercent) {
		t.Errorf("single row: %+v", y)
	}
	cells := []series.Series{series.New([]string{"x", "y"}, series.String, "a")}
	f := HCIBenchFrame(rows, cells)
	if names := f.Names(); !slices.Equal(names, []string{"cell", "a", "workload", "n", "iops", "mbps", "read_lat_us", "write_lat_us",
		"read_p95_us", "write_p95_us", "cpu_percent", "vsan_cpu_percent"}) {
		t.Errorf("columns %v", names)
	}
	// Without CPU measurements the CPU columns are left out.
	if names := HCIBenchFrame(HCIBench(aggs, nil), cells).Names(); slices.Contains(names, "cpu_percent") || slices.Contains(names, "vsan_cpu_percent") {
		t.Errorf("columns without CPU metrics: %v", names)
	}
}
