package model

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// stationsNamed are a cell's stations of one kind (its groups of copies).
func stationsNamed(c *cell, name string) []station {
	var out []station
	for _, s := range c.st {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

func closeTo(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Abs(want) }

// oneDiskEach is one job on one disk of each VM, all fully written with
// incompressible data.
func oneDiskEach(vms []VM, pol Policy, job *fio.Job) Input {
	in := Input{VMs: vms, Jobs: []JobLoad{{Job: job}}}
	for v := range vms {
		in.Jobs[0].Disks = append(in.Jobs[0].Disks, DiskLoad{VM: v, Policy: pol, Written: 1})
	}
	return in
}

// The placement of a few objects worked out by hand on StorageReview's 4
// ESA hosts of 8 devices: VM 0 (on host a) has three RAID-1 disks, VM 1
// (on host b) one RAID-5 disk (ESA 2+1 below 6 hosts, its performance leg
// on the first two of its three hosts). An owner's components fill whole
// turns of the cluster host after host from its own, the rest spaced
// evenly around it; each host takes its devices round-robin per leg, a
// performance-leg component one device after.
func TestPlaceObjectsByHand(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	vms := []VM{{Host: "esx-b"}, {Host: "esx-a"}} // name order: esx-a is host 0
	hostOf, err := vmHosts(p, vms)
	if err != nil || hostOf[0] != 1 || hostOf[1] != 0 {
		t.Fatalf("hosts %v (%v), want esx-b 1 and esx-a 0", hostOf, err)
	}
	r1, r5 := Policy{RAID: "raid1", FTT: 1}, Policy{RAID: "raid5", FTT: 1}
	jobs := []JobLoad{
		{Disks: []DiskLoad{{VM: 1, Policy: r1}, {VM: 1, Policy: r1}}},
		{Disks: []DiskLoad{{VM: 1, Policy: r1}, {VM: 0, Policy: r5}, {VM: 0, Policy: Policy{}}}},
	}
	placed, err := placeObjects(p, jobs, hostOf)
	if err != nil {
		t.Fatal(err)
	}
	cp, pf := capLeg, perfLeg
	want := [][]object{{
		// host a's first object: hosts 0 and 1, a capacity component on
		// device 0 and a performance one on device 1 of each.
		{owner: 0, width: [2]int{2, 2}, comps: []component{{0, 0, cp}, {0, 1, pf}, {1, 0, cp}, {1, 1, pf}}},
		// its second starts 2 hosts on: hosts 2 and 3, their first devices.
		{owner: 0, width: [2]int{2, 2}, comps: []component{{2, 0, cp}, {2, 1, pf}, {3, 0, cp}, {3, 1, pf}}},
	}, {
		// its third is what is left over a whole turn, its 2 components
		// spaced evenly around the 4 hosts: hosts 0 and 2, their next
		// devices.
		{owner: 0, width: [2]int{2, 2}, comps: []component{{0, 1, cp}, {0, 2, pf}, {2, 1, cp}, {2, 2, pf}}},
		// host b's first: hosts 1, 2, 3; the performance leg on 1 and 2.
		{owner: 1, width: [2]int{3, 2}, comps: []component{{1, 1, cp}, {1, 2, pf}, {2, 2, cp}, {2, 3, pf}, {3, 1, cp}}},
		// no policy is vSAN's default, RAID-1 FTT 1: from the host after
		// the last one's, hosts 0 and 1 (the turn's last host, then its
		// one component left over, on b's own host).
		{owner: 1, width: [2]int{2, 2}, comps: []component{{0, 2, cp}, {0, 3, pf}, {1, 2, cp}, {1, 3, pf}}},
	}}
	remote := [][][2]float64{{{0.5, 0.5}, {1, 1}}, {{0.5, 0.5}, {1 - 1.0/3, 0.5}, {0.5, 0.5}}}
	for j := range want {
		for i, w := range want[j] {
			got := placed[j][i]
			if got.owner != w.owner || got.width != w.width || !slicesEqual(got.comps, w.comps) {
				t.Errorf("job %d disk %d: %+v, want %+v", j, i, got, w)
			}
			// One object alone: its owner's share of messages to each leg
			// is the leg's remote share.
			hw, _ := hostWeights(p.Hosts, []object{got}, []int{0}, 1, nil, 0)
			for l, r := range remote[j][i] {
				if share := hw[0][got.owner].ownerNet[l]; !closeTo(share, r) {
					t.Errorf("job %d disk %d leg %d: remote share %g, want %g", j, i, l, share, r)
				}
			}
		}
	}
	// A VM on no known host: its object is spread evenly, not placed.
	placed, err = placeObjects(p, []JobLoad{{Disks: []DiskLoad{{VM: 0, Policy: r1}}}}, []int{-1})
	if err != nil || placed[0][0].owner != -1 || placed[0][0].comps != nil {
		t.Errorf("unknown host: %+v (%v), want owner -1 and no components", placed[0][0], err)
	}
}

func slicesEqual(a, b []component) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// One VM with one RAID-1 disk, 4K random reads, on StorageReview's ESA
// cluster: the stations are the VM's host (guest, DOM, its NIC receiving
// the remote replica's half of the reads) and the two replicas' devices,
// one on the owner's host (local) and one on the next host; every
// figure by hand from the parameters.
func TestOneVMOneRAID1DiskByHand(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	m := &p.Model
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16}
	in := oneDiskEach([]VM{{Host: "esx-1"}}, Policy{RAID: "raid1", FTT: 1}, job)
	c := mustBuild(t, p, in)
	hz := p.CPU.Clock() * 1e9
	link, err := resolveLink(p, in.State, false)
	if err != nil {
		t.Fatal(err)
	}
	frame := 1538.0 / 1448 // (MTU + 38) / (MTU - 52) at 1500
	hdr := m.MessageHeaderBytes.Value
	lsomLocal := m.LSOMOpCycles.Value + 4096*m.LSOMReadByteCycles.Value
	lsomRemote := lsomLocal + m.MessageCyclesTCP.Value + 4096*m.TxByteCyclesTCP.Value
	guest := m.FioIOCycles.Value + m.ControllerIOCyclesPVSCSI.Value
	dom := m.DOMIOCycles.Value + 4096*(m.GuestCopyByteCycles.Value+m.DOMByteCycles.Value+m.ChecksumCyclesPerByte.Value) + 0.5*m.MessageCyclesTCP.Value
	type want struct {
		copies int
		d      float64 // per I/O at one copy, reads
	}
	cases := map[string][]want{
		"guest":    {{1, guest / hz}},
		"vsan-dom": {{1, dom / hz}},
		// The owner's host: its guest and DOM, its local replica's half,
		// and TCP receive of the remote half; the next host: the remote
		// replica's half with its messages and sends.
		"cpu": {{1, (guest + dom + 0.5*lsomLocal + 0.5*4096*m.RxByteCyclesTCP.Value) / hz}, {1, 0.5 * lsomRemote / hz}},
		// A replica's capacity device per half of the reads: its rated 4K
		// read time.
		"ssd-capacity": {{2, 0.5 / p.Storage.Capacity.ReadIOPS}},
		"vsan-device":  {{1, 0.5 * lsomLocal / hz}, {1, 0.5 * lsomRemote / hz}},
		// Requests out and data back on the remote half.
		"nic-rx": {{1, 0.5 * (4096*frame + hdr) / link.bps}, {1, 0.5 * hdr / link.bps}},
		"nic-tx": {{1, 0.5 * hdr / link.bps}, {1, 0.5 * (4096*frame + hdr) / link.bps}},
	}
	for name, ws := range cases {
		got := stationsNamed(c, name)
		if len(got) != len(ws) {
			t.Errorf("%s: %d stations, want %d", name, len(got), len(ws))
			continue
		}
		for i, w := range ws {
			if got[i].Copies != w.copies || !closeTo(got[i].D[read], w.d) {
				t.Errorf("%s station %d: %d copies of %.6g s a read, want %d of %.6g", name, i, got[i].Copies, got[i].D[read], w.copies, w.d)
			}
		}
	}
	if g := stationsNamed(c, "guest")[0]; g.Servers != 1 {
		t.Errorf("guest: %g threads, want 1 (one fio job on one disk)", g.Servers)
	}
	if c.cost[read].roundTrips != 0.5 {
		t.Errorf("round trips per read %g, want 0.5 (half the reads are local)", c.cost[read].roundTrips)
	}
}

// Five VMs on four hosts (two on the first), one RAID-1 disk each: the
// guest side of the first host carries 2/5 of the I/Os' guest work and the
// others 1/5 each, so the guest stations behave as 2.5 copies (all work
// over the busiest copy's). The DOM's share also holds messages to remote
// replicas: host a's second object has none on host a (remote share 1, the
// others 1/2), so its DOM share is (2b + 1.5m) of 5b + 3m. As one class
// (buildCell) the DOM worlds of that host bind every disk: the network
// runs at their capacity; Solve lets the other hosts' disks run ahead
// (TestUnevenLayoutRunsEachGroupAtItsOwnRate).
func TestFiveVMsOnFourHosts(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	m := &p.Model
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16, NumJobs: 4}
	vms := []VM{{Host: "a"}, {Host: "b"}, {Host: "c"}, {Host: "d"}, {Host: "a"}}
	in := oneDiskEach(vms, Policy{RAID: "raid1", FTT: 1}, job)
	c := mustBuild(t, p, in)
	effective := func(name string) (copies float64, busiest station) {
		total := 0.0
		for _, s := range stationsNamed(c, name) {
			total += float64(s.Copies) * s.D[read]
			if s.D[read] > busiest.D[read] {
				busiest = s
			}
		}
		return total / busiest.D[read], busiest
	}
	if got, s := effective("guest"); !closeTo(got, 2.5) || s.Copies != 1 || s.Servers != 8 {
		t.Errorf("guest: %g effective copies, the busiest %d copy of %g threads; want 2.5, 1 and 8 (2 VMs x 4 jobs)", got, s.Copies, s.Servers)
	}
	b := m.DOMIOCycles.Value + 4096*(m.GuestCopyByteCycles.Value+m.DOMByteCycles.Value+m.ChecksumCyclesPerByte.Value)
	msg := m.MessageCyclesTCP.Value
	got, dom := effective("vsan-dom")
	if want := (5*b + 3*msg) / (2*b + 1.5*msg); !closeTo(got, want) {
		t.Errorf("vsan-dom: %g effective copies, want %g", got, want)
	}
	out, err := solveCell(context.Background(), p, in, c)
	if err != nil {
		t.Fatal(err)
	}
	bound := dom.Servers / dom.D[read]
	if x := out.Read.IOPS; out.Bottleneck != "vsan-dom" || x > bound*(1+1e-9) || x < 0.97*bound {
		t.Errorf("%.0f IOPS, bottleneck %s; want vsan-dom binding at its bound %.0f", x, out.Bottleneck, bound)
	}
	// One VM: one copy of each; four VMs, one a host: all four.
	for _, tc := range []struct {
		vms    []VM
		copies int
	}{{vms[:1], 1}, {vms[:4], 4}} {
		c := mustBuild(t, p, oneDiskEach(tc.vms, Policy{RAID: "raid1", FTT: 1}, job))
		for _, name := range []string{"guest", "vsan-dom"} {
			if st := stationsNamed(c, name); len(st) != 1 || st[0].Copies != tc.copies {
				t.Errorf("%d VMs: %s stations %+v, want one of %d copies", len(tc.vms), name, st, tc.copies)
			}
		}
	}
}

// Where the layout is even (the VMs spread evenly over the hosts and each
// host's objects filling whole turns of the placement), the placed network
// is the symmetric one: the same as with the VMs' hosts unknown, one
// station per kind, copy for copy. The StorageReview calibration layouts
// (16 VMs x 8 disks on 4 hosts, 8 and 4 devices, RAID-1 and RAID-5) and
// the WWT campaign's (96 VMs x 8 disks on 24 hosts, RAID-6).
func TestEvenLayoutIsTheSymmetricNetwork(t *testing.T) {
	esa4 := mustLoad(t, "storagereview-r6625-esa")
	esa4.Storage.CapacityDevices = 4
	jobs := []*fio.Job{
		{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16},
		{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 8192, IODepth: 16},
		{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 16},
		{IOEngine: "libaio", Direct: true, RW: "write", BlockSize: 1 << 20, IODepth: 8},
	}
	for _, tc := range []struct {
		p   *testbed.Profile
		pol Policy
	}{
		{mustLoad(t, "storagereview-r6625-esa"), Policy{RAID: "raid1", FTT: 1}},
		{mustLoad(t, "storagereview-r6625-esa"), Policy{RAID: "raid5", FTT: 1}},
		{esa4, Policy{RAID: "raid1", FTT: 1}},
		{esa4, Policy{RAID: "raid5", FTT: 1}},
		{mustLoad(t, "wwt-r640-osa"), Policy{RAID: "raid6", FTT: 2}},
	} {
		for _, job := range jobs {
			placed := uniformInput(tc.p, tc.pol, job)
			spread := uniformInput(tc.p, tc.pol, job)
			for i := range spread.VMs {
				spread.VMs[i].Host = ""
			}
			a, b := mustBuild(t, tc.p, placed), mustBuild(t, tc.p, spread)
			name := tc.p.Name + " " + tc.pol.RAID + " " + job.RW
			if len(a.st) != len(b.st) {
				t.Errorf("%s: %d stations placed, %d spread evenly", name, len(a.st), len(b.st))
				continue
			}
			for k := range a.st {
				x, y := a.st[k], b.st[k]
				same := x.Name == y.Name && x.Copies == y.Copies && closeTo(x.Servers, y.Servers) && closeTo(x.Threads, y.Threads)
				for dir := range x.D {
					same = same && closeTo(x.D[dir], y.D[dir]) && closeTo(x.Extra[dir], y.Extra[dir])
				}
				if !same {
					t.Errorf("%s: placed %+v, spread evenly %+v", name, x, y)
				}
			}
			if !closeTo(a.cost[read].roundTrips, b.cost[read].roundTrips) {
				t.Errorf("%s: %g round trips a read placed, %g spread", name, a.cost[read].roundTrips, b.cost[read].roundTrips)
			}
		}
	}
}

// One OSA RAID-5 (3+1) disk on 4 hosts: a component on every host, the
// owner's one local; reads spread over the 4 components' devices (one
// device and disk group a host, the rest idle), each checksummed where it
// is read, and the owner's disk group does no messaging.
func TestOneOSARaid5Object(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	p.Hosts = 4
	m := &p.Model
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16}
	c := mustBuild(t, p, oneDiskEach([]VM{{Host: "h"}}, Policy{RAID: "raid5", FTT: 1}, job))
	hz := p.CPU.Clock() * 1e9
	rd, _ := deviceRates(p.Storage.Capacity)
	tRead, _ := opTimes(p.Storage.Capacity, rd, rd)
	if st := stationsNamed(c, "ssd-capacity"); len(st) != 1 || st[0].Copies != 4 || !closeTo(st[0].D[read], 0.25*(tRead+4096/rd)) {
		t.Errorf("ssd-capacity %+v, want one station of 4 copies at a quarter of a 4K read each", st)
	}
	lsom := m.LSOMOpCycles.Value + 4096*(m.LSOMReadByteCycles.Value+m.ChecksumCyclesPerByte.Value)
	remote := lsom + m.MessageCyclesTCP.Value + 4096*m.TxByteCyclesTCP.Value
	st := stationsNamed(c, "vsan-diskgroup")
	if len(st) != 2 || st[0].Copies != 1 || st[1].Copies != 3 || !closeTo(st[0].D[read], 0.25*lsom/hz) || !closeTo(st[1].D[read], 0.25*remote/hz) {
		t.Errorf("vsan-diskgroup %+v, want the owner's group (1 copy, a quarter of a local read) and 3 remote ones", st)
	}
	if c.cost[read].roundTrips != 0.75 {
		t.Errorf("%g round trips a read, want 0.75", c.cost[read].roundTrips)
	}
}

// Jobs beside each other are placed together: two one-disk jobs of one VM
// use its host's first and second objects (hosts 0-1 and 2-3), so each
// job's devices are idle for the other.
func TestConcurrentJobsUseTheirOwnComponents(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16}
	disk := []DiskLoad{{VM: 0, Policy: Policy{RAID: "raid1", FTT: 1}, Written: 1}}
	in := Input{VMs: []VM{{Host: "h"}}, Jobs: []JobLoad{{Name: "a", Job: job, Disks: disk}, {Name: "b", Job: job, Disks: disk}}}
	_, cells, err := solveJobs(context.Background(), p, in, false)
	if err != nil {
		t.Fatal(err)
	}
	a, b := stationsNamed(cells[0], "ssd-capacity"), stationsNamed(cells[1], "ssd-capacity")
	if len(a) != 2 || a[0].Copies != 2 || a[1].Copies != 2 || a[0].D[read] == 0 || a[1].D[read] != 0 || b[0].D[read] != 0 || b[1].D[read] != a[0].D[read] {
		t.Errorf("ssd-capacity: job a %+v, job b %+v; want two stations of 2 devices, one for each job", a, b)
	}
}

// VMs on more hosts than the testbed has are refused, naming both counts.
func TestVMsOnMoreHostsThanTheTestbed(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 1}
	in := oneDiskEach([]VM{{Host: "1"}, {Host: "2"}, {Host: "3"}, {Host: "4"}, {Host: "5"}}, Policy{}, job)
	if _, err := Solve(context.Background(), p, in); err == nil || !strings.Contains(err.Error(), "the worker VMs run on 5 hosts, but testbed storagereview-r6625-esa has 4") {
		t.Errorf("error %v, want the 5 hosts refused", err)
	}
}

// A degraded interval on an uneven layout: every group of copies keeps its
// load (hosts out take copies only where a group has some to spare), and
// a snapshot's DOM work lands on the copies that do the I/O.
func TestDegradedUnevenLayoutKeepsItsLoad(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16}
	in := oneDiskEach([]VM{{Host: "h"}}, Policy{RAID: "raid1", FTT: 1}, job)
	whole := mustBuild(t, p, in)
	in.Degradation = &Degradation{Out: 1, Snapshots: 1}
	less := mustBuild(t, p, in)
	load := func(c *cell, name string) (sum float64) {
		for _, s := range stationsNamed(c, name) {
			sum += float64(s.Copies) * s.D[read]
		}
		return sum
	}
	for _, name := range []string{"guest", "ssd-capacity", "vsan-device", "nic-rx"} {
		if a, b := load(whole, name), load(less, name); !closeTo(b, a) {
			t.Errorf("%s: %g s a read with a host out, %g whole; want the same", name, b, a)
		}
	}
	snap := esaSnapshotShare * p.Model.DOMIOCycles.Value / (p.CPU.Clock() * 1e9)
	if a, b := load(whole, "vsan-dom"), load(less, "vsan-dom"); !closeTo(b-a, snap) {
		t.Errorf("vsan-dom: %g s more a read with a snapshot, want %g", b-a, snap)
	}
}

// A RAID-1 object striped over 3 devices, laid out by hand on
// StorageReview's 4 ESA hosts of 8 devices (its replicas on its owner's
// host 1 and on host 3, half the cluster on): each replica's 3 stripes on
// the next devices of its host, each performance-leg stripe one device
// after its capacity-leg sibling's; the hosts' weights are those of the
// same object not striped, only the devices' shares spread (a third of
// each replica's work on each of its devices).
func TestStripedObjectByHand(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	jobs := func(width int) []JobLoad {
		return []JobLoad{{Disks: []DiskLoad{{VM: 0, Policy: Policy{RAID: "raid1", FTT: 1, StripeWidth: width}}}}}
	}
	placed, err := placeObjects(p, jobs(3), []int{1})
	if err != nil {
		t.Fatal(err)
	}
	cp, pf := capLeg, perfLeg
	want := object{owner: 1, width: [2]int{6, 6}, comps: []component{
		{1, 0, cp}, {1, 1, cp}, {1, 2, cp}, {1, 1, pf}, {1, 2, pf}, {1, 3, pf},
		{3, 0, cp}, {3, 1, cp}, {3, 2, cp}, {3, 1, pf}, {3, 2, pf}, {3, 3, pf},
	}}
	got := placed[0][0]
	if got.owner != want.owner || got.width != want.width || !slicesEqual(got.comps, want.comps) {
		t.Fatalf("striped over 3: %+v, want %+v", got, want)
	}
	plain, err := placeObjects(p, jobs(1), []int{1})
	if err != nil {
		t.Fatal(err)
	}
	devices := p.Storage.CapacityDevices
	devShare := [][][2]float64{make([][2]float64, p.Hosts*devices)}
	striped, _ := hostWeights(p.Hosts, placed[0], []int{0}, 1, devShare, devices)
	unstriped, _ := hostWeights(p.Hosts, plain[0], []int{0}, 1, nil, 0)
	for h := range p.Hosts {
		if striped[0][h] != unstriped[0][h] {
			t.Errorf("host %d: weights %+v striped, %+v not", h, striped[0][h], unstriped[0][h])
		}
	}
	for x, s := range devShare[0] {
		h, d := x/devices, x%devices
		var w [2]float64 // a replica is half the object's work, a third of it a stripe's
		if h == 1 || h == 3 {
			if d <= 2 {
				w[cp] = 0.5 / 3
			}
			if d >= 1 && d <= 3 {
				w[pf] = 0.5 / 3
			}
		}
		if !closeTo(s[cp], w[cp]) || !closeTo(s[pf], w[pf]) {
			t.Errorf("host %d device %d: share %v, want %v", h, d, s, w)
		}
	}
}

// A job on disks of two policies: each kind's work at a host lands on the
// devices its own components are on, not spread by every kind's
// components together, so each device carries what each disk placed there
// gives it (half of it alone: two disks share the I/Os). One VM on esx-1
// with a RAID-1 disk (capacity leg on host 0's device 0, performance leg
// on device 1) and a RAID-5 disk (ESA 2+1 from host 2 on: host 0's device
// 1 and performance leg on device 2).
func TestEachKindsDeviceWorkOnItsOwnDevices(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 16}
	in := Input{VMs: []VM{{Host: "esx-1"}}, Jobs: []JobLoad{{Job: job, Disks: []DiskLoad{
		{VM: 0, Policy: Policy{RAID: "raid1", FTT: 1}, Written: 1},
		{VM: 0, Policy: Policy{RAID: "raid5", FTT: 1}, Written: 1},
	}}}}
	c := mustBuild(t, p, in)
	if c.kindOf[0] == c.kindOf[1] {
		t.Fatalf("kinds %v: want two", c.kindOf)
	}
	both, _ := placedLoad(p, c.objects, c.kindOf, c.costs)
	var alone [2][2]spread
	for disk := range alone {
		k := c.kindOf[disk]
		alone[disk], _ = placedLoad(p, c.objects[disk:disk+1], []int{0}, c.costs[k:k+1])
	}
	for dir, name := range []string{"read", "write"} {
		for d := range both[dir].capacity {
			want := (alone[0][dir].capacity[d] + alone[1][dir].capacity[d]) / 2
			if got := both[dir].capacity[d]; !closeTo(got, want) {
				t.Errorf("%s, device %d (host %d): %.4g s, want %.4g (each disk's there, halved)", name, d, d/p.Storage.CapacityDevices, got, want)
			}
		}
	}
}

// vSAN balances capacity over the cluster whoever owns the objects, so
// VMs crowded on a few hosts do not pile their components there: 16 VMs of
// 8 RAID-1 disks on WWT's 24 hosts put 10 or 11 components on every host
// (taking turns from each owner's host piled 8 to 16, the 16 on hosts
// near the owners), 40 VMs of RAID-5 disks 53 or 54, and 3 VMs of one
// disk each never two on a host. The run's hosts carry component writes
// in that proportion, the busiest within 10 % of the mean.
func TestCrowdedVMsSpreadTheirComponents(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	for _, tc := range []struct {
		vms, disks int
		pol        Policy
		fewest     int
	}{{16, 8, Policy{RAID: "raid1", FTT: 1}, 10}, {40, 8, Policy{RAID: "raid5", FTT: 1}, 53}, {3, 1, Policy{RAID: "raid1", FTT: 1}, 0}} {
		in := UniformInput(p, tc.vms, tc.disks, tc.pol, nil)
		hostOf, err := vmHosts(p, in.VMs)
		if err != nil {
			t.Fatal(err)
		}
		placed, err := placeObjects(p, in.Jobs, hostOf)
		if err != nil {
			t.Fatal(err)
		}
		held := make([]int, p.Hosts)
		for _, o := range placed[0] {
			for _, c := range o.comps {
				held[c.host]++
			}
		}
		if slices.Min(held) < tc.fewest || slices.Max(held) > tc.fewest+1 {
			t.Errorf("%d VMs x %d %s disks: components per host %v, want %d or %d", tc.vms, tc.disks, tc.pol.RAID, held, tc.fewest, tc.fewest+1)
		}
	}
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 8}
	out := solve(t, p, UniformInput(p, 16, 8, Policy{RAID: "raid1", FTT: 1}, job))
	var most, sum float64
	for _, h := range out.Hosts {
		most, sum = max(most, h.CompWriteIOPS), sum+h.CompWriteIOPS
	}
	if mean := sum / float64(len(out.Hosts)); most > 1.1*mean || !closeTo(sum, 2*out.Write.IOPS) {
		t.Errorf("16 VMs of RAID-1 disks: component writes %.0f/s at the busiest host, %.0f/s the mean, %.0f/s in all for %.0f guest writes/s: want the busiest within 10 %% of the mean, two a write", most, mean, sum, out.Write.IOPS)
	}
}
