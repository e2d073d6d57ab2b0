// Package campaign runs matrices of cluster settings: it orders the cells so
// that changes cost least, applies each cell's settings, runs every workload
// the asked number of times into a store, summarises the repeats, resumes
// where a previous process stopped, and puts the cluster back as it found it.
package campaign

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"starbench/internal/store"
)

// Factor is one cluster setting the campaign varies.
type Factor struct {
	Name   string
	Levels []string // as shown and stored, e.g. "False", "raid6", "25g"
	// LevelType is the Starlark type the levels share (store.LevelInt,
	// LevelFloat, LevelBool), or store.LevelText; "" is text.
	LevelType string
	// Load marks a load (iodepth, VMs, threads) rather than a cluster
	// setting: reports draw curves over it instead of ranking its levels.
	Load bool
	// Definition is how the factor sets a level (its apply function's
	// source, and restore's): a resume refuses stored runs of a factor
	// defined otherwise. "" is not checked.
	Definition string
	// LevelDefinitions are what each level stands for where its label does
	// not say it all (a policy handle's rules), by label; checked alike.
	LevelDefinitions map[string]string
	// Cost is the estimated seconds one change of this factor takes.
	Cost float64
	// InvalidatesPrep means a change leaves the disks needing preparation again
	// (e.g. a policy change rewrites every object).
	InvalidatesPrep bool
}

// NamedCosts are the costs a script may name instead of giving seconds.
var NamedCosts = map[string]float64{
	"free":        0,
	"cheap":       10,
	"reconfigure": 120,
	"resync":      1800,
}

// Workload is one measurement each cell runs.
type Workload struct {
	Name string
	// Seconds is the estimated duration of one run (warm-up included); 0 when unknown.
	Seconds float64
	// Definition is what the workload runs (a job's options, a function's
	// source): a resume refuses stored runs of a workload defined otherwise.
	Definition string
}

// Spec is a campaign as declared.
type Spec struct {
	Name      string
	Factors   []Factor
	Workloads []Workload
	Repeat    int
	// Prepare says the campaign prepares disks: before the first run and
	// after every change of a factor that invalidates preparation.
	Prepare bool
	// PrepareSeconds is the estimated duration of one preparation.
	PrepareSeconds float64
	// CVThreshold flags a cell and workload whose repeats vary more than this
	// coefficient of variation (0.05 = 5%); 0 turns flagging off.
	CVThreshold float64
	// RerunHighCV runs a flagged cell's workload Repeat more times, once.
	RerunHighCV bool
}

// Validate says what is wrong with s, if anything.
func (s *Spec) Validate() error {
	if len(s.Workloads) == 0 {
		return fmt.Errorf("campaign %q has no workloads: declare at least one with c.workload(name, job)", s.Name)
	}
	if s.Repeat < 1 {
		return fmt.Errorf("repeat is %d; want 1 or more", s.Repeat)
	}
	if s.CVThreshold < 0 {
		return fmt.Errorf("cv_threshold is %g; want 0 (off) or a positive fraction such as 0.05", s.CVThreshold)
	}
	seen := map[string]bool{}
	for _, f := range s.Factors {
		if err := CheckFactorName(f.Name); err != nil {
			return err
		}
		if seen[f.Name] {
			return fmt.Errorf("factor %q is declared twice", f.Name)
		}
		seen[f.Name] = true
		if len(f.Levels) == 0 {
			return fmt.Errorf("factor %q has no levels; want a list such as [False, True]", f.Name)
		}
		levels := map[string]bool{}
		for _, l := range f.Levels {
			if levels[l] {
				return fmt.Errorf("factor %q lists level %s twice", f.Name, l)
			}
			levels[l] = true
		}
		if f.Cost < 0 {
			return fmt.Errorf("factor %q costs %g seconds; want 0 or more", f.Name, f.Cost)
		}
	}
	names := map[string]bool{}
	for _, w := range s.Workloads {
		if w.Name == "" {
			return fmt.Errorf("a workload has an empty name")
		}
		if names[w.Name] {
			return fmt.Errorf("workload %q is declared twice", w.Name)
		}
		names[w.Name] = true
	}
	return nil
}

// CheckFactorName says whether name can be a factor: a frame column of its own.
func CheckFactorName(name string) error {
	if name == "" || strings.ContainsAny(name, " =") {
		return fmt.Errorf("factor name %q must be non-empty with no spaces or '='", name)
	}
	if slices.Contains(store.ReservedColumns, name) || slices.Contains(HCIColumns, name) {
		return fmt.Errorf("factor name %q is a column of the result frames; choose another (e.g. %q)", name, name+"_setting")
	}
	return nil
}

// Cell is one combination of levels: Levels[i] indexes Spec.Factors[i].Levels.
type Cell struct{ Levels []int }

// BaselineLabel names the one cell of a campaign with no factors.
const BaselineLabel = "baseline"

// Label names c as "factor=level ..." in declaration order, or BaselineLabel
// when the campaign has no factors; stores key cells by it.
func (s *Spec) Label(c Cell) string {
	if len(s.Factors) == 0 {
		return BaselineLabel
	}
	parts := make([]string, len(s.Factors))
	for i, f := range s.Factors {
		parts[i] = f.Name + "=" + f.Levels[c.Levels[i]]
	}
	return strings.Join(parts, " ")
}

// StoreCell returns c as the store records it.
func (s *Spec) StoreCell(c Cell, position int) store.Cell {
	levels := make([]store.Level, len(s.Factors))
	for i, f := range s.Factors {
		levels[i] = store.Level{Factor: f.Name, Value: f.Levels[c.Levels[i]]}
	}
	return store.Cell{Label: s.Label(c), Position: position, Levels: levels}
}

// StoreFactors returns the factors as the store records their declaration.
func (s *Spec) StoreFactors() []store.Factor {
	out := make([]store.Factor, len(s.Factors))
	for i, f := range s.Factors {
		out[i] = store.Factor{Name: f.Name, Type: cmp.Or(f.LevelType, store.LevelText), Load: f.Load, Levels: f.Levels}
	}
	return out
}

// changeCost is what one change of factor i costs, preparation included.
func (s *Spec) changeCost(i int) float64 {
	c := s.Factors[i].Cost
	if s.Factors[i].InvalidatesPrep && s.Prepare {
		c += s.PrepareSeconds
	}
	return c
}
