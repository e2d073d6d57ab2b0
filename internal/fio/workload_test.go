package fio

import (
	"context"
	"math"
	"strings"
	"testing"
)

// runText runs job-file text on l's workers through the real runner.
func runText(t *testing.T, l *Local, text string) (*Result, error) {
	t.Helper()
	wl, err := ParseWorkload("t", "t.fio", text, LoadOptions{Env: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	return (&Runner{}).Run(context.Background(), l.Workers, wl, nil)
}

// rawEntries reads back the json+ fio printed for a run.
func rawEntries(t *testing.T, res *Result) []JobStats {
	t.Helper()
	for _, a := range res.Artifacts {
		if a.Name == "fio-output.json" {
			out, err := ParseOutput(a.Content)
			if err != nil {
				t.Fatal(err)
			}
			return out.Entries()
		}
	}
	t.Fatal("the result keeps no fio-output.json")
	return nil
}

// TestRunPhasesInOrder: a stonewall makes fio finish every job before it
// first. The check job verifies what the fill job wrote (slowly: a second
// at its rate), so it fails unless every disk's fill ended before any of
// its reads began; a size-based job (no runtime) runs until it has moved
// its size.
func TestRunPhasesInOrder(t *testing.T) {
	t.Parallel()
	l := startLocal(t, 2, 2)
	for _, order := range []string{"stonewall", "wait_for=fill"} {
		res, err := runText(t, l, "[global]\nbs=64k\nsize=256k\n[fill]\nrw=write\nrate=256k\nverify=crc32c\ndo_verify=0\n[other]\nrw=read\n[check]\n"+order+"\nrw=read\nverify=crc32c\n")
		if err != nil {
			t.Fatalf("%s: %v", order, err)
		}
		jobs := map[string]string{}
		for _, r := range res.Rows {
			jobs[r.Job] += r.Direction + " "
		}
		if jobs["fill"] != strings.Repeat("write ", 4) || jobs["check"] != strings.Repeat("read ", 4) {
			t.Errorf("%s: rows by job %v", order, jobs)
		}
	}
}

// TestRunConcurrentJobs: three different jobs at once on every disk of two
// workers, each reported under its name, with numjobs clones summed,
// group_reporting left to starbench, a percentile_list honoured and the
// workload's aggregate the sum of its jobs'.
func TestRunConcurrentJobs(t *testing.T) {
	t.Parallel()
	l := startLocal(t, 2, 2)
	res, err := runText(t, l, `[global]
runtime=1
time_based
bs=4k
group_reporting
percentile_list=50:99:99.99
[reader]
rw=randread
numjobs=2
[writer]
rw=randwrite
[trimmer]
ioengine=null
rw=randtrim
`)
	if err != nil {
		t.Fatal(err)
	}
	perJob := map[string]map[string]Row{}
	for _, a := range res.Aggregate {
		if perJob[a.Job] == nil {
			perJob[a.Job] = map[string]Row{}
		}
		perJob[a.Job][a.Direction] = a
	}
	for job, dir := range map[string]string{"reader": "read", "writer": "write", "trimmer": "trim"} {
		a, ok := perJob[job][dir]
		if !ok || len(perJob[job]) != 1 {
			t.Fatalf("job %s aggregates %v, want one %s row", job, perJob[job], dir)
		}
		if all := perJob[""][dir]; math.Abs(all.IOPS-a.IOPS) > 1e-9*a.IOPS {
			t.Errorf("%s: all jobs %.1f IOPS, job %s %.1f", dir, all.IOPS, job, a.IOPS)
		}
		if len(a.Percentiles) != 1 || a.Percentiles[0].P != 99.99 || !(a.Percentiles[0].Us >= a.P99Us) {
			t.Errorf("job %s percentiles %+v (p99 %.1f)", job, a.Percentiles, a.P99Us)
		}
	}
	total := perJob[""][TotalDirection]
	if want := perJob[""]["read"].IOPS + perJob[""]["write"].IOPS + perJob[""]["trim"].IOPS; math.Abs(total.IOPS-want) > 1e-9*want {
		t.Errorf("total row %.1f IOPS, want %.1f", total.IOPS, want)
	}
	// Per disk: reader's row sums its two clones as fio reported them.
	entries := rawEntries(t, res)
	for _, r := range res.Rows {
		if r.Job != "reader" {
			continue
		}
		var want float64
		clones := 0
		for _, e := range entries {
			w := l.Workers[0]
			if e.Port == clients(t, l)[l.Workers[1].Name].Port {
				w = l.Workers[1]
			}
			if e.Name == "reader@"+r.Disk && w.Name == r.Worker && e.Options["filename"] == diskPath(w, r.Disk) {
				want += e.Read.IOPS
				clones++
			}
		}
		if clones != 2 || math.Abs(r.IOPS-want) > 1e-9*want {
			t.Errorf("%s %s reader: %.1f IOPS from %d clones, want %.1f from 2", r.Worker, r.Disk, r.IOPS, clones, want)
		}
	}
}

func clients(t *testing.T, l *Local) map[string]ClientKey {
	c, err := checkWorkers(l.Workers)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func diskPath(w Worker, name string) string {
	for _, d := range w.Disks {
		if d.Name == name {
			return d.Path
		}
	}
	return ""
}

// TestRunSteadyState: a job that reaches its steady-state criterion stops
// before its runtime, which is no failure, and the notes say so.
func TestRunSteadyState(t *testing.T) {
	t.Parallel()
	l := startLocal(t, 1, 1)
	res, err := runText(t, l, "[steady]\nrw=randread\nbs=4k\nruntime=20\ntime_based\nss=iops:100%\nss_dur=1s\n")
	if err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "job steady: steady state (iops:100%) reached on 1 of 1 fio jobs") {
		t.Errorf("notes %q", notes)
	}
	if e := rawEntries(t, res)[0]; e.RuntimeMs >= 20000 {
		t.Errorf("the job ran %d ms; steady state should have ended it early", e.RuntimeMs)
	}
}

// TestRunFioRejects: what fio itself refuses reaches the user in its words.
func TestRunFioRejects(t *testing.T) {
	t.Parallel()
	l := startLocal(t, 1, 1)
	_, err := runText(t, l, "[bad]\nrw=read\nruntime=1\nioengine=nosuchengine\n")
	if err == nil || !strings.Contains(err.Error(), "nosuchengine") || !strings.Contains(err.Error(), "fio said") {
		t.Fatalf("got %v", err)
	}
	// Trim on a plain file is refused by the kernel, and fio says so.
	_, err = runText(t, l, "[t]\nrw=trim\nbs=64k\nsize=1m\n")
	if err == nil || !strings.Contains(err.Error(), "Inappropriate ioctl for device") {
		t.Fatalf("trim on a file: %v", err)
	}
}
