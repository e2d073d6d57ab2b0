// Package plots draws report-quality figures over gonum/plot: bars (grouped
// and stacked), lines with error bars, scatter, latency-vs-throughput curves,
// heatmaps and small multiples, in one house theme (sans-serif, legend
// outside the data, readable ticks, colour-blind-safe colours).
package plots

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Palette is the Okabe-Ito colour-blind-safe palette, in the order series use it.
var Palette = []color.Color{
	rgb(0x0072B2), // blue
	rgb(0xE69F00), // orange
	rgb(0x009E73), // bluish green
	rgb(0xD55E00), // vermillion
	rgb(0x56B4E9), // sky blue
	rgb(0xCC79A7), // reddish purple
	rgb(0xF0E442), // yellow
	rgb(0x000000), // black
}

// SeriesColor returns the colour of series i.
func SeriesColor(i int) color.Color { return Palette[i%len(Palette)] }

func rgb(v uint32) color.RGBA {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

var (
	inkColor       = rgb(0x222222)
	mutedColor     = rgb(0x555555)
	gridColor      = rgb(0xE3E3E3)
	simulatedColor = rgb(0xD55E00)
)

var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// textStyle returns the house text style at size points. It is always the
// regular weight: gonum/plot v0.17's PDF backend registers fonts without
// their style and then fails to find bold faces.
func textStyle(size vg.Length, c color.Color) text.Style {
	return text.Style{
		Color:   c,
		Font:    font.From(sans, size),
		Handler: plot.DefaultTextHandler,
		XAlign:  draw.XLeft,
		YAlign:  draw.YBottom,
	}
}

// newPlot returns a plot in the house theme.
func newPlot() *plot.Plot {
	p := plot.New()
	p.Title.TextStyle = textStyle(10, inkColor)
	p.Title.TextStyle.XAlign, p.Title.TextStyle.YAlign = draw.XCenter, draw.YTop
	p.Title.Padding = 4
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle = textStyle(9, inkColor)
		a.Label.TextStyle.XAlign = draw.XCenter
		a.Label.Padding = 4
		a.Tick.Label = textStyle(8, mutedColor)
		a.LineStyle.Color = mutedColor
		a.LineStyle.Width = 0.5
		a.Tick.LineStyle.Color = mutedColor
		a.Tick.LineStyle.Width = 0.5
		a.Tick.Length = 3
		a.Padding = 2
	}
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XCenter, draw.YTop
	p.Y.Tick.Label.XAlign, p.Y.Tick.Label.YAlign = draw.XRight, draw.YCenter
	return p
}

// grid returns light grid lines; vertical lines only when vertical is set.
func grid(vertical bool) *plotter.Grid {
	g := plotter.NewGrid()
	g.Horizontal.Color = gridColor
	g.Horizontal.Width = 0.5
	g.Vertical.Color = gridColor
	g.Vertical.Width = 0.5
	if !vertical {
		g.Vertical.Color = nil
	}
	return g
}

// newLegend returns a legend in the house theme, drawn outside the data.
func newLegend() plot.Legend {
	l := plot.NewLegend()
	l.TextStyle = textStyle(8, inkColor)
	l.Top, l.Left = true, true
	l.ThumbnailWidth = 10
	l.Padding = 3
	return l
}
