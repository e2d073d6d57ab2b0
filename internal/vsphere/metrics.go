package vsphere

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vmware/govmomi/performance"
	"github.com/vmware/govmomi/vim25/types"
)

// perfManager returns the client's PerformanceManager, which keeps the
// counter definitions it read (they change only with a vCenter upgrade).
func (c *Client) perfManager() *performance.Manager {
	c.perfOnce.Do(func() { c.perf = performance.NewManager(c.vim) })
	return c.perf
}

// HostSample is one host's usage over one sampling interval.
type HostSample struct {
	Host          string
	Time          time.Time // end of the interval
	CPUPercent    float64
	MemoryPercent float64
	// The host's network traffic, every NIC together, received and
	// transmitted and both (net.usage), in vSphere's KBps (1024 bytes/s).
	NetReceivedKBps, NetTransmittedKBps, NetUsageKBps float64
}

// hostCounters are the PerformanceManager counters HostMetrics reads.
var hostCounters = []string{"cpu.usage.average", "mem.usage.average", "net.usage.average", "net.received.average", "net.transmitted.average"}

// metricsInterval is vCenter's real-time sampling interval.
const metricsInterval = 20 * time.Second

// HostMetrics reads CPU, memory and network usage of hosts (nil = all of
// the cluster's) between start and end from the PerformanceManager, in 20 s
// samples. vCenter keeps real-time samples for about an hour.
func (c *Client) HostMetrics(ctx context.Context, hosts []string, start, end time.Time) ([]HostSample, error) {
	if !end.After(start) {
		return nil, fmt.Errorf("end (%s) must be after start (%s)", end.Format(time.RFC3339), start.Format(time.RFC3339))
	}
	all, err := c.hostNames(ctx)
	if err != nil {
		return nil, err
	}
	var refs []types.ManagedObjectReference
	names := map[types.ManagedObjectReference]string{}
	var known []string
	for _, h := range all {
		known = append(known, h.Name)
		if len(hosts) == 0 || slices.Contains(hosts, h.Name) {
			refs = append(refs, h.Self)
			names[h.Self] = h.Name
		}
	}
	for _, h := range hosts {
		if !slices.Contains(known, h) {
			return nil, fmt.Errorf("no host %q in cluster %s: want one of %s", h, c.cluster.Name(), strings.Join(known, ", "))
		}
	}
	samples := int32(end.Sub(start) / metricsInterval)
	spec := types.PerfQuerySpec{
		StartTime: &start, EndTime: &end,
		IntervalId: int32(metricsInterval / time.Second),
		MaxSample:  max(samples, 1),
		MetricId:   []types.PerfMetricId{{Instance: ""}},
	}
	m := c.perfManager()
	raw, err := m.SampleByName(ctx, spec, hostCounters, refs)
	if err != nil {
		return nil, fmt.Errorf("querying host metrics: %w", err)
	}
	series, err := m.ToMetricSeries(ctx, raw)
	if err != nil {
		return nil, fmt.Errorf("reading host metrics: %w", err)
	}
	var out []HostSample
	for _, em := range series {
		name := names[em.Entity]
		rows := make([]HostSample, len(em.SampleInfo))
		for i, si := range em.SampleInfo {
			rows[i] = HostSample{Host: name, Time: si.Timestamp}
		}
		for _, v := range em.Value {
			for i, x := range v.Value {
				if i >= len(rows) {
					break
				}
				switch v.Name {
				case "cpu.usage.average":
					rows[i].CPUPercent = float64(x) / 100
				case "mem.usage.average":
					rows[i].MemoryPercent = float64(x) / 100
				case "net.usage.average":
					rows[i].NetUsageKBps = float64(x)
				case "net.received.average":
					rows[i].NetReceivedKBps = float64(x)
				case "net.transmitted.average":
					rows[i].NetTransmittedKBps = float64(x)
				}
			}
		}
		out = append(out, rows...)
	}
	slices.SortFunc(out, func(a, b HostSample) int {
		if c := strings.Compare(a.Host, b.Host); c != 0 {
			return c
		}
		return a.Time.Compare(b.Time)
	})
	return out, nil
}
