package builtins

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.starlark.net/starlark"
	"gonum.org/v1/gonum/stat"

	"starbench/internal/runtime"
	"starbench/internal/table"
	"starbench/plots"
)

// NewPlotModule returns the `plot` module: report-quality figures.
func NewPlotModule(deps Deps) *runtime.Module {
	const common = "title=\"\", xlabel=None, ylabel=None, save=None, size=\"16x10cm\", dpi=150"
	return &runtime.Module{
		Name: "plot",
		Doc:  "report-quality figures from frames (PNG, SVG, PDF); figures from simulated rows say so",
		Members: []runtime.Member{
			{Name: "bars", Params: "(frame, x, y, series=None, err=None, stacked=False, labels=False, unit=None, " + common + ")",
				Doc: "bars of y per x category, grouped (or stacked) by series; repeated rows show mean ± std", Fn: plotBars},
			{Name: "lines", Params: "(frame, x, y, series=None, err=None, logx=False, logy=False, xunit=None, unit=None, " + common + ")",
				Doc: "lines of y over x per series with error bars; repeated rows show mean ± std", Fn: plotLines},
			{Name: "scatter", Params: "(frame, x, y, series=None, logx=False, logy=False, xunit=None, unit=None, " + common + ")",
				Doc: "one marker per row, one shape and colour per series", Fn: plotScatter},
			{Name: "hockey", Params: "(frame, x=\"iops\", y=\"p99_us\", series=None, label=None, xunit=None, unit=None, " + common + ")",
				Doc: "latency-vs-throughput curve per series, one point per load level (the label column, e.g. label=\"iodepth\") in load order and labelled where the label fits; a level's repeated rows are drawn as their mean with ± std error bars both ways", Fn: plotHockey},
			{Name: "heatmap", Params: "(frame, x, y, value, agg=None, unit=None, " + common + ")",
				Doc: "a matrix of value by x and y (e.g. compression x rdma), cells coloured and labelled, rows and columns in the order the frame first has them", Fn: plotHeatmap},
			{Name: "facets", Params: "(frame, by, kind=\"bars\", cols=0, shared_y=True, title=\"\", save=None, size=\"16x10cm\", dpi=150, **chart)",
				Doc: "small multiples: one chart of kind per value of by (in the order the frame first has them; cols=0 lays them out about square for the figure's size), sharing the y range (or colour scale) and legend", Fn: plotFacets},
			timelineMember,
		},
		Types: []*runtime.Type{figureType.Doc()},
	}
}

// errMixed refuses to draw simulated and measured rows in one figure.
var errMixed = errors.New("the frame mixes simulated and measured rows; plot them separately (filter(simulated=True) / filter(simulated=False))")

// errNoRows refuses to draw an empty figure.
var errNoRows = errors.New("nothing to plot: the frame has no rows")

// Figure is the Starlark handle of a figure; save writes it.
type Figure struct {
	fig *plots.Figure
}

var _ starlark.HasAttrs = (*Figure)(nil)

func (f *Figure) String() string        { return fmt.Sprintf("plot.figure(%q)", f.fig.Title) }
func (f *Figure) Type() string          { return "plot.figure" }
func (f *Figure) Freeze()               {}
func (f *Figure) Truth() starlark.Bool  { return starlark.True }
func (f *Figure) Hash() (uint32, error) { return 0, errUnhashable("plot.figure") }

// figureType documents plot.figure values and dispatches their methods.
var figureType = &valueType[*Figure]{
	name: "plot.figure",
	doc:  "a figure a plot builtin drew, ready to save in any size",
	attrs: []runtime.Member{
		attr("simulated", "True when drawn from simulated rows (the figure is stamped so)"),
		attr("title", "the title drawn above the figure"),
	},
	methods: []method[*Figure]{
		{"save", "(path, size=\"16x10cm\", dpi=150)", "writes the figure as .png, .svg or .pdf; a relative path goes under the output directory (the REPL's: out/repl); returns the path written", figureSave},
	},
}

func (f *Figure) AttrNames() []string { return figureType.names() }

func (f *Figure) Attr(name string) (starlark.Value, error) {
	switch name {
	case "title":
		return starlark.String(f.fig.Title), nil
	case "simulated":
		return starlark.Bool(f.fig.Simulated), nil
	}
	return figureType.method(f, name), nil
}

// figureSave writes the figure: .png, .svg or .pdf; relative paths go under the output directory.
func figureSave(f *Figure, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path string
	size, dpi := "16x10cm", 150
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path, "size?", &size, "dpi?", &dpi); err != nil {
		return nil, err
	}
	out, err := saveFigure(thread, f.fig, path, size, dpi)
	if err != nil {
		return nil, err
	}
	return starlark.String(out), nil
}

func saveFigure(thread *starlark.Thread, fig *plots.Figure, path, size string, dpi int) (string, error) {
	sz, err := plots.ParseSize(size)
	if err != nil {
		return "", err
	}
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if !slices.Contains(plots.Formats, ext) {
		return "", fmt.Errorf("cannot save a figure as %q; use a .png, .svg or .pdf file name", path)
	}
	out, err := outputPath(thread, path)
	if err != nil {
		return "", err
	}
	if err := fig.Save(runtime.Context(thread), out, sz, dpi); err != nil {
		return "", err
	}
	if s, err := runtime.SessionFrom(thread); err == nil {
		s.Wrote(out)
	}
	return out, nil
}

// common holds the arguments every chart takes.
type common struct {
	thread        *starlark.Thread
	title         string
	xlabel        starlark.Value
	ylabel        starlark.Value
	save          string
	size          string
	dpi           int
	xunit, unit   starlark.Value
	logx, logy    bool
	series, label starlark.Value
}

func newCommon(thread *starlark.Thread) *common {
	return &common{thread: thread, size: "16x10cm", dpi: 150, xlabel: starlark.None, ylabel: starlark.None,
		xunit: starlark.None, unit: starlark.None, series: starlark.None, label: starlark.None}
}

func (c *common) pairs() []any {
	return []any{"title?", &c.title, "xlabel?", &c.xlabel, "ylabel?", &c.ylabel,
		"save?", &c.save, "size?", &c.size, "dpi?", &c.dpi}
}

// optString reads an optional string argument: None means def.
func optString(v starlark.Value, what, def string) (string, error) {
	if v == nil || v == starlark.None {
		return def, nil
	}
	s, ok := starlark.AsString(v)
	if !ok {
		return "", fmt.Errorf("%s is %s; want a string or None", what, v.Type())
	}
	return s, nil
}

// options builds chart options; x and y name the columns plotted.
func (c *common) options(f *Frame, x, y string) (plots.Options, error) {
	sim, mixed := f.Simulated()
	if mixed {
		return plots.Options{}, errMixed
	}
	o := plots.Options{Title: c.title, LogX: c.logx, LogY: c.logy, Simulated: sim}
	var err error
	for _, s := range []struct {
		dst      *string
		v        starlark.Value
		what, by string
	}{
		{&o.XLabel, c.xlabel, "xlabel", axisName(x)}, {&o.YLabel, c.ylabel, "ylabel", axisName(y)},
		{&o.XUnit, c.xunit, "xunit", table.UnitOf(x)}, {&o.YUnit, c.unit, "unit", table.UnitOf(y)},
	} {
		if *s.dst, err = optString(s.v, s.what, s.by); err != nil {
			return o, err
		}
	}
	return o, nil
}

// axisName is the default axis label of a column: what it measures, its
// unit left to the ticks ("p99_us" reads "p99", "iops" reads "IOPS").
func axisName(column string) string {
	measure, unit := table.SplitUnit(column)
	if strings.EqualFold(measure, unit) {
		return unit
	}
	return measure
}

// finish saves the figure when save= was given and returns its handle.
func (c *common) finish(fig *plots.Figure, err error) (starlark.Value, error) {
	if err != nil {
		return nil, err
	}
	if c.save != "" {
		if _, err := saveFigure(c.thread, fig, c.save, c.size, c.dpi); err != nil {
			return nil, err
		}
	}
	return &Figure{fig: fig}, nil
}

// points groups the rows of f by (x, series): each point's y values.
type points struct {
	xs, series []string      // distinct labels, in order of first appearance
	xCol       *table.Column // the x column
	xFirst     []int         // first row of each x
	ys         map[[2]int][]float64
	errs       map[[2]int]float64
}

func collect(f *Frame, x, y string, series starlark.Value, errCol string) (*points, error) {
	xc, yc, err := xyColumns(f, x, y)
	if err != nil {
		return nil, err
	}
	if !yc.Numeric() {
		return nil, fmt.Errorf("column %q holds %ss; y must be numeric", y, yc.Kind)
	}
	if err := checkFinite(yc, xc); err != nil {
		return nil, err
	}
	var sc, ec *table.Column
	seriesName, err := optString(series, "series", "")
	if err != nil {
		return nil, err
	}
	if sc, err = optionalColumn(f, seriesName); err != nil {
		return nil, err
	}
	if ec, err = optionalColumn(f, errCol); err != nil {
		return nil, err
	}
	if ec != nil {
		if err := checkFinite(ec, xc); err != nil {
			return nil, err
		}
	}
	if f.Len() == 0 {
		return nil, errNoRows
	}
	p := &points{xCol: xc, ys: map[[2]int][]float64{}, errs: map[[2]int]float64{}}
	xcat, scat := newCategories(xc), newCategories(sc)
	for row := range f.Len() {
		k := [2]int{xcat.of(row), scat.of(row)}
		p.ys[k] = append(p.ys[k], yc.Float(row))
		if ec != nil {
			if len(p.ys[k]) > 1 {
				return nil, fmt.Errorf("several rows for %s=%s%s; with err= give one row per point (group_by(...).agg first)",
					x, exactLabel(xc, row), seriesText(seriesName, sc, row))
			}
			p.errs[k] = ec.Float(row)
		}
	}
	p.xs, p.xFirst, p.series = xcat.names(), xcat.first, scat.names()
	return p, nil
}

func seriesText(name string, c *table.Column, row int) string {
	if c == nil {
		return ""
	}
	return ", " + name + "=" + exactLabel(c, row)
}

// label is the text of a category value.
func label(c *table.Column, i int) string {
	if c.IsNA(i) {
		return "NA"
	}
	if c.Kind == table.Float {
		return plots.FormatValue(c.Floats[i], "")
	}
	return fmt.Sprint(c.Value(i))
}

// exactLabel is the text of a value with every digit it has: label rounds
// floats to 3 significant digits, so 1000 and 1004 both read "1k".
func exactLabel(c *table.Column, i int) string {
	if c.Kind == table.Float && !c.IsNA(i) {
		return strconv.FormatFloat(c.Floats[i]+0, 'f', -1, 64) // +0: -0 reads 0
	}
	return label(c, i)
}

// valueNames names the values of a column of distinct values (group keys).
func valueNames(c *table.Column) []string {
	cat := newCategories(c)
	for row := range c.Len() {
		cat.of(row)
	}
	return cat.names()
}

// categories numbers the distinct values of a column (x, series) in order
// of first appearance. Values are told apart exactly, not by their rounded
// label, so distinct values never merge into one point or series; a nil
// column is one unnamed category.
type categories struct {
	col   *table.Column
	index map[string]int
	first []int // first row of each category
}

func newCategories(c *table.Column) *categories {
	return &categories{col: c, index: map[string]int{}}
}

// of returns the category of row.
func (c *categories) of(row int) int {
	key := ""
	if c.col != nil {
		key = exactLabel(c.col, row)
		if c.col.IsNA(row) {
			key = "\x00NA" // apart from a string "NA"
		}
	}
	i, ok := c.index[key]
	if !ok {
		i = len(c.first)
		c.index[key] = i
		c.first = append(c.first, row)
	}
	return i
}

// names returns the label of each category; categories whose labels
// coincide are named exactly instead.
func (c *categories) names() []string {
	names := make([]string, len(c.first))
	if c.col == nil {
		return names
	}
	seen := map[string]int{}
	for i, row := range c.first {
		names[i] = label(c.col, row)
		seen[names[i]]++
	}
	for i, row := range c.first {
		if seen[names[i]] > 1 {
			names[i] = exactLabel(c.col, row)
		}
	}
	return names
}

// series turns points into one plots.Series per series: mean of repeats,
// and ± std of repeats as error bars unless err columns were given.
func (p *points) toSeries(autoErr bool) []plots.Series {
	out := make([]plots.Series, len(p.series))
	for s, name := range p.series {
		ps := plots.Series{Name: name, Y: make([]float64, len(p.xs))}
		var errs []float64
		for i := range p.xs {
			vals := p.ys[[2]int{i, s}]
			mean, std := meanStd(vals)
			ps.Y[i] = mean
			e, given := p.errs[[2]int{i, s}]
			if !given && autoErr && len(vals) > 1 {
				e, given = std, true
			}
			if given {
				if errs == nil {
					errs = make([]float64, len(p.xs))
				}
				errs[i] = e
			}
		}
		ps.Err = errs
		out[s] = ps
	}
	return out
}

// meanStd returns the mean and sample standard deviation; any missing
// value makes both missing, and no values give missing.
func meanStd(vals []float64) (float64, float64) {
	switch len(vals) {
	case 0:
		return math.NaN(), math.NaN()
	case 1:
		return vals[0], math.NaN()
	}
	return stat.MeanStdDev(vals, nil)
}

// errArg reads err=: None (std of repeats), False (none) or a column name.
func errArg(v starlark.Value) (col string, auto bool, err error) {
	switch v := v.(type) {
	case nil, starlark.NoneType:
		return "", true, nil
	case starlark.Bool:
		if !v {
			return "", false, nil
		}
	case starlark.String:
		return string(v), false, nil
	}
	return "", false, fmt.Errorf("err is %s; want a column name, None (± std of repeated rows) or False (no error bars)", v.Type())
}

func plotBars(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var f *Frame
	var x, y string
	var errV starlark.Value = starlark.None
	var stacked, labels bool
	c := newCommon(thread)
	pairs := append([]any{"frame", &f, "x", &x, "y", &y, "series?", &c.series, "err?", &errV,
		"stacked?", &stacked, "labels?", &labels, "unit?", &c.unit}, c.pairs()...)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, pairs...); err != nil {
		return nil, err
	}
	o, err := c.options(f, x, y)
	if err != nil {
		return nil, err
	}
	if o.XLabel == axisName(x) {
		o.XLabel = "" // category names speak for themselves
	}
	errCol, auto, err := errArg(errV)
	if err != nil {
		return nil, err
	}
	p, err := collect(f, x, y, c.series, errCol)
	if err != nil {
		return nil, err
	}
	o.Stacked, o.ValueLabels = stacked, labels
	return c.finish(plots.Bars(p.xs, p.toSeries(auto && !stacked), o))
}

func plotLines(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var f *Frame
	var x, y string
	var errV starlark.Value = starlark.None
	c := newCommon(thread)
	pairs := append([]any{"frame", &f, "x", &x, "y", &y, "series?", &c.series, "err?", &errV,
		"logx?", &c.logx, "logy?", &c.logy, "xunit?", &c.xunit, "unit?", &c.unit}, c.pairs()...)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, pairs...); err != nil {
		return nil, err
	}
	o, err := c.options(f, x, y)
	if err != nil {
		return nil, err
	}
	errCol, auto, err := errArg(errV)
	if err != nil {
		return nil, err
	}
	p, err := collect(f, x, y, c.series, errCol)
	if err != nil {
		return nil, err
	}
	series := p.toSeries(auto)
	xs := make([]float64, len(p.xs))
	for i, row := range p.xFirst {
		xs[i] = float64(i)
		if p.xCol.Numeric() {
			xs[i] = p.xCol.Float(row)
		}
	}
	if !p.xCol.Numeric() {
		o.Categories = p.xs
	}
	for i := range series {
		series[i].X = xs
		if p.xCol.Numeric() {
			sortByX(&series[i])
		}
	}
	return c.finish(plots.Lines(series, o))
}

// sortByX orders a series' points by X so lines run left to right.
func sortByX(s *plots.Series) {
	idx := make([]int, len(s.X))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case s.X[a] < s.X[b]:
			return -1
		case s.X[a] > s.X[b]:
			return 1
		}
		return 0
	})
	reorder := func(v []float64) []float64 {
		if v == nil {
			return nil
		}
		out := make([]float64, len(idx))
		for i, j := range idx {
			out[i] = v[j]
		}
		return out
	}
	s.X, s.Y, s.Err = reorder(s.X), reorder(s.Y), reorder(s.Err)
	if s.Labels != nil {
		labels := make([]string, len(idx))
		for i, j := range idx {
			labels[i] = s.Labels[j]
		}
		s.Labels = labels
	}
}

// xySeries returns one series of raw (x, y) rows per value of the series column.
func xySeries(f *Frame, x, y string, seriesV, labelV starlark.Value) ([]plots.Series, error) {
	xc, yc, err := xyColumns(f, x, y)
	if err != nil {
		return nil, err
	}
	for _, c := range []*table.Column{xc, yc} {
		if !c.Numeric() {
			return nil, fmt.Errorf("column %q holds %ss; x and y must be numeric", c.Name, c.Kind)
		}
		if err := checkFinite(c, nil); err != nil {
			return nil, err
		}
	}
	seriesName, err := optString(seriesV, "series", "")
	if err != nil {
		return nil, err
	}
	labelName, err := optString(labelV, "label", "")
	if err != nil {
		return nil, err
	}
	var sc, lc *table.Column
	if sc, err = optionalColumn(f, seriesName); err != nil {
		return nil, err
	}
	if lc, err = optionalColumn(f, labelName); err != nil {
		return nil, err
	}
	if f.Len() == 0 {
		return nil, errNoRows
	}
	var out []plots.Series
	cat := newCategories(sc)
	for row := range f.Len() {
		i := cat.of(row)
		if i == len(out) {
			out = append(out, plots.Series{})
		}
		s := &out[i]
		s.X = append(s.X, xc.Float(row))
		s.Y = append(s.Y, yc.Float(row))
		if lc != nil {
			s.Labels = append(s.Labels, label(lc, row))
		}
	}
	for i, name := range cat.names() {
		out[i].Name = name
	}
	return out, nil
}

func plotScatter(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var f *Frame
	var x, y string
	c := newCommon(thread)
	pairs := append([]any{"frame", &f, "x", &x, "y", &y, "series?", &c.series,
		"logx?", &c.logx, "logy?", &c.logy, "xunit?", &c.xunit, "unit?", &c.unit}, c.pairs()...)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, pairs...); err != nil {
		return nil, err
	}
	o, err := c.options(f, x, y)
	if err != nil {
		return nil, err
	}
	series, err := xySeries(f, x, y, c.series, nil)
	if err != nil {
		return nil, err
	}
	return c.finish(plots.Scatter(series, o))
}

func plotHockey(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var f *Frame
	x, y := "iops", "p99_us"
	c := newCommon(thread)
	pairs := append([]any{"frame", &f, "x?", &x, "y?", &y, "series?", &c.series, "label?", &c.label,
		"xunit?", &c.xunit, "unit?", &c.unit}, c.pairs()...)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, pairs...); err != nil {
		return nil, err
	}
	o, err := c.options(f, x, y)
	if err != nil {
		return nil, err
	}
	// Order points by load: the label column when numeric, else throughput.
	order := x
	if name, _ := optString(c.label, "label", ""); name != "" {
		if lc, err := table.Read(f.DataFrame(), name); err == nil && lc.Numeric() {
			order = name
		}
	}
	df, err := table.Sort(runtime.Context(thread), f.DataFrame(), []table.SortKey{{Column: order}})
	if err != nil {
		return nil, err
	}
	series, err := hockeySeries(NewFrame(df), x, y, c.series, c.label)
	if err != nil {
		return nil, err
	}
	return c.finish(plots.Hockey(series, o))
}

// hockeySeries returns a curve per value of the series column with one
// point per load level, a value of the label column: the mean x and y of
// the level's rows (its repeats), with ± their std as error bars both ways
// when a level has more than one row. Levels keep the order of f's rows.
// Without a label every row is a point.
func hockeySeries(f *Frame, x, y string, seriesV, labelV starlark.Value) ([]plots.Series, error) {
	rows, err := xySeries(f, x, y, seriesV, labelV) // checks the columns
	if err != nil {
		return nil, err
	}
	labelName, _ := optString(labelV, "label", "")
	if labelName == "" {
		return rows, nil
	}
	seriesName, _ := optString(seriesV, "series", "")
	sc, _ := optionalColumn(f, seriesName)
	lc, _ := optionalColumn(f, labelName)
	xc, yc, _ := xyColumns(f, x, y)
	type level struct{ xs, ys []float64 }
	byCurve := newCategories(sc)
	var levels []*categories
	var values [][]*level
	for row := range f.Len() {
		s := byCurve.of(row)
		if s == len(levels) {
			levels = append(levels, newCategories(lc))
			values = append(values, nil)
		}
		l := levels[s].of(row)
		if l == len(values[s]) {
			values[s] = append(values[s], &level{})
		}
		values[s][l].xs = append(values[s][l].xs, xc.Float(row))
		values[s][l].ys = append(values[s][l].ys, yc.Float(row))
	}
	out := make([]plots.Series, len(rows))
	repeated := false
	for s := range out {
		curve := plots.Series{Name: rows[s].Name, Labels: levels[s].names()}
		for _, v := range values[s] {
			mx, sx := meanStd(v.xs)
			my, sy := meanStd(v.ys)
			curve.X, curve.Y = append(curve.X, mx), append(curve.Y, my)
			curve.XErr, curve.Err = append(curve.XErr, sx), append(curve.Err, sy)
			repeated = repeated || len(v.xs) > 1
		}
		out[s] = curve
	}
	if !repeated {
		for s := range out {
			out[s].XErr, out[s].Err = nil, nil
		}
	}
	return out, nil
}

func plotHeatmap(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var f *Frame
	var x, y, value, agg string
	c := newCommon(thread)
	pairs := append([]any{"frame", &f, "x", &x, "y", &y, "value", &value, "agg?", &agg, "unit?", &c.unit}, c.pairs()...)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, pairs...); err != nil {
		return nil, err
	}
	o, err := c.options(f, x, y)
	if err != nil {
		return nil, err
	}
	unit, err := optString(c.unit, "unit", table.UnitOf(value))
	if err != nil {
		return nil, err
	}
	if vc, err := table.Read(f.DataFrame(), value); err != nil {
		return nil, err
	} else if err := checkFinite(vc, nil); err != nil {
		return nil, err
	}
	wide, err := table.Pivot(runtime.Context(thread), f.DataFrame(), []string{y}, x, value, agg, table.Propagate)
	if err != nil {
		return nil, err
	}
	cols := table.ReadAll(wide)
	rows := valueNames(cols[0])
	var names []string
	for _, col := range cols[1:] {
		names = append(names, col.Name)
	}
	// Rows and columns in the order the frame first has them, as bars'
	// categories are; the pivot sorts them.
	rowOrder, colOrder := inFrameOrder(f, y, rows), inFrameOrder(f, x, names)
	values := make([][]float64, len(rowOrder))
	for i, r := range rowOrder {
		for _, k := range colOrder {
			values[i] = append(values[i], cols[1+k].Float(r))
		}
	}
	return c.finish(plots.Heatmap(permute(rows, rowOrder), permute(names, colOrder), values, unit, o))
}

// inFrameOrder is the order of names (a column's distinct values, as the
// pivot sorted them) in which the frame's column first has them; the
// pivot's own where the two do not name them alike.
func inFrameOrder(f *Frame, column string, names []string) []int {
	pivots := make([]int, len(names))
	for i := range pivots {
		pivots[i] = i
	}
	col, err := table.Read(f.DataFrame(), column)
	if err != nil {
		return pivots
	}
	first := valueNames(col)
	if len(first) != len(names) {
		return pivots
	}
	order := make([]int, len(first))
	for i, name := range first {
		if order[i] = slices.Index(names, name); order[i] < 0 {
			return pivots
		}
	}
	return order
}

// permute is names in order.
func permute(names []string, order []int) []string {
	out := make([]string, len(order))
	for i, k := range order {
		out[i] = names[k]
	}
	return out
}

// facetKinds are the charts facets can repeat.
var facetKinds = map[string]runtime.BuiltinFunc{
	"bars": plotBars, "lines": plotLines, "scatter": plotScatter, "hockey": plotHockey, "heatmap": plotHeatmap,
}

func plotFacets(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var f *Frame
	var by string
	kind, cols, sharedY := "bars", 0, true
	c := newCommon(thread)
	var chart []starlark.Tuple
	var own []starlark.Tuple
	for _, kv := range kwargs {
		switch string(kv[0].(starlark.String)) {
		case "frame", "by", "kind", "cols", "shared_y", "title", "save", "size", "dpi":
			own = append(own, kv)
		default:
			chart = append(chart, kv)
		}
	}
	if err := starlark.UnpackArgs(b.Name(), args, own, "frame", &f, "by", &by, "kind?", &kind, "cols?", &cols,
		"shared_y?", &sharedY, "title?", &c.title, "save?", &c.save, "size?", &c.size, "dpi?", &c.dpi); err != nil {
		return nil, err
	}
	build, ok := facetKinds[kind]
	if !ok {
		return nil, fmt.Errorf("kind=%q; want one of bars, lines, scatter, hockey, heatmap", kind)
	}
	if _, mixed := f.Simulated(); mixed {
		return nil, errMixed
	}
	g, err := table.GroupBy(runtime.Context(thread), f.DataFrame(), by)
	if err != nil {
		return nil, err
	}
	keys := g.Keys()[0]
	names := valueNames(keys)
	// Panels in the order the frame first has each value, as bars' and
	// series' categories are, not as the groups sort.
	groups := g.Rows()
	var figs []*plots.Figure
	for _, i := range inFrameOrder(f, by, names) {
		rows := groups[i]
		if err := runtime.Context(thread).Err(); err != nil {
			return nil, err
		}
		sub, err := table.Take(f.DataFrame(), rows)
		if err != nil {
			return nil, err
		}
		name := names[i]
		if keys.Kind != table.String {
			name = by + " = " + name
		}
		kw := append(slices.Clone(chart), starlark.Tuple{starlark.String("title"), starlark.String(name)})
		v, err := build(thread, starlark.NewBuiltin("plot."+kind, build), starlark.Tuple{NewFrame(sub)}, kw)
		if err != nil {
			return nil, fmt.Errorf("panel %s: %w", name, err)
		}
		figs = append(figs, v.(*Figure).fig)
	}
	return c.finish(plots.Facets(c.title, figs, cols, sharedY))
}

// checkFinite refuses a column holding an infinite value, naming the row
// (and its value of the column by, when given): no axis reaches infinity.
func checkFinite(c, by *table.Column) error {
	if c.Kind != table.Float {
		return nil
	}
	for row, v := range c.Floats {
		if math.IsInf(v, 0) {
			where := fmt.Sprintf("row %d", row+1)
			if by != nil {
				where += fmt.Sprintf(", %s=%s", by.Name, exactLabel(by, row))
			}
			op := "<"
			if v < 0 {
				op = ">"
			}
			return fmt.Errorf("column %q is %v in %s; a figure needs finite values: filter such rows out (filter(%s=(%q, float(\"%v\")))) or find what produced them",
				c.Name, v, where, c.Name, op, strings.ToLower(fmt.Sprint(v)))
		}
	}
	return nil
}

// xyColumns reads the x and y columns of f.
func xyColumns(f *Frame, x, y string) (xc, yc *table.Column, err error) {
	if xc, err = table.Read(f.DataFrame(), x); err != nil {
		return nil, nil, err
	}
	if yc, err = table.Read(f.DataFrame(), y); err != nil {
		return nil, nil, err
	}
	return xc, yc, nil
}

// optionalColumn reads column name of f; an empty name means none (nil).
func optionalColumn(f *Frame, name string) (*table.Column, error) {
	if name == "" {
		return nil, nil
	}
	return table.Read(f.DataFrame(), name)
}
