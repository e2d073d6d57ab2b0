package table

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/go-gota/gota/dataframe"
)

// NaNPolicy says what an aggregation does with missing values.
type NaNPolicy int

const (
	// Propagate makes a group's result missing when any of its values is.
	Propagate NaNPolicy = iota
	// Skip ignores missing values; a group with none present is missing.
	Skip
)

// ParseNaNPolicy reads "propagate" or "skip".
func ParseNaNPolicy(s string) (NaNPolicy, error) {
	switch s {
	case "propagate":
		return Propagate, nil
	case "skip":
		return Skip, nil
	}
	return 0, fmt.Errorf("nan=%q; want \"skip\" or \"propagate\"", s)
}

// Groups is a frame split by key columns. Groups are numbered in sorted key
// order (missing keys last), so results are deterministic, and keys are
// compared as typed tuples, so ("x_y", "z") and ("x", "y_z") never collide.
type Groups struct {
	ctx   context.Context // Aggregate stops when it ends
	df    dataframe.DataFrame
	keys  []*Column
	group []int32 // group of each row
	first []int   // first row of each group
	size  []int   // rows in each group
}

// GroupBy splits df by the values of the key columns. It stops with ctx's
// error when ctx ends, and so do the Groups' aggregations.
func GroupBy(ctx context.Context, df dataframe.DataFrame, keys ...string) (*Groups, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("group by needs at least one key column")
	}
	g := &Groups{ctx: ctx, df: df}
	var codes []int32
	card := 0
	for _, name := range keys {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := Read(df, name)
		if err != nil {
			return nil, err
		}
		g.keys = append(g.keys, c)
		kc, kn := encode(c)
		if codes == nil {
			codes, card = kc, kn
			continue
		}
		codes, card = combine(codes, kc, kn)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Number the groups in sorted key order.
	first := make([]int, card)
	for i := range first {
		first[i] = -1
	}
	for row, code := range codes {
		if first[code] < 0 {
			first[code] = row
		}
	}
	order := make([]int, card)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		for _, k := range g.keys {
			if c := k.Compare(first[a], first[b]); c != 0 {
				return c
			}
		}
		return 0
	})
	rank := make([]int32, card)
	g.first = make([]int, card)
	for r, code := range order {
		rank[code] = int32(r)
		g.first[r] = first[code]
	}
	g.size = make([]int, card)
	for i, code := range codes {
		codes[i] = rank[code]
		g.size[codes[i]]++
	}
	g.group = codes
	return g, nil
}

// encode numbers the distinct values of c (missing is one more value).
func encode(c *Column) ([]int32, int) {
	switch c.Kind {
	case Bool:
		return encodeValues(c.Bools, c.IsNA)
	case Int:
		return encodeValues(c.Ints, c.IsNA)
	case Float: // -0 == +0 as map keys, as wanted
		return encodeValues(c.Floats, func(i int) bool { return math.IsNaN(c.Floats[i]) })
	default:
		return encodeValues(c.Strings, c.IsNA)
	}
}

// encodeValues numbers the distinct values of vals in the order they
// first appear, those missing (missing(i)) as one more value.
func encodeValues[T comparable](vals []T, missing func(i int) bool) ([]int32, int) {
	codes := make([]int32, len(vals))
	seen := map[T]int32{}
	naCode, next := int32(-1), int32(0)
	for i, v := range vals {
		if missing(i) {
			if naCode < 0 {
				naCode = next
				next++
			}
			codes[i] = naCode
			continue
		}
		code, ok := seen[v]
		if !ok {
			code = next
			seen[v] = code
			next++
		}
		codes[i] = code
	}
	return codes, int(next)
}

// combine numbers the distinct pairs (a[i], b[i]); it reuses a.
func combine(a, b []int32, bCard int) ([]int32, int) {
	m := map[int64]int32{}
	for i := range a {
		k := int64(a[i])*int64(bCard) + int64(b[i])
		code, ok := m[k]
		if !ok {
			code = int32(len(m))
			m[k] = code
		}
		a[i] = code
	}
	return a, len(m)
}

// Len returns the number of groups.
func (g *Groups) Len() int { return len(g.first) }

// Rows returns the row numbers of each group, groups in sorted key order.
func (g *Groups) Rows() [][]int {
	rows := make([][]int, len(g.first))
	for i, n := range g.size {
		rows[i] = make([]int, 0, n)
	}
	for row, code := range g.group {
		rows[code] = append(rows[code], row)
	}
	return rows
}

// Keys returns a frame of the key columns, one row per group.
func (g *Groups) Keys() []*Column {
	cols := make([]*Column, len(g.keys))
	for i, k := range g.keys {
		cols[i] = k.Subset(g.first)
	}
	return cols
}

// Agg is one aggregation: Stat of Column, named As (default column_stat).
// Stats: count, sum, mean, std (sample standard deviation), cv (std over
// the mean's magnitude), min, max, pNN (percentile NN, linear
// interpolation, e.g. p50, p95, p99.9) and same (the group's one value; an
// error when it differs within a group). A group of one value has std and
// cv 0: no spread was measured (count tells single values apart), and a
// number, unlike None, keeps arithmetic and comparisons on it working.
type Agg struct {
	Column, Stat, As string
}

// Name returns the output column name.
func (a Agg) Name() string {
	if a.As != "" {
		return a.As
	}
	return a.Column + "_" + a.Stat
}

// Aggregate returns one row per group: the key columns, then one column per agg.
func (g *Groups) Aggregate(aggs []Agg, nan NaNPolicy) (dataframe.DataFrame, error) {
	cols := g.Keys()
	for _, a := range aggs {
		if err := g.ctx.Err(); err != nil {
			return dataframe.DataFrame{}, err
		}
		src, err := Read(g.df, a.Column)
		if err != nil {
			return dataframe.DataFrame{}, err
		}
		out, err := g.aggregate(src, a, nan)
		if err != nil {
			return dataframe.DataFrame{}, err
		}
		out.Name = a.Name()
		cols = append(cols, out)
	}
	return NewFrame(cols...)
}

func (g *Groups) aggregate(src *Column, a Agg, nan NaNPolicy) (*Column, error) {
	n := g.Len()
	if a.Stat == "count" {
		out := &Column{Kind: Int, Ints: make([]int, n)}
		for row, code := range g.group {
			if nan == Propagate || !src.IsNA(row) {
				out.Ints[code]++
			}
		}
		return out, nil
	}
	if a.Stat == "same" {
		return g.same(src, a)
	}
	if !src.Numeric() {
		return nil, fmt.Errorf("column %q holds %ss; %s needs a numeric column (count and same work on any column)", src.Name, src.Kind, a.Stat)
	}
	switch a.Stat {
	case "sum", "min", "max":
		if src.Kind == Int {
			return g.intStat(src, a.Stat, nan), nil
		}
		return g.floatStat(src, a.Stat, nan), nil
	case "mean", "std", "cv":
		return g.floatStat(src, a.Stat, nan), nil
	}
	if p, ok := percentile(a.Stat); ok {
		return g.percentile(src, p, nan), nil
	}
	return nil, fmt.Errorf("unknown statistic %q; want count, sum, mean, std, cv, min, max, same or a percentile like p50, p95, p99", a.Stat)
}

// percentile reads "p95" as 95.
func percentile(stat string) (float64, bool) {
	rest, ok := strings.CutPrefix(stat, "p")
	if !ok {
		return 0, false
	}
	p, err := strconv.ParseFloat(rest, 64)
	if err != nil || !(p >= 0 && p <= 100) { // NaN ("pnan") is no percentile either
		return 0, false
	}
	return p, true
}

// floatStat computes sum, min, max, mean, std or cv as floats.
func (g *Groups) floatStat(src *Column, stat string, nan NaNPolicy) *Column {
	n := g.Len()
	sum := make([]float64, n)
	cnt := make([]int, n)
	bad := make([]bool, n) // propagated NaN
	ext := make([]float64, n)
	for i := range ext {
		ext[i] = math.NaN()
	}
	for row, code := range g.group {
		v := src.Float(row)
		if math.IsNaN(v) {
			if nan == Propagate {
				bad[code] = true
			}
			continue
		}
		sum[code] += v
		cnt[code]++
		switch {
		case stat == "min" && !(v >= ext[code]):
			ext[code] = v
		case stat == "max" && !(v <= ext[code]):
			ext[code] = v
		}
	}
	out := make([]float64, n)
	for i := range out {
		switch {
		case bad[i] || cnt[i] == 0:
			out[i] = math.NaN()
		case stat == "sum":
			out[i] = sum[i]
		case stat == "min" || stat == "max":
			out[i] = ext[i]
		default:
			out[i] = sum[i] / float64(cnt[i])
		}
	}
	if stat == "std" || stat == "cv" {
		ss := make([]float64, n)
		for row, code := range g.group {
			if v := src.Float(row); !math.IsNaN(v) {
				d := v - out[code]
				ss[code] += d * d
			}
		}
		for i, mean := range out {
			if math.IsNaN(mean) {
				continue
			}
			out[i] = sampleStd(ss[i], cnt[i])
			if stat == "cv" {
				out[i] = cv(out[i], mean)
			}
		}
	}
	return floatColumn(out)
}

// sampleStd is the sample standard deviation of n values whose squared
// deviations from their mean sum to ss: 0 for one value (no spread measured).
func sampleStd(ss float64, n int) float64 {
	switch {
	case n == 0:
		return math.NaN()
	case n == 1:
		return 0
	}
	return math.Sqrt(ss / float64(n-1))
}

// cv is the coefficient of variation, std / |mean|: 0 without spread,
// missing (NaN) when the mean is 0 and the values still spread.
func cv(std, mean float64) float64 {
	switch {
	case std == 0:
		return 0
	case mean == 0:
		return math.NaN()
	}
	return std / math.Abs(mean)
}

// intStat computes sum, min or max of an integer column, keeping integers.
func (g *Groups) intStat(src *Column, stat string, nan NaNPolicy) *Column {
	n := g.Len()
	out := &Column{Kind: Int, Ints: make([]int, n), NA: make([]bool, n)}
	cnt := make([]int, n)
	for row, code := range g.group {
		if src.IsNA(row) {
			if nan == Propagate {
				out.NA[code] = true
			}
			continue
		}
		v := src.Ints[row]
		switch {
		case cnt[code] == 0 && stat != "sum":
			out.Ints[code] = v
		case stat == "sum":
			out.Ints[code] += v
		case stat == "min":
			out.Ints[code] = min(out.Ints[code], v)
		case stat == "max":
			out.Ints[code] = max(out.Ints[code], v)
		}
		cnt[code]++
	}
	for i := range cnt {
		if cnt[i] == 0 {
			out.NA[i] = true
		}
	}
	return out
}

// percentile computes the p-th percentile of each group (linear interpolation
// between closest ranks, as numpy's default).
func (g *Groups) percentile(src *Column, p float64, nan NaNPolicy) *Column {
	n := g.Len()
	valid := make([]int, n)
	bad := make([]bool, n)
	for row, code := range g.group {
		if math.IsNaN(src.Float(row)) {
			bad[code] = bad[code] || nan == Propagate
			continue
		}
		valid[code]++
	}
	start := make([]int, n+1)
	for i, c := range valid {
		start[i+1] = start[i] + c
	}
	vals := make([]float64, start[n])
	fill := slices.Clone(start[:n])
	for row, code := range g.group {
		if v := src.Float(row); !math.IsNaN(v) {
			vals[fill[code]] = v
			fill[code]++
		}
	}
	out := make([]float64, n)
	for i := range out {
		seg := vals[start[i]:start[i+1]]
		if bad[i] || len(seg) == 0 {
			out[i] = math.NaN()
			continue
		}
		slices.Sort(seg)
		out[i] = Quantile(seg, p/100)
	}
	return floatColumn(out)
}

// Quantile returns the q-quantile (0..1) of sorted, by linear interpolation.
func Quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (pos-float64(lo))*(sorted[hi]-sorted[lo])
}

// same returns each group's single value of src.
func (g *Groups) same(src *Column, a Agg) (*Column, error) {
	out := src.Subset(g.first)
	for row, code := range g.group {
		if src.Compare(row, g.first[code]) != 0 {
			return nil, fmt.Errorf("column %q has different values within one group (%v and %v); add it to the group keys or aggregate it", src.Name, src.Value(g.first[code]), src.Value(row))
		}
	}
	return out, nil
}

func floatColumn(v []float64) *Column {
	c := &Column{Kind: Float, Floats: v}
	for i, f := range v {
		if math.IsNaN(f) {
			if c.NA == nil {
				c.NA = make([]bool, len(v))
			}
			c.NA[i] = true
		}
	}
	return c
}
