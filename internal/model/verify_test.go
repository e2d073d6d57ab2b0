package model

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"starbench/internal/fio"
)

func verifyJob(opts ...fio.Option) fio.Job {
	return fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 16, Size: 1 << 30,
		Options: append([]fio.Option{{Key: "verify", Value: "crc32c"}}, opts...)}
}

// A writing job with verify runs as fio runs it: its writes, then a pass
// reading back the blocks they wrote at the job's depth. Its write row is
// the job's without verify, its read row a random read of the same 1 GiB
// on the disks as the writes left them, each over its own time; the
// samples follow one another and the run lasts both passes.
func TestVerifyReadsBackAfterTheWrites(t *testing.T) {
	ctx := context.Background()
	ws := workers(4, 2, "r5")
	run := func(pl *Plane, job fio.Job) *fio.Result {
		t.Helper()
		res, err := pl.Run(ctx, ws, fio.NewWorkload(job), nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	row := func(res *fio.Result, dir string) fio.Row {
		t.Helper()
		for _, r := range res.Aggregate {
			if r.Direction == dir {
				return r
			}
		}
		t.Fatalf("no %s aggregate in %+v", dir, res.Aggregate)
		return fio.Row{}
	}
	plain, _ := newTestPlane(t)
	writes := verifyJob()
	writes.Options = nil
	wrote := run(plain, writes)
	read := verifyJob()
	read.RW, read.Options = "randread", nil
	readBack := run(plain, read)

	pl, _ := newTestPlane(t)
	res := run(pl, verifyJob())
	w, r := row(res, "write"), row(res, "read")
	if want := row(wrote, "write"); !nearRel(w.IOPS, want.IOPS, 1e-9) || !nearRel(w.LatMeanUs, want.LatMeanUs, 1e-9) {
		t.Errorf("write row %.0f IOPS %.0f us, want the writes alone: %.0f IOPS %.0f us", w.IOPS, w.LatMeanUs, want.IOPS, want.LatMeanUs)
	}
	if want := row(readBack, "read"); !nearRel(r.IOPS, want.IOPS, 1e-9) || !nearRel(r.LatMeanUs, want.LatMeanUs, 1e-9) {
		t.Errorf("read row %.0f IOPS %.0f us, want a random read of what was written: %.0f IOPS %.0f us", r.IOPS, r.LatMeanUs, want.IOPS, want.LatMeanUs)
	}
	if row(res, "total").IOPS == 0 {
		t.Error("no total row over the two directions")
	}
	tw, tr := lastSampleTS(wrote), lastSampleTS(readBack)
	if end := lastSampleTS(res); !nearRel(end, tw+tr, 1e-9) {
		t.Errorf("the samples end at %g s, want the writes' %g s and the read-back's %g s", end, tw, tr)
	}
	bytes := 8.0 * (1 << 30)
	if moved := r.IOPS * tr * 4096; !nearRel(moved, bytes, 1e-6) {
		t.Errorf("the read-back moved %.4g bytes, want the %.4g written", moved, bytes)
	}
	for _, s := range res.Samples {
		if (s.Direction == "read") != (s.TS > tw) {
			t.Errorf("a %s sample at %g s: the writes end at %g s, the reads follow", s.Direction, s.TS, tw)
			break
		}
	}
	notes := strings.Join(res.Notes, "\n")
	cut := "fio would stop reading back at the runtime"
	if strings.Contains(notes, cut) {
		t.Errorf("notes %q: a job without a runtime reads the whole pass back", res.Notes)
	}
	if strings.Contains(notes, "verify pass: 0 % of the blocks read were never written") {
		t.Errorf("notes %q: the read-back reads only written blocks; a share that rounds to 0 %% is not worth a note", res.Notes)
	}
	if !strings.Contains(notes, "verify=crc32c: after its writes") || strings.Contains(notes, "verify=crc32c is not modelled") {
		t.Errorf("notes %q: want the read-back pass said, and no option left unmodelled", res.Notes)
	}

	// A runtime that ends within the read-back would cut it, which the
	// model notes rather than models (runtimes are whole seconds).
	pl, _ = newTestPlane(t)
	short := verifyJob()
	short.RuntimeSec = int(tw + tr/2)
	res = run(pl, short)
	if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, fmt.Sprintf("%s (%d s)", cut, short.RuntimeSec)) {
		t.Errorf("runtime %d s, the writes %.1f s and the read-back %.1f s: notes %q lack that fio would cut the read-back", short.RuntimeSec, tw, tr, res.Notes)
	}
}

// Where fio reads nothing back the job is its writes: a size-based job
// whose writes take its whole runtime, a time-based one that cannot write
// its extent once within its runtime (fio 3.33: "verification read phase
// will never start because write phase uses all of runtime"). A
// time-based job that could alternates writes and read-backs, noted as not
// modelled, and so is a verifying job beside others.
func TestVerifyWhereFioReadsNothingBack(t *testing.T) {
	ctx := context.Background()
	ws := workers(4, 2, "r5")
	for _, tc := range []struct {
		name string
		jobs []fio.Job
		note string
	}{
		{"writes past the runtime", []fio.Job{withTime(verifyJob(), 5, false, 50<<30)}, "the writes used the whole runtime (5 s), so fio reads nothing back"},
		{"time based, a pass past the runtime", []fio.Job{withTime(verifyJob(), 5, true, 50<<30)}, "longer than its runtime (5 s), so fio never reads back"},
		{"time based, passes within the runtime", []fio.Job{withTime(verifyJob(), 600, true, 1<<30)}, "verify=crc32c with time_based is not modelled: fio alternates"},
		{"beside another job", []fio.Job{named(verifyJob(), "v"), named(withTime(verifyJob(), 0, false, 1<<30), "w")}, "verify=crc32c is not modelled beside other jobs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl, _ := newTestPlane(t)
			res, err := pl.Run(ctx, ws, &fio.Workload{Name: "w", Jobs: tc.jobs}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res.Aggregate {
				if r.Direction == "read" {
					t.Errorf("a read row: %+v", r)
				}
			}
			if !strings.Contains(strings.Join(res.Notes, "\n"), tc.note) {
				t.Errorf("notes %q lack %q", res.Notes, tc.note)
			}
		})
	}
}

func withTime(job fio.Job, runtime int, timeBased bool, size int64) fio.Job {
	job.RuntimeSec, job.TimeBased, job.Size = runtime, timeBased, size
	return job
}

func named(job fio.Job, name string) fio.Job {
	job.Name = name
	return job
}

// The installed fio reads back what a verifying job wrote, once, after
// the writes, and counts it in the read row; the model's read-back moves
// the same bytes.
func TestVerifyAgainstFio(t *testing.T) {
	needFio(t)
	var report struct {
		Jobs []struct {
			Read, Write struct {
				IOBytes float64 `json:"io_bytes"`
				Runtime float64 `json:"runtime"`
			}
			JobRuntime float64 `json:"job_runtime"`
		}
	}
	runFio(t, &report, "--output-format=json", "--name=v", "--filename="+filepath.Join(t.TempDir(), "v"), "--size=8m",
		"--rw=randwrite", "--bs=4k", "--ioengine=psync", "--verify=crc32c", "--verify_state_save=0")
	if len(report.Jobs) != 1 {
		t.Fatalf("fio's report has %d jobs, want 1", len(report.Jobs))
	}
	j := report.Jobs[0]
	if j.Read.IOBytes != 8<<20 || j.Write.IOBytes != 8<<20 || j.Read.Runtime+j.Write.Runtime > j.JobRuntime+2 {
		t.Errorf("fio: %.0f bytes written in %.0f ms, %.0f read in %.0f ms, job runtime %.0f ms; want 8 MiB each, one after the other",
			j.Write.IOBytes, j.Write.Runtime, j.Read.IOBytes, j.Read.Runtime, j.JobRuntime)
	}
}
