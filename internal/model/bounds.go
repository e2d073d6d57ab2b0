package model

import (
	"fmt"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// Summary is a run's cluster-wide throughput, measured or simulated.
type Summary struct {
	ReadIOPS, ReadMBps   float64
	WriteIOPS, WriteMBps float64
}

// SummaryOf sums a result's aggregate rows.
func SummaryOf(r *fio.Result) Summary {
	var s Summary
	for _, row := range r.Aggregate {
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

// CheckBounds compares a result with what the testbed's devices, network and
// CPUs can physically carry and returns a warning for every limit exceeded.
// It holds for any result: a measured one above these limits did not touch
// the devices (unprepared disks, a cache) or was measured wrongly.
func CheckBounds(p *testbed.Profile, s Summary) []string {
	var warn []string
	m := &p.Model
	h := float64(p.Hosts)
	devs := h * float64(p.Storage.CapacityDevices)
	dev := p.Storage.Capacity
	readHint := "likely unprepared disks (reads of never-written blocks cost metadata only) or a cache effect"
	if lim := devs * dev.ReadMBps; s.ReadMBps > lim {
		warn = append(warn, fmt.Sprintf("read %.0f MB/s exceeds the capacity devices' %.0f MB/s: %s", s.ReadMBps, lim, readHint))
	}
	if lim := devs * dev.ReadIOPS; s.ReadIOPS > lim {
		warn = append(warn, fmt.Sprintf("read %.0f IOPS exceeds the capacity devices' %.0f IOPS: %s", s.ReadIOPS, lim, readHint))
	}
	link := fastestUplinkMBps(p)
	remote := (h - 1) / h
	// Without data locality a share (H-1)/H of reads crosses the network.
	if lim := h * link / remote; s.ReadMBps > lim {
		warn = append(warn, fmt.Sprintf("read %.0f MB/s exceeds the %.0f MB/s the uplinks can carry for remote reads: %s", s.ReadMBps, lim, readHint))
	}
	best := 1 - m.MaxCompressionSavings.Value
	if lim := devs * dev.WriteMBps / best; s.WriteMBps > lim {
		warn = append(warn, fmt.Sprintf("write %.0f MB/s exceeds the capacity devices' %.0f MB/s even at the best compression", s.WriteMBps, lim))
	}
	if p.Architecture == "OSA" {
		cache := h * float64(p.Storage.DiskGroups) * p.Storage.Cache.WriteMBps
		if s.WriteMBps > cache {
			warn = append(warn, fmt.Sprintf("write %.0f MB/s exceeds the cache tier's %.0f MB/s", s.WriteMBps, cache))
		}
	}
	// Every write has at least one replica on another host.
	if lim := h * link / best; s.WriteMBps > lim {
		warn = append(warn, fmt.Sprintf("write %.0f MB/s exceeds the %.0f MB/s the uplinks can carry for one remote replica", s.WriteMBps, lim))
	}
	cpuIOPS := h * float64(p.CPU.Cores()) * p.CPU.GHz * 1e9 / m.GuestIOCycles.Value
	if total := s.ReadIOPS + s.WriteIOPS; total > cpuIOPS {
		warn = append(warn, fmt.Sprintf("%.0f IOPS exceeds the %.0f the hosts' CPUs can issue through the hypervisor I/O path alone", total, cpuIOPS))
	}
	return warn
}

// fastestUplinkMBps is one host's best uplink line rate in MB/s.
func fastestUplinkMBps(p *testbed.Profile) float64 {
	best := 0.0
	for _, u := range p.Uplinks {
		if bps, err := uplinkBytesPerSec(p, u.Name); err == nil && bps > best {
			best = bps
		}
	}
	return best / p.Model.NICEfficiency.Value / 1e6
}
