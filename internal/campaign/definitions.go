package campaign

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"starbench/internal/store"
)

// Kinds of definitions the store keeps.
const (
	defWorkload  = "workload"
	defFactor    = "factor"
	defLevel     = "level"      // named "factor=level"
	defDataPlane = "data plane" // named by cell: what simulated its runs
)

// checkDefinitions refuses to resume a campaign whose workloads, factors or
// levels are defined otherwise than when its stored runs were measured (a
// job's runtime changed with --set, a factor's apply now sets another
// setting, a policy level now has other rules), or a cell whose simulated
// runs came from another data plane than this session's (dataPlane:
// another model, testbed or profile; a campaign whose cells run on other
// hardware, as StorageReview's SSD counts, may store each cell's from its
// own): their results would be mixed with the new ones under one name.
// Then it records the definitions of this session. A definition nothing
// stored was measured under (a new level, a workload with no runs yet) is
// simply recorded.
func checkDefinitions(ctx context.Context, spec *Spec, st *store.Store, dataPlane string) error {
	runs, err := runsByDefinition(ctx, st)
	if err != nil {
		return err
	}
	var defs []store.Definition
	for _, w := range spec.Workloads {
		defs = append(defs, store.Definition{Kind: defWorkload, Name: w.Name, Text: w.Definition})
	}
	for _, f := range spec.Factors {
		defs = append(defs, store.Definition{Kind: defFactor, Name: f.Name, Text: f.Definition})
		for _, l := range f.Levels {
			if text, ok := f.LevelDefinitions[l]; ok {
				defs = append(defs, store.Definition{Kind: defLevel, Name: f.Name + "=" + l, Text: text})
			}
		}
	}
	if dataPlane != "" {
		for _, c := range Order(spec) {
			defs = append(defs, store.Definition{Kind: defDataPlane, Name: spec.Label(c), Text: dataPlane})
		}
	}
	defs = slices.DeleteFunc(defs, func(d store.Definition) bool { return d.Text == "" })
	stored := map[string]map[string]store.Definition{}
	for _, kind := range []string{defWorkload, defFactor, defLevel, defDataPlane} {
		if stored[kind], err = st.Definitions(ctx, kind); err != nil {
			return err
		}
	}
	for _, d := range defs {
		old, ok := stored[d.Kind][d.Name]
		n := runs[d.Kind][d.Name]
		if !ok || n == 0 || sameWords(old.Text, d.Text) {
			continue
		}
		if d.Kind == defDataPlane {
			return fmt.Errorf("the %d stored runs of cell %s were simulated by %s, and this session's would be by %s: a cell never mixes two data planes' answers; run with --fresh to simulate them all again, or write to another --out",
				n, d.Name, old.Text, d.Text)
		}
		return fmt.Errorf("%s %q is not what it was when its %d stored runs were measured: %s; to measure it again run with --fresh (or delete the store), or give the changed %s a new name",
			d.Kind, d.Name, n, firstDifference(old.Text, d.Text), d.Kind)
	}
	return st.SaveDefinitions(ctx, defs)
}

// runsByDefinition counts the stored runs of each workload, factor and level
// (by definition kind and name), and each cell's under its data plane.
func runsByDefinition(ctx context.Context, st *store.Store) (map[string]map[string]int, error) {
	done, err := st.Done(ctx)
	if err != nil {
		return nil, err
	}
	cells, err := st.Cells(ctx)
	if err != nil {
		return nil, err
	}
	levels := map[string][]store.Level{}
	for _, c := range cells {
		levels[c.Label] = c.Levels
	}
	runs := map[string]map[string]int{defWorkload: {}, defFactor: {}, defLevel: {}, defDataPlane: {}}
	for k := range done {
		runs[defWorkload][k.Workload]++
		runs[defDataPlane][k.Cell]++
		for _, l := range levels[k.Cell] {
			runs[defFactor][l.Factor]++
			runs[defLevel][l.Factor+"="+l.Value]++
		}
	}
	return runs, nil
}

// firstDifference names the first word where two definitions differ.
func firstDifference(was, now string) string {
	a, b := strings.Fields(was), strings.Fields(now)
	for i := range max(len(a), len(b)) {
		x, y := "(nothing)", "(nothing)"
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return fmt.Sprintf("it had %s where it now has %s", clip(x), clip(y))
		}
	}
	return "they differ"
}

// sameWords says whether two definitions differ in spacing only.
func sameWords(a, b string) bool { return slices.Equal(strings.Fields(a), strings.Fields(b)) }

// clip shortens a word to what an error message can show.
func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
