package sim

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/vmware/govmomi/performance"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// TestHostMemoryCountsThePoweredOnVMsOfEachHost: a host's memory usage is
// ESXi's share plus the memory of the powered-on VMs on it, and no other's.
func TestHostMemoryCountsThePoweredOnVMsOfEachHost(t *testing.T) {
	s, c := startInProcess(t, Options{})
	ctx := context.Background()
	vm := cloneTemplate(t, c)
	task, err := vm.PowerOn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := task.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	var mvm mo.VirtualMachine
	if err := vm.Properties(ctx, vm.Reference(), []string{"runtime.host", "config.hardware.memoryMB"}, &mvm); err != nil {
		t.Fatal(err)
	}
	var hosts []types.ManagedObjectReference
	for _, h := range s.model.Map().All("HostSystem") {
		hosts = append(hosts, h.Reference())
	}
	end := time.Now()
	start := end.Add(-time.Minute)
	m := performance.NewManager(c)
	raw, err := m.SampleByName(ctx, types.PerfQuerySpec{StartTime: &start, EndTime: &end, IntervalId: 20, MaxSample: 1},
		[]string{"mem.usage.average"}, hosts)
	if err != nil {
		t.Fatal(err)
	}
	series, err := m.ToMetricSeries(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	totalMB := float64(s.Testbed.MemoryGB << 10)
	for _, em := range series {
		want := esxiMemoryPercent
		if em.Entity == *mvm.Runtime.Host {
			want += 100 * float64(mvm.Config.Hardware.MemoryMB) / totalMB
		}
		if got := float64(em.Value[0].Value[0]) / 100; math.Abs(got-want) > 0.01 {
			t.Errorf("host %s: memory %.2f %%, want %.2f %%", em.Entity.Value, got, want)
		}
	}
	if len(series) != len(hosts) {
		t.Errorf("%d hosts answered, want %d", len(series), len(hosts))
	}
}
