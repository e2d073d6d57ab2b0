package plots

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// glyphs give each series a distinct marker shape as well as a colour.
var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{},
	draw.PyramidGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{},
}

// Lines draws a line with markers per series; series with Err get error
// bars (e.g. mean ± std of repeats).
func Lines(series []Series, o Options) (*Figure, error) {
	return xy(series, o, true, false)
}

// Scatter draws markers only, one shape and colour per series.
func Scatter(series []Series, o Options) (*Figure, error) {
	return xy(series, o, false, false)
}

// Hockey draws latency-vs-throughput curves: X throughput, Y latency, one
// point per load level (Labels, e.g. outstanding I/O) joined in order, so the
// knee where latency climbs while throughput stalls is plain to see.
func Hockey(series []Series, o Options) (*Figure, error) {
	return xy(series, o, true, true)
}

func xy(series []Series, o Options, joined, labelPoints bool) (*Figure, error) {
	return xyOver(nil, series, o, joined, labelPoints)
}

// xyOver draws series over under (drawn behind them, above the grid; nil: nothing).
func xyOver(under plot.Plotter, series []Series, o Options, joined, labelPoints bool) (*Figure, error) {
	if err := o.check(series); err != nil {
		return nil, err
	}
	f, p := newFigure(o, o.Categories)
	if under != nil {
		p.Add(under)
	}
	labels := &pointLabels{style: textStyle(7, mutedColor)}
	for i, s := range series {
		if len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("series %q has %d x values and %d y values", s.Name, len(s.X), len(s.Y))
		}
		cv := labelledCurve{markerRadius: markerRadius}
		for j := range s.X {
			if math.IsNaN(s.X[j]) || math.IsNaN(s.Y[j]) {
				continue // a gap, not a zero
			}
			cv.pts = append(cv.pts, plotter.XY{X: s.X[j], Y: s.Y[j]})
			if s.Err != nil {
				cv.yErr = append(cv.yErr, errOrZero(s.Err[j]))
			}
			if s.XErr != nil {
				cv.xErr = append(cv.xErr, errOrZero(s.XErr[j]))
			}
			if s.Labels != nil {
				cv.labels = append(cv.labels, s.Labels[j])
			}
		}
		if len(cv.pts) == 0 {
			continue
		}
		col := SeriesColor(i)
		var thumbs []plot.Thumbnailer
		if joined {
			line, err := plotter.NewLine(cv.pts)
			if err != nil {
				return nil, err
			}
			line.Color, line.Width = col, 1.5
			p.Add(line)
			thumbs = append(thumbs, line)
		}
		sc, err := plotter.NewScatter(cv.pts)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: markerRadius, Shape: glyphs[i%len(glyphs)]}
		p.Add(sc)
		thumbs = append(thumbs, sc)
		if err := addErrorBars(p, cv, col); err != nil {
			return nil, err
		}
		if labelPoints && cv.labels != nil {
			labels.curves = append(labels.curves, cv)
		}
		if len(series) > 1 || s.Name != "" {
			f.addLegend(s.Name, multiThumb(thumbs))
		}
	}
	if labels.curves != nil {
		p.Add(labels)
	}
	if o.Categories != nil {
		p.X.Min, p.X.Max = -0.5, float64(len(o.Categories))-0.5
	}
	if o.LogX {
		if ticks := dataTicks(series, o.XUnit); len(ticks) <= 12 {
			p.X.Tick.Marker = ticks // 1, 2, 4 ... 32 instead of 1, 10
		}
	}
	if !o.LogY && p.Y.Min > 0 {
		p.Y.Min = 0 // throughput and latency read best from zero
	}
	if !o.LogX && o.Categories == nil && p.X.Min > 0 && labelPoints {
		p.X.Min = 0
	}
	return f, nil
}

// markerRadius is the size of the markers of lines, scatter and hockey curves.
const markerRadius = vg.Length(2.5)

func errOrZero(e float64) float64 {
	if math.IsNaN(e) {
		return 0
	}
	return e
}

// addErrorBars draws a curve's vertical and horizontal error bars, if it has them.
func addErrorBars(p *plot.Plot, cv labelledCurve, col color.Color) error {
	style := draw.LineStyle{Color: col, Width: 0.8}
	if cv.yErr != nil {
		errs := make(plotter.YErrors, len(cv.yErr))
		for i, e := range cv.yErr {
			errs[i].Low, errs[i].High = e, e
		}
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{cv.pts, errs})
		if err != nil {
			return err
		}
		eb.LineStyle, eb.CapWidth = style, 5
		p.Add(eb)
	}
	if cv.xErr != nil {
		errs := make(plotter.XErrors, len(cv.xErr))
		for i, e := range cv.xErr {
			errs[i].Low, errs[i].High = e, e
		}
		eb, err := plotter.NewXErrorBars(struct {
			plotter.XYs
			plotter.XErrors
		}{cv.pts, errs})
		if err != nil {
			return err
		}
		eb.LineStyle, eb.CapWidth = style, 5
		p.Add(eb)
	}
	return nil
}

// multiThumb draws several thumbnails on top of each other (line + marker).
type multiThumb []plot.Thumbnailer

func (m multiThumb) Thumbnail(c *draw.Canvas) {
	for _, t := range m {
		t.Thumbnail(c)
	}
}

// dataTicks returns a labelled tick at each distinct X value.
func dataTicks(series []Series, unit string) plot.ConstantTicks {
	seen := map[float64]bool{}
	var ticks plot.ConstantTicks
	for _, s := range series {
		for _, x := range s.X {
			if !seen[x] && !math.IsNaN(x) {
				seen[x] = true
				ticks = append(ticks, plot.Tick{Value: x, Label: dataLabel(x, unit)})
			}
		}
	}
	return ticks
}

// dataLabel labels a tick at a data value: a whole count below 100,000
// without a unit in all its digits (1024 outstanding I/Os read "1024", not
// the compact "1.02k"), anything else as FormatValue writes it.
func dataLabel(x float64, unit string) string {
	if unit == "" && x == math.Trunc(x) && math.Abs(x) < 1e5 {
		return strconv.Itoa(int(x))
	}
	return FormatValue(x, unit)
}
