package vsphere

import (
	"context"
	"testing"
	"time"

	"starbench/internal/model"
	"starbench/internal/sim"
)

// A sample of 0 keeps its place in a host's series over SOAP: a host whose
// uplink is idle for the first half of the window and busy for the second
// reads 0 KBps then 1024, not the other way round (govmomi's encoder drops
// zeros from a series marked omitempty, the simulator sends its own).
func TestHostMetricsKeepZeroSamplesInPlace(t *testing.T) {
	s, c := startSim(t, sim.Options{Testbed: testbedOf(3, "ESA")})
	end := time.Now().Truncate(time.Minute)
	start := end.Add(-10 * time.Minute)
	busy := start.Add(5 * time.Minute)
	s.RecordHostLoad("DC0_C0_H1", busy, end, model.HostLoad{CPUPercent: 60, HostFigures: model.HostFigures{NICRxBytesPerSec: 1 << 20}})
	rows, err := c.HostMetrics(context.Background(), []string{"DC0_C0_H1"}, start, end)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 30 {
		t.Fatalf("got %d samples, want 30 (10 min / 20 s)", len(rows))
	}
	for _, r := range rows {
		want := 0.0
		if r.Time.After(busy) {
			want = 1024
		}
		if r.NetReceivedKBps != want {
			t.Errorf("%s into the window: %.0f KBps received, want %.0f", r.Time.Sub(start), r.NetReceivedKBps, want)
		}
	}
}
