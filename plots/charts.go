package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series is one named series. Bars use Y (one value per category); lines,
// scatter and hockey curves use X and Y.
type Series struct {
	Name   string
	X, Y   []float64
	Err    []float64 // optional ± half-lengths of error bars
	XErr   []float64 // optional ± half-lengths of horizontal error bars (hockey: throughput)
	Labels []string  // optional point labels (hockey: outstanding I/O)
}

// Options are the labels and switches charts share.
type Options struct {
	Title          string
	XLabel, YLabel string
	// XUnit and YUnit label ticks: "IOPS" and "" give 80k / 1.2M, "MB/s"
	// gives 10 GB/s, "µs" gives 1.5 ms.
	XUnit, YUnit string
	LogX, LogY   bool
	// ValueLabels writes each bar's value on it.
	ValueLabels bool
	// Stacked stacks bar series instead of grouping them.
	Stacked bool
	// Categories makes a line chart's X axis categorical: X values are
	// indices into Categories.
	Categories []string
	Simulated  bool
}

func (o Options) check(series []Series) error {
	if len(series) == 0 {
		return fmt.Errorf("nothing to plot: no series")
	}
	if err := checkFinite(series, o.Categories); err != nil {
		return err
	}
	if o.LogX && o.Categories != nil {
		return fmt.Errorf("a categorical X axis cannot be logarithmic")
	}
	for _, s := range series {
		if s.Err != nil && len(s.Err) != len(s.Y) {
			return fmt.Errorf("series %q has %d error values for %d values", s.Name, len(s.Err), len(s.Y))
		}
		if s.XErr != nil && len(s.XErr) != len(s.X) {
			return fmt.Errorf("series %q has %d x error values for %d x values", s.Name, len(s.XErr), len(s.X))
		}
		if s.Labels != nil && len(s.Labels) != len(s.Y) {
			return fmt.Errorf("series %q has %d labels for %d values", s.Name, len(s.Labels), len(s.Y))
		}
		for i := range s.Y {
			if o.LogX && i < len(s.X) && !(s.X[i] > 0) && !math.IsNaN(s.X[i]) {
				return fmt.Errorf("series %q has x = %v; a logarithmic x axis needs values above 0", s.Name, s.X[i])
			}
			if o.LogY && !(s.Y[i] > 0) && !math.IsNaN(s.Y[i]) {
				return fmt.Errorf("series %q has y = %v; a logarithmic y axis needs values above 0", s.Name, s.Y[i])
			}
			if lo := s.Y[i] - errAt(s.Err, i); o.LogY && !math.IsNaN(lo) && !(lo > 0) {
				return fmt.Errorf("series %q: an error bar reaches %v; a logarithmic y axis cannot show it (drop the error bars or the log scale)", s.Name, lo)
			}
		}
	}
	return nil
}

// checkFinite refuses infinite values: an axis cannot reach them (gonum's
// tick and range code never ends on them). NaN is a missing value, drawn
// as a gap. categories name the points of bars and categorical lines.
func checkFinite(series []Series, categories []string) error {
	for _, s := range series {
		for i := range s.Y {
			at := pointName(s, i, categories)
			for _, v := range []struct {
				what string
				x    float64
			}{{"y", s.Y[i]}, {"x", valueAt(s.X, i)}, {"the error", valueAt(s.Err, i)}} {
				if math.IsInf(v.x, 0) {
					return fmt.Errorf("%s is %v%s; a figure needs finite values (filter the row out, or find what produced it)", v.what, v.x, at)
				}
			}
		}
	}
	return nil
}

// pointName says which point i of s is, for error messages.
func pointName(s Series, i int, categories []string) string {
	var parts []string
	if s.Name != "" {
		parts = append(parts, fmt.Sprintf("series %q", s.Name))
	}
	switch {
	case i < len(categories):
		parts = append(parts, fmt.Sprintf("category %q", categories[i]))
	case i < len(s.Labels):
		parts = append(parts, fmt.Sprintf("point %q", s.Labels[i]))
	default:
		parts = append(parts, fmt.Sprintf("point %d", i+1))
	}
	return " at " + strings.Join(parts, ", ")
}

// valueAt returns v[i], NaN when v is too short (no such value).
func valueAt(v []float64, i int) float64 {
	if i < len(v) {
		return v[i]
	}
	return math.NaN()
}

// newFigure returns a one-panel figure with the house axes for o.
func newFigure(o Options, categories []string) (*Figure, *plot.Plot) {
	p := newPlot()
	p.X.Label.Text = axisLabel(o.XLabel, o.XUnit)
	p.Y.Label.Text = axisLabel(o.YLabel, o.YUnit)
	p.X.Tick.Marker = unitTicks{unit: o.XUnit, log: o.LogX}
	p.Y.Tick.Marker = unitTicks{unit: o.YUnit, log: o.LogY}
	if o.LogX {
		p.X.Scale = plot.LogScale{}
	}
	if o.LogY {
		p.Y.Scale = plot.LogScale{}
	}
	p.Add(grid(categories == nil))
	f := &Figure{Title: o.Title, Simulated: o.Simulated, cols: 1}
	f.panels = []*panel{{p: p, categories: categories}}
	return f, p
}

// axisLabel adds the unit to a label unless ticks already carry it.
func axisLabel(label, unit string) string {
	_, scaled := unitBase[unit]
	if scaled || unit == "" || label == "" || strings.Contains(strings.ToLower(label), strings.ToLower(unit)) {
		return label
	}
	return label + " (" + unit + ")"
}

// Bars draws one bar per category and series: grouped side by side, or
// stacked when o.Stacked; series with Err get error bars.
func Bars(categories []string, series []Series, o Options) (*Figure, error) {
	o.Categories = categories
	if err := o.check(series); err != nil {
		return nil, err
	}
	for _, s := range series {
		if len(s.Y) != len(categories) {
			return nil, fmt.Errorf("series %q has %d values for %d categories", s.Name, len(s.Y), len(categories))
		}
		if o.LogY {
			return nil, fmt.Errorf("bars start at zero and cannot use a logarithmic y axis")
		}
		if o.Stacked && s.Err != nil {
			return nil, fmt.Errorf("stacked bars cannot show error bars; drop err or stacked")
		}
	}
	f, p := newFigure(o, categories)
	b := &bars{series: series, stacked: o.Stacked, labels: o.ValueLabels, unit: o.YUnit}
	p.Add(b)
	p.X.Min, p.X.Max = -0.5, float64(len(categories))-0.5
	if len(series) > 1 {
		for i, s := range series {
			f.addLegend(s.Name, swatch{SeriesColor(i)})
		}
	}
	return f, nil
}

// bars draws grouped or stacked bars with error bars and value labels.
type bars struct {
	series  []Series
	stacked bool
	labels  bool
	unit    string
}

func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	n := len(b.series[0].Y)
	ymin, ymax = 0, 0
	for i := range n {
		total := 0.0
		for _, s := range b.series {
			v := s.Y[i]
			if math.IsNaN(v) {
				continue
			}
			e := 0.0
			if s.Err != nil && !math.IsNaN(s.Err[i]) {
				e = s.Err[i]
			}
			if b.stacked {
				total += v
				ymin, ymax = min(ymin, total), max(ymax, total)
			} else {
				ymin, ymax = min(ymin, v-e), max(ymax, v+e)
			}
		}
	}
	if b.labels { // room for the labels beyond the bars' ends
		room := (ymax - ymin) * 0.08
		ymax += room
		if ymin < 0 {
			ymin -= room
		}
	}
	return -0.5, float64(n) - 0.5, ymin, ymax
}

func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	unit := trX(1) - trX(0)
	n := len(b.series)
	width := unit * 0.8
	if !b.stacked {
		width /= vg.Length(n)
	}
	label := textStyle(7, inkColor)
	label.XAlign, label.YAlign = draw.XCenter, draw.YBottom
	bottom := make([]float64, len(b.series[0].Y))
	// The bars first, then the labels beyond their ends, so that no bar
	// is drawn over a label and labels can keep clear of every bar.
	type beyond struct {
		text string
		end  vg.Length // where the bar (or its error bar) ends, away from zero
		up   bool
		bar  vg.Rectangle
	}
	var outside []beyond
	var barRects []vg.Rectangle
	for si, s := range b.series {
		for i, v := range s.Y {
			if math.IsNaN(v) {
				continue
			}
			x := trX(float64(i))
			if !b.stacked {
				x += (vg.Length(si) - vg.Length(n-1)/2) * width
			}
			lo, hi := trY(bottom[i]), trY(bottom[i]+v)
			gap := min(width*0.08, 1)
			rect := vg.Rectangle{Min: vg.Point{X: x - width/2 + gap, Y: min(lo, hi)}, Max: vg.Point{X: x + width/2 - gap, Y: max(lo, hi)}}
			c.FillPolygon(SeriesColor(si), c.ClipPolygonY(rectPoints(rect)))
			barRects = append(barRects, rect)
			end := hi
			if s.Err != nil && !math.IsNaN(s.Err[i]) && s.Err[i] > 0 {
				lo, hi := trY(v-s.Err[i]), trY(v+s.Err[i])
				errorBar(c, x, lo, hi, width/4)
				end = max(lo, hi)
				if v < 0 {
					end = min(lo, hi)
				}
			}
			if b.labels {
				text := FormatValue(v, b.unit)
				if b.stacked {
					in := label
					in.YAlign = draw.YCenter
					in.Color = contrast(SeriesColor(si))
					if hi-lo > in.Height(text) && width > in.Width(text) {
						c.FillText(in, vg.Point{X: x, Y: (lo + hi) / 2}, text)
					}
				} else {
					outside = append(outside, beyond{text, end, v >= 0, rect})
				}
			}
			if b.stacked {
				bottom[i] += v
			}
		}
	}
	var placed []vg.Rectangle
	for _, l := range outside {
		others := slices.DeleteFunc(slices.Clone(barRects), func(r vg.Rectangle) bool { return r == l.bar })
		if box, ok := labelBeyond(label, l.text, l.bar, l.end, l.up, placed, others); ok {
			c.FillText(label, box.Min.Add(vg.Point{X: box.Size().X / 2}), l.text)
			placed = append(placed, box)
		}
	}
}

func rectPoints(r vg.Rectangle) []vg.Point {
	return []vg.Point{r.Min, {X: r.Min.X, Y: r.Max.Y}, r.Max, {X: r.Max.X, Y: r.Min.Y}}
}

// labelBeyond is where a bar's value label goes: beyond the bar's end
// (above a bar that rises, below one that falls), centred on it or, where
// that overlaps another bar or a label already placed (a grouped bar's
// label is often wider than its bar), flush with its left or right edge,
// or a line further out, twice at most; where every place overlaps a bar,
// the first clear of labels. The box's bottom is the text's bottom (label
// aligns it); false when no place is clear of the labels.
func labelBeyond(label text.Style, s string, bar vg.Rectangle, end vg.Length, up bool, placed, bars []vg.Rectangle) (vg.Rectangle, bool) {
	w, h := label.Width(s), label.Height(s)
	mid := (bar.Min.X + bar.Max.X) / 2
	var fallback vg.Rectangle
	found := false
	for line := range 3 {
		y := end + 2 + vg.Length(line)*h
		if !up {
			y = end - 2 - h - vg.Length(line)*h
		}
		for _, left := range []vg.Length{mid - w/2, bar.Min.X, bar.Max.X - w} {
			box := vg.Rectangle{Min: vg.Point{X: left, Y: y}, Max: vg.Point{X: left + w, Y: y + h}}
			if overlapsAny(box, placed) {
				continue
			}
			if !overlapsAny(box, bars) {
				return box, true
			}
			if !found {
				fallback, found = box, true
			}
		}
	}
	return fallback, found
}

// errorBar draws a vertical error bar with caps.
func errorBar(c draw.Canvas, x, lo, hi, capW vg.Length) {
	sty := draw.LineStyle{Color: inkColor, Width: 0.8}
	c.StrokeLine2(sty, x, lo, x, hi)
	c.StrokeLine2(sty, x-capW/2, lo, x+capW/2, lo)
	c.StrokeLine2(sty, x-capW/2, hi, x+capW/2, hi)
}

// swatch is a legend thumbnail: a filled square.
type swatch struct{ color color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	side := min(r.Max.X-r.Min.X, r.Max.Y-r.Min.Y)
	mid := r.Min.Y + (r.Max.Y-r.Min.Y)/2
	sq := vg.Rectangle{Min: vg.Point{X: r.Min.X, Y: mid - side/2}, Max: vg.Point{X: r.Min.X + side, Y: mid + side/2}}
	c.SetColor(s.color)
	c.Fill(sq.Path())
}

// errAt returns error i, 0 when there are no error bars.
func errAt(errs []float64, i int) float64 {
	if errs == nil {
		return 0
	}
	return errs[i]
}
