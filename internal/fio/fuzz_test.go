package fio

import (
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
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
		workers, clients := workersOf(out.Entries())
		res, err := Aggregate(out.Entries(), workers, clients)
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

// workersOf invents the workers an output describes: one per server, one
// disk per job name.
func workersOf(entries []JobStats) ([]Worker, map[string]ClientKey) {
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
			seen = seen || d.Name == e.Name
		}
		if !seen {
			workers[i].Disks = append(workers[i].Disks, Disk{Name: e.Name, Path: e.Name})
		}
	}
	return workers, clients
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
		first, err := ParseFile(strings.NewReader(text))
		if err != nil {
			return
		}
		var r1, r2 strings.Builder
		first.WriteTo(&r1)
		second, err := ParseFile(strings.NewReader(r1.String()))
		if err != nil {
			t.Fatalf("rendering does not parse: %v\n%s", err, r1.String())
		}
		if !reflect.DeepEqual(first, second) {
			t.Fatalf("round trip changed the model\n%q\n%+v\n%+v", r1.String(), first, second)
		}
		second.WriteTo(&r2)
		if r1.String() != r2.String() {
			t.Fatalf("rendering is not stable:\n%s\n%s", r1.String(), r2.String())
		}
		if _, err := first.Workload(); err == nil {
			_ = first.Jobs[0].Render()
		}
	})
}
