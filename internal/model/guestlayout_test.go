package model

import (
	"cmp"
	"math"
	"strings"
	"testing"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// TestGuestLayoutByHand: the guest side of a job worked out by hand on 4
// hosts whose virtual controllers queue 10 I/Os a disk and 25 an adapter
// (PVSCSI; LSI Logic 6 and 12), a worker VM having 4 vCPUs and 2 disks
// by default.
func TestGuestLayoutByHand(t *testing.T) {
	p := *mustLoad(t, "storagereview-r6625-esa")
	p.Hosts = 4
	p.Workers.CPUs, p.Workers.DataDisks, p.Workers.Controller = 4, 2, testbed.PVSCSI
	m := &p.Model
	m.ControllerQueueLUNPVSCSI.Value, m.ControllerQueueAdapterPVSCSI.Value = 10, 25
	m.ControllerQueueLUNLSILogic.Value, m.ControllerQueueAdapterLSILogic.Value = 6, 12
	disks := func(vms ...int) []DiskLoad {
		var out []DiskLoad
		for vm, n := range vms {
			for range n {
				out = append(out, DiskLoad{VM: vm})
			}
		}
		return out
	}
	cases := []struct {
		name                     string
		vms                      []VM
		disks                    []DiskLoad
		numJobs, depth           int
		vcpus, threads           float64
		controllers              map[string]float64
		fioOutstanding, admitted int
		admitNote, unevenNote    string
	}{
		// 15 disks need 2 adapters: min(15 x 8, 2 x 25) = 50 admitted; the
		// one-disk VM's 8 all. Both VMs on one of 4 hosts: 0 to 2 per host.
		{"capped by adapters, VMs on one host", []VM{{Host: "h1"}, {Host: "h1", CPUs: 2}}, disks(15, 1), 1, 8,
			6.0 / 4, (4 + 1) / 4.0, map[string]float64{"pvscsi": 1}, 128, 58,
			"admit 58 of fio's 128", "unevenly (0 to 2 per host)"},
		// Per disk 10 = the LUN queue: PVSCSI admits all; LSI Logic's LUN
		// queue of 6 holds its disk back. Hosts with 1 or 2 VMs: even enough.
		{"capped by an LSI Logic disk, VMs spread", []VM{{Host: "h1"}, {Host: "h2"}, {Host: "h3"}, {Host: "h4"}, {Host: "h4", Controller: testbed.LSILogic}}, disks(1, 1, 1, 1, 1), 1, 10,
			20.0 / 4, 5.0 / 4, map[string]float64{"pvscsi": 0.8, "lsilogic": 0.2}, 50, 46,
			"admit 46 of fio's 50", ""},
		// numjobs=3 clones run on 3 of the 4 vCPUs of each VM: 6 threads.
		{"clones", []VM{{}, {}}, disks(1, 1), 3, 2,
			8.0 / 4, 6.0 / 4, map[string]float64{"pvscsi": 1}, 12, 12, "", ""},
		// No VMs named: the profile's 2 disks a VM, so 3 disks are 2 VMs;
		// 3 threads on 4 hosts count as one a host.
		{"profile layout", nil, disks(3), 1, 1,
			8.0 / 4, 1, map[string]float64{"pvscsi": 1}, 3, 3, "", ""},
	}
	for _, tc := range cases {
		jl := JobLoad{Job: &fio.Job{NumJobs: tc.numJobs}, Disks: tc.disks}
		g := guestLayout(&p, tc.vms, jl, tc.depth, &jobShape{})
		if g.vcpusPerHost != tc.vcpus || g.threadsPerHost != tc.threads {
			t.Errorf("%s: %g vCPUs and %g threads a host, want %g and %g", tc.name, g.vcpusPerHost, g.threadsPerHost, tc.vcpus, tc.threads)
		}
		if g.fioOutstanding != tc.fioOutstanding || g.outstanding != tc.admitted {
			t.Errorf("%s: %d of fio's %d outstanding I/Os admitted, want %d of %d", tc.name, g.outstanding, g.fioOutstanding, tc.admitted, tc.fioOutstanding)
		}
		if len(g.controllers) != len(tc.controllers) {
			t.Errorf("%s: controllers %v, want %v", tc.name, g.controllers, tc.controllers)
		}
		for c, share := range tc.controllers {
			if math.Abs(g.controllers[c]-share) > 1e-12 {
				t.Errorf("%s: controllers %v, want %v", tc.name, g.controllers, tc.controllers)
			}
		}
		notes := strings.Join(g.notes, "\n")
		for _, want := range []struct{ text, key string }{{tc.admitNote, "admit"}, {tc.unevenNote, "unevenly"}} {
			if want.text == "" && strings.Contains(notes, want.key) || !strings.Contains(notes, want.text) {
				t.Errorf("%s: notes %q, want %q", tc.name, notes, cmp.Or(want.text, "no note of "+want.key))
			}
		}
	}
}
