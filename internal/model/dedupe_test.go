package model

import (
	"context"
	"crypto/sha1"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// With dedupe_mode=working_set fio draws its duplicates from the first
// unique buffers it writes, so a run that has not yet written its working
// set repeats less of its data than dedupe_percentage says. Against fio
// 3.33 on a sparse 16 MiB file of 4 KiB blocks: the share of the blocks
// written whose data another written block holds, and the model's.
func TestWorkingSetDupesAsFioWrites(t *testing.T) {
	needFio(t)
	const size, bs = 16 << 20, 4096
	for _, c := range []struct {
		ioSize             string
		dedupe, workingSet int
	}{{"4m", 50, 50}, {"4m", 50, 5}, {"4m", 30, 70}, {"8m", 20, 25}, {"16m", 50, 50}} {
		t.Run(fmt.Sprintf("%s %d %% from %d %%", c.ioSize, c.dedupe, c.workingSet), func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "f")
			sparseFile(t, file, size)
			var report moved
			runFio(t, &report, "--output-format=json", "--name=w", "--filename="+file, "--size=16m", "--bs=4k", "--rw=randwrite", "--ioengine=psync", "--end_fsync=1",
				"--io_size="+c.ioSize, fmt.Sprintf("--dedupe_percentage=%d", c.dedupe), "--dedupe_mode=working_set", fmt.Sprintf("--dedupe_working_set_percentage=%d", c.workingSet))
			fioShare := repeatedShare(t, bs, file)
			writes := report.written() / bs
			got := workingSetDupes(float64(c.dedupe)/100, writes, size*float64(c.workingSet)/100/bs)
			if math.Abs(got-fioShare) > 0.03 {
				t.Errorf("%.0f writes: the model repeats %.3f of them, fio %.3f", writes, got, fioShare)
			} else {
				t.Logf("%.0f writes: the model repeats %.3f of them, fio %.3f", writes, got, fioShare)
			}
		})
	}
}

// What fio 3.33 refuses of a working set, the model refuses with the reason.
func TestWorkingSetRefusals(t *testing.T) {
	base := func(opts ...fio.Option) fio.Job {
		return fio.Job{RW: "randwrite", BlockSize: 4096, DedupePercentage: 50, Options: append([]fio.Option{{Key: "dedupe_mode", Value: "working_set"}}, opts...)}
	}
	for _, c := range []struct {
		job  fio.Job
		want string
	}{
		{base(), "give size="},
		{base(fio.Option{Key: "size", Value: "1g"}, fio.Option{Key: "dedupe_working_set_percentage", Value: "60"}), "add up to more than 100"},
		{base(fio.Option{Key: "size", Value: "1g"}, fio.Option{Key: "nrfiles", Value: "2"}), "one file per job"},
		{base(fio.Option{Key: "size", Value: "1g"}, fio.Option{Key: "dedupe_working_set_percentage", Value: "150"}), "want a percentage from 0 to 100"},
		{fio.Job{RW: "randwrite", DedupePercentage: 50, Options: []fio.Option{{Key: "dedupe_mode", Value: "global"}}}, "want repeat or working_set"},
	} {
		if _, err := readJob(&c.job); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.job.Options, err, c.want)
		}
	}
	quiet := base(fio.Option{Key: "size", Value: "1g"})
	if sh, err := readJob(&quiet); err != nil || sh.workingSet != 0.05 || strings.Contains(strings.Join(sh.notes, "\n"), "dedupe") {
		t.Errorf("a working set of the default 5 %%: %v, share %g, notes %q", err, sh.workingSet, sh.notes)
	}
}

// A run is solved with the share of duplicates its writes make: a short
// time-based run with a large working set repeats little of its data, a
// size-based one that writes its set many times over nearly all of
// dedupe_percentage.
func TestRunsDedupeWhatTheirWorkingSetGives(t *testing.T) {
	ws := workers(2, 1, "r5") // 50 GiB disks
	for _, c := range []struct {
		name    string
		job     fio.Job
		atMost  int // percent
		atLeast int
	}{
		{"10 s from 10 % of 50 GiB", fio.Job{RuntimeSec: 10, TimeBased: true, Options: []fio.Option{{Key: "size", Value: "50g"}, {Key: "dedupe_working_set_percentage", Value: "10"}}}, 15, 0},
		{"64 MiB written over 8 MiB", fio.Job{Options: []fio.Option{{Key: "size", Value: "8m"}, {Key: "io_size", Value: "64m"}}}, 50, 45},
	} {
		t.Run(c.name, func(t *testing.T) {
			pl, _ := newTestPlane(t)
			job := c.job
			job.Name, job.RW, job.BlockSize, job.IOEngine, job.Direct, job.IODepth, job.DedupePercentage = "w", "randwrite", 4096, "libaio", true, 8, 50
			job.Options = append(job.Options, fio.Option{Key: "dedupe_mode", Value: "working_set"})
			var seen []int
			pl.observe = func(_ context.Context, _ *testbed.Profile, in Input, _ Output, _ float64) {
				seen = append(seen, in.Jobs[0].Job.DedupePercentage)
			}
			res := runJob(t, pl, ws, job)
			note := strings.Join(res.Notes, "\n")
			if len(seen) == 0 || seen[len(seen)-1] > c.atMost || seen[len(seen)-1] < c.atLeast || !strings.Contains(note, "dedupe_mode=working_set draws duplicates from the first") {
				t.Errorf("solved with dedupe_percentage %v, want %d to %d; notes %q", seen, c.atLeast, c.atMost, note)
			}
		})
	}
}

// Buffers fio fills once and writes again and again are duplicates to
// deduplication: against fio 3.33 on a sparse 16 MiB file, the share of
// the 4 KiB blocks written that repeat another's data, and the share the
// model solves the run with (its note says so).
func TestRepeatedBuffersAsFioWrites(t *testing.T) {
	needFio(t)
	const size, bs = 16 << 20, 4096
	for _, c := range []struct {
		args []string
		job  fio.Job
	}{
		{[]string{"--zero_buffers"}, fio.Job{Options: []fio.Option{{Key: "zero_buffers"}}}},
		{[]string{"--buffer_pattern=0xdeadbeef"}, fio.Job{Options: []fio.Option{{Key: "buffer_pattern", Value: "0xdeadbeef"}}}},
		{[]string{"--scramble_buffers=0", "--ioengine=libaio", "--direct=1", "--iodepth=64"}, fio.Job{IOEngine: "libaio", Direct: true, IODepth: 64, Options: []fio.Option{{Key: "scramble_buffers", Value: "0"}}}},
		// The queue drains to 1 between fills, but fio fills all 64 buffers.
		{[]string{"--scramble_buffers=0", "--ioengine=libaio", "--direct=1", "--iodepth=64", "--iodepth_low=1"}, fio.Job{IOEngine: "libaio", Direct: true, IODepth: 64, Options: []fio.Option{{Key: "scramble_buffers", Value: "0"}, {Key: "iodepth_low", Value: "1"}}}},
		{[]string{"--scramble_buffers=0", "--bs=64k"}, fio.Job{BlockSize: 65536, Options: []fio.Option{{Key: "scramble_buffers", Value: "0"}}}},
		// Filled anew for each write: nothing repeats.
		{[]string{"--scramble_buffers=0", "--refill_buffers"}, fio.Job{Options: []fio.Option{{Key: "scramble_buffers", Value: "0"}, {Key: "refill_buffers"}}}},
		{[]string{"--buffer_pattern=0xdeadbeef", "--buffer_compress_percentage=50"}, fio.Job{BufferCompressPercentage: 50, Options: []fio.Option{{Key: "buffer_pattern", Value: "0xdeadbeef"}}}},
		{[]string{"--scramble_buffers=1"}, fio.Job{}}, // the default
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "f")
			sparseFile(t, file, size)
			var report moved
			runFio(t, &report, append([]string{"--output-format=json", "--name=w", "--filename=" + file, "--size=16m", "--bs=4k", "--rw=randwrite", "--end_fsync=1", "--io_size=4m"}, c.args...)...)
			fioShare := repeatedShare(t, bs, file)

			pl, _ := newTestPlane(t)
			w := fio.Worker{Name: "w", Disks: []fio.Disk{{Name: "d", SizeBytes: size}}}
			job := c.job
			job.Name, job.RW = "w", "randwrite"
			if job.BlockSize == 0 {
				job.BlockSize = bs
			}
			if job.IOEngine == "" {
				job.IOEngine = "psync"
			}
			job.Options = append(job.Options, fio.Option{Key: "io_size", Value: "4m"})
			jobs, notes, err := pl.settleDedupe(t.Context(), []JobRun{{Workers: []fio.Worker{w}, Job: &job}})
			if err != nil {
				t.Fatal(err)
			}
			got := float64(jobs[0].Job.DedupePercentage) / 100
			if math.Abs(got-fioShare) > 0.02 || (got > 0) != (len(notes) > 0) {
				t.Errorf("the model repeats %.2f of the blocks written (notes %q), fio %.3f", got, notes, fioShare)
			} else {
				t.Logf("the model repeats %.2f of the blocks written, fio %.3f", got, fioShare)
			}
		})
	}
}

// repeatedShare is the share of the blocks (of bs bytes) holding data in
// files whose data another of them holds.
func repeatedShare(t *testing.T, bs int64, files ...string) float64 {
	t.Helper()
	distinct := map[[sha1.Size]byte]bool{}
	blocks := 0
	buf := make([]byte, bs)
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		held := dataBlocks(t, file, bs)
		for b := range held {
			if _, err := f.ReadAt(buf, b*bs); err != nil {
				t.Fatal(err)
			}
			distinct[sha1.Sum(buf)] = true
		}
		blocks += len(held)
	}
	if blocks == 0 {
		t.Fatal("fio wrote nothing to the files")
	}
	return 1 - float64(len(distinct))/float64(blocks)
}

// dedupe_global shares one working set among a worker's fio jobs, built
// from the first unique blocks of each (fio 3.33, dedupe.c): two jobs of
// 1,024 4 KiB writes at dedupe_percentage=50, each from a set of half its
// 16 MiB, repeat 0.308 of their blocks across both files, against 0.178
// each on its own; the model the same within 0.03.
func TestGlobalWorkingSetAsFioSharesIt(t *testing.T) {
	needFio(t)
	const size, bs = 16 << 20, 4096
	dedupe := []fio.Option{{Key: "size", Value: "16m"}, {Key: "io_size", Value: "4m"}, {Key: "dedupe_mode", Value: "working_set"}, {Key: "dedupe_working_set_percentage", Value: "50"}}
	for _, global := range []string{"0", "1"} {
		dir := t.TempDir()
		files := []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}
		args := []string{"--ioengine=psync", "--bs=4k", "--rw=randwrite", "--end_fsync=1", "--dedupe_percentage=50", "--dedupe_global=" + global}
		for _, o := range dedupe {
			args = append(args, "--"+o.Key+"="+o.Value)
		}
		for k, f := range files {
			sparseFile(t, f, size)
			args = append(args, fmt.Sprintf("--name=j%d", k), "--filename="+f)
		}
		var report moved
		runFio(t, &report, append([]string{"--output-format=json"}, args...)...)
		fioShare := repeatedShare(t, bs, files...)

		job := fio.Job{Name: "w", IOEngine: "psync", RW: "randwrite", BlockSize: bs, DedupePercentage: 50,
			Options: append(slices.Clone(dedupe), fio.Option{Key: "dedupe_global", Value: global})}
		w := fio.Worker{Name: "w", Disks: []fio.Disk{{Name: "a", SizeBytes: size}, {Name: "b", SizeBytes: size}}}
		pl, _ := newTestPlane(t)
		settled, _, err := pl.settleDedupe(context.Background(), []JobRun{{Workers: []fio.Worker{w}, Job: &job}})
		if err != nil {
			t.Fatal(err)
		}
		if got := float64(settled[0].Job.DedupePercentage) / 100; math.Abs(got-fioShare) > 0.03 {
			t.Errorf("dedupe_global=%s: the model repeats %.2f of the blocks, fio %.3f", global, got, fioShare)
		} else {
			t.Logf("dedupe_global=%s: the model repeats %.2f of the blocks, fio %.3f", global, got, fioShare)
		}
	}
}
