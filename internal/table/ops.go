package table

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/go-gota/gota/dataframe"
)

// SortKey is one sort key: a column, ascending unless Desc.
type SortKey struct {
	Column string
	Desc   bool
}

// SortOrder returns the row order that sorts df by keys: stable, and missing
// values last whatever the direction. It stops with ctx's error when ctx ends.
func SortOrder(ctx context.Context, df dataframe.DataFrame, keys []SortKey) ([]int, error) {
	ranks := make([][]int32, len(keys))
	for i, k := range keys {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := Read(df, k.Column)
		if err != nil {
			return nil, err
		}
		ranks[i] = rank(c, k.Desc)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	order := make([]int, df.Nrow())
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		for _, r := range ranks {
			if r[a] != r[b] {
				return int(r[a]) - int(r[b])
			}
		}
		return a - b // stable: equal keys keep their order
	})
	return order, nil
}

// rank numbers the values of c in sort order (reversed when desc), equal
// values alike and missing values after all others, so sorting compares
// small integers instead of values.
func rank(c *Column, desc bool) []int32 {
	codes, n := encode(c)
	first := make([]int, n)
	for row := len(codes) - 1; row >= 0; row-- {
		first[codes[row]] = row
	}
	byValue := make([]int, n)
	for i := range byValue {
		byValue[i] = i
	}
	if c.Numeric() {
		// Sort numbers directly: much faster than through row indirection.
		type kv struct {
			f    float64
			i    int
			code int
			na   bool
		}
		vals := make([]kv, n)
		for code, row := range first {
			vals[code] = kv{c.Float(row), 0, code, c.IsNA(row)}
			if c.Kind == Int {
				vals[code].i = c.Ints[row]
			}
		}
		slices.SortFunc(vals, func(x, y kv) int {
			switch {
			case x.na || y.na:
				return compareBool(x.na, y.na)
			case c.Kind == Int:
				return cmpOrdered(x.i, y.i)
			}
			return cmpOrdered(x.f, y.f)
		})
		for i, x := range vals {
			byValue[i] = x.code
		}
	} else {
		slices.SortFunc(byValue, func(x, y int) int { return c.Compare(first[x], first[y]) })
	}
	pos := make([]int32, n)
	present := int32(n)
	if n > 0 && c.IsNA(first[byValue[n-1]]) {
		present-- // the missing value sorts last; keep it last when descending
	}
	for r, code := range byValue {
		pos[code] = int32(r)
		if desc && int32(r) < present {
			pos[code] = present - 1 - int32(r)
		}
	}
	for row, code := range codes {
		codes[row] = pos[code]
	}
	return codes
}

// Sort returns df sorted by keys (see SortOrder).
func Sort(ctx context.Context, df dataframe.DataFrame, keys []SortKey) (dataframe.DataFrame, error) {
	order, err := SortOrder(ctx, df, keys)
	if err != nil {
		return dataframe.DataFrame{}, err
	}
	return Take(df, order)
}

// Match returns which values of c satisfy `value op v`. Ops: ==, !=, <, <=,
// >, >=, and "in" (v is a []any). Missing values never match.
func Match(c *Column, op string, v any) ([]bool, error) {
	out := make([]bool, c.Len())
	if op == "in" {
		set, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("column %q: \"in\" needs a list of values, got %T", c.Name, v)
		}
		for _, item := range set {
			m, err := Match(c, "==", item)
			if err != nil {
				return nil, err
			}
			for i := range out {
				out[i] = out[i] || m[i]
			}
		}
		return out, nil
	}
	want, err := comparer(op)
	if err != nil {
		return nil, fmt.Errorf("column %q: %w", c.Name, err)
	}
	cmp, err := compareTo(c, v)
	if err != nil {
		return nil, err
	}
	for i := range out {
		if !c.IsNA(i) {
			out[i] = want(cmp(i))
		}
	}
	return out, nil
}

func comparer(op string) (func(int) bool, error) {
	switch op {
	case "==":
		return func(c int) bool { return c == 0 }, nil
	case "!=":
		return func(c int) bool { return c != 0 }, nil
	case "<":
		return func(c int) bool { return c < 0 }, nil
	case "<=":
		return func(c int) bool { return c <= 0 }, nil
	case ">":
		return func(c int) bool { return c > 0 }, nil
	case ">=":
		return func(c int) bool { return c >= 0 }, nil
	}
	return nil, fmt.Errorf("unknown comparison %q; want one of ==, !=, <, <=, >, >=, in", op)
}

// compareTo returns a function comparing row i of c with v.
func compareTo(c *Column, v any) (func(int) int, error) {
	mismatch := fmt.Errorf("column %q holds %ss; cannot compare it with %v (%T)", c.Name, c.Kind, v, v)
	switch x := v.(type) {
	case bool:
		if c.Kind != Bool {
			return nil, mismatch
		}
		return func(i int) int { return compareBool(c.Bools[i], x) }, nil
	case int, float64:
		f := toFloat(x)
		if math.IsNaN(f) {
			return nil, fmt.Errorf("column %q: NaN equals and orders with nothing; missing values are None (find them with a function of the row)", c.Name)
		}
		switch c.Kind {
		case Int:
			return func(i int) int { return cmpOrdered(float64(c.Ints[i]), f) }, nil
		case Float:
			return func(i int) int { return cmpOrdered(c.Floats[i], f) }, nil
		}
		return nil, mismatch
	case string:
		if c.Kind != String {
			return nil, mismatch
		}
		return func(i int) int { return naturalCompare(c.Strings[i], x) }, nil
	}
	return nil, mismatch
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	}
	return math.NaN()
}

// Unique returns the distinct values of c, sorted, missing last.
func Unique(c *Column) *Column {
	codes, n := encode(c)
	first := make([]int, n)
	for i := range first {
		first[i] = -1
	}
	for row, code := range codes {
		if first[code] < 0 {
			first[code] = row
		}
	}
	slices.SortFunc(first, c.Compare)
	return c.Subset(first)
}

// NAColumn returns a column of n missing values of kind k.
func NAColumn(name string, k Kind, n int) *Column {
	c := &Column{Name: name, Kind: k, NA: make([]bool, n)}
	for i := range c.NA {
		c.NA[i] = true
	}
	switch k {
	case Bool:
		c.Bools = make([]bool, n)
	case Int:
		c.Ints = make([]int, n)
	case Float:
		c.Floats = make([]float64, n)
		for i := range c.Floats {
			c.Floats[i] = math.NaN()
		}
	default:
		c.Strings = make([]string, n)
	}
	return c
}

// Append returns a followed by b. Int and float columns combine into a float
// column; any other mix of kinds is an error.
func Append(a, b *Column) (*Column, error) {
	if a.Kind != b.Kind {
		if !a.Numeric() || !b.Numeric() {
			return nil, fmt.Errorf("column %q holds %ss in one frame and %ss in the other", a.Name, a.Kind, b.Kind)
		}
		a, b = a.asFloat(), b.asFloat()
	}
	out := &Column{Name: a.Name, Kind: a.Kind}
	out.Bools = append(slices.Clone(a.Bools), b.Bools...)
	out.Ints = append(slices.Clone(a.Ints), b.Ints...)
	out.Floats = append(slices.Clone(a.Floats), b.Floats...)
	out.Strings = append(slices.Clone(a.Strings), b.Strings...)
	if a.NA != nil || b.NA != nil {
		out.NA = append(naOf(a), naOf(b)...)
	}
	return out, nil
}

func naOf(c *Column) []bool {
	if c.NA != nil {
		return slices.Clone(c.NA)
	}
	return make([]bool, c.Len())
}

func (c *Column) asFloat() *Column {
	if c.Kind == Float {
		return c
	}
	out := &Column{Name: c.Name, Kind: Float, Floats: make([]float64, c.Len()), NA: c.NA}
	for i := range out.Floats {
		out.Floats[i] = c.Float(i)
	}
	return out
}

// Concat stacks frames: the result has every column of every frame, in order
// of first appearance; a frame without a column gets missing values there.
func Concat(frames ...dataframe.DataFrame) (dataframe.DataFrame, error) {
	var order []string
	all := map[string]*Column{}
	rows := 0
	for _, df := range frames {
		have := map[string]bool{}
		for _, c := range ReadAll(df) {
			have[c.Name] = true
			prev, ok := all[c.Name]
			if !ok {
				order = append(order, c.Name)
				prev = NAColumn(c.Name, c.Kind, rows)
			}
			merged, err := Append(prev, c)
			if err != nil {
				return dataframe.DataFrame{}, err
			}
			all[c.Name] = merged
		}
		for name, c := range all {
			if !have[name] {
				all[name], _ = Append(c, NAColumn(name, c.Kind, df.Nrow()))
			}
		}
		rows += df.Nrow()
	}
	cols := make([]*Column, len(order))
	for i, name := range order {
		cols[i] = all[name]
	}
	return NewFrame(cols...)
}

// Describe returns count, mean, std, min, p50, p95, p99 and max of each
// numeric column, missing values skipped: one row per statistic (std of
// one value is 0, see Agg).
func Describe(df dataframe.DataFrame) (dataframe.DataFrame, error) {
	stats := []string{"count", "mean", "std", "min", "p50", "p95", "p99", "max"}
	cols := []*Column{{Name: "stat", Kind: String, Strings: stats}}
	for _, c := range ReadAll(df) {
		if !c.Numeric() {
			continue
		}
		var vals []float64
		for i := range c.Len() {
			if v := c.Float(i); !math.IsNaN(v) {
				vals = append(vals, v)
			}
		}
		slices.Sort(vals)
		out := make([]float64, len(stats))
		for i, s := range stats {
			out[i] = describe(vals, s)
		}
		col := floatColumn(out)
		col.Name = c.Name
		cols = append(cols, col)
	}
	return NewFrame(cols...)
}

func describe(sorted []float64, stat string) float64 {
	n := float64(len(sorted))
	if stat == "count" {
		return n
	}
	if len(sorted) == 0 {
		return math.NaN()
	}
	mean := 0.0
	for _, v := range sorted {
		mean += v / n
	}
	switch stat {
	case "mean":
		return mean
	case "std":
		ss := 0.0
		for _, v := range sorted {
			ss += (v - mean) * (v - mean)
		}
		return sampleStd(ss, len(sorted))
	case "min":
		return sorted[0]
	case "max":
		return sorted[len(sorted)-1]
	}
	p, _ := percentile(stat)
	return Quantile(sorted, p/100)
}
