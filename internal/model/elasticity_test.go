package model

import (
	"context"
	"math"
	"slices"
	"testing"

	"starbench/internal/testbed"
)

// elasticity is run r's elasticity to the parameter named in s.
func elasticity(t *testing.T, s Sensitivity, r int, name string) float64 {
	t.Helper()
	k := slices.Index(s.Names, name)
	if k < 0 {
		t.Fatalf("no elasticity to %s among %v", name, s.Names)
	}
	return s.Of[r][k]
}

// What a simulated answer rests on follows its mechanism: StorageReview's
// 4K reads are bound by the DOM's pool of worlds, so their I/Os grow in
// proportion to the worlds and fall with the DOM's cycles per I/O, while
// the network and the LSOM's cost per byte written, which reads at that
// ceiling barely use, move nothing. A run a rate holds answers with its
// latency, of which vSAN's fixed time per I/O is an added delay: its
// elasticity is that time's share of the latency. Repeats answer alike, and
// parameters at 0, which a factor cannot move, are left out.
func TestElasticitiesFollowWhatBindsTheRun(t *testing.T) {
	ctx := context.Background()
	p := mustLoad(t, "storagereview-r6625-esa")
	read, held := calibrationRun(t, p, p, calRandRead), heldRun(t, p, p)
	runs := []AnswerRun{{Name: "read", In: read.In}, {Name: "held", In: held.In}, {Name: "read again", In: read.In}}
	s, err := Elasticities(ctx, p, runs, 1.1)
	if err != nil {
		t.Fatal(err)
	}
	worlds, cycles := elasticity(t, s, 0, "dom_worlds_per_host"), elasticity(t, s, 0, "dom_io_cycles")
	t.Logf("4K reads: dom_worlds_per_host %+.3f, dom_io_cycles %+.3f, nic_efficiency %+.4f, lsom_write_byte_cycles %+.4f",
		worlds, cycles, elasticity(t, s, 0, "nic_efficiency"), elasticity(t, s, 0, "lsom_write_byte_cycles"))
	if worlds < 0.85 || worlds > 1.05 {
		t.Errorf("4K reads' elasticity to the DOM's worlds %.3f: want about 1 (the worlds bind)", worlds)
	}
	if cycles > -0.5 {
		t.Errorf("4K reads' elasticity to the DOM's cycles per I/O %.3f: want below -0.5 (most of the binding worlds' work)", cycles)
	}
	for _, name := range []string{"nic_efficiency", "lsom_write_byte_cycles"} {
		if e := elasticity(t, s, 0, name); math.Abs(e) > 0.02 {
			t.Errorf("4K reads' elasticity to %s %.4f: want about 0 (it does not bind them)", name, e)
		}
	}
	var top []string
	for _, k := range s.Top(0, 3, 0.5) {
		top = append(top, s.Names[k])
	}
	if !slices.Equal(top, []string{"dom_worlds_per_host", "dom_io_cycles"}) {
		t.Errorf("4K reads move most with %v (at least 0.5 each, three at most): want the DOM's worlds, then its cycles", top)
	}
	if s.Latency[0] || !s.Latency[1] {
		t.Errorf("answers are latencies %v: want the held run's alone", s.Latency)
	}
	out, err := Solve(ctx, p, held.In)
	if err != nil {
		t.Fatal(err)
	}
	share := p.Model.SoftwareLatencyUs.Value / out.MeanLatencyUs()
	if e := elasticity(t, s, 1, "software_latency_us"); math.Abs(e-share) > 0.02 {
		t.Errorf("the held run's elasticity to vSAN's fixed time per I/O %.3f: want its share of the mean latency, %.3f", e, share)
	}
	if !slices.Equal(s.Of[0], s.Of[2]) {
		t.Errorf("a repeat's elasticities %v, the run's %v: want the same", s.Of[2], s.Of[0])
	}
	p.Model.Each(func(name string, q *testbed.Param) {
		if in := slices.Contains(s.Names, name); in != (q.Value > 0) {
			t.Errorf("%s at %g among the parameters: %v", name, q.Value, in)
		}
	})
	if _, err := Elasticities(ctx, p, runs, 1); err == nil {
		t.Error("a step of 1: want an error (no move, no difference)")
	}
}
