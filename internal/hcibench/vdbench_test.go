package hcibench

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"starbench/internal/fio"
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
	p, err := Read("unused", path, string(b))
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

// The files HCIBench's vdbench generator wrote translate option for
// option, what vdbench counts inside elapsed (warmup) going to fio's
// ramp_time, compratio/dedupratio to fio's buffer percentages and random
// seeks to offsets drawn afresh (norandommap), as vdbench draws them.
func TestHCIBenchFilesTranslate(t *testing.T) {
	easy := []string{"direct=1", "ioengine=libaio", "ramp_time=1800", "runtime=1800", "size=100%", "time_based"}
	random := []string{"buffer_compress_percentage=50", "dedupe_percentage=50"}
	for file, want := range map[string][]string{
		"testdata/vdb-8vmdk-100ws-4k-70rdpct-100randompct-4threads":  append([]string{"bs=4k", "iodepth=4", "rw=randrw", "rwmixread=70", "norandommap=1"}, easy...),
		"testdata/vdb-8vmdk-100ws-256k-0rdpct-0randompct-1threads":   append([]string{"bs=256k", "iodepth=1", "rw=write"}, easy...),
		"testdata/vdb-8vmdk-100ws-8k-50rdpct-100randompct-4threads":  append(append([]string{"bs=8k", "iodepth=4", "rw=randrw", "rwmixread=50", "norandommap=1"}, easy...), random...),
		"testdata/vdb-8vmdk-100ws-4k-70rdpct-100randompct-16threads": append(append([]string{"bs=4k", "iodepth=16", "rw=randrw", "rwmixread=70", "norandommap=1"}, easy...), random...),
		"testdata/vdb-8vmdk-100ws-512k-0rdpct-0randompct-2threads":   append(append([]string{"bs=512k", "iodepth=2", "rw=write"}, easy...), random...),
		"testdata/vdb-5vmdk-20ws-8k-35rdpct-60randompct-2threads": {"bs=8k", "buffer_compress_percentage=50", "dedupe_percentage=67", "direct=1", "iodepth=2", "ioengine=libaio",
			"norandommap=1", "percentage_random=60", "rate_iops=1050,1950", "runtime=600", "rw=randrw", "rwmixread=35", "size=20%", "time_based"},
	} {
		p := parseFile(t, file)
		if p.Format != "vdbench" || len(p.Runs) != 1 || p.Runs[0].Name != "run1" {
			t.Fatalf("%s: %s runs %v", file, p.Format, p.Runs)
		}
		slices.Sort(want)
		if got := options(t, p, "run1", "wd1"); !slices.Equal(got, want) {
			t.Errorf("%s:\n got %v\nwant %v", file, got, want)
		}
	}
	notes := strings.Join(parseFile(t, "testdata/vdb-5vmdk-20ws-8k-35rdpct-60randompct-2threads").Notes, "\n")
	for _, want := range []string{"iorate=15000 is each worker's total over its 5 SDs, reads and writes together: 3000 I/Os a second per data disk, rate_iops=1050,1950",
		"debug=86 is vdbench's own diagnostics", "interval=5: vdbench's reporting interval", "runs on 5 SDs",
		"wd=wd1: vdbench dedups in units of dedupunit=4k; fio repeats whole write buffers (bs=8k)"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if notes := strings.Join(parseFile(t, "testdata/vdb-8vmdk-100ws-4k-70rdpct-100randompct-16threads").Notes, "\n"); strings.Contains(notes, "dedupunit") {
		t.Errorf("xfersize=4k is dedupunit=4k, yet a note says otherwise:\n%s", notes)
	}
}

// The files HCIBench's fio generator (fioconfig) wrote read as they are:
// one job per data disk, the n-th naming /dev/sdX (or a vNVMe device) and
// running on the worker's n-th data disk.
func TestHCIBenchFioFilesRead(t *testing.T) {
	for file, want := range map[string]struct {
		jobs   int
		global []string
	}{
		"testdata/fio-8vmdk-100ws-4k-70rdpct-100randompct-4threads":                      {8, []string{"rw=randrw", "rwmixread=70", "bs=4k", "ramp_time=1800", "runtime=3600"}},
		"testdata/fio-8vmdk-100ws-256k-0rdpct-0randompct-1threads":                       {8, []string{"rw=write", "bs=256k"}},
		"testdata/fio-8vmdk-100ws-4k-70rdpct-100randompct-16threads-50compress-50dedupe": {8, []string{"buffer_compress_percentage=50", "dedupe_percentage=50"}},
		"testdata/fio-4vmdk-100ws-4k-70rdpct-100randompct-1000lt":                        {4, []string{"latency_target=1000", "latency_percentile=95.0", "iodepth=1024"}},
		"testdata/fio-5vmdk-20ws-8k-35rdpct-60randompct-2threads":                        {5, []string{"rate_iops=15000", "percentage_random=60", "size=20%"}},
	} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Read("hci", file, string(b))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if p.Format != "fio" || len(p.Runs) != 1 {
			t.Fatalf("%s: %s, %d runs", file, p.Format, len(p.Runs))
		}
		wl := p.Runs[0].Workload
		if len(wl.Jobs) != want.jobs || len(wl.Phases()) != 1 {
			t.Fatalf("%s: jobs %v phases %v", file, wl.JobNames(), wl.Phases())
		}
		text := wl.Text()
		for _, o := range want.global {
			if !strings.Contains(text, "\n"+o+"\n") {
				t.Errorf("%s lacks %s:\n%s", file, o, text)
			}
		}
		var disks []fio.Disk
		for i := range want.jobs {
			disks = append(disks, fio.Disk{Path: fmt.Sprintf("/data/disk%d", i+1)})
		}
		targets, err := wl.Targets(fio.Worker{Name: "w1", Disks: disks})
		if err != nil {
			t.Fatal(err)
		}
		for i, tg := range targets {
			if tg.Job != i || len(tg.Disks) != 1 || tg.Disks[0] != disks[i] {
				t.Errorf("%s: target %d is %+v, want job %d on %s", file, i, tg, i, disks[i].Path)
			}
		}
		if _, err := wl.Targets(fio.Worker{Name: "w1", Disks: disks[:2]}); err == nil || !strings.Contains(err.Error(), "worker w1 has 2 data disks") {
			t.Errorf("%s on a worker with 2 disks: %v", file, err)
		}
		// HCIBench writes its io_rate as rate_iops on every job, which
		// fio applies per job and direction: the notes say so.
		notes := strings.Join(p.Notes, "\n")
		wantNote := "HCIBench's io_rate 15000 is rate_iops on each of the file's 5 jobs (one per data disk): fio caps each job's reads and its writes at it on their own, so a worker may do up to 5 times 15000 reads"
		if limited := strings.Contains(file, "5vmdk"); limited != strings.Contains(notes, wantNote) || !limited && notes != "" {
			t.Errorf("%s: notes %q", file, notes)
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
	if got := options(t, p, "scan", "oltp"); !slices.Contains(got, "iodepth=16") || !slices.Contains(got, "rate_iops=700,300") || !slices.Contains(got, "runtime=300") {
		t.Errorf("scan/oltp (threads=32 and iorate=2000 over 2 SDs, 70 %% reads): %v", got)
	}
}

// vdbench's iorate is the I/Os of reads and writes together, shared
// equally by the rd's workloads; fio's rate_iops caps each direction on its
// own, so rate_iops=N on a 70/30 mix would run N reads and N writes (fio
// 3.33). A mixed wd gets a rate per direction, a one-direction wd one rate,
// and two workloads half the rate each.
func TestVdbenchRateIsTheTotal(t *testing.T) {
	text := "sd=sd1,lun=/dev/sdb,openflags=o_direct\nsd=sd2,lun=/dev/sdc,openflags=o_direct\n" +
		"wd=oltp,sd=*,rdpct=70,xfersize=4k\nwd=log,sd=*,rdpct=0,xfersize=64k\n" +
		"rd=one,wd=oltp,iorate=2000,elapsed=60\nrd=two,wd=(oltp,log),iorate=2000,elapsed=60\n"
	p, err := ParseVdbench("t.vdb", text)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ run, wd, rate string }{
		{"one", "oltp", "rate_iops=700,300"},
		{"two", "oltp", "rate_iops=350,150"},
		{"two", "log", "rate_iops=500"},
	} {
		if got := options(t, p, c.run, c.wd); !slices.Contains(got, c.rate) {
			t.Errorf("rd=%s wd=%s: %v, want %s", c.run, c.wd, got, c.rate)
		}
	}
	if notes := strings.Join(p.Notes, "\n"); !strings.Contains(notes, "rd=two iorate=2000 is each worker's total over its 2 SDs, shared by its 2 workloads, reads and writes together: 500 I/Os a second per data disk") {
		t.Errorf("notes do not say how the rate is shared:\n%s", notes)
	}
}

// vdbench's openflags are open(2)'s flags, as fio's direct and sync set
// them: o_direct, o_sync and o_dsync, alone or listed; the sd's flags, or
// the rd's where the sd gives none.
func TestVdbenchOpenFlags(t *testing.T) {
	for _, c := range []struct {
		sd, rd     string
		want, lack []string
	}{
		{",openflags=o_direct", "", []string{"direct=1"}, []string{"sync="}},
		{",openflags=(o_direct,o_sync)", "", []string{"direct=1", "sync=1"}, nil},
		{",openflags=(o_dsync,directio)", "", []string{"direct=1", "sync=dsync"}, nil},
		{"", ",openflags=o_direct", []string{"direct=1"}, nil},
		{"", ",openflags=o_sync", []string{"direct=0", "sync=1"}, nil},
	} {
		text := "sd=sd1,lun=/dev/sdb" + c.sd + "\nwd=w,sd=sd1,xfersize=4k,rdpct=0\nrd=r,wd=w,elapsed=60" + c.rd + "\n"
		p, err := ParseVdbench("t.vdb", text)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		got := options(t, p, "r", "w")
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("sd%s rd%s: %v, want %s", c.sd, c.rd, got, w)
			}
		}
		for _, l := range c.lack {
			if slices.ContainsFunc(got, func(o string) bool { return strings.HasPrefix(o, l) }) {
				t.Errorf("sd%s rd%s: %v, want no %s", c.sd, c.rd, got, l)
			}
		}
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
		"sd=sd1,lun=/dev/sdb\nsd=sd2,lun=/dev/sdc\nwd=w,sd=sd2\nrd=r,wd=w":                   "t.vdb:3: wd=w drives sd2 of the SDs sd1,sd2",
		"dedupratio=2\ndedupunit=4q\n" + base + "rd=run1,wd=wd1":                             "t.vdb:2: dedupunit=4q: want a size such as 4k",
		"compratio=0.5\n" + base + "rd=run1,wd=wd1":                                          "t.vdb:1: compratio=0.5: want a ratio of 1 or more",
		"sd=sd1,lun=/dev/sdb,openflags=(o_direct,o_rsync)\nwd=w,sd=sd1\nrd=r,wd=w":           "t.vdb:1: openflags=(o_direct,o_rsync): o_rsync has no fio equivalent starbench translates",
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

// A vdbench file shares its threads and iorate among its SDs, one per data
// disk: its runs refuse workers with another number of disks, which would
// run another total of outstanding I/Os and another rate.
func TestVdbenchRunsNeedOneDiskPerSD(t *testing.T) {
	wl := parseFile(t, "testdata/vdb-5vmdk-20ws-8k-35rdpct-60randompct-2threads").Runs[0].Workload
	worker := func(n int) fio.Worker {
		w := fio.Worker{Name: "w-01"}
		for i := range n {
			w.Disks = append(w.Disks, fio.Disk{Name: fmt.Sprintf("disk%d", i+1), Path: fmt.Sprintf("/dev/sd%c", 'b'+i)})
		}
		return w
	}
	if ts, err := wl.Targets(worker(5)); err != nil || len(ts) != 5 {
		t.Fatalf("5 disks for 5 SDs: %d targets, %v; want one a disk", len(ts), err)
	}
	for _, n := range []int{4, 8} {
		_, err := wl.Clone().Targets(worker(n))
		if want := fmt.Sprintf("workload run1 was written for 5 data disks per worker (their share of its outstanding I/Os and rate is per disk), but worker w-01 has %d; deploy the workers with disks=5", n); err == nil || err.Error() != want {
			t.Errorf("%d disks for 5 SDs: %v; want %q", n, err, want)
		}
	}
	// HCIBench's fio files name their disks: a worker with more runs them.
	text, err := os.ReadFile("testdata/fio-5vmdk-20ws-8k-35rdpct-60randompct-2threads")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Read("fio5", "fio5", string(text))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Runs[0].Workload.Targets(worker(8)); err != nil {
		t.Errorf("a fio file of 5 disks on 8: %v", err)
	}
}
