package table

import (
	"bytes"
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

func frame(t *testing.T, set func(b *Builder)) dataframe.DataFrame {
	t.Helper()
	var b Builder
	set(&b)
	df, err := b.Frame()
	if err != nil {
		t.Fatal(err)
	}
	return df
}

func rows(t *testing.T, df dataframe.DataFrame) [][]any {
	t.Helper()
	cols := ReadAll(df)
	out := make([][]any, df.Nrow())
	for i := range out {
		for _, c := range cols {
			out[i] = append(out[i], c.Value(i))
		}
	}
	return out
}

func TestGroupKeysNeverCollide(t *testing.T) {
	df := frame(t, func(b *Builder) {
		for _, r := range [][2]string{{"x_y", "z"}, {"x", "y_z"}, {"x_y", "z"}} {
			b.Set("a", r[0])
			b.Set("b", r[1])
			b.Set("v", 1)
			b.EndRow()
		}
	})
	g, err := GroupBy(context.Background(), df, "a", "b")
	if err != nil {
		t.Fatal(err)
	}
	out, err := g.Aggregate([]Agg{{Column: "v", Stat: "sum"}}, Propagate)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{{"x", "y_z", 1}, {"x_y", "z", 2}}
	if got := rows(t, out); !reflect.DeepEqual(got, want) {
		t.Fatalf("groups = %v, want %v", got, want)
	}
}

func TestGroupOrderSortedAndMissingLast(t *testing.T) {
	df := frame(t, func(b *Builder) {
		for _, k := range []any{3, nil, 1, 2, 1, 3} {
			b.Set("k", k)
			b.Set("v", 1.5)
			b.EndRow()
		}
	})
	g, _ := GroupBy(context.Background(), df, "k")
	out, err := g.Aggregate([]Agg{{Column: "v", Stat: "count"}}, Skip)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{{1, 2}, {2, 1}, {3, 2}, {nil, 1}}
	if got := rows(t, out); !reflect.DeepEqual(got, want) {
		t.Fatalf("groups = %v, want %v", got, want)
	}
}

func TestAggregateNaNPolicyAndKinds(t *testing.T) {
	df := frame(t, func(b *Builder) {
		for i, v := range []any{10, 20, nil, 40} {
			b.Set("g", "ab"[i/2:i/2+1])
			b.Set("n", v)
			b.EndRow()
		}
	})
	g, _ := GroupBy(context.Background(), df, "g")
	aggs := []Agg{{Column: "n", Stat: "sum"}, {Column: "n", Stat: "mean"}, {Column: "n", Stat: "max"}, {Column: "n", Stat: "count"}}
	skip, err := g.Aggregate(aggs, Skip)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rows(t, skip), [][]any{{"a", 30, 15.0, 20, 2}, {"b", 40, 40.0, 40, 1}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("skip = %v, want %v", got, want)
	}
	if k := skip.Col("n_sum").Type(); k != series.Int {
		t.Fatalf("sum of an int column is %v, want int", k)
	}
	prop, _ := g.Aggregate(aggs, Propagate)
	if got, want := rows(t, prop), [][]any{{"a", 30, 15.0, 20, 2}, {"b", nil, nil, nil, 2}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("propagate = %v, want %v", got, want)
	}
}

func TestPercentileAndStd(t *testing.T) {
	df := frame(t, func(b *Builder) {
		for _, v := range []float64{4, 1, 3, 2, 5} {
			b.Set("g", true)
			b.Set("v", v)
			b.EndRow()
		}
	})
	g, _ := GroupBy(context.Background(), df, "g")
	out, err := g.Aggregate([]Agg{{Column: "v", Stat: "p50"}, {Column: "v", Stat: "p95"}, {Column: "v", Stat: "std"}}, Skip)
	if err != nil {
		t.Fatal(err)
	}
	got := rows(t, out)[0]
	want := []any{true, 3.0, 4.8, math.Sqrt(2.5)}
	for i := range want {
		if math.Abs(toFloatAny(got[i])-toFloatAny(want[i])) > 1e-12 {
			t.Fatalf("p50, p95, std = %v, want %v", got, want)
		}
	}
	for _, stat := range []string{"median", "pnan", "p101", "p-1"} {
		if _, err := g.Aggregate([]Agg{{Column: "v", Stat: stat}}, Skip); err == nil || !strings.Contains(err.Error(), "p50") {
			t.Fatalf("stat %q: error = %v, want one naming p50", stat, err)
		}
	}
}

func toFloatAny(v any) float64 {
	switch x := v.(type) {
	case bool:
		if x {
			return 1
		}
		return 0
	case int:
		return float64(x)
	}
	return v.(float64)
}

func TestSameRefusesMixedGroups(t *testing.T) {
	df := frame(t, func(b *Builder) {
		for _, sim := range []bool{true, false} {
			b.Set("g", "a")
			b.Set("simulated", sim)
			b.EndRow()
		}
	})
	g, _ := GroupBy(context.Background(), df, "g")
	_, err := g.Aggregate([]Agg{{Column: "simulated", Stat: "same", As: "simulated"}}, Skip)
	if err == nil || !strings.Contains(err.Error(), "different values") {
		t.Fatalf("err = %v, want different values", err)
	}
}

func TestSortDescendingKeepsMissingLast(t *testing.T) {
	df := frame(t, func(b *Builder) {
		for i, v := range []any{2.0, nil, 5.0, 2.0} {
			b.Set("v", v)
			b.Set("i", i)
			b.EndRow()
		}
	})
	out, err := Sort(context.Background(), df, []SortKey{{Column: "v", Desc: true}, {Column: "i", Desc: true}})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{{5.0, 2}, {2.0, 3}, {2.0, 0}, {nil, 1}}
	if got := rows(t, out); !reflect.DeepEqual(got, want) {
		t.Fatalf("sorted = %v, want %v", got, want)
	}
}

func TestMatch(t *testing.T) {
	c := &Column{Name: "iops", Kind: Int, Ints: []int{500, 1500, 0}, NA: []bool{false, false, true}}
	got, err := Match(c, ">", 1000)
	if err != nil || !reflect.DeepEqual(got, []bool{false, true, false}) {
		t.Fatalf("iops > 1000 = %v, %v", got, err)
	}
	if _, err := Match(c, "==", "raid1"); err == nil || !strings.Contains(err.Error(), "holds ints") {
		t.Fatalf("type mismatch err = %v", err)
	}
	if _, err := Match(c, "=>", 1); err == nil || !strings.Contains(err.Error(), ">=") {
		t.Fatalf("bad op err = %v", err)
	}
	for _, op := range []string{"==", "!=", ">="} {
		if got, err := Match(c, op, math.NaN()); err == nil || !strings.Contains(err.Error(), "NaN") {
			t.Errorf("iops %s NaN = %v, %v; want an error (NaN compared equal to every value)", op, got, err)
		}
	}
}

func TestPivot(t *testing.T) {
	df := frame(t, func(b *Builder) {
		for _, r := range []struct {
			pol, wl string
			iops    int
		}{{"raid1", "read", 100}, {"raid5", "read", 80}, {"raid1", "write", 60}, {"raid1", "write", 70}} {
			b.Set("policy", r.pol)
			b.Set("workload", r.wl)
			b.Set("iops", r.iops)
			b.EndRow()
		}
	})
	if _, err := Pivot(context.Background(), df, []string{"policy"}, "workload", "iops", "", Skip); err == nil || !strings.Contains(err.Error(), "agg=") {
		t.Fatalf("duplicate cell err = %v", err)
	}
	out, err := Pivot(context.Background(), df, []string{"policy"}, "workload", "iops", "max", Skip)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Names(); !reflect.DeepEqual(got, []string{"policy", "read", "write"}) {
		t.Fatalf("columns = %v", got)
	}
	want := [][]any{{"raid1", 100, 70}, {"raid5", 80, nil}}
	if got := rows(t, out); !reflect.DeepEqual(got, want) {
		t.Fatalf("pivot = %v, want %v", got, want)
	}
}

func TestJoinAndConcat(t *testing.T) {
	left := frame(t, func(b *Builder) {
		for _, p := range []string{"raid1", "raid5", "raid6"} {
			b.Set("policy", p)
			b.Set("iops", len(p))
			b.EndRow()
		}
	})
	right := frame(t, func(b *Builder) {
		for _, p := range []string{"raid5", "raid1", "raid1", "none"} {
			b.Set("policy", p)
			b.Set("ftt", 1)
			b.EndRow()
		}
	})
	inner, err := Join(context.Background(), left, right, []string{"policy"}, "inner")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rows(t, inner), [][]any{{"raid1", 5, 1}, {"raid1", 5, 1}, {"raid5", 5, 1}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("inner = %v, want %v", got, want)
	}
	outer, _ := Join(context.Background(), left, right, []string{"policy"}, "outer")
	if got := outer.Nrow(); got != 5 {
		t.Fatalf("outer has %d rows, want 5", got)
	}
	if got := rows(t, outer)[4]; !reflect.DeepEqual(got, []any{"none", nil, 1}) {
		t.Fatalf("outer right-only row = %v", got)
	}
	cat, err := Concat(left, right)
	if err != nil {
		t.Fatal(err)
	}
	if cat.Nrow() != 7 || rows(t, cat)[0][2] != nil || rows(t, cat)[6][1] != nil {
		t.Fatalf("concat = %v", rows(t, cat))
	}
}

func TestCSVRoundTripKeepsTypesAndMissing(t *testing.T) {
	in := "policy,iops,lat_us,ok\nraid1,1200,1.5,true\nraid5,,2,false\n"
	df, err := ReadCSV(strings.NewReader(in), map[string]Kind{"iops": Int, "lat_us": Float, "ok": Bool})
	if err != nil {
		t.Fatal(err)
	}
	if got := df.Types(); !reflect.DeepEqual(got, []series.Type{series.String, series.Int, series.Float, series.Bool}) {
		t.Fatalf("types = %v", got)
	}
	var out bytes.Buffer
	if err := WriteCSV(&out, df); err != nil {
		t.Fatal(err)
	}
	if out.String() != in {
		t.Fatalf("round trip:\n%s\nwant\n%s", out.String(), in)
	}
	_, err = ReadCSV(strings.NewReader("iops\n12x\n"), map[string]Kind{"iops": Int})
	if err == nil || err.Error() != `line 2, column "iops": "12x" is not a int` {
		t.Fatalf("bad cell err = %v", err)
	}
}

func TestTextTable(t *testing.T) {
	df := frame(t, func(b *Builder) {
		b.Set("policy", "raid1")
		b.Set("iops", 1234567)
		b.Set("p99_us", 1500.25)
		b.EndRow()
		b.Set("policy", "raid5")
		b.Set("p99_us", 98.5)
		b.EndRow()
	})
	want := "" +
		"policy       iops  p99_us\n" +
		"             IOPS      µs\n" +
		"raid1   1,234,567   1,500\n" +
		"raid5          NA      98\n"
	if got := Text(df, 10); got != want {
		t.Fatalf("text =\n%s\nwant\n%s", got, want)
	}
	if got := Text(df, 1); !strings.HasSuffix(got, "... 1 more rows (2 in all)\n") {
		t.Fatalf("truncated text =\n%s", got)
	}
	// A value the column's precision would show as 0 keeps two
	// significant digits; 0 stays 0.
	long := frame(t, func(b *Builder) {
		for _, v := range []float64{572378234, 0.0812, 0, -0.00042, 0.6} {
			b.Set("value", v)
			b.EndRow()
		}
	})
	if got, want := Text(long, 10), "      value\n572,378,234\n      0.081\n          0\n   -0.00042\n          1\n"; got != want {
		t.Fatalf("text =\n%s\nwant\n%s", got, want)
	}
	// A column of zeros and NAs (count of an empty frame's describe) reads 0.
	zeros := frame(t, func(b *Builder) {
		b.Set("count", 0.0)
		b.EndRow()
		b.Set("count", math.NaN())
		b.EndRow()
	})
	if got, want := Text(zeros, 10), "count\n    0\n   NA\n"; got != want {
		t.Fatalf("text =\n%s\nwant\n%s", got, want)
	}
	var md, js bytes.Buffer
	Markdown(&md, df)
	if !strings.Contains(md.String(), "| policy | iops (IOPS) | p99_us (µs) |\n|:---|---:|---:|") {
		t.Fatalf("markdown =\n%s", md.String())
	}
	WriteJSON(&js, df)
	if !strings.Contains(js.String(), `{"policy": "raid5", "iops": null, "p99_us": 98.5}`) {
		t.Fatalf("json =\n%s", js.String())
	}
}

func TestBuilderTypes(t *testing.T) {
	var b Builder
	b.Set("n", 1)
	b.EndRow()
	b.Set("n", 2.5)
	b.EndRow()
	df, err := b.Frame()
	if err != nil || df.Col("n").Type() != series.Float {
		t.Fatalf("int then float: %v %v", df.Types(), err)
	}
	var bad Builder
	bad.Set("n", "x")
	bad.EndRow()
	bad.Set("n", 3)
	if _, err := bad.Frame(); err == nil || !strings.Contains(err.Error(), `row 2, column "n"`) {
		t.Fatalf("mixed err = %v", err)
	}
}

func TestUnits(t *testing.T) {
	for _, c := range []struct{ col, measure, unit string }{
		{"p99_us", "p99", "µs"}, {"iops", "iops", "IOPS"}, {"iops_mean", "iops_mean", "IOPS"},
		{"p99_us_p95", "p99_p95", "µs"}, {"iops_count", "iops_count", ""}, {"read_mbps", "read_mbps", "MB/s"},
		{"policy", "policy", ""}, {"lat_mean_us", "lat_mean", "µs"},
	} {
		if m, u := SplitUnit(c.col); m != c.measure || u != c.unit {
			t.Errorf("SplitUnit(%q) = %q, %q; want %q, %q", c.col, m, u, c.measure, c.unit)
		}
	}
}

// TestLongOperationsHonourCancellation: grouping, aggregating, sorting,
// pivoting and joining stop with the context's error once it is cancelled.
func TestLongOperationsHonourCancellation(t *testing.T) {
	df := frame(t, func(b *Builder) {
		for i := range 100 {
			b.Set("k", i%7)
			b.Set("c", i%3)
			b.Set("v", float64(i))
			b.EndRow()
		}
	})
	live, cancel := context.WithCancel(context.Background())
	g, err := GroupBy(live, df, "k")
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := g.Aggregate([]Agg{{Column: "v", Stat: "mean"}}, Propagate); !errors.Is(err, context.Canceled) {
		t.Errorf("Aggregate after cancel: %v", err)
	}
	for name, run := range map[string]func() error{
		"GroupBy": func() error { _, err := GroupBy(live, df, "k", "c"); return err },
		"Sort":    func() error { _, err := Sort(live, df, []SortKey{{Column: "v"}}); return err },
		"Pivot":   func() error { _, err := Pivot(live, df, []string{"k"}, "c", "v", "mean", Skip); return err },
		"Join":    func() error { _, err := Join(live, df, df, []string{"k"}, "inner"); return err },
	} {
		if err := run(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: %v", name, err)
		}
	}
}

// Text sorts in natural order, as people read labels: digit runs by their
// number (block sizes, uplinks, RAID levels, VM names), the rest as
// before; equal numbers with other leading zeros still sort apart.
func TestNaturalOrderOfText(t *testing.T) {
	in := []string{"general", "64k", "4k", "sql", "32k", "vm10", "vm9", "raid10", "raid5", "100g", "10g", "25g", "007", "7", "", "a1b2", "a1b10"}
	want := []string{"", "4k", "007", "7", "10g", "25g", "32k", "64k", "100g", "a1b2", "a1b10", "general", "raid5", "raid10", "sql", "vm9", "vm10"}
	got := slices.Clone(in)
	slices.SortFunc(got, naturalCompare)
	if !slices.Equal(got, want) {
		t.Errorf("sorted %q\nwant   %q", got, want)
	}
	// Sorting and grouping a frame take it.
	df := frame(t, func(b *Builder) {
		for _, s := range in {
			b.Set("s", s)
			b.EndRow()
		}
	})
	sorted, err := Sort(context.Background(), df, []SortKey{{Column: "s"}})
	if err != nil {
		t.Fatal(err)
	}
	if col, _ := Read(sorted, "s"); !slices.Equal(col.Strings, want) {
		t.Errorf("Sort: %q\nwant  %q", col.Strings, want)
	}
	for _, p := range [][2]string{{"a", "b"}, {"x2", "x10"}, {"007", "7"}, {"k", "k1"}} {
		if naturalCompare(p[0], p[1]) >= 0 || naturalCompare(p[1], p[0]) <= 0 {
			t.Errorf("%q and %q: want the first before the second, both ways round", p[0], p[1])
		}
	}
}

// A filter's order comparisons on text take the same natural order.
func TestFilterComparesTextInNaturalOrder(t *testing.T) {
	df := frame(t, func(b *Builder) {
		for _, bs := range []string{"4k", "32k", "64k", "256k"} {
			b.Set("bs", bs)
			b.EndRow()
		}
	})
	col, err := Read(df, "bs")
	if err != nil {
		t.Fatal(err)
	}
	less, err := compareTo(col, "64k")
	if err != nil {
		t.Fatal(err)
	}
	var below []string
	for i := range 4 {
		if less(i) < 0 {
			below = append(below, col.Strings[i])
		}
	}
	if !slices.Equal(below, []string{"4k", "32k"}) {
		t.Errorf("below 64k: %q, want 4k and 32k", below)
	}
}
