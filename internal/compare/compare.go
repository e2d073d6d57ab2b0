// Package compare compares two campaign stores, a baseline and a new one:
// it matches their cells and workloads, and gives each metric's change with
// a confidence interval from the repeats (Welch's t), marking the changes
// that are both significant and beyond a threshold, and which of those are
// regressions (IOPS and MB/s down, latency up).
package compare

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"starbench/internal/store"
)

// Metric is one metric compared, and which way is worse.
type Metric struct {
	Name string // the store's column
	Unit string
	// HigherIsBetter: IOPS and MB/s; latencies are better lower.
	HigherIsBetter bool
}

// Metrics are the metrics compared, in order. Latencies are fio's clat
// (completion latency), as stored.
var Metrics = []Metric{
	{"iops", "IOPS", true},
	{"mbps", "MB/s", true},
	{"lat_mean_us", "µs clat", false},
	{"p95_us", "µs clat", false},
	{"p99_us", "µs clat", false},
}

// Options say what to compare and how strictly.
type Options struct {
	// Threshold is the smallest relative change that counts (0.05 = 5 %).
	Threshold float64
	// Confidence is the confidence level of the intervals (0.95).
	Confidence float64
	// Cells maps base cell labels to new ones; cells not named match by label.
	Cells map[string]string
	// Workloads maps base workload names to new ones, likewise.
	Workloads map[string]string
	// OtherCampaign allows stores of different campaigns (matched by label
	// and the maps); a map implies it.
	OtherCampaign bool
	// Mixed allows comparing simulated with measured results.
	Mixed bool
}

// Side is one store as compared.
type Side struct {
	Path      string `json:"path"`
	Campaign  string `json:"campaign"`
	Simulated bool   `json:"simulated"`
}

// Sample is one side's repeats of a metric.
type Sample struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
}

// Verdicts.
const (
	Regressed   = "regressed"
	Improved    = "improved"
	Unchanged   = "unchanged"    // no significant change beyond the threshold
	TooFewRuns  = "too few runs" // fewer than two repeats on a side: no interval
	NotMeasured = "not measured" // one side has no value for the metric
)

// Change is one metric of one matched cell, workload and direction.
type Change struct {
	Cell, NewCell         string
	Workload, NewWorkload string
	Direction             string
	Metric                string
	HigherIsBetter        bool
	Base, New             Sample
	// Rel is the relative change of the mean (new/base - 1); RelLow and
	// RelHigh bound it at the confidence level (NaN without an interval).
	Rel, RelLow, RelHigh float64
	// P is Welch's two-sided p-value (NaN without an interval).
	P float64
	// Significant: the interval excludes no change and |Rel| >= threshold.
	Significant bool
	Verdict     string
}

// Result is a comparison.
type Result struct {
	Base, New  Side
	Options    Options
	Changes    []Change
	Regressed  int
	Improved   int
	TooFewRuns int
	// UnmatchedBase and UnmatchedNew are "cell / workload" pairs with no
	// counterpart on the other side.
	UnmatchedBase, UnmatchedNew []string
}

// ErrMixed refuses comparing a simulated store with a measured one.
var ErrMixed = fmt.Errorf("simulated and measured results are compared only when asked (--mixed)")

// Stores reads both stores and compares them.
func Stores(ctx context.Context, basePath, newPath string, opt Options) (*Result, error) {
	base, err := read(ctx, basePath)
	if err != nil {
		return nil, err
	}
	next, err := read(ctx, newPath)
	if err != nil {
		return nil, err
	}
	if base.side.Simulated != next.side.Simulated && !opt.Mixed {
		return nil, fmt.Errorf("%s holds %s results and %s %s: %w", basePath, kind(base.side.Simulated), newPath, kind(next.side.Simulated), ErrMixed)
	}
	if base.side.Campaign != next.side.Campaign && !opt.OtherCampaign && len(opt.Cells) == 0 && len(opt.Workloads) == 0 {
		return nil, fmt.Errorf("%s is campaign %q and %s campaign %q: compare two stores of one campaign, or match them by cell label with --other-campaign (--map-cell and --map-workload pair cells and workloads whose names differ)",
			basePath, base.side.Campaign, newPath, next.side.Campaign)
	}
	return compare(base, next, opt)
}

func kind(simulated bool) string {
	if simulated {
		return "simulated"
	}
	return "measured"
}

// key names a cell, workload and direction.
type key struct{ cell, workload, direction string }

// side is one store's repeats summed up, by key and metric, in store order.
type side struct {
	side    Side
	order   []key
	samples map[key]map[string]Sample
}

func read(ctx context.Context, path string) (*side, error) {
	st, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	s := &side{side: Side{Path: path, Campaign: st.Name, Simulated: st.Simulated}, samples: map[key]map[string]Sample{}}
	// One cell and workload at a time: its repeats' values, by direction
	// and metric, are summed up into a Sample before the next block.
	err = st.EachBlock(ctx, false, func(b store.Block) error {
		var order []key
		values := map[key]map[string][]float64{}
		for _, a := range b.Aggregates {
			k := key{a.Cell, a.Workload, a.Direction}
			if values[k] == nil {
				values[k] = map[string][]float64{}
				order = append(order, k)
			}
			measured := map[string]float64{"iops": a.IOPS, "mbps": a.MBps, "lat_mean_us": a.LatMeanUs, "p95_us": a.P95Us, "p99_us": a.P99Us}
			for _, m := range Metrics {
				if v := measured[m.Name]; !math.IsNaN(v) {
					values[k][m.Name] = append(values[k][m.Name], v)
				}
			}
		}
		for _, k := range order {
			s.samples[k] = map[string]Sample{}
			for name, xs := range values[k] {
				s.samples[k][name] = sample(xs)
			}
			s.order = append(s.order, k)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return s, nil
}

func compare(base, next *side, opt Options) (*Result, error) {
	if !(opt.Threshold >= 0) {
		return nil, fmt.Errorf("threshold %g: want 0 or a positive fraction such as 0.05", opt.Threshold)
	}
	if !(opt.Confidence > 0 && opt.Confidence < 1) {
		return nil, fmt.Errorf("confidence %g: want a level between 0 and 1 such as 0.95", opt.Confidence)
	}
	r := &Result{Base: base.side, New: next.side, Options: opt}
	matched := map[key]bool{}
	for _, bk := range base.order {
		nk := key{mapped(opt.Cells, bk.cell), mapped(opt.Workloads, bk.workload), bk.direction}
		ns, ok := next.samples[nk]
		if !ok {
			r.UnmatchedBase = appendPair(r.UnmatchedBase, bk)
			continue
		}
		matched[nk] = true
		for _, m := range Metrics {
			xs, ys := base.samples[bk][m.Name], ns[m.Name]
			if xs.N == 0 && ys.N == 0 {
				continue // neither store measured it
			}
			c := change(bk, nk, m, xs, ys, opt)
			switch c.Verdict {
			case Regressed:
				r.Regressed++
			case Improved:
				r.Improved++
			case TooFewRuns:
				r.TooFewRuns++
			}
			r.Changes = append(r.Changes, c)
		}
	}
	for _, nk := range next.order {
		if !matched[nk] {
			r.UnmatchedNew = appendPair(r.UnmatchedNew, nk)
		}
	}
	for from := range opt.Cells {
		if !slices.ContainsFunc(base.order, func(k key) bool { return k.cell == from }) {
			return nil, fmt.Errorf("--map-cell names cell %q, which %s does not have", from, base.side.Path)
		}
	}
	for from := range opt.Workloads {
		if !slices.ContainsFunc(base.order, func(k key) bool { return k.workload == from }) {
			return nil, fmt.Errorf("--map-workload names workload %q, which %s does not have", from, base.side.Path)
		}
	}
	return r, nil
}

func mapped(m map[string]string, name string) string {
	if to, ok := m[name]; ok {
		return to
	}
	return name
}

func appendPair(list []string, k key) []string {
	pair := k.cell + " / " + k.workload
	if slices.Contains(list, pair) {
		return list
	}
	return append(list, pair)
}

// change compares one metric's repeats by Welch's t: the interval of the
// difference of the means, relative to the base mean.
func change(bk, nk key, m Metric, xs, ys Sample, opt Options) Change {
	c := Change{Cell: bk.cell, NewCell: nk.cell, Workload: bk.workload, NewWorkload: nk.workload, Direction: bk.direction,
		Metric: m.Name, HigherIsBetter: m.HigherIsBetter, Base: xs, New: ys,
		Rel: math.NaN(), RelLow: math.NaN(), RelHigh: math.NaN(), P: math.NaN()}
	if xs.N == 0 || ys.N == 0 {
		c.Verdict = NotMeasured
		return c
	}
	diff := c.New.Mean - c.Base.Mean
	if c.Base.Mean != 0 {
		c.Rel = diff / c.Base.Mean
	}
	if xs.N < 2 || ys.N < 2 {
		c.Verdict = TooFewRuns
		return c
	}
	v1, v2 := c.Base.Std*c.Base.Std/float64(xs.N), c.New.Std*c.New.Std/float64(ys.N)
	se := math.Sqrt(v1 + v2)
	halfWidth := 0.0
	if se > 0 {
		// Welch–Satterthwaite degrees of freedom.
		df := (v1 + v2) * (v1 + v2) / (v1*v1/float64(xs.N-1) + v2*v2/float64(ys.N-1))
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
		halfWidth = t.Quantile(1-(1-opt.Confidence)/2) * se
		c.P = 2 * t.Survival(math.Abs(diff)/se)
	} else if diff == 0 {
		c.P = 1
	} else {
		c.P = 0 // no spread at all: the difference is exact
	}
	if c.Base.Mean != 0 {
		c.RelLow, c.RelHigh = (diff-halfWidth)/c.Base.Mean, (diff+halfWidth)/c.Base.Mean
	}
	excludesZero := diff-halfWidth > 0 || diff+halfWidth < 0
	c.Significant = excludesZero && !math.IsNaN(c.Rel) && math.Abs(c.Rel) >= opt.Threshold
	switch {
	case !c.Significant:
		c.Verdict = Unchanged
	case (diff > 0) == m.HigherIsBetter:
		c.Verdict = Improved
	default:
		c.Verdict = Regressed
	}
	return c
}

func sample(xs []float64) Sample {
	s := Sample{N: len(xs), Mean: math.NaN(), Std: math.NaN()}
	switch len(xs) {
	case 0:
	case 1:
		s.Mean = xs[0]
	default:
		s.Mean, s.Std = stat.MeanStdDev(xs, nil)
	}
	return s
}

// Pair names a matched cell and workload as "cell / workload", with the new
// side's names after "->" where a map changed them.
func (c Change) Pair() string {
	s := c.Cell + " / " + c.Workload
	if c.NewCell != c.Cell || c.NewWorkload != c.Workload {
		s += " -> " + c.NewCell + " / " + c.NewWorkload
	}
	return s
}

// Unit is the metric's unit.
func (c Change) Unit() string {
	for _, m := range Metrics {
		if m.Name == c.Metric {
			return m.Unit
		}
	}
	return ""
}

// ParseMap reads "BASE=>NEW" (cells: labels hold '=') or "BASE=NEW"
// (workloads) pairs into a map; sep is the separator.
func ParseMap(pairs []string, sep, what string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range pairs {
		from, to, ok := strings.Cut(p, sep)
		if !ok || from == "" || to == "" {
			return nil, fmt.Errorf("%s %q: want BASE%sNEW", what, p, sep)
		}
		out[from] = to
	}
	return out, nil
}
