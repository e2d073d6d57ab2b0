package builtins

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/go-gota/gota/dataframe"
	"go.starlark.net/starlark"

	"starbench/internal/fio"
	"starbench/internal/runtime"
	"starbench/internal/table"
)

// Frame is the Starlark handle of a table of results (a gota DataFrame).
// It is immutable: every operation returns a new frame.
//
// A frame built from simulated data carries a bool column named "simulated"
// (SimulatedColumn). Frame operations keep it: select always keeps it,
// group_by, pivot and describe carry it when it is the same in every row
// they combine and refuse otherwise, join matches rows only of the same kind.
type Frame struct {
	df dataframe.DataFrame
	// notes are what the data plane said of the runs behind the frame
	// (bottleneck, physical-bound warnings); fio.run's frames carry them,
	// frames derived from those do not.
	notes []string
	// runs are the results fio.run made the frame of, so that a campaign
	// stores them without reading the frame back; nil for other frames.
	runs []*fio.Result
	// built makes df of runs when the frame is first read: a campaign
	// stores fio.run's results without ever reading its frame.
	built sync.Once
}

// SimulatedColumn names the bool column that says whether a row is simulated.
const SimulatedColumn = "simulated"

var (
	_ starlark.HasAttrs  = (*Frame)(nil)
	_ starlark.Indexable = (*Frame)(nil)
	_ starlark.Sequence  = (*Frame)(nil)
	_ starlark.Mapping   = (*Frame)(nil)
)

// NewFrame returns the handle of df.
func NewFrame(df dataframe.DataFrame) *Frame { return &Frame{df: df} }

// NewFrameWithNotes returns the handle of df carrying the data plane's
// notes of the runs behind it, so a campaign stores them with the run.
func NewFrameWithNotes(df dataframe.DataFrame, notes []string) *Frame {
	return &Frame{df: df, notes: notes}
}

// newRunFrame returns the frame fio.run makes of its results: their
// ResultFrame, built when the frame is first read.
func newRunFrame(notes []string, runs []*fio.Result) *Frame {
	return &Frame{notes: notes, runs: runs}
}

// Notes returns the data plane's notes of the runs behind the frame.
func (f *Frame) Notes() []string { return f.notes }

// DataFrame returns the frame's table.
func (f *Frame) DataFrame() dataframe.DataFrame {
	f.built.Do(func() {
		if f.runs == nil {
			return
		}
		// ResultFrame cannot fail on fio.run's results: its columns are the
		// fixed ones and the distinct percentiles beyond them fio lists.
		df, err := ResultFrame(f.runs...)
		if err != nil {
			df = dataframe.DataFrame{Err: fmt.Errorf("internal error: the frame of fio.run's results: %w", err)}
		}
		f.df = df
	})
	return f.df
}

// frameRows is how many rows str(frame) shows.
const frameRows = 20

func (f *Frame) String() string {
	return strings.TrimSuffix(table.Text(f.DataFrame(), frameRows), "\n")
}
func (f *Frame) Type() string          { return "frame" }
func (f *Frame) Freeze()               {}
func (f *Frame) Truth() starlark.Bool  { return f.DataFrame().Nrow() > 0 }
func (f *Frame) Hash() (uint32, error) { return 0, errUnhashable("frame") }

// Len is the number of rows.
func (f *Frame) Len() int { return f.DataFrame().Nrow() }

// Index returns row i as a dict.
func (f *Frame) Index(i int) starlark.Value { return rowDict(table.ReadAll(f.DataFrame()), i) }

// Iterate yields the rows as dicts: `for row in f`.
func (f *Frame) Iterate() starlark.Iterator {
	cols := table.ReadAll(f.DataFrame())
	return &rowIterator{cols: cols, n: f.Len()}
}

type rowIterator struct {
	cols []*table.Column
	i, n int
}

func (it *rowIterator) Next(p *starlark.Value) bool {
	if it.i >= it.n {
		return false
	}
	*p = rowDict(it.cols, it.i)
	it.i++
	return true
}

func (it *rowIterator) Done() {}

// Get returns a column as a list (f["iops"]) or a row as a dict (f[0]).
func (f *Frame) Get(k starlark.Value) (starlark.Value, bool, error) {
	switch k := k.(type) {
	case starlark.String:
		c, err := table.Read(f.DataFrame(), string(k))
		if err != nil {
			return nil, false, err
		}
		return columnList(c), true, nil
	case starlark.Int:
		i, ok := k.Int64()
		n := int64(f.Len())
		if i < 0 {
			i += n
		}
		if !ok || i < 0 || i >= n {
			return nil, false, fmt.Errorf("row %s out of range; the frame has %d rows", k, n)
		}
		return f.Index(int(i)), true, nil
	}
	return nil, false, fmt.Errorf("frame index is %s; want a column name or a row number", k.Type())
}

// Simulated reports whether any row is simulated, and whether rows mix
// simulated and measured.
func (f *Frame) Simulated() (any, mixed bool) {
	c, err := table.Read(f.DataFrame(), SimulatedColumn)
	if err != nil || c.Kind != table.Bool {
		return false, false
	}
	all := true
	for i, v := range c.Bools {
		sim := v && !c.IsNA(i)
		any = any || sim
		all = all && sim
	}
	return any, any && !all
}

func (f *Frame) hasColumn(name string) bool { return slices.Contains(f.DataFrame().Names(), name) }

// toGo converts a Starlark cell value to a Go value for table.
func toGo(v starlark.Value) (any, error) {
	switch v := v.(type) {
	case starlark.NoneType:
		return nil, nil
	case starlark.Bool:
		return bool(v), nil
	case starlark.Int:
		i, ok := v.Int64()
		if !ok {
			return nil, fmt.Errorf("integer %s is too large", v)
		}
		return int(i), nil
	case starlark.Float:
		return float64(v), nil
	case starlark.String:
		return string(v), nil
	}
	return nil, fmt.Errorf("got %s, want a bool, int, float, string or None", v.Type())
}

// cell returns value i of c for Starlark: None when missing.
func cell(c *table.Column, i int) starlark.Value {
	if c.IsNA(i) {
		return starlark.None
	}
	switch c.Kind {
	case table.Bool:
		return starlark.Bool(c.Bools[i])
	case table.Int:
		return starlark.MakeInt(c.Ints[i])
	case table.Float:
		return starlark.Float(c.Floats[i])
	}
	return starlark.String(c.Strings[i])
}

func columnList(c *table.Column) *starlark.List {
	vals := make([]starlark.Value, c.Len())
	for i := range vals {
		vals[i] = cell(c, i)
	}
	return starlark.NewList(vals)
}

func rowDict(cols []*table.Column, i int) *starlark.Dict {
	d := starlark.NewDict(len(cols))
	for _, c := range cols {
		_ = d.SetKey(starlark.String(c.Name), cell(c, i))
	}
	return d
}

// frameType documents frames and dispatches their methods.
var frameType = &valueType[*Frame]{
	name: "frame",
	doc:  "an immutable table of results (fio.run, store frames, frame.from_rows); every method returns a new frame. len(f) is the row count, f[\"iops\"] a column as a list, f[0] a row as a dict, `for row in f` gives dicts",
	attrs: []runtime.Member{
		attr("columns", "the column names, in order"),
		attr("types", "a dict of column name to type: bool, int, float or string"),
		attr("notes", "what the data plane said of the runs behind the frame (fio.run's: fio options it does not model, an uncalibrated testbed, inputs outside the calibrated range, what bound the run), as a list of strings; empty for other frames"),
	},
	methods: []method[*Frame]{
		{"concat", "(*others)", "this frame's rows followed by the others' (missing columns become None)", frameConcatMethod},
		{"describe", "()", "count, mean, std, min, p50, p95, p99, max of each numeric column", frameDescribe},
		{"drop", "(*columns)", "the frame without the named columns (simulated stays)", frameDrop},
		{"filter", "(fn=None, **conditions)", "rows where every condition holds: col=value, col=[values], col=(op, value) with op in == != < <= > >= (text in natural order: (\"<\", \"64k\") keeps 4k and 32k); fn(row) for anything else", frameFilter},
		{"group_by", "(*keys)", "groups of rows by key columns, sorted, keys compared as typed tuples (text in natural order: digits as numbers, 4k before 32k, raid5 before raid10); .agg(...) reduces them (see frame.groups)", frameGroupBy},
		{"head", "(n=5)", "the first n rows", frameHead},
		{"join", "(other, on, how=\"inner\")", "rows of both frames with equal on columns; how is inner, left or outer", frameJoin},
		{"mutate", "(**columns)", "with_column for each keyword, in order", frameMutate},
		{"pivot", "(index, columns, values, agg=None, nan=\"propagate\")", "long to wide: one row per index value, one column per distinct columns value", framePivot},
		{"rename", "(**names)", "columns renamed old=new", frameRename},
		{"rows", "()", "the rows as a list of dicts", frameRowsMethod},
		{"select", "(*columns)", "only the named columns, in that order (simulated stays)", frameSelect},
		{"show", "(title=None)", "prints the table (under title) to standard output, where results go; print() goes to stderr", frameShow},
		{"sort", "(*keys, reverse=False)", "rows sorted by keys (\"-col\" for descending; text in natural order: 4k before 32k); reverse=True sorts every key the other way; stable; None last either way", frameSort},
		{"tail", "(n=5)", "the last n rows", frameTail},
		{"to_csv", "(path=None)", "CSV text, or written to path (relative to the output directory); returns the text or the path", frameToCSV},
		{"to_json", "(path=None)", "JSON array of row objects, or written to path", frameToJSON},
		{"to_markdown", "(path=None)", "Markdown table with units, or written to path", frameToMarkdown},
		{"unique", "(column)", "the distinct values of a column, sorted (text in natural order: 10g before 100g), None last", frameUnique},
		{"with_column", "(name, value)", "the frame with column name set from a list, a function of the row, or one value for all rows", frameWithColumn},
	},
}

func (f *Frame) AttrNames() []string { return frameType.names() }

func (f *Frame) Attr(name string) (starlark.Value, error) {
	switch name {
	case "columns":
		names := f.DataFrame().Names()
		vals := make([]starlark.Value, len(names))
		for i, n := range names {
			vals[i] = starlark.String(n)
		}
		return starlark.NewList(vals), nil
	case "types":
		d := starlark.NewDict(f.DataFrame().Ncol())
		for _, c := range table.ReadAll(f.DataFrame()) {
			_ = d.SetKey(starlark.String(c.Name), starlark.String(c.Kind.String()))
		}
		return d, nil
	case "notes":
		return strList(f.notes), nil
	}
	return frameType.method(f, name), nil // nil: starlark reports "has no .x field or method" with a did-you-mean
}

type errUnhashable string

func (e errUnhashable) Error() string { return "unhashable type: " + string(e) }

// result wraps a table operation's frame.
func result(df dataframe.DataFrame, err error) (starlark.Value, error) {
	if err != nil {
		return nil, err
	}
	return NewFrame(df), nil
}

func stringArgs(args starlark.Tuple, what string) ([]string, error) {
	out := make([]string, len(args))
	for i, a := range args {
		s, ok := starlark.AsString(a)
		if !ok {
			return nil, fmt.Errorf("%s %d is %s; want a column name", what, i+1, a.Type())
		}
		out[i] = s
	}
	return out, nil
}

// names unpacks one column name or a list of them.
type names []string

func (n *names) Unpack(v starlark.Value) error {
	if s, ok := starlark.AsString(v); ok {
		*n = names{s}
		return nil
	}
	iter, ok := v.(starlark.Iterable)
	if !ok {
		return fmt.Errorf("got %s, want a column name or a list of them", v.Type())
	}
	it := iter.Iterate()
	defer it.Done()
	var x starlark.Value
	for it.Next(&x) {
		s, ok := starlark.AsString(x)
		if !ok {
			return fmt.Errorf("got %s in the list, want column names", x.Type())
		}
		*n = append(*n, s)
	}
	return nil
}
