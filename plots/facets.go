package plots

import (
	"fmt"
	"math"
)

// Facets lays one-panel figures out as small multiples, cols per row, under
// one title. Each figure's title names its panel; legends merge by name.
// With sharedY every panel gets the same Y range, so heights compare.
func Facets(title string, figs []*Figure, cols int, sharedY bool) (*Figure, error) {
	if len(figs) == 0 {
		return nil, fmt.Errorf("nothing to plot: no panels")
	}
	if cols <= 0 {
		cols = int(math.Ceil(math.Sqrt(float64(len(figs)))))
	}
	f := &Figure{Title: title, cols: min(cols, len(figs))}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, sub := range figs {
		if len(sub.panels) != 1 || sub.scale != nil {
			return nil, fmt.Errorf("facets take one-panel charts (bars, lines, scatter, hockey)")
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
	if sharedY {
		for _, pn := range f.panels {
			pn.p.Y.Min, pn.p.Y.Max = lo, hi
		}
	}
	return f, nil
}
