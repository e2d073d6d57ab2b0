package plots

import (
	"strings"
	"testing"
)

// Linear axes get about five labelled ticks at a round step, with minor
// ticks between: gonum's default gave a 5,300 s timeline three (0, 2500,
// 5000) and a 0-168k IOPS axis three (0, 80k, 160k).
func TestLinearTicksAreRoundAndAboutFive(t *testing.T) {
	for _, c := range []struct {
		min, max float64
		want     string
	}{
		{0, 5300, "0 1k 2k 3k 4k 5k"},
		{0, 168e3, "0 50k 100k 150k"},
		{0, 1, "0 0.2 0.4 0.6 0.8 1"},
		{-30, 30, "-30 -20 -10 0 10 20 30"},
		{412, 437, "415 420 425 430 435"},
		{0.0012, 0.0019, "0.0012 0.0014 0.0016 0.0018"},
	} {
		var labels []string
		minors := 0
		for _, tk := range linearTicks(c.min, c.max) {
			if tk.Value < c.min || tk.Value > c.max {
				t.Errorf("[%g, %g]: tick %g outside the range", c.min, c.max, tk.Value)
			}
			if tk.IsMinor() {
				minors++
			} else {
				labels = append(labels, tk.Label)
			}
		}
		if got := strings.Join(labels, " "); got != c.want || minors < len(labels) {
			t.Errorf("[%g, %g]: labelled %q with %d minor ticks; want %q and minor ticks between", c.min, c.max, got, minors, c.want)
		}
	}
}

// A narrow range far from 0 (Unix times) keeps its labels apart: the
// compact form would label every tick "1G".
func TestTicksOfANarrowRangeFarFromZeroDiffer(t *testing.T) {
	var labels []string
	for _, tk := range (unitTicks{}).Ticks(1e9, 1e9+1) {
		if !tk.IsMinor() {
			labels = append(labels, tk.Label)
		}
	}
	if got, want := strings.Join(labels, ", "), "1000000000.0, 1000000000.2, 1000000000.4, 1000000000.6, 1000000000.8, 1000000001.0"; got != want {
		t.Errorf("labels %s; want %s", got, want)
	}
}

// A log axis labels its data's values: whole counts in every digit
// (outstanding I/Os 1024 and 8192 read so, not 1.02k and 8.19k), values
// with a unit or a fraction as FormatValue writes them.
func TestDataTicksLabelCountsWhole(t *testing.T) {
	var labels []string
	for _, tk := range dataTicks([]Series{{X: []float64{64, 1024, 8192, 262144, 0.5}}}, "") {
		labels = append(labels, tk.Label)
	}
	if got, want := strings.Join(labels, " "), "64 1024 8192 262k 0.5"; got != want {
		t.Errorf("labels %q, want %q", got, want)
	}
	if got := dataTicks([]Series{{X: []float64{4096}}}, "B")[0].Label; got != "4.1 kB" {
		t.Errorf("4096 B labelled %q, want 4.1 kB", got)
	}
}

// Facets left to lay themselves out come out about square: three side by
// side on a landscape figure (they took a 2 x 2 grid, a tile empty), four
// in two rows, a portrait figure's three in two columns.
func TestGridColumnsKeepPanelsAboutSquare(t *testing.T) {
	for _, c := range []struct {
		n      int
		aspect float64
		want   int
	}{{1, 1.6, 1}, {2, 1.6, 2}, {3, 1.6, 3}, {4, 1.6, 2}, {6, 1.6, 3}, {8, 1.6, 4}, {9, 1, 3}, {3, 0.6, 2}} {
		if got := gridColumns(c.n, c.aspect); got != c.want {
			t.Errorf("%d panels on an area %g times as wide as high: %d columns, want %d", c.n, c.aspect, got, c.want)
		}
	}
}
