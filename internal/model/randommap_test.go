package model

import (
	"fmt"
	"math"
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
