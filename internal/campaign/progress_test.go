package campaign

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"starbench/internal/store"
)

// TestProgressNamesEveryStepOfThePlan: the progress log of a fresh
// campaign names, in the plan's order, each cell's factor changes, its
// disk preparation and each of its runs, numbered "cell i/N" and
// "run j/M" as the plan counts them.
func TestProgressNamesEveryStepOfThePlan(t *testing.T) {
	s := matrix16()
	plan := NewPlan(s, nil, false, nil)
	var want []string
	run := 0
	for i, st := range plan.Steps {
		at := fmt.Sprintf("cell %d/%d", i+1, len(plan.Steps))
		for _, c := range st.Changes {
			f := s.Factors[c.Factor]
			want = append(want, fmt.Sprintf("%s: %s -> %s", at, f.Name, f.Levels[c.To]))
		}
		if st.Prepare {
			want = append(want, at+": preparing disks")
		}
		for _, k := range st.Runs {
			run++
			want = append(want, fmt.Sprintf("run %d/%d start: %s %s", run, plan.Total, at, k))
		}
	}
	_, err, out := execute(t, context.Background(), filepath.Join(t.TempDir(), "wwt.db"), s, newCluster(s), store.Options{Simulated: true}, false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(out, "\n") {
		_, event, _ := strings.Cut(line, " ") // the time of day
		if strings.HasPrefix(event, "cell ") || strings.Contains(event, " start: ") {
			got = append(got, event)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("progress events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
