package builtins

import (
	"fmt"
	"math"
	"slices"

	"go.starlark.net/starlark"

	"starbench/internal/events"
	"starbench/internal/fio"
	"starbench/internal/runtime"
	"starbench/internal/table"
	"starbench/plots"
)

// timelineMember is the plot module's chart of a measurement over time.
var timelineMember = runtime.Member{Name: "timeline",
	Params: "(samples, events=None, y=\"iops\", x=\"t_s\", series=\"direction\", unit=None, title=\"\", xlabel=None, ylabel=None, save=None, size=\"16x10cm\", dpi=150)",
	Doc:    "a measurement over time (events.run's samples, or the store's) with its events as labelled markers and the periods they open (host failure, disk failure, maintenance, snapshot, second workload, resync) shaded",
	Fn:     plotTimeline}

func plotTimeline(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var f *Frame
	var evArg starlark.Value = starlark.None
	x, y := "t_s", "iops"
	c := newCommon(thread)
	c.series = starlark.String("direction")
	pairs := append([]any{"samples", &f, "events?", &evArg, "y?", &y, "x?", &x, "series?", &c.series, "unit?", &c.unit}, c.pairs()...)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, pairs...); err != nil {
		return nil, err
	}
	o, err := c.options(f, x, y)
	if err != nil {
		return nil, err
	}
	if c.xlabel == starlark.None {
		o.XLabel = "time into the measurement"
		if o.Simulated {
			o.XLabel = "scenario time (simulated, virtual clock)"
		}
	}
	p, err := collect(f, x, y, c.series, "")
	if err != nil {
		return nil, err
	}
	if !p.xCol.Numeric() {
		return nil, fmt.Errorf("column %q holds %ss; a timeline's x is seconds into the measurement (t_s)", x, p.xCol.Kind)
	}
	series := p.toSeries(false)
	xs := make([]float64, len(p.xs))
	end := 0.0
	for i, row := range p.xFirst {
		xs[i] = p.xCol.Float(row)
		end = math.Max(end, xs[i])
	}
	for i := range series {
		series[i].X = xs
		sortByX(&series[i])
	}
	var evs []fio.Event
	if evArg != starlark.None {
		ef, ok := evArg.(*Frame)
		if !ok {
			return nil, fmt.Errorf("events is a %s; want the events frame (r.events, or store frame \"events\")", evArg.Type())
		}
		if evs, err = eventsOf(ef); err != nil {
			return nil, err
		}
	}
	var marks []plots.Mark
	for _, e := range evs {
		if e.Kind != "condition" {
			marks = append(marks, plots.Mark{X: e.AtS, Label: events.Label(e)})
		}
	}
	var spans []plots.Span
	for _, pd := range events.Periods(evs, end) {
		spans = append(spans, plots.Span{From: pd.From, To: pd.To, Group: pd.Group})
	}
	return c.finish(plots.Timeline(series, marks, spans, o))
}

// eventsOf reads an events frame: at_s, kind, target (detail optional).
func eventsOf(f *Frame) ([]fio.Event, error) {
	at, kind, err := xyColumns(f, "at_s", "kind")
	if err != nil {
		return nil, fmt.Errorf("events frame: %w", err)
	}
	target, err := optionalColumn(f, "target")
	if err != nil {
		return nil, fmt.Errorf("events frame: %w", err)
	}
	var detail *table.Column
	if slices.Contains(f.DataFrame().Names(), "detail") {
		if detail, err = optionalColumn(f, "detail"); err != nil {
			return nil, err
		}
	}
	if !at.Numeric() {
		return nil, fmt.Errorf("events frame: at_s holds %ss; want seconds", at.Kind)
	}
	out := make([]fio.Event, f.Len())
	for i := range out {
		out[i] = fio.Event{AtS: at.Float(i), Kind: fmt.Sprint(kind.Value(i))}
		if target != nil {
			out[i].Target = fmt.Sprint(target.Value(i))
		}
		if detail != nil {
			out[i].Detail = fmt.Sprint(detail.Value(i))
		}
	}
	return out, nil
}
