package fio

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func parseFileT(t *testing.T, text string) *File {
	t.Helper()
	f, err := ParseFile(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func render(t *testing.T, f *File) string {
	t.Helper()
	var b strings.Builder
	if _, err := f.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestJobFilesRoundTrip parses every sample file, renders it and parses the
// rendering: the model must come back identical, and fio must accept it.
func TestJobFilesRoundTrip(t *testing.T) {
	paths, _ := filepath.Glob("testdata/jobs/*.fio")
	if len(paths) < 3 {
		t.Fatalf("only %d sample job files", len(paths))
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			f := parseFileT(t, string(data))
			text := render(t, f)
			back := parseFileT(t, text)
			if !reflect.DeepEqual(f, back) {
				t.Fatalf("render changed the model:\n%s\nfirst  %+v\nsecond %+v", text, f, back)
			}
			if _, err := exec.LookPath("fio"); err == nil {
				rendered := filepath.Join(t.TempDir(), "r.fio")
				os.WriteFile(rendered, []byte(text), 0o644)
				if out, err := exec.Command("fio", "--parse-only", rendered).CombinedOutput(); err != nil {
					t.Fatalf("fio rejects the rendering: %v\n%s\n%s", err, out, text)
				}
			}
		})
	}
}

func TestParseTypedAndRawOptions(t *testing.T) {
	data, _ := os.ReadFile("testdata/jobs/mixed-sizes.fio")
	f := parseFileT(t, string(data))
	j := f.Jobs[0]
	want := Job{Name: "oltp-like", RW: "randrw", RWMixRead: 40, IODepth: 64, NumJobs: 2, RuntimeSec: 120, TimeBased: true,
		BSSplit:                  []BSSplit{{512, 4}, {4096, 70}, {8192, 10}, {16384, 8}, {65536, 8}},
		RateIOPS:                 5000,
		BufferCompressPercentage: 50, DedupePercentage: 30,
		Percentiles: []float64{50, 95, 99, 99.9, 99.99},
		Options: []Option{{"blockalign", "4k"}, {"norandommap", ""}, {"randrepeat", "0"},
			{"rate", "10m,5m"}, {"random_distribution", "zoned:50/5:30/15:20/80"}}}
	if !reflect.DeepEqual(j, want) {
		t.Fatalf("parsed\n%+v\nwant\n%+v", j, want)
	}
}

func TestLastSettingWins(t *testing.T) {
	f := parseFileT(t, "[a]\nbs=4k-16k\nbs=8k\nsize=50%\nsize=1g\ndirect=1\ndirect=0\n")
	j := f.Jobs[0]
	if j.BlockSize != 8192 || j.Size != 1<<30 || j.Direct || !reflect.DeepEqual(j.Options, []Option{{"direct", "0"}}) {
		t.Fatalf("got %+v", j)
	}
	f = parseFileT(t, "[a]\nbs=8k\nblocksize=4k-16k\n")
	if j := f.Jobs[0]; j.BlockSize != 0 || !reflect.DeepEqual(j.Options, []Option{{"blocksize", "4k-16k"}}) {
		t.Fatalf("a later raw bs must replace the typed one: %+v", j)
	}
}

func TestWorkloadFromHCIBenchFile(t *testing.T) {
	data, _ := os.ReadFile("testdata/jobs/hcibench-vdb-8disk-4k-70read.fio")
	w, err := parseFileT(t, string(data)).Workload()
	if err != nil {
		t.Fatal(err)
	}
	if w.RW != "randrw" || w.RWMixRead != 70 || w.BlockSize != 4096 || w.IODepth != 4 || !w.Direct || w.IOEngine != "libaio" ||
		w.RuntimeSec != 3600 || w.RampSec != 1800 || !w.TimeBased {
		t.Fatalf("workload %+v", w)
	}
	for _, o := range w.Options {
		if o.Key == "filename" || o.Key == "group_reporting" {
			t.Errorf("workload keeps %s", o.Key)
		}
	}
	wantRaw := []Option{{"percentage_random", "100"}, {"size", "100%"}, {"continue_on_error", "all"}}
	if !reflect.DeepEqual(w.Options, wantRaw) {
		t.Errorf("raw options %+v, want %+v (in file order)", w.Options, wantRaw)
	}
}

func TestWorkloadRefusesDifferentSections(t *testing.T) {
	data, _ := os.ReadFile("testdata/jobs/steady-state.fio")
	_, err := parseFileT(t, string(data)).Workload()
	if err == nil || !strings.Contains(err.Error(), "[seq-fill] and [rand-steady] run different workloads") {
		t.Fatalf("got %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	for text, want := range map[string]string{
		"bs=4k\n[a]\n":    "comes before any section",
		"[a\nbs=4k\n":     "not a section header",
		"[global]\nx\n":   "no job section",
		"[a]\n=4k\n":      "no option name",
		"[a] junk\nx=1\n": "not a section header",
	} {
		if _, err := ParseFile(strings.NewReader(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error containing %q", text, err, want)
		}
	}
}

func TestWorkerFile(t *testing.T) {
	j := &Job{Name: "w", RW: "randread", BlockSize: 4096, RuntimeSec: 1, TimeBased: true}
	text, err := j.WorkerFile([]Disk{{Name: "disk1", Path: "/dev/sdb", SizeBytes: 1 << 30}, {Name: "disk2", Path: `C:\x`}})
	if err != nil {
		t.Fatal(err)
	}
	want := "[global]\nrw=randread\nbs=4k\nruntime=1\ntime_based\n\n[disk1]\nfilename=/dev/sdb\nsize=1073741824\n\n[disk2]\nfilename=C\\:\\x\n"
	if text != want {
		t.Fatalf("got\n%s\nwant\n%s", text, want)
	}
	j.Options = []Option{{"group_reporting", ""}}
	if _, err := j.WorkerFile([]Disk{{Name: "d", Path: "/x"}}); err == nil || !strings.Contains(err.Error(), "leave group_reporting out") {
		t.Fatalf("got %v", err)
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

// TestWorkerFileKeepsRawSize: a size fio reads but the model cannot type
// (size=50%) is the job's size; a per-disk size would override it.
func TestWorkerFileKeepsRawSize(t *testing.T) {
	j := &Job{Name: "w", RW: "randread", RuntimeSec: 1, Options: []Option{{"size", "50%"}}}
	text, err := j.WorkerFile([]Disk{{Name: "disk1", Path: "/dev/sdb", SizeBytes: 1 << 30}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[disk1]\nfilename=/dev/sdb\n"; !strings.HasSuffix(text, want) {
		t.Fatalf("got\n%s\nwant the disk section to be only\n%s", text, want)
	}
}

func TestDropRaw(t *testing.T) {
	j := JobFromOptions("a", []Option{{"blocksize", "4k,64k"}, {"size", "50%"}, {"norandommap", ""}})
	j.DropRaw("bs", "size")
	if !reflect.DeepEqual(j.Options, []Option{{"norandommap", ""}}) {
		t.Fatalf("options %+v, want only norandommap", j.Options)
	}
}
