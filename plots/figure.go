package plots

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// SimulatedNote is stamped on every figure drawn from simulated rows.
const SimulatedNote = "SIMULATED: model output, not measured"

// Figure is a chart of one or more panels, drawn at any size.
type Figure struct {
	// Title is drawn above the panels.
	Title string
	// Simulated stamps SimulatedNote on the figure.
	Simulated bool

	panels []*panel
	cols   int
	legend []legendEntry
	scale  *colorScale
	cells  *cells // a heatmap's cells, to share one colour scale in facets
}

// panel is one plot and, for a categorical X axis, its category names
// (wrapped or rotated to fit when drawn).
type panel struct {
	p          *plot.Plot
	categories []string
}

type legendEntry struct {
	name  string
	thumb plot.Thumbnailer
}

// addLegend adds a legend entry unless one of that name exists.
func (f *Figure) addLegend(name string, thumb plot.Thumbnailer) {
	if name == "" {
		return
	}
	for _, e := range f.legend {
		if e.name == name {
			return
		}
	}
	f.legend = append(f.legend, legendEntry{name, thumb})
}

const margin = vg.Length(6)

// draw draws the figure on c: header (title, simulated stamp), panels, and
// the legend or colour scale in a column to the right of the data. It
// stops before the next panel once ctx ends.
func (f *Figure) draw(ctx context.Context, c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	c = padded(c, margin)
	c = f.drawHeader(c)
	if side := f.sideWidth(); side > 0 {
		right := c
		right.Min.X = c.Max.X - side
		c.Max.X = right.Min.X - margin
		f.drawSide(right)
	}
	if len(f.panels) == 1 {
		c.Min.X += f.panels[0].fit(c.Max.X - c.Min.X)
		f.panels[0].p.Draw(c)
		return
	}
	cols := f.cols
	if cols == 0 {
		cols = gridColumns(len(f.panels), float64((c.Max.X-c.Min.X)/(c.Max.Y-c.Min.Y)))
	}
	rows := (len(f.panels) + cols - 1) / cols
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: 8, PadY: 8}
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
	}
	tileW := (c.Max.X - c.Min.X - vg.Length(cols-1)*tiles.PadX) / vg.Length(cols)
	left := make([]vg.Length, len(f.panels))
	for i, pn := range f.panels {
		left[i] = pn.fit(tileW)
		grid[i/cols][i%cols] = pn.p
	}
	canvases := plot.Align(grid, tiles, c)
	for i, pn := range f.panels {
		if ctx.Err() != nil {
			return
		}
		tile := canvases[i/cols][i%cols]
		tile.Min.X += left[i]
		pn.p.Draw(tile)
	}
}

// gridColumns is how many columns n panels take on an area aspect times
// as wide as it is high, so that the panels come out about square: three
// side by side on a landscape figure (a 2 x 2 grid left a tile empty),
// four in two rows.
func gridColumns(n int, aspect float64) int {
	rows := min(max(int(math.Round(math.Sqrt(float64(n)/aspect))), 1), n)
	return (n + rows - 1) / rows
}

func padded(c draw.Canvas, m vg.Length) draw.Canvas {
	c.Min.X += m
	c.Min.Y += m
	c.Max.X -= m
	c.Max.Y -= m
	return c
}

// drawHeader draws the title and the simulated stamp; it returns what is left.
func (f *Figure) drawHeader(c draw.Canvas) draw.Canvas {
	title := textStyle(11, inkColor)
	title.YAlign = draw.YTop
	stamp := textStyle(8, simulatedColor)
	stamp.XAlign, stamp.YAlign = draw.XRight, draw.YTop
	h := vg.Length(0)
	if f.Title != "" {
		c.FillText(title, vg.Point{X: c.Min.X, Y: c.Max.Y}, f.Title)
		h = title.Height(f.Title)
	}
	if f.Simulated {
		y := c.Max.Y
		if f.Title != "" && title.Width(f.Title)+stamp.Width(SimulatedNote)+12 > c.Max.X-c.Min.X {
			y -= h + 2 // no room beside the title: a line of its own
			h += 2
		} else {
			h = max(h-stamp.Height(SimulatedNote), 0)
		}
		c.FillText(stamp, vg.Point{X: c.Max.X, Y: y}, SimulatedNote)
		h += stamp.Height(SimulatedNote)
	}
	if h > 0 {
		c.Max.Y -= h + 6
	}
	return c
}

// sideWidth is the width of the legend or colour-scale column (0 for none).
func (f *Figure) sideWidth() vg.Length {
	switch {
	case f.scale != nil:
		return f.scale.width()
	case len(f.legend) == 0:
		return 0
	}
	l := newLegend()
	w := vg.Length(0)
	for _, e := range f.legend {
		w = max(w, l.TextStyle.Width(e.name))
	}
	return w + l.ThumbnailWidth + 2*l.Padding + 4
}

func (f *Figure) drawSide(c draw.Canvas) {
	if f.scale != nil {
		f.scale.draw(c)
		return
	}
	l := newLegend()
	for _, e := range f.legend {
		l.Add(e.name, e.thumb)
	}
	l.YOffs = -16 // level with the top of the data, below the panel title
	l.Draw(c)
}

// fit sets the category labels of a categorical X axis for a panel width:
// wrapped at spaces, dashes, slashes and underscores to the width of a
// category, and rotated when one word alone is wider than that (wrapped
// then to rotatedWidth, or wider where the lines would not fit between
// neighbours). It returns the room the panel needs on its left
// for rotated labels that reach past its edge.
func (pn *panel) fit(width vg.Length) vg.Length {
	if len(pn.categories) == 0 {
		return 0
	}
	sty := pn.p.X.Tick.Label
	step := width * 0.85 / vg.Length(len(pn.categories))
	avail := step - 4
	labels := make([]string, len(pn.categories))
	rotate := false
	for i, name := range pn.categories {
		labels[i] = wrap(name, sty, avail)
		rotate = rotate || sty.Width(labels[i]) > avail
	}
	var need vg.Length
	if rotate {
		sty.Rotation = math.Pi / 4 // steep enough for two lines or three between ticks
		sty.XAlign, sty.YAlign = draw.XRight, draw.YTop
		// Neighbouring labels lie step x sin(rotation) apart across
		// their lines: a label wraps into no more lines than fit there.
		across := step*vg.Length(math.Sin(sty.Rotation)) - 2
		for i, name := range pn.categories {
			for w := rotatedWidth; ; w *= 1.25 {
				labels[i] = wrap(name, sty, w)
				if !strings.Contains(labels[i], "\n") || sty.Height(labels[i]) <= across {
					break
				}
			}
			// The label hangs left of its tick by its rotated extent;
			// the ticks sit mid-category.
			reach := sty.Width(labels[i])*vg.Length(math.Cos(sty.Rotation)) + sty.Height(labels[i])*vg.Length(math.Sin(sty.Rotation))
			need = max(need, reach-(vg.Length(i)+0.5)*step)
		}
		need = max(0, need-pn.yAxisWidth()) // the labels may hang below the y axis
	}
	ticks := make(plot.ConstantTicks, len(labels))
	for i, l := range labels {
		ticks[i] = plot.Tick{Value: float64(i), Label: l}
	}
	pn.p.X.Tick.Label = sty
	pn.p.X.Tick.Marker = ticks
	pn.p.X.Tick.Length = 0
	return need
}

// yAxisWidth is about how wide the panel's y axis draws left of its data:
// its widest tick label and its title, as gonum lays them out.
func (pn *panel) yAxisWidth() vg.Length {
	y := &pn.p.Y
	var ticks vg.Length
	for _, tk := range y.Tick.Marker.Ticks(y.Min, y.Max) {
		ticks = max(ticks, y.Tick.Label.Width(tk.Label))
	}
	var title vg.Length
	if y.Label.Text != "" {
		title = y.Label.TextStyle.Height(y.Label.Text) + y.Label.Padding
	}
	return ticks + y.Tick.Length + title
}

// rotatedWidth is how wide a line of a rotated category label may run
// before it wraps.
const rotatedWidth = 30 * vg.Millimeter

// wrap breaks s into lines no wider than w, after separators.
func wrap(s string, sty text.Style, w vg.Length) string {
	var words []string
	start := 0
	for i, r := range s {
		if strings.ContainsRune(" -_/", r) {
			words = append(words, s[start:i+1])
			start = i + 1
		}
	}
	words = append(words, s[start:])
	var lines []string
	line := ""
	for _, word := range words {
		if line != "" && sty.Width(strings.TrimSpace(line+word)) > w {
			lines = append(lines, strings.TrimSpace(line))
			line = ""
		}
		line += word
	}
	lines = append(lines, strings.TrimSpace(line))
	return strings.Join(lines, "\n")
}

// Size is a figure's size on paper.
type Size struct{ Width, Height vg.Length }

// DefaultSize is 16 cm x 10 cm, a report's text width.
var DefaultSize = Size{16 * vg.Centimeter, 10 * vg.Centimeter}

// ParseSize reads "16x10cm", "6x4in", "16cm x 10cm" or "400x250pt".
func ParseSize(s string) (Size, error) {
	bad := fmt.Errorf("size %q; want width x height with a unit, e.g. \"16x10cm\" or \"6x4in\"", s)
	t := strings.ReplaceAll(strings.ToLower(s), " ", "")
	unit := vg.Length(0)
	for _, u := range []struct {
		name string
		l    vg.Length
	}{{"cm", vg.Centimeter}, {"mm", vg.Millimeter}, {"in", vg.Inch}, {"pt", vg.Points(1)}} {
		if strings.HasSuffix(t, u.name) {
			unit = u.l
			t = strings.ReplaceAll(t, u.name, "")
		}
	}
	ws, hs, ok := strings.Cut(t, "x")
	if unit == 0 || !ok {
		return Size{}, bad
	}
	var w, h float64
	if _, err := fmt.Sscanf(ws+" "+hs, "%g %g", &w, &h); err != nil || w <= 0 || h <= 0 {
		return Size{}, bad
	}
	return Size{vg.Length(w) * unit, vg.Length(h) * unit}, nil
}

// Formats lists the file formats Save writes, by extension.
var Formats = []string{"png", "svg", "pdf"}

// Save writes the figure to path in the format its extension names (.png,
// .svg, .pdf); dpi applies to PNG. It returns when ctx ends, see Write.
func (f *Figure) Save(ctx context.Context, path string, size Size, dpi int) error {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	var buf bytes.Buffer
	if err := f.Write(ctx, &buf, format, size, dpi); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// Write writes the figure as format (png, svg or pdf). gonum/plot reports
// some bad input by panicking; Write returns that as an error. When ctx
// ends, Write returns its error at once and writes nothing; the drawing
// stops at the next panel.
func (f *Figure) Write(ctx context.Context, w io.Writer, format string, size Size, dpi int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var buf bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- f.render(ctx, &buf, format, size, dpi) }()
	select {
	case err := <-done:
		if err != nil {
			return err
		}
		_, err = w.Write(buf.Bytes())
		return err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// render draws the figure as format into w.
func (f *Figure) render(ctx context.Context, w io.Writer, format string, size Size, dpi int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cannot draw the figure: %v", r)
		}
	}()
	var cw vg.CanvasWriterTo
	switch format {
	case "png":
		if dpi <= 0 || dpi > 1200 {
			return fmt.Errorf("dpi %d; want 1 to 1200", dpi)
		}
		cw = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(size.Width, size.Height), vgimg.UseDPI(dpi))}
	case "svg":
		cw = vgsvg.New(size.Width, size.Height)
	case "pdf":
		c := vgpdf.New(size.Width, size.Height)
		c.EmbedFonts(true)
		cw = c
	default:
		return fmt.Errorf("cannot save a figure as %q; use a .png, .svg or .pdf file name", format)
	}
	f.draw(ctx, draw.New(cw))
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err = cw.WriteTo(w)
	return err
}
