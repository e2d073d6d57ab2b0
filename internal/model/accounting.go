package model

import (
	"fmt"
	"math"
	"strings"

	"starbench/internal/testbed"
)

const (
	read  = 0
	write = 1
)

// opCost is what one guest I/O costs the cluster, summed over all hosts and
// devices. Device time is in seconds of one whole device; cycles are CPU
// cycles at the host's base clock.
type opCost struct {
	cpuCycles     float64 // every cycle the I/O costs any host
	hostCycles    float64 // vSAN host software station (DOM)
	storeCycles   float64 // vSAN per-device (ESA) or per-disk-group (OSA) station
	capacityTime  float64 // capacity devices
	cacheTime     float64 // OSA cache devices
	netBytes      float64 // bytes on the wire (each sent once and received once)
	roundTrips    float64 // network round trips on the I/O's critical path
	deviceLatency float64 // device access latency on the critical path, seconds
	deviceBytes   float64 // bytes read or written on devices (for reports)
}

func (c *opCost) add(o opCost, w float64) {
	c.cpuCycles += w * o.cpuCycles
	c.hostCycles += w * o.hostCycles
	c.storeCycles += w * o.storeCycles
	c.capacityTime += w * o.capacityTime
	c.cacheTime += w * o.cacheTime
	c.netBytes += w * o.netBytes
	c.roundTrips += w * o.roundTrips
	c.deviceLatency += w * o.deviceLatency
	c.deviceBytes += w * o.deviceBytes
}

// layout is how a policy places one object's data on the cluster.
type layout struct {
	mirrors     int     // RAID-1 copies: the whole policy (RAID1) or the ESA performance leg
	dataStripes int     // k data components of an erasure-coded capacity leg (0 for RAID-1)
	parity      int     // p parity components
	capFactor   float64 // capacity-leg bytes per guest byte
}

// policyLayout checks a policy against the cluster and returns its layout.
func policyLayout(p *testbed.Profile, pol Policy) (layout, error) {
	h := p.Hosts
	raid := strings.NewReplacer("-", "", " ", "", "_", "").Replace(strings.ToLower(pol.RAID)) // "RAID-5" too
	switch raid {
	case "", "raid1":
		ftt := pol.FTT
		if ftt == 0 {
			ftt = 1
		}
		if ftt < 0 || ftt > 3 {
			return layout{}, fmt.Errorf("raid1 with ftt %d: want ftt 1, 2 or 3", pol.FTT)
		}
		if h < 2*ftt+1 {
			return layout{}, fmt.Errorf("raid1 ftt %d needs at least %d hosts; %s has %d", ftt, 2*ftt+1, p.Name, h)
		}
		return layout{mirrors: ftt + 1, capFactor: float64(ftt + 1)}, nil
	case "raid5":
		if pol.FTT > 1 {
			return layout{}, fmt.Errorf("raid5 tolerates 1 failure, not %d: use raid6 for ftt 2", pol.FTT)
		}
		k := 3 // OSA RAID-5 is 3+1
		if p.Architecture == "ESA" {
			k = 2 // 2+1 on 3-5 hosts, 4+1 on 6 or more
			if h >= 6 {
				k = 4
			}
		}
		if h < k+1 {
			return layout{}, fmt.Errorf("raid5 (%d+1) needs at least %d hosts; %s has %d", k, k+1, p.Name, h)
		}
		return layout{mirrors: 2, dataStripes: k, parity: 1, capFactor: float64(k+1) / float64(k)}, nil
	case "raid6":
		if pol.FTT != 0 && pol.FTT != 2 {
			return layout{}, fmt.Errorf("raid6 tolerates 2 failures, not %d: use raid5 for ftt 1", pol.FTT)
		}
		if h < 6 {
			return layout{}, fmt.Errorf("raid6 (4+2) needs at least 6 hosts; %s has %d", p.Name, h)
		}
		return layout{mirrors: 3, dataStripes: 4, parity: 2, capFactor: 1.5}, nil
	}
	return layout{}, fmt.Errorf("unknown RAID level %q: want raid1, raid5 or raid6", pol.RAID)
}

// costModel holds what the per-I/O accounting needs besides the I/O itself.
type costModel struct {
	p         *testbed.Profile
	m         *testbed.ModelParams
	rdma      bool
	compress  bool
	dedup     bool
	largeOK   bool    // ESA large writes go straight to the capacity leg
	remote    float64 // share of component accesses on another host
	msgCycles float64
	netCycles float64 // per byte on the wire, sender and receiver together
	tRead     float64 // capacity device per-op read time, seconds
	tWrite    float64
	cacheRead float64 // OSA cache device per-op times
	cacheWr   float64
}

func newCostModel(p *testbed.Profile, rdma, compress, dedup bool) costModel {
	m := &p.Model
	c := costModel{p: p, m: m, rdma: rdma, compress: compress, dedup: dedup && p.Architecture == "OSA"}
	c.remote = float64(p.Hosts-1) / float64(p.Hosts)
	c.largeOK = p.Architecture == "ESA" && m.LargeWriteBytes.Value > 0 && releaseAtLeast(p.VSANRelease, 8, 1)
	if rdma {
		c.msgCycles = m.MessageCyclesRDMA.Value
		c.netCycles = 2 * m.ByteCyclesRDMA.Value
	} else {
		c.msgCycles = m.MessageCyclesTCP.Value
		c.netCycles = m.TxByteCyclesTCP.Value + m.RxByteCyclesTCP.Value
	}
	c.tRead, c.tWrite = opTimes(p.Storage.Capacity)
	if p.Architecture == "OSA" {
		c.cacheRead, c.cacheWr = opTimes(p.Storage.Cache)
	}
	return c
}

// opTimes splits a device's 4K IOPS rating into a per-op time and the
// transfer time at its sequential rate, so 4K ops hit the IOPS rating and
// large ops the bandwidth.
func opTimes(d testbed.Device) (rd, wr float64) {
	rd = math.Max(0, 1/d.ReadIOPS-4096/(d.ReadMBps*1e6))
	wr = math.Max(0, 1/d.WriteIOPS-4096/(d.WriteMBps*1e6))
	return rd, wr
}

// accessLatency is a device's latency beyond its 4K read service time: a
// pure delay per access on the critical path, so a 4K read at no load takes
// the datasheet latency and large transfers add their transfer time.
func accessLatency(d testbed.Device) float64 {
	rd, _ := opTimes(d)
	return math.Max(0, d.LatencyUs*1e-6-rd-4096/(d.ReadMBps*1e6))
}

// saving is the share of bytes compression removes for data of the given
// compressibility (fio's buffer_compress_percentage).
func (c *costModel) saving(compressPct int) float64 {
	if !c.compress {
		return 0
	}
	return math.Min(float64(compressPct)/100, c.m.MaxCompressionSavings.Value)
}

func (c *costModel) capRead(bytes float64) float64 {
	return c.tRead + bytes/(c.p.Storage.Capacity.ReadMBps*1e6)
}

func (c *costModel) capWrite(bytes float64) float64 {
	return c.tWrite + bytes/(c.p.Storage.Capacity.WriteMBps*1e6)
}

// storeOp is the per-device (ESA) or per-disk-group (OSA) software cost of
// one device op.
func (c *costModel) storeOp(bytes float64) float64 {
	return c.m.DeviceOpCycles.Value + c.m.DeviceByteCycles.Value*bytes
}

// network adds component messages and their payload on other hosts.
func (c *costModel) network(o *opCost, components, payload float64) {
	msgs := 2 * c.remote * components // request and reply
	o.netBytes += c.remote * payload * c.m.NetOverhead.Value
	o.cpuCycles += msgs*c.msgCycles + c.remote*payload*c.m.NetOverhead.Value*c.netCycles
}

// readCost is one guest read of b bytes. written is the share of blocks that
// hold data; the rest cost a metadata lookup only. compressPct is the
// compressibility of the data on disk.
func (c *costModel) readCost(b, written float64, compressPct int) opCost {
	m := c.m
	var o opCost
	// The host path moves and checksums data only for written blocks.
	host := m.HostOpCycles.Value + written*m.HostReadByteCycles.Value*b
	o.hostCycles = host
	o.cpuCycles = m.GuestIOCycles.Value + host
	o.roundTrips = c.remote

	// Unwritten blocks: metadata only, no device bytes, no payload.
	var meta opCost
	meta.cpuCycles = m.MetadataReadCycles.Value
	c.network(&meta, 1, 0)

	var data opCost
	s := c.saving(compressPct)
	devBytes := b * (1 - s)
	data.capacityTime = c.capRead(devBytes)
	data.deviceLatency = accessLatency(c.p.Storage.Capacity)
	data.storeCycles = c.storeOp(devBytes)
	data.cpuCycles = data.storeCycles
	data.deviceBytes = devBytes
	wire := devBytes // ESA ships compressed data
	if c.p.Architecture == "OSA" {
		wire = b // OSA decompresses on the component's host
	}
	if s > 0 { // only blocks stored compressed need decompressing
		data.cpuCycles += m.DecompressCyclesPerByte.Value * b
	}
	c.network(&data, 1, wire)

	o.add(data, written)
	o.add(meta, 1-written)
	return o
}

// writeCost is one guest write of b bytes of the given compressibility.
func (c *costModel) writeCost(b float64, lay layout, compressPct, dedupePct int) opCost {
	m := c.m
	var o opCost
	host := m.HostOpCycles.Value + m.HostWriteByteCycles.Value*b
	o.hostCycles = host
	o.cpuCycles = m.GuestIOCycles.Value + host
	o.roundTrips = 1
	o.deviceLatency = accessLatency(c.p.Storage.Capacity) // parallel component writes
	if c.p.Architecture == "OSA" {
		o.deviceLatency = accessLatency(c.p.Storage.Cache)
		c.osaWrite(&o, b, lay, compressPct, dedupePct)
		return o
	}

	// ESA: compression at the source, before replication.
	s := c.saving(compressPct)
	cb := b * (1 - s)
	if c.compress {
		o.cpuCycles += m.CompressCyclesPerByte.Value * b
	}
	capBytes := lay.capFactor * cb
	if c.largeOK && b >= m.LargeWriteBytes.Value {
		// Straight to the capacity leg: one full-stripe write per component.
		comps := float64(lay.mirrors)
		per := cb
		if lay.dataStripes > 0 {
			comps = float64(lay.dataStripes + lay.parity)
			per = cb / float64(lay.dataStripes)
		}
		c.deviceWrites(&o, comps, per)
		c.network(&o, comps, capBytes)
		return o
	}
	// Performance leg: RAID-1 mirrors of the (compressed) block.
	c.deviceWrites(&o, float64(lay.mirrors), cb)
	c.network(&o, float64(lay.mirrors), float64(lay.mirrors)*cb)
	// Asynchronous full-stripe destage to the capacity leg.
	c.destage(&o, capBytes)
	c.network(&o, capBytes/m.DestageIOBytes.Value, capBytes)
	return o
}

// osaWrite: the cache tier takes the write (RAID-1 copies, or RAID-5/6
// read-modify-write), destaged later to the capacity tier with compression
// and dedup per replica.
func (c *costModel) osaWrite(o *opCost, b float64, lay layout, compressPct, dedupePct int) {
	m := c.m
	cacheWrites := float64(lay.mirrors)
	if lay.dataStripes > 0 {
		// Partial-stripe read-modify-write: read old data and parity,
		// write new data and parity; two network phases.
		rmw := float64(1 + lay.parity)
		o.capacityTime += rmw * c.capRead(b)
		o.storeCycles += rmw * c.storeOp(b)
		o.cpuCycles += rmw * c.storeOp(b)
		o.deviceBytes += rmw * b
		c.network(o, rmw, rmw*b)
		o.roundTrips = 2
		o.deviceLatency += accessLatency(c.p.Storage.Capacity)
		cacheWrites = rmw
	}
	o.cacheTime += cacheWrites * (c.cacheWr + b/(c.p.Storage.Cache.WriteMBps*1e6))
	o.storeCycles += cacheWrites * c.storeOp(b)
	o.cpuCycles += cacheWrites * c.storeOp(b)
	o.deviceBytes += cacheWrites * b
	c.network(o, cacheWrites, cacheWrites*b)

	// Destage: read back from the cache tier, compress and dedup per
	// replica, write to the capacity tier.
	o.cacheTime += cacheWrites * (c.cacheRead + b/(c.p.Storage.Cache.ReadMBps*1e6))
	saved := c.saving(compressPct)
	if c.compress {
		o.cpuCycles += cacheWrites * m.CompressCyclesPerByte.Value * b
	}
	if c.dedup {
		o.cpuCycles += cacheWrites * m.DedupCyclesPerByte.Value * b
		saved = 1 - (1-saved)*(1-float64(dedupePct)/100)
	}
	c.destage(o, cacheWrites*b*(1-saved))
}

// deviceWrites adds n device writes of bytes each.
func (c *costModel) deviceWrites(o *opCost, n, bytes float64) {
	o.capacityTime += n * c.capWrite(bytes)
	o.storeCycles += n * c.storeOp(bytes)
	o.cpuCycles += n * c.storeOp(bytes)
	o.deviceBytes += n * bytes
}

// destage adds bytes written to the capacity tier in full-stripe ops.
func (c *costModel) destage(o *opCost, bytes float64) {
	c.deviceWrites(o, bytes/c.m.DestageIOBytes.Value, c.m.DestageIOBytes.Value)
}

// releaseAtLeast reports whether a release such as "8.0 U2" is at least
// major.0 U update.
func releaseAtLeast(release string, major, update int) bool {
	var maj, min, upd int
	n, _ := fmt.Sscanf(release, "%d.%d U%d", &maj, &min, &upd)
	if n < 1 {
		return false
	}
	if maj != major {
		return maj > major
	}
	return upd >= update
}
