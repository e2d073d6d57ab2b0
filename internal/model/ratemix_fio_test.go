package model

import (
	"bytes"
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"starbench/internal/fio"
)

// The model's rates on a mixed job behave as the installed fio's: three
// randrw 70/30 jobs on local files for 2 s at rate_iops=50, 50,10 and ,10;
// each capped direction runs at its rate in both (fio within 20 %), and the
// free one runs well past the share the held mix would give it (7/3 of the
// writes). Measured at ten times these rates, fio 3.33 does the same: 500
// and 500, 500 and 100, about 15,000 and 100.
func TestRateMixAgainstFio(t *testing.T) {
	needFio(t)
	// Rates far below what fio does on a local file even on a loaded
	// machine (CI runs other packages' fio servers beside it): a direction
	// short of its rate would be the machine, not fio's rule.
	rates := []string{"50", "50,10", ",10"}
	dir := t.TempDir()
	args := []string{"--output-format=json", "--runtime=2", "--time_based", "--size=16m", "--rw=randrw", "--rwmixread=70", "--bs=4k", "--ioengine=psync"}
	for i, r := range rates {
		args = append(args, fioJob(dir, i, "--rate_iops="+r)...)
	}
	var report struct {
		Jobs []struct {
			Read, Write struct{ IOPS float64 }
		}
	}
	if runFio(t, &report, args...); len(report.Jobs) != len(rates) {
		t.Fatalf("fio's report has %d jobs, want %d", len(report.Jobs), len(rates))
	}
	p := mustLoad(t, "storagereview-r6625-esa")
	for i, r := range rates {
		job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 4096, IODepth: 16, Options: []fio.Option{{Key: "rate_iops", Value: r}}}
		sh, err := readJob(&job)
		if err != nil {
			t.Fatal(err)
		}
		caps := sh.directionCaps()
		out := solve(t, p, oneDisk(&job))
		real := [2]float64{report.Jobs[i].Read.IOPS, report.Jobs[i].Write.IOPS}
		sim := [2]float64{out.Read.IOPS, out.Write.IOPS}
		for d := range caps {
			other := caps[1-d] * map[int]float64{read: 7.0 / 3, write: 3.0 / 7}[d] // the held mix
			switch {
			case !math.IsInf(caps[d], 1):
				if math.Abs(real[d]/caps[d]-1) > 0.2 || math.Abs(sim[d]/caps[d]-1) > 1e-6 {
					t.Errorf("rate_iops=%s, direction %d capped at %g: fio did %.0f, the model %.0f", r, d, caps[d], real[d], sim[d])
				}
			case real[d] < 2*other || sim[d] < 2*other:
				t.Errorf("rate_iops=%s, free direction %d: fio did %.0f, the model %.0f; both should pass the held mix's %.0f well", r, d, real[d], sim[d], other)
			}
		}
		t.Logf("rate_iops=%s: fio %.0f reads, %.0f writes; model %.0f, %.0f", r, real[read], real[write], sim[read], sim[write])
	}
}

// needFio skips a test where fio is not installed.
func needFio(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed (the README's test command installs it)")
	}
}

// runFio runs fio with args (which ask for --output-format=json) and reads
// its report into report, past the warnings fio prints before it.
func runFio(t *testing.T, report any, args ...string) {
	t.Helper()
	cmd := exec.Command("fio", args...)
	cmd.Dir = t.TempDir() // fio leaves files such as verify state where it runs
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("fio %v: %v", args, err)
	}
	decodeFioReport(t, raw, report)
}

// decodeFioReport decodes fio's JSON report into report, skipping any
// text fio prints before it.
func decodeFioReport(t *testing.T, raw []byte, report any) {
	t.Helper()
	if i := bytes.IndexByte(raw, '{'); i > 0 {
		raw = raw[i:]
	}
	if err := json.Unmarshal(raw, report); err != nil {
		t.Fatalf("fio's report: %v", err)
	}
}

// fioJob is the command-line section of job i of a run of several, on its
// own file in dir, with its own options.
func fioJob(dir string, i int, options ...string) []string {
	name := string(rune('a' + i))
	return append([]string{"--name=j" + name, "--filename=" + filepath.Join(dir, name)}, options...)
}

// With rate_ignore_thinktime fio holds a job's rate only while it does
// I/O: two 2 s randread jobs at rate_iops=1000, thinking 50 ms after each
// 250 I/Os or after each 100 ms of I/O, run at the model's rates (5/6 and
// 2/3 of 1,000) within 10 %, and without the option catch up to 1,000.
func TestRateWhileBusyAgainstFio(t *testing.T) {
	needFio(t)
	thinks := [][]string{{"--thinktime=50ms", "--thinktime_blocks=250"}, {"--thinktime=50ms", "--thinktime_iotime=100ms"}}
	dir := t.TempDir()
	args := []string{"--output-format=json", "--runtime=2", "--time_based", "--size=16m", "--rw=randread", "--bs=4k", "--ioengine=psync", "--rate_iops=1000"}
	for i, th := range thinks {
		args = append(args, fioJob(dir, 2*i, append(th, "--rate_ignore_thinktime=1")...)...)
		args = append(args, fioJob(dir, 2*i+1, th...)...)
	}
	var report struct {
		Jobs []struct{ Read struct{ IOPS float64 } }
	}
	if runFio(t, &report, args...); len(report.Jobs) != 2*len(thinks) {
		t.Fatalf("fio's report has %d jobs, want %d", len(report.Jobs), 2*len(thinks))
	}
	p := mustLoad(t, "storagereview-r6625-esa")
	for i, th := range thinks {
		for k, ignore := range []bool{true, false} {
			opts := []fio.Option{{Key: "rate_iops", Value: "1000"}}
			for _, a := range th {
				key, v, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
				opts = append(opts, fio.Option{Key: key, Value: v})
			}
			if ignore {
				opts = append(opts, fio.Option{Key: "rate_ignore_thinktime", Value: "1"})
			}
			job := fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 1, TimeBased: true, RuntimeSec: 2, Options: opts}
			real, model := report.Jobs[2*i+k].Read.IOPS, solve(t, p, oneDisk(&job)).Read.IOPS
			if !within(model, real, 0.10) {
				t.Errorf("%v, rate_ignore_thinktime %v: fio %.0f I/Os a second, the model %.0f", th, ignore, real, model)
			}
			t.Logf("%v, rate_ignore_thinktime %v: fio %.0f I/Os a second, the model %.0f", th, ignore, real, model)
		}
	}
}
