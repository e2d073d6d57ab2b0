package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Heatmap draws a matrix of values (e.g. IOPS for compression x rdma) as
// coloured cells with their values written in, on a colour-blind-safe
// sequential scale (viridis). values[r][c] belongs to rows[r], cols[c];
// NaN cells are grey and read NA.
func Heatmap(rows, cols []string, values [][]float64, unit string, o Options) (*Figure, error) {
	if len(values) != len(rows) {
		return nil, fmt.Errorf("%d rows of values for %d row names", len(values), len(rows))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for r, row := range values {
		if len(row) != len(cols) {
			return nil, fmt.Errorf("row %q has %d values for %d columns", rows[r], len(row), len(cols))
		}
		for ci, v := range row {
			if math.IsInf(v, 0) {
				return nil, fmt.Errorf("cell %q, %q is %v; a heatmap needs finite values (filter the row out, or find what produced it)", rows[r], cols[ci], v)
			}
			if !math.IsNaN(v) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		return nil, fmt.Errorf("nothing to plot: every cell is NA")
	}
	f, p := newFigure(o, cols)
	hm := &cells{values: values, lo: lo, hi: hi, unit: unit}
	p.Add(hm)
	p.X.Min, p.X.Max = -0.5, float64(len(cols))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(rows))-0.5
	ticks := make(plot.ConstantTicks, len(rows))
	for i, r := range rows {
		ticks[i] = plot.Tick{Value: float64(len(rows) - 1 - i), Label: r} // first row on top
	}
	p.Y.Tick.Marker = ticks
	p.Y.Tick.Length = 0
	p.X.Padding, p.Y.Padding = 0, 0
	f.scale = &colorScale{lo: lo, hi: hi, unit: unit}
	f.cells = hm
	return f, nil
}

// cells draws heatmap cells with their values.
type cells struct {
	values [][]float64
	lo, hi float64
	unit   string
}

func (h *cells) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := textStyle(8, inkColor)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	n := len(h.values)
	for r, row := range h.values {
		y := float64(n - 1 - r)
		for ci, v := range row {
			x := float64(ci)
			rect := vg.Rectangle{Min: vg.Point{X: trX(x - 0.5), Y: trY(y - 0.5)}, Max: vg.Point{X: trX(x + 0.5), Y: trY(y + 0.5)}}
			fill := color.Color(gridColor)
			if !math.IsNaN(v) {
				fill = viridis(h.norm(v))
			}
			c.FillPolygon(fill, rectPoints(rect))
			c.StrokeLines(draw.LineStyle{Color: color.White, Width: 1}, append(rectPoints(rect), rect.Min))
			sty.Color = contrast(fill)
			c.FillText(sty, vg.Point{X: trX(x), Y: trY(y)}, FormatValue(v, h.unit))
		}
	}
}

func (h *cells) norm(v float64) float64 {
	if h.hi == h.lo {
		return 0.5
	}
	return (v - h.lo) / (h.hi - h.lo)
}

// viridisStops are points of matplotlib's viridis map, evenly spaced.
var viridisStops = []color.RGBA{
	rgb(0x440154), rgb(0x482878), rgb(0x3E4A89), rgb(0x31688E), rgb(0x26828E),
	rgb(0x1F9E89), rgb(0x35B779), rgb(0x6DCD59), rgb(0xB4DE2C), rgb(0xFDE725),
}

// viridis returns the colour of t in [0, 1].
func viridis(t float64) color.RGBA {
	t = math.Max(0, math.Min(1, t)) * float64(len(viridisStops)-1)
	i := min(int(t), len(viridisStops)-2)
	f := t - float64(i)
	a, b := viridisStops[i], viridisStops[i+1]
	mix := func(x, y uint8) uint8 { return uint8(float64(x) + f*(float64(y)-float64(x)) + 0.5) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 0xff}
}

// contrast returns black or white, whichever reads better on bg.
func contrast(bg color.Color) color.Color {
	r, g, b, _ := bg.RGBA()
	if 0.299*float64(r)+0.587*float64(g)+0.114*float64(b) > 0.5*0xffff {
		return inkColor
	}
	return color.White
}

// colorScale is a heatmap's key: a vertical gradient with min, mid and max.
type colorScale struct {
	lo, hi float64
	unit   string
}

func (s *colorScale) labelStyle() draw.TextStyle {
	sty := textStyle(7, mutedColor)
	sty.YAlign = draw.YCenter
	return sty
}

func (s *colorScale) width() vg.Length {
	sty := s.labelStyle()
	w := max(sty.Width(FormatValue(s.lo, s.unit)), sty.Width(FormatValue(s.hi, s.unit)))
	return 12 + 4 + w
}

func (s *colorScale) draw(c draw.Canvas) {
	top := c.Max.Y - 16
	bottom := c.Min.Y + 30
	const steps = 64
	h := (top - bottom) / steps
	for i := range steps {
		y := bottom + vg.Length(i)*h
		r := vg.Rectangle{Min: vg.Point{X: c.Min.X, Y: y}, Max: vg.Point{X: c.Min.X + 12, Y: y + h + 0.3}}
		c.FillPolygon(viridis((float64(i)+0.5)/steps), rectPoints(r))
	}
	sty := s.labelStyle()
	for _, t := range []float64{0, 0.5, 1} {
		v := s.lo + t*(s.hi-s.lo)
		c.FillText(sty, vg.Point{X: c.Min.X + 16, Y: bottom + vg.Length(t)*(top-bottom)}, FormatValue(v, s.unit))
	}
}
