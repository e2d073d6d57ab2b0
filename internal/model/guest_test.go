package model

import (
	"math"
	"strings"
	"testing"

	"starbench/internal/fio"
)

// Past CPU saturation, adding worker VMs (more vCPUs competing with vSAN's
// worlds for too few cores) lowers throughput while latency multiplies;
// on hosts with cores to spare the same VMs change nothing.
func TestThroughputFallsPastCPUSaturation(t *testing.T) {
	small := mustLoad(t, "vxrail-ve660-esa")
	small.CPU.CoresPerSocket = 4 // 4 cores, 8 threads per host: vCPUs and worlds pass them
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 8}
	var prev *Output
	for _, vms := range []int{8, 16, 32} {
		o := solve(t, small, UniformInput(small, vms, 8, Policy{RAID: "raid1"}, job))
		if o.Bottleneck != "cpu" || !strings.Contains(strings.Join(o.Notes, "\n"), "cpu overcommitted") {
			t.Errorf("%d VMs: bottleneck %s, notes %q; want the CPU, overcommitted", vms, o.Bottleneck, o.Notes)
		}
		if prev != nil {
			if total(o) >= total(prev)*0.99 {
				t.Errorf("%d VMs: %.0f IOPS, not below %.0f with half the VMs", vms, total(o), total(prev))
			}
			if r := o.Read.LatMeanUs / prev.Read.LatMeanUs; r <= 2 {
				t.Errorf("%d VMs: latency x%.2f for twice the outstanding I/O; want it to multiply (more than x2)", vms, r)
			}
		}
		prev = o
	}
	big := mustLoad(t, "storagereview-r6625-esa")
	few := solve(t, big, UniformInput(big, 8, 8, Policy{RAID: "raid1"}, job))
	many := solve(t, big, UniformInput(big, 32, 8, Policy{RAID: "raid1"}, job))
	if r := total(many) / total(few); r < 0.99 || strings.Contains(strings.Join(many.Notes, "\n"), "overcommitted") {
		t.Errorf("128-core hosts: 32 VMs give x%.3f the IOPS of 8 (notes %q); want no fall", r, many.Notes)
	}
}

// Past CPU saturation a waiting hand-off costs a context switch, not the
// I/O's bytes (docs/model.md, "Load-dependent CPU"): 1M reads on the same
// small hosts stay within 2 % as VMs double while their latency doubles
// with the outstanding I/O (Little's law), where 4K reads fall (above).
func TestLargeReadsStayFlatPastCPUSaturation(t *testing.T) {
	small := mustLoad(t, "vxrail-ve660-esa")
	small.CPU.CoresPerSocket = 4
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "read", BlockSize: 1 << 20, IODepth: 2}
	few := solve(t, small, UniformInput(small, 16, 8, Policy{RAID: "raid1"}, job))
	many := solve(t, small, UniformInput(small, 32, 8, Policy{RAID: "raid1"}, job))
	for _, o := range []*Output{few, many} {
		if o.Bottleneck != "cpu" {
			t.Fatalf("bottleneck %s at %.0f %%; want the CPU", o.Bottleneck, 100*o.BottleneckUtil)
		}
	}
	if !strings.Contains(strings.Join(many.Notes, "\n"), "cpu overcommitted") {
		t.Errorf("32 VMs: notes %q; want the CPU overcommitted", many.Notes)
	}
	if r := total(many) / total(few); !(math.Abs(r-1) <= 0.02) {
		t.Errorf("32 VMs give x%.3f the 1M reads of 16; want within 2 %% (a switch is about 1 %% of a 1M read's cycles)", r)
	}
	if r := many.Read.LatMeanUs / few.Read.LatMeanUs; !(math.Abs(r-2) <= 0.05) {
		t.Errorf("latency x%.3f for twice the outstanding I/O; want about x2", r)
	}
}

// The virtual controller is part of the guest's path: LSI Logic costs more
// CPU per I/O than PVSCSI, and its shallower queues hold outstanding I/O in
// the guest.
func TestVirtualControllerPath(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 48}
	in := UniformInput(p, 24, 8, Policy{RAID: "raid1"}, job)
	for i := range in.VMs {
		in.VMs[i].Controller = "pvscsi"
	}
	pv := solve(t, p, in)
	for i := range in.VMs {
		in.VMs[i].Controller = "lsilogic"
	}
	lsi := solve(t, p, in)
	if lsi.GuestCPUPercent/total(lsi) < 1.1*pv.GuestCPUPercent/total(pv) {
		t.Errorf("guest CPU per I/O: LSI Logic %.3g, PVSCSI %.3g; want LSI Logic at least 10 %% dearer", lsi.GuestCPUPercent/total(lsi), pv.GuestCPUPercent/total(pv))
	}
	// 8 disks x 48 = 384 per VM: PVSCSI admits 8 x 48 (per disk 64, adapter 254 -> 254),
	// LSI Logic 8 x 32 = 256, adapter 128.
	if pv.Outstanding != 24*384 || !strings.Contains(strings.Join(lsi.Notes, "\n"), "admit 3072 of fio's 9216") {
		t.Errorf("outstanding %d, LSI notes %q", pv.Outstanding, lsi.Notes)
	}
	// fio sees its own outstanding I/O: Little's law on fio's count.
	if r := total(lsi) * lsi.Read.LatMeanUs * 1e-6 / float64(lsi.Outstanding); math.Abs(r-1) > 1e-6 {
		t.Errorf("LSI Logic: X R / N = %g, want 1 (the guest's wait is latency fio sees)", r)
	}
}
