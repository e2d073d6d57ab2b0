package builtins

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-gota/gota/dataframe"
	"go.starlark.net/starlark"

	"starbench/internal/runtime"
	"starbench/internal/table"
)

// NewFrameModule returns the `frame` module: dataframes.
func NewFrameModule(deps Deps) *runtime.Module {
	return &runtime.Module{
		Name: "frame",
		Doc:  "dataframes: build, filter, group, pivot, join and print tables of results",
		Members: []runtime.Member{
			{Name: "from_rows", Params: "(rows)", Doc: "a frame from a list of dicts (columns in order of first appearance; None or a missing key is a missing value)", Fn: frameFromRows},
			{Name: "from_columns", Params: "(columns)", Doc: "a frame from a dict of equal-length lists", Fn: frameFromColumns},
			{Name: "read_csv", Params: "(path, types={})", Doc: "a frame from a CSV file with a header (relative paths from the script's directory); types maps columns to int, float, bool or string (default string)", Fn: frameReadCSV},
			{Name: "concat", Params: "(*frames)", Doc: "the rows of all frames, stacked (a column missing from a frame is None there)", Fn: frameConcat},
		},
		Types: []*runtime.Type{frameType.Doc(), groupsType.Doc()},
	}
}

// fromValues builds a frame from rows of (column, value) pairs.
func fromValues(rows [][]starlark.Tuple) (dataframe.DataFrame, error) {
	var b table.Builder
	for i, row := range rows {
		for _, kv := range row {
			name, ok := starlark.AsString(kv[0])
			if !ok {
				return dataframe.DataFrame{}, fmt.Errorf("row %d: key %s is %s; column names are strings", i+1, kv[0], kv[0].Type())
			}
			v, err := toGo(kv[1])
			if err != nil {
				return dataframe.DataFrame{}, fmt.Errorf("row %d, column %q: %w", i+1, name, err)
			}
			b.Set(name, v)
		}
		b.EndRow()
	}
	return b.Frame()
}

func frameFromRows(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var rows *starlark.List
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "rows", &rows); err != nil {
		return nil, err
	}
	items := make([][]starlark.Tuple, rows.Len())
	for i := range items {
		d, ok := rows.Index(i).(*starlark.Dict)
		if !ok {
			return nil, fmt.Errorf("row %d is %s; want a dict of column: value", i+1, rows.Index(i).Type())
		}
		items[i] = d.Items()
	}
	return result(fromValues(items))
}

func frameFromColumns(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var cols *starlark.Dict
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "columns", &cols); err != nil {
		return nil, err
	}
	var rows [][]starlark.Tuple
	n := -1
	for _, kv := range cols.Items() {
		list, ok := kv[1].(starlark.Indexable)
		if !ok {
			return nil, fmt.Errorf("column %s is %s; want a list of values", kv[0], kv[1].Type())
		}
		if n >= 0 && list.Len() != n {
			return nil, fmt.Errorf("column %s has %d values but the first column has %d; columns must be the same length", kv[0], list.Len(), n)
		}
		n = list.Len()
		if rows == nil {
			rows = make([][]starlark.Tuple, n)
		}
		for i := range n {
			rows[i] = append(rows[i], starlark.Tuple{kv[0], list.Index(i)})
		}
	}
	return result(fromValues(rows))
}

func frameReadCSV(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path string
	types := new(starlark.Dict)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path, "types?", &types); err != nil {
		return nil, err
	}
	kinds := map[string]table.Kind{}
	for _, kv := range types.Items() {
		name, ok1 := starlark.AsString(kv[0])
		kind, ok2 := starlark.AsString(kv[1])
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("types must map column names to type names, e.g. {\"iops\": \"float\"}")
		}
		k, err := table.ParseKind(kind)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", name, err)
		}
		kinds[name] = k
	}
	path, err := inputPath(thread, path)
	if err != nil {
		return nil, err
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	df, err := table.ReadCSV(file, kinds)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return NewFrame(df), nil
}

// inputPath resolves a path to read: relative paths are relative to the script's directory.
func inputPath(thread *starlark.Thread, path string) (string, error) {
	if filepath.IsAbs(path) {
		return path, nil
	}
	s, err := runtime.SessionFrom(thread)
	if err != nil {
		return "", err
	}
	if s.Script == "" || s.Script == "<repl>" {
		return path, nil
	}
	return filepath.Join(filepath.Dir(s.Script), path), nil
}

// outputPath resolves a path to write: relative paths are under the session's OutDir.
func outputPath(thread *starlark.Thread, path string) (string, error) {
	if filepath.IsAbs(path) {
		return path, nil
	}
	s, err := runtime.SessionFrom(thread)
	if err != nil {
		return "", err
	}
	dir, err := s.EnsureOutDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, path), nil
}

func frameConcat(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, fmt.Errorf("unexpected keyword argument %s; concat takes frames only", kwargs[0][0])
	}
	return concatFrames(args)
}

func frameConcatMethod(f *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, fmt.Errorf("unexpected keyword argument %s; concat takes frames only", kwargs[0][0])
	}
	return concatFrames(append(starlark.Tuple{f}, args...))
}

func concatFrames(args starlark.Tuple) (starlark.Value, error) {
	dfs := make([]dataframe.DataFrame, len(args))
	withSim := 0
	for i, a := range args {
		f, ok := a.(*Frame)
		if !ok {
			return nil, fmt.Errorf("argument %d is %s; want a frame", i+1, a.Type())
		}
		dfs[i] = f.DataFrame()
		if f.hasColumn(SimulatedColumn) {
			withSim++
		}
	}
	if withSim > 0 && withSim < len(dfs) {
		return nil, errSimulatedColumn
	}
	return result(table.Concat(dfs...))
}

// errSimulatedColumn refuses to combine frames of which only some say
// whether their rows are simulated.
var errSimulatedColumn = fmt.Errorf("some frames have a %q column and some do not; rows would not say whether they are simulated (add the column with with_column(%q, False) to measured frames)", SimulatedColumn, SimulatedColumn)

func noArgs(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) error {
	return starlark.UnpackArgs(b.Name(), args, kwargs)
}

func frameRowsMethod(f *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := noArgs(b, args, kwargs); err != nil {
		return nil, err
	}
	cols := table.ReadAll(f.DataFrame())
	rows := make([]starlark.Value, f.Len())
	for i := range rows {
		rows[i] = rowDict(cols, i)
	}
	return starlark.NewList(rows), nil
}

func frameSelect(f *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, fmt.Errorf("unexpected keyword argument %s; select takes column names", kwargs[0][0])
	}
	want, err := stringArgs(args, "column")
	if err != nil {
		return nil, err
	}
	if f.hasColumn(SimulatedColumn) && !slices.Contains(want, SimulatedColumn) {
		want = append(want, SimulatedColumn)
	}
	return pickColumns(f, want)
}

func pickColumns(f *Frame, want []string) (starlark.Value, error) {
	cols := make([]*table.Column, len(want))
	for i, name := range want {
		c, err := table.Read(f.DataFrame(), name)
		if err != nil {
			return nil, err
		}
		cols[i] = c
	}
	return result(table.NewFrame(cols...))
}

func frameDrop(f *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, fmt.Errorf("unexpected keyword argument %s; drop takes column names", kwargs[0][0])
	}
	drop, err := stringArgs(args, "column")
	if err != nil {
		return nil, err
	}
	for _, name := range drop {
		if name == SimulatedColumn {
			return nil, fmt.Errorf("the %q column says whether rows are simulated and cannot be dropped", SimulatedColumn)
		}
		if !f.hasColumn(name) {
			return nil, fmt.Errorf("no column %q; columns are %v", name, f.DataFrame().Names())
		}
	}
	var keep []string
	for _, name := range f.DataFrame().Names() {
		if !slices.Contains(drop, name) {
			keep = append(keep, name)
		}
	}
	return pickColumns(f, keep)
}

func frameFilter(f *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var fn starlark.Callable
	if len(args) > 1 {
		return nil, fmt.Errorf("got %d positional arguments, want at most one function; conditions are keywords, e.g. filter(policy=\"raid1\")", len(args))
	}
	if len(args) == 1 {
		c, ok := args[0].(starlark.Callable)
		if !ok {
			return nil, fmt.Errorf("got %s, want a function of the row; conditions are keywords, e.g. filter(iops=(\">\", 1000))", args[0].Type())
		}
		fn = c
	}
	keep := make([]bool, f.Len())
	for i := range keep {
		keep[i] = true
	}
	for _, kv := range kwargs {
		name := string(kv[0].(starlark.String))
		if name == "fn" {
			c, ok := kv[1].(starlark.Callable)
			if !ok {
				return nil, fmt.Errorf("fn is %s; want a function of the row", kv[1].Type())
			}
			fn = c
			continue
		}
		col, err := table.Read(f.DataFrame(), name)
		if err != nil {
			return nil, err
		}
		op, v, err := condition(kv[1])
		if err != nil {
			return nil, fmt.Errorf("condition on %q: %w", name, err)
		}
		m, err := table.Match(col, op, v)
		if err != nil {
			return nil, err
		}
		for i := range keep {
			keep[i] = keep[i] && m[i]
		}
	}
	if fn != nil {
		cols := table.ReadAll(f.DataFrame())
		for i := range keep {
			if !keep[i] {
				continue
			}
			if err := runtime.Context(thread).Err(); err != nil {
				return nil, err
			}
			r, err := starlark.Call(thread, fn, starlark.Tuple{rowDict(cols, i)}, nil)
			if err != nil {
				return nil, err
			}
			keep[i] = bool(r.Truth())
		}
	}
	var idx []int
	for i, k := range keep {
		if k {
			idx = append(idx, i)
		}
	}
	return result(table.Take(f.DataFrame(), idx))
}

// condition reads a filter value: v (==), [v1, v2] (in) or (op, v).
func condition(v starlark.Value) (string, any, error) {
	switch v := v.(type) {
	case starlark.Tuple:
		var op string
		ok := len(v) == 2
		if ok {
			op, ok = starlark.AsString(v[0])
		}
		if !ok {
			return "", nil, fmt.Errorf("a tuple condition is (op, value), e.g. (\">\", 1000)")
		}
		x, err := toGo(v[1])
		return op, x, err
	case *starlark.List:
		set := make([]any, v.Len())
		for i := range set {
			x, err := toGo(v.Index(i))
			if err != nil {
				return "", nil, err
			}
			set[i] = x
		}
		return "in", set, nil
	}
	x, err := toGo(v)
	if x == nil && err == nil {
		return "", nil, fmt.Errorf("None matches nothing; to find missing values use a function, e.g. filter(lambda r: r[\"iops\"] == None)")
	}
	return "==", x, err
}

func frameSort(f *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var reverse bool
	if err := starlark.UnpackArgs(b.Name(), nil, kwargs, "reverse?", &reverse); err != nil {
		return nil, err
	}
	cols, err := stringArgs(args, "key")
	if err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("sort needs at least one column, e.g. sort(\"policy\", \"-iops\")")
	}
	keys := make([]table.SortKey, len(cols))
	for i, c := range cols {
		name, minus := strings.CutPrefix(c, "-")
		if minus && !f.hasColumn(name) && f.hasColumn(c) {
			name, minus = c, false // a column whose name starts with "-"
		}
		keys[i] = table.SortKey{Column: name, Desc: minus != reverse}
	}
	return result(table.Sort(runtime.Context(thread), f.DataFrame(), keys))
}

func frameHead(f *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return headTail(f, b, args, kwargs, true)
}

func frameTail(f *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return headTail(f, b, args, kwargs, false)
}

func headTail(f *Frame, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple, head bool) (starlark.Value, error) {
	n := 5
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "n?", &n); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("n is %d; want 0 or more rows", n)
	}
	n = min(n, f.Len())
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
		if !head {
			idx[i] = f.Len() - n + i
		}
	}
	return result(table.Take(f.DataFrame(), idx))
}

func frameUnique(f *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "column", &name); err != nil {
		return nil, err
	}
	c, err := table.Read(f.DataFrame(), name)
	if err != nil {
		return nil, err
	}
	return columnList(table.Unique(c)), nil
}

func frameRename(f *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) > 0 {
		return nil, fmt.Errorf("rename takes keywords old=\"new\", e.g. rename(iops=\"IOPS\")")
	}
	cols := table.ReadAll(f.DataFrame())
	for _, kv := range kwargs {
		old := string(kv[0].(starlark.String))
		name, ok := starlark.AsString(kv[1])
		if !ok {
			return nil, fmt.Errorf("new name for %q is %s; want a string", old, kv[1].Type())
		}
		if old == SimulatedColumn || name == SimulatedColumn {
			return nil, fmt.Errorf("the %q column says whether rows are simulated; it cannot be renamed or replaced", SimulatedColumn)
		}
		i := slices.IndexFunc(cols, func(c *table.Column) bool { return c.Name == old })
		if i < 0 {
			return nil, fmt.Errorf("no column %q; columns are %v", old, f.DataFrame().Names())
		}
		cols[i].Name = name
	}
	return result(table.NewFrame(cols...))
}

func frameWithColumn(f *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var value starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "value", &value); err != nil {
		return nil, err
	}
	df, err := withColumn(thread, f, name, value)
	return result(df, err)
}

func frameMutate(f *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) > 0 {
		return nil, fmt.Errorf("mutate takes keywords name=value, e.g. mutate(mbps=lambda r: r[\"iops\"] * 4096 / 1e6)")
	}
	for _, kv := range kwargs {
		df, err := withColumn(thread, f, string(kv[0].(starlark.String)), kv[1])
		if err != nil {
			return nil, err
		}
		f = NewFrame(df)
	}
	return f, nil
}

// withColumn sets column name from a list, a function of the row, or one value.
func withColumn(thread *starlark.Thread, f *Frame, name string, value starlark.Value) (dataframe.DataFrame, error) {
	if name == SimulatedColumn && f.hasColumn(SimulatedColumn) {
		return dataframe.DataFrame{}, fmt.Errorf("the %q column says whether rows are simulated; it cannot be replaced", SimulatedColumn)
	}
	n := f.Len()
	vals := make([]starlark.Value, n)
	switch v := value.(type) {
	case *starlark.List:
		if v.Len() != n {
			return dataframe.DataFrame{}, fmt.Errorf("column %q has %d values for %d rows", name, v.Len(), n)
		}
		for i := range vals {
			vals[i] = v.Index(i)
		}
	case starlark.Callable:
		cols := table.ReadAll(f.DataFrame())
		for i := range vals {
			if err := runtime.Context(thread).Err(); err != nil {
				return dataframe.DataFrame{}, err
			}
			r, err := starlark.Call(thread, v, starlark.Tuple{rowDict(cols, i)}, nil)
			if err != nil {
				return dataframe.DataFrame{}, err
			}
			vals[i] = r
		}
	default:
		for i := range vals {
			vals[i] = value
		}
	}
	var bld table.Builder
	for i, v := range vals {
		x, err := toGo(v)
		if err != nil {
			return dataframe.DataFrame{}, fmt.Errorf("column %q, row %d: %w", name, i+1, err)
		}
		bld.Set(name, x)
		bld.EndRow()
	}
	newCol, err := bld.Frame()
	if err != nil {
		return dataframe.DataFrame{}, err
	}
	cols := table.ReadAll(f.DataFrame())
	c := table.FromSeries(newCol.Col(name))
	if n == 0 {
		c = table.NAColumn(name, table.Float, 0)
	}
	if i := slices.IndexFunc(cols, func(c *table.Column) bool { return c.Name == name }); i >= 0 {
		cols[i] = c
	} else {
		cols = append(cols, c)
	}
	return table.NewFrame(cols...)
}

func frameJoin(f *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var other *Frame
	var on names
	how := "inner"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "other", &other, "on", &on, "how?", &how); err != nil {
		return nil, err
	}
	if f.hasColumn(SimulatedColumn) != other.hasColumn(SimulatedColumn) {
		return nil, errSimulatedColumn // a row would mix the two frames' kinds under one label
	}
	if f.hasColumn(SimulatedColumn) && !slices.Contains(on, SimulatedColumn) {
		on = append(on, SimulatedColumn) // simulated rows join only simulated rows
	}
	return result(table.Join(runtime.Context(thread), f.DataFrame(), other.DataFrame(), on, how))
}

func framePivot(f *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var index names
	var columns, values, agg string
	nan := "propagate"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "index", &index, "columns", &columns, "values", &values, "agg?", &agg, "nan?", &nan); err != nil {
		return nil, err
	}
	policy, err := table.ParseNaNPolicy(nan)
	if err != nil {
		return nil, err
	}
	df, err := table.Pivot(runtime.Context(thread), f.DataFrame(), index, columns, values, agg, policy)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(index, SimulatedColumn) {
		if df, err = carrySimulated(f, df); err != nil {
			return nil, err
		}
	}
	return NewFrame(df), nil
}

// carrySimulated adds f's simulated column to out, as one value, when all
// rows of f agree; it refuses to combine simulated with measured rows.
func carrySimulated(f *Frame, out dataframe.DataFrame) (dataframe.DataFrame, error) {
	if !f.hasColumn(SimulatedColumn) || slices.Contains(out.Names(), SimulatedColumn) {
		return out, nil
	}
	sim, mixed := f.Simulated()
	if mixed {
		return dataframe.DataFrame{}, fmt.Errorf("this would combine simulated and measured rows; filter(simulated=True) or filter(simulated=False) first")
	}
	cols := table.ReadAll(out)
	c := &table.Column{Name: SimulatedColumn, Kind: table.Bool, Bools: make([]bool, out.Nrow())}
	for i := range c.Bools {
		c.Bools[i] = sim
	}
	return table.NewFrame(append(cols, c)...)
}

func frameDescribe(f *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := noArgs(b, args, kwargs); err != nil {
		return nil, err
	}
	df, err := table.Describe(f.DataFrame())
	if err != nil {
		return nil, err
	}
	return result(carrySimulated(f, df))
}

func frameShow(f *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var title string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "title?", &title); err != nil {
		return nil, err
	}
	s, err := runtime.SessionFrom(thread)
	if err != nil {
		return nil, err
	}
	if s.Stdout == nil {
		return nil, errors.New("internal error: the session has no standard output")
	}
	if title != "" {
		title = "\n" + title + "\n"
	}
	if _, err := fmt.Fprintf(s.Stdout, "%s%s\n", title, f.String()); err != nil {
		return nil, fmt.Errorf("writing the table: %w", err)
	}
	return starlark.None, nil
}

func frameToCSV(f *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return writeOut(f, thread, b, args, kwargs, func(w *bytes.Buffer) error { return table.WriteCSV(w, f.DataFrame()) })
}

func frameToJSON(f *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return writeOut(f, thread, b, args, kwargs, func(w *bytes.Buffer) error { return table.WriteJSON(w, f.DataFrame()) })
}

func frameToMarkdown(f *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return writeOut(f, thread, b, args, kwargs, func(w *bytes.Buffer) error { return table.Markdown(w, f.DataFrame()) })
}

// writeOut returns the text render makes, or writes it to path and returns the path.
func writeOut(f *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple, render func(*bytes.Buffer) error) (starlark.Value, error) {
	var path string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path?", &path); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return nil, err
	}
	if path == "" {
		return starlark.String(buf.String()), nil
	}
	out, err := outputPath(thread, path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return nil, err
	}
	if s, err := runtime.SessionFrom(thread); err == nil {
		s.Wrote(out)
	}
	return starlark.String(out), nil
}

func frameGroupBy(f *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, fmt.Errorf("unexpected keyword argument %s; group_by takes key column names", kwargs[0][0])
	}
	keys, err := stringArgs(args, "key")
	if err != nil {
		return nil, err
	}
	g, err := table.GroupBy(runtime.Context(thread), f.DataFrame(), keys...)
	if err != nil {
		return nil, err
	}
	return &Groups{frame: f, keys: keys, g: g}, nil
}

// Groups is the Starlark handle of a frame split by key columns (group_by).
type Groups struct {
	frame *Frame
	keys  []string
	g     *table.Groups
}

var (
	_ starlark.HasAttrs = (*Groups)(nil)
	_ starlark.Sequence = (*Groups)(nil)
)

func (g *Groups) String() string {
	return fmt.Sprintf("frame.groups(%d groups by %s)", g.g.Len(), strings.Join(g.keys, ", "))
}
func (g *Groups) Type() string          { return "frame.groups" }
func (g *Groups) Freeze()               {}
func (g *Groups) Truth() starlark.Bool  { return g.g.Len() > 0 }
func (g *Groups) Hash() (uint32, error) { return 0, errUnhashable("frame.groups") }
func (g *Groups) Len() int              { return g.g.Len() }

// Iterate yields (key, frame) pairs, key a tuple of the key values.
func (g *Groups) Iterate() starlark.Iterator {
	rows := g.g.Rows()
	keys := g.g.Keys()
	var items []starlark.Value
	for i, idx := range rows {
		key := make(starlark.Tuple, len(keys))
		for k, c := range keys {
			key[k] = cell(c, i)
		}
		df, err := table.Take(g.frame.DataFrame(), idx)
		if err != nil {
			continue
		}
		items = append(items, starlark.Tuple{key, NewFrame(df)})
	}
	return starlark.Tuple(items).Iterate()
}

// groupsType documents frame.groups values and dispatches their methods.
var groupsType = &valueType[*Groups]{
	name: "frame.groups",
	doc:  "a frame split by key columns (frame.group_by); len(g) is the group count, `for key, rows in g` gives each key tuple and its frame",
	attrs: []runtime.Member{
		attr("keys", "a frame of the key columns, one row per group, in group order"),
	},
	methods: []method[*Groups]{
		{"agg", "(*stats, nan=\"propagate\", **columns)", "one row per group: agg(\"mean\") applies to every numeric non-key column, agg(iops=\"mean\", p99_us=[\"p50\", \"p99\"]) picks; stats count, sum, mean, std, cv, min, max, same, pNN; nan=\"skip\" ignores missing values", groupsAgg},
	},
}

func (g *Groups) AttrNames() []string { return groupsType.names() }

func (g *Groups) Attr(name string) (starlark.Value, error) {
	if name == "keys" {
		return result(table.NewFrame(g.g.Keys()...))
	}
	return groupsType.method(g, name), nil
}

// groupsAgg reduces each group to one row: agg("mean") applies to every numeric
// column that is not a key; agg(iops="mean", p99_us=["p50", "p99"]) picks.
func groupsAgg(g *Groups, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	nan := "propagate"
	var aggs []table.Agg
	stats, err := stringArgs(args, "statistic")
	if err != nil {
		return nil, err
	}
	for _, kv := range kwargs {
		col := string(kv[0].(starlark.String))
		if col == "nan" {
			s, ok := starlark.AsString(kv[1])
			if !ok {
				return nil, fmt.Errorf("nan is %s; want \"skip\" or \"propagate\"", kv[1].Type())
			}
			nan = s
			continue
		}
		var want names
		if err := want.Unpack(kv[1]); err != nil {
			return nil, fmt.Errorf("%s: %w (statistics such as \"mean\" or [\"p50\", \"p99\"])", col, err)
		}
		for _, s := range want {
			aggs = append(aggs, table.Agg{Column: col, Stat: s})
		}
	}
	for _, s := range stats {
		for _, c := range table.ReadAll(g.frame.DataFrame()) {
			if (c.Numeric() || s == "count") && !slices.Contains(g.keys, c.Name) && c.Name != SimulatedColumn {
				aggs = append(aggs, table.Agg{Column: c.Name, Stat: s})
			}
		}
	}
	if len(aggs) == 0 {
		return nil, fmt.Errorf("nothing to aggregate; say what, e.g. agg(\"mean\") or agg(iops=\"mean\", p99_us=[\"p50\", \"p99\"])")
	}
	policy, err := table.ParseNaNPolicy(nan)
	if err != nil {
		return nil, err
	}
	if g.frame.hasColumn(SimulatedColumn) && !slices.Contains(g.keys, SimulatedColumn) {
		aggs = append(aggs, table.Agg{Column: SimulatedColumn, Stat: "same", As: SimulatedColumn})
	}
	df, err := g.g.Aggregate(aggs, policy)
	if err != nil {
		if strings.Contains(err.Error(), fmt.Sprintf("%q has different values", SimulatedColumn)) {
			return nil, fmt.Errorf("a group mixes simulated and measured rows; add %q to the group keys or filter first", SimulatedColumn)
		}
		return nil, err
	}
	return NewFrame(df), nil
}
