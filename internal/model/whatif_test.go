package model

import (
	"fmt"
	"strings"
	"testing"

	"starbench/internal/fio"
)

// The WWT customer's matrix (compression x RoCEv2 x 10/25 GbE) answered from
// mechanisms. Asserted as properties, printed with -v:
//   - a faster uplink never lowers throughput;
//   - RDMA lowers CPU per I/O; it lowers throughput only where it becomes
//     NIC-bound (RoCE v2 supports failover teaming only: one link of a LAG);
//   - compressing incompressible data never lowers CPU per I/O.
func TestWWTWhatIfMatrix(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	general := []fio.BSSplit{{Size: 4096, Percent: 35}, {Size: 8192, Percent: 20}, {Size: 32768, Percent: 20}, {Size: 65536, Percent: 15}, {Size: 262144, Percent: 10}} // an assumed customer mix
	jobs := map[string]*fio.Job{
		"general": {IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BSSplit: general, IODepth: 4},
		"4k":      {IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 4096, IODepth: 4},
		"32k":     {IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 32768, IODepth: 4},
		"64k":     {IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 65536, IODepth: 4},
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-8s %-5s %-5s %-4s %10s %9s %6s %6s  %s\n", "workload", "compr", "rdma", "link", "IOPS", "MB/s", "cpu%", "nic%", "bottleneck")
	for _, name := range []string{"general", "4k", "32k", "64k"} {
		type key struct {
			compress, rdma bool
			link           string
		}
		got := map[key]*Output{}
		for _, compress := range []bool{false, true} {
			for _, rdma := range []bool{false, true} {
				for _, link := range []string{"10g", "25g"} {
					in := uniformInput(p, Policy{RAID: "raid6", FTT: 2}, jobs[name])
					in.State = ClusterState{Compression: compress, RDMA: rdma, Uplink: link}
					o := solve(t, p, in)
					got[key{compress, rdma, link}] = o
					fmt.Fprintf(&b, "%-8s %-5v %-5v %-4s %10.0f %9.0f %6.1f %6.1f  %s %.0f%%\n", name, compress, rdma, link,
						total(o), o.Read.MBps+o.Write.MBps, o.CPUPercent, o.NICPercent, o.Bottleneck, 100*o.BottleneckUtil)
				}
			}
		}
		perIO := func(o *Output) float64 { return o.CPUPercent / total(o) }
		for k, o := range got {
			if k.link == "10g" && total(got[key{k.compress, k.rdma, "25g"}]) < total(o)*0.9999 {
				t.Errorf("%s %+v: 25g slower than 10g", name, k)
			}
			if !k.rdma {
				r := got[key{k.compress, true, k.link}]
				if total(r) < total(o)*0.9999 && !strings.HasPrefix(r.Bottleneck, "nic") || perIO(r) >= perIO(o) {
					t.Errorf("%s %+v: RDMA %.0f IOPS at %.3g cpu%%/IO vs TCP %.0f at %.3g", name, k, total(r), perIO(r), total(o), perIO(o))
				}
			}
			if !k.compress && perIO(got[key{true, k.rdma, k.link}]) < perIO(o) {
				t.Errorf("%s %+v: compressing incompressible data lowered CPU per I/O", name, k)
			}
		}
	}
	t.Logf("wwt-r640-osa, RAID-6 FTT2, 96 VMs x 8 disks, iodepth 4, incompressible data:\n%s", b.String())
}
