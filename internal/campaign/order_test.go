package campaign

import (
	"math"
	"math/rand/v2"
	"testing"
)

func matrix16() *Spec {
	return &Spec{
		Name: "wwt",
		Factors: []Factor{
			{Name: "compression", Levels: []string{"False", "True"}, Cost: 10},
			{Name: "rdma", Levels: []string{"False", "True"}, Cost: 60},
			{Name: "uplink", Levels: []string{"10g", "25g"}, Cost: 5},
			{Name: "policy", Levels: []string{"raid1", "raid6"}, Cost: 1800, InvalidatesPrep: true},
		},
		Workloads: []Workload{{Name: "4k", Seconds: 60}, {Name: "64k", Seconds: 60}},
		Repeat:    2, Prepare: true, PrepareSeconds: 600,
	}
}

// changes counts, per factor, the changes between consecutive cells.
func changes(s *Spec, cells []Cell) []int {
	n := make([]int, len(s.Factors))
	for i := 1; i < len(cells); i++ {
		for f := range s.Factors {
			if cells[i].Levels[f] != cells[i-1].Levels[f] {
				n[f]++
			}
		}
	}
	return n
}

func cost(s *Spec, cells []Cell) float64 {
	total := 0.0
	for f, n := range changes(s, cells) {
		total += float64(n) * s.changeCost(f)
	}
	return total
}

func TestOrderSixteenCellsMinimalExpensiveChanges(t *testing.T) {
	s := matrix16()
	cells := Order(s)
	if len(cells) != 16 {
		t.Fatalf("%d cells, want 16", len(cells))
	}
	seen := map[string]bool{}
	for _, c := range cells {
		seen[s.Label(c)] = true
	}
	if len(seen) != 16 {
		t.Fatalf("%d distinct cells, want 16", len(seen))
	}
	n := changes(s, Order(s))
	// policy has 2 levels: visiting both needs exactly 1 change, the minimum.
	if n[3] != 1 {
		t.Errorf("policy (expensive) changes %d times, want the minimum 1", n[3])
	}
	// Then rdma (60 s), compression (10 s), uplink (5 s): 2*2-1, 8-1-... nested bounds.
	if want := []int{4, 2, 8, 1}; n[0] != want[0] || n[1] != want[1] || n[2] != want[2] {
		t.Errorf("changes compression/rdma/uplink = %v, want %v", n[:3], want[:3])
	}
	for i := 1; i < len(cells); i++ {
		d := 0
		for f := range s.Factors {
			if cells[i].Levels[f] != cells[i-1].Levels[f] {
				d++
			}
		}
		if d != 1 {
			t.Fatalf("cells %d and %d differ in %d factors, want 1 (Gray order)", i-1, i, d)
		}
	}
}

func TestOrderGrayForOddRadix(t *testing.T) {
	s := &Spec{Factors: []Factor{
		{Name: "a", Levels: []string{"1", "2", "3"}, Cost: 3},
		{Name: "b", Levels: []string{"1", "2", "3"}, Cost: 2},
		{Name: "c", Levels: []string{"1", "2"}, Cost: 1},
		{Name: "d", Levels: []string{"1", "2", "3"}, Cost: 0.5},
	}}
	cells := Order(s)
	seen := map[string]bool{}
	for i, c := range cells {
		seen[s.Label(c)] = true
		if i == 0 {
			continue
		}
		d := 0
		for f := range s.Factors {
			if c.Levels[f] != cells[i-1].Levels[f] {
				d++
			}
		}
		if d != 1 {
			t.Fatalf("cells %d and %d differ in %d factors, want 1", i-1, i, d)
		}
	}
	if len(seen) != 54 {
		t.Fatalf("%d distinct cells, want 54", len(seen))
	}
}

// TestOrderIsOptimalByBruteForce compares the order's cost with every
// permutation of small matrices under random costs.
func TestOrderIsOptimalByBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := [][]int{{2, 2, 2}, {3, 2}, {2, 3}, {4, 2}}
	for trial := range 12 {
		shape := shapes[trial%len(shapes)]
		s := &Spec{}
		for i, n := range shape {
			f := Factor{Name: string(rune('a' + i)), Cost: float64(rng.IntN(100))}
			for l := range n {
				f.Levels = append(f.Levels, string(rune('0'+l)))
			}
			s.Factors = append(s.Factors, f)
		}
		got := cost(s, Order(s))
		all := Order(s)
		best := math.Inf(1)
		permute(all, 0, func(p []Cell) {
			best = math.Min(best, cost(s, p))
		})
		if got != best {
			t.Errorf("shape %v costs %v: order costs %v, brute-force minimum %v", shape, costsOf(s), got, best)
		}
	}
}

func costsOf(s *Spec) []float64 {
	var out []float64
	for _, f := range s.Factors {
		out = append(out, f.Cost)
	}
	return out
}

func permute(a []Cell, k int, visit func([]Cell)) {
	if k == len(a) {
		visit(a)
		return
	}
	for i := k; i < len(a); i++ {
		a[k], a[i] = a[i], a[k]
		permute(a, k+1, visit)
		a[k], a[i] = a[i], a[k]
	}
}

func TestPlanChangesAndPrepares(t *testing.T) {
	s := matrix16()
	p := NewPlan(s, nil, false, nil)
	if len(p.Steps) != 16 || p.Total != 64 || p.Pending() != 64 {
		t.Fatalf("steps %d total %d pending %d", len(p.Steps), p.Total, p.Pending())
	}
	if got := len(p.Steps[0].Changes); got != 4 {
		t.Fatalf("first cell sets %d factors, want all 4 (the cluster's settings are unknown)", got)
	}
	prepares := 0
	for _, st := range p.Steps {
		if st.Prepare {
			prepares++
		}
	}
	if prepares != 2 {
		t.Fatalf("%d preparations, want 2 (start, and after the one policy change)", prepares)
	}
	counts := p.ChangeCounts()
	if counts["policy"] != 2 || counts["uplink"] != 9 { // first cell sets each once
		t.Fatalf("change counts %v", counts)
	}
	e := p.Estimate()
	// 2 policy + 3 rdma + 5 compression + 9 uplink changes, 2 preparations, 64 one-minute runs.
	want := 2*1800 + 3*60 + 5*10 + 9*5 + 2*600 + 64*60
	if int(e.Total().Seconds()) != want || !e.RunsKnown {
		t.Fatalf("estimate %v (known=%v), want %ds", e.Total(), e.RunsKnown, want)
	}
}
