package hcibench

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func parseFile(t *testing.T, path string) *Parsed {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !IsVdbench(string(b)) {
		t.Fatalf("%s does not read as a vdbench file", path)
	}
	p, err := ParseVdbench(path, string(b))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// options is a job's options as fio reads them, "key=value" sorted.
func options(t *testing.T, p *Parsed, run, job string) []string {
	t.Helper()
	for _, r := range p.Runs {
		if r.Name != run {
			continue
		}
		for _, line := range strings.Split(r.Workload.Text(), "\n[") {
			lines := strings.Split(strings.TrimSpace(line), "\n")
			if strings.Trim(lines[0], "[]") != job {
				continue
			}
			out := slices.Clone(lines[1:])
			slices.Sort(out)
			return slices.DeleteFunc(out, func(s string) bool { return s == "" })
		}
	}
	t.Fatalf("no job %s in run %s", job, run)
	return nil
}

// HCIBench's easy-run files translate option for option, what vdbench
// counts inside elapsed (warmup) going to fio's ramp_time.
func TestHCIBenchFilesTranslate(t *testing.T) {
	for file, want := range map[string][]string{
		"testdata/vdb-8vmdk-100ws-4k-70rdpct-100randompct-4threads": {"bs=4k", "direct=1", "iodepth=4", "ioengine=libaio",
			"ramp_time=1800", "runtime=1800", "rw=randrw", "rwmixread=70", "size=100%", "time_based"},
		"testdata/vdb-8vmdk-100ws-256k-0rdpct-0randompct-1threads": {"bs=256k", "direct=1", "iodepth=1", "ioengine=libaio",
			"ramp_time=1800", "runtime=1800", "rw=write", "size=100%", "time_based"},
		"testdata/vdb-5vmdk-20ws-8k-35rdpct-60randompct-2threads": {"bs=8k", "direct=1", "iodepth=2", "ioengine=libaio",
			"percentage_random=60", "rate_iops=3000", "runtime=600", "rw=randrw", "rwmixread=35", "size=20%", "time_based"},
	} {
		p := parseFile(t, file)
		if len(p.Runs) != 1 || p.Runs[0].Name != "run1" {
			t.Fatalf("%s: runs %v", file, p.Runs)
		}
		if got := options(t, p, "run1", "wd1"); !slices.Equal(got, want) {
			t.Errorf("%s:\n got %v\nwant %v", file, got, want)
		}
	}
	notes := strings.Join(parseFile(t, "testdata/vdb-5vmdk-20ws-8k-35rdpct-60randompct-2threads").Notes, "\n")
	for _, want := range []string{"iorate=15000 is each worker's total over its 5 SDs: rate_iops=3000 per data disk",
		"debug=86 is vdbench's own diagnostics", "interval=5: vdbench's reporting interval", "runs on 5 SDs"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

// Defaults, two workloads at once, a transfer-size distribution, a
// compression ratio, a run's own threads and two runs in order.
func TestVdbenchRunsAndDefaults(t *testing.T) {
	p := parseFile(t, "testdata/mixed.vdb")
	if len(p.Runs) != 2 || p.Runs[0].Name != "mixed" || p.Runs[1].Name != "scan" {
		t.Fatalf("runs %v", p.Runs)
	}
	if phases := p.Runs[0].Workload.Phases(); len(phases) != 1 || len(phases[0]) != 2 {
		t.Fatalf("mixed runs its two workloads at once: phases %v", phases)
	}
	if got := options(t, p, "mixed", "oltp"); !slices.Contains(got, "bssplit=4k/60:8k/30:64k/10") || !slices.Contains(got, "buffer_compress_percentage=50") ||
		!slices.Contains(got, "iodepth=8") || !slices.Contains(got, "runtime=480") || !slices.Contains(got, "ramp_time=120") {
		t.Errorf("mixed/oltp: %v", got)
	}
	if got := options(t, p, "mixed", "log"); !slices.Contains(got, "rw=write") || !slices.Contains(got, "bs=64k") {
		t.Errorf("mixed/log: %v", got)
	}
	if got := options(t, p, "scan", "oltp"); !slices.Contains(got, "iodepth=16") || !slices.Contains(got, "rate_iops=1000") || !slices.Contains(got, "runtime=300") {
		t.Errorf("scan/oltp (threads=32 and iorate=2000 over 2 SDs): %v", got)
	}
}

// What has no fio equivalent is refused with its file:line and why.
func TestVdbenchRefusals(t *testing.T) {
	base := "sd=sd1,lun=/dev/sdb,threads=4,openflags=o_direct\nwd=wd1,sd=sd1,xfersize=4k,rdpct=70\n"
	for text, want := range map[string]string{
		base + "rd=run1,wd=wd1,elapsed=60,forthreads=(1,2,4)":                                "t.vdb:3: forthreads= makes vdbench run rd=run1 once per value",
		base + "rd=run1,wd=wd1,iorate=curve,elapsed=60":                                      "t.vdb:3: iorate=curve runs vdbench's own search",
		"hd=default,vdbench=/opt/vdbench\n" + base:                                           "t.vdb:1: hd= names vdbench hosts",
		"fsd=fsd1,anchor=/mnt\n":                                                             "t.vdb:1: fsd= is a vdbench file-system workload",
		"sd=sd1,lun=/dev/sdb\nwd=wd1,sd=sd1,rhpct=50\nrd=r,wd=wd1":                           "t.vdb:2: rhpct=50 asks vdbench for cache hits",
		"sd=sd1,lun=/dev/sdb\nwd=wd1,sd=sd1,seekpct=eof\nrd=r,wd=wd1":                        "t.vdb:2: seekpct=eof stops at the end of the disk",
		base + "rd=run1,wd=wd1,elapsed=60,warmup=60":                                         "t.vdb:3: warmup=60 is not shorter than elapsed=60",
		base + "rd=run1,wd=wd2,elapsed=60":                                                   "t.vdb:3: rd=run1 runs wd=wd2, which no wd= line defines",
		"sd=sd1,lun=/dev/sdb,threads=4\nsd=sd2,lun=/dev/sdc,threads=8\nwd=w,sd=*\nrd=r,wd=w": "t.vdb:2: sd=sd2 has threads=8 where sd=sd1 has threads=4",
		base + "journal=yes\nrd=run1,wd=wd1":                                                 "t.vdb:3: vdbench parameter journal= has no fio equivalent",
		base:                                                                                 "no run definition (rd=)",
		base + "rd=run1,wd=wd1,elapsed=60,maxdata=1":                                         "t.vdb:3: rd= parameter maxdata= has no fio equivalent",
		"sd=sd1,lun=/dev/sdb,range=(0,20g)\nwd=w,sd=sd1\nrd=r,wd=w":                          "t.vdb:1: range=(0,20g): \"20g\" is not a percentage",
	} {
		if _, err := ParseVdbench("t.vdb", text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q:\n got %v\nwant %q", text, err, want)
		}
	}
}

func TestIsVdbench(t *testing.T) {
	for text, want := range map[string]bool{
		"*comment\nsd=sd1,lun=/dev/sdb\n": true,
		"; fio\n[global]\nrw=read\n":      false,
		"":                                false,
	} {
		if IsVdbench(text) != want {
			t.Errorf("IsVdbench(%q) = %v", text, !want)
		}
	}
}
