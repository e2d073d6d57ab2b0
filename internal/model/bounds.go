package model

import (
	"context"
	"fmt"
	"math"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// Summary is a run's cluster-wide throughput, measured or simulated.
type Summary struct {
	ReadIOPS, ReadMBps   float64
	WriteIOPS, WriteMBps float64
}

// SummaryOf sums a result's aggregate rows over all jobs (those of single
// jobs would count twice).
func SummaryOf(r *fio.Result) Summary {
	var s Summary
	for _, row := range r.Aggregate {
		if row.Job != "" {
			continue
		}
		switch row.Direction {
		case "read":
			s.ReadIOPS += row.IOPS
			s.ReadMBps += row.MBps
		case "write":
			s.WriteIOPS += row.IOPS
			s.WriteMBps += row.MBps
		}
	}
	return s
}

// CheckBounds compares a result with what the testbed's hardware can
// physically carry, in the best case the architecture allows (the best
// compression where vSAN compresses, the policy that writes least), and
// returns a warning for every limit exceeded: the capacity devices and the
// OSA cache tier (datasheet rates, capped by their PCIe links), the
// uplinks (line rate, capped by the NIC cards' PCIe links), the hosts'
// memory (every guest byte is copied into or out of guest memory,
// compressed or not), and the CPU cycles of the guest's own I/O path. It
// holds for any result: a measured one above these limits did not touch
// the devices (unprepared disks, a cache) or was measured wrongly.
func CheckBounds(p *testbed.Profile, s Summary) []string {
	var warn []string
	for _, b := range physicalBounds(p, s) {
		if b.got > b.limit*(1+1e-9) {
			warn = append(warn, fmt.Sprintf("%s %.0f %s exceeds %s", b.what, b.got, b.unit, fmt.Sprintf(b.why, b.limit)))
		}
	}
	return warn
}

// headroom is the most s could be scaled by without crossing one of the
// testbed's physical bounds (CheckBounds) that it is within; at least 1.
func headroom(p *testbed.Profile, s Summary) float64 {
	most := math.Inf(1)
	for _, b := range physicalBounds(p, s) {
		if b.got > 0 && b.got <= b.limit {
			most = math.Min(most, b.limit/b.got)
		}
	}
	return most
}

// bound is one physical limit on a run's throughput: what it measured
// (got, in unit) and the limit, which why explains (a format for it).
type bound struct {
	what       string
	got, limit float64
	unit, why  string
}

// physicalBounds is every limit CheckBounds checks s against.
func physicalBounds(p *testbed.Profile, s Summary) []bound {
	var bounds []bound
	add := func(what string, got, lim float64, unit, why string) {
		bounds = append(bounds, bound{what, got, lim, unit, why})
	}
	m := &p.Model
	pl := newPlatform(p)
	h := float64(p.Hosts)
	esa := p.Architecture == "ESA"
	// Compression shrinks device bytes everywhere, and wire bytes on ESA
	// only (OSA compresses at destage and ships full blocks).
	squeeze := 1 - m.MaxCompressionSavings.Value
	wireSqueeze := 1.0
	if esa {
		wireSqueeze = squeeze
	}
	readHint := ": likely unprepared disks (reads of never-written blocks touch no device) or a cache effect"
	devs := float64(pl.devices)
	add("read", s.ReadMBps, devs*pl.capRead/1e6/squeeze, "MB/s", "the %.0f MB/s the capacity devices read at the best compression"+readHint)
	add("read", s.ReadIOPS, devs*p.Storage.Capacity.ReadIOPS, "IOPS", "the capacity devices' %.0f IOPS"+readHint)
	link := bestLinkBps(p)
	remote := (h - 1) / h
	// Without data locality a share (H-1)/H of reads crosses the network.
	add("read", s.ReadMBps, h*link/1e6/remote/wireSqueeze, "MB/s", "the %.0f MB/s the uplinks carry for remote reads"+readHint)

	minCopies := leastWriteAmplification(p)
	add("write", s.WriteMBps, devs*pl.capWrite/1e6/squeeze/minCopies, "MB/s", "the %.0f MB/s the capacity devices take at the best compression and the leanest policy")
	if !esa {
		// Every OSA write lands in the cache tier uncompressed, at least
		// twice (RAID-1 mirrors, or RAID-5/6 data and parity).
		add("write", s.WriteMBps, float64(pl.groups)*pl.cacheWrite/1e6/2, "MB/s", "the %.0f MB/s the cache tier takes for two copies")
	}
	add("write", s.WriteMBps, h*link/1e6/remote/wireSqueeze/minCopies, "MB/s", "the %.0f MB/s the uplinks carry for the leanest policy's remote components")

	if pl.memBps > 0 {
		// Each guest byte is read and written once moving to or from guest memory.
		add("read+write", s.ReadMBps+s.WriteMBps, h*pl.memBps/2/1e6, "MB/s", "the %.0f MB/s the hosts' memory can copy to and from the guests")
	}
	guestIO := m.FioIOCycles.Value + math.Min(m.ControllerIOCyclesPVSCSI.Value, math.Min(m.ControllerIOCyclesNVMe.Value, m.ControllerIOCyclesLSILogic.Value))
	add("read+write", s.ReadIOPS+s.WriteIOPS, h*pl.effCPU*pl.hz/guestIO, "IOPS", "the %.0f IOPS the hosts' CPUs can issue through the guests' I/O path alone")
	return bounds
}

// leastWriteAmplification is the fewest capacity-device bytes per guest
// byte any policy the cluster can hold writes (ESA large writes go straight
// to the capacity leg).
func leastWriteAmplification(p *testbed.Profile) float64 {
	least := math.Inf(1)
	for _, pol := range []Policy{{RAID: "raid1", FTT: 1}, {RAID: "raid5", FTT: 1}, {RAID: "raid6", FTT: 2}} {
		if lay, err := policyLayout(p, pol); err == nil {
			least = math.Min(least, lay.capFactor)
		}
	}
	return least
}

// bestLinkBps is one host's best vSAN uplink choice in bytes per second
// of line rate (capped by the NIC cards' PCIe links, LAGs perfectly
// balanced).
func bestLinkBps(p *testbed.Profile) float64 {
	best := 0.0
	for _, u := range p.Uplinks {
		l, err := resolveLink(p, ClusterState{Uplink: u.Name}, false)
		if err != nil {
			continue
		}
		perLink := l.bps / p.Model.NICEfficiency.Value
		if l.spread {
			perLink /= hashedLinks((p.Hosts-1)*int(p.Model.ConnectionsPerPeer.Value), len(l.nics))
			perLink *= float64(len(l.nics))
		}
		best = math.Max(best, perLink)
	}
	return best
}

// BoundsChecked returns plane with every measured result it returns
// checked against the testbed's physical bounds: each limit a result
// exceeds becomes a note beside it, as for simulated results (the model
// checks those itself).
func BoundsChecked(plane fio.DataPlane, p *testbed.Profile) fio.DataPlane {
	return checkedPlane{DataPlane: plane, p: p}
}

type checkedPlane struct {
	fio.DataPlane
	p *testbed.Profile
}

func (c checkedPlane) Run(ctx context.Context, workers []fio.Worker, wl *fio.Workload, progress func(fio.Status)) (*fio.Result, error) {
	res, err := c.DataPlane.Run(ctx, workers, wl, progress)
	if err == nil && !res.Simulated {
		res.Notes = append(res.Notes, CheckBounds(c.p, SummaryOf(res))...)
	}
	return res, err
}
