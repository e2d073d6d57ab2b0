package model

import (
	"fmt"
	"math"
	"slices"

	"starbench/internal/testbed"
)

// Degradation is the cluster as events leave it for one interval of a
// measurement (see docs/model.md, "Degraded mode"): hosts out of service,
// objects with a component missing, snapshots in the disks' chains, and
// background work (resync, a second workload, snapshot consolidation)
// taking part of the stations' capacity.
type Degradation struct {
	// Out is how many hosts serve no I/O; the others carry their load
	// (their VMs moved or stopped, their components served by replicas).
	Out int
	// OutHosts, when known, are those hosts by their index among the
	// cell's (hostNames): a host's own stations (its guest, DOM, CPU and
	// NICs) then stop where that host is out, so a failure of a host with
	// no worker VMs leaves the workers' hosts as they were. Without them
	// every kind of host station loses its share of copies.
	OutHosts []int
	// Absent is the share of objects with a data component missing and not
	// rebuilt yet: their writes reach one replica fewer, and erasure-coded
	// reads of the missing component are rebuilt from the others.
	Absent float64
	// Devices is how many capacity devices of the serving hosts serve no
	// I/O (failed, removed, or in an OSA disk group out of service), and
	// Groups how many OSA disk groups (their cache devices and LSOM): the
	// other devices carry their load.
	Devices, Groups int
	// Snapshots is how many snapshots each worker disk's chain holds.
	Snapshots int
	// Background is, by station name, the share of its capacity background
	// work takes; the foreground sees the rest (a "shadow server").
	Background map[string]float64
}

// perHostStations are the stations with one copy per host, whose load the
// serving hosts share; deviceStations have copies per device or disk group
// (the LSOM station's name depends on the architecture, see platform).
var (
	perHostStations = []string{"cpu", "guest", "vsan-dom", "nic-tx", "nic-rx", "memory"}
	deviceStations  = []string{"ssd-capacity", "ssd-cache", "vsan-device", "vsan-diskgroup"}
	// replicaStations do work per replica written.
	replicaStations = []string{"ssd-capacity", "ssd-cache", "vsan-device", "vsan-diskgroup", "nic-tx", "nic-rx"}
)

// maxBackground keeps a station's foreground capacity above zero.
const maxBackground = 0.95

// apply changes the cell's stations for d, with the disks' layouts. The
// degraded mode does not know which hosts and devices are out, against
// where the workers' VMs and components are: each station (a group of
// identical copies, see groupCopies) keeps its serving share of copies, at
// least one, with its own load.
func (d *Degradation) apply(p *testbed.Profile, c *cell) error {
	if d.Out < 0 || d.Out >= p.Hosts {
		return fmt.Errorf("%d hosts out of %d: at least one host must serve", d.Out, p.Hosts)
	}
	serving := float64(p.Hosts-d.Out) / float64(p.Hosts)
	mirrors, reconstruct, err := degradedLayout(p, c.job.Disks)
	if err != nil {
		return err
	}
	for k := range c.st {
		s := &c.st[k]
		if slices.Contains(perHostStations, s.Name) || slices.Contains(deviceStations, s.Name) {
			left := max(1, int(math.Round(float64(s.Copies)*serving)))
			if slices.Contains(perHostStations, s.Name) { // a device station's copies are devices
				if n := d.servingHosts(s); n > 0 {
					left = n
				}
			}
			s.scale(float64(s.Copies) / float64(left))
			s.Copies = left
		}
		if d.Absent > 0 && slices.Contains(replicaStations, s.Name) {
			// A write to an object missing a component goes to one
			// replica fewer; a read of an erasure-coded object's missing
			// data component reads the stripe's others.
			s.D[write] *= 1 - d.Absent/mirrors
			s.D[read] *= 1 + d.Absent*reconstruct
		}
	}
	for _, name := range deviceStations {
		if err := c.loseCopies(name, d.lost(c, name)); err != nil {
			return err
		}
	}
	overhead := snapshotOverhead(p, d.Snapshots)
	for _, name := range []string{"vsan-dom", "cpu"} {
		c.addByDemand(name, [2]float64{overhead[read] / c.pl.hz, overhead[write] / c.pl.hz})
	}
	for k := range c.st {
		s := &c.st[k]
		if b := math.Min(d.Background[s.Name], maxBackground); b > 0 {
			s.scale(1 / (1 - b))
		}
	}
	return nil
}

// servingHosts is how many of a host station's hosts serve, where the
// hosts out are known; 0 when they are not, or when every one of its hosts
// is out (it then keeps a copy with its load, as without them).
func (d *Degradation) servingHosts(s *station) int {
	if len(d.OutHosts) == 0 || len(s.of) == 0 {
		return 0
	}
	n := 0
	for _, h := range s.of {
		if !slices.Contains(d.OutHosts, h) {
			n++
		}
	}
	return n
}

// loseCopies takes n copies out of the stations named name, the largest
// groups first; the others carry their load.
func (c *cell) loseCopies(name string, n int) error {
	if n <= 0 {
		return nil
	}
	var of []int
	total := 0
	for k := range c.st {
		if c.st[k].Name == name {
			of = append(of, k)
			total += c.st[k].Copies
		}
	}
	if len(of) == 0 {
		return nil
	}
	if n >= total {
		return fmt.Errorf("%d of the %d %s left out of service: at least one must serve", n, total, name)
	}
	slices.SortStableFunc(of, func(a, b int) int { return c.st[b].Copies - c.st[a].Copies })
	for _, k := range of {
		take := min(n, c.st[k].Copies-1)
		if err := c.st[k].lose(take); err != nil {
			return err
		}
		n -= take
	}
	if n > 0 { // every group down to one copy: the busiest carry on
		return fmt.Errorf("%d more of the %s left out of service than the layout can spare", n, name)
	}
	return nil
}

// addByDemand adds demand per I/O (seconds, per direction, over the
// cluster) to the stations named name, each copy in proportion to its
// share of their demand (evenly where they have none).
func (c *cell) addByDemand(name string, add [2]float64) {
	if add == [2]float64{} {
		return
	}
	var total [2]float64
	copies := 0
	for _, s := range c.st {
		if s.Name == name {
			copies += s.Copies
			for dir := range total {
				total[dir] += float64(s.Copies) * s.D[dir]
			}
		}
	}
	for k := range c.st {
		s := &c.st[k]
		if s.Name != name {
			continue
		}
		for dir := range s.D {
			share := 1 / float64(copies)
			if total[dir] > 0 {
				share = s.D[dir] / total[dir]
			}
			s.D[dir] += add[dir] * share
		}
	}
}

// lost is how many copies of the device station name the failed devices
// and disk groups take away.
func (d *Degradation) lost(c *cell, name string) int {
	switch {
	case name == "ssd-capacity":
		return d.Devices
	case name == "ssd-cache":
		return d.Groups
	case name == c.pl.storeName && c.pl.groups > 0:
		return d.Groups // OSA's LSOM runs per disk group
	case name == c.pl.storeName:
		return d.Devices // ESA's per device
	}
	return 0
}

// lose takes n copies out of a station; the others carry their load.
func (s *station) lose(n int) error {
	if n <= 0 {
		return nil
	}
	if n >= s.Copies {
		return fmt.Errorf("%d of the %d %s left out of service: at least one must serve", n, s.Copies, s.Name)
	}
	left := s.Copies - n
	s.scale(float64(s.Copies) / float64(left))
	s.Copies = left
	return nil
}

// scale multiplies a station's demands (the foreground's share of it shrinks).
func (s *station) scale(f float64) {
	for dir := range s.D {
		s.D[dir] *= f
		s.Extra[dir] *= f
	}
	if s.Busy != nil {
		b := *s.Busy
		for dir := range b {
			b[dir] *= f
		}
		s.Busy = &b
	}
}

// degradedLayout averages over the disks how many replicas a write reaches
// (RAID-1 mirrors, or an erasure-coded stripe's components) and the extra
// reads a read of a missing erasure-coded component costs.
func degradedLayout(p *testbed.Profile, disks []DiskLoad) (mirrors, reconstruct float64, err error) {
	for _, d := range disks {
		lay, err := policyLayout(p, d.Policy)
		if err != nil {
			return 0, 0, err
		}
		m, r := float64(lay.mirrors), 0.0
		if lay.dataStripes > 0 {
			k := float64(lay.dataStripes + lay.parity)
			if p.Architecture == "OSA" {
				m = k // OSA writes the stripe in place; ESA's performance leg mirrors
			}
			// A read lands on the missing component 1 time in k and then
			// reads the stripe's other data components and a parity.
			r = float64(lay.dataStripes) / k
		}
		mirrors += m
		reconstruct += r
	}
	n := float64(len(disks))
	return mirrors / n, reconstruct / n, nil
}

// Snapshot costs (docs/model.md, "Degraded mode"). ESA keeps snapshots in
// its B-tree metadata: a measured impact below 2 %, the same with one
// snapshot or five (Yellow Bricks, 2023). OSA's vsanSparse delta objects:
// a read looks the block up through the chain's in-memory metadata (an
// assumed tenth of a DOM I/O per level), a write to a grain not yet in the
// top delta also allocates it (an LSOM operation).
const (
	esaSnapshotShare    = 0.02
	osaSnapshotPerLevel = 0.1
)

// snapshotOverhead is the extra DOM cycles per read and per write of a disk
// with n snapshots.
func snapshotOverhead(p *testbed.Profile, n int) [2]float64 {
	if n <= 0 {
		return [2]float64{}
	}
	m := &p.Model
	if p.Architecture == "ESA" {
		c := esaSnapshotShare * m.DOMIOCycles.Value
		return [2]float64{c, c}
	}
	lookup := float64(n) * osaSnapshotPerLevel * m.DOMIOCycles.Value
	return [2]float64{lookup, lookup + m.LSOMOpCycles.Value}
}

// resyncLoad is the utilisation one byte per second of resync puts on each
// station of the degraded cell: each byte is read on a source device, sent
// from its host and received by another, and written on a target device
// (through the cache tier on OSA), with DOM and LSOM cycles on both ends
// (the DOM's checksum unless the disks' policy disables it), each end
// encrypting or decrypting it with data-in-transit encryption on, and on
// OSA with data-at-rest encryption decrypting it off the source device and
// encrypting it for the target.
func resyncLoad(p *testbed.Profile, c *cell, d *Degradation) map[string]float64 {
	m := &p.Model
	hosts := float64(p.Hosts - d.Out)
	serving := hosts / float64(p.Hosts)
	hz := c.pl.hz
	devices := math.Max(1, float64(c.pl.devices)*serving-float64(d.Devices))
	stores := math.Max(1, float64(c.pl.stores)*serving-float64(d.lost(c, c.pl.storeName)))
	netCycles := m.TxByteCyclesTCP.Value + m.RxByteCyclesTCP.Value
	if c.rdma {
		netCycles = 2 * m.ByteCyclesRDMA.Value
	}
	if c.cipher {
		netCycles += 2 * m.TransitCipherCyclesPerByte.Value
	}
	if c.restCipher && p.Architecture == "OSA" {
		// OSA decrypts what it reads and encrypts what it writes; ESA
		// copies ciphertext.
		netCycles += 2 * m.RestCipherCyclesPerByte.Value
	}
	// Checksums where the disks' policies keep them (a share of the disks
	// where they differ).
	checksummed := 0.0
	for _, disk := range c.job.Disks {
		if !disk.Policy.ChecksumDisabled {
			checksummed++
		}
	}
	if n := len(c.job.Disks); n > 0 {
		checksummed /= float64(n)
	}
	dom := 2 * (m.DOMByteCycles.Value + checksummed*m.ChecksumCyclesPerByte.Value)
	lsom := m.LSOMReadByteCycles.Value + m.LSOMWriteByteCycles.Value
	load := map[string]float64{
		"cpu":          (dom + lsom + netCycles) / hz / (hosts * c.pl.effCPU),
		"vsan-dom":     dom / hz / (hosts * c.pl.domWorlds),
		c.pl.storeName: lsom / hz / (stores * c.pl.storeWorlds),
		"nic-tx":       c.link.frame / (hosts * c.link.bps),
		"nic-rx":       c.link.frame / (hosts * c.link.bps),
		"ssd-capacity": (1/c.pl.capRead + 1/c.pl.capWrite) / devices,
	}
	if c.pl.groups > 0 {
		load["ssd-cache"] = 1 / c.pl.cacheWrite / math.Max(1, float64(c.pl.groups)*serving-float64(d.Groups))
	}
	return load
}
