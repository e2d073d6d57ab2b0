package builtins_test

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.starlark.net/starlark"

	"starbench/builtins"
	"starbench/internal/fio"
	"starbench/internal/runtime"
	"starbench/internal/table"
	"starbench/internal/target"
)

// fioCall calls fio.<name> on a thread with session s.
func fioCall(t *testing.T, deps builtins.Deps, s *runtime.Session, name string, args starlark.Tuple, kwargs ...starlark.Tuple) (starlark.Value, error) {
	t.Helper()
	thread := &starlark.Thread{Name: "test"}
	runtime.SetSession(thread, s)
	fn := builtins.NewFioModule(deps).Struct().Members[name]
	return starlark.Call(thread, fn, args, kwargs)
}

func newSession(t *testing.T, ctx context.Context) *runtime.Session {
	var out strings.Builder
	s := &runtime.Session{Ctx: ctx, Script: "test.star", OutDir: t.TempDir(), Target: "embedded", Stdout: &out, Stderr: &out}
	t.Cleanup(s.Close)
	return s
}

// simPlane stands in for the model: these tests are about routing, not numbers.
type simPlane struct{ runs int }

func (p *simPlane) Run(ctx context.Context, ws []fio.Worker, wl *fio.Workload, progress func(fio.Status)) (*fio.Result, error) {
	p.runs++
	row := fio.Row{Direction: "read", IOPS: 100, Simulated: true}
	return &fio.Result{Simulated: true, Aggregate: []fio.Row{row}}, nil
}

func (p *simPlane) Prepare(context.Context, []fio.Worker, fio.Prep, func(fio.Status)) error {
	return nil
}

func targetWith(plane fio.DataPlane) builtins.Deps {
	return builtins.Deps{OpenTarget: func(context.Context, target.Options) (*target.Target, func(), error) {
		return &target.Target{Kind: target.Embedded, Simulated: true, DataPlane: plane}, nil, nil
	}}
}

var simWorker = builtins.NewWorker(fio.Worker{Name: "vm-1", Simulated: true, Disks: []fio.Disk{{Name: "disk1", Path: "/dev/sdb"}}}, "vm-42")
var realWorker = builtins.NewWorker(fio.Worker{Name: "local-1", Addr: "127.0.0.1:1", Disks: []fio.Disk{{Name: "disk1", Path: "/tmp/x"}}}, "")

func readJob() *builtins.JobValue {
	return builtins.NewJobValue(fio.Job{Name: "r", RW: "randread", BlockSize: 4096, RuntimeSec: 1, TimeBased: true})
}

func TestRunRoutesSimulatedWorkersToTheTarget(t *testing.T) {
	plane := &simPlane{}
	s := newSession(t, context.Background())
	v, err := fioCall(t, targetWith(plane), s, "run", starlark.Tuple{starlark.NewList([]starlark.Value{simWorker}), readJob()})
	if err != nil {
		t.Fatal(err)
	}
	df := v.(*builtins.Frame).DataFrame()
	sim, _ := table.Read(df, "simulated")
	if plane.runs != 1 || df.Nrow() != 1 || !sim.Bools[0] {
		t.Fatalf("runs %d, frame\n%v", plane.runs, df)
	}
}

func TestRunRefusesWithoutSimulatedPlane(t *testing.T) {
	s := newSession(t, context.Background())
	_, err := fioCall(t, targetWith(nil), s, "run", starlark.Tuple{simWorker, readJob()})
	if err == nil || !strings.Contains(err.Error(), "the simulated data plane is not available") {
		t.Fatalf("got %v", err)
	}
}

func TestRunRefusesMixedWorkers(t *testing.T) {
	s := newSession(t, context.Background())
	_, err := fioCall(t, targetWith(&simPlane{}), s, "run", starlark.Tuple{starlark.NewList([]starlark.Value{simWorker, realWorker}), readJob()})
	if err == nil || !strings.Contains(err.Error(), "1 of the 2 workers are simulated") {
		t.Fatalf("got %v", err)
	}
}

func TestResultFrame(t *testing.T) {
	r1 := &fio.Result{
		Rows: []fio.Row{{Job: "oltp", Worker: "w1", Disk: "disk1", Direction: "read", IOPS: 10, MBps: 0.04, LatMeanUs: 100, P50Us: 90, P95Us: 150, P99Us: 200, P999Us: 400,
			Percentiles: []fio.Percentile{{P: 99.99, Us: 700}}}},
		Aggregate: []fio.Row{{Direction: "read", IOPS: 10, MBps: 0.04, LatMeanUs: 100, P50Us: 90, P95Us: 150, P99Us: 200, P999Us: 400},
			{Direction: "write", IOPS: 0, LatMeanUs: math.NaN(), P50Us: math.NaN(), P95Us: math.NaN(), P99Us: math.NaN(), P999Us: math.NaN(), Errors: 2}},
	}
	df, err := builtins.ResultFrame(r1, r1)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"job", "worker", "disk", "direction", "iops", "mbps", "lat_mean_us", "p50_us", "p95_us", "p99_us", "p999_us", "p99_99_us", "errors", "simulated", "repeat"}
	if got := df.Names(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("columns %v, want %v", got, want)
	}
	worker, _ := table.Read(df, "worker")
	rep, _ := table.Read(df, "repeat")
	p99, _ := table.Read(df, "p99_us")
	errs, _ := table.Read(df, "errors")
	if strings.Join(worker.Strings, ",") != "w1,all,all,w1,all,all" || rep.Ints[3] != 2 || rep.Ints[2] != 1 {
		t.Fatalf("workers %v repeats %v", worker.Strings, rep.Ints)
	}
	job, _ := table.Read(df, "job")
	p9999, _ := table.Read(df, "p99_99_us")
	if strings.Join(job.Strings, ",") != "oltp,all,all,oltp,all,all" || p9999.Floats[0] != 700 || !p9999.IsNA(1) {
		t.Fatalf("jobs %v, p99.99 %v (NA %v): a percentile a row lacks must be missing", job.Strings, p9999.Floats, p9999.NA)
	}
	if !p99.IsNA(2) || p99.IsNA(1) || p99.Floats[1] != 200 || errs.Ints[2] != 2 {
		t.Fatalf("p99 %v (NA %v) errors %v: a latency nothing measured must be missing", p99.Floats, p99.NA, errs.Ints)
	}
	empty, err := builtins.ResultFrame()
	if err != nil || empty.Ncol() != len(want)-1 || empty.Nrow() != 0 {
		t.Fatalf("no results: %v, %d columns", err, empty.Ncol())
	}
}

// TestCancelStopsRunAndServers: Ctrl-C (the session's context) ends a
// running fio.run and stops the local servers: no fio process is left.
func TestCancelStopsRunAndServers(t *testing.T) {
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed (apt-get install -y fio)")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := newSession(t, ctx)
	v, err := fioCall(t, builtins.Deps{}, s, "local_workers", starlark.Tuple{starlark.MakeInt(2)}, starlark.Tuple{starlark.String("size"), starlark.String("4m")})
	if err != nil {
		t.Fatal(err)
	}
	workers := v.(*starlark.List)
	serverPIDs := func(addr string) []byte {
		out, _ := exec.Command("pgrep", "-f", "fio --server=ip:"+strings.Replace(addr, ":", ",", 1)).Output()
		return out
	}
	first := workers.Index(0).(*builtins.Worker).FioWorker().Addr
	if len(serverPIDs(first)) == 0 {
		t.Fatalf("pgrep does not see the server of %s while the session is open", first)
	}
	long := builtins.NewJobValue(fio.Job{Name: "long", RW: "randread", BlockSize: 4096, RuntimeSec: 60, TimeBased: true})
	go func() { time.Sleep(1500 * time.Millisecond); cancel() }()
	start := time.Now()
	_, err = fioCall(t, builtins.Deps{}, s, "run", starlark.Tuple{workers, long})
	if err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("want a cancelled run, got %v", err)
	}
	if time.Since(start) > 30*time.Second {
		t.Fatalf("the run went on for %s after Ctrl-C", time.Since(start))
	}
	s.Close()
	for i := range workers.Len() {
		addr := workers.Index(i).(*builtins.Worker).FioWorker().Addr
		if out := serverPIDs(addr); len(out) > 0 {
			pid := strings.Fields(string(out))[0]
			// A zombie waiting to be reaped is not running.
			if stat, _ := exec.Command("ps", "-o", "stat=", "-p", pid).Output(); !strings.HasPrefix(strings.TrimSpace(string(stat)), "Z") {
				t.Errorf("fio server for %s still runs (pid %s) after the session closed", addr, pid)
				syscall.Kill(atoi(pid), syscall.SIGKILL)
			}
		}
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// fio.jobfile, fio.workload and hcibench.read ask the installed fio where
// the workload is made, so the script's line (and --plan, which runs nothing) shows what
// fio fails: steadystate without its threshold passes starbench's own
// checks.
func TestWorkloadsAskFioWhereTheyAreMade(t *testing.T) {
	if !fio.Installed() {
		t.Skip("fio-3.33 is not installed")
	}
	s := newSession(t, context.Background())
	path := filepath.Join(t.TempDir(), "ss.fio")
	if err := os.WriteFile(path, []byte("[a]\nrw=randread\nbs=4k\nruntime=60\nsteadystate=iops\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "fio-3.33 fails parsing the job file, as it would on the workers: fio: steadystate threshold must be specified"
	if _, err := fioCall(t, builtins.Deps{}, s, "jobfile", starlark.Tuple{starlark.String(path)}); err == nil || !strings.Contains(err.Error(), path+": "+want) {
		t.Errorf("fio.jobfile: %v, want %q", err, want)
	}
	params := filepath.Join(t.TempDir(), "hcibench-ss.fio")
	if err := os.WriteFile(params, []byte("[global]\nrw=randread\nbs=4k\ntime_based=1\nruntime=60\nsteadystate=iops\n[sdb]\nfilename=/dev/sdb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	thread := &starlark.Thread{Name: "test"}
	runtime.SetSession(thread, s)
	read := builtins.NewHCIBenchModule(builtins.Deps{}).Struct().Members["read"]
	if _, err := starlark.Call(thread, read, starlark.Tuple{starlark.String(params)}, nil); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("hcibench.read: %v, want %q", err, want)
	}
	job := builtins.NewJobValue(fio.Job{Name: "a", RW: "randread", Options: []fio.Option{{Key: "steadystate", Value: "iops"}}})
	if _, err := fioCall(t, builtins.Deps{}, s, "workload", starlark.Tuple{starlark.NewList([]starlark.Value{job})}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("fio.workload: %v, want %q", err, want)
	}
}

// fio refuses a depth or a job count of 0 ("min value out of range: 0 (1
// min)"), and so do fio.job and replace: 0 is also the typed form's "not
// set", which would otherwise run fio's default 1 without a word.
func TestJobRefusesNoDepthAndNoJobs(t *testing.T) {
	s := newSession(t, context.Background())
	for _, key := range []string{"iodepth", "numjobs"} {
		_, err := fioCall(t, builtins.Deps{}, s, "job", nil, starlark.Tuple{starlark.String(key), starlark.MakeInt(0)})
		if want := key + "=0: fio's least is 1"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("fio.job(%s=0): %v; want %q", key, err, want)
		}
		replace, _ := readJob().Attr("replace")
		_, err = starlark.Call(&starlark.Thread{}, replace, nil, []starlark.Tuple{{starlark.String(key), starlark.MakeInt(0)}})
		if want := key + "=0: fio's least is 1"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("replace(%s=0): %v; want %q", key, err, want)
		}
	}
	if _, err := fioCall(t, builtins.Deps{}, s, "job", nil, starlark.Tuple{starlark.String("rate_iops"), starlark.MakeInt(0)}); err != nil {
		t.Errorf("fio.job(rate_iops=0), no cap: %v", err)
	}
}
