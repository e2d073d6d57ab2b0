package report

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"starbench/internal/fio"
	"starbench/internal/store"
)

// benchStore writes a store the size of the VxRail sweep: 60 cells x 5
// workloads x 2 repeats, 32 workers x 8 disks per run, model notes.
func benchStore(b *testing.B) string {
	b.Helper()
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "oio.db")
	s, err := store.Open(ctx, path, "vxrail-oio", store.Options{Simulated: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var cells []store.Cell
	for i := range 60 {
		cells = append(cells, store.Cell{Label: fmt.Sprintf("policy=raid%d threads=%d", 1+4*(i%2), i), Position: i,
			Levels: []store.Level{{Factor: "policy", Value: fmt.Sprintf("raid%d", 1+4*(i%2))}, {Factor: "threads", Value: fmt.Sprint(i)}}})
	}
	if err := s.SaveCells(ctx, cells); err != nil {
		b.Fatal(err)
	}
	id, err := s.BeginSession(ctx, store.Provenance{Script: "vxrail_oio.star", Target: "embedded", Plan: "60 cells"})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)
	for _, c := range cells {
		for w := range 5 {
			for rep := 1; rep <= 2; rep++ {
				res := &fio.Result{Simulated: true, Notes: []string{"simulated by mva on testbed vxrail-ve660-esa", "bottleneck: host CPU at 95 %"}}
				for _, dir := range []string{"read", "write"} {
					res.Aggregate = append(res.Aggregate, fio.Row{Direction: dir, IOPS: float64(100000 + rep*1000), P99Us: 900, Simulated: true})
					for vm := range 32 {
						for d := range 8 {
							res.Rows = append(res.Rows, fio.Row{Worker: fmt.Sprintf("oio-%d", vm), Disk: fmt.Sprintf("disk%d", d), Direction: dir, IOPS: 400, Simulated: true})
						}
					}
				}
				r := store.Run{RunKey: store.RunKey{Cell: c.Label, Workload: fmt.Sprintf("w%d", w), Repeat: rep}, Session: id,
					Start: start, End: start.Add(time.Minute), Result: res}
				if err := s.CommitRun(ctx, r); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	return path
}

// BenchmarkLoad is the baseline: reading what a report shows from the store.
func BenchmarkLoad(b *testing.B) {
	path := benchStore(b)
	for b.Loop() {
		if _, err := Load(context.Background(), path); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWrite is the whole report: load, HTML, Markdown (60 cells: no
// overview chart; figures are the script's).
func BenchmarkWrite(b *testing.B) {
	path := benchStore(b)
	out := b.TempDir()
	for b.Loop() {
		if _, err := Write(context.Background(), path, out, "report", nil); err != nil {
			b.Fatal(err)
		}
	}
}
