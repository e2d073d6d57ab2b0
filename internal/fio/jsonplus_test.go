package fio

import (
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// fixtureWorkers are the two servers of testdata/client-2x2.json, a real
// `fio --client` json+ capture of 2 servers x 2 disks with text before the
// JSON, running fixtureWorkload (a job without runtime: it moved 16m per disk).
var fixtureWorkers = []Worker{
	{Name: "w1", Addr: "127.0.0.1:18201", Disks: []Disk{{Name: "disk1", Path: "/tmp/fx/w1d1"}, {Name: "disk2", Path: "/tmp/fx/w1d2"}}},
	{Name: "w2", Addr: "127.0.0.1:18202", Disks: []Disk{{Name: "disk1", Path: "/tmp/fx/w2d1"}, {Name: "disk2", Path: "/tmp/fx/w2d2"}}},
}

var fixtureWorkload = NewWorkload(Job{Name: "mix", RW: "randrw", RWMixRead: 70, BlockSize: 4096, Size: 16 << 20})

var fixtureClients = map[string]ClientKey{"w1": {"127.0.0.1", 18201}, "w2": {"127.0.0.1", 18202}}

func loadFixture(t testing.TB) []byte {
	data, err := os.ReadFile("testdata/client-2x2.json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseClientOutput(t *testing.T) {
	out, err := ParseOutput(loadFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	if out.Version != "fio-3.33" || len(out.Clients) != 5 || len(out.Entries()) != 4 {
		t.Fatalf("version %q, %d client entries, %d job entries; want fio-3.33, 5 (with All clients), 4", out.Version, len(out.Clients), len(out.Entries()))
	}
	res, err := Aggregate(out.Entries(), fixtureWorkload, fixtureWorkers, fixtureClients)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 12 || len(res.Aggregate) != 3 {
		t.Fatalf("%d rows, %d aggregate rows; want 12 (2 workers x 2 disks x read, write, total) and 3", len(res.Rows), len(res.Aggregate))
	}
	// Recompute the aggregate by hand from the raw entries.
	for i, dir := range Directions[:2] {
		var iops, bw, latW float64
		var n int64
		var lo, hi float64 = math.Inf(1), 0
		for _, e := range out.Entries() {
			d := e.Read
			if i == 1 {
				d = e.Write
			}
			iops += d.IOPS
			bw += d.BWBytes
			latW += d.Clat.Mean * float64(d.Clat.N)
			n += d.Clat.N
			p99 := d.Clat.Percentile["99.000000"] / 1000
			lo, hi = math.Min(lo, p99), math.Max(hi, p99)
		}
		a := res.Aggregate[i]
		if a.Direction != dir || math.Abs(a.IOPS-iops) > 1e-9*iops || math.Abs(a.MBps-bw/1e6) > 1e-9*bw ||
			math.Abs(a.LatMeanUs-latW/float64(n)/1000) > 1e-9*a.LatMeanUs {
			t.Errorf("%s aggregate %+v; want IOPS %.1f, MB/s %.3f, mean %.3f us", dir, a, iops, bw/1e6, latW/float64(n)/1000)
		}
		if a.P99Us < lo || a.P99Us > hi {
			t.Errorf("%s merged p99 %.1f us lies outside the workers' p99s [%.1f, %.1f]", dir, a.P99Us, lo, hi)
		}
	}
}

// TestPercentilesMatchFio: for one job, percentiles read off the json+
// histogram equal the ones fio printed (within one bin: 1/64 of a power of two).
func TestPercentilesMatchFio(t *testing.T) {
	out, err := ParseOutput(loadFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, e := range out.Entries() {
		for _, d := range []DirStats{e.Read, e.Write} {
			for _, p := range []float64{1, 50, 90, 95, 99, 99.9, 99.99} {
				fioVal, ok := d.Clat.Percentile[strconv.FormatFloat(p, 'f', 6, 64)]
				if !ok {
					t.Fatalf("fio printed no %v percentile", p)
				}
				got := d.Clat.Bins.Percentiles(p)[0]
				if math.Abs(got-fioVal) > fioVal/64 {
					t.Errorf("%s:%d %s p%v: histogram gives %.0f ns, fio printed %.0f ns", e.Host, e.Port, e.Name, p, got, fioVal)
				}
				checked++
			}
		}
	}
	if checked != 4*2*7 {
		t.Fatalf("checked %d percentiles", checked)
	}
}

// TestSingleWorkerCrossCheck runs real fio with one server and one disk:
// the row's merged percentiles must match fio's own within bin resolution.
func TestSingleWorkerCrossCheck(t *testing.T) {
	t.Parallel()
	l := startLocal(t, 1, 1)
	job := &Job{Name: "x", RW: "randread", BlockSize: 4096, RuntimeSec: 1, TimeBased: true}
	clients, _ := checkWorkers(l.Workers)
	raw, err := runRaw(t, l, job)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ParseOutput(raw)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Aggregate(out.Entries(), NewWorkload(*job), l.Workers, clients)
	if err != nil {
		t.Fatal(err)
	}
	e := out.Entries()[0]
	row := res.Rows[0]
	for p, got := range map[string]float64{"50.000000": row.P50Us, "95.000000": row.P95Us, "99.000000": row.P99Us, "99.900000": row.P999Us} {
		want := e.Read.Clat.Percentile[p] / 1000
		if math.Abs(got-want) > want/64 {
			t.Errorf("p%s: merged %.3f us, fio %.3f us", p, got, want)
		}
	}
	if len(res.Rows) != 1 || res.Rows[0].Worker != "local-1" || res.Aggregate[0].P99Us != res.Rows[0].P99Us {
		t.Errorf("one worker, one disk: rows %+v aggregate %+v", res.Rows, res.Aggregate)
	}
}

// runRaw runs job on l's servers through fio --client and returns stdout.
func runRaw(t *testing.T, l *Local, job *Job) ([]byte, error) {
	t.Helper()
	text, _, err := NewWorkload(*job).WorkerFile(l.Workers[0])
	if err != nil {
		return nil, err
	}
	path := t.TempDir() + "/j.fio"
	os.WriteFile(path, []byte(text), 0o644)
	clients, _ := checkWorkers(l.Workers)
	return exec.Command("fio", "--output-format=json+", "--client="+clientArg(clients[l.Workers[0].Name]), path).Output()
}

func TestHistogramPercentiles(t *testing.T) {
	h := Histogram{100: 50, 200: 40, 300: 9, 400: 1}
	got := h.Percentiles(50, 90, 99, 99.9, 100)
	want := []float64{100, 200, 300, 400, 400}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("percentiles %v, want %v", got, want)
		}
	}
	// Merging is exact: two halves give the whole.
	a, b := Histogram{100: 50, 300: 9}, Histogram{200: 40, 400: 1}
	a.Add(b)
	if got := a.Percentiles(99); got[0] != 300 {
		t.Fatalf("merged p99 %v, want 300", got)
	}
	if got := (Histogram{}).Percentiles(50); !math.IsNaN(got[0]) {
		t.Fatalf("empty histogram p50 %v, want NaN", got)
	}
}

func TestAggregateErrors(t *testing.T) {
	out, _ := ParseOutput(loadFixture(t))
	_, err := Aggregate(out.Entries(), fixtureWorkload, fixtureWorkers[:1], map[string]ClientKey{"w1": fixtureClients["w1"]})
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:18202, which is none of the workers") {
		t.Errorf("stray server: %v", err)
	}
	ws := []Worker{fixtureWorkers[0], fixtureWorkers[1]}
	ws[1].Disks = append(slices.Clone(ws[1].Disks), Disk{Name: "disk3", Path: "c"})
	if _, err := Aggregate(out.Entries(), fixtureWorkload, ws, fixtureClients); err == nil || !strings.Contains(err.Error(), "worker w2 reported no result for job mix on disk3") {
		t.Errorf("missing disk: %v", err)
	}
	for _, bad := range []string{"", "no json here", "{", `{"fio version": "x"}`} {
		if _, err := ParseOutput([]byte(bad)); err == nil {
			t.Errorf("ParseOutput(%q) accepted", bad)
		}
	}
}
