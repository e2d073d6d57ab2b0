package fio

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func parseT(t *testing.T, text string) *Workload {
	t.Helper()
	wl, err := ParseWorkload("t", "t.fio", text, LoadOptions{Env: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	return wl
}

func noEnv(string) (string, bool) { return "", false }

func parseErr(text string, o LoadOptions) error {
	if o.Env == nil {
		o.Env = noEnv
	}
	_, err := ParseWorkload("t", "t.fio", text, o)
	return err
}

// fioParses runs fio --parse-only on text: fio itself must accept what starbench renders.
func fioParses(t *testing.T, text string) {
	t.Helper()
	if _, err := exec.LookPath("fio"); err != nil {
		return
	}
	path := filepath.Join(t.TempDir(), "r.fio")
	os.WriteFile(path, []byte(text), 0o644)
	if out, err := exec.Command("fio", "--parse-only", path).CombinedOutput(); err != nil {
		t.Fatalf("fio rejects the rendering: %v\n%s\n%s", err, out, text)
	}
}

// TestJobFilesRoundTrip parses every sample file, renders it and parses the
// rendering: the workload must come back identical, and fio must accept it.
func TestJobFilesRoundTrip(t *testing.T) {
	paths, _ := filepath.Glob("testdata/jobs/*.fio")
	if len(paths) < 3 {
		t.Fatalf("only %d sample job files", len(paths))
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			wl, err := LoadWorkload(p, LoadOptions{Env: noEnv})
			if err != nil {
				t.Fatal(err)
			}
			text := wl.Text()
			back := parseT(t, text)
			back.Name = wl.Name
			if !reflect.DeepEqual(wl, back) {
				t.Fatalf("render changed the workload:\n%s\nfirst  %+v\nsecond %+v", text, wl, back)
			}
			fioParses(t, text)
		})
	}
}

func TestParseTypedAndRawOptions(t *testing.T) {
	wl, err := LoadWorkload("testdata/jobs/mixed-sizes.fio", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := Job{Name: "oltp-like", RW: "randrw", RWMixRead: 40, IODepth: 64, NumJobs: 2, RuntimeSec: 120, TimeBased: true,
		BSSplit:                  []BSSplit{{512, 4}, {4096, 70}, {8192, 10}, {16384, 8}, {65536, 8}},
		RateIOPS:                 5000,
		BufferCompressPercentage: 50, DedupePercentage: 30,
		Percentiles: []float64{50, 95, 99, 99.9, 99.99},
		Options: []Option{{"blockalign", "4k"}, {"norandommap", ""}, {"randrepeat", "0"},
			{"rate", "10m,5m"}, {"random_distribution", "zoned:50/5:30/15:20/80"}}}
	if wl.Name != "mixed-sizes" || len(wl.Jobs) != 1 || !reflect.DeepEqual(wl.Jobs[0], want) {
		t.Fatalf("parsed %q\n%+v\nwant\n%+v", wl.Name, wl.Jobs, want)
	}
}

func TestLastSettingWins(t *testing.T) {
	j := parseT(t, "[a]\nbs=4k-16k\nbs=8k\nsize=50%\nsize=1g\ndirect=1\ndirect=0\n").Jobs[0]
	if j.BlockSize != 8192 || j.Size != 1<<30 || j.Direct || !reflect.DeepEqual(j.Options, []Option{{"direct", "0"}}) {
		t.Fatalf("got %+v", j)
	}
	j = parseT(t, "[a]\nbs=8k\nblocksize=4k-16k\n").Jobs[0]
	if j.BlockSize != 0 || !reflect.DeepEqual(j.Options, []Option{{"blocksize", "4k-16k"}}) {
		t.Fatalf("a later raw bs must replace the typed one: %+v", j)
	}
}

// TestInlineComments: fio ends a line at the first ';' or '#'.
func TestInlineComments(t *testing.T) {
	j := parseT(t, "[a] ; the job\nbs=8k # block\nruntime=30;seconds\niodepth = 4\t# deep\n# rw=write\n; x=1\n").Jobs[0]
	if j.BlockSize != 8192 || j.RuntimeSec != 30 || j.IODepth != 4 || j.RW != "" || j.Options != nil {
		t.Fatalf("got %+v", j)
	}
}

// TestFioSizeUnits: sizes mean what they mean to fio, whose default
// kb_base=1024 takes 4KiB as 4000 bytes and 1mi as 1 MiB.
func TestFioSizeUnits(t *testing.T) {
	for text, want := range map[string]int64{"[a]\nbs=4KiB\n": 4000, "[a]\nbs=4k\n": 4096, "[a]\nbs=4kb\n": 4096,
		"[a]\nsize=1mi\n": 1 << 20, "[a]\nbs=8K\nkb_base=1000\n": 8000, "[a]\nkb_base=1000\nbs=4KiB\n": 4096} {
		j := parseT(t, text).Jobs[0]
		if got := max(j.BlockSize, j.Size); got != want {
			t.Errorf("%q: %d bytes, want %d", text, got, want)
		}
	}
	// A job counting in 1000s renders its sizes in bytes, so fio reads them back the same.
	j := parseT(t, "[a]\nkb_base=1000\nbs=8k\n").Jobs[0]
	if r := j.Render(); r[0] != (Option{"bs", "8000"}) {
		t.Errorf("rendered %v", r)
	}
}

func TestUnknownOptionSuggests(t *testing.T) {
	for text, want := range map[string]string{
		"[a]\nrw=read\niodepht=32\n": `t.fio:3: unknown option "iodepht"; did you mean iodepth?`,
		"[a]\nrunttime=30\n":         `t.fio:2: unknown option "runttime"; did you mean runtime?`,
		"[a]\nxyzzy_quux_frob=1\n":   `t.fio:2: unknown option "xyzzy_quux_frob": fio-3.33 has no such option`,
		// fio lists these still but fails parsing them.
		"[a]\npercentage_sequential=30\n": `t.fio:2: option "percentage_sequential" is deprecated: fio-3.33 fails parsing it; give percentage_random, its complement (percentage_sequential=30 is percentage_random=70)`,
		"[a]\nrwmixcycle=100\n":           `t.fio:2: option "rwmixcycle" is deprecated`,
	} {
		if err := parseErr(text, LoadOptions{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", text, err, want)
		}
	}
	// Aliases and engine options are fio's too.
	wl := parseT(t, "[a]\nreadwrite=randread\nss=iops:2%\nss_dur=30s\nioengine=io_uring\nhipri\nhttp_mode=s3\n")
	if j := wl.Jobs[0]; j.RW != "randread" || !j.hasRaw("steadystate") || !j.hasRaw("hipri") {
		t.Errorf("got %+v", j)
	}
}

func TestParseErrors(t *testing.T) {
	for text, want := range map[string]string{
		"bs=4k\n[a]\n":                "t.fio:1: option \"bs=4k\" comes before any section",
		"[a\nbs=4k\n":                 "t.fio:1: \"[a\" is not a section header",
		"[global]\nrw=read\n":         "no job section",
		"[a]\n=4k\n":                  "t.fio:2: \"=4k\" has no option name",
		"[a] junk\nrw=read\n":         "not a section header",
		"[a]\nbs=\n":                  "t.fio:2: bs= has no value",
		"[a]\nwait_for=b\n":           "t.fio:2: [a] wait_for=b: no job is called b; name one of a",
		"[a]\nunified_rw_reporting=1": "t.fio:2: [a] unified_rw_reporting=1: starbench reports read, write and trim apart",
		"[a]\nrw=${FIO_RW}\n":         "t.fio:2: rw=${FIO_RW}: ${FIO_RW} is not set",
	} {
		if err := parseErr(text, LoadOptions{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error containing %q", text, err, want)
		}
	}
}

func TestVariables(t *testing.T) {
	env := func(n string) (string, bool) {
		if n == "SIZE" {
			return "64m", true
		}
		return "", false
	}
	wl, err := ParseWorkload("t", "t.fio", "[a]\nsize=${SIZE}\nnumjobs=${N}\niodepth=$ncpus\nsize_unused=0\n", LoadOptions{Vars: map[string]string{"N": "4"}, Env: env})
	if err == nil {
		t.Fatalf("size_unused accepted: %+v", wl)
	}
	wl, err = ParseWorkload("t", "t.fio", "[a]\nsize=${SIZE}\nnumjobs=${N}\niodepth=$ncpus\nbs=${EMPTY}4k\n", LoadOptions{Vars: map[string]string{"N": "4", "EMPTY": ""}, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	j := wl.Jobs[0]
	// fio's own keywords stay for each worker's fio to expand with its own machine.
	if j.Size != 64<<20 || j.NumJobs != 4 || j.IODepth != 0 || j.BlockSize != 4096 || !reflect.DeepEqual(j.Options, []Option{{"iodepth", "$ncpus"}}) {
		t.Fatalf("got %+v", j)
	}
}

func TestIncludes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
	}
	write("main.fio", "[global]\nrw=randread\ninclude inc/glob.fio\n[a]\nbs=4k\ninclude inc/job.fio\n")
	write("inc/glob.fio", "; shared\nruntime=10\ninclude more.fio\n")
	write("inc/more.fio", "time_based\n")
	write("inc/job.fio", "iodepth=4\n")
	wl, err := LoadWorkload(filepath.Join(dir, "main.fio"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if j := wl.Jobs[0]; j.RW != "randread" || j.RuntimeSec != 10 || !j.TimeBased || j.IODepth != 4 || j.BlockSize != 4096 {
		t.Fatalf("got %+v", j)
	}
	write("bad.fio", "[a]\ninclude inc/sec.fio\n")
	write("inc/sec.fio", "rw=read\n[b]\n")
	if _, err := LoadWorkload(filepath.Join(dir, "bad.fio"), LoadOptions{}); err == nil || !strings.Contains(err.Error(), "inc/sec.fio:2: \"[b]\": an included file holds options only") {
		t.Errorf("section in include: %v", err)
	}
	write("loop.fio", "[a]\ninclude loop.inc\n")
	write("loop.inc", "include loop.inc\n")
	if _, err := LoadWorkload(filepath.Join(dir, "loop.fio"), LoadOptions{}); err == nil || !strings.Contains(err.Error(), "nest deeper") {
		t.Errorf("include cycle: %v", err)
	}
	write("typo.fio", "[a]\ninclude inc/typo.fio\n")
	write("inc/typo.fio", "rw=read\niodepht=2\n")
	if _, err := LoadWorkload(filepath.Join(dir, "typo.fio"), LoadOptions{}); err == nil || !strings.Contains(err.Error(), "inc/typo.fio:2: unknown option \"iodepht\"") {
		t.Errorf("a typo in an include is named at its line: %v", err)
	}
}

// TestGlobalOrder: a [global] section sets defaults for the jobs after it only.
func TestGlobalOrder(t *testing.T) {
	wl := parseT(t, "[global]\nbs=4k\n[a]\n[global2]\nbs=8k\nrw=write\n[b]\n")
	if a, b := wl.Jobs[0], wl.Jobs[1]; a.BlockSize != 4096 || a.RW != "" || b.BlockSize != 8192 || b.RW != "write" {
		t.Fatalf("a %+v b %+v", a, b)
	}
}

func TestPhases(t *testing.T) {
	wl := parseT(t, "[global]\nruntime=10\n[fill]\nrw=write\n[r1]\nstonewall\nramp_time=5\n[r2]\n[after]\nwait_for=r2\nruntime=3\n[last]\nwait_for_previous\n")
	if got, want := wl.Phases(), [][]int{{0}, {1, 2}, {3}, {4}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("phases %v, want %v", got, want)
	}
	if got := wl.Seconds(); got != 10+15+3+10 {
		t.Errorf("seconds %d, want 38", got)
	}
	if got := parseT(t, "[a]\nruntime=10\n[b]\nsize=1m\n").Seconds(); got != 0 {
		t.Errorf("a job without runtime: seconds %d, want 0", got)
	}
	// A delayed job runs its delay first (the longest of a range; a part
	// of a second counts as one): a run's time bound must wait for it.
	for delay, want := range map[string]int{"120": 180, "2m": 180, "10-30": 90, "500ms": 61} {
		wl := parseT(t, "[global]\nruntime=60\n[a]\n[b]\nstartdelay="+delay+"\n")
		if got := wl.Seconds(); got != want {
			t.Errorf("startdelay=%s: seconds %d, want %d", delay, got, want)
		}
	}
}

// TestHCIBenchFileTargets: per-disk sections naming /dev/sdb.. run on the
// workers' data disks in order; a job naming no file runs on every disk.
func TestHCIBenchFileTargets(t *testing.T) {
	wl, err := LoadWorkload("testdata/jobs/hcibench-vdb-8disk-4k-70read.fio", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(wl.Jobs) != 4 || wl.Jobs[0].Name != "sdb" || wl.Jobs[3].Name != "sde" || wl.Jobs[3].RWMixRead != 70 {
		t.Fatalf("jobs %v", wl.JobNames())
	}
	w := Worker{Name: "w1"}
	for i := range 4 {
		w.Disks = append(w.Disks, Disk{Name: "disk" + string(rune('1'+i)), Path: "/data/d" + string(rune('1'+i)), SizeBytes: 1 << 30})
	}
	ts, err := wl.Targets(w)
	if err != nil {
		t.Fatal(err)
	}
	for i, tg := range ts {
		if tg.Job != i || tg.DiskLabel() != w.Disks[i].Name || tg.Filename != w.Disks[i].Path {
			t.Errorf("target %d: %+v", i, tg)
		}
	}
	short := Worker{Name: "w2", Disks: w.Disks[:2]}
	if _, err := wl.Targets(short); err == nil || !strings.Contains(err.Error(), "names 4 files (/dev/sdb, /dev/sdc,") || !strings.Contains(err.Error(), "worker w2 has 2 data disks") {
		t.Errorf("too few disks: %v", err)
	}
}

func TestWorkerFile(t *testing.T) {
	wl := parseT(t, "[global]\nrw=randread\nbs=4k\nruntime=1\ntime_based\ngroup_reporting\n[a]\nstonewall\n[b]\nfilename=x:y\nnew_group\n[n]\nioengine=net\nfilename=localhost,8888\n")
	w := Worker{Name: "w", Disks: []Disk{{Name: "disk1", Path: "/dev/sdb", SizeBytes: 1 << 30}, {Name: "disk2", Path: `C:\x`, SizeBytes: 1 << 20}, {Name: "disk3", Path: "/z"}}}
	text, targets, err := wl.WorkerFile(w)
	if err != nil {
		t.Fatal(err)
	}
	want := `[a@disk1]
rw=randread
bs=4k
runtime=1
time_based
stonewall
filename=/dev/sdb
size=1073741824

[a@disk2]
rw=randread
bs=4k
runtime=1
time_based
filename=C\:\x
size=1048576

[a@disk3]
rw=randread
bs=4k
runtime=1
time_based
filename=/z

[b]
rw=randread
bs=4k
runtime=1
time_based
new_group
filename=/dev/sdb:C\:\x
size=2097152

[n]
rw=randread
bs=4k
runtime=1
time_based
ioengine=net
filename=localhost,8888
`
	if text != want {
		t.Fatalf("got\n%s\nwant\n%s", text, want)
	}
	labels := []string{}
	for _, tg := range targets {
		labels = append(labels, wl.Jobs[tg.Job].Name+"@"+tg.DiskLabel())
	}
	if got := strings.Join(labels, " "); got != "a@disk1 a@disk2 a@disk3 b@disk1+disk2 n@-" {
		t.Errorf("targets %s", got)
	}
	if _, _, err := wl.WorkerFile(Worker{Name: "none"}); err == nil || !strings.Contains(err.Error(), "worker none has no data disks") {
		t.Errorf("no disks: %v", err)
	}
}

// TestWorkerFileKeepsRawSize: a size fio reads but the model cannot type
// (size=50%) is the job's size; a per-disk size would override it.
func TestWorkerFileKeepsRawSize(t *testing.T) {
	wl := NewWorkload(Job{Name: "w", RW: "randread", RuntimeSec: 1, Options: []Option{{"size", "50%"}}})
	text, _, err := wl.WorkerFile(Worker{Name: "w", Disks: []Disk{{Name: "disk1", Path: "/dev/sdb", SizeBytes: 1 << 30}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "size=50%\nfilename=/dev/sdb\n"; !strings.HasSuffix(text, want) {
		t.Fatalf("got\n%s\nwant it to end with\n%s", text, want)
	}
}

func TestRates(t *testing.T) {
	for text, want := range map[string][2][3]float64{
		"[a]\nrate_iops=100\n":      {{100, 100, 100}, {}},
		"[a]\nrate_iops=100,50\n":   {{100, 50, 50}, {}},
		"[a]\nrate_iops=100,\n":     {{100, 0, 0}, {}},
		"[a]\nrate_iops=,50\n":      {{0, 50, 50}, {}},
		"[a]\nrate_iops=1,2,3\n":    {{1, 2, 3}, {}},
		"[a]\nrate=1m,500k\n":       {{}, {1 << 20, 500 << 10, 500 << 10}},
		"[a]\nrate=2m\nrate_iops=7": {{7, 7, 7}, {2 << 20, 2 << 20, 2 << 20}},
	} {
		j := parseT(t, text).Jobs[0]
		iops, bytes, ok := j.Rates()
		if !ok || iops != want[0] || bytes != want[1] {
			t.Errorf("%q: iops %v bytes %v ok %v, want %v", text, iops, bytes, ok, want)
		}
	}
}

func TestSizesAndDurations(t *testing.T) {
	for in, want := range map[string]int64{"4096": 4096, "4k": 4096, "4KiB": 4096, "64m": 64 << 20, "50GiB": 50 << 30, "1g": 1 << 30} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "4x", "-1", "1.5g", "50%"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
	for in, want := range map[string]int{"30": 30, "30s": 30, "2m": 120, "1h": 3600} {
		if got, err := ParseSeconds(in); err != nil || got != want {
			t.Errorf("ParseSeconds(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := ParseSeconds("500ms"); err == nil {
		t.Error("ParseSeconds accepted 500ms")
	}
}

func TestDropRaw(t *testing.T) {
	j := JobFromOptions("a", []Option{{"blocksize", "4k,64k"}, {"size", "50%"}, {"norandommap", ""}})
	j.DropRaw("bs", "size")
	if !reflect.DeepEqual(j.Options, []Option{{"norandommap", ""}}) {
		t.Fatalf("options %+v, want only norandommap", j.Options)
	}
}

// A word where fio reads a number (an integer, 0 or 1, a time), or a
// boolean above 1, is refused where it stands, as fio 3.33 fails parsing
// it, whether it comes from a job file or a job made in a script; values
// fio reads are kept, its own $keywords too. With fio installed, fio
// --parse-only agrees on each.
func TestWordsForNumbersAreRefusedWhereTheyStand(t *testing.T) {
	refused := map[string]string{
		"iodepth=deep":              "t.fio:4: [a] iodepth=deep: fio-3.33 fails parsing it; want a number, like iodepth=100",
		"direct=yes":                "t.fio:4: [a] direct=yes: fio-3.33 fails parsing it; want 0 or 1, like direct=1",
		"direct=2":                  "t.fio:4: [a] direct=2: 2 is out of fio-3.33's range for direct; want 0 or 1",
		"exitall=true":              "t.fio:4: [a] exitall=true: fio-3.33 fails parsing it; want 0 or 1, or exitall alone",
		"startdelay=soon":           "t.fio:4: [a] startdelay=soon: fio-3.33 fails parsing it; want a time, like startdelay=10s",
		"size=big":                  "t.fio:4: [a] size=big: fio-3.33 fails parsing it; want a size, like size=4g, or a percentage, like size=10%",
		"percentile_list=abc":       "t.fio:4: [a] percentile_list=abc: fio-3.33 fails parsing it; want numbers separated by ':', like percentile_list=50:99",
		"bsrange=abc":               "t.fio:4: [a] bsrange=abc: fio-3.33 fails parsing it; want a range, like bsrange=4k-64k",
		"number_ios=many":           "t.fio:4: [a] number_ios=many: fio-3.33 fails parsing it; want a number, like number_ios=1000",
		"size=99999999999999999999": "t.fio:4: [a] size=99999999999999999999: fio-3.33 fails parsing a number beyond 9223372036854775807; want a size, like size=4g, or a percentage, like size=10%",
	}
	kept := []string{"iodepth=$ncpus", "direct=01", "iodepth=4x", "rate_iops=500,200", "thinktime=1ms", "exitall", "bs=4k,64k", "startdelay=2-4"}
	// A later value of a list beyond 64 bits fio 3.33 passes without a
	// word; starbench refuses it as it does the first.
	if err := loadOption("rate_iops=500,99999999999999999999"); err == nil || !strings.Contains(err.Error(), "rate_iops=500,99999999999999999999: fio-3.33 fails parsing a number beyond") {
		t.Errorf("rate_iops=500,99999999999999999999: %v, want it refused", err)
	}
	for opt, want := range refused {
		if err := loadOption(opt); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", opt, err, want)
		}
	}
	for _, opt := range kept {
		if err := loadOption(opt); err != nil {
			t.Errorf("%s: %v, want it kept", opt, err)
		}
	}
	key, value, _ := strings.Cut("iodepth=deep", "=")
	made := &Workload{Name: "w", Jobs: []Job{{Name: "x", RW: "read", Options: []Option{{Key: key, Value: value}}}}}
	if err := made.Validate(); err == nil || !strings.Contains(err.Error(), `job "x": iodepth=deep: fio-3.33 fails parsing it`) {
		t.Errorf("a job made with iodepth=deep: %v, want it refused", err)
	}
	if _, err := exec.LookPath("fio"); err != nil {
		return
	}
	parses := func(opt string) bool {
		ok, _ := fioParseOnly(t, opt)
		return ok
	}
	for opt := range refused {
		if parses(opt) {
			t.Errorf("fio parses %s, which starbench refuses", opt)
		}
	}
	// Every option fio lists as a size, a range, a float list or a string
	// it reads as a number: abc is refused by both.
	for name, spec := range knownOptions {
		if _, ok := numberStrings[name]; !ok && spec.typ != "(null)" && !spec.floatList() && !strings.HasPrefix(spec.typ, "one to three") {
			continue
		}
		opt := name + "=abc"
		if err := loadOption(opt); err == nil {
			t.Errorf("%s loads, want it refused", opt)
		}
		if parses(opt) {
			t.Errorf("fio parses %s, which starbench refuses", opt)
		}
	}
	for _, opt := range kept {
		if !parses(opt) {
			t.Errorf("fio fails parsing %s, which starbench keeps", opt)
		}
	}
}

// TestValuesOutOfFioRangeAreRefused: a number out of the range fio gives
// its option is refused when the job is read, with the job file's line,
// in any value of a list and below a least of 0 too; every whole-number
// option's least and most load and one past either is refused, as
// fio --parse-only fails them.
func TestValuesOutOfFioRangeAreRefused(t *testing.T) {
	refused := map[string]string{
		"iodepth=0":                "t.fio:4: [a] iodepth=0: 0 is out of fio-3.33's range for iodepth; want 1 or more",
		"rwmixread=101":            "t.fio:4: [a] rwmixread=101: 101 is out of fio-3.33's range for rwmixread; want 0 to 100",
		"nice=-21":                 "t.fio:4: [a] nice=-21: -21 is out of fio-3.33's range for nice; want -20 to 19",
		"bs=4k,0":                  "t.fio:4: [a] bs=4k,0: 0 is out of fio-3.33's range for bs; want 1 or more",
		"percentile_list=50:100.5": "t.fio:4: [a] percentile_list=50:100.5: 100.5 is out of fio-3.33's range for percentile_list; want 0 to 100",
		"rwmixread=-1":             "t.fio:4: [a] rwmixread=-1: -1 is out of fio-3.33's range for rwmixread; want 0 to 100",
		"rate_iops=500,-5":         "t.fio:4: [a] rate_iops=500,-5: -5 is out of fio-3.33's range for rate_iops; want 0 or more",
		"log_compression=1023":     "t.fio:4: [a] log_compression=1023: 1023 is out of fio-3.33's range for log_compression; want 1024 to 536870912",
		"prio=0x10":                "t.fio:4: [a] prio=0x10: 0x10 is out of fio-3.33's range for prio; want 0 to 7",
		"direct=0x2":               "t.fio:4: [a] direct=0x2: 0x2 is out of fio-3.33's range for direct; want 0 or 1",
	}
	for opt, want := range refused {
		if err := loadOption(opt); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", opt, err, want)
		}
	}
	for _, opt := range []string{"nice=-20", "log_compression=1k", "percentile_list=99.5:100", "bs=4k-8k", "iodepth=0x10", "prio=0x7", "thinktime=1s", "rwmixread=50%"} {
		if err := loadOption(opt); err != nil {
			t.Errorf("%s: %v, want it kept (fio's to read)", opt, err)
		}
	}
	made := &Workload{Name: "w", Jobs: []Job{{Name: "x", RW: "randrw", Options: []Option{{Key: "rwmixread", Value: "101"}}}}}
	if err := made.Validate(); err == nil || !strings.Contains(err.Error(), `job "x": rwmixread=101: 101 is out of`) {
		t.Errorf("a job made with rwmixread=101: %v, want it refused", err)
	}

	// Every whole-number option fio gives a range: its ends load, one past
	// either is refused.
	var ends, past []string
	for name, spec := range knownOptions {
		lim := spec.limits
		if lim == nil || !spec.wholeNumber() {
			continue
		}
		value := func(v float64) string { return name + "=" + strconv.FormatFloat(v, 'f', -1, 64) }
		ends = append(ends, value(lim.min))
		if lim.min > 0 {
			past = append(past, value(lim.min-1))
		}
		if !math.IsInf(lim.max, 1) {
			ends = append(ends, value(lim.max))
			past = append(past, value(lim.max+1))
		}
	}
	if len(ends) < 150 || len(past) < 70 {
		t.Fatalf("%d ends and %d values past them: fio 3.33 ranges 120 whole-number options", len(ends), len(past))
	}
	for _, opt := range ends {
		if err := loadOption(opt); err != nil {
			t.Errorf("%s: %v, want it kept", opt, err)
		}
	}
	for _, opt := range past {
		if err := loadOption(opt); err == nil || !strings.Contains(err.Error(), "is out of fio-3.33's range") {
			t.Errorf("%s: %v, want it refused as out of range", opt, err)
		}
	}
	if _, err := exec.LookPath("fio"); err != nil {
		return
	}
	// fio agrees: it fails parsing each value past an end, and reports a
	// later value of a list out of range; it parses the ends (one job
	// each, in one file) but replay_align=0, which its power-of-2 rule
	// refuses.
	for _, opt := range past {
		if ok, _ := fioParseOnly(t, opt); ok {
			t.Errorf("fio parses %s, which starbench refuses", opt)
		}
	}
	ends = slices.DeleteFunc(ends, func(opt string) bool { return opt == "replay_align=0" })
	if ok, said := fioParseOnly(t, ends...); !ok {
		t.Errorf("fio fails parsing an end starbench keeps: %s", said)
	}
	for _, opt := range []string{"bs=4k,0", "percentile_list=50:100.5"} {
		if _, said := fioParseOnly(t, opt); !strings.Contains(said, "out of range") {
			t.Errorf("fio says nothing of %s out of range: %q", opt, said)
		}
	}
}

// TestFlagsReadAsFioDoes: a yes-or-no option is on alone or when the
// number its value starts with is not 0 (stonewall=2 starts a phase,
// stonewall=0.5 does not), as fio's reporting groups show.
func TestFlagsReadAsFioDoes(t *testing.T) {
	on := map[string]bool{"": true, "1": true, "2": true, "-1": true, "1.5": true, "0x1": true, "+1": true, "1x": true,
		"0": false, "00": false, "0.5": false, "0x0": false}
	text := func(v string) string {
		if v == "" {
			return "[a]\nrw=write\nsize=64k\n[b]\nrw=read\nsize=64k\nstonewall\n"
		}
		return "[a]\nrw=write\nsize=64k\n[b]\nrw=read\nsize=64k\nstonewall=" + v + "\n"
	}
	for v, want := range on {
		if got := len(parseT(t, text(v)).Phases()) == 2; got != want {
			t.Errorf("stonewall=%s: a phase of its own %v, want %v", v, got, want)
		}
		exitall := parseT(t, strings.Replace(text(v), "stonewall", "exitall", 1))
		if got := exitall.Exitall(); got != want {
			t.Errorf("exitall=%s: exitall %v, want %v", v, got, want)
		}
	}
	if _, err := exec.LookPath("fio"); err != nil {
		return
	}
	// One job file: a writer and a reader for each value; fio's group id
	// steps at the reader where its stonewall is on.
	dir := t.TempDir()
	var job strings.Builder
	values := slices.Sorted(maps.Keys(on))
	for i, v := range values {
		fmt.Fprintf(&job, "[a%d]\nrw=write\nbs=4k\nsize=64k\nfilename=%s\n", i, filepath.Join(dir, "f"))
		fmt.Fprintf(&job, "[b%d]\nrw=read\nbs=4k\nsize=64k\nfilename=%s\n", i, filepath.Join(dir, "f"))
		if v == "" {
			job.WriteString("stonewall\n")
		} else {
			job.WriteString("stonewall=" + v + "\n")
		}
	}
	path := filepath.Join(dir, "j.fio")
	if err := os.WriteFile(path, []byte(job.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("fio", "--output-format=json", path).Output()
	if err != nil {
		t.Fatalf("fio: %v", err)
	}
	var res struct {
		Jobs []struct {
			GroupID int `json:"groupid"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Jobs) != 2*len(values) {
		t.Fatalf("fio's output %q: %v", out, err)
	}
	for i, v := range values {
		if got := res.Jobs[2*i+1].GroupID > res.Jobs[2*i].GroupID; got != on[v] {
			t.Errorf("fio: stonewall=%s starts a group %v, starbench says %v", v, got, on[v])
		}
	}
}

// TestWordsNoneOfAnOptionsAreRefused: a string option's value that is
// none of the words fio lists for it is refused when the job is read;
// each listed word loads (with a ':' or ',' tail too), and fio agrees:
// it fails parsing "bogus" for every such option and parses every word,
// but those it wants an argument after (zoned:..., iops:10%).
func TestWordsNoneOfAnOptionsAreRefused(t *testing.T) {
	if err, want := loadOption("rate_process=exponential"), "t.fio:4: [a] rate_process=exponential: fio-3.33 fails parsing it; want one of linear, poisson"; err == nil || err.Error() != want {
		t.Errorf("rate_process=exponential: %v, want %q", err, want)
	}
	for _, opt := range []string{"verify=MD5", "fallocate=false", "rw=randreadx:8", "random_distribution=zipfian:1.2"} {
		if err := loadOption(opt); err == nil || !strings.Contains(err.Error(), "fails parsing it; want one of") {
			t.Errorf("%s: %v, want it refused", opt, err)
		}
	}
	for _, opt := range []string{"rw=randread:8", "random_distribution=zipf:1.2", "continue_on_error=read,write", "fallocate=posix,keep", "ioengine=external:/lib/e.so", "profile=custom"} {
		if err := loadOption(opt); err != nil {
			t.Errorf("%s: %v, want it kept", opt, err)
		}
	}
	var words, bogus []string
	for _, name := range slices.Sorted(maps.Keys(knownOptions)) {
		spec := knownOptions[name]
		if slices.Contains(storedAsGiven, name) || len(spec.values) == 0 {
			continue
		}
		for _, v := range spec.values {
			words = append(words, name+"="+v)
		}
		bogus = append(bogus, name+"=bogus")
	}
	if len(bogus) < 25 {
		t.Fatalf("%d string options with words: fio 3.33 lists them for 26 besides ioengine and profile", len(bogus))
	}
	for _, opt := range words {
		if err := loadOption(opt); err != nil && strings.Contains(err.Error(), "want one of") {
			t.Errorf("%s: %v, want it kept", opt, err)
		}
	}
	for _, opt := range bogus {
		if err := loadOption(opt); err == nil {
			t.Errorf("%s loads, want it refused", opt)
		}
	}
	if _, err := exec.LookPath("fio"); err != nil {
		return
	}
	for _, opt := range bogus {
		if ok, _ := fioParseOnly(t, opt); ok {
			t.Errorf("fio parses %s, which starbench refuses", opt)
		}
	}
	wantsArgument := []string{"random_distribution=zoned", "random_distribution=zoned_abs", "steadystate=iops", "steadystate=iops_slope", "steadystate=bw", "steadystate=bw_slope"}
	words = slices.DeleteFunc(words, func(opt string) bool { return slices.Contains(wantsArgument, opt) })
	if ok, said := fioParseOnly(t, words...); !ok {
		t.Errorf("fio fails parsing a word starbench keeps: %s", said)
	}
}

// TestOptionsFioWantsAValueForAreRefusedAlone: an option fio does not take
// alone (iodepth, direct, rw) is refused so with what to give; the 22 fio
// takes alone load (exitall, stonewall, write_bw_log, cpus_allowed ...);
// fio parses those 22 and fails ten of the others given alone.
func TestOptionsFioWantsAValueForAreRefusedAlone(t *testing.T) {
	for opt, want := range map[string]string{
		"iodepth":   "t.fio:4: [a] iodepth: fio-3.33 fails parsing it given alone; want a number, like iodepth=100",
		"direct":    "t.fio:4: [a] direct: fio-3.33 fails parsing it given alone; want 0 or 1, like direct=1",
		"rw":        "t.fio:4: [a] rw: fio-3.33 fails parsing it given alone; want one of read, write, trim, randread, randwrite, randtrim, rw, readwrite, randrw, trimwrite, randtrimwrite",
		"filename":  "t.fio:4: [a] filename: fio-3.33 fails parsing it given alone; want a value, like filename=VALUE",
		"readwrite": "t.fio:4: [a] readwrite: fio-3.33 fails parsing it given alone; want one of read, write, trim, randread, randwrite, randtrim, rw, readwrite, randrw, trimwrite, randtrimwrite",
	} {
		if err := loadOption(opt); err == nil || err.Error() != want {
			t.Errorf("%s alone: %v, want %q", opt, err, want)
		}
	}
	var alone, refused []string
	for _, name := range slices.Sorted(maps.Keys(knownOptions)) {
		spec := knownOptions[name]
		switch {
		case spec.typ == "":
			// an engine's option: not known
		case spec.bare:
			alone = append(alone, name)
		default:
			refused = append(refused, name)
		}
	}
	if len(alone) < 20 || len(refused) < 190 {
		t.Fatalf("%d options taken alone, %d not: fio 3.33 takes 22 alone of its 217 general options", len(alone), len(refused))
	}
	for _, name := range alone {
		if err := loadOption(name); err != nil && strings.Contains(err.Error(), "given alone") {
			t.Errorf("%s alone: %v, want it kept", name, err)
		}
	}
	for _, name := range refused {
		if err := loadOption(name); err == nil {
			t.Errorf("%s alone loads, want it refused", name)
		}
	}
	if _, err := exec.LookPath("fio"); err != nil {
		return
	}
	// fio parses the 22 in one job file, and fails a sample of the others
	// (genoptions measured each).
	if ok, said := fioParseOnly(t, strings.Join(alone, "\n")); !ok {
		t.Errorf("fio fails parsing the options starbench takes alone: %s", said)
	}
	for _, name := range []string{"iodepth", "direct", "rw", "filename", "size", "bs", "runtime", "verify", "percentile_list", "startdelay"} {
		if ok, _ := fioParseOnly(t, name); ok {
			t.Errorf("fio parses %s alone, which starbench refuses", name)
		}
	}
}

// loadOption reads a job file whose job [a] (on line 4) sets opt.
func loadOption(opt string) error {
	_, err := ParseWorkload("t", "t.fio", "[global]\nrw=read\n[a]\n"+opt+"\n", LoadOptions{Env: noEnv})
	return err
}

// fioParseOnly runs fio --parse-only on a job file of one job per entry of
// jobs (each a job's option lines, on a scratch file) and says whether fio
// parses it, and what it said.
func fioParseOnly(t *testing.T, jobs ...string) (bool, string) {
	t.Helper()
	dir := t.TempDir()
	var job strings.Builder
	for i, opts := range jobs {
		fmt.Fprintf(&job, "[j%d]\nfilename=%s\nsize=1m\nrw=read\n%s\n", i, filepath.Join(dir, "f"), opts)
	}
	path := filepath.Join(dir, "j.fio")
	if err := os.WriteFile(path, []byte(job.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("fio", "--parse-only", path).CombinedOutput()
	return err == nil, string(out)
}
