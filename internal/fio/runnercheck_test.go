package fio

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The runner's bookkeeping around a fio invocation, tested without fio
// servers: what it makes of fio's entries, its output and its bounds.

func twoDiskWorkers(n int) []Worker {
	var ws []Worker
	for i := 1; i <= n; i++ {
		ws = append(ws, Worker{Name: fmt.Sprintf("w%d", i), Addr: fmt.Sprintf("10.0.0.%d:8765", i),
			Disks: []Disk{{Name: "disk1", Path: "/dev/sdb", SizeBytes: 100 << 20}, {Name: "disk2", Path: "/dev/sdc", SizeBytes: 300 << 20}}})
	}
	return ws
}

func parseText(t *testing.T, text string) *Workload {
	t.Helper()
	wl, err := ParseWorkload("t", "t.fio", text, LoadOptions{Env: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	return wl
}

// TestCheckEntriesNamesEachProblem: a worker that failed, did no I/O,
// stopped early, reported a job of no section, left a disk out or did not
// report at all is named with what went wrong; a healthy one is not, and
// a job that stopped at 90 % of its runtime still counts as whole.
func TestCheckEntriesNamesEachProblem(t *testing.T) {
	wl := parseText(t, "[r]\nrw=randread\nruntime=10\ntime_based\n")
	ws := twoDiskWorkers(5)
	clients, err := checkWorkers(ws)
	if err != nil {
		t.Fatal(err)
	}
	entry := func(w Worker, section int, f func(e *JobStats)) JobStats {
		targets, err := wl.Targets(w)
		if err != nil {
			t.Fatal(err)
		}
		k := clients[w.Name]
		e := JobStats{Name: targets[section].Section, Host: k.Host, Port: k.Port, RuntimeMs: 10000}
		e.Read.TotalIOs = 100
		if f != nil {
			f(&e)
		}
		return e
	}
	entries := []JobStats{
		entry(ws[0], 0, nil), entry(ws[0], 1, func(e *JobStats) { e.RuntimeMs = 9000 }),
		entry(ws[1], 0, func(e *JobStats) { e.Error = 5 }), entry(ws[1], 1, func(e *JobStats) { e.Read.TotalIOs = 0 }),
		entry(ws[3], 0, func(e *JobStats) { e.RuntimeMs = 8999 }), entry(ws[3], 0, func(e *JobStats) { e.Name = "zzz" }),
		entry(ws[4], 0, nil), entry(ws[4], 1, nil),
	}
	_, err = checkEntries(entries, wl, ws, clients, "; fio said: boom")
	if err == nil {
		t.Fatal("no error for a run with failed workers")
	}
	msg := err.Error()
	for _, want := range []string{
		"the run failed: ",
		"worker w2 (10.0.0.2:8765) failed on disk disk1: fio error 5 (input/output error)",
		"worker w2 (10.0.0.2:8765) did no I/O on disk disk2",
		"worker w3 (10.0.0.3:8765) did not report: its fio server died or lost the connection",
		"worker w4 (10.0.0.4:8765) stopped disk disk1 after 9.0 s of 10 s",
		`worker w4 (10.0.0.4:8765) reported a job "zzz", which is none of the workload's`,
		"worker w4 (10.0.0.4:8765) reported nothing for disk2",
		"; fio said: boom",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not say %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "w1 ") || strings.Contains(msg, "w5 ") {
		t.Errorf("healthy workers named: %s", msg)
	}
	if _, err := checkEntries(append(entries[:2:2], entries[6:]...), wl, []Worker{ws[0], ws[4]}, clients, ""); err != nil {
		t.Errorf("healthy workers: %v", err)
	}

	// A steady-state job may end early; a job going on past errors fails
	// only when it recorded none.
	steady := parseText(t, "[r]\nrw=randread\nruntime=10\ntime_based\nsteadystate=iops:2%\ncontinue_on_error=io\n")
	one := []Worker{ws[0]}
	targets, _ := steady.Targets(ws[0])
	var ok []JobStats
	for _, tg := range targets {
		e := JobStats{Name: tg.Section, Host: "10.0.0.1", Port: 8765, RuntimeMs: 3000, Error: 5, TotalErr: 2}
		e.Read.TotalIOs = 10
		ok = append(ok, e)
	}
	if _, err := checkEntries(ok, steady, one, clients, ""); err != nil {
		t.Errorf("a steady-state job ended early with errors it went on past: %v", err)
	}
	ok[0].TotalErr = 0
	if _, err := checkEntries(ok, steady, one, clients, ""); err == nil || !strings.Contains(err.Error(), "fio error 5") {
		t.Errorf("an error with no errors counted: %v, want it failed", err)
	}
}

// TestMultiJobProblemsNameTheJob: with several jobs a problem names the
// job as well as the disk.
func TestMultiJobProblemsNameTheJob(t *testing.T) {
	wl := parseText(t, "[a]\nrw=randread\nruntime=10\ntime_based\n[b]\nrw=randwrite\nruntime=10\ntime_based\n")
	ws := twoDiskWorkers(1)
	clients, _ := checkWorkers(ws)
	targets, _ := wl.Targets(ws[0])
	var entries []JobStats
	for _, tg := range targets[1:] {
		e := JobStats{Name: tg.Section, Host: "10.0.0.1", Port: 8765, RuntimeMs: 10000}
		e.Write.TotalIOs = 1
		entries = append(entries, e)
	}
	entries[0].Write.TotalIOs = 0
	_, err := checkEntries(entries, wl, ws, clients, "")
	want := []string{"reported nothing for a on disk1", fmt.Sprintf("did no I/O on job %s on disk %s", wl.Jobs[targets[1].Job].Name, targets[1].DiskLabel())}
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v does not say %q", err, w)
		}
	}
}

// TestUnreported: the workers a partial output has no entry for; all of
// them when every worker reported or the output cannot be read (a run
// that timed out names them all then).
func TestUnreported(t *testing.T) {
	ws := twoDiskWorkers(3)
	clients, _ := checkWorkers(ws)
	out := `hostname=w1 fio: something
{"fio version": "fio-3.33", "client_stats": [
 {"jobname": "r", "hostname": "10.0.0.1", "port": 8765},
 {"jobname": "r", "hostname": "10.0.0.3", "port": 8765},
 {"jobname": "All clients", "hostname": "10.0.0.2", "port": 8765}]}`
	late := unreported([]byte(out), ws, clients)
	if len(late) != 1 || late[0].Name != "w2" {
		t.Errorf("late %v, want w2 (the summary entry is not a report)", late)
	}
	if all := unreported([]byte("no json"), ws, clients); len(all) != 3 {
		t.Errorf("unreadable output: late %v, want all", all)
	}
	every := strings.Replace(out, `"All clients"`, `"r"`, 1)
	if all := unreported([]byte(every), ws, clients); len(all) != 3 {
		t.Errorf("every worker reported: late %v, want all (none stands out)", all)
	}
}

// TestFioSaid: what fio said goes into error messages: the servers' "fio:"
// lines before the JSON and the client's stderr, the last six at most.
func TestFioSaid(t *testing.T) {
	if got := fioSaid([]byte("hostname=w1\n{\"fio: inside json\": 1}"), nil); got != "" {
		t.Errorf("nothing said: %q", got)
	}
	stdout := "hostname=w1, be=0\n<w1> fio: pid=1, err=2/file:filesetup.c:123, func=open, error=No such file\n{\"x\": \"fio: not this\"}"
	got := fioSaid([]byte(stdout), []byte("  client: lost connection \n\n"))
	want := "; fio said: <w1> fio: pid=1, err=2/file:filesetup.c:123, func=open, error=No such file | client: lost connection"
	if got != want {
		t.Errorf("fioSaid = %q, want %q", got, want)
	}
	var many []string
	for i := range 7 {
		many = append(many, fmt.Sprintf("line %d", i))
	}
	if got := fioSaid(nil, []byte(strings.Join(many, "\n"))); got != "; fio said: line 1 | line 2 | line 3 | line 4 | line 5 | line 6" {
		t.Errorf("seven lines: %q, want the last six", got)
	}
	if got := fioSaid(nil, []byte(strings.Join(many[:6], "\n"))); got != "; fio said: line 0 | line 1 | line 2 | line 3 | line 4 | line 5" {
		t.Errorf("six lines: %q, want all", got)
	}
}

// TestSizeBound: a run's bound is, phase after phase, its longest job: a
// timed one's runtime and ramp, a size-based one's bytes (the largest disk
// unless it gives a size, times its loops) at the slowest fill rate.
func TestSizeBound(t *testing.T) {
	wl := parseText(t, "[a]\nrw=read\nruntime=10\nramp_time=2\ntime_based\n[b]\nrw=write\nloops=2\n[c]\nstonewall\nrw=read\nsize=40m\n")
	ws := twoDiskWorkers(2)
	// Phase 1: max(12 s, 2 x 300 MiB at 4 MiB/s + 1 = 151 s); phase 2:
	// 40 MiB at 4 MiB/s + 1 = 11 s.
	if got, want := (&Runner{}).sizeBound(wl, ws), 162*time.Second; got != want {
		t.Errorf("bound %v, want %v", got, want)
	}
	if got, want := (&Runner{PrepareRate: 8 << 20}).sizeBound(wl, ws), (76+6)*time.Second; got != want {
		t.Errorf("bound at 8 MiB/s %v, want %v", got, want)
	}
	// A job's start delay comes first, timed or not.
	wl = parseText(t, "[a]\nrw=read\nruntime=10\nstartdelay=100\n[c]\nstonewall\nrw=read\nsize=40m\nstartdelay=20\n")
	if got, want := (&Runner{}).sizeBound(wl, ws), (110+31)*time.Second; got != want {
		t.Errorf("bound with start delays %v, want %v", got, want)
	}
}

// TestPrepValidate: every preparation that cannot be honoured says why.
func TestPrepValidate(t *testing.T) {
	for _, tc := range []struct {
		prep Prep
		want string
	}{
		{Prep{Method: "random"}, ""},
		{Prep{Method: "random", BlockSize: 512, CompressPercentage: 100, Age: true}, ""},
		{Prep{Method: "zero", BlockSize: 1 << 20}, ""},
		{Prep{Method: "none"}, ""},
		{Prep{Method: "random", BlockSize: 256}, "prepare block size 256: want a multiple of 512 bytes"},
		{Prep{Method: "random", BlockSize: 1000}, "prepare block size 1000"},
		{Prep{Method: "random", CompressPercentage: -1}, "compress percentage -1: want 0 to 100"},
		{Prep{Method: "random", CompressPercentage: 101}, "compress percentage 101"},
		{Prep{Method: "none", Age: true}, "aging needs a fill first"},
		{Prep{Method: "zero", CompressPercentage: 50}, "a zero fill always compresses fully"},
		{Prep{Method: "ones"}, `prepare method "ones": want random, zero or none`},
	} {
		err := tc.prep.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: %v, want %q", tc.prep, err, tc.want)
		}
	}
}

// TestPrepJobs: a fill writes sequentially at the block size with its data
// pattern and syncs at the end; aging adds mixed random writes.
func TestPrepJobs(t *testing.T) {
	if jobs, err := prepJobs(Prep{Method: "none"}); err != nil || jobs != nil {
		t.Errorf("none: %v %v, want no jobs", jobs, err)
	}
	jobs, err := prepJobs(Prep{Method: "zero", BlockSize: 1 << 20})
	if err != nil || len(jobs) != 1 {
		t.Fatalf("zero: %v %v", jobs, err)
	}
	if f := jobs[0]; f.RW != "write" || f.BlockSize != 1<<20 || !f.hasRaw("zero_buffers") || !f.hasRaw("end_fsync") || f.hasRaw("refill_buffers") {
		t.Errorf("zero fill %+v", f)
	}
	jobs, err = prepJobs(Prep{Method: "random", BlockSize: 4096, CompressPercentage: 50, Age: true})
	if err != nil || len(jobs) != 2 {
		t.Fatalf("random aged: %v %v", jobs, err)
	}
	fill, age := jobs[0], jobs[1]
	if !fill.hasRaw("refill_buffers") || fill.BufferCompressPercentage != 50 || fill.BlockSize != 4096 {
		t.Errorf("random fill %+v", fill)
	}
	share := 0
	for _, s := range age.BSSplit {
		share += s.Percent
	}
	if age.RW != "randwrite" || share != 100 || !age.hasRaw("norandommap") || age.BufferCompressPercentage != 50 || !age.hasRaw("end_fsync") {
		t.Errorf("aging pass %+v (block sizes sum to %d %%)", age, share)
	}
	if _, err := prepJobs(Prep{Method: "ones"}); err == nil {
		t.Error("prepJobs accepted a bad method")
	}
}

// TestUnpreparedAndDiskState: a disk prepared exactly as asked is not
// filled again, a worker left with none drops out, and the run's notes
// count the disks by state.
func TestUnpreparedAndDiskState(t *testing.T) {
	ws := twoDiskWorkers(2)
	random := Prep{Method: "random", BlockSize: 256 << 10}
	r := &Runner{prepared: map[diskID]Prep{
		{"10.0.0.1:8765", "/dev/sdb"}: random, {"10.0.0.1:8765", "/dev/sdc"}: random,
		{"10.0.0.2:8765", "/dev/sdb"}: {Method: "random", BlockSize: 256 << 10, CompressPercentage: 50, Age: true},
	}}
	left := r.unprepared(ws, random)
	if len(left) != 1 || left[0].Name != "w2" || len(left[0].Disks) != 2 {
		t.Errorf("unprepared %+v, want w2 with both disks", left)
	}
	notes := strings.Join(r.diskStateNotes(ws), "\n")
	want := "disk state: 2 disks filled with random data at 256k\n" +
		"disk state: 1 disks filled with random data at 256k, 50 % compressible, aged\n" +
		"disk state: 1 disks not prepared by starbench"
	if notes != want {
		t.Errorf("notes:\n%s\nwant:\n%s", notes, want)
	}
}

// TestRunNotes: steady state reached per job, the errors a job went on
// past, and the log options that gave way to the samples.
func TestRunNotes(t *testing.T) {
	wl := parseText(t, "[a]\nrw=randread\nsteadystate=iops:2%\nwrite_bw_log=mine\nlog_avg_msec=500\n[b]\nrw=randwrite\ncontinue_on_error=io\n")
	sections := map[string]int{"a": 0, "a@disk2": 0, "b": 1}
	entries := []JobStats{
		{Name: "a", Steady: &SteadyState{Attained: 1}}, {Name: "a@disk2", Steady: &SteadyState{Attained: 0}},
		{Name: "b", TotalErr: 3, FirstErr: 5}, {Name: "b", TotalErr: 1, FirstErr: 28}, {Name: "other", TotalErr: 7},
	}
	if got := steadyNotes(entries, wl, sections); len(got) != 1 || got[0] != "job a: steady state (iops:2%) reached on 1 of 2 fio jobs; the others ran their whole runtime" {
		t.Errorf("steady notes %q", got)
	}
	if got := errorNotes(entries, wl, sections); len(got) != 1 || got[0] != "job b: 4 I/O errors (continue_on_error), the first input/output error" {
		t.Errorf("error notes %q", got)
	}
	if got := logNotes(wl); len(got) != 1 || got[0] != "job a: its write_bw_log, log_avg_msec gave way to starbench's per-interval samples (the samples table)" {
		t.Errorf("log notes %q", got)
	}
}

// TestExitAllExcusesOnlyTheJobsItStops: a job stopped early, or before any
// I/O, passes where a job with exitall that ended on the same worker stops
// it as its exit_what says (its reporting group by default, its phase with
// stonewall, every job with all), and fails the run otherwise.
func TestExitAllExcusesOnlyTheJobsItStops(t *testing.T) {
	ws := twoDiskWorkers(1)[:1]
	ws[0].Disks = ws[0].Disks[:1]
	clients, _ := checkWorkers(ws)
	for _, c := range []struct {
		name, ender, stopped string
		stops                bool
	}{
		{"same group", "exitall\n", "", true},
		{"another group", "exitall\n", "new_group\n", false},
		{"no job has exitall", "", "", false},
		{"exitall on the job stopped only", "", "exitall\n", true},
		{"another group, exit_what=stonewall", "exitall\nexit_what=stonewall\n", "new_group\n", true},
		{"exit_what=all", "exitall\nexit_what=all\n", "new_group\n", true},
	} {
		wl := parseText(t, "[e]\nrw=write\nsize=1m\n"+c.ender+"[s]\nrw=randread\nruntime=10\ntime_based\n"+c.stopped)
		targets, err := wl.Targets(ws[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, early := range []int64{2000, 0} {
			var entries []JobStats
			for _, tg := range targets {
				e := JobStats{Name: tg.Section, Host: "10.0.0.1", Port: 8765, RuntimeMs: 500}
				e.Write.TotalIOs = 16
				if wl.Jobs[tg.Job].Name == "s" {
					e.Write.TotalIOs, e.Read.TotalIOs, e.RuntimeMs = 0, early/10, early
				}
				entries = append(entries, e)
			}
			notes, err := checkEntries(entries, wl, ws, clients, "")
			if c.stops && (err != nil || len(notes) != 1 || !strings.Contains(notes[0], "job s: exitall: the end of job e stopped 1 of its fio jobs")) {
				t.Errorf("%s, s ran %d ms: %v, notes %q: want it stopped by e's exitall, said", c.name, early, err, notes)
			}
			if !c.stops && err == nil {
				t.Errorf("%s, s ran %d ms: the run stands, notes %q: want it failed", c.name, early, notes)
			}
		}
	}
}

// What exitall stopped is told whatever order the fio jobs come in: the
// shortest run among those stopped early, not a job stopped before any I/O.
func TestExitAllNoteTellsTheShortestEarlyStop(t *testing.T) {
	s := &exitallStops{by: "e"}
	for _, ms := range []int64{-1, 2500, 1200} {
		s.add(ms)
	}
	note := s.note(Job{Name: "s", RuntimeSec: 10})
	for _, want := range []string{"stopped 2 of its fio jobs before its 10 s runtime (the shortest after 1.2 s)", "stopped 1 of its fio jobs before they did any I/O"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q does not say %q", note, want)
		}
	}
}

// The note names the job whose end stopped the others, not one stopped
// with them that fio reports first, nor a later phase's job whose
// exit_what=all covers them but which ended after them: under exitall
// every job that ended after I/O is a candidate, the first to end first.
func TestExitAllNoteNamesTheJobThatEndedFirst(t *testing.T) {
	ws := twoDiskWorkers(1)[:1]
	ws[0].Disks = ws[0].Disks[:1]
	clients, _ := checkWorkers(ws)
	for _, text := range []string{
		"[s1]\nrw=randread\nruntime=10\ntime_based\n[e]\nrw=write\nsize=1m\nexitall\n[s2]\nrw=randread\nruntime=10\ntime_based\n",
		"[s1]\nrw=randread\nruntime=10\ntime_based\n[e]\nrw=write\nsize=1m\nexitall\n[s2]\nrw=randread\nruntime=10\ntime_based\n[later]\nstonewall\nrw=randread\nsize=1m\nexit_what=all\n",
	} {
		wl := parseText(t, text)
		targets, err := wl.Targets(ws[0])
		if err != nil {
			t.Fatal(err)
		}
		var entries []JobStats
		for _, tg := range targets {
			e := JobStats{Name: tg.Section, Host: "10.0.0.1", Port: 8765, RuntimeMs: 520}
			e.Read.TotalIOs = 50
			switch wl.Jobs[tg.Job].Name {
			case "e":
				e.RuntimeMs = 500
			case "later":
				e.RuntimeMs = 300
			}
			entries = append([]JobStats{e}, entries...) // fio reports the last first here
		}
		notes, err := checkEntries(entries, wl, ws, clients, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"job s1: exitall: the end of job e stopped", "job s2: exitall: the end of job e stopped"} {
			if !strings.Contains(strings.Join(notes, "\n"), want) {
				t.Errorf("%d jobs: notes %q do not say %q", len(wl.Jobs), notes, want)
			}
		}
	}
}
