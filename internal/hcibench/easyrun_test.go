package hcibench

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// An all-flash OSA cluster: 4 hosts x 2 disk groups of 800 GB cache, a
// datastore of 60 TB with 50 TB free.
var osa = Cluster{Hosts: 4, DiskGroups: 8, CacheGB: 6400, CapacityGB: 61440, FreeGB: 51200}

// An ESA cluster: 6 hosts, a datastore of 90 TB with 80 TB free.
var esa = Cluster{Hosts: 6, ESA: true, CapacityGB: 92160, FreeGB: 81920}

// The files easy run writes are those HCIBench's generators wrote for the
// same cluster, byte for byte.
func TestEasyRunWritesHCIBenchFiles(t *testing.T) {
	dedup := osa
	dedup.Dedup = true
	for _, c := range []struct {
		cluster             Cluster
		tool, latency, name string
		file                string
	}{
		{osa, "vdbench", "Max", "4k70r", "vdb-8vmdk-100ws-4k-70rdpct-100randompct-4threads"},
		{osa, "vdbench", "Max", "256k0r", "vdb-8vmdk-100ws-256k-0rdpct-0randompct-1threads"},
		{dedup, "vdbench", "Max", "8k50r", "vdb-8vmdk-100ws-8k-50rdpct-100randompct-4threads"},
		{esa, "vdbench", "Max", "4k70r", "vdb-8vmdk-100ws-4k-70rdpct-100randompct-16threads"},
		{esa, "vdbench", "Max", "512k0r", "vdb-8vmdk-100ws-512k-0rdpct-0randompct-2threads"},
		{osa, "fio", "Max", "4k70r", "fio-8vmdk-100ws-4k-70rdpct-100randompct-4threads"},
		{osa, "fio", "Max", "256k0r", "fio-8vmdk-100ws-256k-0rdpct-0randompct-1threads"},
		{esa, "fio", "Max", "4k70r", "fio-8vmdk-100ws-4k-70rdpct-100randompct-16threads-50compress-50dedupe"},
		{osa, "fio", "Low", "4k70r", "fio-4vmdk-100ws-4k-70rdpct-100randompct-1000lt"},
	} {
		plan, err := EasyRun(c.cluster, Policy{FTT: 1, Checksum: true}, c.tool, c.latency)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile("testdata/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		if got := plan.Files[c.name]; got != string(want) {
			t.Errorf("%s %s %s on ESA %v:\n got %q\nwant %q", c.tool, c.latency, c.name, c.cluster.ESA, got, want)
		}
	}
}

func TestEasyRunSizing(t *testing.T) {
	// OSA: the cache is capped at 600 GB a group (4800 GB), 75 % of it
	// over FTT 1's two copies: 1800 GB on 16 VMs x 8 disks.
	plan, err := EasyRun(osa, Policy{FTT: 1, Checksum: true}, "vdbench", "Max")
	if err != nil {
		t.Fatal(err)
	}
	if plan.VMs != 16 || plan.DisksPerVM != 8 || plan.WorkingSetGB != 1800 || plan.DiskSizeGB != 14 || plan.ThreadsPerDisk != 4 ||
		plan.Prepare != "zero" || plan.CPUs != 4 || plan.MemoryGB != 8 {
		t.Errorf("OSA plan %+v", plan)
	}
	if !slices.Equal(plan.Names, []string{"4k100r", "4k0r", "256k100r", "256k0r", "4k70r", "8k50r"}) || len(plan.Runs) != 6 {
		t.Fatalf("workloads %v", plan.Names)
	}
	p := &Parsed{Runs: plan.Runs}
	if got := options(t, p, "256k100r", "wd1"); !slices.Contains(got, "iodepth=1") || !slices.Contains(got, "rw=read") {
		t.Errorf("256k100r with checksums: %v", got)
	}
	if got := options(t, p, "4k0r", "wd1"); !slices.Contains(got, "iodepth=4") || !slices.Contains(got, "rw=randwrite") {
		t.Errorf("4k0r: %v", got)
	}
	// Checksums off: the sequential write keeps 4 threads. RAID-6 (FTT 2)
	// stores 1.5 times the data; dedup fills the disks with random data.
	dedup := osa
	dedup.Dedup = true
	r6, err := EasyRun(dedup, Policy{FTT: 2, ErasureCoding: true}, "vdbench", "Max")
	if err != nil {
		t.Fatal(err)
	}
	if r6.WorkingSetGB != 2400 || r6.DiskSizeGB != 18 || r6.Prepare != "random" {
		t.Errorf("RAID-6 with dedup: %+v", r6)
	}
	if got := options(t, &Parsed{Runs: r6.Runs}, "256k0r", "wd1"); !slices.Contains(got, "iodepth=4") || !slices.Contains(got, "dedupe_percentage=50") {
		t.Errorf("256k0r without checksums, with dedup: %v", got)
	}
	// A latency target halves the disks and doubles each one's threads.
	low, err := EasyRun(osa, Policy{FTT: 1, Checksum: true}, "vdbench", "Low")
	if err != nil {
		t.Fatal(err)
	}
	if low.DisksPerVM != 4 || low.ThreadsPerDisk != 8 || low.DiskSizeGB != 28 {
		t.Errorf("Low latency target: %+v", low)
	}
	// Little free space: the working set is halved until it fits in 80 %
	// of it (4800 -> 2400 -> 1200 GB under 0.8 x 2000).
	full := osa
	full.FreeGB = 2000
	if plan, err := EasyRun(full, Policy{FTT: 1, Checksum: true}, "vdbench", "Max"); err != nil || plan.WorkingSetGB != 450 {
		t.Errorf("a full datastore: %v %+v", err, plan)
	}
}

func TestEasyRunESA(t *testing.T) {
	// A third of the 92160 GB datastore over RAID-5 4+1 (1.25) is 24576
	// GB, more than 12 VMs x 8 disks of 64 GB: the disks stay 64 GB.
	plan, err := EasyRun(esa, Policy{FTT: 1, ErasureCoding: true, Checksum: true}, "vdbench", "Max")
	if err != nil {
		t.Fatal(err)
	}
	if plan.VMs != 12 || plan.WorkingSetGB != 24576 || plan.DiskSizeGB != 64 || plan.ThreadsPerDisk != 16 || plan.Prepare != "random" {
		t.Errorf("ESA plan %+v", plan)
	}
	if !slices.Contains(plan.Names, "512k0r") || slices.Contains(plan.Names, "256k0r") {
		t.Errorf("ESA's sequential workloads are 512k: %v", plan.Names)
	}
	if got := options(t, &Parsed{Runs: plan.Runs}, "512k100r", "wd1"); !slices.Contains(got, "iodepth=2") || !slices.Contains(got, "bs=512k") {
		t.Errorf("512k100r: %v", got)
	}
	// 4 hosts: RAID-5 is 2+1 (1.5 copies); a small datastore makes the
	// disks smaller than 64 GB.
	small := Cluster{Hosts: 4, ESA: true, CapacityGB: 3000, FreeGB: 3000}
	plan, err = EasyRun(small, Policy{FTT: 1, ErasureCoding: true, Checksum: true}, "vdbench", "Max")
	if err != nil {
		t.Fatal(err)
	}
	if plan.WorkingSetGB != 1000/1.5 || plan.DiskSizeGB != 10 {
		t.Errorf("small ESA plan %+v", plan)
	}
}

func TestEasyRunRefusals(t *testing.T) {
	for _, c := range []struct {
		cluster       Cluster
		tool, latency string
		want          string
	}{
		{Cluster{Hosts: 4, CapacityGB: 100, FreeGB: 100}, "vdbench", "Max", "no vSAN disk groups"},
		{Cluster{}, "vdbench", "Max", "no hosts"},
		{osa, "iometer", "Max", `tool is "iometer"`},
		{osa, "fio", "max", `latency target is "max"`},
		{Cluster{Hosts: 4, ESA: true}, "fio", "Max", "no capacity or no free space"},
	} {
		if _, err := EasyRun(c.cluster, Policy{FTT: 1}, c.tool, c.latency); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v %s %s: %v, want %q", c.cluster, c.tool, c.latency, err, c.want)
		}
	}
}
