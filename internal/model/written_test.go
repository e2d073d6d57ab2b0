package model

import (
	"context"
	"math"
	"path/filepath"
	"syscall"
	"testing"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// What is on a disk is kept by range: writes over part of it leave the
// rest as it was, a second write adds to what the first left unwritten
// there and replaces the data of the blocks it reaches, and a reader finds
// the byte-weighted share where it reads, the compressibility weighted by
// the bytes that hold data.
func TestDiskDataByRange(t *testing.T) {
	dd := diskData{size: 100}
	dd.write([]byteRange{{0, 10}}, 1, 50)             // the first tenth, all of it
	dd.write([]byteRange{{5, 25}, {90, 120}}, 0.5, 0) // half of 5-25 and 90-100
	for _, c := range []struct {
		where      []byteRange
		written    float64
		compressed float64
	}{
		{[]byteRange{{0, 5}}, 1, 50},
		{[]byteRange{{5, 10}}, 1, 25}, // written before: stays, half its blocks rewritten
		{[]byteRange{{10, 25}}, 0.5, 0},
		{[]byteRange{{25, 90}}, 0, 0},
		{[]byteRange{{90, 100}}, 0.5, 0},
		{[]byteRange{{0, 100}}, (10 + 7.5 + 5) / 100, (5*50 + 5*25) / 22.5},
		{[]byteRange{{0, 10}, {90, 100}}, 15.0 / 20, (5*50 + 5*25) / 15.0},
	} {
		w, pct := dd.over(c.where)
		if !(math.Abs(w-c.written) <= 1e-12) || !(math.Abs(pct-c.compressed) <= 1e-9) {
			t.Errorf("over %v: %.4f written, %.2f %% compressible; want %.4f and %.2f %%", c.where, w, pct, c.written, c.compressed)
		}
	}
	if w, _ := dd.whole(); !(math.Abs(w-0.225) <= 1e-12) {
		t.Errorf("the whole disk: %.4f written, want 0.225", w)
	}
	if w, _ := uniformData(100, 1, 0).over([]byteRange{{40, 60}}); w != 1 {
		t.Errorf("a prepared disk: %.4f written where read, want 1", w)
	}
}

// A job finds written what earlier jobs wrote where it reads: after a
// sequential write of the first tenth of unprepared disks, a read of the
// whole disk finds a tenth of it written, a read of that tenth all of it,
// a read of the disk's middle none; whatever a scenario's job reads, what
// a failure leaves to copy is the tenth.
func TestReadsFindWhatWasWrittenWhereTheyRead(t *testing.T) {
	var seen []float64
	pl, _ := newTestPlane(t, WithObserver(func(_ *testbed.Profile, in Input, _ Output) {
		seen = append(seen, in.Jobs[0].Disks[0].Written)
	}))
	ctx := context.Background()
	ws := workers(4, 1, "")
	run := func(rw string, opts ...fio.Option) {
		t.Helper()
		job := fio.Job{IOEngine: "libaio", Direct: true, RW: rw, BlockSize: 65536, IODepth: 4, Options: opts}
		if _, err := pl.Run(ctx, ws, fio.NewWorkload(job), nil); err != nil {
			t.Fatal(err)
		}
	}
	run("write", fio.Option{Key: "size", Value: "10%"})
	seen = nil
	run("randread", fio.Option{Key: "size", Value: "10%"}, fio.Option{Key: "io_size", Value: "1g"})
	run("randread", fio.Option{Key: "io_size", Value: "1g"})
	run("randread", fio.Option{Key: "offset", Value: "50%"}, fio.Option{Key: "size", Value: "10%"}, fio.Option{Key: "io_size", Value: "1g"})
	want := []float64{1, 0.1, 0}
	if len(seen) != len(want) {
		t.Fatalf("the model saw %d runs, want %d", len(seen), len(want))
	}
	for i := range want {
		if !(math.Abs(seen[i]-want[i]) <= 1e-9) {
			t.Errorf("read %d: %.4f of its blocks written, want %.4f", i+1, seen[i], want[i])
		}
	}
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 4, RuntimeSec: 60, TimeBased: true, Options: []fio.Option{{Key: "size", Value: "10%"}}}
	s := pl.Scenario(ws, job, nil)
	if err := s.rec.init(ctx, pl, s.classes); err != nil {
		t.Fatal(err)
	}
	if stored := 4 * 0.1 * (50 << 30) * 2.0; !(math.Abs(s.rec.stored-stored) <= 1) { // RAID-1 FTT 1: two copies
		t.Errorf("a failure's data to copy: %.0f bytes stored, want %.0f (a tenth of each disk, twice)", s.rec.stored, stored)
	}
}

// Two clones writing one region sequentially for a time write the same
// blocks, from its start: the disk is written as far as one clone got, not
// as far as their bytes together would reach.
func TestSequentialClonesWriteTheSameBlocks(t *testing.T) {
	pl, _ := newTestPlane(t)
	ws := workers(1, 1, "")
	job := fio.Job{IOEngine: "libaio", Direct: true, RW: "write", BlockSize: 65536, IODepth: 4, NumJobs: 2, RuntimeSec: 5, TimeBased: true}
	res, err := pl.Run(context.Background(), ws, fio.NewWorkload(job), nil)
	if err != nil {
		t.Fatal(err)
	}
	perClone := res.Aggregate[len(res.Aggregate)-1].MBps * 1e6 * 5 / 2
	size := pl.diskSize(ws[0].Disks[0])
	if perClone >= size/2 {
		t.Fatalf("each clone wrote %g of the disk: want less than half for this test", perClone/size)
	}
	if got, _ := pl.data(ws[0].Name, ws[0].Disks[0]).whole(); !(math.Abs(got-perClone/size) <= 1e-9) {
		t.Errorf("two sequential clones: %.6f of the disk written, want one clone's %.6f", got, perClone/size)
	}
}

// Random writes cover what the installed fio's cover: on a sparse 16 MiB
// file (fallocate=none, so only the blocks written are allocated), 4 KiB
// random writes of half the file, by time or cut short by a runtime, write
// distinct blocks through fio's random map, while with norandommap they
// cover 1-exp(-0.5); by time, three files' worth covers all of it, a pass
// starting afresh once the map is full. The model's written share after
// the bytes fio wrote is the share fio allocated, within 2 % of the file.
func TestRandomWritesCoverWhatFioCovers(t *testing.T) {
	needFio(t)
	const size = 16 << 20
	for _, c := range []struct {
		name string
		args []string
		job  fio.Job
	}{
		{"by time", []string{"--time_based", "--runtime=1", "--rate=8m"}, fio.Job{TimeBased: true, RuntimeSec: 1}},
		{"cut by a runtime", []string{"--runtime=1", "--rate=8m"}, fio.Job{RuntimeSec: 1}},
		{"by time, no random map", []string{"--time_based", "--runtime=1", "--rate=8m", "--norandommap"}, fio.Job{TimeBased: true, RuntimeSec: 1, Options: []fio.Option{{Key: "norandommap"}}}},
		{"by time, three passes", []string{"--time_based", "--runtime=3", "--rate=8m"}, fio.Job{TimeBased: true, RuntimeSec: 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "f")
			var report struct {
				Jobs []struct {
					Write struct {
						IOBytes float64 `json:"io_bytes"`
					}
				}
			}
			runFio(t, &report, append([]string{"--output-format=json", "--name=f", "--filename=" + file, "--size=16m", "--bs=4k",
				"--rw=randwrite", "--ioengine=psync", "--fallocate=none"}, c.args...)...)
			var st syscall.Stat_t
			if err := syscall.Stat(file, &st); err != nil {
				t.Fatal(err)
			}
			if len(report.Jobs) != 1 {
				t.Fatalf("fio's report has %d jobs", len(report.Jobs))
			}
			allocated := math.Min(1, float64(st.Blocks)*512/size)

			pl, _ := newTestPlane(t)
			w := fio.Worker{Name: "w", Disks: []fio.Disk{{Name: "d", SizeBytes: size}}}
			job := c.job
			job.RW, job.BlockSize, job.IOEngine = "randwrite", 4096, "psync"
			pl.recordWrites([]fio.Worker{w}, &job, true, report.Jobs[0].Write.IOBytes)
			if got, _ := pl.data("w", w.Disks[0]).whole(); math.Abs(got-allocated) > 0.02 {
				t.Errorf("%.0f bytes written: the model has %.3f of the file written, fio allocated %.3f", report.Jobs[0].Write.IOBytes, got, allocated)
			}
		})
	}
}
