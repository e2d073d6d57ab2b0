package plots

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Mark is an event on a timeline: a dashed vertical line at X, labelled.
type Mark struct {
	X     float64
	Label string
}

// Span is a period on a timeline, shaded: a host out of service, a
// snapshot kept, a second workload running, a resync.
type Span struct {
	From, To float64
	// Group names the kind of period; periods of one group share a shade
	// and a legend entry ("host failure", "maintenance", ...).
	Group string
}

// Timeline draws lines over time (X seconds) with the events as labelled
// markers and the periods shaded behind the data: a measurement with
// failures, maintenance or snapshots in it.
func Timeline(series []Series, marks []Mark, spans []Span, o Options) (*Figure, error) {
	for _, m := range marks {
		if math.IsNaN(m.X) || math.IsInf(m.X, 0) {
			return nil, fmt.Errorf("event %q is at %v; want a finite time", m.Label, m.X)
		}
	}
	for _, s := range spans {
		if !(s.To >= s.From) || math.IsInf(s.From, 0) || math.IsInf(s.To, 0) {
			return nil, fmt.Errorf("period %q from %v to %v: want a finite start no later than its end", s.Group, s.From, s.To)
		}
	}
	var groups []string
	for _, s := range spans {
		if !slices.Contains(groups, s.Group) {
			groups = append(groups, s.Group)
		}
	}
	f, err := xyOver(&shading{spans: spans, groups: groups}, series, o, true, false)
	if err != nil {
		return nil, err
	}
	p := f.panels[0].p
	if p.X.Min > 0 {
		p.X.Min = 0 // the measurement's start
	}
	for i, g := range groups {
		f.addLegend(g, swatch{shadeColor(i)})
	}
	if len(marks) > 0 {
		p.Add(&markers{marks: marks})
	}
	return f, nil
}

// shadeColor is the translucent fill of the i-th group of periods.
func shadeColor(i int) color.Color {
	c := color.RGBAModel.Convert(SeriesColor(i + 3)).(color.RGBA) // vermillion first: failures
	const a = 0x38
	return color.NRGBA{R: c.R, G: c.G, B: c.B, A: a}
}

// shading fills each period over the whole height of the data area.
type shading struct {
	spans  []Span
	groups []string
}

func (s *shading) Plot(c draw.Canvas, p *plot.Plot) {
	tx, _ := p.Transforms(&c)
	for _, sp := range s.spans {
		x0, x1 := math.Max(sp.From, p.X.Min), math.Min(sp.To, p.X.Max)
		if x1 <= x0 {
			continue
		}
		i := 0
		for k, g := range s.groups {
			if g == sp.Group {
				i = k
			}
		}
		r := vg.Rectangle{Min: vg.Point{X: tx(x0), Y: c.Min.Y}, Max: vg.Point{X: tx(x1), Y: c.Max.Y}}
		c.SetColor(shadeColor(i))
		c.Fill(r.Path())
	}
}

// DataRange makes the periods part of the X range, and leaves Y alone.
func (s *shading) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, sp := range s.spans {
		xmin, xmax = math.Min(xmin, sp.From), math.Max(xmax, sp.To)
	}
	return
}

// markers draws each event as a dashed vertical line with its label
// written along it.
type markers struct{ marks []Mark }

func (m *markers) Plot(c draw.Canvas, p *plot.Plot) {
	tx, _ := p.Transforms(&c)
	line := draw.LineStyle{Color: mutedColor, Width: 0.7, Dashes: []vg.Length{3, 2}}
	label := textStyle(6.5, inkColor)
	label.Rotation = math.Pi / 2
	label.XAlign, label.YAlign = draw.XRight, draw.YBottom
	var xs []vg.Length
	var texts []string
	for _, mk := range m.marks {
		if mk.X < p.X.Min || mk.X > p.X.Max {
			continue
		}
		x := tx(mk.X)
		c.StrokeLine2(line, x, c.Min.Y, x, c.Max.Y)
		xs, texts = append(xs, x-1.5), append(texts, mk.Label)
	}
	top := c.Max.Y - 2
	for i, x := range labelPositions(xs, label.Font.Size+1.5) {
		// A translucent backing keeps the label readable where it
		// crosses its own line, a neighbour's or the data.
		h, w := label.Font.Size, label.Width(texts[i])
		c.SetColor(labelBacking)
		c.Fill(vg.Rectangle{Min: vg.Point{X: x - h - 0.5, Y: top - w - 1}, Max: vg.Point{X: x + 0.5, Y: top + 1}}.Path())
		c.FillText(label, vg.Point{X: x, Y: top}, texts[i])
	}
}

// labelBacking is the translucent white behind an event's label.
var labelBacking = color.NRGBA{R: 255, G: 255, B: 255, A: 190}

// labelPositions spaces vertical labels at xs (in order of time) at least
// gap apart, each as near its own line as those before it let it be, so
// events close in time (a host back, its resync starting and ending, the
// next host going in) keep readable labels instead of one smudge.
func labelPositions(xs []vg.Length, gap vg.Length) []vg.Length {
	order := make([]int, len(xs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(xs[a], xs[b]) })
	out := make([]vg.Length, len(xs))
	for n, i := range order {
		out[i] = xs[i]
		if n > 0 {
			out[i] = max(out[i], out[order[n-1]]+gap)
		}
	}
	return out
}

func (m *markers) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, mk := range m.marks {
		xmin, xmax = math.Min(xmin, mk.X), math.Max(xmax, mk.X)
	}
	return
}
