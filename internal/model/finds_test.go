package model

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"starbench/internal/fio"
)

// What a job's reads find written, against the blocks fio 3.33 reads: a
// 16 MiB sparse file written by one fio job, then read by another that
// logs its offsets (write_iolog), each read counted as finding data where
// the file system holds its block. A zoned distribution reads its zones in
// order from each clone's region's start, so a hot zone over the written
// part finds far more data than the written share; fio's other
// distributions hash their ranks onto the blocks and find it evenly.
func TestReadsFindWhatLiesWhereTheyRead(t *testing.T) {
	needFio(t)
	const size, bs = 16 << 20, 4096
	firstThird := []string{"--rw=write", "--io_size=4800k"} // the first 30 % of the file
	zonedWrites := []string{"--rw=randwrite", "--random_distribution=zoned:80/20:20/80", "--io_size=16m"}
	opt := func(kv ...string) []fio.Option {
		var o []fio.Option
		for i := 0; i < len(kv); i += 2 {
			o = append(o, fio.Option{Key: kv[i], Value: kv[i+1]})
		}
		return o
	}
	for _, c := range []struct {
		name          string
		write, read   []string
		writer, reads fio.Job
	}{
		{"evenly, a third written", firstThird, nil,
			fio.Job{RW: "write", Options: opt("io_size", "4800k")}, fio.Job{}},
		{"zoned, a third written", firstThird, []string{"--random_distribution=zoned:80/20:20/80"},
			fio.Job{RW: "write", Options: opt("io_size", "4800k")}, fio.Job{Options: opt("random_distribution", "zoned:80/20:20/80")}},
		{"zoned_abs, a third written", firstThird, []string{"--random_distribution=zoned_abs:80/4m:20/12m"},
			fio.Job{RW: "write", Options: opt("io_size", "4800k")}, fio.Job{Options: opt("random_distribution", "zoned_abs:80/4m:20/12m")}},
		{"zoned, two clones a half each", firstThird, []string{"--random_distribution=zoned:80/20:20/80", "--numjobs=2", "--size=8m", "--offset_increment=8m", "--rate_iops=4096"},
			fio.Job{RW: "write", Options: opt("io_size", "4800k")}, fio.Job{NumJobs: 2, Options: opt("random_distribution", "zoned:80/20:20/80", "size", "8m", "offset_increment", "8m")}},
		{"zoned writes of two clones, read evenly", []string{"--rw=randwrite", "--random_distribution=zoned:80/20:20/80", "--io_size=8m", "--numjobs=2"}, nil,
			fio.Job{RW: "randwrite", NumJobs: 2, Options: opt("random_distribution", "zoned:80/20:20/80", "io_size", "8m")}, fio.Job{}},
		{"zoned writes, read evenly", zonedWrites, nil,
			fio.Job{RW: "randwrite", Options: opt("random_distribution", "zoned:80/20:20/80", "io_size", "16m")}, fio.Job{}},
		// randrepeat=0: a reader seeded as the writer was would draw the
		// writer's offsets again (TestReadsReplayTheWritesOfTheirShape).
		{"zoned writes, read in the same zones", zonedWrites, []string{"--random_distribution=zoned:80/20:20/80", "--randrepeat=0"},
			fio.Job{RW: "randwrite", Options: opt("random_distribution", "zoned:80/20:20/80", "io_size", "16m")}, fio.Job{Options: opt("random_distribution", "zoned:80/20:20/80", "randrepeat", "0")}},
		// zipf and pareto too, but their few hot blocks fall where the
		// file's name puts them (fio seeds them with its hash), so a
		// third of the file written finds 0.26 to 0.32 (zipf:1.2) from
		// one name to another.
		{"normal, a third written", firstThird, []string{"--random_distribution=normal:20"},
			fio.Job{RW: "write", Options: opt("io_size", "4800k")}, fio.Job{Options: opt("random_distribution", "normal:20")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			file, iolog := filepath.Join(dir, "f"), filepath.Join(dir, "log")
			common := []string{"--output-format=json", "--filename=" + file, "--size=16m", "--bs=4k", "--ioengine=psync", "--fallocate=none"}
			var wrote moved
			runFio(t, &wrote, append(append(common, "--name=w", "--end_fsync=1"), c.write...)...)
			held := dataBlocks(t, file, bs)
			var read struct{ Jobs []struct{} }
			runFio(t, &read, append(append(common, "--name=r", "--rw=randread", "--io_size=16m", "--write_iolog="+iolog), c.read...)...)
			fioFound, reads := readsFinding(t, iolog, bs, held)
			if reads < size/bs {
				t.Fatalf("fio's log has %d reads, want at least %d", reads, size/bs)
			}

			pl, _ := newTestPlane(t)
			w := fio.Worker{Name: "w", Disks: []fio.Disk{{Name: "d", SizeBytes: size}}}
			writer := c.writer
			writer.BlockSize, writer.IOEngine = bs, "psync"
			pl.recordWrites([]fio.Worker{w}, &writer, onThread([]fio.Worker{w}, 0), wrote.written(), wrote.moved())
			reader := c.reads
			reader.RW, reader.BlockSize, reader.IOEngine = "randread", bs, "psync"
			in, _, err := pl.input(context.Background(), []fio.Worker{w}, &reader)
			if err != nil {
				t.Fatal(err)
			}
			if got := in.Jobs[0].Disks[0].Written; math.Abs(got-fioFound) > 0.03 {
				t.Errorf("the model's reads find %.3f of their blocks written, fio's %.3f", got, fioFound)
			} else {
				t.Logf("the model's reads find %.3f of their blocks written, fio's %.3f", got, fioFound)
			}
		})
	}
}

// zoned_abs zones must fit the job's region, as fio 3.33 requires
// (measured: zones of 20 MiB and 10 MiB on a 16 MiB file fail the job).
func TestAbsoluteZonesFitTheRegion(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	for _, c := range []struct {
		zones, size string
		err         string
	}{
		{"zoned_abs:80/20m:20/10m", "16m", "its zones add up to 31457280 bytes, more than the job's 16777216-byte region"},
		{"zoned_abs:80/4m:20/4m", "16m", ""},
	} {
		job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 4, Options: []fio.Option{{Key: "random_distribution", Value: c.zones}, {Key: "size", Value: c.size}}}
		_, err := Solve(context.Background(), p, UniformInput(p, 4, 1, Policy{RAID: "raid1", FTT: 1}, job))
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s on %s: %v, want %q", c.zones, c.size, err, c.err)
		}
	}
}

// readsFinding is the share of the reads a fio write_iolog holds whose
// block (of bs bytes) is held, and how many reads it holds.
func readsFinding(t *testing.T, iolog string, bs int64, held map[int64]bool) (share float64, reads int) {
	t.Helper()
	found := 0
	for _, io := range loggedIOs(t, iolog, bs) {
		if !io.write {
			reads++
			if held[io.block] {
				found++
			}
		}
	}
	if reads == 0 {
		t.Fatal("fio's log has no reads")
	}
	return float64(found) / float64(reads), reads
}

// sparseFile makes a file of size bytes that holds no data: fio, finding
// it the size it wants, lays nothing out.
func sparseFile(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

// dataBlocks are the blocks of bs bytes of a file its file system holds
// data for (lseek's SEEK_DATA and SEEK_HOLE).
func dataBlocks(t *testing.T, file string, bs int64) map[int64]bool {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const seekData, seekHole = 3, 4
	held := map[int64]bool{}
	for at := int64(0); ; {
		start, err := syscall.Seek(int(f.Fd()), at, seekData)
		if errors.Is(err, syscall.ENXIO) {
			return held
		}
		if err != nil {
			t.Fatal(err)
		}
		end, err := syscall.Seek(int(f.Fd()), start, seekHole)
		if err != nil {
			t.Fatal(err)
		}
		for b := start / bs; b*bs < end; b++ {
			held[b] = true
		}
		at = end
	}
}
