package model

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// One VM with one RAID-1 disk on 4 hosts (IBM's validation rows): its host
// carries the guest, the DOM and a replica's half, the host half the
// cluster on (2) the other replica, and the other two nothing of the run.
// Each host reports its own CPU; CPUPercent stays the busiest host's. Two
// concurrent jobs there (the classes' path) are two objects filling a
// turn of the cluster: the first on hosts 0 and 1, the second on 2 and 3.
func TestEachHostReportsItsOwnCPU(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16}
	one := oneDiskEach([]VM{{Host: "esx-1"}}, Policy{RAID: "raid1", FTT: 1}, job)
	two := one
	two.Jobs = []JobLoad{{Name: "a", Job: job, Disks: one.Jobs[0].Disks}, {Name: "b", Job: job, Disks: one.Jobs[0].Disks}}
	for _, tc := range []struct {
		name   string
		in     Input
		loaded []int // the other hosts that hold a component
	}{{"one job", one, []int{2}}, {"two jobs", two, []int{1, 2, 3}}} {
		out := solve(t, p, tc.in)
		cpu := out.HostCPUPercent
		if len(cpu) != p.Hosts {
			t.Fatalf("%s: %d host figures, want %d", tc.name, len(cpu), p.Hosts)
		}
		for h := 1; h < p.Hosts; h++ {
			if loaded := slices.Contains(tc.loaded, h); loaded && !(cpu[h] > 0 && cpu[h] < cpu[0]) || !loaded && cpu[h] != 0 {
				t.Errorf("%s: host CPU %.2f %%, want the VM's host the busiest, hosts %v loaded below it, the others 0", tc.name, cpu, tc.loaded)
				break
			}
		}
		if out.CPUPercent != slices.Max(cpu) {
			t.Errorf("%s: CPUPercent %.2f, want the busiest host's %.2f", tc.name, out.CPUPercent, slices.Max(cpu))
		}
	}
}

// An even layout (one VM a host, HCIBench's) loads every host alike; five
// VMs on four hosts load the host with two of them most.
func TestHostCPUFollowsTheLayout(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 8192, IODepth: 16}
	even := solve(t, p, uniformInput(p, Policy{RAID: "raid5", FTT: 1}, job))
	for h, c := range even.HostCPUPercent {
		if !closeTo(c, even.CPUPercent) || c <= 0 {
			t.Errorf("even layout: host %d CPU %.3f %%, want every host's %.3f %%", h, c, even.CPUPercent)
		}
	}
	vms := []VM{{Host: "a"}, {Host: "b"}, {Host: "c"}, {Host: "d"}, {Host: "a"}}
	five := solve(t, p, oneDiskEach(vms, Policy{RAID: "raid1", FTT: 1}, job))
	cpu := five.HostCPUPercent
	if cpu[0] != five.CPUPercent || slices.Max(cpu[1:]) >= cpu[0] || slices.Min(cpu) <= 0 {
		t.Errorf("five VMs on four hosts: host CPU %.2f %%, want host a (two VMs) the busiest at %.2f %%, every host loaded", cpu, five.CPUPercent)
	}
}

// The plane names each host's figure: the worker's host, then the
// cluster's other hosts in name order for the components placed there; a
// host the run leaves idle is absent.
func TestPlaneReportsEachHostByName(t *testing.T) {
	hosts := []string{"esx-4", "esx-3", "esx-2", "esx-1"}
	var got map[string]HostLoad
	var out Output
	pl, _ := newTestPlane(t, WithHostLoad(hosts, func(_, _ time.Time, loads map[string]HostLoad) { got = loads }),
		WithObserver(func(_ context.Context, _ *testbed.Profile, _ Input, o Output, _ float64) { out = o }))
	ws := workers(1, 1, "")
	ws[0].Host = "esx-3"
	if _, err := pl.Run(context.Background(), ws, fio.NewWorkload(fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16, RuntimeSec: 60}), nil); err != nil {
		t.Fatal(err)
	}
	// Model host 0 is the worker's, hosts 1 to 3 the others by name: the
	// replica half the cluster on is on esx-2.
	want := map[string]HostLoad{"esx-3": {out.HostCPUPercent[0], out.Hosts[0]}, "esx-2": {out.HostCPUPercent[2], out.Hosts[2]}}
	if fmt.Sprint(got) != fmt.Sprint(want) || got["esx-3"].CPUPercent <= got["esx-2"].CPUPercent || got["esx-2"].CompReadIOPS <= 0 {
		t.Errorf("host loads by name %v, want %v: the worker's host esx-3 busiest, its replica's host esx-2 loaded (reads at its replica), esx-1 and esx-4 idle", got, want)
	}
}
