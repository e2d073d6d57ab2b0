package table

import (
	"context"
	"fmt"
	"slices"

	"github.com/go-gota/gota/dataframe"
)

// Pivot turns a long frame wide: one row per distinct index tuple, one column
// per distinct value of the columns column (sorted, named by the value), cells
// from values. With stat "" every cell must come from at most one row;
// otherwise stat (see Agg) combines the rows of a cell. Empty cells are
// missing. It stops with ctx's error when ctx ends.
func Pivot(ctx context.Context, df dataframe.DataFrame, index []string, columns, values, stat string, nan NaNPolicy) (dataframe.DataFrame, error) {
	if len(index) == 0 {
		return dataframe.DataFrame{}, fmt.Errorf("pivot needs at least one index column")
	}
	rows, err := GroupBy(ctx, df, index...)
	if err != nil {
		return dataframe.DataFrame{}, err
	}
	cols, err := GroupBy(ctx, df, columns)
	if err != nil {
		return dataframe.DataFrame{}, err
	}
	cells, err := GroupBy(ctx, df, append(slices.Clone(index), columns)...)
	if err != nil {
		return dataframe.DataFrame{}, err
	}
	src, err := Read(df, values)
	if err != nil {
		return dataframe.DataFrame{}, err
	}
	var cell *Column
	if stat == "" {
		for k, n := range cells.size {
			if n > 1 {
				row := cells.first[k]
				return dataframe.DataFrame{}, fmt.Errorf("%d rows share %v=%v and %s=%v; pass an aggregation (e.g. agg=\"mean\") to combine them",
					n, index, rowKey(rows, row), columns, cols.keys[0].Value(row))
			}
		}
		cell = src.Subset(cells.first)
	} else if cell, err = cells.aggregate(src, Agg{Column: values, Stat: stat}, nan); err != nil {
		return dataframe.DataFrame{}, err
	}
	out := rows.Keys()
	wide := make([]*Column, cols.Len())
	taken := map[string]bool{}
	for _, c := range out {
		taken[c.Name] = true
	}
	for c := range wide {
		name := fmt.Sprint(cols.keys[0].Value(cols.first[c]))
		if cols.keys[0].IsNA(cols.first[c]) {
			name = "NA"
		}
		if taken[name] {
			return dataframe.DataFrame{}, fmt.Errorf("pivot column %q would repeat an index column name; rename one first", name)
		}
		wide[c] = NAColumn(name, cell.Kind, rows.Len())
	}
	for k, row := range cells.first {
		put(wide[cols.group[row]], int(rows.group[row]), cell, k)
	}
	return NewFrame(append(out, wide...)...)
}

func rowKey(g *Groups, row int) []any {
	key := make([]any, len(g.keys))
	for i, k := range g.keys {
		key[i] = k.Value(row)
	}
	return key
}

// put copies value j of src into slot i of dst (same kind).
func put(dst *Column, i int, src *Column, j int) {
	if src.IsNA(j) {
		return
	}
	dst.NA[i] = false
	switch dst.Kind {
	case Bool:
		dst.Bools[i] = src.Bools[j]
	case Int:
		dst.Ints[i] = src.Ints[j]
	case Float:
		dst.Floats[i] = src.Floats[j]
	default:
		dst.Strings[i] = src.Strings[j]
	}
}

// Join matches rows of left and right with equal values in the on columns.
// how is "inner", "left" or "outer"; missing keys never match. It stops
// with ctx's error when ctx ends. The result has
// the left columns, then right's other columns (suffixed "_right" when the
// name is taken).
func Join(ctx context.Context, left, right dataframe.DataFrame, on []string, how string) (dataframe.DataFrame, error) {
	if how != "inner" && how != "left" && how != "outer" {
		return dataframe.DataFrame{}, fmt.Errorf("how=%q; want \"inner\", \"left\" or \"outer\"", how)
	}
	if len(on) == 0 {
		return dataframe.DataFrame{}, fmt.Errorf("join needs at least one key column (on=)")
	}
	nl := left.Nrow()
	var codes []int32
	card := 0
	keyNA := make([]bool, nl+right.Nrow())
	for _, name := range on {
		if err := ctx.Err(); err != nil {
			return dataframe.DataFrame{}, err
		}
		lc, err := Read(left, name)
		if err != nil {
			return dataframe.DataFrame{}, fmt.Errorf("left frame: %w", err)
		}
		rc, err := Read(right, name)
		if err != nil {
			return dataframe.DataFrame{}, fmt.Errorf("right frame: %w", err)
		}
		if lc.Kind != rc.Kind {
			return dataframe.DataFrame{}, fmt.Errorf("key %q holds %ss on the left and %ss on the right; keys must have the same type", name, lc.Kind, rc.Kind)
		}
		both, _ := Append(lc, rc)
		for i := range keyNA {
			keyNA[i] = keyNA[i] || both.IsNA(i)
		}
		kc, kn := encode(both)
		if codes == nil {
			codes, card = kc, kn
		} else {
			codes, card = combine(codes, kc, kn)
		}
	}
	byKey := make([][]int, card)
	for r := range right.Nrow() {
		if !keyNA[nl+r] {
			byKey[codes[nl+r]] = append(byKey[codes[nl+r]], r)
		}
	}
	var li, ri []int // row pairs; -1 is no row
	matched := make([]bool, right.Nrow())
	for l := range nl {
		if l%checkEvery == 0 && ctx.Err() != nil {
			return dataframe.DataFrame{}, ctx.Err()
		}
		var hits []int
		if !keyNA[l] {
			hits = byKey[codes[l]]
		}
		for _, r := range hits {
			li, ri = append(li, l), append(ri, r)
			matched[r] = true
		}
		if len(hits) == 0 && how != "inner" {
			li, ri = append(li, l), append(ri, -1)
		}
	}
	if how == "outer" {
		for r, m := range matched {
			if !m {
				li, ri = append(li, -1), append(ri, r)
			}
		}
	}
	var out []*Column
	taken := map[string]bool{}
	rcols := ReadAll(right)
	for _, c := range ReadAll(left) {
		col := subsetOrNA(c, li)
		if slices.Contains(on, c.Name) && how == "outer" {
			rk := slices.IndexFunc(rcols, func(x *Column) bool { return x.Name == c.Name })
			fillFrom(col, subsetOrNA(rcols[rk], ri), li)
		}
		out = append(out, col)
		taken[c.Name] = true
	}
	for _, c := range rcols {
		if slices.Contains(on, c.Name) {
			continue
		}
		col := subsetOrNA(c, ri)
		if taken[col.Name] {
			col.Name += "_right"
		}
		out = append(out, col)
	}
	return NewFrame(out...)
}

// checkEvery is how many rows a long loop goes between looks at its context.
const checkEvery = 1 << 14

// subsetOrNA picks rows idx of c; -1 gives a missing value.
func subsetOrNA(c *Column, idx []int) *Column {
	safe := make([]int, len(idx))
	for i, j := range idx {
		safe[i] = max(j, 0)
	}
	var out *Column
	if c.Len() > 0 {
		out = c.Subset(safe)
	} else {
		out = NAColumn(c.Name, c.Kind, len(idx)) // no rows: every j is -1
	}
	for i, j := range idx {
		if j < 0 {
			if out.NA == nil {
				out.NA = make([]bool, len(idx))
			}
			out.NA[i] = true
		}
	}
	return out
}

// fillFrom fills the slots of dst where li has no left row from src.
func fillFrom(dst, src *Column, li []int) {
	for i, l := range li {
		if l >= 0 {
			continue
		}
		put(dst, i, src, i)
	}
}
