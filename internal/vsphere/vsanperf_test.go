package vsphere

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	vsantypes "github.com/vmware/govmomi/vsan/types"

	"starbench/internal/ledger"
	"starbench/internal/model"
	"starbench/internal/sim"
	"starbench/internal/testbed"
)

// TestVSANMetricsReportWhatTheRunsDid: the performance service is off
// until turned on (recorded, and turned off by the undo); then its samples
// show the recorded run in the 5-minute samples it overlaps and idle ones
// around it, for the cluster and for each host, vSAN's CPU on each host its
// own.
func TestVSANMetricsReportWhatTheRunsDid(t *testing.T) {
	p := testbedOf(4, "ESA")
	p.Storage.Capacity.LatencyUs = 80
	p.Model = testbed.DefaultModel("ESA") // its DOM worlds
	p.Storage.CapacityDevices = 4         // and LSOM's, a world a device
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
	s.RecordHostLoad("DC0_C0_H1", run, runEnd, model.HostLoad{CPUPercent: 2 + 40, HostFigures: model.HostFigures{
		CompReadIOPS: 4500, CompWriteIOPS: 2000, CompReadBytesPerSec: 18e6, DeviceUtil: 0.5, DOMUtil: 0.6, LSOMUtil: 0.3, LSOMBusiest: 0.6, VSANCPUPercent: 30, NICRxBytesPerSec: 5e6, NICTxBytesPerSec: 25e6}})
	s.RecordHostLoad("DC0_C0_H2", run, runEnd, model.HostLoad{CPUPercent: 2 + 10, HostFigures: model.HostFigures{
		CompReadIOPS: 4500, CompWriteIOPS: 1000, DeviceUtil: 0.75, VSANCPUPercent: 10}})
	s.RecordHostLoad("DC0_C0_H3", run, runEnd, model.HostLoad{CPUPercent: 2})
	samples, err := c.VSANMetrics(ctx, start, end)
	if err != nil {
		t.Fatal(err)
	}
	worlds := float64(model.DOMWorlds(p))
	if worlds < 1 {
		t.Fatalf("%g DOM worlds a host", worlds)
	}
	got := byMetric(samples)
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
		// Each host's DOM worlds, the model's one pool of them: on the
		// worker's host each 60 % busy while the run lasts.
		"DC0_C0_H1 vsan.domworlds.DOMPool.count":         {worlds, worlds, worlds},
		"DC0_C0_H1 vsan.domworlds.DOMPool.runPct":        {0, 60 * worlds, 0},
		"DC0_C0_H1 vsan.domworlds.DOMPool.busiestRunPct": {0, 60, 0},
		"DC0_C0_H1 vsan.domworlds.DOMPool.readyPct":      {0, 0, 0},
		"DC0_C0_H3 vsan.domworlds.DOMPool.runPct":        {0, 0, 0},
		// Its LSOM worlds, one a device: the busiest device's at 60 %, the
		// other three at 20 % (a mean of 30 %).
		"DC0_C0_H1 vsan.lsomworlds.LSOMPool.count":         {4, 4, 4},
		"DC0_C0_H1 vsan.lsomworlds.LSOMPool.runPct":        {0, 120, 0},
		"DC0_C0_H1 vsan.lsomworlds.LSOMPool.busiestRunPct": {0, 60, 0},
		"DC0_C0_H3 vsan.lsomworlds.LSOMPool.runPct":        {0, 0, 0},
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

// On OSA each disk group reports how full its write buffer is
// (disk-group:<cache device's vSAN UUID>, wbFreePct), which the client
// gives per host as the mean over its groups and the fullest group's: on
// the simulator, as the model's buffers were last reported by each sample
// (empty before any run, 30 % full after one, and still 30 % full in the
// idle sample after). An ESA cluster has no disk groups to report.
func TestVSANMetricsReportOSAWriteBuffers(t *testing.T) {
	osa := withDisks(testbedOf(3, "OSA"))
	osa.Model = testbed.DefaultModel("OSA") // its write buffer limits
	s, c := startSim(t, sim.Options{Testbed: osa})
	ctx := context.Background()
	if err := c.EnablePerfService(ctx); err != nil {
		t.Fatal(err)
	}
	end := time.Now().UTC().Truncate(time.Minute)
	start := end.Add(-15 * time.Minute)
	s.RecordWriteBuffer(start.Add(10*time.Minute), 0.3) // a run ending then left them 30 % full
	samples, err := c.VSANMetrics(ctx, start, end)
	if err != nil {
		t.Fatal(err)
	}
	got := byMetric(samples)
	size := model.WriteBufferBytes(osa) // the 400 GB cache device
	for _, h := range []string{"DC0_C0_H0", "DC0_C0_H1", "DC0_C0_H2"} {
		for _, m := range []string{"vsan.diskgroup.wbFreePct", "vsan.diskgroup.wbFreePctMin"} {
			if g := got[h+" "+m]; !reflect.DeepEqual(g, []float64{100, 70, 70}) {
				t.Errorf("%s %s: %v, want 100 before the run and 70 from its end", h, m, g)
			}
		}
		if g := got[h+" vsan.diskgroup.wbSize"]; !reflect.DeepEqual(g, []float64{size, size, size}) || size != 400e9 {
			t.Errorf("%s vsan.diskgroup.wbSize: %v, want the model's buffer, %g bytes", h, g, size)
		}
	}
	_, esa := startSim(t, sim.Options{Testbed: withDisks(testbedOf(3, "ESA"))})
	if err := esa.EnablePerfService(ctx); err != nil {
		t.Fatal(err)
	}
	samples, err = esa.VSANMetrics(ctx, start, end)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range samples {
		if strings.HasPrefix(x.Metric, "vsan.diskgroup.") {
			t.Fatalf("an ESA cluster reports %s on %s; want no disk groups", x.Metric, x.Entity)
		}
	}
}

// A real cluster's disk groups differ: per host and sample the mean of its
// groups' wbFreePct and the least of them; a group of a host not in the
// cluster is left out.
func TestDiskGroupsAddUpByHost(t *testing.T) {
	series := func(id, values string) vsantypes.VsanPerfEntityMetricCSV {
		return vsantypes.VsanPerfEntityMetricCSV{EntityRefId: "disk-group:" + id, SampleInfo: "2026-12-03 10:00:00,2026-12-03 10:05:00",
			Value: []vsantypes.VsanPerfMetricSeriesCSV{{MetricId: vsantypes.VsanPerfMetricId{Label: "wbFreePct"}, Values: values}}}
	}
	sized := series("a1", "80,100")
	sized.Value = append(sized.Value, vsantypes.VsanPerfMetricSeriesCSV{MetricId: vsantypes.VsanPerfMetricId{Label: "wbSize"}, Values: "600,600"})
	samples, err := diskGroupSamples([]vsantypes.VsanPerfEntityMetricCSV{sized, series("a2", "40,90"), series("b1", "70,70"), series("x", "0,0")},
		map[string]string{"a1": "esx-a", "a2": "esx-a", "b1": "esx-b"})
	if err != nil {
		t.Fatal(err)
	}
	got := byMetric(samples)
	for key, want := range map[string][]float64{
		"esx-a vsan.diskgroup.wbFreePct":    {60, 95},
		"esx-a vsan.diskgroup.wbFreePctMin": {40, 90},
		"esx-b vsan.diskgroup.wbFreePct":    {70, 70},
		"esx-a vsan.diskgroup.wbSize":       {600, 600}, // the mean of the groups that report it
	} {
		g := slices.Clone(got[key])
		slices.Sort(g)
		slices.Sort(want)
		if !reflect.DeepEqual(g, want) {
			t.Errorf("%s: %v, want %v", key, got[key], want)
		}
	}
	if len(got) != 5 {
		t.Errorf("%d series %v; want wbFreePct and its least for each of the 2 hosts and esx-a's wbSize, none for the group of no host", len(got), got)
	}
}

func TestVSANSeriesThatDoNotAddUpAreErrors(t *testing.T) {
	m := vsantypes.VsanPerfEntityMetricCSV{EntityRefId: "cluster-domclient:x", SampleInfo: "2026-12-03 10:00:00,2026-12-03 10:05:00",
		Value: []vsantypes.VsanPerfMetricSeriesCSV{{MetricId: vsantypes.VsanPerfMetricId{Label: "iopsRead"}, Values: "1"}}}
	if _, err := parseVSANSeries(m, "c", "vsan.client."); err == nil || !strings.Contains(err.Error(), "has 1 values for 2 sample times") {
		t.Errorf("short series: %v", err)
	}
	m.Value[0].Values = "1,x"
	if _, err := parseVSANSeries(m, "c", "vsan.client."); err == nil || !strings.Contains(err.Error(), `value "x" is not a number`) {
		t.Errorf("bad value: %v", err)
	}
	m.SampleInfo = "yesterday,today"
	if _, err := parseVSANSeries(m, "c", "vsan.client."); err == nil || !strings.Contains(err.Error(), "sample time") {
		t.Errorf("bad time: %v", err)
	}
}

// A real cluster's dom-world-cpu entities name each world of each host
// ("dom-world-cpu:<node UUID>|<world name>|<world id>"): they add up by
// host and kind of world (the name's last part), the busiest world kept
// apart; worlds of other hosts and ids of another shape are left out.
func TestWorldsAddUpByHostAndKind(t *testing.T) {
	world := func(id, run string) vsantypes.VsanPerfEntityMetricCSV {
		return vsantypes.VsanPerfEntityMetricCSV{EntityRefId: "dom-world-cpu:" + id, SampleInfo: "2026-12-03 10:00:00,2026-12-03 10:05:00",
			Value: []vsantypes.VsanPerfMetricSeriesCSV{{MetricId: vsantypes.VsanPerfMetricId{Label: "runPct"}, Values: run},
				{MetricId: vsantypes.VsanPerfMetricId{Label: "readyPct"}, Values: "1,2"}}}
	}
	samples, err := worldSamples([]vsantypes.VsanPerfEntityMetricCSV{
		world("u1|VSAN_0x4a_Owner|1001", "50,80"), world("u1|VSAN_0x4b_Owner|1002", "30,20"), world("u1|VSAN_0x4c_Client|1003", "10,10"),
		world("u2|VSAN_0x4a_Owner|2001", "5,5"), world("u9|VSAN_0x4a_Owner|9001", "99,99"), world("u1", "99,99"),
	}, map[string]string{"u1": "esx-1", "u2": "esx-2"}, "domworlds")
	if err != nil {
		t.Fatal(err)
	}
	got := byMetric(samples)
	for _, v := range got {
		slices.Sort(v) // the two sample times, in any order
	}
	want := map[string][]float64{
		"esx-1 vsan.domworlds.Owner.count":          {2, 2},
		"esx-1 vsan.domworlds.Owner.runPct":         {80, 100},
		"esx-1 vsan.domworlds.Owner.busiestRunPct":  {50, 80},
		"esx-1 vsan.domworlds.Owner.readyPct":       {2, 4},
		"esx-1 vsan.domworlds.Client.count":         {1, 1},
		"esx-1 vsan.domworlds.Client.runPct":        {10, 10},
		"esx-1 vsan.domworlds.Client.busiestRunPct": {10, 10},
		"esx-1 vsan.domworlds.Client.readyPct":      {1, 2},
		"esx-2 vsan.domworlds.Owner.count":          {1, 1},
		"esx-2 vsan.domworlds.Owner.runPct":         {5, 5},
		"esx-2 vsan.domworlds.Owner.busiestRunPct":  {5, 5},
		"esx-2 vsan.domworlds.Owner.readyPct":       {1, 2},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DOM worlds by host and kind:\n%v\nwant\n%v", got, want)
	}
	for name, kind := range map[string]string{"VSAN_0x4307_CompServer": "CompServer", "DOMPool-12": "DOMPool", "LLOGHelper": "LLOGHelper", "VSAN_0x52_PLOG": "PLOG", "LSOMHelper-3": "LSOMHelper"} {
		if got := worldKind(name); got != kind {
			t.Errorf("world %s: kind %q, want %q", name, got, kind)
		}
	}
}

// byMetric is each entity's series of each metric ("<entity> <metric>"),
// in the samples' order.
func byMetric(samples []VSANSample) map[string][]float64 {
	got := map[string][]float64{}
	for _, x := range samples {
		got[x.Entity+" "+x.Metric] = append(got[x.Entity+" "+x.Metric], x.Value)
	}
	return got
}
