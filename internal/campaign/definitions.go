package campaign

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"starbench/internal/store"
)

// checkDefinitions refuses to resume a campaign whose workload is defined
// otherwise than when its stored runs were measured (a job's runtime
// changed with --set, say): their results would be mixed with the new
// ones under one name. Then it records the definitions of this session.
func checkDefinitions(ctx context.Context, spec *Spec, st *store.Store) error {
	stored, err := st.Definitions(ctx, "workload")
	if err != nil {
		return err
	}
	done, err := st.Done(ctx)
	if err != nil {
		return err
	}
	runs := map[string]int{}
	for k := range done {
		runs[k.Workload]++
	}
	var defs []store.Definition
	for _, w := range spec.Workloads {
		if w.Definition == "" {
			continue
		}
		if old, ok := stored[w.Name]; ok && !sameWords(old.Text, w.Definition) && runs[w.Name] > 0 {
			return fmt.Errorf("workload %q is not what it was when its %d stored runs were measured: %s; to measure it again run with --fresh (or delete the store), or give the changed workload a new name",
				w.Name, runs[w.Name], firstDifference(old.Text, w.Definition))
		}
		defs = append(defs, store.Definition{Kind: "workload", Name: w.Name, Text: w.Definition})
	}
	return st.SaveDefinitions(ctx, defs)
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
