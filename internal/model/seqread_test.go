package model

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"starbench/internal/fio"
)

// A sequential reader of disks written over their first fifth reads that
// fifth at the rate of written blocks and the rest at the rate of blocks
// never written, in that order, as fio reads its pass: its samples step
// from the one rate to the other where it passes the written part, and its
// row is their mean over its time. The model used to give it the rate of
// a disk a fifth written throughout, the same from the first second to the
// last.
func TestSequentialReaderMeetsWhatWasWritten(t *testing.T) {
	ws := workers(2, 1, "r5") // 50 GiB disks
	const disk = 50 << 30
	reader := func(opts ...func(*fio.Job)) fio.Job {
		j := fio.Job{Name: "r", IOEngine: "libaio", Direct: true, RW: "read", BlockSize: 1 << 20, IODepth: 4}
		for _, o := range opts {
			o(&j)
		}
		return j
	}
	writer := fio.Job{Name: "w", IOEngine: "libaio", Direct: true, RW: "write", BlockSize: 1 << 20, IODepth: 4}
	readMBps := func(res *fio.Result) float64 { return inDirection(res.Aggregate, "read")[0].MBps }

	// The two rates: a disk written all over, and one never written.
	full, _ := newTestPlane(t)
	runJob(t, full, ws, writer)
	aRes := runJob(t, full, ws, reader(func(j *fio.Job) { j.RuntimeSec, j.TimeBased = 10, true }))
	a := readMBps(aRes)
	empty, _ := newTestPlane(t)
	b := readMBps(runJob(t, empty, ws, reader(func(j *fio.Job) { j.RuntimeSec, j.TimeBased = 10, true })))
	if b < 2*a {
		t.Fatalf("written %.0f MB/s, never written %.0f: want the unwritten far faster for this test", a, b)
	}
	written := 0.2 * disk
	firstPart := written * 2 / (a * 1e6) // seconds to read the written fifth of both disks

	rest := (disk - written) * 2 / (b * 1e6) // seconds to read the rest
	for _, c := range []struct {
		name    string
		runtime int
	}{
		{"by time, ending in the unwritten part", int(math.Ceil(firstPart)) + 1},
		// Past the pass's end fio starts over at the offset, in the
		// written part again.
		{"by time, past the end of the pass", int(math.Ceil(firstPart+rest)) + 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			T := float64(c.runtime)
			if T <= firstPart+1 || T >= 2*firstPart+rest {
				t.Fatalf("runtime %d s against %.3g s written, %.3g s not: choose another for this test", c.runtime, firstPart, rest)
			}
			pl, _ := newTestPlane(t)
			w := writer
			w.Options = []fio.Option{{Key: "size", Value: "20%"}}
			runJob(t, pl, ws, w)
			res := runJob(t, pl, ws, reader(func(j *fio.Job) { j.RuntimeSec, j.TimeBased = c.runtime, true }))
			inB := math.Min(T-firstPart, rest)
			want := (a*(T-inB) + b*inB) / T
			if got := readMBps(res); !nearRel(got, want, 1e-6) {
				t.Errorf("read %.0f MB/s over %d s, want %.0f: %.0f for the written %.3g s, %.0f for %.3g s, then written again", got, c.runtime, want, a, firstPart, b, inB)
			}
			last := a
			if T < firstPart+rest {
				last = b
			}
			first, end := res.Samples[0], res.Samples[len(res.Samples)-1]
			if !nearRel(first.MBps, a, 1e-6) || !nearRel(end.MBps, last, 1e-6) {
				t.Errorf("samples from %.0f to %.0f MB/s, want from %.0f to %.0f", first.MBps, end.MBps, a, last)
			}
			notes := strings.Join(res.Notes, "\n")
			parts := []string{fmt.Sprintf("0-20 %% of each pass 100 %% written, %.0f MB/s", a), fmt.Sprintf("20-100 %% of each pass 0 %% written, %.0f MB/s", b)}
			if !strings.Contains(notes, "a sequential reader meets its disks' parts in order") || !strings.Contains(notes, parts[0]) || !strings.Contains(notes, parts[1]) {
				t.Errorf("notes %q: want the parts it read said, at their rates: %q", res.Notes, parts)
			}
			// Most of its time is in the written part: the run's view is that
			// part's, as on disks written all over.
			if bottleneck := bottleneckNote(aRes); T-inB > inB && !strings.Contains(notes, bottleneck) {
				t.Errorf("notes %q lack the written part's %q", res.Notes, bottleneck)
			}
		})
	}
	t.Run("its size once", func(t *testing.T) {
		pl, _ := newTestPlane(t)
		w := writer
		w.Options = []fio.Option{{Key: "size", Value: "20%"}}
		runJob(t, pl, ws, w)
		res := runJob(t, pl, ws, reader())
		secs := firstPart + (disk-written)*2/(b*1e6)
		if got, want := readMBps(res), 2*disk/secs/1e6; !nearRel(got, want, 1e-6) {
			t.Errorf("read %.0f MB/s, want the disks' %d bytes each over %.4g s, %.0f MB/s", got, disk, secs, want)
		}
		if end := lastSampleTS(res); !nearRel(end, secs, 1e-6) {
			t.Errorf("the samples end at %g s, want %g", end, secs)
		}
	})
	t.Run("a sequential mix, its size once", func(t *testing.T) {
		mix := func(j *fio.Job) { j.RW, j.RWMixRead = "rw", 70 }
		byTime := func(j *fio.Job) { j.RuntimeSec, j.TimeBased = 10, true }
		short := func(j *fio.Job) { j.Options = []fio.Option{{Key: "io_size", Value: "1g"}} } // within its first pass
		total := func(res *fio.Result) float64 {
			return inDirection(res.Aggregate, "read")[0].MBps + inDirection(res.Aggregate, "write")[0].MBps
		}
		full, _ := newTestPlane(t)
		runJob(t, full, ws, writer)
		am := total(runJob(t, full, ws, reader(mix, byTime)))
		empty, _ := newTestPlane(t)
		bm := total(runJob(t, empty, ws, reader(mix, short)))
		pl, _ := newTestPlane(t)
		w := writer
		w.Options = []fio.Option{{Key: "size", Value: "20%"}}
		runJob(t, pl, ws, w)
		res := runJob(t, pl, ws, reader(mix))
		// Its reads find the written fifth, then blocks never written; its
		// writes land behind them. fio keeps a position per direction, so
		// the reads pass the written fifth once the job has moved 1/0.7 of
		// its bytes (70/30), and over the disk's size read 70 % of it.
		secs := written/0.7*2/(am*1e6) + (disk-written/0.7)*2/(bm*1e6)
		if end := lastSampleTS(res); !nearRel(end, secs, 1e-6) || bm < 1.2*am {
			t.Errorf("the samples end at %g s, want %g: the written fifth at %.0f MB/s, the rest at %.0f", end, secs, am, bm)
		}
	})
	t.Run("stopped by number_ios in the unwritten part", func(t *testing.T) {
		pl, _ := newTestPlane(t)
		w := writer
		w.Options = []fio.Option{{Key: "size", Value: "20%"}}
		runJob(t, pl, ws, w)
		ios := int64(0.6 * disk / (1 << 20)) // 60 % of each disk in 1 MiB reads
		res := runJob(t, pl, ws, reader(func(j *fio.Job) { j.Options = []fio.Option{{Key: "number_ios", Value: fmt.Sprint(ios)}} }))
		secs := firstPart + (float64(ios)*(1<<20)-written)*2/(b*1e6)
		if end := lastSampleTS(res); !nearRel(end, secs, 1e-6) {
			t.Errorf("the samples end at %g s, want %g: the written fifth, then 40 %% of the disk unwritten", end, secs)
		}
	})
	t.Run("two clones each, by time", func(t *testing.T) {
		two := func(j *fio.Job) { j.NumJobs = 2 }
		full, _ := newTestPlane(t)
		runJob(t, full, ws, writer)
		a2 := readMBps(runJob(t, full, ws, reader(two, func(j *fio.Job) { j.RuntimeSec, j.TimeBased = 10, true })))
		empty, _ := newTestPlane(t)
		b2 := readMBps(runJob(t, empty, ws, reader(two, func(j *fio.Job) { j.RuntimeSec, j.TimeBased = 10, true })))
		pl, _ := newTestPlane(t)
		w := writer
		w.Options = []fio.Option{{Key: "size", Value: "20%"}}
		runJob(t, pl, ws, w)
		// Four readers (two disks, two clones), each reading its disk: the
		// written fifth takes t1, then the rest at the unwritten rate.
		t1, rest2 := written*4/(a2*1e6), (disk-written)*4/(b2*1e6)
		T := math.Ceil(t1) + 1
		if T >= t1+rest2 {
			t.Fatalf("runtime %g s against %.3g s written, %.3g s not: choose another for this test", T, t1, rest2)
		}
		res := runJob(t, pl, ws, reader(two, func(j *fio.Job) { j.RuntimeSec, j.TimeBased = int(T), true }))
		if got, want := readMBps(res), (a2*t1+b2*(T-t1))/T; !nearRel(got, want, 1e-6) {
			t.Errorf("read %.0f MB/s over %g s, want %.0f: %.0f for the written %.3g s, then %.0f", got, T, want, a2, t1, b2)
		}
	})
}

// Parts written alike one after the other are one segment to a reader.
func TestReadSegmentsJoinPartsWrittenAlike(t *testing.T) {
	pl, _ := newTestPlane(t)
	ws := workers(1, 1, "")
	for _, opts := range [][]fio.Option{{{Key: "size", Value: "10%"}}, {{Key: "offset", Value: "10%"}, {Key: "size", Value: "10%"}}} {
		w := fio.Job{IOEngine: "libaio", Direct: true, RW: "write", BlockSize: 1 << 20, IODepth: 4, Options: opts}
		runJob(t, pl, ws, w)
	}
	r := fio.Job{IOEngine: "libaio", Direct: true, RW: "read", BlockSize: 1 << 20}
	segs := pl.readSegments(JobRun{Workers: ws, Job: &r})(0)
	if size := pl.diskSize(ws[0].Disks[0]); len(segs) != 2 || !nearRel(segs[0].to, 0.2*size, 1e-12) || segs[0].finds[0].written != 1 {
		t.Errorf("segments %+v: want two, the first the written fifth", segs)
	}
}

// Only a lone sequential reader that meets differently written parts, or
// a mix's own writes, is cut into segments: not one reading at random, nor
// one whose pass lies in one part. A 70/30 mix's writes are behind its
// reads on the first pass; a 50/50 mix's keep pace with them, so its reads
// find its own writes all along, one segment (fio 3.33, a mix over a fresh 16 MiB file:
// 0.970 of its reads found written at 50/50, 0.997 at 40/60).
func TestReadSegmentsOnlyWherePartsDiffer(t *testing.T) {
	pl, _ := newTestPlane(t)
	ws := workers(1, 1, "")
	w := fio.Job{IOEngine: "libaio", Direct: true, RW: "write", BlockSize: 1 << 20, IODepth: 4, Options: []fio.Option{{Key: "size", Value: "20%"}}}
	if _, err := pl.Run(context.Background(), ws, fio.NewWorkload(w), nil); err != nil {
		t.Fatal(err)
	}
	size := pl.diskSize(ws[0].Disks[0])
	for _, c := range []struct {
		name string
		job  fio.Job
		segs int
		cut  float64 // where the first segment ends, bytes after each clone's start
	}{
		{"sequential over both parts", fio.Job{RW: "read"}, 2, 0.2 * size},
		{"from an offset within the written part", fio.Job{RW: "read", Options: []fio.Option{{Key: "offset", Value: "10%"}}}, 2, 0.1 * size},
		{"at random", fio.Job{RW: "randread"}, 0, 0},
		{"past the written part", fio.Job{RW: "read", Options: []fio.Option{{Key: "offset", Value: "20%"}}}, 0, 0},
		{"within the written part", fio.Job{RW: "read", Options: []fio.Option{{Key: "size", Value: "10%"}}}, 0, 0},
		{"a sequential mix, its size once", fio.Job{RW: "rw", RWMixRead: 70}, 2, 0.2 * size},
		{"a sequential mix by time", fio.Job{RW: "rw", RWMixRead: 70, RuntimeSec: 60, TimeBased: true}, 2, 0.2 * size},
		{"a 50/50 sequential mix", fio.Job{RW: "rw", RWMixRead: 50}, 1, size}, // its own writes all along
		{"a sequential mix, twice", fio.Job{RW: "rw", RWMixRead: 70, Options: []fio.Option{{Key: "loops", Value: "2"}}}, 2, 0.2 * size},
		{"a sequential writer", fio.Job{RW: "write"}, 0, 0},
	} {
		job := c.job
		job.IOEngine, job.Direct, job.BlockSize = "libaio", true, 1<<20
		var segs []readSegment
		if plan := pl.readSegments(JobRun{Workers: ws, Job: &job}); plan != nil {
			segs = plan(0)
		}
		if len(segs) != c.segs || c.segs > 0 && !nearRel(segs[0].to, c.cut, 1e-12) {
			t.Errorf("%s: segments %+v, want %d, the first ending %.0f bytes in", c.name, segs, c.segs, c.cut)
		}
		if c.segs == 1 && segs[0].finds[0].written != 1 {
			t.Errorf("%s: finds %+v, want its own writes", c.name, segs[0].finds)
		}
	}
}

// A sequential reader beside another job meets its disks' parts in order
// as it does alone: a stretch ends where it passes from the written fifth
// to the rest, each solved with what it finds there, so its samples step
// up where the random reader's beside it stay level; the run says what
// share of its reads found data, and the other job's unwritten share.
func TestSequentialReaderBesideOthersMeetsThePartsInOrder(t *testing.T) {
	ctx := context.Background()
	pl, _ := newTestPlane(t)
	ws := workers(2, 1, "r5")
	w := fio.Job{Name: "w", IOEngine: "libaio", Direct: true, RW: "write", BlockSize: 1 << 20, IODepth: 4, Options: []fio.Option{{Key: "size", Value: "20%"}}}
	if _, err := pl.Run(ctx, ws, fio.NewWorkload(w), nil); err != nil {
		t.Fatal(err)
	}
	r := fio.Job{Name: "r", IOEngine: "libaio", Direct: true, RW: "read", BlockSize: 1 << 20, IODepth: 4, RuntimeSec: 600, TimeBased: true}
	o := r
	o.Name, o.RW = "o", "randread"
	res, err := pl.Run(ctx, ws, &fio.Workload{Name: "two", Jobs: []fio.Job{r, o}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(res.Notes, "\n")
	var share float64
	if at := strings.Index(notes, "r meets the parts of its disks in order beside the other jobs (a sequential pass)"); at < 0 {
		t.Fatalf("notes %q: want r's passage through the parts said", notes)
	} else if _, err := fmt.Sscanf(notes[at:][strings.Index(notes[at:], "there: ")+len("there: "):], "%f %%", &share); err != nil {
		t.Fatalf("r's note %q: %v", notes[at:], err)
	}
	if !strings.Contains(notes, "80 % of the blocks o read were never written") || strings.Contains(notes, "blocks r read were never written") || strings.Contains(notes, "o meets") {
		t.Errorf("notes %q: want o's unwritten share, none of r's", notes)
	}
	steps := func(job string) (lo, hi float64) {
		lo = math.Inf(1)
		for _, s := range res.Samples {
			if s.Job == job && s.Direction == "read" {
				lo, hi = math.Min(lo, s.MBps), math.Max(hi, s.MBps)
			}
		}
		return lo, hi
	}
	rLo, rHi := steps("r")
	oLo, oHi := steps("o")
	if !(rHi > 1.2*rLo) || !(share > 1 && share < 99) {
		t.Errorf("r's samples %.0f to %.0f MB/s, %.0f %% of its reads found data: want a step, and some of each part", rLo, rHi, share)
	}
	t.Logf("r %.0f to %.0f MB/s (%.0f %% found data), o %.0f to %.0f MB/s", rLo, rHi, share, oLo, oHi)
}

// fio keeps a position per direction in a sequential mix: a 70/30 rw
// moving a 16 MiB file's size reads its first 70 % and writes its first
// 30 %, each in order (fio 3.33's write_iolog), which is why a mix's reads
// move along its pass by reads alone (passRate).
func TestASequentialMixKeepsAPositionPerDirection(t *testing.T) {
	needFio(t)
	const size, bs = 16 << 20, 4096
	dir := t.TempDir()
	iolog := filepath.Join(dir, "log")
	var report moved
	runFio(t, &report, "--output-format=json", "--name=m", "--filename="+filepath.Join(dir, "f"), "--size=16m", "--bs=4k", "--rw=rw", "--rwmixread=70", "--ioengine=psync", "--write_iolog="+iolog)
	var last [2]int64 // the furthest block read and written
	var count [2]int64
	for _, io := range loggedIOs(t, iolog, bs) {
		d := read
		if io.write {
			d = write
		}
		last[d] = max(last[d], io.block)
		count[d]++
	}
	for d, name := range []string{"reads", "writes"} {
		if count[d] == 0 || last[d]+1 != count[d] {
			t.Errorf("%s: %d of them, the furthest at block %d; want them in order from the start, each block once", name, count[d], last[d])
		}
	}
	if share := float64(count[read]) / (size / bs); math.Abs(share-0.7) > 0.03 {
		t.Errorf("the reads cover %.3f of the file, want about 0.7", share)
	}
}

// A sequential mix by time finds its own writes on its later passes: each
// direction wraps on its own, so a 70/30 mix's second read pass finds the
// first 75 % of the file written by it and its third all of it. Against
// fio 3.33 on a 16 MiB file whose first 30 % was written before.
func TestASequentialMixByTimeFindsItsOwnWrites(t *testing.T) {
	mixPassesAgainstFio(t, "4800k", []string{"--time_based", "--runtime=3"}, fio.Job{RuntimeSec: 3, TimeBased: true})
}

// A sequential mix's loops go on where the last left off: fio 3.33 runs a
// 70/30 mix with loops=3 as one run moving three times its size, its reads
// wrapping at the file's end and its writes restarting with them, so its
// second read pass finds what the first pass wrote (the model's w = 3/7 of
// it) and the start of the third its second pass's writes. Against fio over
// a 16 MiB file written on its first quarter.
func TestASequentialMixOverLoopsFindsItsOwnWrites(t *testing.T) {
	mixPassesAgainstFio(t, "4m", []string{"--loops=3"}, fio.Job{Options: []fio.Option{{Key: "loops", Value: "3"}}})
}

// mixPassesAgainstFio writes the first fill bytes of a 16 MiB file with
// fio, runs a 70/30 rw over it with fio's args (its rates pinning the mix)
// and compares the share of each of its first three read passes' reads
// that find their block written, fio's (from its write_iolog) and the
// model's for job (passes from readSegments), within 0.02: a pass as far
// as fio read it.
func mixPassesAgainstFio(t *testing.T, fill string, args []string, job fio.Job) {
	t.Helper()
	needFio(t)
	const size, bs = 16 << 20, 4096
	dir := t.TempDir()
	file, iolog := filepath.Join(dir, "f"), filepath.Join(dir, "log")
	sparseFile(t, file, size)
	common := []string{"--output-format=json", "--filename=" + file, "--size=16m", "--bs=4k", "--ioengine=psync"}
	var filled moved
	runFio(t, &filled, append(common, "--name=fill", "--rw=write", "--io_size="+fill, "--end_fsync=1")...)
	held := dataBlocks(t, file, bs)
	var mix moved
	runFio(t, &mix, append(append(common, "--name=mix", "--rw=rw", "--rwmixread=70", "--rate_iops=4200,1800", "--write_iolog="+iolog), args...)...)
	var fioFound [3][2]float64 // per read pass: found, reads
	reads := 0
	for _, io := range loggedIOs(t, iolog, bs) {
		if io.write {
			held[io.block] = true
			continue
		}
		if k := reads / (size / bs); k < 3 {
			fioFound[k][1]++
			if held[io.block] {
				fioFound[k][0]++
			}
		}
		reads++
	}

	pl, _ := newTestPlane(t)
	w := fio.Worker{Name: "w", Disks: []fio.Disk{{Name: "d", SizeBytes: size}}}
	pl.recordWrites([]fio.Worker{w}, &fio.Job{RW: "write", BlockSize: bs, IOEngine: "psync", Options: []fio.Option{{Key: "io_size", Value: fill}}}, onThread([]fio.Worker{w}, 0), filled.written(), filled.moved())
	job.RW, job.RWMixRead, job.BlockSize, job.IOEngine = "rw", 70, bs, "psync"
	plan := pl.readSegments(JobRun{Workers: []fio.Worker{w}, Job: &job})
	if plan == nil {
		t.Fatal("no passes for a mix over a part-written file")
	}
	for k := range 3 {
		if fioFound[k][1] == 0 {
			t.Fatalf("read pass %d: fio read nothing (%d reads in all)", k+1, reads)
		}
		reach := fioFound[k][1] * bs
		model := 0.0
		for _, s := range plan(k) {
			model += math.Max(0, math.Min(s.to, reach)-s.from) * s.finds[0].written
		}
		model /= reach
		if got := fioFound[k][0] / fioFound[k][1]; math.Abs(model-got) > 0.02 {
			t.Errorf("read pass %d: the model finds %.3f written, fio %.3f", k+1, model, got)
		} else {
			t.Logf("read pass %d (%.0f reads): the model finds %.3f written, fio %.3f", k+1, fioFound[k][1], model, got)
		}
	}
}
