package model

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"starbench/internal/fio"
)

// What a job covers and moves (extent) is what the installed fio moves: a
// randread on an 8 MiB file with size as a share, offset, io_size beyond
// the region and as a share of it, loops, number_ios over two clones, and offset_increment
// spreading clones over the file. (A clone past a regular file's end
// extends the file; TestOffsetIncrement has what fio does on a device.)
func TestExtentAgainstFio(t *testing.T) {
	needFio(t)
	const disk = 8 << 20
	for _, opts := range [][]fio.Option{
		{{Key: "size", Value: "25%"}},
		{{Key: "offset", Value: "50%"}},
		{{Key: "offset", Value: "2m"}, {Key: "size", Value: "1m"}},
		{{Key: "size", Value: "1m"}, {Key: "io_size", Value: "3m"}},
		{{Key: "offset", Value: "2m"}, {Key: "size", Value: "4m"}, {Key: "io_size", Value: "50%"}},
		{{Key: "offset", Value: "6m"}, {Key: "io_size", Value: "50%"}},
		{{Key: "size", Value: "1m"}, {Key: "loops", Value: "3"}},
		{{Key: "number_ios", Value: "100"}, {Key: "numjobs", Value: "2"}},
		{{Key: "numjobs", Value: "4"}, {Key: "size", Value: "1m"}, {Key: "offset_increment", Value: "25%"}},
		{{Key: "rw", Value: "read"}, {Key: "numjobs", Value: "3"}, {Key: "size", Value: "2m"}, {Key: "offset_increment", Value: "3m"}},
	} {
		file := filepath.Join(t.TempDir(), "disk")
		if err := os.WriteFile(file, make([]byte, disk), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"--output-format=json", "--group_reporting", "--name=x", "--filename=" + file, "--rw=randread", "--bs=4k", "--ioengine=psync"}
		job := fio.Job{RW: "randread", BlockSize: 4096}
		var text []string
		for _, o := range opts {
			args = append(args, "--"+o.Key+"="+o.Value)
			text = append(text, o.Key+"="+o.Value)
			switch o.Key {
			case "numjobs":
				job.NumJobs, _ = strconv.Atoi(o.Value)
			case "rw":
				job.RW = o.Value
			default:
				job.Options = append(job.Options, o)
			}
		}
		var report struct {
			Jobs []struct {
				Read struct {
					IOBytes float64 `json:"io_bytes"`
				}
			}
		}
		if runFio(t, &report, args...); len(report.Jobs) != 1 {
			t.Fatalf("fio's report has %d jobs, want 1", len(report.Jobs))
		}
		sh, err := readJob(&job)
		if err != nil {
			t.Fatal(err)
		}
		want := report.Jobs[0].Read.IOBytes
		if err := sh.extent.check(disk, job.NumJobs, sh.randomShare > 0, &job); err != nil {
			t.Errorf("%s: refused: %v", strings.Join(text, " "), err)
		}
		if got := sh.extent.moved(disk, sh.meanIO(), job.NumJobs); got != want {
			t.Errorf("%s: the model moves %.0f bytes, fio moved %.0f", strings.Join(text, " "), got, want)
		}
	}
}

// Raw bssplit values mean to the model what they mean to the installed
// fio: each direction's mean I/O size over 20,000 I/Os of randrw 50/50
// (norandommap, so fio's random map does not shrink large blocks as the
// file fills; io_size beyond the file so number_ios ends the job) is the
// model's within 3 % (sampling: about 0.5 %).
func TestRawBlockSizesAgainstFio(t *testing.T) {
	needFio(t)
	splits := []string{"4k/10:64k/50:32k/", "2k/50:4k/50,4k/90:8k/10", "4k/50:8k/50,64k"}
	dir := t.TempDir()
	args := []string{"--output-format=json", "--rw=randrw", "--rwmixread=50", "--ioengine=psync", "--norandommap", "--size=16m", "--io_size=64g", "--number_ios=20000"}
	for i, v := range splits {
		args = append(args, fioJob(dir, i, "--bssplit="+v)...)
	}
	var report sizesReport
	if runFio(t, &report, args...); len(report.Jobs) != len(splits) {
		t.Fatalf("fio's report has %d jobs, want %d", len(report.Jobs), len(splits))
	}
	for i, v := range splits {
		job := fio.Job{RW: "randrw", Options: []fio.Option{{Key: "bssplit", Value: v}}}
		sh, err := readJob(&job)
		if err != nil {
			t.Fatal(err)
		}
		real := report.meanSizes(i)
		for d := range real {
			if model := meanSize(sh.sizes[d]); math.Abs(model/real[d]-1) > 0.03 {
				t.Errorf("bssplit=%s, direction %d: the model's mean I/O is %.0f bytes, fio's %.0f", v, d, model, real[d])
			}
		}
	}
}

// sizesReport is fio's JSON report of each job's bytes and I/Os by
// direction.
type sizesReport struct {
	Jobs []struct{ Read, Write ioCount }
}

// ioCount is one direction's bytes and I/Os in fio's JSON report.
type ioCount struct {
	IOBytes float64 `json:"io_bytes"`
	IOs     float64 `json:"total_ios"`
}

// meanSizes is job i's mean read and write size; 0 for a direction with
// no I/O.
func (r sizesReport) meanSizes(i int) [2]float64 {
	var mean [2]float64
	for dir, d := range [2]ioCount{r.Jobs[i].Read, r.Jobs[i].Write} {
		if d.IOs > 0 {
			mean[dir] = d.IOBytes / d.IOs
		}
	}
	return mean
}
