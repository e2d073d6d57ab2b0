package model

import (
	"math"
	"strings"
	"testing"

	"starbench/internal/fio"
)

// TestAddStationSummarises: the output names the busiest station as the
// bottleneck, the CPU and guest stations' utilisations as percentages, the
// busier NIC direction, and notes a load-dependent station whose hand-offs
// wait more than 1 % of the time, with that share.
func TestAddStationSummarises(t *testing.T) {
	cpu := [2]float64{1, 1}
	var out Output
	out.addStation(&station{Name: "cpu", Extra: cpu}, 0.25, 0.5)
	out.addStation(&station{Name: "guest", Extra: cpu}, 0.01, 0.2)
	out.addStation(&station{Name: "nic-rx"}, 0.5, 0.6)
	out.addStation(&station{Name: "nic-tx"}, 0, 0.3)
	out.addStation(&station{Name: "vsan-device"}, 0, 0.55)
	if out.Bottleneck != "nic-rx" || out.BottleneckUtil != 0.6 {
		t.Errorf("bottleneck %s at %g, want nic-rx at 0.6", out.Bottleneck, out.BottleneckUtil)
	}
	if out.CPUPercent != 50 || out.GuestCPUPercent != 20 || out.NICPercent != 60 {
		t.Errorf("CPU %g %%, guest %g %%, NIC %g %%; want 50, 20 and 60", out.CPUPercent, out.GuestCPUPercent, out.NICPercent)
	}
	if len(out.Stations) != 5 || out.Stations[4] != (StationUse{"vsan-device", 0.55}) {
		t.Errorf("stations %v", out.Stations)
	}
	// Only the CPU waits more than 1 %; a NIC is never overcommitted.
	if len(out.Notes) != 1 || !strings.HasPrefix(out.Notes[0], "cpu overcommitted: 25 % of thread hand-offs wait") {
		t.Errorf("notes %q, want one: the CPU's 25 %% waiting", out.Notes)
	}
}

// TestPercentilesInTheUnitsOfTheMean: every percentile of a simulated
// direction is in microseconds as its mean is: the median within a factor
// of 3 of the mean, p99.9 above it, on every testbed.
func TestPercentilesInTheUnitsOfTheMean(t *testing.T) {
	for _, name := range []string{"storagereview-r6625-esa", "wwt-r640-osa"} {
		p := mustLoad(t, name)
		job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 4096, IODepth: 4}
		o := solve(t, p, uniformInput(p, Policy{RAID: "raid1"}, job))
		for _, d := range []Direction{o.Read, o.Write} {
			if r := d.P50Us / d.LatMeanUs; !(r > 1.0/3 && r < 3) || !(d.P999Us > d.LatMeanUs) || math.IsNaN(d.P95Us) {
				t.Errorf("%s: mean %.1f us, p50 %.1f, p95 %.1f, p99 %.1f, p99.9 %.1f: want the median near the mean and p99.9 above it",
					name, d.LatMeanUs, d.P50Us, d.P95Us, d.P99Us, d.P999Us)
			}
		}
	}
}
