package model

import (
	"testing"

	"starbench/internal/fio"
)

// The DOM's worlds are one pool per host (dom_worlds_per_host), not per
// socket: the same cores in one socket or two give the same pool and the
// same DOM-bound throughput, and a host with fewer hardware threads than the
// pool has one world per thread.
func TestDOMWorldsArePerHost(t *testing.T) {
	one := mustLoad(t, "vxrail-ve660-esa") // 1 x 16 cores, 2 threads each
	two := mustLoad(t, "vxrail-ve660-esa")
	two.CPU.Sockets, two.CPU.CoresPerSocket = 2, 8
	pool := one.Model.DOMWorldsPerHost.Value
	for _, p := range []struct {
		name string
		w    float64
	}{{"1 socket", newPlatform(one).domWorlds}, {"2 sockets", newPlatform(two).domWorlds}} {
		if p.w != pool {
			t.Errorf("%s: %g DOM worlds, want the host's pool of %g", p.name, p.w, pool)
		}
	}
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16}
	a := solve(t, one, UniformInput(one, 8, 8, Policy{RAID: "raid1"}, job))
	b := solve(t, two, UniformInput(two, 8, 8, Policy{RAID: "raid1"}, job))
	if a.Bottleneck != "vsan-dom" || total(a) != total(b) {
		t.Errorf("1 socket: %.0f IOPS bound by %s; 2 sockets: %.0f IOPS bound by %s; want the same, bound by vsan-dom", total(a), a.Bottleneck, total(b), b.Bottleneck)
	}
	small := mustLoad(t, "vxrail-ve660-esa")
	small.CPU.CoresPerSocket, small.CPU.ThreadsPerCore = 2, 2 // 4 hardware threads
	if w := newPlatform(small).domWorlds; w != 4 {
		t.Errorf("4 hardware threads: %g DOM worlds, want 4 (a world needs a thread to run on)", w)
	}
}

// A host's effective CPU counts each core once and each further SMT thread
// as smt_yield of a core; its LSOM worlds are the worlds of every store it
// holds (OSA: per disk group).
func TestPlatformCountsSMTAndLSOMWorlds(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa") // 2 x 18 cores, 2 threads each, 2 disk groups
	y := p.Model.SMTYield.Value
	if got, want := newPlatform(p).effCPU, 36*(1+y); got != want {
		t.Errorf("36 cores with 2 threads each: effective CPU %g, want %g (36 x (1 + smt_yield %g))", got, want, y)
	}
	noSMT := mustLoad(t, "wwt-r640-osa")
	noSMT.CPU.ThreadsPerCore = 1
	if got := newPlatform(noSMT).effCPU; got != 36 {
		t.Errorf("36 cores without SMT: effective CPU %g, want 36", got)
	}
	pl := newPlatform(p)
	if got, want := pl.storeWorldsPerHost(), 2*p.Model.DiskGroupWorlds.Value; got != want {
		t.Errorf("2 disk groups a host: %g LSOM worlds a host, want %g (2 x diskgroup_worlds)", got, want)
	}
}
