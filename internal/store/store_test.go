package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"starbench/internal/fio"
)

func openTemp(t *testing.T, opt Options) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "wwt.db")
	s, err := Open(context.Background(), path, "wwt", opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

var testCells = []Cell{
	{Label: "policy=raid1 compression=False", Position: 0, Levels: []Level{{"policy", "raid1"}, {"compression", "False"}}},
	{Label: "policy=raid1 compression=True", Position: 1, Levels: []Level{{"policy", "raid1"}, {"compression", "True"}}},
}

func okRun(cell, workload string, repeat int, iops float64, simulated bool) Run {
	start := time.Date(2026, 12, 2, 15, 0, repeat, 0, time.UTC)
	return Run{
		RunKey: RunKey{cell, workload, repeat},
		Start:  start, End: start.Add(2 * time.Second),
		Result: &fio.Result{
			Simulated: simulated,
			Aggregate: []fio.Row{{Direction: "read", IOPS: iops, P99Us: 900, Simulated: simulated}},
			Rows: []fio.Row{
				{Worker: "w1", Disk: "disk1", Direction: "read", IOPS: iops / 2, Simulated: simulated},
				{Worker: "w2", Disk: "disk1", Direction: "read", IOPS: iops / 2, Simulated: simulated},
			},
		},
		Metrics: []HostMetric{{Host: "esx1", Metric: "cpu.usage.average", At: start, Value: 42}},
	}
}

func TestCommitDoneAndFrames(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t, Options{Simulated: true})
	if err := s.SaveCells(ctx, testCells); err != nil {
		t.Fatal(err)
	}
	id, err := s.BeginSession(ctx, Provenance{Script: "wwt.star", Sets: map[string]string{"repeat": "2"}, Target: "embedded"})
	if err != nil {
		t.Fatal(err)
	}
	r := okRun(testCells[1].Label, "4k", 0, 1000, true)
	r.Session = id
	if err := s.CommitRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	failed := Run{RunKey: RunKey{testCells[0].Label, "4k", 1}, Start: time.Now(), End: time.Now(), Err: errors.New("worker w2 died")}
	if err := s.CommitRun(ctx, failed); err != nil {
		t.Fatal(err)
	}
	done, err := s.Done(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 2 || done[r.RunKey] != StatusOK || done[failed.RunKey] != StatusFailed {
		t.Fatalf("done = %v", done)
	}
	if err := s.CommitRun(ctx, r); err == nil {
		t.Fatal("committing the same successful run twice succeeded; want a uniqueness error")
	}
	// A retried failed run replaces the failure.
	if err := s.CommitRun(ctx, okRun(testCells[0].Label, "4k", 1, 500, true)); err != nil {
		t.Fatal(err)
	}
	if done, _ = s.Done(ctx); done[failed.RunKey] != StatusOK || len(done) != 2 {
		t.Fatalf("after retry done = %v", done)
	}

	res, err := s.Frame(ctx, "results")
	if err != nil {
		t.Fatal(err)
	}
	if res.Nrow() != 2 {
		t.Fatalf("results has %d rows, want 2:\n%v", res.Nrow(), res)
	}
	names := strings.Join(res.Names(), ",")
	if !strings.HasPrefix(names, "run_id,cell,policy,compression,workload,repeat,job,direction,iops") {
		t.Fatalf("results columns = %s", names)
	}
	// Ordered by cell position: raid1/False (500) first.
	if got := res.Col("iops").Float(); got[0] != 500 || got[1] != 1000 {
		t.Fatalf("iops = %v, want [500 1000]", got)
	}
	if got := res.Col("compression").Records(); got[0] != "False" || got[1] != "True" {
		t.Fatalf("compression = %v", got)
	}
	for name, want := range map[string]int{"rows": 4, "runs": 2, "metrics": 2, "cells": 2, "sessions": 1, "files": 0, "sets": 1} {
		f, err := s.Frame(ctx, name)
		if err != nil {
			t.Fatalf("frame %s: %v", name, err)
		}
		if f.Nrow() != want {
			t.Errorf("frame %s has %d rows, want %d:\n%v", name, f.Nrow(), want, f)
		}
	}
	if _, err := s.Frame(ctx, "nope"); err == nil || !strings.Contains(err.Error(), "want one of results") {
		t.Fatalf("unknown frame error = %v", err)
	}
}

func TestSecondProcessRefused(t *testing.T) {
	_, path := openTemp(t, Options{})
	_, err := Open(context.Background(), path, "wwt", Options{})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pid") {
		t.Fatalf("second open: err = %v, want ErrLocked naming the pid", err)
	}
}

func TestLockReleasedOnClose(t *testing.T) {
	s, path := openTemp(t, Options{})
	s.Close()
	s2, err := Open(context.Background(), path, "wwt", Options{})
	if err != nil {
		t.Fatal(err)
	}
	s2.Close()
}

func TestSimulatedAndMeasuredNeverMix(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t, Options{Simulated: false})
	if err := s.SaveCells(ctx, testCells); err != nil {
		t.Fatal(err)
	}
	err := s.CommitRun(ctx, okRun(testCells[0].Label, "4k", 0, 1, true))
	if err == nil || !strings.Contains(err.Error(), "never mixes") {
		t.Fatalf("simulated run into a measured store: err = %v", err)
	}
	if err := s.CommitRun(ctx, okRun(testCells[0].Label, "4k", 0, 1, false)); err != nil {
		t.Fatal(err)
	}
	const long = "2020-01-01T00:00:00Z" // the campaign began long ago
	if _, err := s.db.Exec(`UPDATE campaign SET created_at = ?`, long); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(ctx, path, "wwt", Options{Simulated: true})
	if err == nil || !strings.Contains(err.Error(), "holds measured runs") || !strings.Contains(err.Error(), "--fresh") {
		t.Fatalf("simulated session on a measured store: err = %v", err)
	}
	fresh, err := Open(ctx, path, "wwt", Options{Simulated: true, Fresh: true})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if done, _ := fresh.Done(ctx); len(done) != 0 || !fresh.Simulated {
		t.Fatalf("fresh store still has %d runs (simulated=%v)", len(done), fresh.Simulated)
	}
	// Starting over starts the campaign now: the report's "Started" read
	// the first session's time, before the runs it shows.
	if in, err := fresh.Info(ctx); err != nil || in.CreatedAt == long {
		t.Errorf("after --fresh the campaign began at %q (%v); want now", in.CreatedAt, err)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	s, path := openTemp(t, Options{})
	if _, err := s.db.Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err := Open(context.Background(), path, "wwt", Options{})
	if err == nil || !strings.Contains(err.Error(), "newer starbench") {
		t.Fatalf("err = %v, want a newer-schema refusal", err)
	}
	if _, err := OpenReadOnly(context.Background(), path); err == nil {
		t.Fatal("read-only open of a newer schema succeeded")
	}
}

func TestMigrationFromEmptyFileSetsVersion(t *testing.T) {
	_, path := openTemp(t, Options{})
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != SchemaVersion {
		t.Fatalf("user_version = %d (%v), want %d", v, err, SchemaVersion)
	}
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q (%v), want wal", mode, err)
	}
}

func TestReadOnlyWhileLocked(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t, Options{Simulated: true})
	if err := s.SaveCells(ctx, testCells); err != nil {
		t.Fatal(err)
	}
	if err := s.CommitRun(ctx, okRun(testCells[0].Label, "4k", 0, 7, true)); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if ro.Name != "wwt" || !ro.Simulated {
		t.Fatalf("read-only store: name %q simulated %v", ro.Name, ro.Simulated)
	}
	f, err := ro.Frame(ctx, "results")
	if err != nil || f.Nrow() != 1 {
		t.Fatalf("results: %v rows=%d", err, f.Nrow())
	}
	if _, err := OpenReadOnly(ctx, filepath.Join(t.TempDir(), "none.db")); err == nil || !strings.Contains(err.Error(), "no campaign store") {
		t.Fatalf("missing file: err = %v", err)
	}
}

func TestOriginalsFirstRecordWins(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t, Options{})
	for _, tok := range []string{`level:0`, `level:1`} {
		if err := s.SaveOriginal(ctx, "compression", tok); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Originals(ctx)
	if err != nil || got["compression"] != "level:0" {
		t.Fatalf("originals = %v (%v)", got, err)
	}
	if err := s.ForgetOriginal(ctx, "compression"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Originals(ctx); len(got) != 0 {
		t.Fatalf("after forgetting: %v", got)
	}
}

func TestHashFilesAndPath(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.star")
	os.WriteFile(p, []byte("x = 1\n"), 0o644)
	files, err := HashFiles([]string{p})
	if err != nil || files[0].SHA256 != "9e26bf369911c45c243c684147b23fc9e1dcfcf257d299a1c632016a6fcd33f4" || files[0].Bytes != 6 {
		t.Fatalf("files = %v (%v)", files, err)
	}
	if _, err := Path("/out", "../etc/passwd"); err == nil {
		t.Fatal("Path accepted a name with a slash")
	}
}

func TestUnmeasuredLatencyIsStoredAsMissing(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t, Options{Simulated: true})
	if err := s.SaveCells(ctx, testCells); err != nil {
		t.Fatal(err)
	}
	r := okRun(testCells[0].Label, "4k", 0, 100, true)
	r.Result.Aggregate = append(r.Result.Aggregate, fio.Row{Direction: "write", IOPS: 0, P99Us: math.NaN(), Simulated: true})
	if err := s.CommitRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	var aggs []Aggregate
	err := s.EachBlock(ctx, false, func(b Block) error {
		aggs = append(aggs, b.Aggregates...)
		return nil
	})
	if err != nil || len(aggs) != 2 || !math.IsNaN(aggs[1].P99Us) || aggs[1].IOPS != 0 {
		t.Fatalf("aggregates %+v (%v), want the write p99 NaN", aggs, err)
	}
	f, _ := s.Frame(ctx, "results")
	if p99 := f.Col("p99_us").Float(); p99[0] != 900 || !math.IsNaN(p99[1]) {
		t.Fatalf("p99_us = %v, want [900 NaN]", p99)
	}
}

// TestMigrationNumbersRepeatsFromOne: a store written with repeats from 0
// (schema v1) reads with repeats from 1 once a writer opens it.
func TestMigrationNumbersRepeatsFromOne(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{migrations[0], `PRAGMA user_version = 1`,
		`INSERT INTO campaign VALUES (1, 'old', 1, '2026-01-01T00:00:00Z', NULL)`,
		`INSERT INTO cells VALUES (1, 'a=x', 0)`, `INSERT INTO cell_levels VALUES (1, 'a', 'x')`,
		`INSERT INTO runs (cell_id, workload, repeat, status, error, started_at, ended_at, simulated, notes) VALUES
			(1, 'w', 0, 'ok', '', '', '', 1, ''), (1, 'w', 1, 'ok', '', '', '', 1, ''), (1, 'w', 2, 'failed', 'x', '', '', 1, '')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, err := Open(ctx, path, "old", Options{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	done, err := s.Done(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[RunKey]string{{"a=x", "w", 1}: StatusOK, {"a=x", "w", 2}: StatusOK, {"a=x", "w", 3}: StatusFailed}
	if !maps.Equal(done, want) {
		t.Fatalf("after migration %v, want %v", done, want)
	}
}

// TestDatasetsFollowTheSchema: a store whose rows gained a job column (as
// concurrent jobs add) gets it in results_wide and rows, and the optional
// tables it holds are datasets too.
func TestDatasetsFollowTheSchema(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t, Options{Simulated: true})
	if err := s.SaveCells(ctx, testCells); err != nil {
		t.Fatal(err)
	}
	if err := s.CommitRun(ctx, okRun(testCells[0].Label, "4k", 1, 1000, true)); err != nil {
		t.Fatal(err)
	}
	names, err := s.DatasetNames(ctx)
	if err != nil || !slices.Contains(names, "events") || !slices.Contains(names, "samples") {
		t.Fatalf("datasets %v (%v), want events and samples", names, err)
	}
	s.Close()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE rows SET job = 'oltp'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err = Open(ctx, path, "wwt", Options{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var job string
	if err := s.db.QueryRow(`SELECT job FROM results_wide`).Scan(&job); err != nil || job != "oltp" {
		t.Fatalf("results_wide job = %q (%v), want oltp", job, err)
	}
	var b strings.Builder
	if err := s.WriteCSV(ctx, "rows", &b); err != nil || !strings.HasPrefix(b.String(), "run_id,aggregate,worker,disk,job,direction,") {
		t.Fatalf("rows.csv starts %q (%v)", strings.SplitN(b.String(), "\n", 2)[0], err)
	}
}

// TestSynchronousFollowsTheKind: a store of simulated results commits with
// synchronous=NORMAL (1), one of measured results with FULL (2), on the
// connection every run is committed on, also after --fresh changes the kind.
func TestSynchronousFollowsTheKind(t *testing.T) {
	ctx := context.Background()
	repeat := 0
	synchronous := func(s *Store) int {
		t.Helper()
		if err := s.SaveCells(ctx, testCells); err != nil {
			t.Fatal(err)
		}
		repeat++
		if err := s.CommitRun(ctx, okRun(testCells[0].Label, "4k", repeat, 1, s.Simulated)); err != nil {
			t.Fatal(err)
		}
		var level int
		if err := s.db.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&level); err != nil {
			t.Fatal(err)
		}
		return level
	}
	for _, simulated := range []bool{true, false} {
		s, path := openTemp(t, Options{Simulated: simulated})
		want, other := 2, 1
		if simulated {
			want, other = 1, 2
		}
		if got := synchronous(s); got != want {
			t.Errorf("%s store: synchronous = %d, want %d", kind(simulated), got, want)
		}
		s.Close()
		again, err := Open(ctx, path, "wwt", Options{Simulated: simulated})
		if err != nil {
			t.Fatal(err)
		}
		if got := synchronous(again); got != want {
			t.Errorf("%s store opened again: synchronous = %d, want %d", kind(simulated), got, want)
		}
		again.Close()
		fresh, err := Open(ctx, path, "wwt", Options{Simulated: !simulated, Fresh: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := synchronous(fresh); got != other {
			t.Errorf("%s store made %s with --fresh: synchronous = %d, want %d", kind(simulated), kind(!simulated), got, other)
		}
		fresh.Close()
	}
}

// TestEachBlockHandsOneCellAndWorkloadAtATime: a block holds one cell and
// workload's successful runs, repeats in order, and (when asked) the host
// metric means of those runs and no others; a failed run is in none.
func TestEachBlockHandsOneCellAndWorkloadAtATime(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t, Options{Simulated: true})
	if err := s.SaveCells(ctx, testCells); err != nil {
		t.Fatal(err)
	}
	for _, c := range testCells {
		for _, w := range []string{"64k", "4k"} {
			for r := 2; r >= 1; r-- {
				run := okRun(c.Label, w, r, float64(100*r), true)
				run.Metrics = append(run.Metrics, HostMetric{Host: "esx2", Metric: "cpu.usage.average", At: run.Start, Value: float64(10 * r)})
				if c.Label == testCells[1].Label && w == "4k" && r == 2 {
					run.Result, run.Err = nil, errors.New("worker lost")
				}
				if err := s.CommitRun(ctx, run); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for _, hostMeans := range []bool{false, true} {
		var got []string
		err := s.EachBlock(ctx, hostMeans, func(b Block) error {
			line := b.Cell + " / " + b.Workload + ":"
			for _, a := range b.Aggregates {
				line += fmt.Sprintf(" %s/%s#%d %s %g", a.Cell, a.Workload, a.Repeat, a.Direction, a.IOPS)
			}
			if !hostMeans && b.HostMeans != nil {
				t.Errorf("%s: host means %v, not asked for", line, b.HostMeans)
			}
			for _, k := range slices.SortedFunc(maps.Keys(b.HostMeans), func(x, y RunKey) int { return cmp.Compare(x.Repeat, y.Repeat) }) {
				line += fmt.Sprintf(" %s/%s#%d cpu %g", k.Cell, k.Workload, k.Repeat, b.HostMeans[k]["cpu.usage.average"])
			}
			got = append(got, line)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		a, b := testCells[0].Label, testCells[1].Label
		want := []string{
			a + " / 4k: " + a + "/4k#1 read 100 " + a + "/4k#2 read 200",
			a + " / 64k: " + a + "/64k#1 read 100 " + a + "/64k#2 read 200",
			b + " / 4k: " + b + "/4k#1 read 100",
			b + " / 64k: " + b + "/64k#1 read 100 " + b + "/64k#2 read 200",
		}
		if hostMeans {
			want[0] += " " + a + "/4k#1 cpu 26 " + a + "/4k#2 cpu 31"
			want[1] += " " + a + "/64k#1 cpu 26 " + a + "/64k#2 cpu 31"
			want[2] += " " + b + "/4k#1 cpu 26"
			want[3] += " " + b + "/64k#1 cpu 26 " + b + "/64k#2 cpu 31"
		}
		if !slices.Equal(got, want) {
			t.Errorf("blocks (host means %t):\n%s\nwant\n%s", hostMeans, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// One cell's blocks and statuses (what the engine reads after each cell)
// are that cell's alone, as EachBlock and Done give them; a cell not
// stored has none.
func TestCellBlocksAndCellDoneReadOneCell(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t, Options{Simulated: true})
	if err := s.SaveCells(ctx, testCells); err != nil {
		t.Fatal(err)
	}
	a, b := testCells[0].Label, testCells[1].Label
	for _, c := range []string{a, b} {
		for r := 1; r <= 2; r++ {
			run := okRun(c, "4k", r, float64(100*r), true)
			if c == b && r == 2 {
				run.Result, run.Err = nil, errors.New("worker lost")
			}
			if err := s.CommitRun(ctx, run); err != nil {
				t.Fatal(err)
			}
		}
	}
	blocks := func(cell string) (got []string) {
		if err := s.CellBlocks(ctx, cell, func(bl Block) error {
			for _, x := range bl.Aggregates {
				got = append(got, fmt.Sprintf("%s/%s#%d %g", x.Cell, x.Workload, x.Repeat, x.IOPS))
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got, want := blocks(b), []string{b + "/4k#1 100"}; !slices.Equal(got, want) {
		t.Errorf("cell %s's blocks %q, want %q (its failed run left out, no other cell's)", b, got, want)
	}
	if got := blocks("no such cell"); got != nil {
		t.Errorf("a cell not stored: %q, want none", got)
	}
	done, err := s.CellDone(ctx, b)
	want := map[RunKey]string{{Cell: b, Workload: "4k", Repeat: 1}: StatusOK, {Cell: b, Workload: "4k", Repeat: 2}: StatusFailed}
	if err != nil || fmt.Sprint(done) != fmt.Sprint(want) {
		t.Errorf("cell %s's runs %v (%v), want %v", b, done, err, want)
	}
}

// TestDoneKeepsEachTextOnce: the status of every run comes with each
// cell, workload and status text held once, however many runs repeat it.
func TestDoneKeepsEachTextOnce(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t, Options{Simulated: true})
	if err := s.SaveCells(ctx, testCells); err != nil {
		t.Fatal(err)
	}
	for r := 1; r <= 3; r++ {
		if err := s.CommitRun(ctx, okRun(testCells[0].Label, "4k", r, 100, true)); err != nil {
			t.Fatal(err)
		}
	}
	done, err := s.Done(ctx)
	if err != nil || len(done) != 3 {
		t.Fatalf("done %v (%v), want 3 runs", done, err)
	}
	texts := map[*byte]bool{}
	for k, status := range done {
		if status != StatusOK || k.Cell != testCells[0].Label || k.Workload != "4k" {
			t.Fatalf("run %v: %s", k, status)
		}
		texts[unsafe.StringData(k.Cell)], texts[unsafe.StringData(k.Workload)], texts[unsafe.StringData(status)] = true, true, true
	}
	if len(texts) != 3 {
		t.Errorf("3 runs hold %d copies of their cell, workload and status, want 3", len(texts))
	}
}

// A run's CPU is the mean of the samples wholly within it: a 300 s run's
// first 20 s host sample also covers the idle before it, and its last
// lies after it; a vSAN sample covers 300 s, so only the one that ends a
// 300 s stretch inside the run counts. A run shorter than a sample takes
// every sample it has. vSAN's worlds are summed by host over their kinds.
func TestRunFiguresTakeTheSamplesWithinTheRun(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t, Options{})
	if err := s.SaveCells(ctx, testCells); err != nil {
		t.Fatal(err)
	}
	long := okRun(testCells[0].Label, "4k", 1, 1000, false)
	long.End = long.Start.Add(600 * time.Second)
	long.Metrics = nil
	at := func(sec int) time.Time { return long.Start.Add(time.Duration(sec) * time.Second) }
	for sec := 10; sec <= 610; sec += 20 { // 30 s is the first sample wholly in the run
		v := 40.0
		if sec < 20 || sec > 600 {
			v = 2 // partly idle, before and after
		}
		long.Metrics = append(long.Metrics, HostMetric{Host: "esx1", Metric: HostCPUMetric, At: at(sec), Value: v})
	}
	long.Metrics = append(long.Metrics,
		HostMetric{Host: "esx1", Metric: VSANPerfCPUMetric, At: at(100), Value: 3},  // mostly before
		HostMetric{Host: "esx1", Metric: VSANPerfCPUMetric, At: at(400), Value: 12}, // wholly within
		HostMetric{Host: "esx1", Metric: VSANPerfCPUMetric, At: at(700), Value: 5},  // mostly after
		// The DOM's worlds: two kinds on esx1 (2 cores together), one on
		// esx2 (1 core), wholly within; the busiest world is not summed.
		HostMetric{Host: "esx1", Metric: "vsan.domworlds.Owner.runPct", At: at(400), Value: 150},
		HostMetric{Host: "esx1", Metric: "vsan.domworlds.Owner.busiestRunPct", At: at(400), Value: 90},
		HostMetric{Host: "esx1", Metric: "vsan.domworlds.Client.runPct", At: at(400), Value: 50},
		HostMetric{Host: "esx2", Metric: "vsan.domworlds.Owner.runPct", At: at(400), Value: 100},
		HostMetric{Host: "esx1", Metric: "vsan.domworlds.Owner.runPct", At: at(100), Value: 10}, // mostly before
		HostMetric{Host: "esx1", Metric: "vsan.lsomworlds.PLOG.runPct", At: at(400), Value: 80},
		HostMetric{Host: "esx2", Metric: "vsan.lsomworlds.PLOG.runPct", At: at(400), Value: 40})
	short := okRun(testCells[1].Label, "4k", 1, 1000, false)
	short.Metrics = []HostMetric{{Host: "esx1", Metric: HostCPUMetric, At: short.Start.Add(5 * time.Second), Value: 30},
		{Host: "esx1", Metric: HostCPUMetric, At: short.Start.Add(25 * time.Second), Value: 10}}
	for _, r := range []Run{long, short} {
		if err := s.CommitRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	figures, err := s.RunFigures(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if f := figures[long.RunKey]; f.CPUPercent != 40 || f.VSANCPUPercent != 12 {
		t.Errorf("the long run's CPU %g %%, vSAN's %g %%: want 40 and 12, the samples within it", f.CPUPercent, f.VSANCPUPercent)
	}
	if f := figures[long.RunKey]; f.DOMBusyCores != 1.5 || f.LSOMBusyCores != 0.6 {
		t.Errorf("the long run's DOM worlds busy %g cores, LSOM's %g: want 1.5 and 0.6 (each host's kinds summed, the mean over hosts, the samples within it)", f.DOMBusyCores, f.LSOMBusyCores)
	}
	if f := figures[long.RunKey]; math.Abs(f.Seconds-600) > 0.01 {
		t.Errorf("the long run lasted %g s: want 600", f.Seconds)
	}
	if f := figures[short.RunKey]; f.DOMBusyCores != 0 || f.LSOMBusyCores != 0 {
		t.Errorf("a run that recorded no worlds has its DOM's busy %g cores, LSOM's %g: want 0", f.DOMBusyCores, f.LSOMBusyCores)
	}
	if f := figures[short.RunKey]; f.CPUPercent != 20 {
		t.Errorf("the 2 s run's CPU %g %%: want 20, both its samples (none lies within it)", f.CPUPercent)
	}
}
