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

// vsanLoad is what vSAN's performance service would have measured of the
// VMs' I/O during one simulated run, cluster-wide (cluster-domclient), in
// its units: IOPS, bytes/s, ms. The metrics are an array in the order of
// their labels, not a map: a long campaign keeps thousands of loads
// (maxSpans). The backend view is the hosts' (see hostLoad).
type vsanLoad struct {
	client [len(clientLabels)]float64 // by clientLabels
}

// Where a metric is in the client and backend views (the backend view
// has the client view's labels first).
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
	hostNetLabels = []string{"rxThroughput", "txThroughput"}
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
// end, the client view (cluster-domclient) of what the model predicted
// for a run: its IOPS, throughput, mean latency and outstanding I/O (the
// embedded data plane calls it after every simulated run). The hosts'
// views (host-domcompmgr, and cluster-domcompmgr as their sum; vsan-cpu;
// vsan-host-net) are what it records of each host (RecordHostLoad).
func (s *Sim) RecordRun(start, end time.Time, in model.Input, out model.Output) {
	var load vsanLoad
	c := load.client[:]
	c[iopsRead], c[throughputRead], c[latencyAvgRead] = out.Read.IOPS, out.Read.MBps*1e6, out.Read.LatMeanUs/1000
	c[iopsWrite], c[throughputWrite], c[latencyAvgWrite] = out.Write.IOPS, out.Write.MBps*1e6, out.Write.LatMeanUs/1000
	c[oio] = float64(out.Outstanding)

	s.vsanRuns.mu.Lock()
	defer s.vsanRuns.mu.Unlock()
	// Kept in the order of their ends, as a host's loads are.
	s.vsanRuns.spans = keepByEnd(s.vsanRuns.spans, vsanSpan{start.UnixNano(), end.UnixNano(), load}, func(s vsanSpan) int64 { return s.end })
}

// backend is the backend view (host-domcompmgr) of a host's load l: the
// ops its components serve and their bytes, with the latency of the
// busiest device each direction lands on at its utilisation (an M/M/1
// queue): reads the capacity device, writes too on ESA, OSA's writes the
// disk group's cache device (its write buffer); outstanding I/O by
// Little's law; congestion and resync are 0 (a steady run has neither).
func backend(p *testbed.Profile, l model.HostLoad) [len(backendLabels)]float64 {
	var b [len(backendLabels)]float64
	mm1 := func(us, util float64) float64 { return us / (1 - math.Min(util, 0.95)) / 1000 }
	read := mm1(p.Storage.Capacity.LatencyUs, l.DeviceUtil)
	write := read
	if p.Architecture == "OSA" {
		write = mm1(p.Storage.Cache.LatencyUs, l.CacheUtil)
	}
	b[iopsRead], b[iopsWrite] = l.CompReadIOPS, l.CompWriteIOPS
	b[throughputRead], b[throughputWrite] = l.CompReadBytesPerSec, l.CompWriteBytesPerSec
	if l.CompReadIOPS > 0 {
		b[latencyAvgRead] = read
	}
	if l.CompWriteIOPS > 0 {
		b[latencyAvgWrite] = write
	}
	b[oio] = (l.CompReadIOPS*b[latencyAvgRead] + l.CompWriteIOPS*b[latencyAvgWrite]) / 1000
	return b
}

// sumBackend is the cluster's backend view (cluster-domcompmgr) from its
// hosts' (hosts): rates and outstanding I/O add up, latencies are the
// hosts' weighted by their ops.
func sumBackend(hosts [][len(backendLabels)]float64) [len(backendLabels)]float64 {
	var sum [len(backendLabels)]float64
	for _, b := range hosts {
		for k, v := range b {
			switch k {
			case latencyAvgRead:
				sum[k] += v * b[iopsRead]
			case latencyAvgWrite:
				sum[k] += v * b[iopsWrite]
			default:
				sum[k] += v
			}
		}
	}
	if sum[iopsRead] > 0 {
		sum[latencyAvgRead] /= sum[iopsRead]
	}
	if sum[iopsWrite] > 0 {
		sum[latencyAvgWrite] /= sum[iopsWrite]
	}
	return sum
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
	}
	if busy > 0 {
		for k := range out.client {
			out.client[k] /= busy
		}
	}
	return out
}

// writeBuffers is how full OSA's disk groups' write buffers were over
// time, as the embedded data plane reported it (every group alike: the
// model's hosts are symmetric), in the order of the reports.
type writeBuffers struct {
	mu     sync.Mutex
	states []bufferState
}

// bufferState is the share of each write buffer holding data from an
// instant (Unix nanoseconds) on.
type bufferState struct {
	at   int64
	full float64
}

// RecordWriteBuffer makes the performance service's disk groups report
// their write buffers full fraction full from at on (the embedded data
// plane calls it after every fill, rewrite and run on OSA).
func (s *Sim) RecordWriteBuffer(at time.Time, full float64) {
	s.buffers.mu.Lock()
	defer s.buffers.mu.Unlock()
	s.buffers.states = keepByEnd(s.buffers.states, bufferState{at.UnixNano(), full}, func(b bufferState) int64 { return b.at })
}

// fullAt is the share of each write buffer holding data at t: the last
// state reported by then, 0 before any.
func (b *writeBuffers) fullAt(t time.Time) float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := endingAfter(b.states, t.UnixNano(), func(s bufferState) int64 { return s.at })
	if i == 0 {
		return 0
	}
	return b.states[i-1].full
}

// vsanPerfManager answers VsanPerfQueryPerf from the recorded runs and
// hosts' loads, for the entity types the client asks for:
// cluster-domclient, cluster-domcompmgr, host-domcompmgr, vsan-cpu,
// vsan-host-net, disk-group (wbFreePct, wbSize), dom-world-cpu and
// lsom-world-cpu.
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
	var groups map[string]bool // the disk-group entities, read once a query asks for one
	for _, q := range req.QuerySpecs {
		kind, id, _ := strings.Cut(q.EntityRefId, ":")
		if (kind == "dom-world-cpu" || kind == "lsom-world-cpu") && id == "*" && q.StartTime != nil && q.EndTime != nil {
			res.Returnval = append(res.Returnval, m.worlds(q, kind, hosts)...)
			continue
		}
		if kind == "disk-group" && groups == nil {
			groups = m.diskGroups(ctx)
		}
		if kind == "disk-group" && groups[id] && q.StartTime != nil && q.EndTime != nil {
			res.Returnval = append(res.Returnval, m.sampled(q, kind, func(_, to time.Time) ([]string, []float64) {
				return []string{"wbFreePct", "wbSize"}, []float64{100 * (1 - m.sim.buffers.fullAt(to)), model.WriteBufferBytes(m.sim.Testbed)}
			}))
			continue
		}
		onHost := kind == "host-domcompmgr" || kind == "vsan-cpu" || kind == "vsan-host-net"
		known := kind == "cluster-domclient" || kind == "cluster-domcompmgr" || onHost
		if !known || (onHost && hosts[id] == "") || (!onHost && id != clusterUUID) || q.StartTime == nil || q.EndTime == nil {
			body.Fault_ = simulator.Fault(fmt.Sprintf("entity %q: want cluster-domclient:, cluster-domcompmgr: with the cluster's vSAN UUID, host-domcompmgr:, vsan-cpu:, vsan-host-net: with a host's node UUID, disk-group: with an OSA disk group's cache device's vSAN UUID, or dom-world-cpu:* or lsom-world-cpu:*, and a start and end time", q.EntityRefId),
				&types.InvalidArgument{InvalidProperty: "querySpecs"})
			return body
		}
		res.Returnval = append(res.Returnval, m.series(q, kind, hosts[id], slices.Sorted(maps.Values(hosts))))
	}
	body.Res = res
	return body
}

// diskGroups are the vSAN UUIDs of the cache devices of the hosts' OSA
// disk groups, mounted or not: the disk-group entities. Every group's
// write buffer is as full as the model's (its hosts are symmetric).
func (m *vsanPerfManager) diskGroups(ctx *simulator.Context) map[string]bool {
	ids := map[string]bool{}
	reg := m.sim.model.Map()
	for _, e := range reg.All("HostSystem") {
		h := e.(*simulator.HostSystem)
		if h.ConfigManager.VsanSystem == nil {
			continue
		}
		vs, ok := reg.Get(*h.ConfigManager.VsanSystem).(*hostVsanSystem)
		if !ok {
			continue
		}
		reg.WithLock(ctx, vs, func() { // the lock changeStorage takes (vim25's registry)
			for _, d := range vs.storage.devices {
				if d.cache {
					ids[d.disk.VsanDiskInfo.VsanUuid] = true
				}
			}
		})
	}
	return ids
}

// worlds answers dom-world-cpu:* and lsom-world-cpu:* (every world of
// that kind on every host) from the model's pools of them, under the
// model's names: each host's DOMWorlds DOM worlds DOMPool-<k>, each as busy
// as the host's DOM (the model has one pool, not vSAN's owner, client and
// component-server worlds); its LSOM stations' worlds LSOMPool-<n>
// (LSOMWorlds, station after station), the first station's as busy as the
// host's busiest, the others at the mean of the rest (exact for OSA's two
// disk groups and any even layout). Ready time is 0: the model charges CPU
// ready to the hand-offs of an overcommitted host, not to a world.
func (m *vsanPerfManager) worlds(q vsantypes.VsanPerfQuerySpec, kind string, hosts map[string]string) []vsantypes.VsanPerfEntityMetricCSV {
	var out []vsantypes.VsanPerfEntityMetricCSV
	pools, worlds := 1, model.DOMWorlds(m.sim.Testbed)
	name := func(_, k int) string { return fmt.Sprintf("DOMPool-%d", k) }
	if kind == "lsom-world-cpu" {
		pools, worlds = model.LSOMWorlds(m.sim.Testbed)
		name = func(pool, k int) string { return fmt.Sprintf("LSOMPool-%d", pool*worlds+k) }
	}
	for h, uuid := range slices.Sorted(maps.Keys(hosts)) {
		for pool := range pools {
			for k := range worlds {
				w := q
				w.EntityRefId = fmt.Sprintf("%s:%s|%s|%d", kind, uuid, name(pool, k), 1000000+1000*h+100*pool+k)
				out = append(out, m.worldSeries(w, kind, hosts[uuid], pool, pools))
			}
		}
	}
	return out
}

// worldSeries is one world's runPct, usedPct and readyPct over a query's
// samples: of the host's DOM pool, or of its pool-th LSOM station of pools.
func (m *vsanPerfManager) worldSeries(q vsantypes.VsanPerfQuerySpec, kind, host string, pool, pools int) vsantypes.VsanPerfEntityMetricCSV {
	return m.sampled(q, kind, func(from, to time.Time) ([]string, []float64) {
		l, _ := m.sim.load.at(host, from, to)
		busy := l.DOMUtil
		if kind == "lsom-world-cpu" {
			busy = l.LSOMBusiest
			if pool > 0 {
				busy = (l.LSOMUtil*float64(pools) - l.LSOMBusiest) / float64(pools-1)
			}
		}
		return []string{"readyPct", "runPct", "usedPct"}, []float64{0, 100 * busy, 100 * busy}
	})
}

// series answers one query spec, of host (its name; "" for the cluster,
// whose hosts are all).
func (m *vsanPerfManager) series(q vsantypes.VsanPerfQuerySpec, kind, host string, all []string) vsantypes.VsanPerfEntityMetricCSV {
	return m.sampled(q, kind, func(from, to time.Time) ([]string, []float64) {
		switch kind {
		case "cluster-domclient":
			load := m.sim.vsanRuns.at(from, to)
			return clientLabels[:], load.client[:]
		case "cluster-domcompmgr":
			hosts := make([][len(backendLabels)]float64, len(all))
			for h, name := range all {
				l, _ := m.sim.load.at(name, from, to)
				hosts[h] = backend(m.sim.Testbed, l)
			}
			b := sumBackend(hosts)
			return backendLabels[:], b[:]
		}
		// The host's own: what the embedded data plane recorded of it.
		l, _ := m.sim.load.at(host, from, to)
		switch kind {
		case "host-domcompmgr":
			b := backend(m.sim.Testbed, l)
			return backendLabels[:], b[:]
		case "vsan-cpu":
			return []string{"usedPct", "readyPct"}, []float64{l.VSANCPUPercent, 0}
		default: // vsan-host-net
			return hostNetLabels, []float64{l.NICRxBytesPerSec, l.NICTxBytesPerSec}
		}
	})
}

// sampled answers a query spec with at's labels and values over each
// sample: one every interval (300 s by default) from start to end.
func (m *vsanPerfManager) sampled(q vsantypes.VsanPerfQuerySpec, kind string, at func(from, to time.Time) ([]string, []float64)) vsantypes.VsanPerfEntityMetricCSV {
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
		times = append(times, to.UTC().Format(sampleTimeFormat))
		labels, metrics := at(from, to)
		for j, label := range labels {
			values[label] = append(values[label], strconv.FormatFloat(metrics[j], 'f', -1, 64))
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
