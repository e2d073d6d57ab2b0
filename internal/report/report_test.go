package report

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"starbench/internal/fio"
	"starbench/internal/store"
	"starbench/plots"
)

var testCells = []store.Cell{
	{Label: "compression=False uplink=10g", Position: 0, Levels: []store.Level{{Factor: "compression", Value: "False"}, {Factor: "uplink", Value: "10g"}}},
	{Label: "compression=True uplink=10g", Position: 1, Levels: []store.Level{{Factor: "compression", Value: "True"}, {Factor: "uplink", Value: "10g"}}},
}

// writeStore writes a real campaign store: two cells x one workload x two
// repeats, one run failed, notes as the model writes them.
func writeStore(t *testing.T, dir string, simulated bool) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(dir, "wwt.db")
	s, err := store.Open(ctx, path, "wwt", store.Options{Simulated: simulated})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SaveCells(ctx, testCells); err != nil {
		t.Fatal(err)
	}
	id, err := s.BeginSession(ctx, store.Provenance{Script: "scripts/wwt_matrix.star", Sets: map[string]string{"duration": "5s"},
		Target: "embedded", Testbed: "wwt-r640-osa", ToolVersion: "test", FioVersion: "none", Plan: "2 cells x 1 workloads x 2 repeats = 4 runs",
		Files: []store.File{{Path: "scripts/wwt_matrix.star", SHA256: strings.Repeat("ab", 32), Bytes: 1234}}})
	if err != nil {
		t.Fatal(err)
	}
	commit := func(cell string, repeat int, iops float64, notes []string, runErr error) {
		start := time.Date(2026, 12, 2, 15, 0, repeat, 0, time.UTC)
		r := store.Run{RunKey: store.RunKey{Cell: cell, Workload: "4k-randrw", Repeat: repeat}, Session: id,
			Start: start, End: start.Add(time.Second), Err: runErr}
		if runErr == nil {
			row := func(dir string, share float64) fio.Row {
				return fio.Row{Direction: dir, IOPS: iops * share, MBps: iops * share * 4096 / 1e6, P99Us: 1500, Simulated: simulated}
			}
			r.Result = &fio.Result{Simulated: simulated, Notes: notes,
				Aggregate: []fio.Row{row("read", 0.7), row("write", 0.3)}}
		}
		if err := s.CommitRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	model := "simulated by mva-1 on testbed wwt-r640-osa"
	commit(testCells[0].Label, 1, 100000, []string{model, "bottleneck: host CPU at 97 %"}, nil)
	commit(testCells[0].Label, 2, 102000, []string{model, "bottleneck: host CPU at 97 %"}, nil)
	commit(testCells[1].Label, 1, 80000, []string{model, "bottleneck: network at 91 %", "read 99999 MB/s exceeds the capacity devices' 5000 MB/s"}, nil)
	commit(testCells[1].Label, 2, 60000, []string{model, "bottleneck: network at 91 %"}, nil)
	commit(testCells[1].Label, 3, 0, nil, errors.New(`worker <w1> died`))
	return path
}

func saveFigure(t *testing.T, path string) {
	t.Helper()
	fig, err := plots.Bars([]string{"a", "b"}, []plots.Series{{Name: "s", Y: []float64{1, 2}}}, plots.Options{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if err := fig.Save(context.Background(), path, plots.Size{Width: 200, Height: 120}, 72); err != nil {
		t.Fatal(err)
	}
}

func TestWriteSimulated(t *testing.T) {
	dir := t.TempDir()
	db := writeStore(t, dir, true)
	fig := filepath.Join(dir, "figures", "cost-of-compression.png")
	saveFigure(t, fig)
	files, err := Write(context.Background(), db, dir, "report", []string{fig})
	if err != nil {
		t.Fatal(err)
	}
	html := read(t, files.HTML)
	for _, want := range []string{
		`class="banner simulated"`, "SIMULATED: every number", "testbed wwt-r640-osa",
		"What each answer rests on: <code>starbench sensitivity scripts/wwt_matrix.star</code>.",
		`<dt>Runs</dt><dd>4 ok, 1 failed</dd>`,
		"2 cells (compression x uplink) x 1 workloads x 3 repeats",
		"<pre>2 cells x 1 workloads x 2 repeats = 4 runs</pre>",
		// results: cell 1 read IOPS mean of 70,000 and 71,400
		`<td class="num">70,700</td>`,
		// cell 2 repeats 56,000 and 42,000 vary by 20 %: flagged
		`<tr class="flagged"><td>True</td><td>10g</td><td>read</td>`,
		"host CPU at 97 %", "network at 91 %",
		"read 99999 MB/s exceeds the capacity devices&#39; 5000 MB/s",
		"compression=True uplink=10g / 4k-randrw #1",
		"worker &lt;w1&gt; died",
		"Data plane: simulated by mva-1 on testbed wwt-r640-osa.",
		"<code>duration=5s</code>", strings.Repeat("ab", 32), "scripts/wwt_matrix.star",
		`<img src="data:image/png;base64,`, "cost of compression", "(figures/cost-of-compression.png)",
		"Mean IOPS per cell and workload",
		`<table id="hcibench">`, "<th>p99 clat</th>", "not MiB/s",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(html, "<w1>") {
		t.Error("an error message reached the HTML unescaped")
	}
	if n := strings.Count(html, "<img "); n != 2 {
		t.Errorf("report.html has %d images; want the overview and the one figure file", n)
	}
	if strings.Contains(html, `src="http`) || strings.Contains(html, `href="http`) {
		t.Error("report.html refers to the network; it must stand alone")
	}

	md := read(t, files.Markdown)
	for _, want := range []string{
		"> **SIMULATED**", "What each answer rests on: `starbench sensitivity scripts/wwt_matrix.star`.", "## Plan", "| compression | uplink | direction |", "| False | 10g | read | 2 | 70,700 |",
		"![cost of compression](figures/cost-of-compression.png)", "| worker &lt;w1&gt; died |", "## Provenance",
		"2 above the threshold",
		// HCIBench summary: reads and writes together, mean of the repeats
		"## HCIBench summary", "| False | 10g | 4k-randrw | 2 | 101,000 |", "fio's clat",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}

func TestWriteMeasuredHasNoSimulatedBanner(t *testing.T) {
	dir := t.TempDir()
	db := writeStore(t, dir, false)
	files, err := Write(context.Background(), db, dir, "wwt-report", nil)
	if err != nil {
		t.Fatal(err)
	}
	html := read(t, files.HTML)
	if !strings.Contains(html, "MEASURED: results of fio runs") || strings.Contains(html, "SIMULATED") || strings.Contains(html, "starbench sensitivity") {
		t.Error("a measured campaign's report must say measured and never simulated")
	}
	if filepath.Base(files.HTML) != "wwt-report.html" || filepath.Base(files.Markdown) != "wwt-report.md" {
		t.Errorf("files %+v; want wwt-report.html and wwt-report.md", files)
	}
	if md := read(t, files.Markdown); !strings.Contains(md, "> **MEASURED**") {
		t.Error("report.md lacks the measured note")
	}
}

func TestLoadRefusesWhatIsNoStore(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(context.Background(), filepath.Join(dir, "none.db")); err == nil || !strings.Contains(err.Error(), "no campaign store") {
		t.Errorf("missing store: err = %v; want no campaign store", err)
	}
	junk := filepath.Join(dir, "junk.db")
	os.WriteFile(junk, []byte("not sqlite"), 0o644)
	if _, err := Load(context.Background(), junk); err == nil {
		t.Error("a file that is no SQLite store loaded without error")
	}
}

func TestOverviewSkipsWhatCannotBeRead(t *testing.T) {
	c := &Campaign{}
	if _, ok, err := Overview(context.Background(), c); ok || err != nil {
		t.Errorf("empty campaign: ok=%v err=%v; want no overview", ok, err)
	}
	for i := range maxOverviewCells + 1 {
		c.Cells = append(c.Cells, Cell{Label: strings.Repeat("x", i+1)})
	}
	c.Stats = []Stat{{}}
	if _, ok, _ := Overview(context.Background(), c); ok {
		t.Errorf("%d cells: drew an overview; want none beyond %d", len(c.Cells), maxOverviewCells)
	}
}

func TestNumberFormats(t *testing.T) {
	for x, want := range map[float64]string{1234567: "1,234,567", -4321: "-4,321", 999.4: "999", 12.345: "12.3", 0.1234: "0.123", 0: "0"} {
		if got := number(x); got != want {
			t.Errorf("number(%v) = %q; want %q", x, got, want)
		}
	}
	for us, want := range map[float64]string{1500: "1.50 ms", 420.4: "420 µs", math.NaN(): "n/a"} {
		if got := latency(us); got != want {
			t.Errorf("latency(%v) = %q; want %q", us, got, want)
		}
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCollectFiguresOfTheSession: only the images the session wrote are
// embedded (not other files, not other images in the folder), linked
// relative to the output directory.
func TestCollectFiguresOfTheSession(t *testing.T) {
	dir := t.TempDir()
	old, fresh := filepath.Join(dir, "old.png"), filepath.Join(dir, "sub", "new.png")
	saveFigure(t, old)
	saveFigure(t, fresh)
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("not a figure"), 0o644)
	got, err := CollectFigures(dir, []string{fresh, notes, filepath.Join(dir, "results.db")})
	if err != nil || len(got) != 1 || got[0].Path != "sub/new.png" || got[0].Title != "new" {
		t.Fatalf("figures: %+v, %v; want sub/new.png only", got, err)
	}
}

func TestPlansOfEverySession(t *testing.T) {
	dir := t.TempDir()
	db := writeStore(t, dir, true)
	s, err := store.Open(context.Background(), db, "wwt", store.Options{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.BeginSession(context.Background(), store.Provenance{Script: "scripts/wwt_matrix.star", Target: "embedded",
		Testbed: "second-testbed", Plan: "the second plan"})
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	files, err := Write(context.Background(), db, dir, "report", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{files.HTML, files.Markdown} {
		text := read(t, path)
		for _, want := range []string{"2 cells x 1 workloads x 2 repeats = 4 runs", "the second plan", "(testbed second-testbed)"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q", filepath.Base(path), want)
			}
		}
	}
}
