package fio

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkParse96x8 parses and aggregates a json+ result of 96 workers x
// 8 disks (768 jobs, built from the real capture's entries).
func BenchmarkParse96x8(b *testing.B) {
	out, err := ParseOutput(loadFixture(b))
	if err != nil {
		b.Fatal(err)
	}
	src := out.Entries()
	big := Output{Version: out.Version}
	var workers []Worker
	clients := map[string]ClientKey{}
	for w := range 96 {
		name := fmt.Sprintf("w%02d", w)
		worker := Worker{Name: name, Addr: fmt.Sprintf("10.0.0.%d:8765", w+1)}
		clients[name] = ClientKey{fmt.Sprintf("10.0.0.%d", w+1), 8765}
		for d := range 8 {
			e := src[(w*8+d)%len(src)]
			path := "/dev/sd" + string(rune('b'+d))
			e.Host, e.Port, e.Options = clients[name].Host, 8765, map[string]string{"filename": path}
			big.Clients = append(big.Clients, e)
			worker.Disks = append(worker.Disks, Disk{Name: fmt.Sprintf("disk%d", d+1), Path: path})
		}
		workers = append(workers, worker)
	}
	data, err := json.Marshal(big)
	if err != nil {
		b.Fatal(err)
	}
	// The baseline decodes the same bytes into generic Go values, as a
	// script reading the JSON would.
	b.Run("baseline-generic-decode", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var v map[string]any
			if err := json.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parse-and-aggregate", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			o, err := ParseOutput(data)
			if err != nil {
				b.Fatal(err)
			}
			res, err := Aggregate(o.Entries(), fixtureWorkload, workers, clients)
			if err != nil || len(res.Rows) != 96*8*3 {
				b.Fatalf("%v, %d rows", err, len(res.Rows))
			}
		}
	})
}

// BenchmarkIOPSVersusPlainFio runs the same 2 s 4k random-read job on the
// same file through starbench (client/server) and through plain local fio,
// alternating, and reports both and their ratio.
func BenchmarkIOPSVersusPlainFio(b *testing.B) {
	l := startLocal(b, 1, 1)
	r := &Runner{}
	ctx := context.Background()
	if err := r.Prepare(ctx, l.Workers, Prep{Method: "random"}, nil); err != nil {
		b.Fatal(err)
	}
	job := &Job{Name: "rr", RW: "randread", BlockSize: 4096, IODepth: 1, RuntimeSec: 2, TimeBased: true}
	text, _, err := NewWorkload(*job).WorkerFile(l.Workers[0])
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "plain.fio")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	var sb, plain float64
	for b.Loop() {
		res, err := r.Run(ctx, l.Workers, NewWorkload(*job), nil)
		if err != nil {
			b.Fatal(err)
		}
		sb += res.Aggregate[0].IOPS
		raw, err := exec.Command("fio", "--output-format=json+", path).Output()
		if err != nil {
			b.Fatal(err)
		}
		out, err := ParseOutput(raw)
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range out.Entries() {
			plain += e.Read.IOPS
		}
	}
	b.ReportMetric(sb/float64(b.N), "starbench-IOPS")
	b.ReportMetric(plain/float64(b.N), "plain-fio-IOPS")
	b.ReportMetric(sb/plain, "ratio")
}

// BenchmarkSamplesOverhead runs one job file on 8 local workers (4k
// random reads at iodepth 32 through libaio, 3 s) plain, with the
// per-interval logs behind Result.Samples, and with those and the live
// rate read through relays (a progress function), alternating in the same
// benchmark, and reports the IOPS of each and their ratios to plain.
func BenchmarkSamplesOverhead(b *testing.B) {
	l := startLocal(b, 8, 1)
	ctx := context.Background()
	if err := (&Runner{}).Prepare(ctx, l.Workers, Prep{Method: "random"}, nil); err != nil {
		b.Fatal(err)
	}
	wl := NewWorkload(Job{Name: "rr", RW: "randread", BlockSize: 4096, IODepth: 32, IOEngine: "libaio", RuntimeSec: 3, TimeBased: true})
	ways := []struct {
		name   string
		runner *Runner
		follow bool
	}{{"plain", &Runner{SampleInterval: -1}, false}, {"followed", &Runner{}, true}, {"sampled", &Runner{}, false}}
	sums := make([]float64, len(ways))
	cpu := make([]time.Duration, len(ways)) // this process's CPU time: parsing, and the relays
	for b.Loop() {
		for i, w := range ways {
			live := 0
			var progress func(Status)
			if w.follow {
				progress = func(Status) { live++ }
			}
			before := selfCPU(b)
			res, err := w.runner.Run(ctx, l.Workers, wl, progress)
			if err != nil {
				b.Fatal(err)
			}
			cpu[i] += selfCPU(b) - before
			if w.runner.SampleInterval == 0 && len(res.Samples) == 0 {
				b.Fatalf("the %s run has no samples", w.name)
			}
			if w.follow && live < 2 {
				b.Fatalf("the followed run had %d statuses, want live ones before the result", live)
			}
			iops, _ := res.Totals()
			sums[i] += iops
		}
	}
	for i, w := range ways {
		b.ReportMetric(sums[i]/float64(b.N), w.name+"-IOPS")
		b.ReportMetric(float64(cpu[i].Milliseconds())/float64(b.N), w.name+"-cpu-ms/run")
		if i > 0 {
			b.ReportMetric(sums[i]/sums[0], w.name+"/plain")
		}
	}
}

// selfCPU is the CPU time (user and system) this process has used.
func selfCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
