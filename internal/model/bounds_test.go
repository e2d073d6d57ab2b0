package model

import (
	"fmt"
	"strings"
	"testing"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// roundProfile is a testbed with round datasheet figures, no PCIe caps, so
// that every physical bound can be worked out by hand below.
func roundProfile(t *testing.T, name string) *testbed.Profile {
	t.Helper()
	p := *mustLoad(t, name)
	p.Hosts = 4
	p.CPU.Sockets, p.CPU.CoresPerSocket, p.CPU.ThreadsPerCore, p.CPU.GHz = 2, 64, 2, 2
	p.CPU.AllCoreGHz = 0
	p.MemoryChannels, p.MemoryMTs = 8, 4800
	p.Storage.CapacityDevices = 2
	p.Storage.Capacity.ReadMBps, p.Storage.Capacity.WriteMBps, p.Storage.Capacity.ReadIOPS = 2000, 1000, 400000
	p.Storage.Capacity.PCIeGen = 0
	p.Storage.Cache.WriteMBps, p.Storage.Cache.PCIeGen = 3000, 0
	p.NICs = []testbed.NIC{{Name: "vmnic0", SpeedGbps: 100}}
	p.Uplinks = []testbed.Uplink{{Name: "100g", NICs: []string{"vmnic0"}}}
	m := &p.Model
	m.MaxCompressionSavings.Value = 0.5
	m.MemoryEfficiency.Value = 0.5
	m.SMTYield.Value = 0.25
	m.FioIOCycles.Value = 10000
	m.ControllerIOCyclesPVSCSI.Value, m.ControllerIOCyclesNVMe.Value, m.ControllerIOCyclesLSILogic.Value = 6000, 5000, 7000
	return &p
}

// TestBoundsByHand: each physical bound of CheckBounds has the value worked
// out from the datasheet figures by hand; a result 1 % under it raises no
// warning, 1 % over it raises that bound's warning. On 4 hosts of 2
// capacity devices (8), compression saving at most half, 100 GbE:
//   - reads: 8 x 2000 MB/s / 0.5 = 32000 MB/s; 8 x 400k = 3.2M IOPS; the
//     uplinks carry 4 x 12500 MB/s, of which reads use the remote 3/4, of
//     data compressed on the wire on ESA only (/0.5).
//   - writes: the leanest policy on 4 hosts writes 1.5 copies (ESA RAID-5
//     2+1, OSA RAID-5 3+1 needs 4 hosts: 4/3), 8 x 1000 / 0.5 / copies;
//     OSA's cache tier takes 2 groups x 4 hosts x 3000 MB/s / 2 copies.
//   - memory: 8 channels x 4800 MT/s x 8 B x 0.5 = 153600 MB/s a host,
//     each byte copied twice: 4 x 153600 / 2 = 307200 MB/s.
//   - CPU: 128 cores x 1.25 (SMT) x 2 GHz per host over 10000 + 5000
//     cycles an I/O: 4 x 160 x 2e9 / 15000 IOPS.
func TestBoundsByHand(t *testing.T) {
	type bound struct {
		what  string
		at    func(v float64) Summary
		limit float64
		text  string
	}
	readMB := func(v float64) Summary { return Summary{ReadMBps: v} }
	writeMB := func(v float64) Summary { return Summary{WriteMBps: v} }
	cases := map[string][]bound{
		"storagereview-r6625-esa": {
			{"read device bytes", readMB, 8 * 2000 / 0.5, "the capacity devices read"},
			{"read IOPS", func(v float64) Summary { return Summary{ReadIOPS: v} }, 8 * 400000, "the capacity devices' "},
			{"read wire", readMB, 4 * 12500 / 0.75 / 0.5, "the uplinks carry for remote reads"},
			{"write device bytes", writeMB, 8 * 1000 / 0.5 / 1.5, "the capacity devices take"},
			{"write wire", writeMB, 4 * 12500 / 0.75 / 0.5 / 1.5, "the uplinks carry for the leanest policy"},
			{"memory", func(v float64) Summary { return Summary{ReadMBps: v / 4, WriteMBps: 3 * v / 4} }, 4 * 153600 / 2, "the hosts' memory"},
			{"CPU", func(v float64) Summary { return Summary{ReadIOPS: v / 4, WriteIOPS: 3 * v / 4} }, 4 * 160 * 2e9 / 15000, "the hosts' CPUs"},
		},
		"wwt-r640-osa": {
			{"read device bytes", readMB, 8 * 2000 / 0.5, "the capacity devices read"},
			{"read wire", readMB, 4 * 12500 / 0.75, "the uplinks carry for remote reads"},
			{"write device bytes", writeMB, 8 * 1000 / 0.5 / (4.0 / 3), "the capacity devices take"},
			{"write cache tier", writeMB, 2 * 4 * 3000 / 2, "the cache tier takes"},
			{"write wire", writeMB, 4 * 12500 / 0.75 / (4.0 / 3), "the uplinks carry for the leanest policy"},
		},
	}
	for name, bounds := range cases {
		p := roundProfile(t, name)
		if name == "wwt-r640-osa" {
			p.Storage.DiskGroups = 2
		}
		for _, b := range bounds {
			mention := fmt.Sprintf(" %.0f ", b.limit)
			under := CheckBounds(p, b.at(0.99*b.limit))
			for _, w := range under {
				if strings.Contains(w, b.text) {
					t.Errorf("%s %s: 1 %% under the bound %.0f warns %q", name, b.what, b.limit, w)
				}
			}
			over := CheckBounds(p, b.at(1.01*b.limit))
			found := false
			for _, w := range over {
				found = found || strings.Contains(w, b.text) && strings.Contains(w, "exceeds") && strings.Contains(w, mention)
			}
			if !found {
				t.Errorf("%s %s: 1 %% over the bound %.0f, warnings %q lack %q", name, b.what, b.limit, over, b.text)
			}
		}
	}
}

// TestSummaryOfCountsTheWorkloadRows: a result's summary sums the rows of
// the whole workload per direction, not those of single jobs (which the
// whole's already hold) nor the total rows; a one-job workload's rows name
// no job.
func TestSummaryOfCountsTheWorkloadRows(t *testing.T) {
	twoJobs := &fio.Result{Aggregate: []fio.Row{
		{Job: "a", Direction: "read", IOPS: 100, MBps: 1},
		{Job: "b", Direction: "write", IOPS: 200, MBps: 2},
		{Direction: "read", IOPS: 100, MBps: 1},
		{Direction: "write", IOPS: 200, MBps: 2},
		{Direction: fio.TotalDirection, IOPS: 300, MBps: 3},
	}}
	oneJob := &fio.Result{Aggregate: []fio.Row{
		{Direction: "read", IOPS: 100, MBps: 1},
		{Direction: "write", IOPS: 200, MBps: 2},
		{Direction: fio.TotalDirection, IOPS: 300, MBps: 3},
	}}
	want := Summary{ReadIOPS: 100, ReadMBps: 1, WriteIOPS: 200, WriteMBps: 2}
	for name, res := range map[string]*fio.Result{"two jobs": twoJobs, "one job": oneJob} {
		if got := SummaryOf(res); got != want {
			t.Errorf("%s: summary %+v, want %+v", name, got, want)
		}
	}
}

// TestBoundsWithoutMemoryFigures: a profile that gives no memory channels
// has no memory bound, rather than one of 0 MB/s.
func TestBoundsWithoutMemoryFigures(t *testing.T) {
	p := roundProfile(t, "storagereview-r6625-esa")
	p.MemoryChannels = 0
	if w := CheckBounds(p, Summary{ReadMBps: 1, WriteMBps: 1}); len(w) > 0 {
		t.Errorf("2 MB/s with no memory figures: warnings %q, want none", w)
	}
}
