package fio

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// killTree sends sig to pid and every process descended from it.
func killTree(pid int, sig syscall.Signal) {
	for _, p := range descendants(pid) {
		_ = syscall.Kill(p, sig)
	}
	_ = syscall.Kill(pid, sig)
}

// needFio skips a test that runs fio servers when fio is missing (test.sh
// installs it, so CI always runs these) and with -short, which mutation
// testing of the package's pure files uses (docs/mutation.md).
func needFio(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs fio servers: skipped with -short")
	}
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed (apt-get install -y fio)")
	}
}

func startLocal(t testing.TB, n, disks int) *Local {
	t.Helper()
	needFio(t)
	l, err := StartLocal(context.Background(), LocalSpec{N: n, Dir: t.TempDir(), SizeBytes: 8 << 20, Disks: disks})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}

func shortJob() *Job {
	return &Job{Name: "mix", RW: "randrw", RWMixRead: 70, BlockSize: 4 << 10, IODepth: 1, RuntimeSec: 1, TimeBased: true}
}

// one is the workload of a job.
func one(j *Job) *Workload { return NewWorkload(*j) }

func TestRunThreeServers(t *testing.T) {
	t.Parallel()
	l := startLocal(t, 3, 2)
	var samples []Status
	res, err := (&Runner{}).Run(context.Background(), l.Workers, one(shortJob()), func(s Status) { samples = append(samples, s) })
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(res.Rows), 3*2*3; got != want {
		t.Fatalf("%d rows, want %d (3 workers x 2 disks x read/write/total): %+v", got, want, res.Rows)
	}
	seen := map[string]int{}
	var sum [3]float64
	for _, r := range res.Rows {
		seen[r.Worker]++
		if r.IOPS <= 0 || r.MBps <= 0 || !(r.P50Us > 0) || r.P50Us > r.P95Us || r.P95Us > r.P99Us || r.P99Us > r.P999Us || r.Simulated || r.Job != "" {
			t.Errorf("implausible row %+v", r)
		}
		sum[slices.Index([]string{"read", "write", "total"}, r.Direction)] += r.IOPS
	}
	for _, w := range l.Workers {
		if seen[w.Name] != 6 {
			t.Errorf("worker %s has %d rows, want 6", w.Name, seen[w.Name])
		}
	}
	if len(res.Aggregate) != 3 {
		t.Fatalf("aggregate rows %+v, want read, write and total", res.Aggregate)
	}
	if math.Abs(sum[2]-sum[0]-sum[1]) > 1e-6*sum[2] {
		t.Errorf("total rows sum to %.1f IOPS, read and write to %.1f", sum[2], sum[0]+sum[1])
	}
	for i, a := range res.Aggregate {
		if math.Abs(a.IOPS-sum[i]) > 1e-6*sum[i] {
			t.Errorf("aggregate %s IOPS %.1f, want the sum of the rows %.1f", a.Direction, a.IOPS, sum[i])
		}
	}
	if len(samples) == 0 || samples[len(samples)-1].IOPS <= 0 {
		t.Errorf("progress samples %+v: want at least the final one with IOPS", samples)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "not prepared by starbench") {
		t.Errorf("notes %q do not say the disks were not prepared", res.Notes)
	}
}

// TestRunFailsNamingKilledWorker: a server killed mid-run (SIGKILL, or
// SIGTERM as a shutdown sends) fails the run, and the error names that
// worker and no other.
func TestRunFailsNamingKilledWorker(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			l := startLocal(t, 3, 1)
			job := shortJob()
			job.RuntimeSec = 3
			victim := l.Workers[1]
			go func() {
				// Once the job runs, not while the server forks it: a job
				// process forked as its server died kept the port open and
				// the client waited until the run's bound (seen once with
				// other packages' tests beside this one). An idle server
				// has no child.
				pid := l.servers[1].Process.Pid
				for end := time.Now().Add(20 * time.Second); len(descendants(pid)) == 0 && time.Now().Before(end); {
					time.Sleep(50 * time.Millisecond)
				}
				time.Sleep(time.Second)
				// As when the worker VM dies: the server and every process it
				// forked for the job (fio's job process may leave the server's
				// process group, keeping the port open and the client waiting).
				killTree(pid, sig)
			}()
			res, err := (&Runner{}).Run(context.Background(), l.Workers, one(job), nil)
			if err == nil {
				t.Fatalf("run with a killed server succeeded: %+v", res)
			}
			t.Log(err)
			if !strings.Contains(err.Error(), "worker "+victim.Name+" ") {
				t.Fatalf("error does not name %s: %v", victim.Name, err)
			}
			for _, w := range []Worker{l.Workers[0], l.Workers[2]} {
				if strings.Contains(err.Error(), "worker "+w.Name+" ") {
					t.Errorf("error blames healthy worker %s: %v", w.Name, err)
				}
			}
		})
	}
}

func TestRunFailsOnDeadServerBeforeStart(t *testing.T) {
	t.Parallel()
	l := startLocal(t, 2, 1)
	ws := append([]Worker(nil), l.Workers...)
	ws[1].Addr = "127.0.0.1:1" // nothing listens there
	_, err := (&Runner{}).Run(context.Background(), ws, one(shortJob()), nil)
	if err == nil || !strings.Contains(err.Error(), ws[1].Name) || !strings.Contains(err.Error(), "does not answer") {
		t.Fatalf("want an error naming %s as not answering, got %v", ws[1].Name, err)
	}
}

func TestRunFailsOnJobError(t *testing.T) {
	t.Parallel()
	l := startLocal(t, 2, 1)
	r := &Runner{}
	// local-2's file exists; local-1's cannot, and the job may not create it.
	if err := r.Prepare(context.Background(), l.Workers[1:], Prep{Method: "zero"}, nil); err != nil {
		t.Fatal(err)
	}
	ws := append([]Worker(nil), l.Workers...)
	ws[0].Disks = []Disk{{Name: "disk1", Path: filepath.Join(t.TempDir(), "missing-dir", "disk1.dat")}}
	job := &Job{Name: "r", RW: "read", BlockSize: 4096, RuntimeSec: 1, TimeBased: true, Size: 1 << 20,
		Options: []Option{{Key: "allow_file_create", Value: "0"}}}
	_, err := r.Run(context.Background(), ws, one(job), nil)
	want := "worker " + ws[0].Name + " (" + ws[0].Addr + ") did no I/O on disk disk1"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "file creation disallowed") {
		t.Fatalf("want an error containing %q and fio's reason, got %v", want, err)
	}
	if strings.Contains(err.Error(), "worker "+ws[1].Name) {
		t.Errorf("error blames the healthy worker %s: %v", ws[1].Name, err)
	}
}

func TestRunHonoursCancel(t *testing.T) {
	t.Parallel()
	l := startLocal(t, 1, 1)
	job := shortJob()
	job.RuntimeSec = 30
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(700 * time.Millisecond); cancel() }()
	_, err := (&Runner{}).Run(ctx, l.Workers, one(job), nil)
	if err != context.Canceled {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	// The server must be free again for the next run.
	if _, err := (&Runner{}).Run(context.Background(), l.Workers, one(shortJob()), nil); err != nil {
		t.Fatalf("run after a cancelled run: %v", err)
	}
}

func TestRunTimesOutNamingSilentWorker(t *testing.T) {
	t.Parallel()
	l := startLocal(t, 2, 1)
	// A stopped server accepts connections (the kernel does) but never answers.
	pgid := l.servers[1].Process.Pid
	if err := syscall.Kill(-pgid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-pgid, syscall.SIGCONT)
	_, err := (&Runner{Margin: 2 * time.Second}).Run(context.Background(), l.Workers, one(shortJob()), nil)
	if err == nil || !strings.Contains(err.Error(), l.Workers[1].Name) || !strings.Contains(err.Error(), "no result within") {
		t.Fatalf("want a timeout naming %s, got %v", l.Workers[1].Name, err)
	}
}

// A delayed job is waited for: its start delay counts toward the run's
// time bound (with a 2 s margin, a 1 s job delayed 3 s was cut off as a
// silent worker). The delay is longer than the margin, the margin wide
// enough for a loaded machine's fio to start.
func TestRunWaitsForAStartDelay(t *testing.T) {
	t.Parallel()
	l := startLocal(t, 1, 1)
	job := shortJob()
	job.Options = append(job.Options, Option{Key: "startdelay", Value: "8"})
	res, err := (&Runner{Margin: 5 * time.Second}).Run(context.Background(), l.Workers, one(job), nil)
	if err != nil {
		t.Fatalf("a job delayed 8 s: %v", err)
	}
	if len(res.Aggregate) == 0 || res.Aggregate[0].IOPS <= 0 {
		t.Errorf("no I/O reported: %+v", res.Aggregate)
	}
}

func TestPrepareRecordsDiskState(t *testing.T) {
	t.Parallel()
	l := startLocal(t, 2, 2)
	r := &Runner{}
	prep := Prep{Method: "random", BlockSize: 256 << 10, Age: true}
	if err := r.Prepare(context.Background(), l.Workers, prep, nil); err != nil {
		t.Fatal(err)
	}
	for _, w := range l.Workers {
		for _, d := range w.Disks {
			fi, err := os.Stat(d.Path)
			if err != nil || fi.Size() != d.SizeBytes {
				t.Fatalf("%s %s after fill: %v, size %d, want %d", w.Name, d.Name, err, fi.Size(), d.SizeBytes)
			}
			if got, ok := r.DiskState(w, d); !ok || got != prep {
				t.Errorf("%s %s state %+v %v, want %+v", w.Name, d.Name, got, ok, prep)
			}
		}
	}
	// The same preparation again finds nothing to fill: the files stay as they are.
	before, _ := os.Stat(l.Workers[0].Disks[0].Path)
	if err := r.Prepare(context.Background(), l.Workers, prep, nil); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(l.Workers[0].Disks[0].Path); !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("a second identical prepare rewrote %s", l.Workers[0].Disks[0].Path)
	}
	// Two clones per disk (numjobs) report under the disk's name and merge into its row.
	job := shortJob()
	job.NumJobs = 2
	res, err := r.Run(context.Background(), l.Workers, one(job), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2*2*3 {
		t.Errorf("%d rows with numjobs=2, want 12 (2 workers x 2 disks x read, write, total)", len(res.Rows))
	}
	if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "4 disks filled with random data at 256k, aged") {
		t.Errorf("notes %q do not record the fill", notes)
	}
	if err := r.Prepare(context.Background(), l.Workers, Prep{Method: "sideways"}, nil); err == nil || !strings.Contains(err.Error(), "want random, zero or none") {
		t.Errorf("bad method: %v", err)
	}
}

func TestLocalCloseStopsServers(t *testing.T) {
	t.Parallel()
	needFio(t)
	ctx, cancel := context.WithCancel(context.Background())
	l, err := StartLocal(ctx, LocalSpec{N: 3, SizeBytes: 1 << 20, Disks: 1})
	if err != nil {
		t.Fatal(err)
	}
	dir := l.Dir()
	cancel() // Ctrl-C
	deadline := time.Now().Add(10 * time.Second)
	for _, cmd := range l.servers {
		for syscall.Kill(cmd.Process.Pid, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if syscall.Kill(cmd.Process.Pid, 0) == nil {
			t.Errorf("server %d still runs after the context was cancelled", cmd.Process.Pid)
		}
	}
	l.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("temporary data directory %s left behind: %v", dir, err)
	}
}

// TestLocalCloseLeavesNoJobProcesses: closing local workers in the middle
// of a run stops the servers and every process they forked for the job.
func TestLocalCloseLeavesNoJobProcesses(t *testing.T) {
	t.Parallel()
	l := startLocal(t, 2, 1)
	job := shortJob()
	job.RuntimeSec = 10
	go (&Runner{}).Run(context.Background(), l.Workers, one(job), nil)
	var tree []int
	for deadline := time.Now().Add(8 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		tree = nil
		for _, cmd := range l.servers {
			tree = append(tree, descendants(cmd.Process.Pid)...)
		}
		if len(tree) >= len(l.servers) {
			break
		}
	}
	if len(tree) < len(l.servers) {
		t.Fatalf("the servers forked no job processes (%v): the run did not start", tree)
	}
	l.Close()
	// A killed process takes a moment to exit: wait for each to be gone
	// (or a zombie), within a bound.
	alive := func(pid int) bool {
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		return err == nil && !strings.Contains(string(stat), ") Z ")
	}
	for _, pid := range tree {
		for deadline := time.Now().Add(5 * time.Second); alive(pid) && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("job process %d outlived Close", pid)
		}
	}
}
