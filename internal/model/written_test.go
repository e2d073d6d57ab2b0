package model

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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
	pl, _ := newTestPlane(t, WithObserver(func(_ context.Context, _ *testbed.Profile, in Input, _ Output, _ float64) {
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
			written, allocated := fioWrites(t, append([]string{"--bs=4k", "--rw=randwrite"}, c.args...)...)
			job := c.job
			job.RW, job.BlockSize, job.IOEngine = "randwrite", 4096, "psync"
			if got := writtenAfter(t, job, size, written); math.Abs(got-allocated) > 0.02 {
				t.Errorf("%.0f bytes written: the model has %.3f of the file written, fio allocated %.3f", written, got, allocated)
			}
		})
	}
}

// A sequential writer leaving holes (rw=write:<hole>) touches bs/(bs+hole)
// of its region. Where its last hole reaches the end it comes back over
// the same blocks until it has moved its size (fio 3.33 over 16 MiB with
// bs=4k: write:4k allocates half the file, write:12k a quarter); where an
// I/O would pass the end it stops (write:12k with bs=8k: 819 writes, 40 %).
func TestHolesInASequentialPassAsFioLeavesThem(t *testing.T) {
	needFio(t)
	const size = 16 << 20
	for _, c := range []struct {
		rw    string
		bs    int64
		moved float64
	}{{"write:4k", 4096, size}, {"write:12k", 4096, size}, {"write:12k", 8192, 819 * 8192}} {
		written, allocated := fioWrites(t, "--bs="+strconv.FormatInt(c.bs, 10), "--rw="+c.rw)
		if written != c.moved {
			t.Fatalf("%s bs=%d: fio wrote %.0f bytes, want %.0f", c.rw, c.bs, written, c.moved)
		}
		job := fio.Job{RW: c.rw, BlockSize: c.bs, IOEngine: "psync"}
		if got := writtenAfter(t, job, size, c.moved); math.Abs(got-allocated) > 0.01 {
			t.Errorf("%s bs=%d: the model has %.3f of the file written, fio allocated %.3f", c.rw, c.bs, got, allocated)
		}
		sh, err := readJob(&job)
		if err != nil {
			t.Fatal(err)
		}
		if moved := sh.extent.moved(size, float64(c.bs), 1); moved != c.moved {
			t.Errorf("%s bs=%d: the model moves %.0f bytes, fio %.0f", c.rw, c.bs, moved, c.moved)
		}
	}
}

// A sequential writer in strided zones moves zonesize bytes from the start
// of each zone of zonerange bytes, skips zoneskip, and starts over at the
// region's end until it has moved its size (fio 3.33 over 16 MiB, 4 KiB
// writes: zonerange=4m zonesize=1m touches the first MiB of each 4 MiB, a
// quarter; with zoneskip=2m zones start at 0, 6 and 12 MiB, 3/16;
// zonerange=2m zonesize=1m zoneskip=1m, 6/16; zonesize=2m over zonerange=1m
// writes each MiB twice, half the file after 16 MiB).
func TestStridedZonesAsFioWritesThem(t *testing.T) {
	needFio(t)
	const size = 16 << 20
	for _, c := range []struct{ zonerange, zonesize, zoneskip string }{
		{"4m", "1m", "0"}, {"4m", "1m", "2m"}, {"2m", "1m", "1m"}, {"1m", "2m", "0"},
	} {
		zones := []fio.Option{{Key: "zonemode", Value: "strided"}, {Key: "zonerange", Value: c.zonerange}, {Key: "zonesize", Value: c.zonesize}, {Key: "zoneskip", Value: c.zoneskip}}
		args := []string{"--bs=4k", "--rw=write"}
		for _, o := range zones {
			args = append(args, "--"+o.Key+"="+o.Value)
		}
		written, allocated := fioWrites(t, args...)
		if written != size {
			t.Fatalf("%v: fio wrote %.0f bytes, want the size, %d", zones, written, size)
		}
		job := fio.Job{RW: "write", BlockSize: 4096, IOEngine: "psync", Options: zones}
		if got := writtenAfter(t, job, size, written); math.Abs(got-allocated) > 1e-9 {
			t.Errorf("%v: the model has %.4f of the file written, fio allocated %.4f", zones, got, allocated)
		}
	}
}

// A random writer in strided zones visits the zones in order, over again
// at the region's end, drawing each visit's zonesize bytes within the zone
// with its random map reset at each visit, so a zone visited v times holds
// 1-(1-zonesize/zonerange)^v of its blocks; a zone running past the
// region's end stops it there, or by time sends it back to the first
// (fio 3.33 over 16 MiB: zonerange=4m zonesize=1m 0.688 allocated;
// zonerange=2m zonesize=1m zoneskip=1m moves 5 MiB and stops at the zone
// at 15 MiB).
func TestRandomStridedZonesAsFioWritesThem(t *testing.T) {
	needFio(t)
	const size = 16 << 20
	for _, c := range []struct{ zonerange, zonesize, zoneskip string }{
		{"4m", "1m", "0"}, {"4m", "1m", "2m"}, {"4m", "3m", "0"}, {"1m", "2m", "0"}, {"2m", "1m", "1m"},
	} {
		zones := []fio.Option{{Key: "zonemode", Value: "strided"}, {Key: "zonerange", Value: c.zonerange}, {Key: "zonesize", Value: c.zonesize}, {Key: "zoneskip", Value: c.zoneskip}}
		args := []string{"--bs=4k", "--rw=randwrite"}
		for _, o := range zones {
			args = append(args, "--"+o.Key+"="+o.Value)
		}
		written, allocated := fioWrites(t, args...)
		job := fio.Job{RW: "randwrite", BlockSize: 4096, IOEngine: "psync", Options: zones}
		sh, err := readJob(&job)
		if err != nil {
			t.Fatal(err)
		}
		if moved := sh.extent.moved(size, 4096, 1); math.Abs(moved-written) > 4096 {
			t.Errorf("%v: the model moves %.0f bytes, fio wrote %.0f", zones, moved, written)
		}
		if got := writtenAfter(t, job, size, written); math.Abs(got-allocated) > 0.01 {
			t.Errorf("%v: the model has %.4f of the file written, fio allocated %.4f", zones, got, allocated)
		}
	}
	// By time, past the zone running over the end fio goes back to the
	// first and draws the same again (1.1 GiB written in 2 s, 0.313 of
	// the file allocated, as the 5 MiB of one pass).
	zones := []fio.Option{{Key: "zonemode", Value: "strided"}, {Key: "zonerange", Value: "2m"}, {Key: "zonesize", Value: "1m"}, {Key: "zoneskip", Value: "1m"}}
	written, allocated := fioWrites(t, "--bs=4k", "--rw=randwrite", "--zonemode=strided", "--zonerange=2m", "--zonesize=1m", "--zoneskip=1m", "--time_based", "--runtime=1")
	job := fio.Job{RW: "randwrite", BlockSize: 4096, IOEngine: "psync", TimeBased: true, RuntimeSec: 1, Options: zones}
	if got := writtenAfter(t, job, size, written); written < 64<<20 || math.Abs(got-allocated) > 0.01 {
		t.Errorf("by time: fio wrote %.0f bytes, allocating %.4f of the file; the model has %.4f written", written, allocated, got)
	}
}

// blockalign above the block size puts random writes on its boundaries:
// 4 KiB writes on 8 KiB ones reach half the blocks, with fio's random map
// off (fio 3.33 on a 16 MiB file: 6,976 KiB allocated after a file's
// worth of writes, 8,172 after three; on 16 KiB boundaries 4,004). Of
// mixed sizes the largest sets what a boundary's slot ends up holding
// (4k/50:64k/50 on 64 KiB boundaries: 15,484 KiB after three, not half).
func TestBlockAlignCoversAsFioDrawsIt(t *testing.T) {
	needFio(t)
	const size = 16 << 20
	for _, c := range []struct{ ba, ioSize, bssplit string }{{"8k", "16m", ""}, {"8k", "48m", ""}, {"16k", "16m", ""}, {"64k", "48m", "4k/50:64k/50"}} {
		sizes := "--bs=4k"
		if c.bssplit != "" {
			sizes = "--bssplit=" + c.bssplit
		}
		written, allocated := fioWrites(t, sizes, "--rw=randwrite", "--blockalign="+c.ba, "--io_size="+c.ioSize)
		job := fio.Job{RW: "randwrite", BlockSize: 4096, IOEngine: "psync", Options: []fio.Option{{Key: "blockalign", Value: c.ba}, {Key: "io_size", Value: c.ioSize}}}
		if c.bssplit != "" {
			job.Options = append(job.Options, fio.Option{Key: "bssplit", Value: c.bssplit})
		}
		if got := writtenAfter(t, job, size, written); math.Abs(got-allocated) > 0.015 {
			t.Errorf("ba=%s io_size=%s %s: the model has %.3f of the file written, fio allocated %.3f", c.ba, c.ioSize, c.bssplit, got, allocated)
		}
	}
}

// A mix's passes write the blocks fio writes: randrw 70/30 twice over a
// 16 MiB file writes the same 31 % of it in fio 3.33's repeated order and
// 51 % in a new order each loop (randrepeat=0) or by time, the blocks counted from
// fio's write_iolog (a read job's file is laid out whole first, so the
// allocated blocks would not tell).
func TestMixedLoopsWriteWhatFioWrites(t *testing.T) {
	needFio(t)
	const size = 16 << 20
	for _, c := range []struct {
		name      string
		args      []string
		opts      []fio.Option
		timeBased bool
	}{
		{"the same order", []string{"--loops=2"}, []fio.Option{{Key: "loops", Value: "2"}}, false},
		{"a new order each loop", []string{"--loops=2", "--randrepeat=0"}, []fio.Option{{Key: "loops", Value: "2"}, {Key: "randrepeat", Value: "0"}}, false},
		// By time, two passes' worth (a new order each): 51 %, where
		// min(1, x) gave 60 %.
		{"by time", []string{"--time_based", "--runtime=2", "--rate_iops=2867,1229"}, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			iolog := filepath.Join(dir, "log")
			var report struct{ Jobs []struct{} }
			runFio(t, &report, append([]string{"--output-format=json", "--name=f", "--filename=" + filepath.Join(dir, "f"), "--size=16m", "--bs=4k",
				"--rw=randrw", "--rwmixread=70", "--ioengine=psync", "--write_iolog=" + iolog}, c.args...)...)
			ios := loggedIOs(t, iolog, 4096)
			distinct := map[int64]bool{}
			for _, io := range ios {
				if io.write {
					distinct[io.block] = true
				}
			}
			fioShare := float64(len(distinct)) / (size / 4096)

			job := fio.Job{RW: "randrw", RWMixRead: 70, BlockSize: 4096, IOEngine: "psync", Options: c.opts, TimeBased: c.timeBased}
			if c.timeBased {
				job.RuntimeSec = 2
			}
			if got := writtenAfter(t, job, size, float64(countWrites(ios))*4096); math.Abs(got-fioShare) > 0.03 {
				t.Errorf("the model has %.3f of the file written, fio wrote %.3f of its blocks", got, fioShare)
			}
		})
	}
}

// A skewed random_distribution turns fio's random map off, so hot blocks
// are written again before cold ones are written once: fio 3.33 writing a
// sparse 16 MiB file's worth (4,096 4 KiB blocks) or twice that allocates
// what coveredShare says, each distribution as fio draws it.
func TestSkewedWritesCoverWhatFioCovers(t *testing.T) {
	needFio(t)
	const size = 16 << 20
	for _, c := range []struct {
		dist   string
		ioSize string
		clones int
	}{
		{"zipf:1.2", "16m", 1},
		{"zipf:0.8", "32m", 1},
		// Four clones given a centre share their hot blocks. Without one
		// each places them at an offset its seed gives, where on 4,096
		// blocks they fall on each other's from one file name to another
		// (zipf:0.8 x 4 writing twice the file: 0.68 to 0.72 allocated,
		// the model 0.71); TestWritesComeBackAsFioDrawsThem checks such
		// clones where that matters less.
		{"zipf:1.2:0.5", "32m", 4},
		{"pareto:0.2", "16m", 1},
		{"normal:20", "16m", 1},
		{"zoned:80/20:20/80", "16m", 1},
		{"zoned:50/5:30/15:20/", "16m", 1}, // fio's examples/rand-zones.fio: the last zone takes the rest
	} {
		name := fmt.Sprintf("%s %s x%d", c.dist, c.ioSize, c.clones)
		t.Run(name, func(t *testing.T) {
			written, allocated := fioWrites(t, "--bs=4k", "--rw=randwrite", "--random_distribution="+c.dist, "--io_size="+c.ioSize, fmt.Sprintf("--numjobs=%d", c.clones))
			job := fio.Job{RW: "randwrite", BlockSize: 4096, IOEngine: "psync", NumJobs: c.clones, Options: []fio.Option{{Key: "random_distribution", Value: c.dist}}}
			if got := writtenAfter(t, job, size, written); math.Abs(got-allocated) > 0.03 {
				t.Errorf("%.0f bytes written: the model has %.3f of the file written, fio allocated %.3f", written, got, allocated)
			} else {
				t.Logf("%.0f bytes written: the model has %.3f of the file written, fio allocated %.3f", written, got, allocated)
			}
		})
	}
}

// What OSA's write buffer holds of a random writer: the share of its
// writes whose block was written within the last x region's worth of
// writes (bufferHits), against the offsets fio 3.33 draws (its
// write_iolog on a 16 MiB file, 4,096 4 KiB blocks): under the random map
// a new order each pass when time based, the same order each loop when
// size based; offsets drawn afresh without it; hot blocks back sooner
// with a skewed random_distribution (which turns the map off).
func TestWritesComeBackAsFioDrawsThem(t *testing.T) {
	needFio(t)
	const size, blocks = 16 << 20, 4096
	fresh := func(ioSize string) ([]string, []fio.Option) {
		return []string{"--io_size=" + ioSize, "--randrepeat=0"}, []fio.Option{{Key: "io_size", Value: ioSize}, {Key: "randrepeat", Value: "0"}}
	}
	four, fourOpts := fresh("64m")
	mixed, mixedOpts := fresh("160m")
	two, twoOpts := fresh("32m")
	for _, c := range []struct {
		name string
		args []string
		job  fio.Job
	}{
		// Without randrepeat each pass is in a new order, as it is when
		// time based (checked by hand: a 2 s randwrite at 8,192 I/Os a
		// second gives 0.005, 0.124, 1.0 here), with a count of I/Os that
		// does not hang on the machine's speed.
		{"a new order each pass", four, fio.Job{RW: "randwrite", Options: fourOpts}},
		{"70/30, a new order each pass", append([]string{"--rw=randrw", "--rwmixread=70"}, mixed...), fio.Job{RW: "randrw", RWMixRead: 70, Options: mixedOpts}},
		// Two clones held to a rate, so that the log's millisecond time
		// stamps interleave them as they ran.
		{"two clones, a new order each pass", append([]string{"--numjobs=2", "--rate_iops=4096"}, two...), fio.Job{RW: "randwrite", NumJobs: 2, Options: twoOpts}},
		{"no random map", []string{"--norandommap", "--io_size=64m"}, fio.Job{RW: "randwrite", Options: []fio.Option{{Key: "norandommap"}, {Key: "io_size", Value: "64m"}}}},
		{"four loops", []string{"--loops=4"}, fio.Job{RW: "randwrite", Options: []fio.Option{{Key: "loops", Value: "4"}}}},
		{"lfsr, by time", []string{"--random_generator=lfsr", "--time_based", "--runtime=2", "--rate_iops=8192"}, fio.Job{RW: "randwrite", TimeBased: true, RuntimeSec: 2, Options: []fio.Option{{Key: "random_generator", Value: "lfsr"}}}},
		{"70/30, eight loops", []string{"--rw=randrw", "--rwmixread=70", "--loops=8"}, fio.Job{RW: "randrw", RWMixRead: 70, Options: []fio.Option{{Key: "loops", Value: "8"}}}},
		{"two clones, four loops", []string{"--numjobs=2", "--rate_iops=4096", "--loops=4"}, fio.Job{RW: "randwrite", NumJobs: 2, Options: []fio.Option{{Key: "loops", Value: "4"}}}},
		{"two clones, once", []string{"--numjobs=2", "--rate_iops=4096"}, fio.Job{RW: "randwrite", NumJobs: 2}},
		{"zipf:1.2", []string{"--io_size=64m", "--random_distribution=zipf:1.2"}, fio.Job{RW: "randwrite", Options: []fio.Option{{Key: "io_size", Value: "64m"}, {Key: "random_distribution", Value: "zipf:1.2"}}}},
		{"zipf:0.8", []string{"--io_size=64m", "--random_distribution=zipf:0.8"}, fio.Job{RW: "randwrite", Options: []fio.Option{{Key: "io_size", Value: "64m"}, {Key: "random_distribution", Value: "zipf:0.8"}}}},
		{"pareto:0.2", []string{"--io_size=64m", "--random_distribution=pareto:0.2"}, fio.Job{RW: "randwrite", Options: []fio.Option{{Key: "io_size", Value: "64m"}, {Key: "random_distribution", Value: "pareto:0.2"}}}},
		{"normal:20", []string{"--io_size=64m", "--random_distribution=normal:20"}, fio.Job{RW: "randwrite", Options: []fio.Option{{Key: "io_size", Value: "64m"}, {Key: "random_distribution", Value: "normal:20"}}}},
		{"zoned", []string{"--io_size=64m", "--random_distribution=zoned:80/20:20/80"}, fio.Job{RW: "randwrite", Options: []fio.Option{{Key: "io_size", Value: "64m"}, {Key: "random_distribution", Value: "zoned:80/20:20/80"}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			iolog := filepath.Join(dir, "log")
			var report struct{ Jobs []struct{} }
			args := append([]string{"--output-format=json", "--name=f", "--filename=" + filepath.Join(dir, "f"), "--size=16m", "--bs=4k", "--rw=randwrite",
				"--ioengine=psync", "--write_iolog=" + iolog}, c.args...)
			runFio(t, &report, args...)
			ios := loggedIOs(t, iolog, 4096)
			if writes := countWrites(ios); writes < 3*blocks/2 {
				t.Fatalf("fio's log has %d writes, want at least %d", writes, 3*blocks/2)
			}
			job := c.job
			job.BlockSize = 4096
			sh, err := readJob(&job)
			if err != nil {
				t.Fatal(err)
			}
			// Between one and two passes of a clone fio comes back 0.015
			// to 0.03 less often than two uniform parts say (its map
			// hands out a pass's last free blocks next to where it draws):
			// a single clone of a new order each pass 0.58, 0.69, 0.85 at
			// 1.1, 1.25 and 1.5 files' worth, the model 0.595, 0.72,
			// 0.875. The windows below are where the model is exact.
			for _, x := range []float64{0.1, 0.5, 2, 3} {
				reads, writes := heldShares(ios, int(x*blocks), blocks)
				modelReads, modelWrites := sh.bufferHits(x, size, float64(max(job.NumJobs, 1)), sh.passes(size))
				for _, d := range []struct {
					dir         string
					model, fio  float64
					fioMeasured bool
				}{{"writes", modelWrites, writes, writes >= 0}, {"reads", modelReads, reads, reads >= 0}} {
					if !d.fioMeasured {
						continue
					}
					if math.Abs(d.model-d.fio) > 0.03 {
						t.Errorf("x %.1f: the model finds %.3f of the %s' blocks held, fio's offsets %.3f", x, d.model, d.dir, d.fio)
					} else {
						t.Logf("x %.1f: the model finds %.3f of the %s' blocks held, fio's offsets %.3f", x, d.model, d.dir, d.fio)
					}
				}
			}
		})
	}
}

// writtenAfter is the share of a disk of size bytes the model has written
// once job has written bytes to it.
func writtenAfter(t *testing.T, job fio.Job, size int64, bytes float64) float64 {
	t.Helper()
	pl, _ := newTestPlane(t)
	w := fio.Worker{Name: "w", Disks: []fio.Disk{{Name: "d", SizeBytes: size}}}
	sh, err := readJob(&job)
	if err != nil {
		t.Fatal(err)
	}
	pl.recordWrites([]fio.Worker{w}, &job, onThread([]fio.Worker{w}, 0), bytes, bytes/(1-sh.fr)) // its reads moved on too
	got, _ := pl.data("w", w.Disks[0]).whole()
	return got
}

// fioWrites runs fio with args on a sparse 16 MiB file of its own (psync,
// no fallocate) and returns the bytes its jobs wrote and the share of the
// file its file system allocated: the blocks they wrote.
func fioWrites(t *testing.T, args ...string) (written, allocated float64) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "f")
	var report struct {
		Jobs []struct {
			Write struct {
				IOBytes float64 `json:"io_bytes"`
			}
		}
	}
	runFio(t, &report, append([]string{"--output-format=json", "--name=f", "--filename=" + file, "--size=16m", "--ioengine=psync", "--fallocate=none"}, args...)...)
	if len(report.Jobs) == 0 {
		t.Fatal("fio's report has no jobs")
	}
	for _, j := range report.Jobs {
		written += j.Write.IOBytes
	}
	return written, allocatedShare(t, file, 16<<20)
}

// allocatedShare is the share of a sparse file of size bytes its file
// system has allocated: the blocks fio wrote to it.
func allocatedShare(t *testing.T, file string, size int64) float64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(file, &st); err != nil {
		t.Fatal(err)
	}
	return math.Min(1, float64(st.Blocks)*512/float64(size))
}

// loggedIO is an I/O of a fio write_iolog: a write or a read, and its block.
type loggedIO struct {
	write bool
	block int64
}

// loggedIOs are the reads and writes of blocks of bs bytes a fio
// write_iolog (version 3) holds, in the order of its time stamps.
func loggedIOs(t *testing.T, path string, bs int64) []loggedIO {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type entry struct {
		ms int64
		io loggedIO
	}
	var entries []entry
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) != 5 || f[2] != "write" && f[2] != "read" {
			continue
		}
		ms, err1 := strconv.ParseInt(f[0], 10, 64)
		off, err2 := strconv.ParseInt(f[3], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("fio's log line %q: want time, file, action, offset, length", line)
		}
		entries = append(entries, entry{ms, loggedIO{f[2] == "write", off / bs}})
	}
	slices.SortStableFunc(entries, func(a, b entry) int { return cmp.Compare(a.ms, b.ms) })
	ios := make([]loggedIO, len(entries))
	for i, e := range entries {
		ios[i] = e.io
	}
	return ios
}

func countWrites(ios []loggedIO) int {
	n := 0
	for _, io := range ios {
		if io.write {
			n++
		}
	}
	return n
}

// heldShares is the share of the reads and of the writes whose block was
// written within the last window writes, counted once a window and a pass
// of writes are behind; -1 where there are too few to count.
func heldShares(ios []loggedIO, window, blocks int) (reads, writes float64) {
	last := map[int64]int{} // block -> the writes before its last write
	var hit, count [2]int
	w := 0
	for _, io := range ios {
		dir := 0
		if io.write {
			dir = 1
		}
		if w >= max(window, blocks) {
			count[dir]++
			if j, ok := last[io.block]; ok && w-j <= window {
				hit[dir]++
			}
		}
		if io.write {
			last[io.block] = w
			w++
		}
	}
	share := func(dir int) float64 {
		if count[dir] < blocks/4 { // too few to measure a share to 0.03
			return -1
		}
		return float64(hit[dir]) / float64(count[dir])
	}
	return share(0), share(1)
}

// Each distribution's groups share out the region's blocks and accesses
// whole, for regions from a few blocks to a large disk's, and a skew
// fio refuses is refused with what would be right.
func TestSkewGroupsAddUp(t *testing.T) {
	for _, dist := range []string{"zipf:1.2", "zipf:0.8", "zipf:1.2:0.3", "pareto:0.2", "pareto:0.9", "normal:0", "normal:20", "zoned:60/10:30/20:8/30:2/40", "zoned_abs:60/1g:40/3g"} {
		sk, err := parseSkew(dist)
		if err != nil {
			t.Fatalf("%s: %v", dist, err)
		}
		for _, n := range []float64{1, 3, 4096, 26e6} {
			blocks, mass := 0.0, 0.0
			for _, g := range sk.groups(n, 4096) {
				if !(g.blocks > 0) || g.mass < 0 || math.IsNaN(g.mass) {
					t.Fatalf("%s over %g blocks: a group of %g blocks and %g accesses", dist, n, g.blocks, g.mass)
				}
				blocks += g.blocks
				mass += g.mass
			}
			// zoned_abs's 4 GiB are a part of a large disk's region and
			// are scaled to fit a small one.
			if math.Abs(mass-1) > 1e-9 || blocks > 1+1e-9 {
				t.Errorf("%s over %g blocks: groups of %g of the blocks and %g of the accesses; want at most 1 and 1", dist, n, blocks, mass)
			}
		}
	}
	for _, c := range []struct{ dist, want string }{
		{"zipf:1", "not 1"},
		{"pareto:1.5", "between 0 and 1"},
		{"normal:100", "0 up to 100"},
		{"zoned:60/10:30/20", "add up to 90 %: want 100"},
		{"zipf:1.2:2", "want 0 to 1"},
		{"zoned:90/10:10/90,10/10:90/90", "fio 3.33 fails to parse them"},
		{"gamma:2", "want random, zipf, pareto, normal, zoned or zoned_abs"},
		{"zoned:50/60:50/50", "sizes add up to 110 % of the region"},
		{"zoned:50/60:30/40:20/", "zone 3 of 50/60:30/40:20/ has no size left"},
	} {
		if _, err := parseSkew(c.dist); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to say %q", c.dist, err, c.want)
		}
	}
	// A zone without a size takes an equal part, in whole percent, of what
	// the others leave (fio 3.33, zone_split_ddir; its examples/rand-zones.fio).
	for _, c := range []struct {
		dist  string
		sizes []float64
	}{
		{"zoned:50/5:30/15:20/", []float64{0.05, 0.15, 0.80}},
		{"zoned:40/10:30/:30/0", []float64{0.10, 0.45, 0.45}},
		{"zoned:40/10:30/:30/:0/", []float64{0.10, 0.30, 0.30, 0.30}},
	} {
		sk, err := parseSkew(c.dist)
		if err != nil {
			t.Fatalf("%s: %v", c.dist, err)
		}
		var got []float64
		for _, z := range sk.zones {
			got = append(got, z.size)
		}
		if !slices.EqualFunc(got, c.sizes, func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }) {
			t.Errorf("%s: zones of %v of the region, want %v", c.dist, got, c.sizes)
		}
	}
}

// Clones of a zipf or pareto job place their hot blocks at offsets of
// their own (fio starts each clone's hashed ranks at an offset from its
// seed), so what comes back is the mean over where the other clone's
// lie. On fio itself that mean is not one run: on a 16 MiB file two
// zipf:0.8 clones find 0.31 to 0.37 of their writes' blocks held within a
// tenth of the file from one file name to another. hotSpread's formula
// (independent placements) against every placement of a second copy over
// 1,024 blocks, each block's chance from the groups, the writes shared
// by the two:
func TestClonesOfASkewPlacedApart(t *testing.T) {
	const n = 1024
	sh, err := readJob(&fio.Job{RW: "randwrite", BlockSize: 4096, NumJobs: 2, Options: []fio.Option{{Key: "random_distribution", Value: "zipf:0.8"}}})
	if err != nil {
		t.Fatal(err)
	}
	spread := sh.hotSpread(n*4096, 2)
	var p []float64 // each block's share of one clone's accesses
	for _, g := range spread.groups {
		k := int(math.Round(g.blocks * n))
		for range k {
			p = append(p, g.mass/float64(k))
		}
	}
	if len(p) != n {
		t.Fatalf("the groups hold %d blocks, want %d", len(p), n)
	}
	for _, x := range []float64{0.1, 0.5, 2} {
		// Within x regions' worth of writes, x n/2 of each clone's.
		hit := 0.0
		for shift := range n {
			for b := range n {
				q := p[(b+shift)%n]
				hit += p[b] / 2 * (1 - math.Exp(-x*n/2*(p[b]+q)))
				hit += q / 2 * (1 - math.Exp(-x*n/2*(p[b]+q)))
			}
		}
		hit /= n
		if got := spread.hit(x); math.Abs(got-hit) > 0.01 {
			t.Errorf("x %.1f: hotSpread finds %.4f held, every placement of the other clone %.4f", x, got, hit)
		}
	}
}

// A bsrange's sizes as fio 3.33 draws them (its write_iolog's lengths over
// 20,000 writes): every multiple of the low end alike, capped at the high
// end, so that 4k-1m sends half its writes at 512 KiB or more, where the
// range's midpoint would send them all (and ESA's adaptive write path
// would take every one); with bs_unaligned any size alike, and the high
// end a sixteenth of the time for 4k-64k.
func TestRangeSizesAsFioDrawsThem(t *testing.T) {
	needFio(t)
	for _, c := range []struct {
		rng       string
		min, max  int64
		unaligned bool
	}{{"4k-64k", 4096, 65536, false}, {"4k-1m", 4096, 1 << 20, false}, {"12k-40k", 12288, 40960, false}, {"4k-64k unaligned", 4096, 65536, true}} {
		t.Run(c.rng, func(t *testing.T) {
			dir := t.TempDir()
			iolog := filepath.Join(dir, "log")
			var report struct{ Jobs []struct{} }
			rng, _, _ := strings.Cut(c.rng, " ")
			args := []string{"--output-format=json", "--name=f", "--filename=" + filepath.Join(dir, "f"), "--size=64m", "--rw=randwrite",
				"--ioengine=null", "--bsrange=" + rng, "--io_size=1t", "--number_ios=20000", "--norandommap", "--write_iolog=" + iolog}
			if c.unaligned {
				args = append(args, "--bs_unaligned=1")
			}
			runFio(t, &report, args...)
			raw, err := os.ReadFile(iolog)
			if err != nil {
				t.Fatal(err)
			}
			var lengths []float64
			for _, line := range strings.Split(string(raw), "\n") {
				if f := strings.Fields(line); len(f) == 5 && f[2] == "write" {
					n, err := strconv.ParseFloat(f[4], 64)
					if err != nil {
						t.Fatal(err)
					}
					lengths = append(lengths, n)
				}
			}
			if len(lengths) < 10000 {
				t.Fatalf("fio's log has %d writes, want 20,000", len(lengths))
			}
			fioMean, fioLarge := 0.0, 0.0
			for _, n := range lengths {
				fioMean += n / float64(len(lengths))
				if n >= 512<<10 {
					fioLarge += 1 / float64(len(lengths))
				}
			}
			sizes, mean := rangeSizes(c.min, c.max, c.unaligned)
			large, total := 0.0, 0.0
			for _, s := range sizes {
				total += s.share
				if s.size >= 512<<10 {
					large += s.share
				}
			}
			t.Logf("the model: %.0f bytes, %.3f large; fio: %.0f, %.3f", mean, large, fioMean, fioLarge)
			if math.Abs(total-1) > 1e-9 || math.Abs(mean/fioMean-1) > 0.02 || math.Abs(large-fioLarge) > 0.02 {
				t.Errorf("the model's sizes: a mean of %.0f bytes, %.3f at 512 KiB or more (shares add up to %g); fio's: %.0f and %.3f", mean, large, total, fioMean, fioLarge)
			}
		})
	}
}

// A zipf:1.2 writer's coverage on a 100 GB disk, as recordWrites asks for
// it on every disk and a cell on every solve: with its groups made each
// time (the baseline) and kept once made (groups).
func BenchmarkSkewSpread(b *testing.B) {
	sh, err := readJob(&fio.Job{RW: "randwrite", BlockSize: 4096, Options: []fio.Option{{Key: "random_distribution", Value: "zipf:1.2"}}})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("made each time", func(b *testing.B) {
		for b.Loop() {
			hotSpread{sh.skew.makeGroups(100e9/4096, 4096), 1}.covered(0.5)
		}
	})
	b.Run("kept", func(b *testing.B) {
		for b.Loop() {
			sh.hotSpread(100e9, 1).covered(0.5)
		}
	})
}
