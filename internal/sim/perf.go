package sim

import (
	"math"
	"slices"
	"sync"
	"time"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"

	"starbench/internal/model"
)

// esxiMemoryPercent is the memory usage of ESXi itself, in percent.
const esxiMemoryPercent = 4.0

// hostLoad holds what each host did over time: its CPU and what the
// embedded data plane predicted of it besides (model.HostLoad); idle is
// the CPU % a host reports when no load was recorded (the testbed's
// host_idle_cpu_percent, which the embedded data plane also records for
// a host a run leaves idle).
type hostLoad struct {
	mu   sync.Mutex
	runs map[string][]loadSpan
	idle float64
}

// loadSpan is a load between two instants in Unix nanoseconds: a span
// without pointers, so that the garbage collector never looks into the
// 10,000 a host keeps (as time.Time values, each span held two).
type loadSpan struct {
	start, end int64
	load       model.HostLoad
}

// maxSpans bounds the history kept per host.
const maxSpans = 10000

func newHostLoad(idle float64) *hostLoad {
	return &hostLoad{runs: map[string][]loadSpan{}, idle: idle}
}

// record notes a load, keeping a host's spans in the order of their ends
// (runs are recorded as they end, so a span almost always goes last).
func (h *hostLoad) record(host string, start, end time.Time, l model.HostLoad) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.runs[host] = keepByEnd(h.runs[host], loadSpan{start.UnixNano(), end.UnixNano(), l}, func(s loadSpan) int64 { return s.end })
}

// keepByEnd inserts span into spans (in the order of their ends) and keeps
// the last maxSpans of them.
func keepByEnd[S any](spans []S, span S, end func(S) int64) []S {
	i := len(spans)
	for i > 0 && end(spans[i-1]) > end(span) {
		i--
	}
	spans = slices.Insert(spans, i, span)
	if len(spans) > maxSpans {
		spans = spans[len(spans)-maxSpans:]
	}
	return spans
}

// at returns the load of host over [start, end): the time-weighted mean of
// the recorded loads that overlap it, and false when none does. Idle gaps
// within the window do not dilute a load, because simulated runs take far
// less wall time than the runs they stand for. Only the spans that end
// after start are looked at: for the window of the latest run, a few of
// the thousands a long campaign records.
func (h *hostLoad) at(host string, start, end time.Time) (model.HostLoad, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	spans := h.runs[host]
	from, to := start.UnixNano(), end.UnixNano()
	busy, n := 0.0, 0
	var sum, last model.HostLoad
	for _, s := range spans[endingAfter(spans, from, func(s loadSpan) int64 { return s.end }):] {
		if d := float64(min(s.end, to) - max(s.start, from)); d > 0 {
			busy += d
			sum.Add(s.load, d)
			last, n = s.load, n+1
		}
	}
	switch n {
	case 0:
		return model.HostLoad{}, false
	case 1:
		return last, true // as recorded: x d / d need not give x back
	}
	var mean model.HostLoad
	mean.Add(sum, 1/busy)
	return mean, true
}

// cpu returns the CPU usage of host over [start, end) (see at), or idle
// when no load was recorded then.
func (h *hostLoad) cpu(host string, start, end time.Time) float64 {
	if l, ok := h.at(host, start, end); ok {
		return l.CPUPercent
	}
	return h.idle
}

// endingAfter is the index of the first of spans (in the order of their
// ends) that ends after t.
func endingAfter[S any](spans []S, t int64, end func(S) int64) int {
	i, _ := slices.BinarySearchFunc(spans, t, func(s S, t int64) int {
		if end(s) > t {
			return 1
		}
		return -1
	})
	return i
}

// perfManager answers host queries of cpu.usage.average, mem.usage.average
// and the network's net.usage.average, net.received.average and
// net.transmitted.average from the recorded load and the powered-on VMs'
// memory, instead of the stock simulator's random samples. Other queries
// go to the stock manager.
type perfManager struct {
	*simulator.PerformanceManager
	sim *Sim
}

func (p *perfManager) QueryPerf(ctx *simulator.Context, req *types.QueryPerf) soap.HasFault {
	for _, qs := range req.QuerySpec {
		if qs.Entity.Type != "HostSystem" {
			return p.PerformanceManager.QueryPerf(ctx, req)
		}
	}
	cpuID, memID := p.counter("cpu", "usage"), p.counter("mem", "usage")
	netID, rxID, txID := p.counter("net", "usage"), p.counter("net", "received"), p.counter("net", "transmitted")
	vmMemory := p.vmMemory(ctx)
	body := &methods.QueryPerfBody{Res: &types.QueryPerfResponse{}}
	for _, qs := range req.QuerySpec {
		host, ok := ctx.Map.Get(qs.Entity).(*simulator.HostSystem)
		if !ok {
			body.Fault_ = simulator.Fault("", &types.ManagedObjectNotFound{Obj: qs.Entity})
			body.Res = nil
			return body
		}
		interval := qs.IntervalId
		if interval <= 0 {
			interval = 20
		}
		step := time.Duration(interval) * time.Second
		end := time.Now()
		if qs.EndTime != nil {
			end = *qs.EndTime
		}
		start := end.Add(-step)
		if qs.StartTime != nil {
			start = *qs.StartTime
		}
		n := int32(end.Sub(start) / step)
		if n < 1 {
			n = 1
		}
		if qs.MaxSample > 0 && n > qs.MaxSample {
			start = end.Add(-time.Duration(qs.MaxSample) * step)
			n = qs.MaxSample
		}
		mem := memoryPercent(host, vmMemory[host.Self])
		metric := &types.PerfEntityMetric{PerfEntityMetricBase: types.PerfEntityMetricBase{Entity: qs.Entity}}
		for i := int32(0); i < n; i++ {
			metric.SampleInfo = append(metric.SampleInfo, types.PerfSampleInfo{
				Timestamp: start.Add(time.Duration(i+1) * step), Interval: interval,
			})
		}
		for _, id := range qs.MetricId {
			var values []int64
			for i := int32(0); i < n; i++ {
				from := start.Add(time.Duration(i) * step)
				var v int64
				switch id.CounterId {
				case cpuID:
					v = int64(math.Round(100 * p.sim.load.cpu(host.Name, from, from.Add(step)))) // hundredths of a percent
				case memID:
					v = int64(math.Round(100 * mem))
				case netID, rxID, txID:
					// The vSAN traffic the host's uplink carries (the
					// simulated runs' only traffic), in KBps of 1024 bytes.
					l, _ := p.sim.load.at(host.Name, from, from.Add(step))
					b := l.NICRxBytesPerSec + l.NICTxBytesPerSec
					switch id.CounterId {
					case rxID:
						b = l.NICRxBytesPerSec
					case txID:
						b = l.NICTxBytesPerSec
					}
					v = int64(math.Round(b / 1024))
				}
				values = append(values, v)
			}
			if servedInProcess(ctx) {
				metric.Value = append(metric.Value, &types.PerfMetricIntSeries{PerfMetricSeries: types.PerfMetricSeries{Id: id}, Value: values})
			} else {
				metric.Value = append(metric.Value, &PerfMetricIntSeries{PerfMetricSeries: types.PerfMetricSeries{Id: id}, Value: values})
			}
		}
		body.Res.Returnval = append(body.Res.Returnval, metric)
	}
	return body
}

// PerfMetricIntSeries is vim25's PerfMetricIntSeries as the simulator
// sends it over SOAP, under the same name: govmomi's type marks its values
// omitempty, and its XML encoder then leaves out every zero of a series,
// shifting the samples after it onto the wrong times (a host's network
// read 0 while idle and then busy came back busy, then idle). A real
// vCenter sends every value; so does this. In process, where nothing is
// encoded, the simulator answers with govmomi's own type.
type PerfMetricIntSeries struct {
	types.PerfMetricSeries
	Value []int64 `xml:"value"`
}

// counter returns the key of the group.name.average counter.
func (p *perfManager) counter(group, name string) int32 {
	for _, c := range p.PerfCounter {
		if c.GroupInfo.GetElementDescription().Key == group &&
			c.NameInfo.GetElementDescription().Key == name &&
			c.RollupType == types.PerfSummaryTypeAverage {
			return c.Key
		}
	}
	return -1
}

// vmMemory is the memory the powered-on VMs configure, in MB, by host.
func (p *perfManager) vmMemory(ctx *simulator.Context) map[types.ManagedObjectReference]float64 {
	used := map[types.ManagedObjectReference]float64{}
	for _, e := range ctx.Map.All("VirtualMachine") {
		vm := e.(*simulator.VirtualMachine)
		ctx.WithLock(vm.Self, func() { // by reference: locking vm itself finds its reference by reflection
			if vm.Runtime.Host != nil && vm.Runtime.PowerState == types.VirtualMachinePowerStatePoweredOn && vm.Config != nil {
				used[*vm.Runtime.Host] += float64(vm.Config.Hardware.MemoryMB)
			}
		})
	}
	return used
}

// memoryPercent is the share of host memory its powered-on VMs configure
// (usedMB), plus what ESXi itself uses.
func memoryPercent(host *simulator.HostSystem, usedMB float64) float64 {
	total := float64(host.Summary.Hardware.MemorySize >> 20)
	if total <= 0 {
		return 0
	}
	return esxiMemoryPercent + 100*usedMB/total
}
