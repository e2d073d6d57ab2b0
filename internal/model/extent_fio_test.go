package model

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"starbench/internal/fio"
)

// What a job covers and moves (extent) is what the installed fio moves: a
// randread on an 8 MiB file with size as a share, offset, io_size beyond
// the region, loops and number_ios over two clones.
func TestExtentAgainstFio(t *testing.T) {
	needFio(t)
	const disk = 8 << 20
	for _, opts := range [][]fio.Option{
		{{Key: "size", Value: "25%"}},
		{{Key: "offset", Value: "50%"}},
		{{Key: "offset", Value: "2m"}, {Key: "size", Value: "1m"}},
		{{Key: "size", Value: "1m"}, {Key: "io_size", Value: "3m"}},
		{{Key: "size", Value: "1m"}, {Key: "loops", Value: "3"}},
		{{Key: "number_ios", Value: "100"}, {Key: "numjobs", Value: "2"}},
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
			if o.Key == "numjobs" {
				job.NumJobs = 2
			} else {
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
		if got := float64(max(job.NumJobs, 1)) * sh.extent.moved(disk, sh.meanIO()); got != want {
			t.Errorf("%s: the model moves %.0f bytes, fio moved %.0f", strings.Join(text, " "), got, want)
		}
	}
}
