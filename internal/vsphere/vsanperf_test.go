package vsphere

import (
	"context"
	"strings"
	"testing"
	"time"

	vsantypes "github.com/vmware/govmomi/vsan/types"

	"starbench/internal/ledger"
	"starbench/internal/model"
	"starbench/internal/sim"
)

// TestVSANMetricsReportWhatTheRunsDid: the performance service is off
// until turned on (recorded, and turned off by the undo); then its samples
// show the recorded run in the 5-minute samples it overlaps and idle ones
// around it, for the cluster and for each host, vSAN's CPU on each host its
// own.
func TestVSANMetricsReportWhatTheRunsDid(t *testing.T) {
	p := testbedOf(4, "ESA")
	p.Storage.Capacity.LatencyUs = 80
	s, c := startSim(t, sim.Options{Testbed: p})
	ctx := context.Background()
	end := time.Now().UTC().Truncate(time.Minute)
	start := end.Add(-15 * time.Minute)
	if _, err := c.VSANMetrics(ctx, start, end); err == nil || !strings.Contains(err.Error(), "is off: turn it on") {
		t.Fatalf("service off: %v", err)
	}
	l, _ := ledger.Open("")
	c.SetLedger(l)
	if err := c.EnablePerfService(ctx); err != nil {
		t.Fatal(err)
	}
	if on, _ := c.PerfServiceEnabled(ctx); !on {
		t.Fatal("the service is not on")
	}
	in := model.Input{Jobs: []model.JobLoad{{Disks: []model.DiskLoad{{Policy: model.Policy{RAID: "raid1", FTT: 1}}}}}}
	out := model.Output{Read: model.Direction{IOPS: 9000, MBps: 36, LatMeanUs: 500}, Write: model.Direction{IOPS: 1000, MBps: 4, LatMeanUs: 2000},
		Outstanding: 64, CPUPercent: 40}
	run, runEnd := start.Add(5*time.Minute), start.Add(10*time.Minute)
	s.RecordRun(run, runEnd, in, out)
	// The embedded data plane records each host's own load: on the
	// worker's host ESXi's idle CPU plus the run's 40 points, 30 of them
	// vSAN's, its replica's reads and writes; on its other replica's host
	// the other half of the reads and the writes; nothing on a host the
	// run leaves alone.
	s.RecordHostLoad("DC0_C0_H1", run, runEnd, model.HostLoad{CPUPercent: sim.IdleCPUPercent + 40, HostFigures: model.HostFigures{
		CompReadIOPS: 4500, CompWriteIOPS: 2000, CompReadBytesPerSec: 18e6, DeviceUtil: 0.5, VSANCPUPercent: 30, NICRxBytesPerSec: 5e6, NICTxBytesPerSec: 25e6}})
	s.RecordHostLoad("DC0_C0_H2", run, runEnd, model.HostLoad{CPUPercent: sim.IdleCPUPercent + 10, HostFigures: model.HostFigures{
		CompReadIOPS: 4500, CompWriteIOPS: 1000, DeviceUtil: 0.75, VSANCPUPercent: 10}})
	s.RecordHostLoad("DC0_C0_H3", run, runEnd, model.HostLoad{CPUPercent: sim.IdleCPUPercent})
	samples, err := c.VSANMetrics(ctx, start, end)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]float64{}
	for _, x := range samples {
		got[x.Entity+" "+x.Metric] = append(got[x.Entity+" "+x.Metric], x.Value)
	}
	for key, want := range map[string][]float64{
		"DC0_C0 vsan.client.iopsRead":            {0, 9000, 0},
		"DC0_C0 vsan.client.latencyAvgWrite":     {0, 2, 0},
		"DC0_C0 vsan.client.oio":                 {0, 64, 0},
		"DC0_C0 vsan.backend.iopsWrite":          {0, 3000, 0}, // the hosts' together
		"DC0_C0_H1 vsan.backend.iopsWrite":       {0, 2000, 0},
		"DC0_C0_H3 vsan.backend.iopsRead":        {0, 0, 0},
		"DC0_C0_H1 vsan.backend.throughputRead":  {0, 18e6, 0},
		"DC0_C0_H1 vsan.backend.latencyAvgRead":  {0, 0.16, 0},     // 80 us at 50 % busy
		"DC0_C0_H2 vsan.backend.latencyAvgRead":  {0, 0.32, 0},     // at 75 %
		"DC0_C0 vsan.backend.latencyAvgWrite":    {0, 0.64 / 3, 0}, // weighted by the hosts' writes
		"DC0_C0 vsan.backend.oio":                {0, 2.8, 0},      // 6500 IOPS x 0.16 ms + 5500 x 0.32
		"DC0_C0_H3 vsan.backend.latencyAvgWrite": {0, 0, 0},        // no I/O, no latency
		"DC0_C0_H1 vsan.cpu.usedPct":             {0, 30, 0},       // vSAN's, not the guest's
		"DC0_C0_H3 vsan.cpu.usedPct":             {0, 0, 0},
		"DC0_C0_H1 vsan.network.rxThroughput":    {0, 5e6, 0},
		"DC0_C0_H1 vsan.network.txThroughput":    {0, 25e6, 0},
		"DC0_C0_H3 vsan.network.txThroughput":    {0, 0, 0},
		"DC0_C0 vsan.backend.iopsResyncRead":     {0, 0, 0},
	} {
		g := got[key]
		if len(g) != len(want) {
			t.Errorf("%s: %v, want %v", key, g, want)
			continue
		}
		for i := range want {
			if d := g[i] - want[i]; d > 1e-9*max(want[i], 1) || d < -1e-9*max(want[i], 1) {
				t.Errorf("%s: %v, want %v", key, g, want)
				break
			}
		}
	}
	if err := l.Undo(ctx, c.Host(), c.Undoers(), nil); err != nil {
		t.Fatal(err)
	}
	if on, _ := c.PerfServiceEnabled(ctx); on {
		t.Errorf("the undo left the service on")
	}
}

func TestVSANSeriesThatDoNotAddUpAreErrors(t *testing.T) {
	m := vsantypes.VsanPerfEntityMetricCSV{EntityRefId: "cluster-domclient:x", SampleInfo: "2026-12-03 10:00:00,2026-12-03 10:05:00",
		Value: []vsantypes.VsanPerfMetricSeriesCSV{{MetricId: vsantypes.VsanPerfMetricId{Label: "iopsRead"}, Values: "1"}}}
	if _, err := parseVSANSeries(m, "c"); err == nil || !strings.Contains(err.Error(), "has 1 values for 2 sample times") {
		t.Errorf("short series: %v", err)
	}
	m.Value[0].Values = "1,x"
	if _, err := parseVSANSeries(m, "c"); err == nil || !strings.Contains(err.Error(), `value "x" is not a number`) {
		t.Errorf("bad value: %v", err)
	}
	m.SampleInfo = "yesterday,today"
	if _, err := parseVSANSeries(m, "c"); err == nil || !strings.Contains(err.Error(), "sample time") {
		t.Errorf("bad time: %v", err)
	}
}
