package model

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"starbench/internal/fio"
)

// fio's random map cuts short random I/Os that reach blocks already done
// in a pass: against fio 3.33 on a local file, the mean size of each
// direction's I/Os is the model's for the passes fio made (its bytes over
// the file), within 10 %, for a whole pass, a quarter, many passes of a
// time-based run, and a mix of reads and writes; with norandommap the
// sizes are as drawn.
func TestRandomMapCutsIOsAsFioDoes(t *testing.T) {
	needFio(t)
	const general = "4k/20:8k/20:16k/10:32k/20:64k/20:256k/10"
	for _, c := range []struct {
		name    string
		options []string
	}{
		{"whole pass", []string{"--rw=randread", "--bssplit=4k/50:64k/50"}},
		{"quarter pass", []string{"--rw=randread", "--bssplit=4k/50:64k/50", "--io_size=16m"}},
		{"time based", []string{"--rw=randread", "--bssplit=" + general, "--time_based", "--runtime=1"}},
		{"reads and writes", []string{"--rw=randrw", "--rwmixread=70", "--bssplit=8k/70:64k/30"}},
		{"norandommap", []string{"--rw=randread", "--bssplit=4k/50:64k/50", "--norandommap"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var report sizesReport
			runFio(t, &report, append([]string{"--output-format=json", "--name=m", "--filename=" + t.TempDir() + "/f", "--size=64m", "--ioengine=psync"}, c.options...)...)
			var opts []fio.Option
			for _, o := range c.options {
				k, v, _ := strings.Cut(strings.TrimPrefix(o, "--"), "=")
				opts = append(opts, fio.Option{Key: k, Value: v})
			}
			job := fio.JobFromOptions("m", opts)
			sh, err := readJob(&job)
			if err != nil {
				t.Fatal(err)
			}
			j := report.Jobs[0]
			passes := (j.Read.IOBytes + j.Write.IOBytes) / (64 << 20)
			if sh.mapTrims(&job) {
				sh.mapSizes(passes)
			} else if c.name != "norandommap" {
				t.Fatalf("%v: the model says fio's random map cuts nothing short", c.options)
			}
			for dir, real := range report.meanSizes(0) {
				if real == 0 {
					continue
				}
				model := meanSize(sh.sizes[dir])
				if !within(model, real, 0.10) {
					t.Errorf("%.2f passes, direction %d: fio's I/Os %.0f bytes on average, the model's %.0f", passes, dir, real, model)
				}
				t.Logf("%.2f passes, direction %d: fio %.0f bytes an I/O, the model %.0f", passes, dir, real, model)
			}
		})
	}
}

// Solved, a time-based job of mixed random sizes runs at the sizes its
// passes leave (settled from a first solve) and says so, where
// norandommap runs them as drawn; a size-based job's passes are its
// size's, so a quarter of the disk leaves larger I/Os than a whole run.
func TestSolvedJobsRunAtTheSizesTheMapLeaves(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	run := func(extra ...fio.Option) *Output {
		job := fio.JobFromOptions("general", append([]fio.Option{{Key: "rw", Value: "randrw"}, {Key: "rwmixread", Value: "70"}, {Key: "bssplit", Value: "4k/20:8k/20:16k/10:32k/20:64k/20:256k/10"},
			{Key: "ioengine", Value: "libaio"}, {Key: "direct", Value: "1"}, {Key: "iodepth", Value: "8"}}, extra...))
		return solve(t, p, UniformInput(p, 16, 8, Policy{RAID: "raid1", FTT: 1}, &job))
	}
	mean := func(o *Output) float64 {
		return (o.Read.MBps + o.Write.MBps) * 1e6 / total(o)
	}
	timed := run(fio.Option{Key: "time_based"}, fio.Option{Key: "runtime", Value: "3600"})
	drawn := run(fio.Option{Key: "time_based"}, fio.Option{Key: "runtime", Value: "3600"}, fio.Option{Key: "norandommap"})
	whole := run(fio.Option{Key: "size", Value: "100%"})
	quarter := run(fio.Option{Key: "io_size", Value: "25%"})
	if m := mean(drawn); math.Abs(m-49971) > 100 || strings.Contains(notes(drawn), "random map cuts") {
		t.Errorf("norandommap: %.0f bytes an I/O, want the 49,971 drawn; notes %q", m, notes(drawn))
	}
	if m := mean(timed); !(m < 0.6*mean(drawn)) || !strings.Contains(notes(timed), "fio's random map cuts short the random I/Os") {
		t.Errorf("an hour's run: %.0f bytes an I/O against %.0f drawn; notes %q", m, mean(drawn), notes(timed))
	}
	if !(mean(quarter) > 1.1*mean(whole)) || !(total(timed) > total(drawn)) {
		t.Errorf("a quarter pass %.0f bytes an I/O, a whole one %.0f; %.0f IOPS cut short, %.0f drawn", mean(quarter), mean(whole), total(timed), total(drawn))
	}
	t.Log(fmt.Sprintf("bytes an I/O: drawn %.0f, an hour %.0f, a whole pass %.0f, a quarter %.0f", mean(drawn), mean(timed), mean(whole), mean(quarter)))
}

// Within a pass the I/Os shrink as fio's random map fills: against fio
// 3.33's own log of a pass (write_iolog, I/O by I/O in order), the mean
// size of the I/Os of each tenth of the map is the model's for that tenth
// (mapPass.between) within 10 %, from the first tenth's near-drawn sizes
// to the last's.
func TestMapPassTenthsAsFioFillsTheMap(t *testing.T) {
	needFio(t)
	dir := t.TempDir()
	iolog := filepath.Join(dir, "log")
	const region = 64 << 20
	var report sizesReport
	runFio(t, &report, "--output-format=json", "--name=m", "--filename="+filepath.Join(dir, "f"), "--size=64m", "--ioengine=psync",
		"--rw=randread", "--bssplit=4k/50:64k/50", "--write_iolog="+iolog)
	raw, err := os.ReadFile(iolog)
	if err != nil {
		t.Fatal(err)
	}
	var bytes, ios [mapSlices]float64
	done := 0.0
	for line := range strings.SplitSeq(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) != 5 || f[2] != "read" {
			continue
		}
		n, err := strconv.ParseFloat(f[4], 64)
		if err != nil {
			t.Fatalf("fio's log line %q: want time, file, action, offset, length", line)
		}
		k := min(mapSlices-1, int(done*mapSlices/region))
		bytes[k] += n
		ios[k]++
		done += n
	}
	if done != region {
		t.Fatalf("fio's log holds %.0f bytes of reads, want the pass's %d", done, region)
	}
	sizes := [2][]sizeShare{{{4096, 0.5}, {65536, 0.5}}}
	pass := mapPassOf(sizes, 1)
	for k := range mapSlices {
		model, real := meanSize(pass.between(float64(k)/mapSlices, float64(k+1)/mapSlices)[read]), bytes[k]/ios[k]
		if !within(model, real, 0.10) {
			t.Errorf("tenth %d of the pass: fio's I/Os %.0f bytes on average, the model's %.0f", k+1, real, model)
		}
		t.Logf("tenth %d: fio %.0f bytes an I/O, the model %.0f", k+1, real, model)
	}
}

// Run by the plane, a time-based job of mixed random sizes over its disks
// goes through its passes tenth by tenth: its samples' I/Os shrink along
// each pass and grow again as the next begins, its figures are the
// samples' mean, and the pass's length is what a fio job takes to move its
// region at those rates; with norandommap the samples stay flat.
func TestPlaneRunsThePassesOfTheMap(t *testing.T) {
	pl, _ := newTestPlane(t)
	ctx := context.Background()
	ws := workers(4, 8, "") // 50 GiB disks
	prepareRandom(ctx, t, pl, ws)
	job := func(extra ...fio.Option) fio.Job {
		return fio.JobFromOptions("general", append([]fio.Option{{Key: "rw", Value: "randread"}, {Key: "bssplit", Value: "4k/50:64k/50"},
			{Key: "ioengine", Value: "libaio"}, {Key: "direct", Value: "1"}, {Key: "iodepth", Value: "8"}, {Key: "time_based"}, {Key: "runtime", Value: "600"}}, extra...))
	}
	res := runJob(t, pl, ws, job())
	size := func(s fio.Sample) float64 { return s.MBps * 1e6 / s.IOPS }
	var sizes []float64
	ios, mbps := 0.0, 0.0
	for _, s := range res.Samples {
		sizes = append(sizes, size(s))
		ios += s.IOPS
		mbps += s.MBps
	}
	rises, firstRise := 0, 0.0 // a new pass begins
	for i := 1; i < len(sizes); i++ {
		if sizes[i] > sizes[i-1]*1.2 {
			if rises == 0 {
				firstRise = res.Samples[i].TS
			}
			rises++
		}
	}
	var row fio.Row
	for _, r := range res.Aggregate {
		if r.Direction == "read" {
			row = r
		}
	}
	n := float64(len(res.Samples))
	if len(sizes) < 50 || rises < 1 || slices.Max(sizes) < 1.5*slices.Min(sizes) || !within(row.IOPS, ios/n, 1e-6) || !within(row.MBps, mbps/n, 1e-6) {
		t.Errorf("%d samples of %.0f to %.0f bytes an I/O, %d new passes; %.0f IOPS and %.1f MB/s against the samples' mean %.0f and %.1f; want I/Os shrinking along each pass, figures the samples' mean",
			len(sizes), slices.Min(sizes), slices.Max(sizes), rises, row.IOPS, row.MBps, ios/n, mbps/n)
	}
	// The pass's length, when the first new pass shows in the samples: what
	// a fio job takes to move its 50 GiB region at each tenth's rate.
	var note string
	for _, n := range res.Notes {
		if strings.HasPrefix(n, "fio's random map: each pass") {
			note = n
		}
	}
	var pass float64
	if _, err := fmt.Sscanf(note, "fio's random map: each pass over a disk's region takes %g s", &pass); err != nil {
		t.Fatalf("notes %q: want the pass's length said", res.Notes)
	}
	interval := res.Samples[1].TS - res.Samples[0].TS
	if math.Abs(firstRise-pass) > 2*interval || !(pass > 60 && pass < 600) {
		t.Errorf("a pass takes %.0f s by the note, the samples' first new pass is at %.0f s (samples every %.0f s)", pass, firstRise, interval)
	}
	flat := runJob(t, pl, ws, job(fio.Option{Key: "norandommap"}))
	for _, s := range flat.Samples {
		if !within(size(s), size(flat.Samples[0]), 1e-9) {
			t.Fatalf("norandommap: samples of %.0f and %.0f bytes an I/O, want them flat", size(s), size(flat.Samples[0]))
		}
	}
}

// The map is a job's own directions': sizes given for a direction the job
// never does (bssplit's read entry on a randwrite) neither turn it off nor
// call for the note on differing directions; one size a direction leaves
// nothing to cut.
func TestRandomMapReadsTheDirectionsTheJobDoes(t *testing.T) {
	for _, c := range []struct{ rw, bssplit string }{
		{"randwrite", "64k,4k/50:64k/50"},
		{"randread", "4k/50:64k/50,64k"},
	} {
		job := fio.JobFromOptions("m", []fio.Option{{Key: "rw", Value: c.rw}, {Key: "bssplit", Value: c.bssplit}})
		sh, err := readJob(&job)
		if err != nil {
			t.Fatal(err)
		}
		if !sh.mapTrims(&job) || strings.Contains(strings.Join(sh.notes, "\n"), "marks each in its own block size") {
			t.Errorf("rw=%s bssplit=%s: the map cuts nothing short, or notes %q", c.rw, c.bssplit, sh.notes)
		}
	}
	// One size a direction: nothing to cut short.
	job := fio.JobFromOptions("m", []fio.Option{{Key: "rw", Value: "randrw"}, {Key: "bs", Value: "8k"}})
	if sh, err := readJob(&job); err != nil || sh.mapTrims(&job) {
		t.Errorf("randrw bs=8k: %v; want the map cutting nothing short", err)
	}
}

// On OSA a writing job's passes go through the write buffers' burst and
// then the elevators' pace: the first tenth of its first pass, in the
// burst, writes faster than the same tenth run again once the buffers are
// full (the fill carries from run to run); the samples show the passes,
// and the figures are still the samples' mean.
func TestOSAPassesGoThroughTheBurst(t *testing.T) {
	ctx := context.Background()
	src := &memSource{policies: map[string]Policy{"r5": {RAID: "raid5", FTT: 1}}}
	pl := NewPlane(mustLoad(t, "wwt-r640-osa"), src).(*Plane)
	ws := workers(48, 2, "r5")
	for i := range ws {
		for d := range ws[i].Disks {
			ws[i].Disks[d].SizeBytes = 400 << 30 // more than the write buffers hold
		}
	}
	prepareDrained(ctx, t, pl, ws)
	job := fio.JobFromOptions("general", []fio.Option{{Key: "rw", Value: "randrw"}, {Key: "rwmixread", Value: "70"}, {Key: "bssplit", Value: "4k/50:64k/50"},
		{Key: "ioengine", Value: "libaio"}, {Key: "direct", Value: "1"}, {Key: "iodepth", Value: "8"}, {Key: "time_based"}, {Key: "runtime", Value: "20000"}})
	writes := func(res *fio.Result) (samples []fio.Sample, mean float64) {
		from := 0.0 // the samples' mean over time: the last interval may be longer
		for _, s := range res.Samples {
			if s.Direction == "write" {
				samples = append(samples, s)
				mean += s.MBps * (s.TS - from)
				from = s.TS
			}
		}
		return samples, mean / from
	}
	first := runJob(t, pl, ws, job)
	again := runJob(t, pl, ws, job)
	notes := strings.Join(first.Notes, "\n")
	if !strings.Contains(notes, "OSA write buffers absorb writes") || !strings.Contains(notes, "fio's random map: each pass") || strings.Contains(strings.Join(again.Notes, "\n"), "OSA write buffers absorb writes") {
		t.Fatalf("notes %q, then %q: want the burst and the passes, then no burst", first.Notes, again.Notes)
	}
	w, mean := writes(first)
	w2, _ := writes(again)
	rises := 0
	for i := 1; i < len(w); i++ {
		if w[i].MBps/w[i].IOPS > 1.2*w[i-1].MBps/w[i-1].IOPS {
			rises++
		}
	}
	var row fio.Row
	for _, r := range first.Aggregate {
		if r.Direction == "write" {
			row = r
		}
	}
	t.Logf("the first tenth writes %.0f MB/s in the burst, %.0f run again; %d new passes; figures %.1f MB/s, the samples' mean %.1f", w[0].MBps, w2[0].MBps, rises, row.MBps, mean)
	if !(w[0].MBps > 1.05*w2[0].MBps) || rises < 1 || !within(row.MBps, mean, 1e-6) {
		t.Errorf("the first tenth writes %.0f MB/s in the burst, %.0f run again; %d new passes; figures %.1f MB/s against the samples' mean %.1f: want the burst faster, passes, figures the samples' mean",
			w[0].MBps, w2[0].MBps, rises, row.MBps, mean)
	}
}

// The sizes a part of a pass leaves move smoothly with the part: between
// two whole percents of the map they follow the line between theirs, so a
// run whose passes move by a thousandth (its throughput, or a parameter,
// moved a little) never jumps. Rounded to whole percents, the mean size of
// WWT's general mix fell 1.8 % at 0.205 passes (44,039 to 43,236 bytes over
// 0.20 and 0.21), and a NIC-bound run's I/Os rose 3.7 % with it. (The first
// few percent are left out: the pass's first I/Os are too few for their
// mean to be smooth at all.)
func TestAPartOfAPassMovesTheSizesSmoothly(t *testing.T) {
	sizes := [2][]sizeShare{{{4 << 10, 0.5}, {64 << 10, 0.5}}, nil}
	pass := mapPassOf(sizes, 1)
	mean := func(passes float64) float64 { return meanSize(pass.over(passes)[read]) }
	worst, at := 0.0, 0.0
	for x := 0.05; x < 1.5; x += 0.001 {
		step := math.Abs(mean(x+0.001)/mean(x) - 1)
		if step > worst {
			worst, at = step, x
		}
	}
	t.Logf("largest change of the mean size a thousandth of a pass makes: %.3f %% at %.3f passes", 100*worst, at)
	if worst > 0.005 {
		t.Errorf("a thousandth of a pass moves the mean size by %.2f %% (at %.3f passes): want under 0.5 %%, no jump", 100*worst, at)
	}
	for _, pct := range []int{20, 21, 50} { // at whole percents, the pass's own counts
		want := meanSize(sharesOf(pass.at[pct][read]))
		if got := mean(float64(pct) / 100); !within(got, want, 1e-9) {
			t.Errorf("%d %% of a pass: mean size %.1f, want the map's own %.1f", pct, got, want)
		}
	}
}
