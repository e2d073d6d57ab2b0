package campaign

import (
	"context"
	"strings"
	"testing"

	"starbench/internal/store"
)

// A factor whose apply changed, or a level that now stands for something
// else (a policy handle with other rules), under a name with stored runs,
// is refused; a level with no stored runs may change; a campaign defined
// as before resumes.
func TestResumeRefusesAChangedFactorOrLevel(t *testing.T) {
	ctx := context.Background()
	spec := func() *Spec {
		s := &Spec{Name: "defs", Repeat: 1, Workloads: []Workload{{Name: "4k", Definition: "bs=4k"}},
			Factors: []Factor{{Name: "policy", Levels: []string{"raid1", "raid6"},
				Definition: "apply: lambda p: policy.apply(ws, p)",
				LevelDefinitions: map[string]string{
					"raid1": `vsan.policy("raid1", raid="RAID-1", ftt=1)`,
					"raid6": `vsan.policy("raid6", raid="RAID-6", ftt=2)`,
				}}}}
		return s
	}
	path := fillStore(t, spec(), 1)
	st, err := store.Open(ctx, path, "defs", store.Options{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := checkDefinitions(ctx, spec(), st, ""); err != nil {
		t.Fatalf("first check: %v", err)
	}
	if err := checkDefinitions(ctx, spec(), st, ""); err != nil {
		t.Fatalf("the same campaign again: %v", err)
	}
	for _, tc := range []struct {
		change func(*Spec)
		want   string
	}{
		{func(s *Spec) { s.Factors[0].Definition = "apply: lambda p: policy.apply(others, p)" },
			`factor "policy" is not what it was when its 6 stored runs were measured: it had policy.apply(ws, where it now has policy.apply(others,`},
		{func(s *Spec) { s.Factors[0].LevelDefinitions["raid6"] = `vsan.policy("raid6", raid="RAID-6", ftt=1)` },
			`level "policy=raid6" is not what it was when its 3 stored runs were measured: it had ftt=2) where it now has ftt=1)`},
	} {
		s := spec()
		tc.change(s)
		if err := checkDefinitions(ctx, s, st, ""); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v\nwant %q", err, tc.want)
		}
	}
	// A new level, and a level's definition where nothing ran under it.
	s := spec()
	s.Factors[0].Levels = append(s.Factors[0].Levels, "raid5")
	s.Factors[0].LevelDefinitions["raid5"] = `vsan.policy("raid5", raid="RAID-5", ftt=1)`
	if err := checkDefinitions(ctx, s, st, ""); err != nil {
		t.Fatalf("a new level: %v", err)
	}
	s.Factors[0].LevelDefinitions["raid5"] = `vsan.policy("raid5", raid="RAID-5", ftt=1, stripe_width=2)`
	if err := checkDefinitions(ctx, s, st, ""); err != nil {
		t.Fatalf("a level nothing ran under, changed: %v", err)
	}
}

// A cell's runs simulated by one data plane (a model version and a testbed
// profile, by its digest) are not resumed by another: the same resumes,
// another is refused with the cell and both named; a cell nothing ran in
// may come from another (StorageReview's campaign stores its 4-SSD cells
// from the 4-SSD testbed beside the 8-SSD ones), and a session that names
// none (measured) is not checked against it.
func TestResumeRefusesAnotherDataPlane(t *testing.T) {
	ctx := context.Background()
	spec := func(levels ...string) *Spec {
		return &Spec{Name: "plane", Repeat: 1, Workloads: []Workload{{Name: "4k", Definition: "bs=4k"}},
			Factors: []Factor{{Name: "ssds", Levels: levels}}}
	}
	path := fillStore(t, spec("8"), 1)
	st, err := store.Open(ctx, path, "plane", store.Options{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const sr, vx = "starbench-model/2 on testbed storagereview-r6625-esa (profile 0123456789ab)", "starbench-model/2 on testbed vxrail-ve660-esa (profile ba9876543210)"
	if err := checkDefinitions(ctx, spec("8"), st, sr); err != nil {
		t.Fatalf("first check: %v", err)
	}
	if err := checkDefinitions(ctx, spec("8"), st, sr); err != nil {
		t.Fatalf("the same data plane again: %v", err)
	}
	want := "the 3 stored runs of cell ssds=8 were simulated by " + sr + ", and this session's would be by " + vx
	if err := checkDefinitions(ctx, spec("8"), st, vx); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("another data plane: %v\nwant %q", err, want)
	}
	if err := checkDefinitions(ctx, spec("4"), st, vx); err != nil {
		t.Errorf("another data plane for a cell nothing ran in: %v", err)
	}
	if err := checkDefinitions(ctx, spec("8"), st, ""); err != nil {
		t.Errorf("a session naming no data plane: %v", err)
	}
}
