package sim

import (
	"math"
	"testing"
	"time"

	"starbench/internal/model"
)

// TestHostLoadMeansTheSpansThatOverlap: a window's CPU is the time-weighted
// mean of the recorded spans that overlap it, whatever order they were
// recorded in, and so is every other figure of the load (here vSAN's CPU,
// a tenth of it); a window no span overlaps, or another host, reads idle
// and nothing of vSAN's.
func TestHostLoadMeansTheSpansThatOverlap(t *testing.T) {
	h := newHostLoad(idleCPU)
	t0 := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	load := func(cpu float64) model.HostLoad {
		return model.HostLoad{CPUPercent: cpu, HostFigures: model.HostFigures{VSANCPUPercent: cpu / 10}}
	}
	h.record("esx1", at(0), at(60), load(40))
	h.record("esx1", at(120), at(180), load(80))
	h.record("esx1", at(30), at(90), load(20)) // ends before the one recorded last
	h.record("esx3", at(100), at(200), load(70))
	h.record("esx3", at(0), at(50), load(10))
	for _, c := range []struct {
		host       string
		start, end int
		want       float64
	}{
		{"esx1", 60, 120, 20},                  // only the late-recorded span reaches in
		{"esx1", 0, 200, (40 + 80 + 20) / 3.0}, // all three, 60 s each
		{"esx1", 150, 400, 80},
		{"esx1", 200, 300, idleCPU},
		{"esx2", 0, 200, idleCPU},
		{"esx3", 60, 150, 70},
	} {
		if got := h.cpu(c.host, at(c.start), at(c.end)); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s over [%d s, %d s): %v %% CPU, want %v", c.host, c.start, c.end, got, c.want)
		}
		wantVSAN := c.want / 10
		if c.want == idleCPU {
			wantVSAN = 0
		}
		if l, _ := h.at(c.host, at(c.start), at(c.end)); math.Abs(l.VSANCPUPercent-wantVSAN) > 1e-9 {
			t.Errorf("%s over [%d s, %d s): %v %% vSAN CPU, want %v", c.host, c.start, c.end, l.VSANCPUPercent, wantVSAN)
		}
	}
}

// A window one span covers reads that span's load as recorded: an idle
// host's 2 % is 2 %, not 1.9999... (2 x d x 1/d in floating point), which
// the performance counter's hundredths of a percent truncated to 1.99.
func TestHostLoadOfOneSpanIsAsRecorded(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	for ns := 1; ns <= 2000; ns++ {
		h := newHostLoad(idleCPU)
		h.record("esx1", t0, t0.Add(time.Duration(ns)), model.HostLoad{CPUPercent: idleCPU})
		if got := h.cpu("esx1", t0.Add(-time.Second), t0.Add(time.Second)); got != idleCPU {
			t.Fatalf("a span of %d ns at %v %% CPU reads %v %%", ns, idleCPU, got)
		}
	}
}

// idleCPU is the idle CPU % the tests give their hosts.
const idleCPU = 2.0
