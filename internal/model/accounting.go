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
// devices: cycles of each named software path by the threads that run it,
// device time, bytes on the wire and in memory, and what lies on its
// critical path.
type opCost struct {
	guestCycles float64 // the VM's vCPUs: fio, guest kernel, virtual controller
	domCycles   float64 // vSAN DOM worlds on the VM's host
	storeCycles float64 // vSAN LSOM worlds on the component hosts
	otherCycles float64 // host CPU outside those threads (TCP receive in the NIC's worlds)
	// dispatches counts thread hand-offs (guest to hypervisor, to the DOM,
	// each received message, each component op, the completion).
	dispatches    float64
	capacityTime  float64 // device-seconds of capacity devices
	cacheTime     float64 // device-seconds of OSA cache devices
	wireBytes     float64 // bytes on the wire (each sent once and received once)
	txBytes       float64 // of those, the ones this end sends (see ioCost)
	rxBytes       float64 // and the ones it receives
	memBytes      float64 // bytes through the hosts' memory
	roundTrips    float64 // network round trips on the I/O's critical path
	deviceLatency float64 // device access latency on the critical path, seconds
	deviceBytes   float64 // bytes read or written on devices
	bufferBytes   float64 // bytes written into OSA write buffers (cache tier)
	// compOps and compBytes are the component ops the DOM sends to the
	// components (what vSAN's DOM component manager serves) and their
	// payload bytes, by the op's direction: a RAID-5 write's reads of old
	// data and parity are reads. Destage within a disk group is not one.
	compOps, compBytes [2]float64
}

// cpuCycles is every cycle the I/O costs any host.
func (c *opCost) cpuCycles() float64 {
	return c.guestCycles + c.domCycles + c.storeCycles + c.otherCycles
}

func (c *opCost) add(o opCost, w float64) {
	c.guestCycles += w * o.guestCycles
	c.domCycles += w * o.domCycles
	c.storeCycles += w * o.storeCycles
	c.otherCycles += w * o.otherCycles
	c.dispatches += w * o.dispatches
	c.capacityTime += w * o.capacityTime
	c.cacheTime += w * o.cacheTime
	c.wireBytes += w * o.wireBytes
	c.txBytes += w * o.txBytes
	c.rxBytes += w * o.rxBytes
	c.memBytes += w * o.memBytes
	c.roundTrips += w * o.roundTrips
	c.deviceLatency += w * o.deviceLatency
	c.deviceBytes += w * o.deviceBytes
	c.bufferBytes += w * o.bufferBytes
	for d := range c.compOps {
		c.compOps[d] += w * o.compOps[d]
		c.compBytes[d] += w * o.compBytes[d]
	}
}

// layout is how a policy places one object's data on the cluster.
type layout struct {
	mirrors     int     // RAID-1 copies: the whole policy (RAID1) or the ESA performance leg
	dataStripes int     // k data components of an erasure-coded capacity leg (0 for RAID-1)
	parity      int     // p parity components
	capFactor   float64 // capacity-leg bytes per guest byte
}

// width is how many components the capacity leg has: the mirrors, or
// the stripe's data and parity.
func (l layout) width() int {
	if l.dataStripes > 0 {
		return l.dataStripes + l.parity
	}
	return l.mirrors
}

// raidSpelling drops what separates "raid" from its level.
var raidSpelling = strings.NewReplacer("-", "", " ", "", "_", "")

// policyLayout checks a policy against the cluster and returns its layout.
func policyLayout(p *testbed.Profile, pol Policy) (layout, error) {
	h := p.Hosts
	raid := raidSpelling.Replace(strings.ToLower(pol.RAID)) // "RAID-5" too
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
	p        *testbed.Profile
	m        *testbed.ModelParams
	pl       platform
	osa      bool
	compress bool
	dedup    bool
	checksum bool // the policy leaves vSAN's checksum on
	// deferDestage leaves out OSA's destage: the write buffer absorbs
	// writes while it fills (the burst before the elevator must keep pace).
	deferDestage bool
	// fromBuffer is the share of OSA reads of written blocks (the guest's,
	// and a partial-stripe write's reads of old data and parity) that find
	// their block still in the write buffer and read it from the cache
	// device; destaged is the share of buffered writes the elevator
	// destages, the rest overwritten while still in the buffer (see
	// writeBufferState). newCostModel starts them at 0 and 1.
	fromBuffer, destaged float64
	largeOK              bool    // ESA large writes go straight to the capacity leg
	msgCycles            float64 // per message, send and receive together
	txCycles             float64 // per payload byte sent
	rxCycles             float64 // per payload byte received
	cipherCycles         float64 // per byte sent or received, data-in-transit encryption on
	restCycles           float64 // per byte encrypted or decrypted at rest, data-at-rest encryption on
	frame                float64 // wire bytes per payload byte
	guestIO              float64 // fio, guest kernel and virtual controller per I/O
	tRead                float64 // capacity device per-op read time, seconds
	tWrite               float64
	cacheRd              float64 // OSA cache device per-op times
	cacheWr              float64
	// stridedOK says OSA gathers a sequential stream's writes to RAID-5/6
	// into full stripes (vSAN 7.0 U3 on); fullStripes that the writes
	// accounted now are such a stream's.
	stridedOK, fullStripes bool
	// chunk is the writes' buffer_compress_chunk: how fio lays out their
	// compressible data, and so what LZ4 spends on it (lz4Cycles).
	chunk float64
}

func newCostModel(p *testbed.Profile, pl platform, link vsanLink, state ClusterState, compress bool, controller string) costModel {
	m := &p.Model
	c := costModel{p: p, m: m, pl: pl, osa: p.Architecture == "OSA", compress: compress, dedup: state.Dedup && p.Architecture == "OSA", checksum: true, frame: link.frame, destaged: 1}
	c.largeOK = !c.osa && m.LargeWriteBytes.Value > 0 && releaseAtLeast(p.VSANRelease, 8, 1)
	c.stridedOK = c.osa && releaseAtLeast(p.VSANRelease, 7, 3)
	if state.TransitEncryption {
		c.cipherCycles = m.TransitCipherCyclesPerByte.Value
	}
	if state.RestEncryption {
		c.restCycles = m.RestCipherCyclesPerByte.Value
	}
	if state.RDMA {
		c.msgCycles, c.txCycles, c.rxCycles = m.MessageCyclesRDMA.Value, m.ByteCyclesRDMA.Value, m.ByteCyclesRDMA.Value
	} else {
		c.msgCycles, c.txCycles, c.rxCycles = m.MessageCyclesTCP.Value, m.TxByteCyclesTCP.Value, m.RxByteCyclesTCP.Value
	}
	c.guestIO = m.FioIOCycles.Value + controllerCycles(m, controller)
	c.tRead, c.tWrite = opTimes(p.Storage.Capacity, pl.capRead, pl.capWrite)
	if c.osa {
		c.cacheRd, c.cacheWr = opTimes(p.Storage.Cache, pl.cacheRead, pl.cacheWrite)
	}
	return c
}

// flushCycles is the guest's cost of one flush (see jobShape.flushes): a
// system call the guest kernel completes itself, or with the sg engine a
// command through fio and the virtual controller that vSAN has nothing
// to do for.
func (c *costModel) flushCycles(command bool) float64 {
	if command {
		return c.guestIO
	}
	return c.m.FsyncCycles.Value
}

// controllerCycles is the hypervisor's cost per I/O of a virtual controller.
func controllerCycles(m *testbed.ModelParams, controller string) float64 {
	switch controller {
	case testbed.LSILogic:
		return m.ControllerIOCyclesLSILogic.Value
	case testbed.VNVMe:
		return m.ControllerIOCyclesNVMe.Value
	}
	return m.ControllerIOCyclesPVSCSI.Value
}

// opTimes splits a device's 4K IOPS rating into a per-op time and the
// transfer time at its sequential rate, so 4K ops hit the IOPS rating and
// large ops the bandwidth.
func opTimes(d testbed.Device, rdBps, wrBps float64) (rd, wr float64) {
	rd = math.Max(0, 1/d.ReadIOPS-4096/rdBps)
	wr = math.Max(0, 1/d.WriteIOPS-4096/wrBps)
	return rd, wr
}

// accessLatency is a device's latency beyond its 4K read service time: a
// pure delay per access on the critical path, so a 4K read at no load takes
// the datasheet latency and large transfers add their transfer time.
func accessLatency(d testbed.Device, rdBps float64) float64 {
	rd, _ := opTimes(d, rdBps, rdBps)
	return math.Max(0, d.LatencyUs*1e-6-rd-4096/rdBps)
}

// saving is the share of bytes compression removes for data of the given
// compressibility (fio's buffer_compress_percentage). LZ4 leaves of a
// 4 KiB block the bytes it cannot shrink and its own framing
// (lz4_block_overhead_bytes); ESA stores that in whole 512-byte sectors,
// at best one (max_compression_savings); OSA keeps the block compressed
// only if it fits in the slot max_compression_savings leaves (2 KiB), and
// as it is otherwise. So half-compressible data (LZ4 leaves 2,116 bytes)
// saves nothing on OSA and 3/8 on ESA.
func (c *costModel) saving(compressPct int) float64 {
	if !c.compress {
		return 0
	}
	m := c.m
	size := (1-float64(compressPct)/100)*efficiencyBlock + m.LZ4BlockOverheadBytes.Value
	limit := m.MaxCompressionSavings.Value
	if c.osa {
		if size <= (1-limit)*efficiencyBlock {
			return limit
		}
		return 0
	}
	sectors := math.Max(1, math.Ceil(size/esaSectorBytes))
	return math.Max(0, math.Min(limit, 1-sectors*esaSectorBytes/efficiencyBlock))
}

// esaSectorBytes is the unit ESA stores a compressed block in.
const esaSectorBytes = 512

// Where an I/O's work lands. Every cost of a guest I/O is on its DOM
// owner's host (the VM's: the guest, the DOM, the owner's end of each
// message) or at the components of one of the object's legs: the capacity
// leg (RAID-1 mirrors or the erasure-coded stripe: reads, OSA's writes,
// ESA's destage and large writes) or ESA's performance leg (RAID-1 mirrors
// of every small write). A component on another host than the owner adds
// the network's work at both ends.
const (
	capLeg  = 0
	perfLeg = 1
)

// ioCost is one guest I/O's cost by where it lands (see capLeg).
type ioCost struct {
	owner opCost // on the DOM owner's host, however the components lie
	legs  [2]legCost
}

// legCost is a leg's share of an I/O's cost, summed over the leg's
// components (which share it evenly).
type legCost struct {
	comp     opCost // at the components, local or not
	compNet  opCost // added at the components when all are on other hosts
	ownerNet opCost // added at the owner's host when all are on other hosts
}

func (io *ioCost) add(o ioCost, w float64) {
	io.owner.add(o.owner, w)
	for l := range io.legs {
		io.legs[l].comp.add(o.legs[l].comp, w)
		io.legs[l].compNet.add(o.legs[l].compNet, w)
		io.legs[l].ownerNet.add(o.legs[l].ownerNet, w)
	}
}

// total is the I/O's cost over the whole cluster when a share remote[l]
// of leg l's components is on another host than the owner.
func (io *ioCost) total(remote [2]float64) opCost {
	o := io.owner
	for l, lc := range io.legs {
		o.add(lc.comp, 1)
		o.add(lc.compNet, remote[l])
		o.add(lc.ownerNet, remote[l])
	}
	return o
}

// guestSide is the work of every guest I/O of b bytes on the VM's side: the
// guest's own path, the DOM's per-I/O and per-byte work (the checksum of
// what the DOM checksums, checksummed bytes; moving the bytes to or from
// guest memory), the hand-offs from the guest to the DOM and back, and the
// bytes crossing memory for the copy and the checksum.
func (c *costModel) guestSide(io *ioCost, b, dataBytes, checksummed float64) {
	m := c.m
	o := &io.owner
	o.guestCycles += c.guestIO
	o.domCycles += m.DOMIOCycles.Value + b*m.GuestCopyByteCycles.Value + dataBytes*m.DOMByteCycles.Value
	o.dispatches += 3
	o.memBytes += 2 * b // the copy: read and write
	if c.checksum {
		o.domCycles += checksummed * m.ChecksumCyclesPerByte.Value
		o.memBytes += checksummed // the checksum reads the data
	}
}

// domChecksummed is how many bytes of a guest I/O of b bytes the DOM
// checksums. vSAN computes a block's CRC-32C where the write enters the
// stack and persists it with the data (Cormac Hogan, "VSAN 6.2 Part 3 -
// Software Checksum"). ESA verifies reads at the top of the stack too
// ("checksumming, encryption and compression have moved to the top of the
// stack", Duncan Epping, Yellow Bricks, 2023-02-01); OSA's LSOM computes
// the CRC of what each component reads and of each component write it
// takes (componentChecksum).
func (c *costModel) domChecksummed(b float64, write bool) float64 {
	if c.osa && !write {
		return 0
	}
	return b
}

// componentChecksum is OSA's CRC-32C of n component ops of b bytes, in the
// components' LSOM: each replica's write verified where it lands, each
// read checked where it is read (domChecksummed).
func (c *costModel) componentChecksum(io *ioCost, n, b float64) {
	if !c.osa || !c.checksum {
		return
	}
	o := &io.legs[capLeg].comp
	o.storeCycles += n * b * c.m.ChecksumCyclesPerByte.Value
	o.memBytes += n * b
}

// component adds n component ops of payload bytes on a leg: the LSOM's op
// at the component, and when the component is on another host the DOM's
// and the LSOM's messages, the bytes on the wire each way, through the
// NICs' memory, and the receiver's hand-off. toComponent says which way
// the payload goes (writes) or comes (reads): the sender pays tx cycles,
// the receiver rx cycles in the NIC's worlds.
func (c *costModel) component(io *ioCost, leg int, n, payload float64, toComponent bool) {
	l := &io.legs[leg]
	hdr := c.m.MessageHeaderBytes.Value
	l.comp.storeCycles += n * c.m.LSOMOpCycles.Value
	l.comp.dispatches += n
	op := read
	if toComponent {
		op = write
	}
	l.comp.compOps[op] += n
	l.comp.compBytes[op] += n * payload
	l.ownerNet.domCycles += n * c.msgCycles
	l.compNet.storeCycles += n * c.msgCycles
	l.ownerNet.dispatches += n // the reply, received at the owner
	l.compNet.dispatches += n  // the request, received at the component
	l.ownerNet.wireBytes += n * (payload*c.frame + 2*hdr)
	l.ownerNet.memBytes += n * payload // NIC DMA out at one end, in at the other
	l.compNet.memBytes += n * payload
	send, back := payload*c.frame+hdr, hdr
	sender, receiver := &l.ownerNet, &l.compNet
	if !toComponent {
		sender, receiver = receiver, sender
	}
	sender.txBytes += n * send
	sender.rxBytes += n * back
	receiver.rxBytes += n * send
	receiver.txBytes += n * back
	// With data-in-transit encryption each end encrypts what it sends
	// (the request or the reply, headers too) and decrypts what it gets.
	cipher := n * (payload + 2*hdr) * c.cipherCycles
	if toComponent {
		sender.domCycles += n*payload*c.txCycles + cipher
	} else {
		sender.storeCycles += n*payload*c.txCycles + cipher
	}
	receiver.otherCycles += n*payload*c.rxCycles + cipher
}

// capRead and friends are device times of one op of bytes.
func (c *costModel) capRead(bytes float64) float64  { return c.tRead + bytes/c.pl.capRead }
func (c *costModel) capWrite(bytes float64) float64 { return c.tWrite + bytes/c.pl.capWrite }

// cacheRead and cacheWrite are an OSA cache device's time for one op of
// bytes.
func (c *costModel) cacheRead(bytes float64) float64  { return c.cacheRd + bytes/c.pl.cacheRead }
func (c *costModel) cacheWrite(bytes float64) float64 { return c.cacheWr + bytes/c.pl.cacheWrite }

// deviceOp adds the LSOM's per-byte work and the device time of n device
// reads or writes of bytes each at a leg's components (the per-op cycles
// are in component).
func (c *costModel) deviceOp(io *ioCost, leg int, n, bytes float64, devTime float64, isWrite, cache bool) {
	o := &io.legs[leg].comp
	perByte := c.m.LSOMReadByteCycles.Value
	if isWrite {
		perByte = c.m.LSOMWriteByteCycles.Value
	}
	o.storeCycles += n * bytes * perByte
	if cache {
		o.cacheTime += n * devTime
	} else {
		o.capacityTime += n * devTime
	}
	o.deviceBytes += n * bytes
	o.memBytes += n * bytes // device DMA
}

// readIO is one guest read of b bytes from the capacity leg. written is
// the share of blocks that hold data; the rest cost a metadata lookup
// only, but the guest still gets b bytes (zeros). compressPct is the
// compressibility of the data on disk.
func (c *costModel) readIO(b, written float64, compressPct int) ioCost {
	var io ioCost
	io.legs[capLeg].ownerNet.roundTrips = 1 // one round trip to a remote component

	// Unwritten blocks: the guest's path and a metadata lookup; no
	// device, no payload, no checksum.
	var meta ioCost
	c.guestSide(&meta, b, 0, 0)
	c.component(&meta, capLeg, 1, 0, false)
	meta.legs[capLeg].comp.storeCycles += c.m.MetadataReadCycles.Value - c.m.LSOMOpCycles.Value

	io.add(meta, 1-written)
	if c.fromBuffer > 0 {
		io.add(c.bufferRead(b), written*c.fromBuffer)
		written *= 1 - c.fromBuffer
	}

	var data ioCost
	c.guestSide(&data, b, b, c.domChecksummed(b, false))
	c.componentChecksum(&data, 1, b)
	s := c.saving(compressPct)
	devBytes := b * (1 - s)
	wire := devBytes // ESA ships compressed data and decompresses at the DOM
	if c.osa {
		wire = b // OSA decompresses on the component's host
	}
	c.component(&data, capLeg, 1, wire, false)
	c.deviceOp(&data, capLeg, 1, devBytes, c.capRead(devBytes), false, false)
	data.owner.deviceLatency = accessLatency(c.p.Storage.Capacity, c.pl.capRead)
	// Data at rest: OSA decrypts what the device returns on the
	// component's host, ESA in the DOM before decompressing.
	if c.osa {
		data.legs[capLeg].comp.storeCycles += devBytes * c.restCycles
	} else {
		data.owner.domCycles += devBytes * c.restCycles
	}
	if s > 0 { // only blocks stored compressed need decompressing
		dc := c.m.DecompressCyclesPerByte.Value * b
		if c.osa {
			data.legs[capLeg].comp.storeCycles += dc
			data.legs[capLeg].comp.memBytes += devBytes + b
		} else {
			data.owner.domCycles += dc
			data.owner.memBytes += devBytes + b
		}
	}
	io.add(data, written)
	return io
}

// bufferRead is an OSA read of b bytes whose block is still in the write
// buffer: vSAN looks for a block in the write buffer before the capacity
// tier, so the cache device serves it, as written (compression and
// deduplication happen at destage), with no decompression.
func (c *costModel) bufferRead(b float64) ioCost {
	var io ioCost
	c.guestSide(&io, b, b, c.domChecksummed(b, false))
	c.componentChecksum(&io, 1, b)
	c.component(&io, capLeg, 1, b, false)
	c.deviceOp(&io, capLeg, 1, b, c.cacheRead(b), false, true)
	io.legs[capLeg].comp.storeCycles += b * c.restCycles // decrypted off the cache tier
	io.owner.deviceLatency = accessLatency(c.p.Storage.Cache, c.pl.cacheRead)
	return io
}

// bufferCoverage is how much of the written regions OSA's write buffers
// hold: x = held / region bytes per disk group. Once the elevator keeps
// pace a group's buffer holds the last threshold x buffer bytes written to
// it; the regions are what the input's writing jobs write (fio's size, or
// the disk, over the clones' offsets), times each policy's capacity factor,
// spread over the groups their components use. 0 on ESA or when no job writes.
func bufferCoverage(p *testbed.Profile, pl platform, in Input) (float64, error) {
	if pl.groups == 0 {
		return 0, nil
	}
	bytes, comps := 0.0, 0
	for _, jl := range in.Jobs {
		sh, err := jl.shape()
		if err != nil {
			return 0, err
		}
		if sh.fr == 1 {
			continue
		}
		for _, d := range jl.Disks {
			lay, err := policyLayout(p, d.Policy)
			if err != nil {
				return 0, err
			}
			union, _ := sh.extent.footprint(diskBytes(p, d), jl.Job.NumJobs)
			bytes += union * lay.capFactor
			comps += lay.width()
		}
	}
	if bytes == 0 {
		return 0, nil
	}
	perGroup := bytes / float64(min(pl.groups, comps))
	return destageLimit(p) / perGroup, nil
}

// diskBytes is a data disk's size: its own, or the profile's workers'.
func diskBytes(p *testbed.Profile, d DiskLoad) float64 {
	if d.SizeBytes > 0 {
		return float64(d.SizeBytes)
	}
	return float64(p.Workers.DiskSizeGB) * 1e9
}

// writeBufferState is what the write buffers mean for a job while it
// writes, at coverage x (bufferCoverage), on a disk of disk bytes its
// numJobs clones reach: the share of its blocks found there (reads are
// served from the cache device) and the share of its writes the elevator
// destages, as fio comes back to its blocks (bufferHits): a write is
// destaged only if its block is not written again within the bytes held.
// A sequential writer finds the last held bytes there (min(1, x)) and,
// when the regions fit (x >= 1), overwrites every block before it is
// destaged. vSAN keeps blocks in the cache tier while they are written
// and destages them when they go cold, so rewrites cost the capacity tier
// and the space-efficiency work nothing. A job that does not write finds
// nothing of its own there (0, 1): what earlier runs left is not tracked.
func writeBufferState(x float64, sh jobShape, disk float64, numJobs int) (held, destaged float64) {
	if x == 0 || sh.fr == 1 {
		return 0, 1
	}
	seqDestaged := 1.0
	if x >= 1 {
		seqDestaged = 0
	}
	region, clones := sh.extent.footprint(disk, numJobs)
	reads, writes := sh.bufferHits(x, region, clones, sh.passes(disk))
	rs := sh.randomShare
	return rs*reads + (1-rs)*math.Min(1, x), rs*(1-writes) + (1-rs)*seqDestaged
}

// writeIO is one guest write of b bytes of the given compressibility.
func (c *costModel) writeIO(b float64, lay layout, compressPct, dedupePct int) ioCost {
	var io ioCost
	c.guestSide(&io, b, b, c.domChecksummed(b, true))
	o := &io.owner
	o.roundTrips = 1
	if c.osa {
		o.deviceLatency = accessLatency(c.p.Storage.Cache, c.pl.cacheRead)
		c.osaWrite(&io, b, lay, compressPct, dedupePct)
		return io
	}
	o.deviceLatency = accessLatency(c.p.Storage.Capacity, c.pl.capRead) // parallel component writes

	// ESA: compression at ingest, in the DOM, before replication.
	s := c.saving(compressPct)
	cb := b * (1 - s)
	if c.compress { // LZ4's work, kept or not
		o.domCycles += c.lz4Cycles(b, compressPct)
		o.memBytes += b + cb
	}
	// Data at rest: encrypted once, after compression; the legs and the
	// destage move ciphertext.
	o.domCycles += cb * c.restCycles
	capBytes := lay.capFactor * cb
	if c.largeOK && b >= c.m.LargeWriteBytes.Value {
		// The adaptive write path: one full-stripe write per capacity-leg
		// component, no performance leg.
		comps, per := float64(lay.mirrors), cb
		if lay.dataStripes > 0 {
			comps = float64(lay.dataStripes + lay.parity)
			per = cb / float64(lay.dataStripes)
		}
		c.component(&io, capLeg, comps, per, true)
		c.deviceOp(&io, capLeg, comps, per, c.capWrite(per), true, false)
		return io
	}
	// Performance leg: RAID-1 mirrors of the (compressed) block.
	mirrors := float64(lay.mirrors)
	c.component(&io, perfLeg, mirrors, cb, true)
	c.deviceOp(&io, perfLeg, mirrors, cb, c.capWrite(cb), true, false)
	// Asynchronous full-stripe destage to the capacity leg, sent by the
	// DOM owner from memory.
	ops := capBytes / c.m.DestageIOBytes.Value
	c.component(&io, capLeg, ops, c.m.DestageIOBytes.Value, true)
	c.deviceOp(&io, capLeg, ops, c.m.DestageIOBytes.Value, c.capWrite(c.m.DestageIOBytes.Value), true, false)
	return io
}

// osaWrite: the cache tier takes the write (RAID-1 copies, RAID-5/6
// read-modify-write, or a sequential stream's full stripes), destaged
// later within each disk group by its elevator: read back from the cache
// tier, compressed and deduplicated per replica, written to the capacity
// tier. All of it on the object's components (OSA has one leg). With
// data-at-rest encryption every byte that lands on a device is encrypted
// there and decrypted when read back.
func (c *costModel) osaWrite(io *ioCost, b float64, lay layout, compressPct, dedupePct int) {
	m := c.m
	cacheWrites := float64(lay.mirrors)
	switch {
	case lay.dataStripes > 0 && c.fullStripes:
		// vSAN 7.0 U3's strided writes: the stream's writes held until
		// they fill whole stripes, written with their parity, nothing
		// read first (the data and parity in component writes of the
		// guest's size: (k+p)/k of them).
		cacheWrites = float64(lay.dataStripes+lay.parity) / float64(lay.dataStripes)
	case lay.dataStripes > 0:
		// Partial-stripe read-modify-write: read old data and parity,
		// write new data and parity; two network phases.
		rmw := float64(1 + lay.parity)
		c.component(io, capLeg, rmw, b, false)
		c.componentChecksum(io, rmw, b)
		c.deviceOp(io, capLeg, rmw*(1-c.fromBuffer), b, c.capRead(b), false, false)
		c.deviceOp(io, capLeg, rmw*c.fromBuffer, b, c.cacheRead(b), false, true)
		io.legs[capLeg].comp.storeCycles += rmw * b * c.restCycles // the old data and parity decrypted
		io.owner.roundTrips = 2
		io.owner.deviceLatency += accessLatency(c.p.Storage.Capacity, c.pl.capRead)
		cacheWrites = rmw
	}
	c.component(io, capLeg, cacheWrites, b, true)
	c.componentChecksum(io, cacheWrites, b)
	c.deviceOp(io, capLeg, cacheWrites, b, c.cacheWrite(b), true, true)
	o := &io.legs[capLeg].comp
	o.storeCycles += cacheWrites * b * c.restCycles // encrypted onto the cache tier
	o.bufferBytes += cacheWrites * b
	if c.deferDestage {
		return
	}

	// Destage by the disk groups' elevators (local, no network), of what
	// was not overwritten in the buffer first.
	cacheWrites *= c.destaged
	saved := c.saving(compressPct)
	c.deviceOp(io, capLeg, cacheWrites, b, c.cacheRead(b), false, true)
	o.storeCycles += cacheWrites * m.LSOMOpCycles.Value
	o.dispatches += cacheWrites
	if c.compress { // LZ4's work, kept or not
		o.storeCycles += cacheWrites * c.lz4Cycles(b, compressPct)
		o.memBytes += cacheWrites * 2 * b
	}
	if c.dedup {
		o.storeCycles += cacheWrites * m.DedupCyclesPerByte.Value * b
		o.memBytes += cacheWrites * b
		saved = 1 - (1-saved)*(1-float64(dedupePct)/100)
	}
	c.efficiencyMaps(io, cacheWrites, b, dedupePct)
	stored := cacheWrites * b * (1 - saved)
	// Data at rest: decrypted off the cache tier, encrypted again after
	// the space efficiency, as the last step before the capacity tier.
	o.storeCycles += (cacheWrites*b + stored) * c.restCycles
	ops := stored / m.DestageIOBytes.Value
	c.deviceOp(io, capLeg, ops, m.DestageIOBytes.Value, c.capWrite(m.DestageIOBytes.Value), true, false)
}

// efficiencyBlock is the block OSA's space efficiency works on: LZ4
// compresses, and deduplication fingerprints, fixed 4 KiB blocks.
const efficiencyBlock = 4096

// efficiencyMaps is the metadata work of destaging n component writes of b
// bytes under OSA's space efficiency. With compression a block's place on
// the capacity tier is no longer its logical address, so each destaged
// write looks up the disk's translation map (metadata_read_cycles, an
// in-memory metadata lookup, as for reads of unwritten blocks) and writes
// an entry per 4 KiB block (map_entry_cycles; compression-only keeps the
// map per capacity device). Deduplication also looks each block's SHA-1
// fingerprint up in the disk group's hash map: fingerprints of distinct
// blocks are uniformly random, so every block is a lookup of its own, and
// the maps live on the capacity tier (about 5 % of its raw capacity), far
// more than memory caches, so a unique block's lookup reads its hash-map
// page from a capacity device.
func (c *costModel) efficiencyMaps(io *ioCost, n, b float64, dedupePct int) {
	if !c.compress && !c.dedup {
		return
	}
	m := c.m
	o := &io.legs[capLeg].comp
	blocks := n * math.Max(1, b/efficiencyBlock)
	o.storeCycles += n*m.MetadataReadCycles.Value + blocks*m.MapEntryCycles.Value
	if !c.dedup {
		return
	}
	unique := blocks * (1 - float64(dedupePct)/100)
	o.storeCycles += blocks*m.MetadataReadCycles.Value + unique*m.LSOMOpCycles.Value
	o.dispatches += unique
	c.deviceOp(io, capLeg, unique, efficiencyBlock, c.capRead(efficiencyBlock), false, false)
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
