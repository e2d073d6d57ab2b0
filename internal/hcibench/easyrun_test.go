package hcibench

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// The files easy run writes are HCIBench's generator's, byte for byte.
func TestEasyRunWritesHCIBenchFiles(t *testing.T) {
	for path, text := range map[string]string{
		"testdata/vdb-8vmdk-100ws-4k-70rdpct-100randompct-4threads": vdbenchFile(8, 100, 4, "4k", 70, 100, 3600, 1800),
		"testdata/vdb-8vmdk-100ws-256k-0rdpct-0randompct-1threads":  vdbenchFile(8, 100, 1, "256k", 0, 0, 3600, 1800),
	} {
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if text != string(want) {
			t.Errorf("%s:\n got %q\nwant %q", path, text, want)
		}
	}
}

func TestEasyRunSizing(t *testing.T) {
	// OSA, 4 hosts x 2 disk groups of 800 GB cache: the cache is capped at
	// 600 GB a group, 75 % of it over FTT 1's two copies.
	osa, err := EasyRun(Cluster{Hosts: 4, DiskGroups: 8, CacheGB: 6400}, Policy{FTT: 1, Checksum: true})
	if err != nil {
		t.Fatal(err)
	}
	if osa.VMs != 16 || osa.DisksPerVM != 8 || osa.WorkingSetGB != 1800 || osa.DiskSizeGB != 14 || osa.Prepare != "zero" || osa.CPUs != 4 || osa.MemoryGB != 8 {
		t.Errorf("OSA plan %+v", osa)
	}
	if !slices.Equal(osa.Names, []string{"4k70r", "4k100r", "8k50r", "256k0r"}) || len(osa.Runs) != 4 {
		t.Fatalf("workloads %v", osa.Names)
	}
	p := &Parsed{Runs: osa.Runs}
	if got := options(t, p, "256k0r", "wd1"); !slices.Contains(got, "iodepth=1") || !slices.Contains(got, "rw=write") {
		t.Errorf("256k0r with checksums: %v", got)
	}
	if got := options(t, p, "8k50r", "wd1"); !slices.Contains(got, "iodepth=4") || !slices.Contains(got, "rwmixread=50") {
		t.Errorf("8k50r: %v", got)
	}
	// Checksums off: the sequential write keeps 4 threads; FTT 2 makes three copies.
	off, err := EasyRun(Cluster{Hosts: 4, DiskGroups: 8, CacheGB: 6400, Dedup: true}, Policy{FTT: 2})
	if err != nil {
		t.Fatal(err)
	}
	if off.WorkingSetGB != 1200 || off.Prepare != "random" {
		t.Errorf("FTT 2 with dedup: %+v", off)
	}
	if got := options(t, &Parsed{Runs: off.Runs}, "256k0r", "wd1"); !slices.Contains(got, "iodepth=4") {
		t.Errorf("256k0r without checksums: %v", got)
	}
	// ESA: each host one group with the capped cache, said so.
	esa, err := EasyRun(Cluster{Hosts: 4, ESA: true}, Policy{FTT: 1, Checksum: true})
	if err != nil {
		t.Fatal(err)
	}
	if esa.VMs != 8 || esa.WorkingSetGB != 900 || esa.DiskSizeGB != 14 || !strings.Contains(strings.Join(esa.Notes, "\n"), "ESA has no disk groups") {
		t.Errorf("ESA plan %+v", esa)
	}
	if _, err := EasyRun(Cluster{Hosts: 4}, Policy{FTT: 1}); err == nil || !strings.Contains(err.Error(), "no vSAN disk groups") {
		t.Errorf("OSA without disk groups: %v", err)
	}
}
