package campaign

import (
	"fmt"
	"io"
	"strings"
	"time"

	"starbench/internal/store"
)

// Change is one factor's change before a cell; From is -1 when the setting
// the cluster has is not known (the first cell of a process).
type Change struct{ Factor, From, To int }

// Step is one visit of a cell that has runs left to do.
type Step struct {
	Cell    Cell
	Label   string
	Changes []Change
	Prepare bool
	Runs    []store.RunKey // runs still to do, in order
	Stored  int            // runs of the cell already in the store
}

// Plan is what a campaign will do, computed before anything is touched.
type Plan struct {
	Spec  *Spec
	Cells []Cell // every cell, in execution order
	Steps []Step // the cells with runs left to do
	// Total counts the planned runs; Stored those already in the store, of
	// which Failed failed (kept unless --rerun-failed).
	Total, Stored, Failed int
	// Simulated says the plan runs on the embedded default: its estimate
	// is then what the runs would take on a real cluster, not here.
	Simulated bool
}

// Pair names one workload of one cell.
type Pair struct{ Cell, Workload string }

// NewPlan orders s's cells and leaves out the runs done has: successful ones,
// and failed ones unless rerunFailed. Pairs in extra (flagged for high
// variation by an earlier process) get their extra repeats planned too.
func NewPlan(s *Spec, done map[store.RunKey]string, rerunFailed bool, extra map[Pair]bool) *Plan {
	p := &Plan{Spec: s, Cells: Order(s)}
	current := make([]int, len(s.Factors))
	for i := range current {
		current[i] = -1
	}
	prepared := false
	for _, c := range p.Cells {
		label := s.Label(c)
		st := Step{Cell: c, Label: label}
		for _, w := range s.Workloads {
			repeats := s.Repeat
			if extra[Pair{label, w.Name}] {
				repeats *= 2
			}
			for r := 1; r <= repeats; r++ {
				k := store.RunKey{Cell: label, Workload: w.Name, Repeat: r}
				p.Total++
				switch done[k] {
				case store.StatusOK:
					p.Stored++
					st.Stored++
				case store.StatusFailed:
					p.Stored++
					p.Failed++
					if rerunFailed {
						st.Runs = append(st.Runs, k)
					} else {
						st.Stored++
					}
				default:
					st.Runs = append(st.Runs, k)
				}
			}
		}
		if len(st.Runs) == 0 {
			continue
		}
		for f, level := range c.Levels {
			if current[f] != level {
				st.Changes = append(st.Changes, Change{Factor: f, From: current[f], To: level})
				if s.Factors[f].InvalidatesPrep {
					prepared = false
				}
				current[f] = level
			}
		}
		if s.Prepare && !prepared {
			st.Prepare = true
			prepared = true
		}
		p.Steps = append(p.Steps, st)
	}
	return p
}

// Kept counts the stored runs the plan does not run again (failed ones
// are run again under --rerun-failed).
func (p *Plan) Kept() int { return p.Total - p.Pending() }

// Pending counts the runs left to do.
func (p *Plan) Pending() int {
	n := 0
	for _, st := range p.Steps {
		n += len(st.Runs)
	}
	return n
}

// Estimate is the plan's estimated duration in parts; RunsKnown is false
// when a workload has no duration estimate, and PrepareKnown when the plan
// prepares disks without an estimate of how long it takes.
type Estimate struct {
	Changes, Prepare, Runs  time.Duration
	RunsKnown, PrepareKnown bool
}

// Total is the sum of the parts.
func (e Estimate) Total() time.Duration { return e.Changes + e.Prepare + e.Runs }

// Estimate returns the plan's estimated duration.
func (p *Plan) Estimate() Estimate {
	s := p.Spec
	seconds := map[string]float64{}
	e := Estimate{RunsKnown: true, PrepareKnown: true}
	for _, w := range s.Workloads {
		seconds[w.Name] = w.Seconds
		if w.Seconds <= 0 {
			e.RunsKnown = false
		}
	}
	var ch, prep, runs float64
	for _, st := range p.Steps {
		for _, c := range st.Changes {
			ch += s.Factors[c.Factor].Cost
		}
		if st.Prepare {
			prep += s.PrepareSeconds
			e.PrepareKnown = e.PrepareKnown && s.PrepareSeconds > 0
		}
		for _, k := range st.Runs {
			runs += seconds[k.Workload]
		}
	}
	sec := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	e.Changes, e.Prepare, e.Runs = sec(ch), sec(prep), sec(runs)
	return e
}

// ChangeCounts returns how many times each factor changes, by name.
func (p *Plan) ChangeCounts() map[string]int {
	out := map[string]int{}
	for _, st := range p.Steps {
		for _, c := range st.Changes {
			out[p.Spec.Factors[c.Factor].Name]++
		}
	}
	return out
}

// Write prints the plan: cells, runs, order, changes and estimated duration.
func (p *Plan) Write(w io.Writer) {
	s := p.Spec
	fmt.Fprintf(w, "campaign %s: %d cells x %d workloads x %d repeats = %d runs", s.Name, len(p.Cells), len(s.Workloads), s.Repeat, p.Total)
	if p.Stored > 0 {
		fmt.Fprintf(w, "; %d stored", p.Stored)
		if p.Failed > 0 {
			fmt.Fprintf(w, " (%d failed)", p.Failed)
		}
	}
	fmt.Fprintf(w, "; %d to run\n", p.Pending())
	if len(s.Factors) == 0 {
		fmt.Fprintln(w, "factors: none (one cell, the baseline: the cluster as it is)")
	} else {
		fmt.Fprintln(w, "factors, most expensive to change first:")
	}
	for _, f := range costOrder(s) {
		fac := s.Factors[f]
		extra := ""
		if fac.InvalidatesPrep {
			extra = ", re-prepares disks"
		}
		fmt.Fprintf(w, "  %-14s %-24s change %s%s\n", fac.Name, "["+strings.Join(fac.Levels, ", ")+"]", seconds(fac.Cost), extra)
	}
	fmt.Fprintln(w, "order:")
	for i, st := range p.Steps {
		fmt.Fprintf(w, "  %3d  %-56s %3d runs", i+1, st.Label, len(st.Runs))
		var parts []string
		for _, c := range st.Changes {
			f := s.Factors[c.Factor]
			if c.From < 0 {
				parts = append(parts, fmt.Sprintf("set %s=%s", f.Name, f.Levels[c.To]))
			} else {
				parts = append(parts, fmt.Sprintf("%s %s -> %s", f.Name, f.Levels[c.From], f.Levels[c.To]))
			}
		}
		if st.Prepare {
			parts = append(parts, "prepare disks")
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "   %s", strings.Join(parts, ", "))
		}
		fmt.Fprintln(w)
	}
	counts := p.ChangeCounts()
	var cs []string
	for _, f := range costOrder(s) {
		cs = append(cs, fmt.Sprintf("%s %d", s.Factors[f].Name, counts[s.Factors[f].Name]))
	}
	if len(cs) > 0 {
		fmt.Fprintf(w, "changes: %s\n", strings.Join(cs, ", "))
	}
	e := p.Estimate()
	runs := e.Runs.Round(time.Second).String()
	if !e.RunsKnown {
		runs += " + runs of unknown duration (give workloads duration=)"
	}
	prep := e.Prepare.Round(time.Second).String()
	if !e.PrepareKnown {
		prep += " + preparations of unknown duration (give prepare_cost=)"
	}
	where, after := "this target", ""
	if p.Simulated {
		where, after = "a real cluster", "; simulated here on a virtual clock, in seconds"
	}
	fmt.Fprintf(w, "estimated duration on %s: %s (changes %s, preparation %s, runs %s)%s\n",
		where, e.Total().Round(time.Second), e.Changes.Round(time.Second), prep, runs, after)
}

func seconds(f float64) string {
	return time.Duration(f * float64(time.Second)).Round(time.Second).String()
}
