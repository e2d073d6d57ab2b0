package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-gota/gota/series"
)

// iodepthStore holds a campaign over iodepth (ints, a load) and compression
// (bools) whose cells ran in an order unlike the declared one: iodepth 64
// first. Each run's IOPS is 100 x iodepth, plus 1 with compression.
func iodepthStore(t *testing.T, declare bool) (*Store, string) {
	t.Helper()
	ctx := context.Background()
	s, path := openTemp(t, Options{Simulated: true})
	factors := []Factor{
		{Name: "iodepth", Type: LevelInt, Load: true, Levels: []string{"1", "4", "16", "64"}},
		{Name: "compression", Type: LevelBool, Levels: []string{"False", "True"}},
	}
	if declare {
		if err := s.SaveFactors(ctx, factors); err != nil {
			t.Fatal(err)
		}
	}
	var cells []Cell
	for i, depth := range []string{"64", "16", "1", "4"} {
		for j, comp := range []string{"True", "False"} {
			cells = append(cells, Cell{Label: "iodepth=" + depth + " compression=" + comp, Position: 2*i + j,
				Levels: []Level{{"iodepth", depth}, {"compression", comp}}})
		}
	}
	if err := s.SaveCells(ctx, cells); err != nil {
		t.Fatal(err)
	}
	session, err := s.BeginSession(ctx, Provenance{Script: "oio.star", Target: "embedded", Testbed: "vxrail-ve660-esa", ModelVersion: "starbench-model/9"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cells {
		var depth int
		fmt.Sscan(c.Levels[0].Value, &depth)
		iops := float64(100 * depth)
		if c.Levels[1].Value == "True" {
			iops++
		}
		r := okRun(c.Label, "4k", 1, iops, true)
		r.Session = session
		if err := s.CommitRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	return s, path
}

func TestFactorsKeepTheirTypeAndDeclaredOrder(t *testing.T) {
	ctx := context.Background()
	s, _ := iodepthStore(t, true)
	res, err := s.Frame(ctx, "results")
	if err != nil {
		t.Fatal(err)
	}
	if typ := res.Col("iodepth").Type(); typ != series.Int {
		t.Fatalf("iodepth is %s, want int", typ)
	}
	if typ := res.Col("compression").Type(); typ != series.Bool {
		t.Fatalf("compression is %s, want bool", typ)
	}
	depths, _ := res.Col("iodepth").Int()
	if want := []int{1, 1, 4, 4, 16, 16, 64, 64}; !slices.Equal(depths, want) {
		t.Fatalf("iodepth in frame order %v, want the declared order %v", depths, want)
	}
	if got := res.Col("compression").Records(); !slices.Equal(got, []string{"false", "true", "false", "true", "false", "true", "false", "true"}) {
		t.Fatalf("compression in frame order %v, want False before True within each iodepth", got)
	}
	if iops := res.Col("iops").Float(); iops[0] != 100 || iops[7] != 6401 {
		t.Fatalf("iops %v: rows moved without their metrics", iops)
	}
	for _, name := range []string{"rows", "runs", "cells"} {
		f, err := s.Frame(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if d, _ := f.Col("iodepth").Int(); d[0] != 1 || d[len(d)-1] != 64 {
			t.Errorf("frame %s: iodepth %v, want 1 first and 64 last", name, d)
		}
	}

	// The views a pandas or sqlite3 user reads are typed and ordered alike.
	rows, err := s.db.QueryContext(ctx, `SELECT typeof(iodepth), iodepth, typeof(compression), compression FROM results_wide`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var ti, tc string
		var d, c int
		if err := rows.Scan(&ti, &d, &tc, &c); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s:%d/%s:%d", ti, d, tc, c))
	}
	rows.Close()
	if want := []string{"integer:1/integer:0", "integer:1/integer:1", "integer:4/integer:0", "integer:4/integer:1",
		"integer:16/integer:0", "integer:16/integer:1", "integer:64/integer:0", "integer:64/integer:1"}; !slices.Equal(got, want) {
		t.Fatalf("results_wide (iodepth, compression) = %v\nwant %v", got, want)
	}
	var first string
	if err := s.db.QueryRowContext(ctx, `SELECT cell FROM cell_summary`).Scan(&first); err != nil || first != "iodepth=1 compression=False" {
		t.Fatalf("cell_summary starts with %q (%v), want iodepth=1 compression=False", first, err)
	}

	// Readers that summarise (stats, reports) get the cells in that order too.
	cells, err := s.Cells(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cells[0].Label != "iodepth=1 compression=False" || cells[0].Position != 5 || cells[7].Label != "iodepth=64 compression=True" {
		t.Fatalf("cells %v, want declared order with their execution positions", cells)
	}
	var blocks []string
	err = s.EachBlock(ctx, false, func(b Block) error {
		blocks = append(blocks, b.Cell)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if blocks[0] != cells[0].Label || blocks[7] != cells[7].Label {
		t.Fatalf("aggregates start with %s and end with %s, want the cells' order", blocks[0], blocks[7])
	}
	cols, err := s.FactorColumns(ctx, []string{cells[7].Label, cells[0].Label})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := cols[0].Int(); cols[0].Name != "iodepth" || !slices.Equal(d, []int{64, 1}) || cols[1].Type() != series.Bool {
		t.Fatalf("factor columns %v", cols)
	}
	ff, err := s.Frame(ctx, "factors")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(ff.Col("factor").Records(), ff.Col("kind").Records(), ff.Col("type").Records(), ff.Col("levels").Records()); got != "[iodepth compression] [load setting] [int bool] [1, 4, 16, 64 False, True]" {
		t.Fatalf("factors frame %s", got)
	}
	declared, err := s.DeclaredFactors(ctx)
	if err != nil || len(declared) != 2 || !declared[0].Load || declared[1].Load || declared[0].Levels[2] != "16" {
		t.Fatalf("declared factors %+v (%v)", declared, err)
	}
}

// A store without declarations (written before version 8) keeps text
// levels in execution order, as it always had them.
func TestUndeclaredFactorsStayTextInExecutionOrder(t *testing.T) {
	s, _ := iodepthStore(t, false)
	res, err := s.Frame(context.Background(), "results")
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Col("iodepth").Records(); res.Col("iodepth").Type() != series.String || got[0] != "64" || got[7] != "4" {
		t.Fatalf("iodepth %v (%s), want text in execution order", got, res.Col("iodepth").Type())
	}
}

func TestEveryRowNamesItsTestbedAndModel(t *testing.T) {
	ctx := context.Background()
	s, _ := iodepthStore(t, true)
	for _, name := range []string{"results", "rows", "runs"} {
		f, err := s.Frame(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		for i, tb := range f.Col("testbed").Records() {
			if tb != "vxrail-ve660-esa" || f.Col("model").Records()[i] != "starbench-model/9" {
				t.Fatalf("frame %s row %d: testbed %q model %q", name, i, tb, f.Col("model").Records()[i])
			}
		}
	}
	sessions, err := s.Sessions(ctx)
	if err != nil || sessions[0].ModelVersion != "starbench-model/9" {
		t.Fatalf("sessions %+v (%v)", sessions, err)
	}
	s.Close()

	// A store from before version 8, read as it is: no model, no error.
	old := filepath.Join(t.TempDir(), "v7.db")
	db, err := sql.Open("sqlite", "file:"+old)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range append(slices.Clone(migrations[:7]), `PRAGMA user_version = 7`,
		`INSERT INTO campaign VALUES (1, 'old', 1, '2026-01-01T00:00:00Z', NULL)`,
		`INSERT INTO sessions (id, started_at, pid, script, tool_version, fio_version, vcenter_version, esxi_versions, testbed, target, simulated, plan)
			VALUES (1, '', 1, 's.star', '', '', '', '', 'tb', 'embedded', 1, '')`,
		`INSERT INTO cells VALUES (1, 'a=x', 0)`, `INSERT INTO cell_levels VALUES (1, 'a', 'x')`,
		`INSERT INTO runs (cell_id, workload, repeat, status, error, started_at, ended_at, session_id, simulated, notes) VALUES (1, 'w', 1, 'ok', '', '', '', 1, 1, '')`) {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	ro, err := OpenReadOnly(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	runs, err := ro.Frame(ctx, "runs")
	if err != nil {
		t.Fatal(err)
	}
	if runs.Col("testbed").Records()[0] != "tb" || runs.Col("model").Records()[0] != "" {
		t.Fatalf("v7 runs frame: %v", runs)
	}
	if _, err := ro.Frame(ctx, "sessions"); err != nil {
		t.Fatal(err)
	}
}

// A store from before concurrent jobs (version 4: no job column, no
// samples, definitions or factors tables), read as it is, serves its
// datasets and frames without what it lacks.
func TestAVersion4StoreReadsAsItIs(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v4.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range append(slices.Clone(migrations[:4]), `PRAGMA user_version = 4`,
		`INSERT INTO campaign VALUES (1, 'old', 1, '2026-01-01T00:00:00Z', NULL)`,
		`INSERT INTO cells VALUES (1, 'a=x', 0)`, `INSERT INTO cell_levels VALUES (1, 'a', 'x')`,
		`INSERT INTO runs (cell_id, workload, repeat, status, error, started_at, ended_at, simulated, notes) VALUES (1, 'w', 1, 'ok', '', '', '', 1, '')`,
		`INSERT INTO rows VALUES (1, 1, '', '', 'read', 100, 0.4, 80, 70, 90, 120, 200, 0, 1)`) {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, name := range []string{"results_wide", "rows", "runs", "sessions"} {
		var b strings.Builder
		if err := s.WriteCSV(ctx, name, &b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if head := strings.SplitN(b.String(), "\n", 2)[0]; strings.Contains(head, "job") || strings.Contains(head, "model_version") {
			t.Errorf("%s.csv of a version 4 store has %s", name, head)
		}
	}
	res, err := s.Frame(ctx, "results")
	if err != nil || res.Nrow() != 1 || res.Col("iops").Float()[0] != 100 {
		t.Fatalf("results of a version 4 store: %v (%v)", res, err)
	}
	if f, err := s.Frame(ctx, "factors"); err != nil || f.Nrow() != 0 {
		t.Errorf("factors frame of a version 4 store: %v (%v)", f, err)
	}
}
