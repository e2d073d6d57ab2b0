package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"
)

// view is what both report formats show, derived once from a Campaign.
type view struct {
	*Campaign
	Generated  string
	Complete   bool
	Testbed    string
	Target     string
	Model      string // the model version of the latest session, "" for measured
	Plan       string // the latest session's plan
	Highlights []highlight
	Tables     []resultTable
	Spread     spread
	Figures    []Figure
}

// highlight is the best and worst cell of one workload and direction.
// With load factors, cells that differ only in their loads are one
// configuration, represented by its peak over the loads.
type highlight struct {
	Workload, Direction string
	Best, Worst         Stat
}

// resultTable is every cell's summary for one workload.
type resultTable struct {
	Workload string
	Stats    []Stat
}

// spread summarises the repeat-to-repeat variation of IOPS.
type spread struct {
	Pairs       int // cell, workload and direction groups with 2+ repeats
	MaxCV       float64
	MedianCV    float64
	Flagged     []Stat
	SingleShots int // groups with one repeat: no spread to show
}

// bottleneck is what limited one workload in one cell, per the data plane.
type bottleneck struct {
	Cell, Workload string
	Levels         map[string]string
	Notes          []string     // what limited the cell's runs, ranges over its repeats
	ranged         []rangedNote // the notes as finish writes them
}

// warning is one distinct note of the runs (a physical bound exceeded, a
// fallback, an input outside the calibrated range) and where it appeared;
// notes of one workload's runs that differ only in their numbers are one,
// each number that differs given as its range.
type warning struct {
	Text   string
	Count  int
	Runs   []string   // the first few run keys
	ranged rangedNote // the note as finish writes it
}

const (
	bottleneckPrefix = "bottleneck: "
	dataPlanePrefix  = "simulated by "
	maxWarningRuns   = 3
)

func newView(c *Campaign, figures []Figure, now time.Time) *view {
	v := &view{Campaign: c, Generated: now.UTC().Format(time.RFC3339), Complete: c.CompletedAt != "", Figures: figures}
	if n := len(c.Sessions); n > 0 {
		last := c.Sessions[n-1]
		v.Testbed, v.Target, v.Plan, v.Model = last.Testbed, last.Target, last.Plan, last.ModelVersion
	}
	v.summariseStats()
	return v
}

func (v *view) summariseStats() {
	byWorkload := map[string][]Stat{}
	var cvs []float64
	for _, s := range v.Stats {
		byWorkload[s.Workload] = append(byWorkload[s.Workload], s)
		if s.N < 2 {
			v.Spread.SingleShots++
			continue
		}
		v.Spread.Pairs++
		cvs = append(cvs, s.CV)
		v.Spread.MaxCV = max(v.Spread.MaxCV, s.CV)
		if s.Flagged {
			v.Spread.Flagged = append(v.Spread.Flagged, s)
		}
	}
	if len(cvs) > 0 {
		slices.Sort(cvs)
		// The empirical median: the lower middle of an even count.
		v.Spread.MedianCV = stat.Quantile(0.5, stat.Empirical, cvs, nil)
	}
	for _, w := range v.Workloads {
		stats := byWorkload[w]
		if len(stats) == 0 {
			continue
		}
		v.Tables = append(v.Tables, resultTable{Workload: w, Stats: stats})
		for _, dir := range directions(stats) {
			if h, ok := v.highlight(w, dir, stats); ok {
				v.Highlights = append(v.Highlights, h)
			}
		}
	}
}

// highlight compares the configurations of one workload and direction:
// every cell, or with load factors each configuration's peak over its
// loads. There is nothing to compare when all cells are one configuration
// at several loads.
func (v *view) highlight(workload, dir string, stats []Stat) (highlight, bool) {
	peaks := map[string]*Stat{}
	var configs []string
	for i := range stats {
		s := &stats[i]
		if s.Direction != dir {
			continue
		}
		k := v.configuration(s.Levels)
		if peaks[k] == nil {
			configs = append(configs, k)
		}
		if peaks[k] == nil || s.MeanIOPS > peaks[k].MeanIOPS {
			peaks[k] = s
		}
	}
	if len(configs) < 2 && len(v.Load) > 0 {
		return highlight{}, false
	}
	h := highlight{Workload: workload, Direction: dir}
	for i, k := range configs {
		if p := peaks[k]; i == 0 || p.MeanIOPS > h.Best.MeanIOPS {
			h.Best = *p
		}
		if p := peaks[k]; i == 0 || p.MeanIOPS < h.Worst.MeanIOPS {
			h.Worst = *p
		}
	}
	return h, true
}

// configuration names a cell's levels of the factors that are not loads.
func (v *view) configuration(levels map[string]string) string {
	var parts []string
	for _, f := range v.Factors {
		if !slices.Contains(v.Load, f) {
			parts = append(parts, f+"="+levels[f])
		}
	}
	return strings.Join(parts, " ")
}

// PeakOver names the load factors highlights take their peak over, "" when none.
func (v *view) PeakOver() string { return strings.Join(v.Load, ", ") }

func directions(stats []Stat) []string {
	var out []string
	for _, s := range stats {
		if !slices.Contains(out, s.Direction) {
			out = append(out, s.Direction)
		}
	}
	return out
}

// Status says whether every planned run is stored.
func (v *view) Status() string {
	if v.Complete {
		return "complete"
	}
	return "incomplete: not every planned run is stored (run the script again to resume)"
}

// Sensitivity is the command that says what a simulated campaign's
// answers rest on (which model parameters, and where their values come
// from), for the script its last session ran; "" for a measured one.
func (v *view) Sensitivity() string {
	if !v.Simulated || len(v.Sessions) == 0 {
		return ""
	}
	return "starbench sensitivity " + v.Sessions[len(v.Sessions)-1].Script
}

// Kind is "simulated" or "measured".
func (v *view) Kind() string {
	if v.Simulated {
		return "simulated"
	}
	return "measured"
}

// Gain is how much better best is than worst, in percent.
func (h highlight) Gain() string {
	if h.Worst.MeanIOPS <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f %%", 100*(h.Best.MeanIOPS/h.Worst.MeanIOPS-1))
}

// number formats a value compactly with thousands grouping: 1234567 -> "1,234,567",
// 999.4 -> "999", 12.345 -> "12.3", 0.1234 -> "0.123".
func number(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "n/a"
	case math.Abs(x) >= 100:
		return group(fmt.Sprintf("%.0f", x))
	case math.Abs(x) >= 10:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.3g", x)
}

// group inserts thousands separators into an integer's digits.
func group(digits string) string {
	sign := ""
	if strings.HasPrefix(digits, "-") {
		sign, digits = "-", digits[1:]
	}
	var b strings.Builder
	for i, r := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + b.String()
}

// percent formats a fraction as a percentage with one decimal.
func percent(x float64) string { return fmt.Sprintf("%.1f %%", 100*x) }

// latency formats microseconds, switching to milliseconds from 1 ms; "n/a"
// where no I/O measured it.
func latency(us float64) string {
	if math.IsNaN(us) || math.IsInf(us, 0) {
		return "n/a"
	}
	if us >= 1000 {
		return fmt.Sprintf("%.2f ms", us/1000)
	}
	return fmt.Sprintf("%.0f µs", us)
}
