package builtins

import (
	"reflect"
	"testing"

	"go.starlark.net/starlark"

	"starbench/internal/table"
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
