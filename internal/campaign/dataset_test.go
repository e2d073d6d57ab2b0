package campaign

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"starbench/internal/fio"
	"starbench/internal/store"
)

// specStore opens a new simulated store for s in a temporary directory
// and saves its cells in their order of execution (and, with factors, its
// factors first), returning the store, its path and the cells.
func specStore(t *testing.T, s *Spec, factors bool) (*store.Store, string, []store.Cell) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), s.Name+".db")
	st, err := store.Open(ctx, path, s.Name, store.Options{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	var cells []store.Cell
	for i, c := range Order(s) {
		cells = append(cells, s.StoreCell(c, i))
	}
	if factors {
		if err := st.SaveFactors(ctx, s.StoreFactors()); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.SaveCells(ctx, cells); err != nil {
		t.Fatal(err)
	}
	return st, path, cells
}

// fillStore stores 3 repeats of every cell and workload of s with read and
// write rows drawn from a seeded generator, and returns the store's path.
func fillStore(t *testing.T, s *Spec, seed uint64) string {
	t.Helper()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	ctx := context.Background()
	st, path, cells := specStore(t, s, false)
	defer st.Close()
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range cells {
		for _, w := range s.Workloads {
			for r := 1; r <= 3; r++ {
				res := &fio.Result{Simulated: true}
				for _, dir := range []string{"read", "write"} {
					iops := 1000 + 500*rng.Float64()
					res.Aggregate = append(res.Aggregate, fio.Row{Direction: dir, IOPS: iops, MBps: iops * 4096 / 1e6,
						LatMeanUs: 200 + 50*rng.Float64(), P50Us: 150, P95Us: 400 + 100*rng.Float64(), P99Us: 900 + 300*rng.Float64(),
						P999Us: 2000, Simulated: true})
				}
				run := store.Run{RunKey: store.RunKey{Cell: c.Label, Workload: w.Name, Repeat: r}, Start: start, End: start.Add(time.Second), Result: res}
				if err := st.CommitRun(ctx, run); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return path
}

func readCSV(t *testing.T, st *store.Store, name string) []map[string]string {
	t.Helper()
	var b bytes.Buffer
	if err := st.WriteCSV(context.Background(), name, &b); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, col := range recs[0] {
			m[col] = r[i]
		}
		out = append(out, m)
	}
	return out
}

// TestCellSummaryAgreesWithStats: the SQL view a pandas user reads gives
// the numbers the stats frame gives.
func TestCellSummaryAgreesWithStats(t *testing.T) {
	s := matrix16()
	path := fillStore(t, s, 20261201)
	st, err := store.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	stats, err := ReadStats(context.Background(), st, 0)
	if err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, st, "cell_summary")
	if len(rows) != len(stats) || len(rows) != 16*2*2 {
		t.Fatalf("cell_summary has %d rows, stats %d; want 64", len(rows), len(stats))
	}
	num := func(row map[string]string, col string) float64 {
		f, err := strconv.ParseFloat(row[col], 64)
		if err != nil {
			t.Fatalf("%s = %q: %v", col, row[col], err)
		}
		return f
	}
	for i, want := range stats {
		got := rows[i]
		if got["cell"] != want.Cell || got["workload"] != want.Workload || got["direction"] != want.Direction || got["n"] != "3" {
			t.Fatalf("row %d: %v, want %s / %s %s n=3", i, got, want.Cell, want.Workload, want.Direction)
		}
		for col, w := range map[string]float64{"iops_mean": want.MeanIOPS, "iops_std": want.StdIOPS, "iops_cv": want.CV,
			"mbps_mean": want.MeanMBps, "mbps_std": want.StdMBps, "lat_mean_us_mean": want.MeanLatUs,
			"p95_us_mean": want.MeanP95Us, "p99_us_mean": want.MeanP99Us} {
			if g := num(got, col); math.Abs(g-w) > 1e-9*math.Abs(w) {
				t.Errorf("row %d %s = %v, stats say %v", i, col, g, w)
			}
		}
	}
}

// TestResultsWideHasAColumnPerFactor reads the view as a sqlite3 user
// would: one row per run and direction, each factor a column holding the
// run's cell's level.
func TestResultsWideHasAColumnPerFactor(t *testing.T) {
	s := matrix16()
	path := fillStore(t, s, 7)
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT * FROM results_wide`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	want := []string{"run_id", "cell", "compression", "rdma", "uplink", "policy", "workload", "repeat", "job", "direction",
		"iops", "mbps", "lat_mean_us", "p50_us", "p95_us", "p99_us", "p999_us", "errors", "simulated", "started_at", "ended_at"}
	if !slices.Equal(cols, want) {
		t.Fatalf("columns %v, want %v", cols, want)
	}
	n := 0
	repeats := map[int64]bool{}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		label := ""
		for i, f := range []string{"compression", "rdma", "uplink", "policy"} {
			if i > 0 {
				label += " "
			}
			label += f + "=" + vals[2+i].(string)
		}
		if label != vals[1].(string) {
			t.Fatalf("row %v: factor columns say %q", vals, label)
		}
		repeats[vals[7].(int64)] = true
		n++
	}
	if n != 16*2*3*2 {
		t.Errorf("%d rows, want 192 (16 cells x 2 workloads x 3 repeats x 2 directions)", n)
	}
	if len(repeats) != 3 || !repeats[1] || !repeats[3] {
		t.Errorf("repeats %v, want 1, 2, 3", repeats)
	}
}
