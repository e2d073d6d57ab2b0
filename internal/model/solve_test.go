package model

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

func solve(t *testing.T, p *testbed.Profile, in Input) *Output {
	t.Helper()
	out, err := Solve(context.Background(), p, in)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func total(o *Output) float64 { return o.Read.IOPS + o.Write.IOPS }

func util(o *Output, name string) float64 {
	for _, s := range o.Stations {
		if s.Name == name {
			return s.Util
		}
	}
	return math.NaN()
}

// A faster uplink acts only through the NIC stations: a CPU-bound workload
// does not change, a NIC-bound one does.
func TestUplinkActsOnlyThroughNICs(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	cpuBound := *p
	cpuBound.CPU.CoresPerSocket = 1 // 2 cores per host: the CPU saturates first
	for _, job := range []*fio.Job{
		{RW: "randread", BlockSize: 4096, IODepth: 8},
		{RW: "randrw", BlockSize: 32768, RWMixRead: 70, IODepth: 8},
		{RW: "randwrite", BlockSize: 65536, IODepth: 8},
	} {
		in := uniformInput(&cpuBound, Policy{RAID: "raid6", FTT: 2}, job)
		in.State.Uplink = "10g"
		slow := solve(t, &cpuBound, in)
		in.State.Uplink = "25g"
		fast := solve(t, &cpuBound, in)
		if slow.Bottleneck != "cpu" {
			t.Fatalf("%s %d: bottleneck %s, want cpu for this property", job.RW, job.BlockSize, slow.Bottleneck)
		}
		if r := total(fast) / total(slow); !(math.Abs(r-1) <= 0.005) {
			t.Errorf("%s %d CPU-bound: 25g/10g throughput = %.4f, want 1 (the uplink must not matter)", job.RW, job.BlockSize, r)
		}
	}
	in := uniformInput(p, Policy{RAID: "raid6", FTT: 2}, &fio.Job{IOEngine: "libaio", Direct: true, RW: "read", BlockSize: 1 << 20, IODepth: 8})
	in.State.Uplink = "10g"
	slow := solve(t, p, in)
	in.State.Uplink = "25g"
	fast := solve(t, p, in)
	if !strings.HasPrefix(slow.Bottleneck, "nic") || total(fast)/total(slow) < 1.2 {
		t.Errorf("1M reads: 10g bottleneck %s, 25g/10g = %.2f; want NIC-bound and at least 1.2x faster on 25g", slow.Bottleneck, total(fast)/total(slow))
	}
}

// Reads of never-written blocks cost a metadata lookup: no device op, no
// payload on the wire; but the guest still gets its bytes (zeros), so the
// guest path and the copy into guest memory are paid, and unprepared reads
// stay within what the hosts can do (they used to reach hundreds of GB/s).
func TestUnwrittenReadsAreMetadataOnly(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	cm := costModelFor(t, p, false, false, false)
	empty, full := cm.readCost(1<<20, 0, 0), cm.readCost(1<<20, 1, 0)
	if empty.capacityTime != 0 || empty.deviceBytes != 0 {
		t.Errorf("unwritten read touches devices: %+v", empty)
	}
	h := float64(p.Hosts)
	if want := (h - 1) / h * 2 * p.Model.MessageHeaderBytes.Value; !(math.Abs(empty.wireBytes-want) <= 1e-9) {
		t.Errorf("unwritten read puts %g bytes on the wire, want the lookup's headers only (%g)", empty.wireBytes, want)
	}
	if copyCycles := float64(1<<20) * p.Model.GuestCopyByteCycles.Value; empty.domCycles < copyCycles || empty.guestCycles != full.guestCycles {
		t.Errorf("unwritten read: DOM %g cycles (want at least the copy into guest memory, %g), guest %g vs %g", empty.domCycles, copyCycles, empty.guestCycles, full.guestCycles)
	}
	in := uniformInput(p, Policy{RAID: "raid1"}, &fio.Job{IOEngine: "libaio", Direct: true, RW: "read", BlockSize: 1 << 20, IODepth: 8})
	prepared := solve(t, p, in)
	for i := range in.Jobs[0].Disks {
		in.Jobs[0].Disks[i].Written = 0
	}
	unprepared := solve(t, p, in)
	if unprepared.Read.MBps < 1.2*prepared.Read.MBps || util(unprepared, "ssd-capacity") != 0 {
		t.Errorf("unprepared 1M reads %.0f MB/s vs prepared %.0f (ssd util %.2f); want faster, no device load",
			unprepared.Read.MBps, prepared.Read.MBps, util(unprepared, "ssd-capacity"))
	}
	if w := CheckBounds(p, Summary{ReadIOPS: unprepared.Read.IOPS, ReadMBps: unprepared.Read.MBps}); len(w) > 0 {
		t.Errorf("unprepared reads at %.0f MB/s break the hosts' own bounds: %q", unprepared.Read.MBps, w)
	}
}

// No data locality: a share (H-1)/H of reads crosses the network.
func TestRemoteReadShare(t *testing.T) {
	for _, name := range []string{"storagereview-r6625-esa", "wwt-r640-osa"} {
		p := mustLoad(t, name)
		cm := costModelFor(t, p, false, false, false)
		h := float64(p.Hosts)
		want := (h - 1) / h * (65536*frameFactor(p.MTU, false) + 2*p.Model.MessageHeaderBytes.Value)
		if got := cm.readCost(65536, 1, 0).wireBytes; !(math.Abs(got-want) <= 1e-6) {
			t.Errorf("%s: read network bytes %g, want %g", name, got, want)
		}
	}
}

func TestPolicyLayouts(t *testing.T) {
	sr := mustLoad(t, "storagereview-r6625-esa")
	big := *sr
	big.Hosts = 6
	wwt := mustLoad(t, "wwt-r640-osa")
	cases := []struct {
		p    *testbed.Profile
		pol  Policy
		want layout
		err  string
	}{
		{sr, Policy{RAID: "raid1", FTT: 1}, layout{mirrors: 2, capFactor: 2}, ""},
		{sr, Policy{RAID: "raid5", FTT: 1}, layout{mirrors: 2, dataStripes: 2, parity: 1, capFactor: 1.5}, ""},
		{&big, Policy{RAID: "raid5", FTT: 1}, layout{mirrors: 2, dataStripes: 4, parity: 1, capFactor: 1.25}, ""},
		{&big, Policy{RAID: "raid6", FTT: 2}, layout{mirrors: 3, dataStripes: 4, parity: 2, capFactor: 1.5}, ""},
		{wwt, Policy{RAID: "raid5"}, layout{mirrors: 2, dataStripes: 3, parity: 1, capFactor: 4.0 / 3}, ""},
		{sr, Policy{RAID: "raid6", FTT: 2}, layout{}, "raid6 (4+2) needs at least 6 hosts; storagereview-r6625-esa has 4"},
		{sr, Policy{RAID: "raid1", FTT: 2}, layout{}, "raid1 ftt 2 needs at least 5 hosts"},
		{sr, Policy{RAID: "raid5", FTT: 2}, layout{}, "use raid6 for ftt 2"},
		{sr, Policy{RAID: "raid10"}, layout{}, `unknown RAID level "raid10": want raid1, raid5 or raid6`},
	}
	for _, c := range cases {
		got, err := policyLayout(c.p, c.pol)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%+v on %d hosts: error %v, want %q", c.pol, c.p.Hosts, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%+v on %d hosts: %+v, %v; want %+v", c.pol, c.p.Hosts, got, err, c.want)
		}
	}
}

// ESA: small writes land on the RAID-1 performance leg and are destaged in
// full stripes; large writes go straight to the capacity leg.
func TestESAWriteLegs(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	cm := costModelFor(t, p, false, false, false)
	r5, _ := policyLayout(p, Policy{RAID: "raid5"})
	small := cm.writeCost(65536, r5, 0, 0)
	if want := (2 + 1.5) * 65536.0; !(math.Abs(small.deviceBytes-want) <= 1e-6) {
		t.Errorf("64K raid5 write device bytes %g, want %g (2 mirrors + 1.5 capacity)", small.deviceBytes, want)
	}
	large := cm.writeCost(1<<20, r5, 0, 0)
	if want := 1.5 * (1 << 20); !(math.Abs(large.deviceBytes-want) <= 1e-6) {
		t.Errorf("1M raid5 write device bytes %g, want %g (capacity leg only)", large.deviceBytes, want)
	}
	// Large writes before vSAN 8 U1 take the performance leg too.
	old := *p
	old.VSANRelease = "8.0"
	cmOld := costModelFor(t, &old, false, false, false)
	if got := cmOld.writeCost(1<<20, r5, 0, 0).deviceBytes; got <= large.deviceBytes {
		t.Errorf("8.0 large write device bytes %g, want more than 8.0 U1's %g", got, large.deviceBytes)
	}
}

// ESA RAID-5 has no extra write latency over RAID-1; OSA RAID-6 pays a
// read-modify-write with a second network phase.
func TestWriteLatencyByArchitecture(t *testing.T) {
	low := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 1}
	sr := mustLoad(t, "storagereview-r6625-esa")
	sr.Workers.PerHost = 1
	r1 := solve(t, sr, uniformInput(sr, Policy{RAID: "raid1"}, low))
	r5 := solve(t, sr, uniformInput(sr, Policy{RAID: "raid5"}, low))
	if d := r5.Write.LatMeanUs/r1.Write.LatMeanUs - 1; !(math.Abs(d) <= 0.05) {
		t.Errorf("ESA write latency raid5 %.0f us vs raid1 %.0f us; want within 5 %%", r5.Write.LatMeanUs, r1.Write.LatMeanUs)
	}
	wwt := mustLoad(t, "wwt-r640-osa")
	wwt.Workers.PerHost = 1
	o1 := solve(t, wwt, uniformInput(wwt, Policy{RAID: "raid1", FTT: 2}, low))
	o6 := solve(t, wwt, uniformInput(wwt, Policy{RAID: "raid6", FTT: 2}, low))
	if o6.Write.LatMeanUs < 1.3*o1.Write.LatMeanUs {
		t.Errorf("OSA write latency raid6 %.0f us vs raid1 %.0f us; want read-modify-write to cost at least 30 %% more", o6.Write.LatMeanUs, o1.Write.LatMeanUs)
	}
}

// Compression: ESA compresses at the source, so replicas travel compressed;
// OSA compresses at destage, so the wire carries full blocks.
func TestCompressionWhereItHappens(t *testing.T) {
	for _, c := range []struct {
		name        string
		pol         Policy
		wireShrinks bool
	}{
		{"storagereview-r6625-esa", Policy{RAID: "raid5"}, true},
		{"wwt-r640-osa", Policy{RAID: "raid1"}, false},
	} {
		p := mustLoad(t, c.name)
		lay, _ := policyLayout(p, c.pol)
		off := costModelFor(t, p, false, false, false)
		on := costModelFor(t, p, false, true, false)
		if x, y := off.writeCost(65536, lay, 0, 0), on.writeCost(65536, lay, 0, 0); y.cpuCycles() <= x.cpuCycles() {
			t.Errorf("%s: compressing incompressible data costs no CPU (%g vs %g cycles)", c.name, y.cpuCycles(), x.cpuCycles())
		}
		a, b := off.writeCost(65536, lay, 60, 0), on.writeCost(65536, lay, 60, 0)
		if b.deviceBytes >= a.deviceBytes {
			t.Errorf("%s: compression saves no device bytes", c.name)
		}
		if shrank := b.wireBytes < 0.6*a.wireBytes; shrank != c.wireShrinks {
			t.Errorf("%s: wire bytes %g with compression vs %g without; want shrunk=%v", c.name, b.wireBytes, a.wireBytes, c.wireShrinks)
		}
	}
}

// RDMA cuts CPU per message and byte and the per-hop latency; without
// RDMA-capable hosts the cluster falls back to TCP.
func TestRDMA(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	p.Workers.PerHost = 1
	in := uniformInput(p, Policy{RAID: "raid1", FTT: 1}, &fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 32768, IODepth: 1})
	tcp := solve(t, p, in)
	in.State.RDMA = true
	rdma := solve(t, p, in)
	if !rdma.RDMA || rdma.CPUPercent >= tcp.CPUPercent || rdma.Read.LatMeanUs >= tcp.Read.LatMeanUs {
		t.Errorf("RDMA: cpu %.1f%% vs %.1f%%, read latency %.0f vs %.0f us; want both lower", rdma.CPUPercent, tcp.CPUPercent, rdma.Read.LatMeanUs, tcp.Read.LatMeanUs)
	}
	sr := mustLoad(t, "storagereview-r6625-esa")
	in = uniformInput(sr, Policy{RAID: "raid1"}, &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 4})
	base := solve(t, sr, in)
	in.State.RDMA = true
	asked := solve(t, sr, in)
	if asked.RDMA || total(asked) != total(base) || !strings.Contains(strings.Join(asked.Notes, "\n"), "falls back to TCP") {
		t.Errorf("RDMA on a non-capable cluster: rdma=%v, %g vs %g IOPS, notes %q", asked.RDMA, total(asked), total(base), asked.Notes)
	}
}

func TestOutputConsistency(t *testing.T) {
	for _, name := range testbed.Names() {
		p := mustLoad(t, name)
		pol := Policy{RAID: "raid5"}
		in := uniformInput(p, pol, &fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BSSplit: []fio.BSSplit{{Size: 4096, Percent: 50}, {Size: 65536, Percent: 50}}, IODepth: 16})
		for i := range in.Jobs[0].Disks { // disks in several states
			in.Jobs[0].Disks[i].Written = float64(i%3) / 2
			in.Jobs[0].Disks[i].CompressPercentage = 25 * (i % 4)
		}
		a := solve(t, p, in)
		for range 5 {
			if b := solve(t, p, in); !reflect.DeepEqual(a, b) {
				t.Fatalf("%s: Solve is not deterministic", name)
			}
		}
		// Little's law on the mix.
		x := total(a)
		r := (a.Read.IOPS*a.Read.LatMeanUs + a.Write.IOPS*a.Write.LatMeanUs) / x * 1e-6
		if !(math.Abs(x*r/float64(a.Outstanding)-1) <= 1e-9) {
			t.Errorf("%s: X R = %g, want N = %d", name, x*r, a.Outstanding)
		}
		for _, d := range []Direction{a.Read, a.Write} {
			if !(d.P50Us <= d.P95Us && d.P95Us <= d.P99Us && d.P99Us <= d.P999Us) || d.P50Us <= 0 {
				t.Errorf("%s: percentiles out of order: %+v", name, d)
			}
		}
		if a.Read.IOPS/x < 0.699 || a.Read.IOPS/x > 0.701 {
			t.Errorf("%s: read share %g, want 0.7", name, a.Read.IOPS/x)
		}
		if a.Bottleneck == "" || a.BottleneckUtil <= 0 || a.BottleneckUtil > 1 || a.Version != Version || a.Profile != name {
			t.Errorf("%s: bottleneck %q %g, version %q, profile %q", name, a.Bottleneck, a.BottleneckUtil, a.Version, a.Profile)
		}
		if w := CheckBounds(p, Summary{a.Read.IOPS, a.Read.MBps, a.Write.IOPS, a.Write.MBps}); len(w) > 0 {
			t.Errorf("%s: a simulated result breaks physical bounds: %q", name, w)
		}
	}
}

func TestRateLimit(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	in := uniformInput(p, Policy{RAID: "raid1"}, &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16, RateIOPS: 500})
	out := solve(t, p, in)
	if got, want := total(out), 500.0*128; !(math.Abs(got/want-1) <= 1e-9) {
		t.Errorf("rate-limited IOPS %g, want %g", got, want)
	}
	if out.Read.LatMeanUs > 500 {
		t.Errorf("rate-limited latency %.0f us; a lightly loaded cluster should answer fast", out.Read.LatMeanUs)
	}
}

func TestSolveErrors(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	cases := []struct {
		job   fio.Job
		state ClusterState
		want  string
	}{
		{fio.Job{RW: "trim"}, ClusterState{}, `rw "trim": the model runs read, write, randread, randwrite, rw and randrw`},
		{fio.Job{RW: "randrw", RWMixRead: 120}, ClusterState{}, "rwmixread 120: want a percentage from 0 to 100"},
		{fio.Job{RW: "read", BSSplit: []fio.BSSplit{{Size: 4096, Percent: 0}}}, ClusterState{}, "bssplit percentages add up to 0: want 100"},
		{fio.Job{RW: "read", BlockSize: 100}, ClusterState{}, "block size 100 bytes: want at least 512"},
		{fio.Job{RW: "read"}, ClusterState{Uplink: "40g"}, `uplink "40g" is not a choice of wwt-r640-osa: want one of 10g, 25g, or active NICs such as "vmnic0"`},
	}
	for _, c := range cases {
		in := uniformInput(p, Policy{RAID: "raid1"}, &c.job)
		in.State = c.state
		_, err := Solve(context.Background(), p, in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.job, err, c.want)
		}
	}
}

// The control plane may name the active NICs instead of a profile choice;
// a LAG hashes vSAN's flows (one per peer host) over its links.
func TestUplinkByNICs(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	byName, err := resolveLink(p, ClusterState{Uplink: "25g"}, false)
	if err != nil {
		t.Fatal(err)
	}
	byNICs, err := resolveLink(p, ClusterState{Uplink: "vmnic2,vmnic3"}, false)
	eff := p.Model.NICEfficiency.Value
	want := eff * 25e9 / 8 * hashedLinks(23, 2)
	if err != nil || byNICs.bps != byName.bps || !(math.Abs(byName.bps/want-1) <= 1e-12) || !byName.spread {
		t.Errorf("25g %g, vmnic2,vmnic3 %g (%v); want both LACP 2 x 25 GbE x nic_efficiency over 23 hashed flows, %g", byName.bps, byNICs.bps, err, want)
	}
	if one, _ := resolveLink(p, ClusterState{Uplink: "vmnic0"}, false); !(math.Abs(one.bps/(eff*10e9/8)-1) <= 1e-12) {
		t.Errorf("vmnic0 alone: %g", one.bps)
	}
}

func TestCalibratedRangeFlags(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	out := solve(t, p, uniformInput(p, Policy{RAID: "raid1"}, &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 512, IODepth: 512}))
	notes := strings.Join(out.Notes, "\n")
	if !strings.Contains(notes, "block size 512 bytes is outside the calibrated range") || !strings.Contains(notes, "65536 outstanding I/Os is outside the calibrated range") {
		t.Errorf("notes %q", notes)
	}
}

func TestBoundsFlagImpossibleResults(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	w := CheckBounds(p, Summary{ReadIOPS: 1e5, ReadMBps: 1e6})
	if len(w) == 0 || !strings.Contains(w[0], "likely unprepared disks") {
		t.Errorf("1 TB/s of reads: warnings %q", w)
	}
	if w := CheckBounds(p, Summary{WriteMBps: 1e6, WriteIOPS: 1e9}); len(w) < 3 {
		t.Errorf("absurd writes: warnings %q, want device, network and CPU", w)
	}
}

// TestRateBytesLimit: fio's rate (bytes per second per job) caps a run as
// rate_iops does; the tighter of the two holds.
func TestRateBytesLimit(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 16, RateBytes: 1 << 20}
	in := uniformInput(p, Policy{RAID: "raid1"}, job)
	if got, want := total(solve(t, p, in)), float64(1<<20)/4096*128; !(math.Abs(got/want-1) <= 1e-9) {
		t.Errorf("rate=1m IOPS %g, want %g", got, want)
	}
	job.RateIOPS = 100
	if got, want := total(solve(t, p, in)), 100.0*128; !(math.Abs(got/want-1) <= 1e-9) {
		t.Errorf("rate=1m with rate_iops=100: IOPS %g, want %g", got, want)
	}
}

// TestRawMixOptions: rwmixread=0 and rwmixwrite stay raw options of a job;
// the model reads the mix from them as fio does, not fio's default 50/50.
func TestRawMixOptions(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	for _, c := range []struct {
		opts []fio.Option
		want float64
	}{
		{[]fio.Option{{Key: "rwmixread", Value: "0"}}, 0},
		{[]fio.Option{{Key: "rwmixwrite", Value: "100"}}, 0},
		{[]fio.Option{{Key: "rwmixwrite", Value: "0"}}, 1},
		{[]fio.Option{{Key: "rwmixread", Value: "0"}, {Key: "rwmixwrite", Value: "25"}}, 0.75},
		{nil, 0.5},
	} {
		in := uniformInput(p, Policy{RAID: "raid1"}, &fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", BlockSize: 4096, IODepth: 4, Options: c.opts})
		out := solve(t, p, in)
		if got := out.Read.IOPS / total(out); !(math.Abs(got-c.want) <= 1e-9) {
			t.Errorf("%v: read share %g, want %g", c.opts, got, c.want)
		}
	}
}

// TestPerDirectionBlockSizes: bs=4k,64k gives reads and writes their own
// block size, as fio does; a bsrange draws every multiple of its low end
// alike (a mean of 34,816 bytes for 4k-64k), named in the notes.
func TestPerDirectionBlockSizes(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", IODepth: 4, Options: []fio.Option{{Key: "bs", Value: "4k,64k"}}}
	out := solve(t, p, uniformInput(p, Policy{RAID: "raid1"}, job))
	if r, w := out.Read.MBps*1e6/out.Read.IOPS, out.Write.MBps*1e6/out.Write.IOPS; !(math.Abs(r-4096) <= 1e-6) || !(math.Abs(w-65536) <= 1e-6) {
		t.Errorf("bs=4k,64k: reads of %g bytes, writes of %g; want 4096 and 65536", r, w)
	}
	// norandommap: fio's random map would cut I/Os short (TestRandomMapCutsIOsAsFioDoes).
	job = &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", IODepth: 4, Options: []fio.Option{{Key: "bsrange", Value: "4k-64k"}, {Key: "norandommap"}}}
	out = solve(t, p, uniformInput(p, Policy{RAID: "raid1"}, job))
	if r := out.Read.MBps * 1e6 / out.Read.IOPS; math.Abs(r-34816) > 1e-6 || !strings.Contains(strings.Join(out.Notes, "\n"), "bsrange=4k-64k: fio draws every multiple of 4096 bytes from 4096 to 65536 alike, a mean of 34816 bytes") {
		t.Errorf("bsrange=4k-64k: reads of %g bytes, notes %q", r, out.Notes)
	}
	// A range of one size (fio's tiobench example: bsrange=4k-4k) is that size, with no note.
	one := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", IODepth: 4, Options: []fio.Option{{Key: "bsrange", Value: "4k-4k"}, {Key: "norandommap"}}}
	out = solve(t, p, uniformInput(p, Policy{RAID: "raid1"}, one))
	if r := out.Read.MBps * 1e6 / out.Read.IOPS; math.Abs(r-4096) > 1e-6 || strings.Contains(strings.Join(out.Notes, "\n"), "bsrange") {
		t.Errorf("bsrange=4k-4k: reads of %g bytes, notes %q; want 4096 and no note", r, out.Notes)
	}
	// Sizes that are not multiples of the sector fail direct I/O in fio.
	job.Options = append(job.Options, fio.Option{Key: "bs_unaligned", Value: "1"})
	if _, err := Solve(context.Background(), p, uniformInput(p, Policy{RAID: "raid1"}, job)); err == nil || !strings.Contains(err.Error(), "bs_unaligned with direct=1") {
		t.Errorf("bs_unaligned with direct I/O: error %v, want it refused", err)
	}
	job.Direct = false
	out = solve(t, p, uniformInput(p, Policy{RAID: "raid1"}, job))
	if r := out.Read.MBps * 1e6 / out.Read.IOPS; math.Abs(r-(65536*65536-4096*4096)/(2*65536.0)-4096) > 1 {
		t.Errorf("bs_unaligned=1 bsrange=4k-64k: reads of %g bytes, want any size alike and 64 KiB a sixteenth of the time", r)
	}
}

// TestRateLimitLatency: a rate far below what one I/O at a time reaches
// leaves the latency of an unloaded I/O; the idle time between I/Os is not
// latency (it was: rate_iops=100 at iodepth 1 gave 10 ms).
func TestRateLimitLatency(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	one := func(rate int) *Output {
		job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 1, RateIOPS: rate}
		return solve(t, p, Input{Jobs: []JobLoad{{Job: job, Disks: []DiskLoad{{Policy: Policy{RAID: "raid1"}, Written: 1}}}}})
	}
	free, limited := one(0), one(100)
	if got := total(limited); !(math.Abs(got-100) <= 1e-9) {
		t.Errorf("rate_iops=100: IOPS %g, want 100", got)
	}
	if r := limited.Read.LatMeanUs / free.Read.LatMeanUs; !(math.Abs(r-1) <= 0.01) {
		t.Errorf("rate_iops=100 latency %.0f us, want the unloaded %.0f us", limited.Read.LatMeanUs, free.Read.LatMeanUs)
	}
	if limited.BottleneckUtil >= free.BottleneckUtil {
		t.Errorf("rate-limited bottleneck at %.3f, not below the free run's %.3f", limited.BottleneckUtil, free.BottleneckUtil)
	}
}

// A policy's compression rule (vSAN ESA's per-policy space efficiency)
// overrides the cluster setting, both ways.
func TestPolicyCompressionOverridesTheCluster(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 16, NumJobs: 1}
	run := func(cluster bool, rule Override) *Output {
		disks := make([]DiskLoad, 32)
		for i := range disks {
			disks[i] = DiskLoad{Policy: Policy{RAID: "raid1", FTT: 1, Compression: rule}, Written: 1}
		}
		return solve(t, p, Input{State: ClusterState{Compression: cluster, Uplink: "100g"}, Jobs: []JobLoad{{Job: job, Disks: disks}}})
	}
	off, on := run(false, Inherit), run(true, Inherit)
	if on.CPUPercent/total(on) <= off.CPUPercent/total(off) {
		t.Fatalf("cluster compression costs no CPU per I/O: %.2f %% for %.0f IOPS vs %.2f %% for %.0f", on.CPUPercent, total(on), off.CPUPercent, total(off))
	}
	if got := run(false, On); got.CPUPercent != on.CPUPercent || total(got) != total(on) {
		t.Errorf("a policy with compression on a cluster without: %.2f %% CPU, %.0f IOPS; want the cluster-on figures %.2f %%, %.0f", got.CPUPercent, total(got), on.CPUPercent, total(on))
	}
	if got := run(true, Off); got.CPUPercent != off.CPUPercent || total(got) != total(off) {
		t.Errorf("a policy with compression off on a cluster with it: %.2f %% CPU, %.0f IOPS; want the cluster-off figures %.2f %%, %.0f", got.CPUPercent, total(got), off.CPUPercent, total(off))
	}
}

// Latency percentiles: each station's queueing part is exponential with
// mean copies x demand / servers x (1 + the queue an arrival sees), their
// sum fitted by a Gamma of the same mean and variance, shifted by the
// fixed delays (the think time and Seidmann's delay part (servers - 1) /
// servers of each station's demand, or of its busy part), all scaled.
// Worked by hand for reads (writes: 2 ms at the first station):
//
//	station 1: 2 copies, 1 server, 1 ms, 1 seen: queue 4 ms, delay 0
//	station 2: 1 copy, 4 servers, 4 ms, 0.5 seen: queue 1.5 ms, delay 3 ms
//	station 3: 1 copy, 2 servers, 1 ms + 0.5 x 2 ms extra, 1 seen:
//	           queue 2 ms; delay (0.5 ms busy + 1 ms) / 2 = 0.75 ms
//
// fixed 0.1 + 3 + 0.75 = 3.85 ms, mean 7.5 ms, variance 16 + 2.25 + 4 =
// 22.25 ms^2; at scale 2: 7.7 ms, 15 ms, 89 ms^2.
func TestLatencyQuantileByHand(t *testing.T) {
	st := []station{
		{Name: "one", Copies: 2, Servers: 1, D: [2]float64{1e-3, 2e-3}},
		{Name: "two", Copies: 1, Servers: 4, D: [2]float64{4e-3, 4e-3}},
		{Name: "three", Copies: 1, Servers: 2, D: [2]float64{1e-3, 1e-3}, Extra: [2]float64{2e-3, 2e-3}, Busy: &[2]float64{0.5e-3, 0.5e-3}},
	}
	w, seen := []float64{0, 0, 0.5}, []float64{1, 0.5, 1}
	for dir, c := range []struct{ fixed, mean, variance float64 }{
		{7.7e-3, 15e-3, 89e-6},
		{7.7e-3, 23e-3, 281e-6}, // station 1 queues 8 ms: 11.5 ms, 70.25 ms^2 before scaling
	} {
		q, err := latencyQuantile(st, w, seen, dir, 1e-4, 2)
		if err != nil {
			t.Fatal(err)
		}
		g := distuv.Gamma{Alpha: c.mean * c.mean / c.variance, Beta: c.mean / c.variance}
		for _, p := range []float64{0.5, 0.99, 0.999} {
			if got, want := q(p), c.fixed+g.Quantile(p); !(math.Abs(got/want-1) <= 1e-9) {
				t.Errorf("%s p%g: %g s, want %g", dirName[dir], 100*p, got, want)
			}
		}
	}
	// No queueing and no delay: every I/O takes exactly nothing; no queueing
	// but a fixed delay: every I/O takes the delay.
	idle := []station{{Name: "idle", Copies: 1, Servers: 1}}
	for _, z := range []float64{0, 2e-4} {
		q, err := latencyQuantile(idle, []float64{0}, []float64{0}, read, z, 1)
		if err != nil {
			t.Fatalf("an idle station with %g s fixed: %v", z, err)
		}
		if got := q(0.99); got != z {
			t.Errorf("an idle station with %g s fixed: p99 %g s, want %g", z, got, z)
		}
	}
	if _, err := latencyQuantile(idle, []float64{0}, []float64{0}, write, -1e-3, 1); err == nil || !strings.Contains(err.Error(), "latency of writes: fixed part -0.001 s") {
		t.Errorf("a negative fixed part: %v", err)
	}
	if _, err := latencyQuantile(st, w, []float64{math.NaN(), 0, 0}, read, 0, 1); err == nil || !strings.Contains(err.Error(), "want finite numbers of at least 0") {
		t.Errorf("a NaN queue: %v", err)
	}
}
