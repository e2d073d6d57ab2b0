package plots

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// labelGap is the space between a point's marker and its label.
const labelGap = vg.Length(2.5)

// labelledCurve is one series' points with their labels and error bars,
// as pointLabels sees them.
type labelledCurve struct {
	pts          plotter.XYs
	labels       []string
	xErr, yErr   []float64 // ± half-lengths, nil without error bars
	markerRadius vg.Length
}

// pointLabels writes each point's label beside it where the label overlaps
// no other label, marker or the plot's edge, preferring places that cross
// no curve or error bar. It tries eight places around the point; a label
// that fits nowhere is left out rather than drawn over another.
type pointLabels struct {
	curves []labelledCurve
	style  text.Style
}

// Plot implements plot.Plotter.
func (l *pointLabels) Plot(c draw.Canvas, p *plot.Plot) {
	for _, pl := range l.layout(c, p) {
		origin := l.style.Rectangle(pl.text).Min
		c.FillText(l.style, vg.Point{X: pl.box.Min.X - origin.X, Y: pl.box.Min.Y - origin.Y}, pl.text)
	}
}

// placedLabel is a label and the box it is drawn in.
type placedLabel struct {
	text string
	box  vg.Rectangle
}

// layout places the labels on c, leaving out those that fit nowhere.
func (l *pointLabels) layout(c draw.Canvas, p *plot.Plot) []placedLabel {
	trX, trY := p.Transforms(&c)
	at := func(x, y float64) vg.Point { return vg.Point{X: trX(x), Y: trY(y)} }
	var markers []vg.Rectangle
	var segments [][2]vg.Point
	for _, cv := range l.curves {
		for i, pt := range cv.pts {
			q := at(pt.X, pt.Y)
			r := cv.markerRadius
			markers = append(markers, vg.Rectangle{Min: vg.Point{X: q.X - r, Y: q.Y - r}, Max: vg.Point{X: q.X + r, Y: q.Y + r}})
			if i > 0 {
				segments = append(segments, [2]vg.Point{at(cv.pts[i-1].X, cv.pts[i-1].Y), q})
			}
			if cv.yErr != nil && cv.yErr[i] > 0 {
				segments = append(segments, [2]vg.Point{at(pt.X, pt.Y-cv.yErr[i]), at(pt.X, pt.Y+cv.yErr[i])})
			}
			if cv.xErr != nil && cv.xErr[i] > 0 {
				segments = append(segments, [2]vg.Point{at(pt.X-cv.xErr[i], pt.Y), at(pt.X+cv.xErr[i], pt.Y)})
			}
		}
	}
	var placed []placedLabel
	var boxes []vg.Rectangle
	for _, cv := range l.curves {
		for i, pt := range cv.pts {
			if cv.labels[i] == "" {
				continue
			}
			box, ok := l.place(at(pt.X, pt.Y), cv.markerRadius, cv.labels[i], c.Rectangle, markers, boxes, segments)
			if !ok {
				continue
			}
			boxes = append(boxes, box)
			placed = append(placed, placedLabel{cv.labels[i], box})
		}
	}
	return placed
}

// place returns where the label of the point at q goes: the first of the
// candidate boxes inside area that overlaps no marker and no placed label,
// crossing the fewest segments.
func (l *pointLabels) place(q vg.Point, radius vg.Length, label string, area vg.Rectangle, markers, placed []vg.Rectangle, segments [][2]vg.Point) (vg.Rectangle, bool) {
	size := l.style.Rectangle(label).Size()
	w, h := size.X, size.Y
	d := radius + labelGap
	corner := labelGap
	mins := []vg.Point{
		{X: q.X + corner, Y: q.Y + corner},         // above right
		{X: q.X - corner - w, Y: q.Y + corner},     // above left
		{X: q.X + corner, Y: q.Y - corner - h},     // below right
		{X: q.X - corner - w, Y: q.Y - corner - h}, // below left
		{X: q.X + d, Y: q.Y - h/2},                 // right
		{X: q.X - d - w, Y: q.Y - h/2},             // left
		{X: q.X - w/2, Y: q.Y + d},                 // above
		{X: q.X - w/2, Y: q.Y - d - h},             // below
	}
	best, bestCrossings := vg.Rectangle{}, -1
	for _, m := range mins {
		box := vg.Rectangle{Min: m, Max: vg.Point{X: m.X + w, Y: m.Y + h}}
		if !inside(box, area) || overlapsAny(box, placed) || overlapsMarker(box, q, markers) {
			continue
		}
		n := 0
		for _, s := range segments {
			if crosses(box, s[0], s[1]) {
				n++
			}
		}
		if bestCrossings < 0 || n < bestCrossings {
			best, bestCrossings = box, n
		}
		if n == 0 {
			break
		}
	}
	return best, bestCrossings >= 0
}

// GlyphBoxes leaves room above and right of each point for its label.
func (l *pointLabels) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	var boxes []plot.GlyphBox
	for _, cv := range l.curves {
		for i, pt := range cv.pts {
			r := l.style.Rectangle(cv.labels[i])
			boxes = append(boxes, plot.GlyphBox{X: p.X.Norm(pt.X), Y: p.Y.Norm(pt.Y),
				Rectangle: vg.Rectangle{Max: vg.Point{X: r.Size().X + labelGap, Y: r.Size().Y + labelGap}}})
		}
	}
	return boxes
}

func inside(r, area vg.Rectangle) bool {
	return r.Min.X >= area.Min.X && r.Min.Y >= area.Min.Y && r.Max.X <= area.Max.X && r.Max.Y <= area.Max.Y
}

func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

func overlapsAny(r vg.Rectangle, others []vg.Rectangle) bool {
	for _, o := range others {
		if overlaps(r, o) {
			return true
		}
	}
	return false
}

// overlapsMarker reports whether r covers a marker other than the one at
// own: every candidate touches the labelled point's own marker corner at
// most, by construction.
func overlapsMarker(r vg.Rectangle, own vg.Point, markers []vg.Rectangle) bool {
	for _, m := range markers {
		if m.Min.X <= own.X && own.X <= m.Max.X && m.Min.Y <= own.Y && own.Y <= m.Max.Y {
			continue
		}
		if overlaps(r, m) {
			return true
		}
	}
	return false
}

// crosses reports whether the segment a-b passes through r (Liang-Barsky
// clipping).
func crosses(r vg.Rectangle, a, b vg.Point) bool {
	t0, t1 := 0.0, 1.0
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	for _, e := range [4][2]float64{
		{-dx, float64(a.X - r.Min.X)}, {dx, float64(r.Max.X - a.X)},
		{-dy, float64(a.Y - r.Min.Y)}, {dy, float64(r.Max.Y - a.Y)},
	} {
		p, q := e[0], e[1]
		if p == 0 {
			if q < 0 {
				return false
			}
			continue
		}
		t := q / p
		if p < 0 {
			t0 = max(t0, t)
		} else {
			t1 = min(t1, t)
		}
		if t0 > t1 {
			return false
		}
	}
	return true
}
