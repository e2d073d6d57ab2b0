package fio

import (
	"context"
	"strings"
	"testing"
)

// Under exitall a job's end stops the other jobs of its group, as the job
// file asks: a time-based job it stops early, or one it stops before its
// startdelay, ran as the user wrote it, and the run stands, its notes
// saying what exitall stopped (a job stopped before any I/O has no rows).
// Measured with fio 3.33: before, both runs failed ("stopped job long on
// disk disk1 after 1.0 s of 30 s", "did no I/O on job late on disk disk1"),
// and so did a run with exitall on the job stopped (fio applies it to every
// job's end: "stopped job long on disk disk1 after 1.0 s of 30 s").
func TestExitAllStopsOthersWithoutFailingTheRun(t *testing.T) {
	t.Parallel()
	l := startLocal(t, 1, 1)
	for _, c := range []struct{ name, text, stopped, note string }{
		// short starts a second late, so that long has done I/O when it
		// is stopped however slow the machine (under -race, 1 MiB was
		// once written before long did any).
		{"stopped early", "[long]\nrw=randread\nbs=4k\nruntime=30\ntime_based\n\n[short]\nrw=write\nbs=64k\nsize=1m\nstartdelay=1\nexitall\n",
			"long", "job long: exitall: the end of job short stopped 1 of its fio jobs before its 30 s runtime"},
		{"stopped before its start", "[short]\nrw=write\nbs=64k\nsize=1m\nexitall\n\n[late]\nrw=randread\nbs=4k\nruntime=2\ntime_based\nstartdelay=20\n",
			"late", "job late: exitall: the end of job short stopped 1 of its fio jobs before they did any I/O"},
		// fio keeps exitall for the whole process: set on the job it
		// stops, the other job's end stops it all the same.
		{"exitall on the job stopped", "[long]\nrw=randread\nbs=4k\nruntime=30\ntime_based\nexitall\n\n[short]\nrw=write\nbs=64k\nsize=1m\nstartdelay=1\n",
			"long", "job long: exitall: the end of job short stopped 1 of its fio jobs before its 30 s runtime"},
	} {
		wl, err := ParseWorkload("t", "t.fio", c.text, LoadOptions{Env: noEnv})
		if err != nil {
			t.Fatal(err)
		}
		res, err := (&Runner{}).Run(context.Background(), l.Workers, wl, nil)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, c.note) {
			t.Errorf("%s: notes %q do not say %q", c.name, notes, c.note)
		}
		jobs := map[string]bool{}
		for _, r := range res.Rows {
			jobs[r.Job] = true
		}
		if !jobs["short"] {
			t.Errorf("%s: no rows for job short: %+v", c.name, res.Rows)
		}
		if io := c.stopped == "long"; jobs[c.stopped] != io {
			t.Errorf("%s: job %s has rows: %v, want %v (rows for the I/O it did, none without)", c.name, c.stopped, jobs[c.stopped], io)
		}
	}
}
