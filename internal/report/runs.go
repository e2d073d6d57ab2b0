package report

import (
	"cmp"
	"slices"
	"strings"
)

// RunSummary is what a report shows of the runs: their counts, the failed
// ones, and the distinct notes of the ok ones (the data plane, what limited
// each cell and workload, and every other note with how often it came).
type RunSummary struct {
	OK, Failed int
	Repeats    int
	DataPlane  []string // "simulated by MODEL on testbed T" lines, distinct
	Bottleneck []bottleneck
	Warnings   []warning
	FailedRuns []Run

	warnings    map[string]*warning
	bottlenecks map[[2]string]int // index in Bottleneck
}

// add counts one run; runs come in the store's order, so the runs of a
// cell and workload come together and Bottleneck keeps their order.
func (s *RunSummary) add(r Run, levels map[string]string) {
	s.Repeats = max(s.Repeats, r.Repeat)
	if r.Status != "ok" {
		s.Failed++
		s.FailedRuns = append(s.FailedRuns, r)
		return
	}
	s.OK++
	for _, n := range r.Notes {
		switch {
		case strings.HasPrefix(n, dataPlanePrefix):
			if !slices.Contains(s.DataPlane, n) {
				s.DataPlane = append(s.DataPlane, n)
			}
		case strings.HasPrefix(n, bottleneckPrefix):
			k := [2]string{r.Cell, r.Workload}
			i, ok := s.bottlenecks[k]
			if !ok {
				if s.bottlenecks == nil {
					s.bottlenecks = map[[2]string]int{}
				}
				i = len(s.Bottleneck)
				s.bottlenecks[k] = i
				s.Bottleneck = append(s.Bottleneck, bottleneck{Cell: r.Cell, Workload: r.Workload, Levels: levels})
			}
			b := &s.Bottleneck[i]
			b.ranged = addRanged(b.ranged, strings.TrimPrefix(n, bottleneckPrefix))
		default:
			note := parseRanged(n)
			key := strings.Join(note.text, "\x00")
			if len(note.lo) > 0 { // its numbers are ranges over the runs of a workload
				key = r.Workload + "\x00" + key
			}
			w := s.warnings[key]
			if w == nil {
				if s.warnings == nil {
					s.warnings = map[string]*warning{}
				}
				w = &warning{ranged: note}
				s.warnings[key] = w
			}
			w.ranged.merge(note)
			w.Count++
			if len(w.Runs) < maxWarningRuns {
				w.Runs = append(w.Runs, r.Key())
			}
		}
	}
}

// finish writes each warning and each bottleneck's notes, ranges where
// their runs' numbers differ, and orders the warnings, most frequent
// first.
func (s *RunSummary) finish() {
	for i := range s.Bottleneck {
		b := &s.Bottleneck[i]
		for _, n := range b.ranged {
			b.Notes = append(b.Notes, n.String())
		}
	}
	for _, w := range s.warnings {
		w.Text = w.ranged.String()
		s.Warnings = append(s.Warnings, *w)
	}
	slices.SortFunc(s.Warnings, func(a, b warning) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Text, b.Text))
	})
	s.warnings, s.bottlenecks = nil, nil
}
