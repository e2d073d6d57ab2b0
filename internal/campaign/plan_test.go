package campaign

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"starbench/internal/store"
)

// planSpec: a policy (10 min to change, re-prepares disks) and
// compression (1 min), a timed and an untimed workload, 2 repeats.
func planSpec() *Spec {
	return &Spec{Name: "c",
		Factors: []Factor{
			{Name: "compression", Levels: []string{"False", "True"}, Cost: 60},
			{Name: "policy", Levels: []string{"raid1", "raid5"}, Cost: 600, InvalidatesPrep: true},
		},
		Workloads: []Workload{{Name: "4k", Seconds: 100}, {Name: "seq"}},
		Repeat:    2, Prepare: true, PrepareSeconds: 300,
	}
}

// TestOrderStartsAtFirstLevels: the expensive factor's levels in order,
// the cheaper ones reflected under each, starting at everyone's first
// level; factors of equal cost keep their declared order.
func TestOrderStartsAtFirstLevels(t *testing.T) {
	s := &Spec{Factors: []Factor{
		{Name: "cheap", Levels: []string{"a", "b", "c"}, Cost: 1},
		{Name: "dear", Levels: []string{"x", "y"}, Cost: 100},
	}}
	var got []string
	for _, c := range Order(s) {
		got = append(got, s.Label(c))
	}
	want := []string{"cheap=a dear=x", "cheap=b dear=x", "cheap=c dear=x", "cheap=c dear=y", "cheap=b dear=y", "cheap=a dear=y"}
	if !slices.Equal(got, want) {
		t.Errorf("order %q, want %q", got, want)
	}
	tied := &Spec{Factors: []Factor{{Name: "p", Levels: []string{"1", "2"}, Cost: 5}, {Name: "q", Levels: []string{"1", "2"}, Cost: 5}, {Name: "r", Levels: []string{"1", "2"}, Cost: 5}}}
	if got := costOrder(tied); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("tied costs ordered %v, want the declared order", got)
	}
}

// TestPlanCountsWhatIsStored: stored runs are counted and left out, a
// failed one kept unless rerun, a flagged pair doubles its repeats, a cell
// with nothing left is skipped; changes and preparations follow the cells
// that run; the estimate adds them up.
func TestPlanCountsWhatIsStored(t *testing.T) {
	s := planSpec()
	first, second := "compression=False policy=raid1", "compression=True policy=raid1"
	done := map[store.RunKey]string{
		{Cell: first, Workload: "4k", Repeat: 1}: store.StatusOK, {Cell: first, Workload: "4k", Repeat: 2}: store.StatusOK,
		{Cell: first, Workload: "seq", Repeat: 1}: store.StatusOK, {Cell: first, Workload: "seq", Repeat: 2}: store.StatusOK,
		{Cell: second, Workload: "4k", Repeat: 1}: store.StatusOK, {Cell: second, Workload: "4k", Repeat: 2}: store.StatusFailed,
	}
	p := NewPlan(s, done, false, nil)
	if p.Total != 16 || p.Stored != 6 || p.Failed != 1 || p.Pending() != 10 || p.Kept() != 6 {
		t.Errorf("total %d, stored %d, failed %d, pending %d, kept %d; want 16, 6, 1, 10, 6", p.Total, p.Stored, p.Failed, p.Pending(), p.Kept())
	}
	if len(p.Steps) != 3 || p.Steps[0].Label != second || p.Steps[0].Stored != 2 || len(p.Steps[0].Runs) != 2 || p.Steps[1].Stored != 0 {
		t.Fatalf("steps %+v: want 3, the first %q with 2 stored and 2 to run", p.Steps, second)
	}
	var got []string
	for _, st := range p.Steps {
		var ch []string
		for _, c := range st.Changes {
			ch = append(ch, fmt.Sprintf("%s:%d->%d", s.Factors[c.Factor].Name, c.From, c.To))
		}
		got = append(got, fmt.Sprintf("%s %v prepare=%v", st.Label, ch, st.Prepare))
	}
	want := []string{
		second + " [compression:-1->1 policy:-1->0] prepare=true",
		"compression=True policy=raid5 [policy:0->1] prepare=true",
		"compression=False policy=raid5 [compression:1->0] prepare=false",
	}
	if !slices.Equal(got, want) {
		t.Errorf("steps\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c := p.ChangeCounts(); c["policy"] != 2 || c["compression"] != 2 {
		t.Errorf("change counts %v, want policy 2 and compression 2", c)
	}
	// Changes 60+600 + 600 + 60 s, two preparations of 300 s, runs 4 x 100 s
	// (seq has no duration).
	e := p.Estimate()
	if e.Changes.Seconds() != 1320 || e.Prepare.Seconds() != 600 || e.Runs.Seconds() != 400 || e.RunsKnown || !e.PrepareKnown || e.Total().Seconds() != 2320 {
		t.Errorf("estimate %+v, want changes 1320 s, preparation 600 s, runs 400 s, not all known", e)
	}

	rerun := NewPlan(s, done, true, nil)
	if rerun.Pending() != 11 || rerun.Kept() != 5 || rerun.Steps[0].Stored != 1 || rerun.Steps[0].Runs[0] != (store.RunKey{Cell: second, Workload: "4k", Repeat: 2}) {
		t.Errorf("--rerun-failed: pending %d, kept %d, first step %+v; want 11, 5 and the failed run first", rerun.Pending(), rerun.Kept(), rerun.Steps[0])
	}
	extra := NewPlan(s, done, false, map[Pair]bool{{second, "4k"}: true})
	if extra.Total != 18 || extra.Pending() != 12 || !slices.Contains(extra.Steps[0].Runs, store.RunKey{Cell: second, Workload: "4k", Repeat: 4}) {
		t.Errorf("a flagged pair: total %d, pending %d, first step %+v; want 18, 12 with 4k repeats 3 and 4", extra.Total, extra.Pending(), extra.Steps[0])
	}
}

// TestPlanWrite: the plan as --plan prints it.
func TestPlanWrite(t *testing.T) {
	s := planSpec()
	done := map[store.RunKey]string{{Cell: "compression=False policy=raid1", Workload: "4k", Repeat: 1}: store.StatusFailed}
	p := NewPlan(s, done, false, nil)
	var b strings.Builder
	p.Write(&b)
	out := b.String()
	for _, want := range []string{
		"campaign c: 4 cells x 2 workloads x 2 repeats = 16 runs; 1 stored (1 failed); 15 to run\n",
		"factors, most expensive to change first:\n  policy ",
		"[raid1, raid5]           change 10m0s, re-prepares disks\n  compression ",
		"[False, True]            change 1m0s\n",
		"    1  compression=False policy=raid1",
		"  3 runs   set compression=False, set policy=raid1, prepare disks\n",
		"  4 runs   compression False -> True\n",
		"  4 runs   policy raid1 -> raid5, prepare disks\n",
		"changes: policy 2, compression 3\n",
		"estimated duration on this target: 44m40s (changes 23m0s, preparation 10m0s, runs 11m40s + runs of unknown duration (give workloads duration=))\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the plan does not say %q:\n%s", want, out)
		}
	}
	// A plan that prepares disks without prepare_cost says it cannot count them.
	s.PrepareSeconds = 0
	b.Reset()
	NewPlan(s, done, false, nil).Write(&b)
	if want := "(changes 23m0s, preparation 0s + preparations of unknown duration (give prepare_cost=), runs 11m40s"; !strings.Contains(b.String(), want) {
		t.Errorf("without prepare_cost the plan does not say %q:\n%s", want, b.String())
	}
	s.PrepareSeconds = 300
	p.Simulated = true
	b.Reset()
	p.Write(&b)
	if !strings.Contains(b.String(), "estimated duration on a real cluster: 44m40s") || !strings.Contains(b.String(), "; simulated here on a virtual clock, in seconds\n") {
		t.Errorf("a simulated plan's estimate:\n%s", b.String())
	}
	none := &Spec{Name: "b", Workloads: []Workload{{Name: "w", Seconds: 30}}, Repeat: 1}
	b.Reset()
	NewPlan(none, nil, false, nil).Write(&b)
	if got := b.String(); !strings.Contains(got, "= 1 runs; 1 to run\nfactors: none (one cell, the baseline: the cluster as it is)\n") ||
		strings.Contains(got, "stored") || strings.Contains(got, "changes:") || !strings.Contains(got, "(changes 0s, preparation 0s, runs 30s)\n") {
		t.Errorf("a baseline plan:\n%s", got)
	}
}

// TestOneRepeatIsValid: one repeat is the least a campaign may ask for.
func TestOneRepeatIsValid(t *testing.T) {
	s := &Spec{Name: "one", Workloads: []Workload{{Name: "w"}}, Repeat: 1}
	if err := s.Validate(); err != nil {
		t.Errorf("repeat 1: %v", err)
	}
	s.Repeat = 0
	if err := s.Validate(); err == nil || err.Error() != "repeat is 0; want 1 or more" {
		t.Errorf("repeat 0: %v", err)
	}
}
