package model

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"starbench/internal/testbed"
)

// Every physical bound, from the testbed's datasheet figures as
// CheckBounds documents them: a result far above all of them draws one
// warning per bound, each naming its limit.
func TestBoundsFromTheDatasheets(t *testing.T) {
	for _, name := range []string{"storagereview-r6625-esa", "wwt-r640-osa"} {
		p := mustLoad(t, name)
		m := &p.Model
		h := float64(p.Hosts)
		devs := float64(p.Hosts * p.Storage.CapacityDevices)
		rate := func(d testbed.Device, mbps float64) float64 {
			r := mbps * 1e6
			if link := testbed.PCIeBytesPerSec(d.PCIeGen, d.PCIeLanes); link > 0 {
				r = math.Min(r, link)
			}
			return r
		}
		capRead, capWrite := rate(p.Storage.Capacity, p.Storage.Capacity.ReadMBps), rate(p.Storage.Capacity, p.Storage.Capacity.WriteMBps)
		squeeze := 1 - m.MaxCompressionSavings.Value
		wire := 1.0
		if p.Architecture == "ESA" {
			wire = squeeze
		}
		link, remote, least := bestLinkBps(p), (h-1)/h, leastWriteAmplification(p)
		tpc := float64(max(p.CPU.ThreadsPerCore, 1))
		cpu := float64(p.CPU.Cores()) * (1 + m.SMTYield.Value*(tpc-1)) * p.CPU.Clock() * 1e9
		guestIO := m.FioIOCycles.Value + math.Min(m.ControllerIOCyclesPVSCSI.Value, math.Min(m.ControllerIOCyclesNVMe.Value, m.ControllerIOCyclesLSILogic.Value))
		want := map[string]float64{
			"the capacity devices read":          devs * capRead / 1e6 / squeeze,
			"the capacity devices' ":             devs * p.Storage.Capacity.ReadIOPS,
			"the uplinks carry for remote reads": h * link / 1e6 / remote / wire,
			"the capacity devices take":          devs * capWrite / 1e6 / squeeze / least,
			"the uplinks carry for the leanest":  h * link / 1e6 / remote / wire / least,
			"the hosts' memory can copy":         h * p.MemoryBytesPerSec() * m.MemoryEfficiency.Value / 2 / 1e6,
			"the hosts' CPUs can issue":          h * cpu / guestIO,
		}
		if p.Architecture == "OSA" {
			want["the cache tier takes for two copies"] = float64(p.Hosts*p.Storage.DiskGroups) * rate(p.Storage.Cache, p.Storage.Cache.WriteMBps) / 1e6 / 2
		}
		warnings := CheckBounds(p, Summary{ReadIOPS: 1e15, ReadMBps: 1e15, WriteIOPS: 1e15, WriteMBps: 1e15})
		if len(warnings) != len(want) {
			t.Errorf("%s: %d warnings, want %d:\n%s", name, len(warnings), len(want), strings.Join(warnings, "\n"))
		}
		limit := regexp.MustCompile(`exceeds \D*?(\d+) `)
		for what, lim := range want {
			found := false
			for _, w := range warnings {
				if !strings.Contains(w, what) {
					continue
				}
				found = true
				got, _ := strconv.ParseFloat(limit.FindStringSubmatch(w)[1], 64)
				if math.Abs(got-math.Round(lim)) > 0.5 {
					t.Errorf("%s: %q: limit %.0f, want %.0f", name, what, got, lim)
				}
			}
			if !found {
				t.Errorf("%s: no warning of %q in:\n%s", name, what, strings.Join(warnings, "\n"))
			}
		}
		// Just under every limit: nothing to warn of.
		if w := CheckBounds(p, Summary{}); len(w) != 0 {
			t.Errorf("%s: an idle result draws %v", name, w)
		}
	}
}
