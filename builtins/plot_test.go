package builtins

import (
	"bytes"
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"starbench/internal/runtime"
	"starbench/internal/table"
	"starbench/plots"
)

// TestDistinctValuesStayApart: values that round to the same label (1000
// and 1004 both read "1k") are different points and different series, not
// repeats of one; their names then show every digit.
func TestDistinctValuesStayApart(t *testing.T) {
	var b table.Builder
	for _, r := range []struct{ x, s, y float64 }{{1000, 0.5, 1}, {1004, 0.5, 3}, {2000, 0.5004, 5}} {
		b.Set("x", r.x)
		b.Set("s", r.s)
		b.Set("y", r.y)
		b.EndRow()
	}
	df, err := b.Frame()
	if err != nil {
		t.Fatal(err)
	}
	f := NewFrame(df)

	p, err := collect(f, "x", "y", starlark.String("s"), "")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"1000", "1004", "2k"}; !reflect.DeepEqual(p.xs, want) {
		t.Errorf("x categories %q, want %q", p.xs, want)
	}
	if want := []string{"0.5", "0.5004"}; !reflect.DeepEqual(p.series, want) {
		t.Errorf("series %q, want %q", p.series, want)
	}
	for _, s := range p.toSeries(true) {
		if s.Err != nil {
			t.Errorf("series %q has error bars %v: distinct points were taken for repeats", s.Name, s.Err)
		}
	}

	series, err := xySeries(f, "x", "y", starlark.String("s"), starlark.None)
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != 2 || series[0].Name != "0.5" || len(series[0].X) != 2 || series[1].Name != "0.5004" {
		t.Errorf("xy series = %+v, want 0.5 with two points and 0.5004 with one", series)
	}
}

// TestHockeyAveragesRepeats: plot.hockey draws one point per series and
// load level, the mean of its repeats, with their std as error bars both
// ways; with one row per level there are no error bars.
func TestHockeyAveragesRepeats(t *testing.T) {
	frameOf := func(rows [][4]float64) *Frame { // policy, iodepth, iops, p99
		var b table.Builder
		for _, r := range rows {
			b.Set("policy", []string{"raid1", "raid5"}[int(r[0])])
			b.Set("iodepth", int(r[1]))
			b.Set("iops", r[2])
			b.Set("p99_us", r[3])
			b.EndRow()
		}
		df, err := b.Frame()
		if err != nil {
			t.Fatal(err)
		}
		return NewFrame(df)
	}
	// Two repeats of each level, in the order a campaign stores them.
	f := frameOf([][4]float64{
		{0, 1, 100, 10}, {0, 4, 300, 20}, {1, 1, 50, 30},
		{0, 1, 120, 14}, {0, 4, 340, 20}, {1, 1, 70, 30},
	})
	series, err := hockeySeries(f, "iops", "p99_us", starlark.String("policy"), starlark.String("iodepth"))
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != 2 {
		t.Fatalf("%d series, want raid1 and raid5: %+v", len(series), series)
	}
	r1, r5 := series[0], series[1]
	if r1.Name != "raid1" || !reflect.DeepEqual(r1.Labels, []string{"1", "4"}) {
		t.Errorf("raid1 curve %q with labels %q, want raid1 with 1 and 4", r1.Name, r1.Labels)
	}
	if !reflect.DeepEqual(r1.X, []float64{110, 320}) || !reflect.DeepEqual(r1.Y, []float64{12, 20}) {
		t.Errorf("raid1 points x %v y %v, want the means x [110 320] y [12 20]", r1.X, r1.Y)
	}
	std := func(a, b float64) float64 { return math.Abs(a-b) / math.Sqrt2 }
	if !near(r1.XErr, []float64{std(100, 120), std(300, 340)}) || !near(r1.Err, []float64{std(10, 14), 0}) {
		t.Errorf("raid1 error bars x %v y %v, want the repeats' std", r1.XErr, r1.Err)
	}
	if !reflect.DeepEqual(r5.X, []float64{60}) || !near(r5.XErr, []float64{std(50, 70)}) {
		t.Errorf("raid5 point x %v ± %v, want 60 ± %v", r5.X, r5.XErr, std(50, 70))
	}

	once := frameOf([][4]float64{{0, 1, 100, 10}, {0, 4, 300, 20}})
	series, err = hockeySeries(once, "iops", "p99_us", starlark.None, starlark.String("iodepth"))
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != 1 || len(series[0].X) != 2 || series[0].Err != nil || series[0].XErr != nil {
		t.Errorf("one row per level: %+v, want two points without error bars", series)
	}
}

func near(got, want []float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			return false
		}
	}
	return true
}

// uplinkFrame is a frame of uplinks (25g, 100g, 10g: in neither text's nor
// natural order) by policies, each row's iops numbering it.
func uplinkFrame(t *testing.T, policies ...string) *Frame {
	t.Helper()
	var b table.Builder
	for i, up := range []string{"25g", "100g", "10g"} {
		for j, p := range policies {
			b.Set("uplink", up)
			b.Set("policy", p)
			b.Set("iops", float64(1000*(10*i+j+1)))
			b.EndRow()
		}
	}
	df, err := b.Frame()
	if err != nil {
		t.Fatal(err)
	}
	return NewFrame(df)
}

// drawnText draws a plot builtin's figure of f as SVG and returns where
// each text is written in it (-1: nowhere), which is the order drawn.
func drawnText(t *testing.T, name string, fn runtime.BuiltinFunc, f *Frame, kwargs ...string) func(string) int {
	t.Helper()
	var kw []starlark.Tuple
	for i := 0; i < len(kwargs); i += 2 {
		kw = append(kw, starlark.Tuple{starlark.String(kwargs[i]), starlark.String(kwargs[i+1])})
	}
	v, err := starlark.Call(&starlark.Thread{}, starlark.NewBuiltin(name, fn), starlark.Tuple{f}, kw)
	if err != nil {
		t.Fatal(err)
	}
	var svg bytes.Buffer
	if err := v.(*Figure).fig.Write(context.Background(), &svg, "svg", plots.DefaultSize, 96); err != nil {
		t.Fatal(err)
	}
	return func(s string) int { return strings.Index(svg.String(), ">"+s+"<") }
}

// TestFacetsKeepTheFramesOrder: facets come in the order the frame first
// has each value of by, as bars' categories do (they came sorted).
func TestFacetsKeepTheFramesOrder(t *testing.T) {
	at := drawnText(t, "plot.facets", plotFacets, uplinkFrame(t, "raid1", "raid5"), "by", "uplink", "x", "policy", "y", "iops")
	if a, b, c := at("25g"), at("100g"), at("10g"); a < 0 || !(a < b && b < c) {
		t.Errorf("panel titles at %d, %d, %d in the SVG: want 25g, 100g, 10g, the frame's order", a, b, c)
	}
}

// TestHeatmapKeepsTheFramesOrder: a heatmap's rows and columns come in the
// order the frame first has them, as bars' categories and facets do (the
// pivot under it sorts them).
func TestHeatmapKeepsTheFramesOrder(t *testing.T) {
	at := drawnText(t, "plot.heatmap", plotHeatmap, uplinkFrame(t, "raid6", "raid1"), "x", "uplink", "y", "policy", "value", "iops")
	if a, b := at("raid6"), at("raid1"); a < 0 || !(a < b) {
		t.Errorf("row labels raid6 at %d, raid1 at %d: want raid6 first, as the frame has it", a, b)
	}
	if a, b, c := at("25g"), at("100g"), at("10g"); a < 0 || !(a < b && b < c) {
		t.Errorf("column labels at %d, %d, %d: want 25g, 100g, 10g, the frame's order", a, b, c)
	}
}
