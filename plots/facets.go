package plots

import (
	"fmt"
	"math"
)

// Facets lays one-panel figures out as small multiples, cols per row (0:
// as many as suit the figure's shape, see gridColumns), under one title. Each figure's title names its panel; legends merge by name.
// With sharedY every panel gets the same Y range, so heights compare;
// heatmap panels always share one colour scale.
func Facets(title string, figs []*Figure, cols int, sharedY bool) (*Figure, error) {
	if len(figs) == 0 {
		return nil, fmt.Errorf("nothing to plot: no panels")
	}
	f := &Figure{Title: title, cols: min(max(cols, 0), len(figs))} // 0: laid out for the size drawn
	lo, hi := math.Inf(1), math.Inf(-1)
	heatmaps := 0
	for _, sub := range figs {
		if len(sub.panels) != 1 {
			return nil, fmt.Errorf("facets take one-panel charts, not facets")
		}
		if sub.cells != nil {
			heatmaps++
			if f.scale == nil {
				f.scale = &colorScale{lo: sub.cells.lo, hi: sub.cells.hi, unit: sub.cells.unit}
			}
			f.scale.lo, f.scale.hi = min(f.scale.lo, sub.cells.lo), max(f.scale.hi, sub.cells.hi)
		}
		pn := sub.panels[0]
		pn.p.Title.Text = sub.Title
		f.panels = append(f.panels, pn)
		f.Simulated = f.Simulated || sub.Simulated
		for _, e := range sub.legend {
			f.addLegend(e.name, e.thumb)
		}
		lo, hi = min(lo, pn.p.Y.Min), max(hi, pn.p.Y.Max)
	}
	if heatmaps > 0 && heatmaps < len(figs) {
		return nil, fmt.Errorf("facets cannot mix heatmaps with other charts")
	}
	for _, sub := range figs {
		if sub.cells != nil { // one colour scale for all panels
			sub.cells.lo, sub.cells.hi = f.scale.lo, f.scale.hi
		}
	}
	if sharedY && heatmaps == 0 {
		for _, pn := range f.panels {
			pn.p.Y.Min, pn.p.Y.Max = lo, hi
		}
	}
	return f, nil
}
