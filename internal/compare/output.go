package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"starbench/internal/campaign"
	"starbench/plots"
)

// WriteTable prints r as a table, one line per metric of each matched cell,
// workload and direction, with a closing count.
func WriteTable(w io.Writer, r *Result) error {
	fmt.Fprintf(w, "base %s (campaign %s, %s)\nnew  %s (campaign %s, %s)\n", r.Base.Path, r.Base.Campaign, kind(r.Base.Simulated),
		r.New.Path, r.New.Campaign, kind(r.New.Simulated))
	if r.Base.Simulated != r.New.Simulated {
		fmt.Fprintln(w, "WARNING: simulated results compared with measured ones (--mixed)")
	}
	conf := percent(r.Options.Confidence, 0)
	fmt.Fprintf(w, "change = new mean / base mean - 1; %s confidence intervals by Welch's t over the repeats; significant: the interval excludes 0 and |change| >= %s\n",
		conf, percent(r.Options.Threshold, 1))
	fmt.Fprintf(w, "MB/s are 10^6 bytes/s; latencies are fio's clat (completion latency) in µs; IOPS and MB/s are worse lower, latencies worse higher\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "cell / workload\tdirection\tmetric\tbase mean ± std (n)\tnew mean ± std (n)\tchange\t%s interval\tverdict\n", conf)
	for _, c := range r.Changes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Pair(), c.Direction, metricLabel(c.Metric), sampleText(c.Base), sampleText(c.New),
			signedPercent(c.Rel), interval(c), c.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	unchanged := len(r.Changes) - r.Regressed - r.Improved - r.TooFewRuns
	fmt.Fprintf(w, "\n%d regressed, %d improved, %d without a significant change beyond %s", r.Regressed, r.Improved, unchanged, percent(r.Options.Threshold, 1))
	if r.TooFewRuns > 0 {
		fmt.Fprintf(w, ", %d without an interval (fewer than 2 repeats on a side: run with repeat >= 2)", r.TooFewRuns)
	}
	fmt.Fprintln(w)
	if len(r.UnmatchedBase) > 0 {
		fmt.Fprintf(w, "only in base: %s\n", strings.Join(r.UnmatchedBase, "; "))
	}
	if len(r.UnmatchedNew) > 0 {
		fmt.Fprintf(w, "only in new: %s\n", strings.Join(r.UnmatchedNew, "; "))
	}
	return nil
}

func metricLabel(name string) string {
	switch name {
	case "iops":
		return "IOPS"
	case "mbps":
		return "MB/s"
	case "lat_mean_us":
		return "mean clat µs"
	case "p95_us":
		return "p95 clat µs"
	case "p99_us":
		return "p99 clat µs"
	}
	return name
}

func sampleText(s Sample) string {
	switch s.N {
	case 0:
		return "n/a"
	case 1:
		return number(s.Mean) + " (1)"
	}
	return fmt.Sprintf("%s ± %s (%d)", number(s.Mean), number(s.Std), s.N)
}

// number writes a value with a precision that suits it: 532196, 12.5, 0.125.
func number(f float64) string {
	switch a := math.Abs(f); {
	case math.IsNaN(f):
		return "n/a"
	case a >= 100:
		return strconv.FormatFloat(f, 'f', 0, 64)
	case a >= 1:
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	return strconv.FormatFloat(f, 'g', 3, 64)
}

func percent(f float64, decimals int) string {
	return strconv.FormatFloat(100*f, 'f', decimals, 64) + " %"
}

func signedPercent(f float64) string {
	if math.IsNaN(f) {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f %%", 100*f)
}

func interval(c Change) string {
	if math.IsNaN(c.RelLow) {
		return "n/a"
	}
	return fmt.Sprintf("[%+.1f, %+.1f] %%", 100*c.RelLow, 100*c.RelHigh)
}

// shortPath is a store's file with its directory: "run1/speed.db".
func shortPath(p string) string {
	return filepath.Join(filepath.Base(filepath.Dir(p)), filepath.Base(p))
}

// jsonChange is a Change as --json writes it (NaN as null).
type jsonChange struct {
	Cell        string          `json:"cell"`
	NewCell     string          `json:"new_cell"`
	Workload    string          `json:"workload"`
	NewWorkload string          `json:"new_workload"`
	Direction   string          `json:"direction"`
	Metric      string          `json:"metric"`
	Unit        string          `json:"unit"`
	WorseWhen   string          `json:"worse_when"`
	Base        jsonSample      `json:"base"`
	New         jsonSample      `json:"new"`
	Change      campaign.Number `json:"change"`
	Low         campaign.Number `json:"change_low"`
	High        campaign.Number `json:"change_high"`
	P           campaign.Number `json:"p_value"`
	Significant bool            `json:"significant"`
	Verdict     string          `json:"verdict"`
}

type jsonSample struct {
	N    int             `json:"n"`
	Mean campaign.Number `json:"mean"`
	Std  campaign.Number `json:"std"`
}

// WriteJSON writes r for CI: both stores, the options, every change and the counts.
func WriteJSON(w io.Writer, r *Result) error {
	out := struct {
		Base          Side           `json:"base"`
		New           Side           `json:"new"`
		Threshold     float64        `json:"threshold"`
		Confidence    float64        `json:"confidence"`
		Regressed     int            `json:"regressed"`
		Improved      int            `json:"improved"`
		TooFewRuns    int            `json:"too_few_runs"`
		Changes       []jsonChange   `json:"changes"`
		UnmatchedBase []string       `json:"unmatched_base"`
		UnmatchedNew  []string       `json:"unmatched_new"`
		Units         campaign.Units `json:"units"`
	}{Base: r.Base, New: r.New, Threshold: r.Options.Threshold, Confidence: r.Options.Confidence, Regressed: r.Regressed,
		Improved: r.Improved, TooFewRuns: r.TooFewRuns, Changes: []jsonChange{},
		UnmatchedBase: append([]string{}, r.UnmatchedBase...), UnmatchedNew: append([]string{}, r.UnmatchedNew...), Units: campaign.TheUnits}
	for _, c := range r.Changes {
		worse := "higher"
		if c.HigherIsBetter {
			worse = "lower"
		}
		out.Changes = append(out.Changes, jsonChange{Cell: c.Cell, NewCell: c.NewCell, Workload: c.Workload, NewWorkload: c.NewWorkload,
			Direction: c.Direction, Metric: c.Metric, Unit: c.Unit(), WorseWhen: worse,
			Base:   jsonSample{c.Base.N, campaign.Number(c.Base.Mean), campaign.Number(c.Base.Std)},
			New:    jsonSample{c.New.N, campaign.Number(c.New.Mean), campaign.Number(c.New.Std)},
			Change: campaign.Number(c.Rel), Low: campaign.Number(c.RelLow), High: campaign.Number(c.RelHigh), P: campaign.Number(c.P),
			Significant: c.Significant, Verdict: c.Verdict})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// Figure draws each matched cell, workload and direction's relative change
// per metric, with its confidence interval as error bars.
func Figure(r *Result) (*plots.Figure, error) {
	var categories []string
	index := map[string]int{}
	for _, c := range r.Changes {
		label := c.Pair() + " " + c.Direction
		if _, ok := index[label]; !ok {
			index[label] = len(categories)
			categories = append(categories, label)
		}
	}
	if len(categories) == 0 {
		return nil, fmt.Errorf("nothing to draw: the stores have no cell and workload in common")
	}
	var series []plots.Series
	for _, m := range Metrics {
		s := plots.Series{Name: metricLabel(m.Name), Y: make([]float64, len(categories)), Err: make([]float64, len(categories))}
		drawn := false
		for _, c := range r.Changes {
			if c.Metric != m.Name || math.IsNaN(c.Rel) {
				continue
			}
			drawn = true
			i := index[c.Pair()+" "+c.Direction]
			s.Y[i] = 100 * c.Rel
			if !math.IsNaN(c.RelLow) {
				s.Err[i] = 100 * (c.RelHigh - c.RelLow) / 2
			}
		}
		if drawn {
			series = append(series, s)
		}
	}
	title := fmt.Sprintf("Change from %s to %s (%s intervals)", shortPath(r.Base.Path), shortPath(r.New.Path), percent(r.Options.Confidence, 0))
	return plots.Bars(categories, series, plots.Options{Title: title, YLabel: "change (%)", Simulated: r.Base.Simulated || r.New.Simulated})
}
