package model

import (
	"math"
	"reflect"
	"testing"

	"starbench/internal/fio"
)

// near6 reports whether got is within a millionth of want (or both 0).
func near6(got, want float64) bool { return math.Abs(got-want) <= 1e-6*math.Abs(want) }

// One VM on esx-1 with one RAID-1 disk on StorageReview's 4 ESA hosts,
// worked out by hand. Its replicas are on its own host (0) and the one
// half the cluster on (2); hosts 1 and 3 hold nothing. A 4K read goes to one replica, each
// taking half, the remote one sending the 4 KiB back in frames (wire bytes
// per payload byte f) with a message header h each way. A 4K write is a
// performance-leg write to each mirror and the destage to the capacity
// leg: 2 x 4 KiB in ops of D bytes, half on each replica; the owner sends
// host 2 its share of both.
func TestHostFiguresOfOneDiskByHand(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	f, h, D := frameFactor(p.MTU, false), p.Model.MessageHeaderBytes.Value, p.Model.DestageIOBytes.Value
	const b = 4096.0
	for _, tc := range []struct {
		rw string
		// per host 0 and 2, per guest I/O: component reads, writes, their
		// bytes; bytes host 0 sends and receives (host 2 the other way)
		reads, writes, readBytes, writeBytes, tx0, rx0 float64
	}{
		{"randread", 0.5, 0, b / 2, 0, h / 2, (b*f + h) / 2},
		{"randwrite", 0, 1 + b/D, 0, 2 * b, b*f + h + b/D*(D*f+h), h * (1 + b/D)},
	} {
		job := &fio.Job{IOEngine: "libaio", Direct: true, RW: tc.rw, BlockSize: 4096, IODepth: 16}
		out := solve(t, p, oneDiskEach([]VM{{Host: "esx-1"}}, Policy{RAID: "raid1", FTT: 1}, job))
		x := out.Read.IOPS + out.Write.IOPS
		hs := out.Hosts
		if len(hs) != p.Hosts || x == 0 {
			t.Fatalf("%s: %d host figures at %.0f IOPS, want %d", tc.rw, len(hs), x, p.Hosts)
		}
		for _, i := range []int{0, 2} {
			g := hs[i]
			tx, rx := tc.tx0, tc.rx0
			if i == 2 {
				tx, rx = rx, tx
			}
			got := []float64{g.CompReadIOPS, g.CompWriteIOPS, g.CompReadBytesPerSec, g.CompWriteBytesPerSec, g.NICTxBytesPerSec, g.NICRxBytesPerSec}
			want := []float64{x * tc.reads, x * tc.writes, x * tc.readBytes, x * tc.writeBytes, x * tx, x * rx}
			for k := range got {
				if !near6(got[k], want[k]) {
					t.Errorf("%s: host %d: component reads, writes, bytes read, written, NIC sent, received per second %.1f, want %.1f", tc.rw, i, got, want)
					break
				}
			}
			if g.DeviceUtil <= 0 || g.NICPercent <= 0 {
				t.Errorf("%s: host %d holds a replica: device utilisation %.3f, NIC %.3f %%, want both above 0", tc.rw, i, g.DeviceUtil, g.NICPercent)
			}
		}
		for _, i := range []int{1, 3} {
			if hs[i] != (HostFigures{}) {
				t.Errorf("%s: host %d holds nothing of the run, yet reports %+v", tc.rw, i, hs[i])
			}
		}
		// vSAN's CPU: the replica's host has no guest, so all of its CPU;
		// on the VM's host, less than its CPU by the guest's path.
		cpu := out.HostCPUPercent
		if !near6(hs[2].VSANCPUPercent, cpu[2]) || !(hs[0].VSANCPUPercent > 0 && hs[0].VSANCPUPercent < cpu[0]) {
			t.Errorf("%s: vSAN CPU %.3f / %.3f %% of host CPU %.3f / %.3f %%: want the replica's host's all of it, the VM's host's less (its guest's)",
				tc.rw, hs[0].VSANCPUPercent, hs[2].VSANCPUPercent, cpu[0], cpu[2])
		}
	}
}

// Where the layout is even every host reports the same, and the hosts'
// figures add up to the cluster's: a component read per guest read, every
// byte sent is received.
func TestHostFiguresOfAnEvenLayout(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 8192, IODepth: 16}
	out := solve(t, p, uniformInput(p, Policy{RAID: "raid5", FTT: 1}, job))
	var reads, tx, rx float64
	for i, g := range out.Hosts {
		if g != out.Hosts[0] && !(near6(g.CompReadIOPS, out.Hosts[0].CompReadIOPS) && near6(g.CompWriteBytesPerSec, out.Hosts[0].CompWriteBytesPerSec) &&
			near6(g.NICTxBytesPerSec, out.Hosts[0].NICTxBytesPerSec) && near6(g.VSANCPUPercent, out.Hosts[0].VSANCPUPercent) && near6(g.DeviceUtil, out.Hosts[0].DeviceUtil)) {
			t.Errorf("even layout: host %d reports %+v, host 0 %+v: want the same", i, g, out.Hosts[0])
		}
		if g.CompWriteIOPS <= 0 || g.VSANCPUPercent <= 0 || g.VSANCPUPercent >= out.HostCPUPercent[i] {
			t.Errorf("even layout: host %d: %+v at host CPU %.2f %%: want component writes, and vSAN CPU above 0 and below the host's", i, g, out.HostCPUPercent[i])
		}
		reads += g.CompReadIOPS
		tx += g.NICTxBytesPerSec
		rx += g.NICRxBytesPerSec
	}
	if !near6(reads, out.Read.IOPS) || !near6(tx, rx) {
		t.Errorf("even layout: hosts' component reads %.0f/s for %.0f guest reads/s, sent %.0f and received %.0f bytes/s: want one a read, and sent = received", reads, out.Read.IOPS, tx, rx)
	}
}

// On an uneven layout (five VMs on four hosts: two classes) and with two
// jobs beside each other, the hosts' figures add up to the cluster's over
// all classes: a component read per guest read, every byte sent received.
func TestHostFiguresAddUpOverClasses(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 64}
	five := oneDiskEach([]VM{{Host: "a"}, {Host: "b"}, {Host: "c"}, {Host: "d"}, {Host: "a"}}, Policy{RAID: "raid1", FTT: 1}, job)
	two := oneDiskEach([]VM{{Host: "a"}}, Policy{RAID: "raid1", FTT: 1}, job)
	two.Jobs = []JobLoad{{Name: "x", Job: job, Disks: two.Jobs[0].Disks}, {Name: "y", Job: job, Disks: two.Jobs[0].Disks}}
	for name, in := range map[string]Input{"five VMs": five, "two jobs": two} {
		out := solve(t, p, in)
		var reads, tx, rx float64
		for _, g := range out.Hosts {
			reads += g.CompReadIOPS
			tx += g.NICTxBytesPerSec
			rx += g.NICRxBytesPerSec
		}
		if !near6(reads, out.Read.IOPS) || !near6(tx, rx) || tx == 0 {
			t.Errorf("%s: hosts' component reads %.0f/s for %.0f guest reads/s, sent %.0f and received %.0f bytes/s: want one a read, and sent = received", name, reads, out.Read.IOPS, tx, rx)
		}
	}
}

// HostLoad.Add (the simulator's means over time) adds every figure: a
// field added to HostFigures and left out of Add would read 0 there.
func TestHostLoadAddsEveryFigure(t *testing.T) {
	var one, sum HostLoad
	v := reflect.ValueOf(&one).Elem()
	var fields func(v reflect.Value, f func(reflect.Value, string))
	fields = func(v reflect.Value, f func(reflect.Value, string)) {
		for i := range v.NumField() {
			if v.Field(i).Kind() == reflect.Struct {
				fields(v.Field(i), f)
			} else {
				f(v.Field(i), v.Type().Field(i).Name)
			}
		}
	}
	fields(v, func(x reflect.Value, _ string) { x.SetFloat(4) })
	sum.Add(one, 2)
	sum.Add(one, 0.5)
	fields(reflect.ValueOf(sum), func(x reflect.Value, name string) {
		if x.Float() != 10 {
			t.Errorf("%s: %v after adding 4 twice (weights 2 and 0.5), want 10", name, x.Float())
		}
	})
}

// OSA's writes land in the disk groups' write buffers: one VM's RAID-1
// disk of 4K random writes on WWT's 24 OSA hosts keeps the cache devices
// of its two replicas' hosts (0 and 12) busy (each replica's group holds the whole of
// its host's share) and no other host's; on ESA there is no cache tier.
func TestHostFiguresCacheTier(t *testing.T) {
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 16}
	in := oneDiskEach([]VM{{Host: "esx-1"}}, Policy{RAID: "raid1", FTT: 1}, job)
	osa := mustLoad(t, "wwt-r640-osa")
	out := solve(t, osa, in)
	for i, f := range out.Hosts {
		if busy := i == 0 || i == 12; (f.CacheUtil > 0) != busy || f.CacheUtil >= 1 {
			t.Errorf("OSA host %d: cache device %.3f busy, want busy (below 1) only on the replicas' hosts 0 and 12", i, f.CacheUtil)
		}
	}
	// A mirror write is one cache-device write on each replica's host:
	// the busier host's cache device is at least the guest's writes times
	// the device's own time for one.
	if min := out.Write.IOPS / osa.Storage.Cache.WriteIOPS; out.Hosts[12].CacheUtil < min {
		t.Errorf("OSA replica host's cache device %.4f busy, want at least %.4f (one 4K write per guest write)", out.Hosts[12].CacheUtil, min)
	}
	for i, f := range solve(t, mustLoad(t, "storagereview-r6625-esa"), in).Hosts {
		if f.CacheUtil != 0 {
			t.Errorf("ESA host %d: cache device %g busy, want 0 (no cache tier)", i, f.CacheUtil)
		}
	}
}

// Each host reports how busy its DOM worlds are: the vsan-dom station's
// utilisation at that host, mixed_contention included. An even layout
// bound by the DOM: every host's worlds as busy as the station; one VM's
// disk: only the worker's host, where its object's owner runs.
func TestHostsReportTheirDOMWorlds(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	station := func(out *Output) float64 {
		for _, s := range out.Stations {
			if s.Name == "vsan-dom" {
				return s.Util
			}
		}
		return math.NaN()
	}
	for _, rw := range []string{"randread", "randrw"} {
		job := &fio.Job{IOEngine: "libaio", Direct: true, RW: rw, RWMixRead: 70, BlockSize: 4096, IODepth: 16}
		even := solve(t, p, uniformInput(p, Policy{RAID: "raid1", FTT: 1}, job))
		for i, h := range even.Hosts {
			if !near6(h.DOMUtil, station(even)) || even.Bottleneck != "vsan-dom" {
				t.Errorf("%s, even layout: host %d's DOM worlds %.4f busy, the vsan-dom station %.4f (bottleneck %s): want the same", rw, i, h.DOMUtil, station(even), even.Bottleneck)
			}
		}
		one := solve(t, p, oneDiskEach([]VM{{Host: "esx-1"}}, Policy{RAID: "raid1", FTT: 1}, job))
		for i, h := range one.Hosts {
			if want := map[bool]float64{true: station(one), false: 0}[i == 0]; !near6(h.DOMUtil, want) || want == 0 && h.DOMUtil != 0 {
				t.Errorf("%s, one VM: host %d's DOM worlds %.4f busy, want %.4f (the owner's host only)", rw, i, h.DOMUtil, want)
			}
		}
	}
	if DOMWorlds(p) != int(p.Model.DOMWorldsPerHost.Value) {
		t.Errorf("%d DOM worlds a host, want dom_worlds_per_host's %g", DOMWorlds(p), p.Model.DOMWorldsPerHost.Value)
	}
}

// Each host reports how busy its LSOM worlds are: their mean over its LSOM
// stations and its busiest station's. WWT's OSA hosts under 4K random
// writes, even and bound by the disk groups: every host's both at the
// vsan-diskgroup station's utilisation. One VM's RAID-1 disk on
// StorageReview's ESA hosts: its replicas' hosts busy on some devices
// (the busiest above the mean), the others idle.
func TestHostsReportTheirLSOMWorlds(t *testing.T) {
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 16}
	wwt := mustLoad(t, "wwt-r640-osa")
	even := solve(t, wwt, UniformInput(wwt, 96, 8, Policy{RAID: "raid1", FTT: 1}, job))
	var dg float64
	for _, s := range even.Stations {
		if s.Name == "vsan-diskgroup" {
			dg = s.Util
		}
	}
	for i, h := range even.Hosts {
		if !near6(h.LSOMBusiest, dg) || !near6(h.LSOMUtil, dg) || even.Bottleneck != "vsan-diskgroup" {
			t.Errorf("WWT, even layout: host %d's LSOM worlds %.4f busy on average, %.4f at the busiest disk group; the station %.4f (bottleneck %s): want all the same", i, h.LSOMUtil, h.LSOMBusiest, dg, even.Bottleneck)
		}
	}
	if stations, worlds := LSOMWorlds(wwt); stations != wwt.Storage.DiskGroups || worlds != int(wwt.Model.DiskGroupWorlds.Value) {
		t.Errorf("WWT: %d LSOM stations of %d worlds a host, want its %d disk groups of diskgroup_worlds %g", stations, worlds, wwt.Storage.DiskGroups, wwt.Model.DiskGroupWorlds.Value)
	}
	sr := mustLoad(t, "storagereview-r6625-esa")
	one := solve(t, sr, oneDiskEach([]VM{{Host: "esx-1"}}, Policy{RAID: "raid1", FTT: 1}, job))
	for i, h := range one.Hosts {
		replica := i == 0 || i == 2
		if replica && !(h.LSOMUtil > 0 && h.LSOMBusiest > h.LSOMUtil) || !replica && (h.LSOMUtil != 0 || h.LSOMBusiest != 0) {
			t.Errorf("StorageReview, one VM: host %d's LSOM worlds %.4f busy on average, %.4f at the busiest device: want the replicas' hosts (0 and 2) busy on some devices, the others idle", i, h.LSOMUtil, h.LSOMBusiest)
		}
	}
}
