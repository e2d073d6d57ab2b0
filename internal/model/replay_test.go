package model

import (
	"context"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"starbench/internal/fio"
)

// fio seeds its random offsets alike on every run, so a random job after
// another of its shape draws that job's offsets again, I/O for I/O: its
// reads find data where that job wrote, however little of the disk it
// covered, and its writes land where it wrote before. Against fio 3.33 on
// a 16 MiB file written by one fio run, then read (its offsets logged with
// write_iolog) or written by another: the share of the reads that find
// their block written, and of the file written after both.
func TestReadsReplayTheWritesOfTheirShape(t *testing.T) {
	needFio(t)
	const size, bs = 16 << 20, 4096
	for _, c := range []struct {
		name              string
		first, then       []string
		firstJob, thenJob fio.Job
		fill              bool // the file's first 30 % written before, sequentially
		second            bool // the first run's job is its workload's second
	}{
		{"a randread as long as the randwrite", []string{"--rw=randwrite", "--io_size=4m"}, []string{"--rw=randread", "--io_size=4m"},
			fio.Job{RW: "randwrite"}, fio.Job{RW: "randread"}, false, false},
		{"a randread twice as long", []string{"--rw=randwrite", "--io_size=4m"}, []string{"--rw=randread", "--io_size=8m"},
			fio.Job{RW: "randwrite"}, fio.Job{RW: "randread"}, false, false},
		// A whole pass: each block once, a quarter of them written.
		{"a randread seeded afresh", []string{"--rw=randwrite", "--io_size=4m"}, []string{"--rw=randread", "--io_size=16m", "--randrepeat=0"},
			fio.Job{RW: "randwrite"}, fio.Job{RW: "randread", Options: []fio.Option{{Key: "randrepeat", Value: "0"}}}, false, false},
		{"a randread after a 70/30 mix", []string{"--rw=randrw", "--rwmixread=70", "--io_size=4m"}, []string{"--rw=randread", "--io_size=4m"},
			fio.Job{RW: "randrw", RWMixRead: 70}, fio.Job{RW: "randread"}, false, false},
		{"a 70/30 mix after the same", []string{"--rw=randrw", "--rwmixread=70", "--io_size=4m"}, []string{"--rw=randrw", "--rwmixread=70", "--io_size=4m"},
			fio.Job{RW: "randrw", RWMixRead: 70}, fio.Job{RW: "randrw", RWMixRead: 70}, false, false},
		{"a 70/30 mix after a 50/50 one", []string{"--rw=randrw", "--rwmixread=50", "--io_size=4m"}, []string{"--rw=randrw", "--rwmixread=70", "--io_size=4m"},
			fio.Job{RW: "randrw", RWMixRead: 50}, fio.Job{RW: "randrw", RWMixRead: 70}, false, false},
		{"a randread after a sequential write", []string{"--rw=write", "--io_size=4m"}, []string{"--rw=randread", "--io_size=4m"},
			fio.Job{RW: "write"}, fio.Job{RW: "randread"}, false, false},
		// The randwrite's blocks first, then blocks it did not draw, of
		// which the fill wrote 30 %.
		{"a randread twice as long, over a fill", []string{"--rw=randwrite", "--io_size=4m"}, []string{"--rw=randread", "--io_size=8m"},
			fio.Job{RW: "randwrite"}, fio.Job{RW: "randread"}, true, false},
		// Without the random map the same draws come again: the first half
		// finds the writer's blocks, the second the file's share (0.22).
		{"a randread without the map after a randwrite without it", []string{"--rw=randwrite", "--io_size=4m", "--norandommap"}, []string{"--rw=randread", "--io_size=8m", "--norandommap"},
			fio.Job{RW: "randwrite", Options: []fio.Option{{Key: "norandommap"}}}, fio.Job{RW: "randread", Options: []fio.Option{{Key: "norandommap"}}}, false, false},
		{"a randread without the map after a randwrite with it", []string{"--rw=randwrite", "--io_size=4m"}, []string{"--rw=randread", "--io_size=8m", "--norandommap"},
			fio.Job{RW: "randwrite"}, fio.Job{RW: "randread", Options: []fio.Option{{Key: "norandommap"}}}, false, false},
		// With randrepeat on, fio seeds the offsets with a constant
		// whatever randseed says; with it off, from randseed.
		{"a randread with another randseed", []string{"--rw=randwrite", "--io_size=4m", "--randseed=1"}, []string{"--rw=randread", "--io_size=8m", "--randseed=99999"},
			fio.Job{RW: "randwrite", Options: []fio.Option{{Key: "randseed", Value: "1"}}}, fio.Job{RW: "randread", Options: []fio.Option{{Key: "randseed", Value: "99999"}}}, false, false},
		{"a randread seeded by randseed alone", []string{"--rw=randwrite", "--io_size=4m", "--randrepeat=0", "--randseed=5"}, []string{"--rw=randread", "--io_size=8m", "--randrepeat=0", "--randseed=5"},
			fio.Job{RW: "randwrite", Options: []fio.Option{{Key: "randrepeat", Value: "0"}, {Key: "randseed", Value: "5"}}}, fio.Job{RW: "randread", Options: []fio.Option{{Key: "randrepeat", Value: "0"}, {Key: "randseed", Value: "5"}}}, false, false},
		{"a randread seeded otherwise", []string{"--rw=randwrite", "--io_size=4m", "--randseed=7"}, []string{"--rw=randread", "--io_size=8m", "--randrepeat=0", "--randseed=7"},
			fio.Job{RW: "randwrite", Options: []fio.Option{{Key: "randseed", Value: "7"}}}, fio.Job{RW: "randread", Options: []fio.Option{{Key: "randrepeat", Value: "0"}, {Key: "randseed", Value: "7"}}}, false, false},
		// A job's seeds follow its number in its job file: the second job
		// of one run and the first of another draw different offsets.
		{"a randread after a second job's randwrite", []string{"--rw=randwrite", "--io_size=4m"}, []string{"--rw=randread", "--io_size=8m"},
			fio.Job{RW: "randwrite"}, fio.Job{RW: "randread"}, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			file, iolog := filepath.Join(dir, "f"), filepath.Join(dir, "log")
			sparseFile(t, file, size)
			common := []string{"--output-format=json", "--filename=" + file, "--size=16m", "--bs=4k", "--ioengine=psync"}
			pl, _ := newTestPlane(t)
			w := fio.Worker{Name: "w", Disks: []fio.Disk{{Name: "d", SizeBytes: size}}}
			job := func(j fio.Job, ioSize string) *fio.Job {
				j.BlockSize, j.IOEngine = bs, "psync"
				j.Options = append(j.Options, fio.Option{Key: "io_size", Value: ioSize})
				return &j
			}
			if c.fill {
				var fill moved
				runFio(t, &fill, append(common, "--name=fill", "--rw=write", "--io_size=4800k", "--randrepeat=0")...)
				pl.recordWrites([]fio.Worker{w}, job(fio.Job{RW: "write"}, "4800k"), onThread([]fio.Worker{w}, 0), fill.written(), fill.moved())
			}
			var first moved
			firstArgs, thread := append(common, "--name=a"), 0
			if c.second {
				firstArgs, thread = append(common, "--name=before", "--filename="+filepath.Join(dir, "other"), "--size=1m", "--rw=read", "--name=a", "--filename="+file), 1
			}
			runFio(t, &first, append(firstArgs, c.first...)...)
			if c.second {
				first.Jobs = first.Jobs[1:]
			}
			pl.recordWrites([]fio.Worker{w}, job(c.firstJob, "4m"), onThread([]fio.Worker{w}, thread), first.written(), first.moved())
			held := dataBlocks(t, file, bs)
			var then moved
			runFio(t, &then, append(append(common, "--name=b", "--write_iolog="+iolog), c.then...)...)
			fioFound, reads := readsFinding(t, iolog, bs, held)
			reader := JobRun{Workers: []fio.Worker{w}, Job: job(c.thenJob, "4m"), threads: onThread([]fio.Worker{w}, 0)} // what it finds over its first bytes does not depend on io_size
			got := pl.foundOver(t, reader, then.moved())
			if math.Abs(got-fioFound) > 0.03 {
				t.Errorf("the model's reads find %.3f of their blocks written, fio's %.3f of %d", got, fioFound, reads)
			} else {
				t.Logf("the model's reads find %.3f of their blocks written, fio's %.3f of %d", got, fioFound, reads)
			}
		})
	}
}

// moved is what a fio run's report says its jobs moved.
type moved struct {
	Jobs []struct {
		Read, Write struct {
			IOBytes float64 `json:"io_bytes"`
		}
	}
}

func (m moved) written() (b float64) {
	for _, j := range m.Jobs {
		b += j.Write.IOBytes
	}
	return b
}

func (m moved) moved() (b float64) {
	for _, j := range m.Jobs {
		b += j.Read.IOBytes + j.Write.IOBytes
	}
	return b
}

// foundOver is the share of a lone job's reads that find data over its
// first bytes of I/O (one clone, one disk), as the model lays them out.
func (pl *Plane) foundOver(t *testing.T, jr JobRun, bytes float64) float64 {
	t.Helper()
	plan := pl.replaySegments(jr)
	if plan == nil {
		in, _, err := pl.input(t.Context(), jr.Workers, jr.Job)
		if err != nil {
			t.Fatal(err)
		}
		return in.Jobs[0].Disks[0].Written
	}
	sum, done := 0.0, 0.0 // bytes along the passes
	for k := 0; done < bytes; k++ {
		for _, s := range plan(k) {
			n := math.Max(0, math.Min(s.to-s.from, bytes-done))
			sum += n * s.finds[0].written
			done += n
		}
	}
	return sum / bytes
}

// A random writer after another of its shape writes the blocks that one
// wrote where both write: against fio 3.33, the share of a 16 MiB file
// written after a randwrite of 4 MiB (a quarter of it) and a second run.
func TestWritesReplayTheirShape(t *testing.T) {
	needFio(t)
	const size, bs = 16 << 20, 4096
	for _, c := range []struct {
		name string
		then []string
		job  fio.Job
	}{
		{"the same again", []string{"--rw=randwrite", "--io_size=4m"}, fio.Job{RW: "randwrite", Options: []fio.Option{{Key: "io_size", Value: "4m"}}}},
		{"twice as long", []string{"--rw=randwrite", "--io_size=8m"}, fio.Job{RW: "randwrite", Options: []fio.Option{{Key: "io_size", Value: "8m"}}}},
		{"seeded afresh", []string{"--rw=randwrite", "--io_size=4m", "--randrepeat=0"}, fio.Job{RW: "randwrite", Options: []fio.Option{{Key: "io_size", Value: "4m"}, {Key: "randrepeat", Value: "0"}}}},
		{"a 50/50 mix twice as long", []string{"--rw=randrw", "--io_size=8m"}, fio.Job{RW: "randrw", RWMixRead: 50, Options: []fio.Option{{Key: "io_size", Value: "8m"}}}},
		// Without the map: the first 4 MiB of draws again, then new ones
		// landing anywhere (the first run without the map too).
		{"twice as long without the map", []string{"--rw=randwrite", "--io_size=8m", "--norandommap"}, fio.Job{RW: "randwrite", Options: []fio.Option{{Key: "io_size", Value: "8m"}, {Key: "norandommap"}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "f")
			sparseFile(t, file, size)
			common := []string{"--output-format=json", "--filename=" + file, "--size=16m", "--bs=4k", "--ioengine=psync", "--end_fsync=1"}
			noMap := hasRaw(&c.job, "norandommap") // the first run as the second
			firstArgs := append(common, "--name=a", "--rw=randwrite", "--io_size=4m")
			firstJob := fio.Job{RW: "randwrite", BlockSize: bs, IOEngine: "psync", Options: []fio.Option{{Key: "io_size", Value: "4m"}}}
			if noMap {
				firstArgs = append(firstArgs, "--norandommap")
				firstJob.Options = append(firstJob.Options, fio.Option{Key: "norandommap"})
			}
			var first, then moved
			runFio(t, &first, firstArgs...)
			runFio(t, &then, append(append(common, "--name=b"), c.then...)...)
			fioHeld := float64(len(dataBlocks(t, file, bs))) / (size / bs)

			pl, _ := newTestPlane(t)
			w := fio.Worker{Name: "w", Disks: []fio.Disk{{Name: "d", SizeBytes: size}}}
			pl.recordWrites([]fio.Worker{w}, &firstJob, onThread([]fio.Worker{w}, 0), first.written(), first.moved())
			job := c.job
			job.BlockSize, job.IOEngine = bs, "psync"
			pl.recordWrites([]fio.Worker{w}, &job, onThread([]fio.Worker{w}, 0), then.written(), then.moved())
			got, _ := pl.data("w", w.Disks[0]).whole()
			if math.Abs(got-fioHeld) > 0.02 {
				t.Errorf("the model has %.3f of the file written, fio %.3f", got, fioHeld)
			} else {
				t.Logf("the model has %.3f of the file written, fio %.3f", got, fioHeld)
			}
		})
	}
}

// A random reader after a random writer of its shape reads, in time, the
// blocks the writer wrote first, at the rate of written blocks, then
// blocks it did not write, at the rate of the rest of the disk, and on
// later passes, drawn anew, the disk's written share evenly: its row is
// the mean of the three over its time, its samples step from one to the
// next.
func TestRandomReaderReplaysInTime(t *testing.T) {
	ws := workers(2, 1, "r5") // 50 GiB disks
	job := func(rw string, opts ...fio.Option) fio.Job {
		return fio.Job{Name: rw, IOEngine: "libaio", Direct: true, RW: rw, BlockSize: 1 << 20, IODepth: 4, Options: opts}
	}
	readFor := func(pl *Plane, seconds int, opts ...fio.Option) *fio.Result {
		r := job("randread", opts...)
		r.RuntimeSec, r.TimeBased = seconds, true
		return runJob(t, pl, ws, r)
	}
	readMBps := func(res *fio.Result) float64 { return inDirection(res.Aggregate, "read")[0].MBps }
	afresh := fio.Option{Key: "randrepeat", Value: "0"}

	full, _ := newTestPlane(t)
	if err := full.Prepare(t.Context(), ws, fio.Prep{Method: "random", BlockSize: 1 << 20}, nil); err != nil {
		t.Fatal(err)
	}
	written := readMBps(readFor(full, 10))
	empty, _ := newTestPlane(t)
	never := readMBps(readFor(empty, 10))
	if never < 2*written {
		t.Fatalf("written %.0f MB/s, never written %.0f: want the unwritten far faster for this test", written, never)
	}

	for _, c := range []struct {
		name   string
		region []fio.Option // the writer's and the reader's
		wrote  float64      // bytes the writer wrote on each disk
		passes int          // the reader's whole passes
	}{
		{"within the first pass", nil, 4 << 30, 0},
		{"past it", []fio.Option{{Key: "size", Value: "16g"}}, 4 << 30, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			pl, _ := newTestPlane(t)
			runJob(t, pl, ws, job("randwrite", append(slices.Clone(c.region), fio.Option{Key: "io_size", Value: fmt.Sprint(int64(c.wrote))})...))
			pass := 50.0 * (1 << 30)
			if c.region != nil {
				pass = 16 << 30
			}
			t1 := 2 * c.wrote / (written * 1e6)        // the writer's blocks, both disks
			t2 := 2 * (pass - c.wrote) / (never * 1e6) // the rest of the first pass
			evenly := readMBps(readFor(pl, 10, append(slices.Clone(c.region), afresh)...))
			t3 := float64(c.passes) * 2 * pass / (evenly * 1e6)
			T := math.Ceil(t1 + math.Min(t2, 0.5))
			if c.passes > 0 {
				T = math.Ceil(t1 + t2 + t3)
			}
			res := readFor(pl, int(T), c.region...)
			in2 := math.Min(T-t1, t2)
			want := (written*t1 + never*in2 + evenly*(T-t1-in2)) / T
			if got := readMBps(res); !nearRel(got, want, 1e-6) {
				t.Errorf("read %.0f MB/s over %.0f s, want %.0f: %.0f for %.3g s, %.0f for %.3g s, %.0f for %.3g s", got, T, want, written, t1, never, in2, evenly, T-t1-in2)
			}
			if first, last := res.Samples[0].MBps, res.Samples[len(res.Samples)-1].MBps; !nearRel(first, written, 1e-6) || c.passes == 0 && !nearRel(last, never, 1e-6) || c.passes > 0 && !nearRel(last, evenly, 1e-6) {
				t.Errorf("samples from %.0f to %.0f MB/s; written %.0f, never %.0f, evenly %.0f", first, last, written, never, evenly)
			}
			if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "draws the offsets of earlier runs of its shape again") || c.passes > 0 && !strings.Contains(notes, "later passes 25 % written") {
				t.Errorf("notes %q", notes)
			}
		})
	}
}

// On OSA a reader run through its pass goes at the burst's rate while the
// write buffers fill and at the steady one after: a mix replaying an
// earlier writer reads the blocks it wrote first, and a sequential mix by
// time finds its own writes pass by pass, each through the burst.
func TestOSAReadersGoThroughTheBurst(t *testing.T) {
	pl := newOSAPlane(t)
	job := func(rw string, opts ...fio.Option) fio.Job {
		return fio.Job{Name: rw, IOEngine: "libaio", Direct: true, RW: rw, BlockSize: 65536, IODepth: 8, RWMixRead: 30, TimeBased: true, RuntimeSec: 1800, Options: opts}
	}
	for _, c := range []struct {
		rw, lead, passes string
		mix              int
	}{
		{"rw", "a sequential reader meets its disks' parts in order", "of the second pass", 70},
		{"rw", "a sequential reader meets its disks' parts in order", "each pass 100 % written", 30}, // its writes ahead of its reads
		{"randrw", "this reader draws the offsets of earlier runs of its shape again", "of the first pass 100 % written", 30},
	} {
		ws := workers(96, 8, "r1")
		if c.rw == "randrw" {
			runJob(t, pl, ws, job("randwrite", fio.Option{Key: "io_size", Value: "8g"}))
		}
		runJob(t, pl, ws, fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 1 << 20, IODepth: 8, TimeBased: true, RuntimeSec: 3600}) // drains the buffers
		j := job(c.rw)
		j.RWMixRead = c.mix
		res := runJob(t, pl, ws, j)
		notes := strings.Join(res.Notes, "\n")
		first, last := writeMBps(res.Samples, 0), writeMBps(res.Samples, -1)
		if !strings.Contains(notes, c.lead) || !strings.Contains(notes, c.passes) || !strings.Contains(notes, "OSA write buffers absorb writes at the burst's rates for the first") || !(first > 1.05*last) {
			t.Errorf("%s %d/%d on OSA: writes at %.0f MB/s first, %.0f MB/s last; notes %q: want it run through its passes, the burst first", c.rw, c.mix, 100-c.mix, first, last, notes)
		} else {
			t.Logf("%s %d/%d on OSA: writes at %.0f MB/s first, %.0f MB/s last", c.rw, c.mix, 100-c.mix, first, last)
		}
	}
}

// writeMBps is the write throughput of the sample at index i (from the
// end where negative).
func writeMBps(samples []fio.Sample, i int) float64 {
	var w []fio.Sample
	for _, s := range samples {
		if s.Direction == "write" {
			w = append(w, s)
		}
	}
	if i < 0 {
		i += len(w)
	}
	return w[i].MBps
}

// A random reader replaying an earlier writer of its shape beside another
// job reads the blocks that writer wrote first, as it does alone: a stretch
// ends where it passes beyond them.
func TestAReplayingReaderBesideOthersReadsTheWrittenBlocksFirst(t *testing.T) {
	pl, _ := newTestPlane(t)
	ws := workers(4, 1, "r5")
	writer := fio.Job{Name: "w", IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 8, Options: []fio.Option{{Key: "io_size", Value: "10%"}}}
	runJob(t, pl, ws, writer)
	rr := fio.Job{Name: "rr", IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 8, RuntimeSec: 600, TimeBased: true}
	o := fio.Job{Name: "o", IOEngine: "libaio", Direct: true, RW: "read", BlockSize: 1 << 20, IODepth: 4, RuntimeSec: 600, TimeBased: true}
	res, err := pl.Run(context.Background(), ws, &fio.Workload{Name: "two", Jobs: []fio.Job{rr, o}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(res.Notes, "\n")
	if !strings.Contains(notes, "rr meets the parts of its disks in order beside the other jobs (fio's seeds draw the offsets of earlier runs of its shape again)") {
		t.Fatalf("notes %q: want rr's replay said", notes)
	}
	var first, last float64
	for _, s := range res.Samples {
		if s.Job == "rr" && s.Direction == "read" {
			if first == 0 {
				first = s.IOPS
			}
			last = s.IOPS
		}
	}
	if !(last > 1.1*first) {
		t.Errorf("rr at %.0f IOPS first, %.0f last: want it slower on the written blocks it reads first", first, last)
	}
	t.Logf("rr at %.0f IOPS first, %.0f last", first, last)
}

// onThread gives every disk of ws its section's first fio thread: thread.
func onThread(ws []fio.Worker, thread int) map[diskKey]int {
	threads := map[diskKey]int{}
	for _, w := range ws {
		for _, d := range w.Disks {
			threads[diskKey{w.Name, d.Name}] = thread
		}
	}
	return threads
}

// Each clone draws its own stream, seeded by its own fio thread: a reader
// with more clones than the writer it follows replays it in the clones
// whose threads match, and fio numbers the threads section by section
// (a section per job and disk), so on a later disk the reader's clones
// follow other threads than the writer's. Against fio 3.33 over two 16 MiB
// files, each a quarter written by a randwrite section of one clone: a
// randread of numjobs=2 finds 0.621 of its reads written on the first file
// (its first clone replays, its second finds the quarter) and 0.239 on the
// second (neither clone's thread wrote there).
func TestClonesFollowTheirOwnThreads(t *testing.T) {
	needFio(t)
	const size, bs = 16 << 20, 4096
	dir := t.TempDir()
	files := []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}
	for _, f := range files {
		sparseFile(t, f, size)
	}
	common := []string{"--output-format=json", "--size=16m", "--bs=4k", "--ioengine=psync", "--io_size=4m"}
	var wrote moved
	runFio(t, &wrote, append(common, "--rw=randwrite", "--end_fsync=1", "--name=wa", "--filename="+files[0], "--name=wb", "--filename="+files[1])...)
	held := []map[int64]bool{dataBlocks(t, files[0], bs), dataBlocks(t, files[1], bs)}
	logs := []string{filepath.Join(dir, "la"), filepath.Join(dir, "lb")}
	var read moved
	runFio(t, &read, append(common, "--rw=randread", "--numjobs=2", "--name=ra", "--filename="+files[0], "--write_iolog="+logs[0], "--name=rb", "--filename="+files[1], "--write_iolog="+logs[1])...)

	pl, _ := newTestPlane(t)
	w := fio.Worker{Name: "w", Disks: []fio.Disk{{Name: "a", SizeBytes: size}, {Name: "b", SizeBytes: size}}}
	wl := &fio.Workload{Jobs: []fio.Job{{Name: "w", RW: "randwrite", BlockSize: bs, IOEngine: "psync", Options: []fio.Option{{Key: "io_size", Value: "4m"}}}}}
	targets, err := wl.Targets(w)
	if err != nil {
		t.Fatal(err)
	}
	writer := []JobRun{{Workers: []fio.Worker{w}, Job: &wl.Jobs[0]}}
	numberThreads(writer, w, targets)
	pl.recordWrites(writer[0].Workers, writer[0].Job, writer[0].threads, wrote.written(), wrote.moved())
	wl.Jobs[0] = fio.Job{Name: "r", RW: "randread", BlockSize: bs, IOEngine: "psync", NumJobs: 2, Options: []fio.Option{{Key: "io_size", Value: "4m"}}}
	if targets, err = wl.Targets(w); err != nil {
		t.Fatal(err)
	}
	reader := []JobRun{{Workers: []fio.Worker{w}, Job: &wl.Jobs[0]}}
	numberThreads(reader, w, targets)
	if want := map[diskKey]int{{"w", "a"}: 0, {"w", "b"}: 2}; !maps.Equal(reader[0].threads, want) {
		t.Fatalf("the reader's threads %v, want %v", reader[0].threads, want)
	}
	plan := pl.replaySegments(reader[0])
	if plan == nil {
		t.Fatal("the reader follows no stream")
	}
	for d := range files {
		got, _ := readsFinding(t, logs[d], bs, held[d])
		model, reach := 0.0, float64(4<<20) // each clone's 4 MiB
		for _, s := range plan(0) {
			model += math.Max(0, math.Min(s.to, reach)-s.from) * s.finds[d].written
		}
		model /= reach
		if math.Abs(model-got) > 0.03 {
			t.Errorf("file %s: the model finds %.3f of the reads written, fio %.3f", w.Disks[d].Name, model, got)
		} else {
			t.Logf("file %s: the model finds %.3f of the reads written, fio %.3f", w.Disks[d].Name, model, got)
		}
	}
}

// A ranked random_distribution (zipf, pareto, normal) draws its offsets
// from its thread's seed too: run again with fio's default seeds it draws
// the same blocks, hot ones first, so a zipf reader after a zipf writer of
// its shape finds its first reads all written and, beyond them, its hot
// blocks again, which the writer wrote first. Against fio 3.33 on a 16 MiB
// file after a 4 MiB zipf:1.2 randwrite (6.9 % of the file written): a
// randread of 4 MiB finds 1.000, of 8 MiB 0.897; a second zipf randwrite
// of 4 MiB writes nothing new. Before, a skewed stream was taken as
// independent (0.069).
func TestRankedDistributionsReplayToo(t *testing.T) {
	needFio(t)
	const size, bs = 16 << 20, 4096
	for _, c := range []struct {
		name   string
		reader fio.Job
		args   []string
	}{
		{"a zipf randread of 4 MiB", fio.Job{RW: "randread"}, []string{"--rw=randread", "--io_size=4m"}},
		{"a zipf randread of 8 MiB", fio.Job{RW: "randread"}, []string{"--rw=randread", "--io_size=8m"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			file, iolog := filepath.Join(dir, "f"), filepath.Join(dir, "log")
			sparseFile(t, file, size)
			common := []string{"--output-format=json", "--filename=" + file, "--size=16m", "--bs=4k", "--ioengine=psync", "--random_distribution=zipf:1.2"}
			var wrote, again, read moved
			runFio(t, &wrote, append(common, "--name=w", "--rw=randwrite", "--io_size=4m", "--end_fsync=1")...)
			held := dataBlocks(t, file, bs)
			runFio(t, &again, append(common, "--name=w", "--rw=randwrite", "--io_size=4m", "--end_fsync=1")...)
			heldAgain := dataBlocks(t, file, bs)
			runFio(t, &read, append(append(common, "--name=r", "--write_iolog="+iolog), c.args...)...)
			fioFound, _ := readsFinding(t, iolog, bs, held)

			pl, _ := newTestPlane(t)
			w := fio.Worker{Name: "w", Disks: []fio.Disk{{Name: "d", SizeBytes: size}}}
			on := onThread([]fio.Worker{w}, 0)
			zipf := func(j fio.Job, ioSize string) *fio.Job {
				j.BlockSize, j.IOEngine = bs, "psync"
				j.Options = append(j.Options, fio.Option{Key: "random_distribution", Value: "zipf:1.2"}, fio.Option{Key: "io_size", Value: ioSize})
				return &j
			}
			pl.recordWrites([]fio.Worker{w}, zipf(fio.Job{RW: "randwrite"}, "4m"), on, wrote.written(), wrote.moved())
			modelHeld, _ := pl.data("w", w.Disks[0]).whole()
			pl.recordWrites([]fio.Worker{w}, zipf(fio.Job{RW: "randwrite"}, "4m"), on, again.written(), again.moved())
			modelAgain, _ := pl.data("w", w.Disks[0]).whole()
			if fioHeld, fioAgain := float64(len(held))/(size/bs), float64(len(heldAgain))/(size/bs); math.Abs(modelHeld-fioHeld) > 0.02 || math.Abs(modelAgain-fioAgain) > 0.02 {
				t.Errorf("the model has %.3f of the file written, %.3f after the second randwrite; fio %.3f and %.3f", modelHeld, modelAgain, fioHeld, fioAgain)
			}
			reader := JobRun{Workers: []fio.Worker{w}, Job: zipf(c.reader, "4m"), threads: on}
			plan := pl.replaySegments(reader)
			if plan == nil {
				t.Fatal("the zipf reader follows no stream")
			}
			readBytes := read.moved()
			model := 0.0
			for k := 0; ; k++ { // over the passes its reads cover
				done := true
				for _, s := range plan(k) {
					from, to := float64(k)*size+s.from, float64(k)*size+s.to
					model += math.Max(0, math.Min(to, readBytes)-from) * s.finds[0].written
					done = done && to >= readBytes
				}
				if done || k > 4 {
					break
				}
			}
			model /= readBytes
			if math.Abs(model-fioFound) > 0.03 {
				t.Errorf("the model finds %.3f of the reads written, fio %.3f", model, fioFound)
			} else {
				t.Logf("the model finds %.3f of the reads written, fio %.3f (the file %.3f written)", model, fioFound, modelHeld)
			}
		})
	}
}
