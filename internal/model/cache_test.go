package model

import (
	"context"
	"reflect"
	"testing"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// countSolves makes pl's cache count the solves it runs.
func countSolves(pl *Plane, n *int) {
	pl.solved.solver = func(ctx context.Context, p *testbed.Profile, in Input) (*Output, error) {
		*n++
		return Solve(ctx, p, in)
	}
}

// TestIdenticalInputsSolveOnceAndRunsKeepTheirNoise: repeats of a run solve
// once, each repeat still draws its own noise, and a changed input solves
// again.
func TestIdenticalInputsSolveOnceAndRunsKeepTheirNoise(t *testing.T) {
	pl, src := newTestPlane(t, WithNoise(7))
	solves := 0
	countSolves(pl, &solves)
	ctx := context.Background()
	ws := workers(4, 2, "r5")
	prepareRandom(ctx, t, pl, ws)
	job := &fio.Job{RW: "randread", BlockSize: 4096, IODepth: 16, RuntimeSec: 60}
	iops := map[float64]bool{}
	for range 5 {
		res, err := pl.Run(ctx, ws, fio.NewWorkload(*job), nil)
		if err != nil {
			t.Fatal(err)
		}
		iops[res.Aggregate[0].IOPS] = true
	}
	if solves != 1 || len(iops) != 5 {
		t.Errorf("5 repeats: %d solves, %d distinct IOPS; want 1 solve and 5 noisy results", solves, len(iops))
	}
	src.state.Compression = true
	if _, err := pl.Run(ctx, ws, fio.NewWorkload(*job), nil); err != nil {
		t.Fatal(err)
	}
	if solves != 2 {
		t.Errorf("compression turned on: %d solves, want 2", solves)
	}
}

// TestSolveCacheHandsOutCopies: a caller changing an output it got (noise
// does) changes nothing the next caller gets.
func TestSolveCacheHandsOutCopies(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	c := newSolveCache(10)
	in := UniformInput(p, 4, 2, Policy{RAID: "raid1", FTT: 1}, &fio.Job{RW: "randread", BlockSize: 4096, IODepth: 8})
	first, err := c.solve(context.Background(), p, in)
	if err != nil {
		t.Fatal(err)
	}
	want := first.Read.IOPS
	first.Read.IOPS, first.Notes = -1, append(first.Notes, "changed")
	if len(first.Stations) > 0 {
		first.Stations[0].Util = -1
	}
	again, err := c.solve(context.Background(), p, in)
	if err != nil {
		t.Fatal(err)
	}
	if again.Read.IOPS != want || (len(again.Stations) > 0 && again.Stations[0].Util < 0) || len(again.Notes) == len(first.Notes) {
		t.Errorf("second output %+v shows the first caller's changes", again)
	}
}

// TestSolveCacheIsBounded: past its size, the least recently used output
// goes first.
func TestSolveCacheIsBounded(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	c := newSolveCache(2)
	solves := 0
	c.solver = func(ctx context.Context, p *testbed.Profile, in Input) (*Output, error) {
		solves++
		return Solve(ctx, p, in)
	}
	input := func(depth int) Input {
		return UniformInput(p, 2, 1, Policy{RAID: "raid1", FTT: 1}, &fio.Job{RW: "randread", BlockSize: 4096, IODepth: depth})
	}
	for _, depth := range []int{1, 2, 1, 3, 1, 2} { // 2 is dropped when 3 comes in
		if _, err := c.solve(context.Background(), p, input(depth)); err != nil {
			t.Fatal(err)
		}
	}
	if solves != 4 || c.order.Len() != 2 || len(c.entries) != 2 {
		t.Errorf("%d solves, %d kept (%d indexed); want 4 solves (1, 2, 3, 2 again) and 2 kept", solves, c.order.Len(), len(c.entries))
	}
}

// TestInputKeyCoversEveryField: inputs that differ anywhere, however deep,
// have different keys; equal inputs built apart have the same.
func TestInputKeyCoversEveryField(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	base := func() Input {
		in := UniformInput(p, 3, 2, Policy{RAID: "raid5", FTT: 1}, &fio.Job{RW: "randrw", RWMixRead: 70,
			BSSplit: []fio.BSSplit{{Size: 4096, Percent: 50}, {Size: 65536, Percent: 50}}, IODepth: 8, RuntimeSec: 60})
		in.State = ClusterState{Uplink: "25g"}
		return in
	}
	key := func(in Input) [32]byte {
		k, ok := inputKey(in)
		if !ok {
			t.Fatal("an input without a key")
		}
		return k
	}
	want := key(base())
	if key(base()) != want {
		t.Fatal("equal inputs have different keys")
	}
	for name, change := range map[string]func(*Input){
		"state":              func(in *Input) { in.State.RDMA = true },
		"uplink":             func(in *Input) { in.State.Uplink = "10g" },
		"a VM's host":        func(in *Input) { in.VMs[1].Host = "elsewhere" },
		"no VMs":             func(in *Input) { in.VMs = nil },
		"a disk's policy":    func(in *Input) { in.Jobs[0].Disks[5].Policy.Compression = On },
		"a disk written":     func(in *Input) { in.Jobs[0].Disks[0].Written = 0.5 },
		"one disk fewer":     func(in *Input) { in.Jobs[0].Disks = in.Jobs[0].Disks[1:] },
		"the job's bssplit":  func(in *Input) { in.Jobs[0].Job.BSSplit[1].Size = 131072 },
		"the job's options":  func(in *Input) { in.Jobs[0].Job.Options = []fio.Option{{Key: "norandommap"}} },
		"the job's name":     func(in *Input) { in.Jobs[0].Name = "second" },
		"a second job":       func(in *Input) { in.Jobs = append(in.Jobs, in.Jobs[0]) },
		"a disk's VM":        func(in *Input) { in.Jobs[0].Disks[0].VM = 2 },
		"the compression %":  func(in *Input) { in.Jobs[0].Disks[0].CompressPercentage = 50 },
		"the job's iodepth":  func(in *Input) { in.Jobs[0].Job.IODepth = 16 },
		"the job's rwmix":    func(in *Input) { in.Jobs[0].Job.RWMixRead = 50 },
		"the job's runtime":  func(in *Input) { in.Jobs[0].Job.RuntimeSec = 30 },
		"the VMs' vCPUs":     func(in *Input) { in.VMs[0].CPUs = 8 },
		"a VM's controller":  func(in *Input) { in.VMs[2].Controller = "nvme" },
		"the policy's width": func(in *Input) { in.Jobs[0].Disks[3].Policy.StripeWidth = 2 },
	} {
		in := base()
		change(&in)
		if key(in) == want {
			t.Errorf("changing %s kept the key", name)
		}
	}
}

// The key's encoding tells apart what holds different data however the
// Input type may grow: an interface's dynamic type (1 as an int or an
// int64), arrays element by element, a nil slice from an empty one.
func TestEncodeTellsApartTypesArraysAndNil(t *testing.T) {
	enc := func(v any) string {
		b, ok := encode(nil, reflect.ValueOf(v))
		if !ok {
			t.Fatalf("%#v has no encoding", v)
		}
		return string(b)
	}
	type boxed struct{ X any }
	for _, c := range []struct {
		name string
		a, b any
	}{
		{"an int and an int64 in an interface", boxed{int(1)}, boxed{int64(1)}},
		{"arrays in another order", [2]int{1, 2}, [2]int{2, 1}},
		{"a nil slice and an empty one", struct{ S []int }{}, struct{ S []int }{S: []int{}}},
	} {
		if enc(c.a) == enc(c.b) {
			t.Errorf("%s encode the same", c.name)
		}
	}
	if enc(boxed{int64(7)}) != enc(boxed{int64(7)}) || enc([2]int{1, 2}) != enc([2]int{1, 2}) {
		t.Error("equal values encode differently")
	}
}
