package vsphere

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
	"github.com/vmware/govmomi/vsan"
	vsanmethods "github.com/vmware/govmomi/vsan/methods"
	vsantypes "github.com/vmware/govmomi/vsan/types"

	"starbench/internal/ledger"
	"starbench/internal/vsphere/vsanext"
)

// KindPerfService is the ledger kind of the vSAN performance service
// turned on by starbench.
const KindPerfService = "vsan-performance"

// VSANSample is one sample of a vSAN performance service metric.
type VSANSample struct {
	Entity string // the cluster's name, or a host's
	// Metric is "vsan." + the view ("client": what the VMs see;
	// "backend": vSAN's own I/O; "cpu"; "network": the host's vSAN
	// VMkernel traffic) + "." + vSAN's metric label, e.g.
	// "vsan.backend.latencyAvgWrite".
	Metric string
	Time   time.Time
	Value  float64 // in vSAN's units: IOPS, bytes/s (throughput), ms, percent, count
}

// vsanViews are the performance service's entity types starbench reads,
// with the labels it keeps (VMware's vSAN Management API reference,
// VsanPerformanceManager.VsanPerfQueryPerf, lists them by entity type:
// https://developer.broadcom.com/xapis/vsan-management-api/latest/vim.cluster.VsanPerformanceManager.html).
var vsanViews = []struct {
	entity, view string
	perHost      bool
	labels       []string
}{
	{"cluster-domclient", "client", false, []string{"iopsRead", "iopsWrite", "throughputRead", "throughputWrite", "latencyAvgRead", "latencyAvgWrite", "congestion", "oio"}},
	{"cluster-domcompmgr", "backend", false, backendLabels},
	{"host-domcompmgr", "backend", true, backendLabels},
	{"vsan-cpu", "cpu", true, []string{"usedPct"}},
	{"vsan-host-net", "network", true, []string{"rxThroughput", "txThroughput"}},
}

var backendLabels = []string{"iopsRead", "iopsWrite", "throughputRead", "throughputWrite", "latencyAvgRead", "latencyAvgWrite",
	"congestion", "oio", "iopsResyncRead", "tputResyncRead", "latAvgResyncRead", "iopsRecWrite", "throughputRecWrite", "latencyAvgRecWrite"}

// PerfServiceEnabled says whether the cluster's vSAN performance service is on.
func (c *Client) PerfServiceEnabled(ctx context.Context) (bool, error) {
	cfg, err := c.vsanConfig(ctx)
	if err != nil {
		return false, err
	}
	return cfg.PerfsvcConfig != nil && cfg.PerfsvcConfig.Enabled, nil
}

// EnablePerfService turns the cluster's vSAN performance service on (it
// collects from then on), recorded in the ledger so that a cleanup turns
// it off again; a service already on is left as it is.
func (c *Client) EnablePerfService(ctx context.Context) error {
	on, err := c.PerfServiceEnabled(ctx)
	if err != nil || on {
		return err
	}
	if _, err := c.record(ledger.Entry{Kind: KindPerfService, Name: c.cluster.Name(), Before: json.RawMessage(`{"enabled":false}`)}); err != nil {
		return err
	}
	return c.setPerfService(ctx, true)
}

func (c *Client) setPerfService(ctx context.Context, on bool) error {
	spec := vsanext.ReconfigSpec{}
	spec.PerfsvcConfig = &vsantypes.VsanPerfsvcConfig{Enabled: on}
	if err := c.reconfigureVSAN(ctx, "set the vSAN performance service of cluster", spec); err != nil {
		return err
	}
	if got, err := c.PerfServiceEnabled(ctx); err != nil || got != on {
		return fmt.Errorf("the vSAN performance service of cluster %s did not turn %s (reads back %v, %v)", c.cluster.Name(), map[bool]string{true: "on", false: "off"}[on], got, err)
	}
	return nil
}

// undoPerfService turns the performance service off again.
func (c *Client) undoPerfService(ctx context.Context, e ledger.Entry) (string, error) {
	if err := c.setPerfService(ctx, false); err != nil {
		return "", err
	}
	return ledger.Restored, nil
}

// VSANMetrics reads the vSAN performance service between start and end
// for the cluster (client and backend views) and each host (backend view,
// vSAN CPU, vSAN network, its DOM and LSOM worlds: worldSamples). The service
// keeps a sample every 5 minutes.
func (c *Client) VSANMetrics(ctx context.Context, start, end time.Time) ([]VSANSample, error) {
	if !end.After(start) {
		return nil, fmt.Errorf("end (%s) must be after start (%s)", end.Format(time.RFC3339), start.Format(time.RFC3339))
	}
	cfg, err := c.vsanConfig(ctx)
	if err != nil {
		return nil, err
	}
	if cfg.PerfsvcConfig == nil || !cfg.PerfsvcConfig.Enabled {
		return nil, fmt.Errorf("the vSAN performance service of cluster %s is off: turn it on with vsphere.vsan_performance(enable=True) before the runs it should measure", c.cluster.Name())
	}
	if cfg.DefaultConfig == nil || cfg.DefaultConfig.Uuid == "" {
		return nil, fmt.Errorf("cluster %s reports no vSAN cluster UUID", c.cluster.Name())
	}
	hosts, err := c.hosts(ctx, "config.vsanHostConfig", "configManager.vsanSystem")
	if err != nil {
		return nil, err
	}
	nodes := map[string]string{} // node UUID -> host name
	for _, h := range hosts {
		if h.Config == nil || h.Config.VsanHostConfig == nil || h.Config.VsanHostConfig.ClusterInfo == nil {
			return nil, fmt.Errorf("host %s reports no vSAN node UUID: is it in the vSAN cluster?", h.Name)
		}
		nodes[h.Config.VsanHostConfig.ClusterInfo.NodeUuid] = h.Name
	}
	type entityOf struct{ name, prefix string }
	entity := map[string]entityOf{} // by entityRefId: its name and its metrics' prefix
	var specs []vsantypes.VsanPerfQuerySpec
	for _, v := range vsanViews {
		ids := map[string]string{cfg.DefaultConfig.Uuid: c.cluster.Name()}
		if v.perHost {
			ids = nodes
		}
		for id, name := range ids {
			ref := v.entity + ":" + id
			entity[ref] = entityOf{name, "vsan." + v.view + "."}
			specs = append(specs, vsantypes.VsanPerfQuerySpec{EntityRefId: ref, StartTime: &start, EndTime: &end, Labels: v.labels})
		}
	}
	cluster := c.cluster.Reference()
	res, err := vsanmethods.VsanPerfQueryPerf(ctx, c.vsan, &vsantypes.VsanPerfQueryPerf{
		This: vsan.VsanPerformanceManagerInstance, Cluster: &cluster, QuerySpecs: specs,
	})
	if err != nil {
		return nil, fmt.Errorf("querying the vSAN performance service of cluster %s: %w", c.cluster.Name(), err)
	}
	var out []VSANSample
	for _, m := range res.Returnval {
		e := entity[m.EntityRefId]
		samples, err := parseVSANSeries(m, e.name, e.prefix)
		if err != nil {
			return nil, err
		}
		out = append(out, samples...)
	}
	// Asked apart: a release whose service has no per-world entity fails
	// that query alone, and its runs keep the views above.
	for _, family := range worldFamilies {
		worlds, err := vsanmethods.VsanPerfQueryPerf(ctx, c.vsan, &vsantypes.VsanPerfQueryPerf{
			This: vsan.VsanPerformanceManagerInstance, Cluster: &cluster,
			QuerySpecs: []vsantypes.VsanPerfQuerySpec{{EntityRefId: family.entity + ":*", StartTime: &start, EndTime: &end, Labels: worldLabels}},
		})
		if err != nil {
			continue
		}
		samples, err := worldSamples(worlds.Returnval, nodes, family.metric)
		if err != nil {
			return nil, err
		}
		out = append(out, samples...)
	}
	buffers, err := c.writeBufferSamples(ctx, cluster, hosts, start, end)
	if err != nil {
		return nil, err
	}
	out = append(out, buffers...)
	slices.SortFunc(out, func(a, b VSANSample) int {
		return cmp.Or(strings.Compare(a.Entity, b.Entity), strings.Compare(a.Metric, b.Metric), a.Time.Compare(b.Time))
	})
	return out, nil
}

// parseVSANSeries reads one entity's CSV series as samples of name, each
// metric prefix + vSAN's label: sample times in SampleInfo, one value per
// time in each metric's Values.
func parseVSANSeries(m vsantypes.VsanPerfEntityMetricCSV, name, prefix string) ([]VSANSample, error) {
	var times []time.Time
	if m.SampleInfo != "" {
		for _, s := range strings.Split(m.SampleInfo, ",") {
			t, err := time.ParseInLocation("2006-01-02 15:04:05", strings.TrimSpace(s), time.UTC)
			if err != nil {
				return nil, fmt.Errorf("vSAN performance sample time %q of %s: %w", s, m.EntityRefId, err)
			}
			times = append(times, t)
		}
	}
	var out []VSANSample
	for _, series := range m.Value {
		values := strings.Split(series.Values, ",")
		if series.Values == "" || len(values) != len(times) {
			return nil, fmt.Errorf("vSAN performance metric %s of %s has %d values for %d sample times", series.MetricId.Label, m.EntityRefId, len(values), len(times))
		}
		for i, s := range values {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return nil, fmt.Errorf("vSAN performance metric %s of %s: value %q is not a number", series.MetricId.Label, m.EntityRefId, s)
			}
			out = append(out, VSANSample{Entity: name, Metric: prefix + series.MetricId.Label, Time: times[i], Value: v})
		}
	}
	return out, nil
}

// worldLabels are the per-world CPU figures of the performance service's
// world entities, in percent of one core.
var worldLabels = []string{"runPct", "readyPct"}

// writeBufferSamples reads how full OSA's disk groups' write buffers are
// (the disk-group entities' wbFreePct and wbSize) and gives them per host
// and sample time (diskGroupSamples). An ESA cluster has no disk groups
// and gives none; asked apart, like the worlds, so that a service without
// the entity keeps the other views.
func (c *Client) writeBufferSamples(ctx context.Context, cluster types.ManagedObjectReference, hosts []mo.HostSystem, start, end time.Time) ([]VSANSample, error) {
	var systems []types.ManagedObjectReference
	for _, h := range hosts {
		if h.ConfigManager.VsanSystem != nil {
			systems = append(systems, *h.ConfigManager.VsanSystem)
		}
	}
	if len(systems) == 0 {
		return nil, nil
	}
	var storage []mo.HostVsanSystem
	if err := property.DefaultCollector(c.vim).Retrieve(ctx, systems, []string{"config.storageInfo", "config.hostSystem"}, &storage); err != nil {
		return nil, fmt.Errorf("reading the hosts' vSAN disk groups: %w", err)
	}
	names := map[types.ManagedObjectReference]string{}
	for _, h := range hosts {
		names[h.Reference()] = h.Name
	}
	hostOf := map[string]string{} // disk-group entity id (its cache device's vSAN UUID) -> host name
	var specs []vsantypes.VsanPerfQuerySpec
	for _, vs := range storage {
		if vs.Config.StorageInfo == nil || vs.Config.HostSystem == nil {
			continue
		}
		for _, g := range vs.Config.StorageInfo.DiskMapping {
			if g.Ssd.VsanDiskInfo == nil {
				continue
			}
			id := g.Ssd.VsanDiskInfo.VsanUuid
			hostOf[id] = names[*vs.Config.HostSystem]
			specs = append(specs, vsantypes.VsanPerfQuerySpec{EntityRefId: "disk-group:" + id, StartTime: &start, EndTime: &end, Labels: []string{"wbFreePct", "wbSize"}})
		}
	}
	if len(specs) == 0 {
		return nil, nil
	}
	res, err := vsanmethods.VsanPerfQueryPerf(ctx, c.vsan, &vsantypes.VsanPerfQueryPerf{This: vsan.VsanPerformanceManagerInstance, Cluster: &cluster, QuerySpecs: specs})
	if err != nil {
		return nil, nil // a service without disk-group entities: the other views stand
	}
	return diskGroupSamples(res.Returnval, hostOf)
}

// diskGroupSamples gives the disk groups' series (entities
// "disk-group:<cache device's vSAN UUID>") per host of hostOf and sample
// time: vsan.diskgroup.wbFreePct and wbSize (bytes), the means over the
// host's groups, and vsan.diskgroup.wbFreePctMin, its fullest group's. A
// group of a host not in hostOf is left out.
func diskGroupSamples(series []vsantypes.VsanPerfEntityMetricCSV, hostOf map[string]string) ([]VSANSample, error) {
	type key struct {
		host, metric string
		at           time.Time
	}
	sum, least, groups := map[key]float64{}, map[key]float64{}, map[key]float64{}
	for _, m := range series {
		_, id, _ := strings.Cut(m.EntityRefId, ":")
		if hostOf[id] == "" {
			continue
		}
		samples, err := parseVSANSeries(m, hostOf[id], "vsan.diskgroup.")
		if err != nil {
			return nil, err
		}
		for _, x := range samples {
			k := key{x.Entity, x.Metric, x.Time}
			if groups[k] == 0 || x.Value < least[k] {
				least[k] = x.Value
			}
			sum[k] += x.Value
			groups[k]++
		}
	}
	out := make([]VSANSample, 0, 2*len(sum))
	for k, v := range sum {
		out = append(out, VSANSample{Entity: k.host, Metric: k.metric, Time: k.at, Value: v / groups[k]})
		if k.metric == "vsan.diskgroup.wbFreePct" {
			out = append(out, VSANSample{Entity: k.host, Metric: k.metric + "Min", Time: k.at, Value: least[k]})
		}
	}
	return out, nil
}

// worldFamilies are the performance service's per-world CPU entities
// starbench reads, and the metric family each becomes: the DOM's worlds
// and LSOM's (OSA's PLOG and LLOG elevators and their helpers).
var worldFamilies = []struct{ entity, metric string }{
	{"dom-world-cpu", "domworlds"},
	{"lsom-world-cpu", "lsomworlds"},
}

// worldSamples sums the performance service's per-world CPU (entities
// "<entity>:<node UUID>|<world name>|<world id>") by host and kind of
// world (worldKind: VSAN_<n>_Owner, _Client, _CompServer for the DOM's
// owner, client and component server; VSAN_<n>_PLOG, LSOMHelper-<n>; the
// simulator's pools DOMPool-<n> and LSOMPool-<n>): per host, kind and
// sample time, vsan.<family>.<kind>.count (the worlds reported), .runPct
// and .readyPct (summed: 250 is two and a half cores' worth) and
// .busiestRunPct (the busiest world's). How many worlds run and how busy
// each is are what the model's dom_worlds_per_host, device_worlds and
// diskgroup_worlds stand for.
func worldSamples(series []vsantypes.VsanPerfEntityMetricCSV, nodes map[string]string, family string) ([]VSANSample, error) {
	type key struct {
		host, metric string
		at           time.Time
	}
	sums := map[key]float64{}
	for _, m := range series {
		_, id, _ := strings.Cut(m.EntityRefId, ":")
		parts := strings.Split(id, "|")
		host := nodes[parts[0]]
		if len(parts) != 3 || host == "" {
			continue // a world of a host not in the cluster, or an id of another shape
		}
		prefix := "vsan." + family + "." + worldKind(parts[1]) + "."
		samples, err := parseVSANSeries(m, host, prefix)
		if err != nil {
			return nil, err
		}
		counted := map[time.Time]bool{}
		for _, x := range samples {
			sums[key{host, x.Metric, x.Time}] += x.Value
			if x.Metric == prefix+"runPct" {
				busiest := key{host, prefix + "busiestRunPct", x.Time}
				sums[busiest] = math.Max(sums[busiest], x.Value)
			}
			if !counted[x.Time] {
				counted[x.Time] = true
				sums[key{host, prefix + "count", x.Time}]++
			}
		}
	}
	out := make([]VSANSample, 0, len(sums))
	for k, v := range sums {
		out = append(out, VSANSample{Entity: k.host, Metric: k.metric, Time: k.at, Value: v})
	}
	return out, nil
}

// worldKind is what kind of world (DOM, LSOM) a name says: the part after
// its last underscore (VSAN_0x1_Owner: Owner), or the name without a
// trailing -<number> (DOMPool-3: DOMPool).
func worldKind(name string) string {
	if i := strings.LastIndexByte(name, '_'); i >= 0 && i < len(name)-1 {
		return name[i+1:]
	}
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			return name[:i]
		}
	}
	return name
}
