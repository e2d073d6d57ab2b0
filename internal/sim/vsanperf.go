package sim

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
	"github.com/vmware/govmomi/vsan"
	vsanmethods "github.com/vmware/govmomi/vsan/methods"
	vsantypes "github.com/vmware/govmomi/vsan/types"

	"starbench/internal/model"
	"starbench/internal/testbed"
)

// vsanLoad is what vSAN's performance service would have measured during
// one simulated run, cluster-wide, in its units: IOPS, bytes/s, ms. The
// metrics are arrays in the order of their labels, not maps: a long
// campaign keeps thousands of loads (maxSpans), and maps of 8 and 14
// labels took some 1.2 kB a run where the arrays take about 180 bytes.
type vsanLoad struct {
	client  [len(clientLabels)]float64  // by clientLabels
	backend [len(backendLabels)]float64 // by backendLabels
}

// Where a metric is in a load's client and backend arrays (the backend
// view has the client view's labels first).
const (
	iopsRead = iota
	iopsWrite
	throughputRead
	throughputWrite
	latencyAvgRead
	latencyAvgWrite
	congestion
	oio
)

// The labels the simulated performance service serves, by view.
var (
	clientLabels = [...]string{iopsRead: "iopsRead", iopsWrite: "iopsWrite", throughputRead: "throughputRead", throughputWrite: "throughputWrite",
		latencyAvgRead: "latencyAvgRead", latencyAvgWrite: "latencyAvgWrite", congestion: "congestion", oio: "oio"}
	backendLabels = [...]string{iopsRead: "iopsRead", iopsWrite: "iopsWrite", throughputRead: "throughputRead", throughputWrite: "throughputWrite",
		latencyAvgRead: "latencyAvgRead", latencyAvgWrite: "latencyAvgWrite", congestion: "congestion", oio: "oio",
		"iopsResyncRead", "tputResyncRead", "latAvgResyncRead", "iopsRecWrite", "throughputRecWrite", "latencyAvgRecWrite"}
)

// vsanRuns holds the vSAN loads recorded over time.
type vsanRuns struct {
	mu    sync.Mutex
	spans []vsanSpan
}

// vsanSpan is a run's vSAN load between two instants in Unix nanoseconds
// (no pointers: see loadSpan).
type vsanSpan struct {
	start, end int64
	load       vsanLoad
}

// RecordRun makes the vSAN performance service report, between start and
// end, what the model predicted for a run of in (the embedded data plane
// calls it after every simulated run):
//   - the client view (cluster-domclient) is the run's IOPS, throughput,
//     mean latency and outstanding I/O;
//   - the backend view (cluster-domcompmgr, host-domcompmgr, spread evenly
//     over the hosts) counts a component read per guest read and the
//     component writes of each guest write (raid1: one per copy; raid5:
//     data and parity, 2; raid6: 3), with the capacity devices' latency
//     at the utilisation the model found (an M/M/1 queue) and outstanding
//     I/O by Little's law;
//   - vSAN CPU (vsan-cpu usedPct) is the host CPU the model predicted,
//     the workers' guest cycles included: the model does not report
//     vSAN's share of it apart;
//   - congestion and resync are 0: a steady run has neither.
func (s *Sim) RecordRun(start, end time.Time, in model.Input, out model.Output) {
	var load vsanLoad
	// put sets a direction's metrics (read 0, write 1) in a view's metrics m.
	put := func(m []float64, dir int, iops, bytesPerSec, latMs float64) {
		m[iopsRead+dir], m[throughputRead+dir], m[latencyAvgRead+dir] = iops, bytesPerSec, latMs
	}
	put(load.client[:], 0, out.Read.IOPS, out.Read.MBps*1e6, out.Read.LatMeanUs/1000)
	put(load.client[:], 1, out.Write.IOPS, out.Write.MBps*1e6, out.Write.LatMeanUs/1000)
	load.client[oio] = float64(out.Outstanding)

	copies := writeCopies(in)
	devLat := deviceLatencyMs(s.Testbed, out)
	put(load.backend[:], 0, out.Read.IOPS, out.Read.MBps*1e6, devLat)
	put(load.backend[:], 1, out.Write.IOPS*copies, out.Write.MBps*1e6*copies, devLat)
	load.backend[oio] = (load.backend[iopsRead] + load.backend[iopsWrite]) * devLat / 1000

	s.vsanRuns.mu.Lock()
	defer s.vsanRuns.mu.Unlock()
	// Kept in the order of their ends, as a host's loads are.
	s.vsanRuns.spans = keepByEnd(s.vsanRuns.spans, vsanSpan{start.UnixNano(), end.UnixNano(), load}, func(s vsanSpan) int64 { return s.end })
}

// writeCopies is how many component writes a guest write becomes, over
// the run's disks.
func writeCopies(in model.Input) float64 {
	sum, n := 0.0, 0
	for _, j := range in.Jobs {
		for _, d := range j.Disks {
			switch d.Policy.RAID {
			case "raid5":
				sum += 2
			case "raid6":
				sum += 3
			default:
				sum += float64(max(d.Policy.FTT, 0) + 1)
			}
			n++
		}
	}
	if n == 0 {
		return 2 // vSAN's default policy: raid1, ftt 1
	}
	return sum / float64(n)
}

// deviceLatencyMs is the capacity devices' latency at the utilisation the
// model found for them.
func deviceLatencyMs(p *testbed.Profile, out model.Output) float64 {
	u := 0.0
	for _, st := range out.Stations {
		if st.Name == "ssd-capacity" {
			u = st.Util
		}
	}
	return p.Storage.Capacity.LatencyUs / (1 - math.Min(u, 0.95)) / 1000
}

// at is the time-weighted mean load over [from, to), zero when idle. Only
// the spans that end after from are looked at (for the window of the latest
// run, a few of the thousands a long campaign records).
func (r *vsanRuns) at(start, end time.Time) vsanLoad {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out vsanLoad
	busy := 0.0
	from, to := start.UnixNano(), end.UnixNano()
	for _, sp := range r.spans[endingAfter(r.spans, from, func(s vsanSpan) int64 { return s.end }):] {
		d := float64(min(sp.end, to)-max(sp.start, from)) / 1e9
		if d <= 0 {
			continue
		}
		busy += d
		for k, v := range sp.load.client {
			out.client[k] += d * v
		}
		for k, v := range sp.load.backend {
			out.backend[k] += d * v
		}
	}
	if busy > 0 {
		for k := range out.client {
			out.client[k] /= busy
		}
		for k := range out.backend {
			out.backend[k] /= busy
		}
	}
	return out
}

// vsanPerfManager answers VsanPerfQueryPerf from the recorded runs, for the
// entity types the client asks for: cluster-domclient, cluster-domcompmgr,
// host-domcompmgr and vsan-cpu.
type vsanPerfManager struct {
	types.ManagedObjectReference
	sim    *Sim
	config *clusterConfigSystem
}

func newVSANPerfManager(s *Sim, config *clusterConfigSystem) *vsanPerfManager {
	return &vsanPerfManager{ManagedObjectReference: vsan.VsanPerformanceManagerInstance, sim: s, config: config}
}

// sampleTimeFormat is how the performance service writes sample times.
const sampleTimeFormat = "2006-01-02 15:04:05"

func (m *vsanPerfManager) VsanPerfQueryPerf(ctx *simulator.Context, req *vsantypes.VsanPerfQueryPerf) soap.HasFault {
	body := &vsanmethods.VsanPerfQueryPerfBody{}
	if req.Cluster == nil || !m.config.perfEnabled(*req.Cluster) {
		body.Fault_ = simulator.Fault("the vSAN performance service is not enabled", &types.NotFound{})
		return body
	}
	clusterUUID := m.config.info(*req.Cluster).DefaultConfig.Uuid
	// Host names by node UUID (ctx.Map is the vSAN endpoint's, not vim25's).
	hosts := map[string]string{}
	for _, e := range m.sim.model.Map().All("HostSystem") {
		name := e.(*simulator.HostSystem).Name
		hosts[nodeUUID(name)] = name
	}
	res := &vsantypes.VsanPerfQueryPerfResponse{}
	for _, q := range req.QuerySpecs {
		kind, id, _ := strings.Cut(q.EntityRefId, ":")
		onHost := kind == "host-domcompmgr" || kind == "vsan-cpu"
		known := kind == "cluster-domclient" || kind == "cluster-domcompmgr" || onHost
		if !known || (onHost && hosts[id] == "") || (!onHost && id != clusterUUID) || q.StartTime == nil || q.EndTime == nil {
			body.Fault_ = simulator.Fault(fmt.Sprintf("entity %q: want cluster-domclient:, cluster-domcompmgr: with the cluster's vSAN UUID, or host-domcompmgr:, vsan-cpu: with a host's node UUID, and a start and end time", q.EntityRefId),
				&types.InvalidArgument{InvalidProperty: "querySpecs"})
			return body
		}
		res.Returnval = append(res.Returnval, m.series(q, kind, hosts[id], len(hosts)))
	}
	body.Res = res
	return body
}

// series answers one query spec, of host (its name; "" for the cluster):
// samples every interval (300 s by default) from start to end.
func (m *vsanPerfManager) series(q vsantypes.VsanPerfQuerySpec, kind, host string, hosts int) vsantypes.VsanPerfEntityMetricCSV {
	step := time.Duration(q.Interval) * time.Second
	if step <= 0 {
		step = 300 * time.Second
	}
	n := max(int(q.EndTime.Sub(*q.StartTime)/step), 1)
	var times []string
	values := map[string][]string{}
	for i := range n {
		to := q.EndTime.Add(-time.Duration(n-1-i) * step)
		from := to.Add(-step)
		if from.Before(*q.StartTime) {
			from = *q.StartTime
		}
		load := m.sim.vsanRuns.at(from, to)
		times = append(times, to.UTC().Format(sampleTimeFormat))
		labels, metrics := clientLabels[:], load.client[:]
		share := 1.0
		switch kind {
		case "cluster-domcompmgr":
			labels, metrics = backendLabels[:], load.backend[:]
		case "host-domcompmgr":
			labels, metrics, share = backendLabels[:], load.backend[:], 1/float64(hosts)
		case "vsan-cpu":
			// The run's cost on this host: the host's recorded CPU (the
			// embedded data plane's per-host prediction) above ESXi's idle.
			used := max(m.sim.load.cpu(host, from, to)-IdleCPUPercent, 0)
			labels, metrics = []string{"usedPct", "readyPct"}, []float64{used, 0}
		}
		for j, label := range labels {
			v := metrics[j]
			if kind == "host-domcompmgr" && !strings.HasPrefix(label, "latenc") && !strings.HasPrefix(label, "latAvg") {
				v *= share // latencies are per I/O, the rest adds up over hosts
			}
			values[label] = append(values[label], strconv.FormatFloat(v, 'f', -1, 64))
		}
	}
	out := vsantypes.VsanPerfEntityMetricCSV{EntityRefId: q.EntityRefId, SampleInfo: strings.Join(times, ",")}
	for _, label := range slices.Sorted(maps.Keys(values)) {
		if len(q.Labels) > 0 && !slices.Contains(q.Labels, label) {
			continue
		}
		out.Value = append(out.Value, vsantypes.VsanPerfMetricSeriesCSV{
			MetricId: vsantypes.VsanPerfMetricId{Label: label, Group: kind}, Values: strings.Join(values[label], ","),
		})
	}
	return out
}
