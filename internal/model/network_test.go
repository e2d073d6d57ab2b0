package model

import (
	"math"
	"strings"
	"testing"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// hashedLinks against brute force: every placement of flows on links,
// E[flows / flows on the busiest link].
func TestHashedLinksAgainstEnumeration(t *testing.T) {
	for _, c := range []struct{ flows, links int }{{1, 2}, {2, 2}, {3, 2}, {5, 2}, {4, 3}, {7, 3}, {6, 4}} {
		total, n := 0.0, 0
		place := make([]int, c.flows)
		var walk func(i int)
		walk = func(i int) {
			if i == c.flows {
				count := make([]int, c.links)
				most := 0
				for _, l := range place {
					count[l]++
					most = max(most, count[l])
				}
				total += float64(c.flows) / float64(most)
				n++
				return
			}
			for l := range c.links {
				place[i] = l
				walk(i + 1)
			}
		}
		walk(0)
		if got, want := hashedLinks(c.flows, c.links), total/float64(n); math.Abs(got-want) > 1e-9 {
			t.Errorf("%d flows on %d links: %g links' worth, enumeration %g", c.flows, c.links, got, want)
		}
	}
	if got := hashedLinks(3, 2); math.Abs(got-1.375) > 1e-12 {
		t.Errorf("3 flows on 2 links: %g, want 1.375", got)
	}
}

// Teaming as configured: active/standby uses one link, a LAG spreads vSAN's
// flows over its links, and RDMA uses one link of a LAG (RoCE v2 supports
// failover teaming only), saying so.
func TestTeaming(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	one := p.Model.NICEfficiency.Value * 25e9 / 8
	lag, _ := resolveLink(p, ClusterState{Uplink: "25g"}, false)
	rdma, _ := resolveLink(p, ClusterState{Uplink: "25g"}, true)
	if math.Abs(lag.bps/(one*hashedLinks(23, 2))-1) > 1e-12 || lag.bps < 1.6*one {
		t.Errorf("LACP 2 x 25 GbE on 24 hosts: %g B/s, want about 1.7 links of %g", lag.bps, one)
	}
	if math.Abs(rdma.bps/one-1) > 1e-12 || len(rdma.nics) != 1 || !strings.Contains(strings.Join(rdma.notes, " "), "failover teaming only") {
		t.Errorf("RDMA on the LAG: %g B/s on %v, notes %q; want one link and a note", rdma.bps, rdma.nics, rdma.notes)
	}
	// The control plane's reading decides: the same NICs active without a
	// LAG (teaming by port) carry vSAN's one VMkernel port on one link.
	if l, _ := resolveLink(p, ClusterState{Uplink: "25g", ActiveNICs: []string{"vmnic2", "vmnic3"}}, false); l.bps != one || !strings.Contains(strings.Join(l.notes, " "), "without a LAG") {
		t.Errorf("vmnic2+vmnic3 active, no LAG: %g B/s, notes %q; want one link", l.bps, l.notes)
	}
	if l, _ := resolveLink(p, ClusterState{Uplink: "25g", ActiveNICs: []string{"vmnic2", "vmnic3"}, LAG: "lag-25g"}, false); l.bps != lag.bps {
		t.Errorf("vmnic2+vmnic3 in lag-25g: %g B/s, want the LAG's %g", l.bps, lag.bps)
	}
	if _, err := resolveLink(p, ClusterState{ActiveNICs: []string{"vmnic9"}}, false); err == nil || !strings.Contains(err.Error(), "vmnic9 is not a NIC of wwt-r640-osa") {
		t.Errorf("unknown active NIC: %v", err)
	}
	vx := mustLoad(t, "vxrail-ve660-esa")
	if l, _ := resolveLink(vx, ClusterState{Uplink: "25g"}, false); math.Abs(l.bps/one-1) > 1e-12 {
		t.Errorf("vxrail active/standby: %g B/s, want one link", l.bps)
	}
	// A card's PCIe link caps its ports: Gen3 x4 (3.9 GB/s) under two 25 GbE ports.
	slow := *p
	slow.NICs = append([]testbed.NIC(nil), p.NICs...)
	for i := range slow.NICs {
		slow.NICs[i].PCIeLanes = 4
	}
	if l, _ := resolveLink(&slow, ClusterState{Uplink: "25g"}, false); math.Abs(l.bps/(testbed.PCIeBytesPerSec(3, 4)/2*hashedLinks(23, 2))-1) > 1e-12 {
		t.Errorf("two 25 GbE ports on a Gen3 x4 card: %g B/s", l.bps)
	}
}

// Frames at the MTU: 1500-byte frames carry 1448 bytes in 1538 on the wire.
func TestFrameFactor(t *testing.T) {
	if f := frameFactor(1500, false); math.Abs(f-1538.0/1448) > 1e-12 {
		t.Errorf("MTU 1500: %g", f)
	}
	if f := frameFactor(0, false); f != frameFactor(1500, false) {
		t.Errorf("MTU 0 reads as 1500: %g", f)
	}
	if f := frameFactor(9000, false); f > 1.011 || f < 1.009 {
		t.Errorf("MTU 9000: %g", f)
	}
	if f := frameFactor(9000, true); math.Abs(f-(4096+82)/4096.0) > 1e-12 {
		t.Errorf("RoCE at MTU 9000 (4096-byte path MTU): %g", f)
	}
}

// Wire bytes per policy: each component on another host crosses the wire
// once, with frame overhead and message headers; ESA's adaptive path sends
// only the capacity leg of a large write, small writes send the
// performance leg's mirrors and the destage; OSA's RAID-6 write reads and
// writes 3 components.
func TestWireBytesPerPolicy(t *testing.T) {
	sr := mustLoad(t, "storagereview-r6625-esa")
	cm := costModelFor(t, sr, false, false, false)
	h := float64(sr.Hosts)
	remote := (h - 1) / h
	frame, hdr := frameFactor(sr.MTU, false), sr.Model.MessageHeaderBytes.Value
	wire := func(comps, payload float64) float64 { return comps * remote * (payload*frame + 2*hdr) }
	r1, _ := policyLayout(sr, Policy{RAID: "raid1"})
	r5, _ := policyLayout(sr, Policy{RAID: "raid5"})
	const mb = 1 << 20
	for _, c := range []struct {
		name string
		got  float64
		want float64
	}{
		{"1M raid1 (two mirrors)", cm.writeCost(mb, r1, 0, 0).wireBytes, wire(2, mb)},
		{"1M raid5 2+1 (full stripe)", cm.writeCost(mb, r5, 0, 0).wireBytes, wire(3, mb/2)},
		{"64K raid5 (performance leg + destage)", cm.writeCost(65536, r5, 0, 0).wireBytes, wire(2, 65536) + wire(1.5*65536/float64(512<<10), 512<<10)},
	} {
		if math.Abs(c.got/c.want-1) > 1e-9 {
			t.Errorf("%s: %g wire bytes, want %g", c.name, c.got, c.want)
		}
	}
	wwt := mustLoad(t, "wwt-r640-osa")
	cw := costModelFor(t, wwt, false, false, false)
	r6, _ := policyLayout(wwt, Policy{RAID: "raid6", FTT: 2})
	hw := float64(wwt.Hosts)
	want := 6 * (hw - 1) / hw * (4096*frameFactor(0, false) + 2*wwt.Model.MessageHeaderBytes.Value)
	if got := cw.writeCost(4096, r6, 0, 0).wireBytes; math.Abs(got/want-1) > 1e-9 {
		t.Errorf("OSA 4K raid6 write: %g wire bytes, want 3 reads + 3 writes = %g", got, want)
	}
}

// TCP costs CPU on both ends, per message and per byte; RDMA removes most
// of it, so it helps where CPU (vSAN's worlds) binds: small blocks.
func TestNetworkCPUBothEndsAndRDMA(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	lay, _ := policyLayout(p, Policy{RAID: "raid1", FTT: 1})
	tcp := costModelFor(t, p, false, false, false)
	rdma := costModelFor(t, p, true, false, false)
	w, wr := tcp.writeCost(65536, lay, 0, 0), rdma.writeCost(65536, lay, 0, 0)
	// The DOM sends (tx), the component hosts receive (rx, in the NIC's worlds).
	if w.otherCycles <= 0 || w.domCycles-wr.domCycles < 2*(p.Model.MessageCyclesTCP.Value-p.Model.MessageCyclesRDMA.Value)*0.9 {
		t.Errorf("64K write: rx cycles %g, DOM TCP %g vs RDMA %g", w.otherCycles, w.domCycles, wr.domCycles)
	}
	if wr.cpuCycles() >= 0.8*w.cpuCycles() {
		t.Errorf("RDMA cycles per write %g vs TCP %g; want most of the network's cost gone", wr.cpuCycles(), w.cpuCycles())
	}
	in := wwtMix(p)
	base := solve(t, p, in)
	in.State.RDMA = true
	fast := solve(t, p, in)
	if total(fast) < 1.1*total(base) {
		t.Errorf("4K 70/30 on RDMA: %.0f IOPS vs TCP %.0f (bottleneck %s); want a gain where the worlds bind", total(fast), total(base), base.Bottleneck)
	}
}

// Devices run at their datasheet rates, or their PCIe link's if slower.
func TestPCIeCapsDevices(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	if pl := newPlatform(p); pl.capRead != 6800e6 {
		t.Errorf("SN655 on Gen4 x4: %g B/s, want the datasheet's 6.8 GB/s", pl.capRead)
	}
	p.Storage.Capacity.PCIeGen, p.Storage.Capacity.PCIeLanes = 3, 2
	if pl := newPlatform(p); pl.capRead != testbed.PCIeBytesPerSec(3, 2) {
		t.Errorf("SN655 on Gen3 x2: %g B/s, want the link's", pl.capRead)
	}
}

// ESA compresses at ingest, before replication: where the wire binds, 2:1
// data halves the replica bytes and compression gains; where vSAN's worlds
// bind, its cycles cost throughput.
func TestESACompressionGainsWhereTheWireBinds(t *testing.T) {
	p := mustLoad(t, "vxrail-ve660-esa")
	p.NICs[0].SpeedGbps = 10 // one 10 GbE link: the wire binds
	run := func(rule Override) *Output {
		in := UniformInput(p, 8, 8, Policy{RAID: "raid5", FTT: 1, Compression: rule}, &fio.Job{IOEngine: "libaio", Direct: true, RW: "write", BlockSize: 512 << 10, IODepth: 2, BufferCompressPercentage: 50})
		for i := range in.Jobs[0].Disks {
			in.Jobs[0].Disks[i].CompressPercentage = 50
		}
		return solve(t, p, in)
	}
	off, on := run(Off), run(On)
	if !strings.HasPrefix(off.Bottleneck, "nic") || on.Write.MBps < 1.3*off.Write.MBps {
		t.Errorf("512K writes of 2:1 data on 10 GbE: %.0f MB/s compressed vs %.0f (%s); want wire-bound and a clear gain", on.Write.MBps, off.Write.MBps, off.Bottleneck)
	}
}

// With data-in-transit encryption each end of every message between hosts
// runs AES over it (payload and vSAN's headers, the request and the
// reply): the sender beside its transmit cycles, the receiver in its NIC's
// worlds. It costs throughput where vSAN's worlds bind and CPU everywhere.
func TestTransitEncryptionCostsEachEnd(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	m := &p.Model
	lay, _ := policyLayout(p, Policy{RAID: "raid1", FTT: 1})
	const b = 65536.0
	plain := costModelFor(t, p, false, false, false)
	cipher := plain
	cipher.cipherCycles = m.TransitCipherCyclesPerByte.Value
	for _, c := range []struct {
		name           string
		clear, crypted opCost
	}{
		{"write", plain.writeCost(b, lay, 0, 0), cipher.writeCost(b, lay, 0, 0)},
		{"read", plain.readCost(b, 1, 0), cipher.readCost(b, 1, 0)},
	} {
		// The receiver's rx cycles count the remote ops' payload bytes.
		remoteOps := c.clear.otherCycles / (b * m.RxByteCyclesTCP.Value)
		want := remoteOps * (b + 2*m.MessageHeaderBytes.Value) * m.TransitCipherCyclesPerByte.Value
		if !(remoteOps > 0) {
			t.Fatalf("%s: no remote component ops to encrypt (rx cycles %g)", c.name, c.clear.otherCycles)
		}
		if got := c.crypted.otherCycles - c.clear.otherCycles; math.Abs(got-want) > 1e-6*want {
			t.Errorf("%s: receivers decrypt %g cycles, want %g (%.2f remote ops of %g bytes and 2 headers)", c.name, got, want, remoteOps, b)
		}
		sent := c.crypted.domCycles + c.crypted.storeCycles - c.clear.domCycles - c.clear.storeCycles
		if math.Abs(sent-want) > 1e-6*want {
			t.Errorf("%s: senders encrypt %g cycles, want %g, as the receivers", c.name, sent, want)
		}
		if c.crypted.wireBytes != c.clear.wireBytes {
			t.Errorf("%s: %g wire bytes encrypted, want %g: AES-GCM keeps the length", c.name, c.crypted.wireBytes, c.clear.wireBytes)
		}
	}

	// WWT's 4K 70/30 on RAID-6 is bound by the disk groups' worlds, which
	// send the reads' payload: encryption takes throughput and adds CPU.
	in := wwtMix(p)
	base := solve(t, p, in)
	in.State.TransitEncryption = true
	enc := solve(t, p, in)
	if !(total(enc) < 0.99*total(base)) || !(enc.CPUPercent > base.CPUPercent) {
		t.Errorf("4K 70/30 encrypted in transit: %.0f IOPS at %.1f %% CPU, clear %.0f at %.1f %% (bottleneck %s); want fewer IOPS and more CPU", total(enc), enc.CPUPercent, total(base), base.CPUPercent, base.Bottleneck)
	}
}

// wwtMix is WWT's 4K 70/30 at 8 outstanding I/Os a disk, 96 workers of 8
// disks on RAID-6 FTT 2 over the 2 x 25 GbE LAG: bound by the disk
// groups' worlds.
func wwtMix(p *testbed.Profile) Input {
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 4096, IODepth: 8}
	in := UniformInput(p, 96, 8, Policy{RAID: "raid6", FTT: 2}, job)
	in.State.Uplink = "25g"
	return in
}
