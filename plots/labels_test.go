package plots

import (
	"fmt"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// layoutOn places the labels of curves on a w x h canvas whose data area
// spans [0,1] both ways.
func layoutOn(curves []labelledCurve, w, h vg.Length) ([]placedLabel, draw.Canvas) {
	p := plot.New()
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	c := draw.New(vgimg.New(w, h))
	l := &pointLabels{curves: curves, style: textStyle(7, mutedColor)}
	return l.layout(c, p), c
}

func curve(xs, ys []float64) labelledCurve {
	cv := labelledCurve{markerRadius: markerRadius}
	for i := range xs {
		cv.pts = append(cv.pts, plotter.XY{X: xs[i], Y: ys[i]})
		cv.labels = append(cv.labels, fmt.Sprint(1<<i))
	}
	return cv
}

// TestHockeyLabelsNeverOverlap: on two crowded curves nearly on top of
// each other no label overlaps another, covers another point's marker or
// leaves the plot; labels that fit nowhere are left out, not piled up.
func TestHockeyLabelsNeverOverlap(t *testing.T) {
	var xs, ys, ys2 []float64
	for i := range 14 {
		xs = append(xs, 0.05+0.9*float64(i)/13)
		ys = append(ys, 0.1+0.02*float64(i))
		ys2 = append(ys2, 0.11+0.02*float64(i))
	}
	curves := []labelledCurve{curve(xs, ys), curve(xs, ys2)}
	placed, c := layoutOn(curves, 6*vg.Centimeter, 4*vg.Centimeter)
	if len(placed) == 0 {
		t.Fatal("no label placed")
	}
	for i, a := range placed {
		if !inside(a.box, c.Rectangle) {
			t.Errorf("label %q at %v leaves the plot %v", a.text, a.box, c.Rectangle)
		}
		for _, b := range placed[i+1:] {
			if overlaps(a.box, b.box) {
				t.Errorf("labels %q at %v and %q at %v overlap", a.text, a.box, b.text, b.box)
			}
		}
	}
	trX, trY := func(x float64) vg.Length { return c.Min.X + vg.Length(x)*(c.Max.X-c.Min.X) },
		func(y float64) vg.Length { return c.Min.Y + vg.Length(y)*(c.Max.Y-c.Min.Y) }
	for _, pl := range placed {
		markersCovered := 0
		for _, cv := range curves {
			for _, pt := range cv.pts {
				q := vg.Point{X: trX(pt.X), Y: trY(pt.Y)}
				m := vg.Rectangle{Min: vg.Point{X: q.X - markerRadius, Y: q.Y - markerRadius}, Max: vg.Point{X: q.X + markerRadius, Y: q.Y + markerRadius}}
				if overlaps(pl.box, m) {
					markersCovered++
				}
			}
		}
		if markersCovered > 0 {
			t.Errorf("label %q at %v covers %d markers", pl.text, pl.box, markersCovered)
		}
	}
	t.Logf("%d of 28 labels placed on a crowded 6x4 cm plot", len(placed))

	// With room, every point is labelled.
	sparse := []labelledCurve{curve([]float64{0.1, 0.4, 0.7}, []float64{0.2, 0.3, 0.8})}
	if placed, _ := layoutOn(sparse, 12*vg.Centimeter, 8*vg.Centimeter); len(placed) != 3 {
		t.Errorf("%d of 3 well-spaced labels placed: %+v", len(placed), placed)
	}
}

// TestLabelsAvoidTheCurve: a label goes where no curve or error bar crosses
// it when such a place exists.
func TestLabelsAvoidTheCurve(t *testing.T) {
	// A curve climbing steeply through the middle point: above right and
	// above left of it the line passes close by.
	cv := curve([]float64{0.3, 0.5, 0.52}, []float64{0.1, 0.5, 0.9})
	cv.yErr = []float64{0, 0.1, 0}
	placed, c := layoutOn([]labelledCurve{cv}, 10*vg.Centimeter, 6*vg.Centimeter)
	p := plot.New()
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	trX, trY := p.Transforms(&c)
	at := func(i int) vg.Point { return vg.Point{X: trX(cv.pts[i].X), Y: trY(cv.pts[i].Y)} }
	for _, pl := range placed {
		for i := 1; i < len(cv.pts); i++ {
			if crosses(pl.box, at(i-1), at(i)) {
				t.Errorf("label %q at %v crosses the curve between points %d and %d", pl.text, pl.box, i-1, i)
			}
		}
		mid := at(1)
		e := trY(cv.pts[1].Y+0.1) - mid.Y
		if crosses(pl.box, vg.Point{X: mid.X, Y: mid.Y - e}, vg.Point{X: mid.X, Y: mid.Y + e}) {
			t.Errorf("label %q at %v crosses the error bar", pl.text, pl.box)
		}
	}
	if len(placed) != 3 {
		t.Errorf("%d of 3 labels placed", len(placed))
	}
}

// TestBarLabelsGoBeyondTheirBars: a value label sits past its bar's end,
// above a bar that rises and below one that falls, centred where that is
// clear and flush with the bar's edge where the centred label would
// overlap a neighbouring bar; a label already placed pushes it a line out.
func TestBarLabelsGoBeyondTheirBars(t *testing.T) {
	label := textStyle(7, inkColor)
	w, h := label.Width("-6.91%"), label.Height("-6.91%")
	bar := func(x0, x1, y0, y1 vg.Length) vg.Rectangle {
		return vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1, Y: y1}}
	}
	falling := bar(100, 120, 60, 100) // from zero (y 100) down to 60
	box, ok := labelBeyond(label, "-6.91%", falling, 60, false, nil, nil)
	if !ok || box.Max.Y > 60 || box.Min.X+w/2 != 110 {
		t.Errorf("alone below a falling bar: %v, want centred on x 110 under y 60", box)
	}
	rising := bar(100, 120, 100, 150)
	if box, _ := labelBeyond(label, "6.91%", rising, 150, true, nil, nil); box.Min.Y < 150 {
		t.Errorf("above a rising bar: %v, want over y 150", box)
	}
	// A deeper bar on the left: the label keeps to the right of it.
	deeper := bar(79, 99.5, 40, 100)
	box, ok = labelBeyond(label, "-6.91%", falling, 60, false, nil, []vg.Rectangle{deeper})
	if !ok || overlaps(box, deeper) || box.Min.X != 100 {
		t.Errorf("beside a deeper bar on its left: %v, want flush with the bar's left edge (x 100), clear of %v", box, deeper)
	}
	// Labels on both sides of the first line: a line further out.
	taken := []vg.Rectangle{bar(60, 60+w, 60-2-h, 58), bar(140-w, 140, 60-2-h, 58)}
	taken = append(taken, bar(100-w/2, 120+w/2, 60-2-h, 58))
	box, ok = labelBeyond(label, "-6.91%", falling, 60, false, taken, nil)
	if !ok || overlapsAny(box, taken) || box.Max.Y > 60-2-h {
		t.Errorf("with the first line taken: %v, want the next line down, clear of %v", box, taken)
	}
}
