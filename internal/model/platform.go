package model

import (
	"math"

	"starbench/internal/testbed"
)

// platform is what one host of a profile can do: the capacities the
// stations are built from, all derived from the hardware and the named
// parameters, so each testbed has its own ceilings.
type platform struct {
	hosts  int
	hz     float64 // cycles per second of one core under load
	cores  float64 // physical cores per host
	hwThr  float64 // hardware threads per host (cores x SMT threads)
	effCPU float64 // cores' worth of throughput per host, SMT included
	// World counts per host (DOM: one pool per host, at most one per
	// hardware thread) and per LSOM station.
	domWorlds   float64
	storeName   string // "vsan-device" (ESA) or "vsan-diskgroup" (OSA)
	stores      int    // LSOM stations in the cluster
	storeWorlds float64
	devices     int // capacity devices in the cluster
	groups      int // OSA disk groups in the cluster (0 on ESA)
	// Devices' transfer rates, bytes/s: the datasheet's, capped by the
	// device's PCIe link.
	capRead, capWrite     float64
	cacheRead, cacheWrite float64
	memBps                float64 // sustained memory bandwidth per host; 0: not given
}

func newPlatform(p *testbed.Profile) platform {
	m := &p.Model
	tpc := float64(max(p.CPU.ThreadsPerCore, 1))
	pl := platform{
		hosts:   p.Hosts,
		hz:      p.CPU.Clock() * 1e9,
		cores:   float64(p.CPU.Cores()),
		hwThr:   float64(p.CPU.Threads()),
		effCPU:  float64(p.CPU.Cores()) * (1 + m.SMTYield.Value*(tpc-1)),
		devices: p.Hosts * p.Storage.CapacityDevices,
		memBps:  p.MemoryBytesPerSec() * m.MemoryEfficiency.Value,
	}
	// The DOM's worlds are one pool per host, whatever its sockets; a
	// world needs a hardware thread to run on.
	pl.domWorlds = math.Min(m.DOMWorldsPerHost.Value, pl.hwThr)
	pl.storeName, pl.stores, pl.storeWorlds = "vsan-device", pl.devices, m.DeviceWorlds.Value
	if p.Architecture == "OSA" {
		pl.groups = p.Hosts * p.Storage.DiskGroups
		pl.storeName, pl.stores, pl.storeWorlds = "vsan-diskgroup", pl.groups, m.DiskGroupWorlds.Value
	}
	pl.capRead, pl.capWrite = deviceRates(p.Storage.Capacity)
	if p.Architecture == "OSA" {
		pl.cacheRead, pl.cacheWrite = deviceRates(p.Storage.Cache)
	}
	return pl
}

// DOMWorlds is how many DOM worlds each host of the profile runs, as the
// model takes it: dom_worlds_per_host, at most one per hardware thread.
func DOMWorlds(p *testbed.Profile) int {
	return int(newPlatform(p).domWorlds)
}

// LSOMWorlds is how the profile's LSOM worlds sit on each host, as the
// model takes them: stations per host (capacity devices on ESA, disk
// groups on OSA) of worlds each (device_worlds, diskgroup_worlds).
func LSOMWorlds(p *testbed.Profile) (stations, worlds int) {
	pl := newPlatform(p)
	return pl.stores / max(pl.hosts, 1), int(pl.storeWorlds)
}

// deviceRates are a device's sequential rates in bytes/s, capped by its PCIe
// link when the profile gives it.
func deviceRates(d testbed.Device) (rd, wr float64) {
	rd, wr = d.ReadMBps*1e6, d.WriteMBps*1e6
	if link := testbed.PCIeBytesPerSec(d.PCIeGen, d.PCIeLanes); link > 0 {
		rd, wr = math.Min(rd, link), math.Min(wr, link)
	}
	return rd, wr
}

// storeWorldsPerHost is the LSOM worlds one host runs.
func (pl *platform) storeWorldsPerHost() float64 {
	return pl.storeWorlds * float64(pl.stores) / float64(pl.hosts)
}
