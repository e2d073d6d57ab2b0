package fio

import (
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"testing"
)

// FuzzParseOutput: any input either fails cleanly or aggregates into rows
// whose percentiles are ordered. Corpus: testdata/fuzz/FuzzParseOutput.
func FuzzParseOutput(f *testing.F) {
	if data, err := os.ReadFile("testdata/client-2x2.json"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := ParseOutput(data)
		if err != nil {
			return
		}
		workers, clients, wl := workersOf(out.Entries())
		res, err := Aggregate(out.Entries(), wl, workers, clients)
		if err != nil {
			return
		}
		for _, r := range append(res.Rows, res.Aggregate...) {
			p := []float64{r.P50Us, r.P95Us, r.P99Us, r.P999Us}
			for i := 1; i < len(p); i++ {
				if !math.IsNaN(p[i]) && p[i] < p[i-1] {
					t.Fatalf("percentiles out of order in %+v", r)
				}
			}
		}
	})
}

// workersOf invents the workers and the workload an output describes: one
// worker per server, one disk per file, one job per name.
func workersOf(entries []JobStats) ([]Worker, map[string]ClientKey, *Workload) {
	clients := map[string]ClientKey{}
	var workers []Worker
	index := map[ClientKey]int{}
	for _, e := range entries {
		k := ClientKey{e.Host, e.Port}
		i, ok := index[k]
		if !ok {
			i = len(workers)
			index[k] = i
			name := fmt.Sprintf("w%d", i)
			workers = append(workers, Worker{Name: name, Addr: fmt.Sprintf("%s:%d", e.Host, e.Port)})
			clients[name] = k
		}
		seen := false
		for _, d := range workers[i].Disks {
			seen = seen || d.Path == e.Options["filename"]
		}
		if !seen {
			workers[i].Disks = append(workers[i].Disks, Disk{Name: fmt.Sprintf("disk%d", len(workers[i].Disks)+1), Path: e.Options["filename"]})
		}
	}
	wl := &Workload{}
	for _, e := range entries {
		if !slices.Contains(wl.JobNames(), e.Name) {
			wl.Jobs = append(wl.Jobs, Job{Name: e.Name})
		}
	}
	return workers, clients, wl
}

// FuzzParseFile: whatever parses renders into a file that parses back to
// the same model, and rendering is stable. Corpus: testdata/fuzz/FuzzParseFile.
func FuzzParseFile(f *testing.F) {
	for _, name := range []string{"mixed-sizes.fio", "hcibench-vdb-8disk-4k-70read.fio", "steady-state.fio"} {
		if data, err := os.ReadFile("testdata/jobs/" + name); err == nil {
			f.Add(string(data))
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		o := LoadOptions{Env: noEnv, ReadFile: func(string) ([]byte, error) { return nil, os.ErrNotExist }}
		first, err := ParseWorkload("f", "f.fio", text, o)
		if err != nil {
			return
		}
		r1 := first.Text()
		second, err := ParseWorkload("f", "f.fio", r1, o)
		if err != nil {
			t.Fatalf("rendering does not parse: %v\n%s", err, r1)
		}
		if !reflect.DeepEqual(first, second) {
			t.Fatalf("round trip changed the workload\n%q\n%+v\n%+v", r1, first, second)
		}
		if r2 := second.Text(); r1 != r2 {
			t.Fatalf("rendering is not stable:\n%s\n%s", r1, r2)
		}
		first.Phases()
	})
}
