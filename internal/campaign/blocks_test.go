package campaign

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"starbench/internal/fio"
	"starbench/internal/store"
)

// blockStore writes a store of s whose cells run in cost order (not their
// declared order) with two to four repeats of each workload: read and
// write rows, a total row and a job's own aggregate row in some runs,
// unmeasured percentiles, host metrics under the three CPU names in some
// runs, IOPS that vary above 5 % in some cells, and one failed run with
// metrics of its own.
func blockStore(t *testing.T, s *Spec, seed uint64) string {
	t.Helper()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	ctx := context.Background()
	st, path, cells := specStore(t, s, true)
	defer st.Close()
	start := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	metrics := []string{store.HostCPUMetric, store.VSANCPUMetric, store.VSANPerfCPUMetric}
	for i, c := range cells {
		spread := 0.01 + 0.3*float64(i%3) // some cells vary above the threshold
		for j, w := range s.Workloads {
			for r := 1; r <= 2+(i+j)%3; r++ {
				key := store.RunKey{Cell: c.Label, Workload: w.Name, Repeat: r}
				var samples []store.HostMetric
				if (i+r)%4 != 0 {
					for h := range 2 {
						for k := range 3 {
							samples = append(samples, store.HostMetric{Host: fmt.Sprintf("esx-%d", h), Metric: metrics[(i+k)%3],
								At: start.Add(time.Duration(k) * time.Second), Value: 100 * rng.Float64()})
						}
					}
				}
				run := store.Run{RunKey: key, Start: start, End: start.Add(time.Second), Metrics: samples}
				if i == 5 && j == 0 && r == 2 {
					run.Err = errors.New("worker lost")
				} else {
					res := &fio.Result{Simulated: true}
					for _, dir := range []string{"write", "read"} {
						iops := 1000 * (1 + spread*rng.Float64())
						p95 := 400 + 100*rng.Float64()
						if rng.IntN(5) == 0 {
							p95 = math.NaN()
						}
						res.Aggregate = append(res.Aggregate, fio.Row{Direction: dir, IOPS: iops, MBps: iops * 65536 / 1e6,
							LatMeanUs: 200 + 50*rng.Float64(), P50Us: 150, P95Us: p95, P99Us: 900 + 300*rng.Float64(),
							P999Us: 2000, Simulated: true})
					}
					if j == 1 {
						res.Aggregate = append(res.Aggregate,
							fio.Row{Direction: "total", IOPS: res.Aggregate[0].IOPS + res.Aggregate[1].IOPS, LatMeanUs: 220,
								P50Us: math.NaN(), P95Us: math.NaN(), P99Us: math.NaN(), P999Us: math.NaN(), Simulated: true},
							fio.Row{Job: "seq", Direction: "read", IOPS: 1, P50Us: 1, P95Us: 1, P99Us: 1, P999Us: 1, Simulated: true})
					}
					run.Result = res
				}
				if err := st.CommitRun(ctx, run); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return path
}

// wholeStore reads the store at path as the summaries read it before they
// read it a block at a time: every successful run's aggregate rows in one
// slice (cells in the order Cells gives them), and every run's host metric
// means in one map.
func wholeStore(t *testing.T, st *store.Store, path string) ([]store.Aggregate, map[store.RunKey]map[string]float64) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT c.label, r.workload, r.repeat, w.direction, w.iops, w.mbps, w.lat_mean_us,
		w.p50_us, w.p95_us, w.p99_us, w.p999_us, w.errors, w.simulated
		FROM rows w JOIN runs r ON r.id = w.run_id JOIN cells c ON c.id = r.cell_id
		WHERE w.aggregate AND w.job = '' AND r.status = 'ok' ORDER BY c.position, r.workload, r.repeat, w.direction`)
	if err != nil {
		t.Fatal(err)
	}
	nan := func(n sql.NullFloat64) float64 {
		if !n.Valid {
			return math.NaN()
		}
		return n.Float64
	}
	var aggs []store.Aggregate
	for rows.Next() {
		var a store.Aggregate
		var m [7]sql.NullFloat64
		if err := rows.Scan(&a.Cell, &a.Workload, &a.Repeat, &a.Direction, &m[0], &m[1], &m[2], &m[3], &m[4], &m[5], &m[6],
			&a.Errors, &a.Simulated); err != nil {
			t.Fatal(err)
		}
		a.IOPS, a.MBps, a.LatMeanUs, a.P50Us, a.P95Us, a.P99Us, a.P999Us = nan(m[0]), nan(m[1]), nan(m[2]), nan(m[3]), nan(m[4]), nan(m[5]), nan(m[6])
		aggs = append(aggs, a)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	cells, err := st.Cells(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rank := map[string]int{}
	for i, c := range cells {
		rank[c.Label] = i
	}
	sort.SliceStable(aggs, func(i, j int) bool { return rank[aggs[i].Cell] < rank[aggs[j].Cell] })

	means := map[store.RunKey]map[string]float64{}
	rows, err = db.Query(`SELECT c.label, r.workload, r.repeat, m.metric, AVG(m.value)
		FROM host_metrics m JOIN runs r ON r.id = m.run_id JOIN cells c ON c.id = r.cell_id
		WHERE r.status = 'ok' GROUP BY r.id, m.metric`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var k store.RunKey
		var metric string
		var mean float64
		if err := rows.Scan(&k.Cell, &k.Workload, &k.Repeat, &metric, &mean); err != nil {
			t.Fatal(err)
		}
		if means[k] == nil {
			means[k] = map[string]float64{}
		}
		means[k][metric] = mean
	}
	return aggs, means
}

// TestStreamedSummariesEqualWholeSlice: the summaries of the repeats read a
// cell and workload at a time (the stats, the HCIBench table, the pairs
// that get more repeats) are, value for value and in order, what they
// were when every run's aggregates were read into one slice.
func TestStreamedSummariesEqualWholeSlice(t *testing.T) {
	ctx := context.Background()
	s := matrix16()
	s.RerunHighCV, s.CVThreshold = true, 0.05
	path := blockStore(t, s, 20261204)
	st, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	aggs, means := wholeStore(t, st, path)
	var declared, run []string
	for i, c := range Order(s) {
		run = append(run, s.StoreCell(c, i).Label)
	}
	for _, a := range aggs {
		if !slices.Contains(declared, a.Cell) {
			declared = append(declared, a.Cell)
		}
	}
	if slices.Equal(declared, run) {
		t.Fatalf("cells in declared order %v as run: the store would not tell the orders apart", declared)
	}

	for _, threshold := range []float64{0, 0.05} {
		got, err := ReadStats(ctx, st, threshold)
		if err != nil {
			t.Fatal(err)
		}
		want := Stats(aggs, threshold)
		if len(want) != 16*(2+3) {
			t.Fatalf("%d stats from the whole slice, want 80 (16 cells, 4k read and write, 64k also total)", len(want))
		}
		if g, w := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want); g != w {
			t.Errorf("threshold %g: streamed stats\n%s\nwant\n%s", threshold, g, w)
		}
	}

	got, _, err := ReadHCIBench(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	want := HCIBench(aggs, means)
	measured := 0
	for _, r := range want {
		if !math.IsNaN(r.CPUPercent) && !math.IsNaN(r.VSANCPUPercent) {
			measured++
		}
	}
	if len(want) != 32 || measured == 0 {
		t.Fatalf("%d HCIBench rows (%d with CPU) from the whole slice, want 32 and some with CPU", len(want), measured)
	}
	if g, w := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want); g != w {
		t.Errorf("streamed HCIBench\n%s\nwant\n%s", g, w)
	}

	flagged, err := flaggedBase(ctx, s, st)
	if err != nil {
		t.Fatal(err)
	}
	var base []store.Aggregate
	for _, a := range aggs {
		if a.Repeat <= s.Repeat {
			base = append(base, a)
		}
	}
	wantFlagged := map[Pair]bool{}
	for _, x := range Stats(base, s.CVThreshold) {
		if x.Flagged && x.N == s.Repeat {
			wantFlagged[Pair{x.Cell, x.Workload}] = true
		}
	}
	if len(wantFlagged) == 0 || fmt.Sprint(flagged) != fmt.Sprint(wantFlagged) {
		t.Errorf("flagged pairs %v, want %v (not none)", flagged, wantFlagged)
	}
	// Cell by cell (what the engine asks after each), the same pairs.
	for _, cell := range declared {
		in, err := flaggedIn(ctx, s, st, cell)
		if err != nil {
			t.Fatal(err)
		}
		for p := range wantFlagged {
			if p.Cell == cell && !in[p] {
				t.Errorf("cell %s: %v not flagged, want it as over every cell", cell, p)
			}
		}
		for p := range in {
			if p.Cell != cell || !wantFlagged[p] {
				t.Errorf("cell %s: %v flagged, want only the cell's pairs flagged over every cell", cell, p)
			}
		}
	}
}
