package fio

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Runner is the real data plane: it drives fio servers (one per worker)
// from one `fio --client` invocation and reads back json+ results. It
// remembers how each disk was prepared so runs can say what they ran on.
type Runner struct {
	// Binary is the fio executable; "" means "fio" on PATH.
	Binary string
	// Margin is added to a job's runtime and ramp to bound a run (default 30 s).
	Margin time.Duration
	// PrepareRate is the slowest fill rate Prepare waits for, in bytes per
	// second per disk (default 4 MiB/s): it bounds a fill of a whole disk.
	PrepareRate int64
	// DialTimeout bounds the check that every worker's server answers (default 3 s).
	DialTimeout time.Duration
	// SampleInterval is how often a run samples IOPS, bandwidth and
	// latency (Result.Samples): 0 means every second (longer for runs of
	// more than 600 intervals), below 0 no samples.
	SampleInterval time.Duration

	mu       sync.Mutex
	prepared map[diskID]Prep
}

type diskID struct{ addr, path string }

var _ DataPlane = (*Runner)(nil)

func (r *Runner) binary() (string, error) {
	name := r.Binary
	if name == "" {
		name = "fio"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("fio is not installed (%s not found); install it, e.g. apt-get install -y fio", name)
	}
	return path, nil
}

// dialTimeout bounds connecting to a worker's server (default 3 s).
func (r *Runner) dialTimeout() time.Duration {
	if r.DialTimeout > 0 {
		return r.DialTimeout
	}
	return 3 * time.Second
}

func (r *Runner) margin() time.Duration {
	if r.Margin > 0 {
		return r.Margin
	}
	return 30 * time.Second
}

// Run runs the workload on every worker at once (each job on the disks
// Workload.Targets maps it to, in the workload's phases) and returns the
// per-disk rows and the aggregate rows. Any worker that fails, dies or does
// not answer fails the whole run, named in the error; there is no partial
// result. A job with no runtime runs until it has moved its size; the run
// is then bounded by that size at the slowest rate Prepare waits for.
func (r *Runner) Run(ctx context.Context, workers []Worker, wl *Workload, progress func(Status)) (*Result, error) {
	if wl == nil {
		return nil, fmt.Errorf("no workload to run")
	}
	if err := wl.Validate(); err != nil {
		return nil, err
	}
	if err := wl.CheckWithFio(ctx); err != nil {
		return nil, err
	}
	expect := time.Duration(wl.Seconds()) * time.Second
	limit := max(expect, r.sizeBound(wl, workers)) + r.margin()
	var every time.Duration
	if r.SampleInterval >= 0 {
		every = sampleInterval(r.SampleInterval, max(expect, limit-r.margin()))
	}
	res, err := r.run(ctx, workers, wl, expect, limit, every, progress)
	if err != nil {
		return nil, err
	}
	res.Notes = append(res.Notes, r.diskStateNotes(workers)...)
	return res, nil
}

// sizeBound is how long the workload's jobs without a runtime may take to
// move their size at the slowest fill rate: per phase the longest job.
func (r *Runner) sizeBound(wl *Workload, workers []Worker) time.Duration {
	var largest int64
	for _, w := range workers {
		for _, d := range w.Disks {
			largest = max(largest, d.SizeBytes)
		}
	}
	var total time.Duration
	for _, p := range wl.Phases() {
		var longest time.Duration
		for _, i := range p {
			j := wl.Jobs[i]
			delay := time.Duration(j.startDelay()) * time.Second
			if j.RuntimeSec > 0 {
				longest = max(longest, delay+time.Duration(j.RuntimeSec+j.RampSec)*time.Second)
				continue
			}
			bytes := largest
			if j.Size > 0 {
				bytes = j.Size
			}
			loops := 1
			if v, ok := j.raw("loops"); ok {
				if n, err := strconv.Atoi(v); err == nil && n > 1 {
					loops = n
				}
			}
			longest = max(longest, delay+time.Duration(bytes*int64(loops)/r.prepareRate()+1)*time.Second)
		}
		total += longest
	}
	return total
}

func (r *Runner) prepareRate() int64 {
	if r.PrepareRate > 0 {
		return r.PrepareRate
	}
	return 4 << 20
}

// Prepare fills every data disk of the workers once, sequentially at
// prep.BlockSize: "zero" writes zeros, "random" incompressible data (or
// data that compresses by CompressPercentage), "none" leaves the disks as
// they are. With Age, a pass of random writes of mixed block sizes follows.
// The disks' state is recorded for later runs; a disk this runner already
// prepared the same way is not filled again.
func (r *Runner) Prepare(ctx context.Context, workers []Worker, prep Prep, progress func(Status)) error {
	if prep.BlockSize == 0 {
		prep.BlockSize = 256 << 10
	}
	jobs, err := prepJobs(prep)
	if err != nil {
		return err
	}
	workers = r.unprepared(workers, prep)
	var largest int64
	for _, w := range workers {
		for _, d := range w.Disks {
			largest = max(largest, d.SizeBytes)
		}
	}
	if len(workers) == 0 {
		return nil
	}
	for _, job := range jobs {
		expect := time.Duration(largest/r.prepareRate()+1) * time.Second
		if _, err := r.run(ctx, workers, NewWorkload(*job), expect, expect+r.margin(), 0, progress); err != nil {
			return fmt.Errorf("preparing disks (%s pass): %w", job.Name, err)
		}
	}
	if prep.Method == "none" {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.prepared == nil {
		r.prepared = map[diskID]Prep{}
	}
	for _, w := range workers {
		for _, d := range w.Disks {
			r.prepared[diskID{w.Addr, d.Path}] = prep
		}
	}
	return nil
}

// unprepared returns the workers with only the disks not already prepared
// exactly as prep asks, dropping workers left with none.
func (r *Runner) unprepared(workers []Worker, prep Prep) []Worker {
	var out []Worker
	for _, w := range workers {
		left := w
		left.Disks = nil
		for _, d := range w.Disks {
			if p, ok := r.DiskState(w, d); !ok || p != prep {
				left.Disks = append(left.Disks, d)
			}
		}
		if len(left.Disks) > 0 {
			out = append(out, left)
		}
	}
	return out
}

// Validate says what is wrong with a preparation. Every data plane checks
// it the same way, so a script the model accepts runs on real fio too. A
// BlockSize of 0 means the default, 256k.
func (prep Prep) Validate() error {
	if bs := prep.BlockSize; bs != 0 && (bs < 512 || bs%512 != 0) {
		return fmt.Errorf("prepare block size %d: want a multiple of 512 bytes, like 256k", bs)
	}
	if prep.CompressPercentage < 0 || prep.CompressPercentage > 100 {
		return fmt.Errorf("compress percentage %d: want 0 to 100", prep.CompressPercentage)
	}
	switch prep.Method {
	case "none":
		if prep.Age {
			return fmt.Errorf("aging needs a fill first; use method random or zero with age")
		}
	case "zero":
		if prep.CompressPercentage != 0 {
			return fmt.Errorf("a zero fill always compresses fully; give a compress percentage only with method random")
		}
	case "random":
	default:
		return fmt.Errorf("prepare method %q: want random, zero or none", prep.Method)
	}
	return nil
}

// prepJobs returns the fio jobs of a preparation: a sequential fill, then
// the aging pass when asked.
func prepJobs(prep Prep) ([]*Job, error) {
	if err := prep.Validate(); err != nil {
		return nil, err
	}
	bs := prep.BlockSize
	var data []Option
	switch prep.Method {
	case "none":
		return nil, nil
	case "zero":
		data = []Option{{Key: "zero_buffers"}}
	case "random":
		data = []Option{{Key: "refill_buffers"}}
	}
	// end_fsync: a disk counts as filled once the data is on it, not in a page cache.
	data = append(data, Option{Key: "end_fsync", Value: "1"})
	fill := &Job{Name: "fill", RW: "write", BlockSize: bs, IODepth: 8, BufferCompressPercentage: prep.CompressPercentage, Options: data}
	jobs := []*Job{fill}
	if prep.Age {
		age := &Job{Name: "age", RW: "randwrite", IODepth: 8, BufferCompressPercentage: prep.CompressPercentage,
			BSSplit: []BSSplit{{4 << 10, 40}, {16 << 10, 30}, {64 << 10, 20}, {256 << 10, 10}},
			Options: append(slices.Clone(data), Option{Key: "norandommap"}, Option{Key: "randrepeat", Value: "0"})}
		jobs = append(jobs, age)
	}
	return jobs, nil
}

// DiskState says how starbench last prepared a disk of a worker.
func (r *Runner) DiskState(w Worker, d Disk) (Prep, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.prepared[diskID{w.Addr, d.Path}]
	return p, ok
}

func (r *Runner) diskStateNotes(workers []Worker) []string {
	counts := map[string]int{}
	var order []string
	for _, w := range workers {
		for _, d := range w.Disks {
			s := "not prepared by starbench"
			if p, ok := r.DiskState(w, d); ok {
				s = "filled with " + p.Method + " data at " + FormatSize(p.BlockSize)
				if p.CompressPercentage > 0 {
					s += fmt.Sprintf(", %d %% compressible", p.CompressPercentage)
				}
				if p.Age {
					s += ", aged"
				}
			}
			if counts[s] == 0 {
				order = append(order, s)
			}
			counts[s]++
		}
	}
	var notes []string
	for _, s := range order {
		notes = append(notes, fmt.Sprintf("disk state: %d disks %s", counts[s], s))
	}
	return notes
}

// run is one fio client invocation over all workers. expect is how long the
// workload should take (for progress; 0 when unknown); limit bounds the
// whole invocation; every is the samples' interval (0: none).
func (r *Runner) run(ctx context.Context, workers []Worker, wl *Workload, expect, limit, every time.Duration, progress func(Status)) (*Result, error) {
	bin, err := r.binary()
	if err != nil {
		return nil, err
	}
	clients, err := checkWorkers(workers)
	if err != nil {
		return nil, err
	}
	if err := r.dialAll(ctx, workers); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "starbench-fio-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	args := []string{"--output-format=json+"}
	var artifacts []Artifact
	depths := make([][]int, len(workers)) // per worker, its fio jobs' outstanding I/Os
	sectionJobs := map[string]int{}       // fio job name to workload job
	prefixes := map[string]string{}       // log file prefix to workload job name
	logged := map[string]sectionOf{}      // log file prefix to its section
	for i, w := range workers {
		var logs func(int, Target) []Option
		var drop []string
		if every > 0 {
			drop = logOptionNames
			logs = func(s int, t Target) []Option {
				prefix := fmt.Sprintf("w%d-s%d", i, s)
				prefixes[prefix] = wl.Jobs[t.Job].Name
				logged[prefix] = sectionOf{clients[w.Name], t.Section}
				return logOptions(prefix, every)
			}
		}
		text, targets, err := wl.workerFile(w, logs, drop)
		if err != nil {
			return nil, err
		}
		known := true
		for _, t := range targets {
			sectionJobs[t.Section] = t.Job
			d := threadDepths(&wl.Jobs[t.Job])
			known = known && d != nil
			depths[i] = append(depths[i], d...)
		}
		if !known {
			depths[i] = nil
		}
		name := fmt.Sprintf("worker-%d.fio", i)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return nil, err
		}
		artifacts = append(artifacts, Artifact{Name: w.Name + ".fio", Content: []byte(text)})
	}
	// fio's client reaches the servers through relays that read their live
	// rate when someone follows the run; its output then names each worker
	// by its relay, which back turns into the worker's server again.
	via, back := clients, map[ClientKey]ClientKey{}
	var live *liveRate
	var relays []*relay
	if progress != nil {
		if live, relays, err = r.startRelays(workers, depths); err != nil {
			return nil, err
		}
		defer func() {
			for _, rl := range relays {
				rl.close()
			}
		}()
		via = map[string]ClientKey{}
		var table strings.Builder
		for i, w := range workers {
			via[w.Name], back[relays[i].key()] = relays[i].key(), clients[w.Name]
			fmt.Fprintf(&table, "%s %s %s\n", clientArg(relays[i].key()), w.Name, w.Addr)
		}
		artifacts = append(artifacts, Artifact{Name: "fio-relays.txt", Content: []byte(table.String())})
	}
	for i, w := range workers {
		args = append(args, "--client="+clientArg(via[w.Name]), fmt.Sprintf("worker-%d.fio", i))
	}

	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	// Files fio's client writes (the logs servers send back) stay in the
	// run's own directory.
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr, cmd.WaitDelay = ownGroup(), pipeGrace
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting fio: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	// fio 3.33's client prints json+ only when the run ends; while it runs,
	// progress gets the relays' live rate every second.
	timer := time.NewTimer(limit)
	defer timer.Stop()
	var tick <-chan time.Time
	if live != nil {
		ticker := time.NewTicker(time.Second)
		defer ticker.Stop()
		tick = ticker.C
	}
	var waitErr error
wait:
	for {
		select {
		case waitErr = <-done:
			break wait
		case now := <-tick:
			if iops, mbps, lat, ok := live.status(now); ok {
				progress(Status{Elapsed: int(now.Sub(start) / time.Second), Total: int(expect / time.Second),
					IOPS: iops, MBps: mbps, LatMeanUs: lat})
			}
		case <-ctx.Done():
			stopGroup(cmd, done, syscall.SIGINT)
			return nil, ctx.Err()
		case <-timer.C:
			stopGroup(cmd, done, syscall.SIGINT)
			return nil, r.lateError(ctx, limit, unreported(stdout.Bytes(), workers, via))
		}
	}

	out, perr := ParseOutput(stdout.Bytes())
	said := fioSaid(stdout.Bytes(), stderr.Bytes())
	if perr != nil {
		if waitErr != nil {
			return nil, fmt.Errorf("fio failed (%v) on %s%s", waitErr, describeWorkers(workers), said)
		}
		return nil, perr
	}
	entries := out.Entries()
	for i, e := range entries {
		if k, ok := back[ClientKey{e.Host, e.Port}]; ok {
			entries[i].Host, entries[i].Port = k.Host, k.Port
		}
	}
	stops, err := checkEntries(entries, wl, workers, clients, said)
	if err != nil {
		return nil, err
	}
	// fio exits 1 after jobs that went on past errors (continue_on_error),
	// which checkEntries accepted.
	if waitErr != nil && !slices.ContainsFunc(entries, func(e JobStats) bool { return e.Error != 0 }) {
		return nil, fmt.Errorf("fio failed (%v) although every worker reported%s", waitErr, said)
	}
	res, err := Aggregate(entries, wl, workers, clients)
	if err != nil {
		return nil, err
	}
	res.Notes = append(res.Notes, fmt.Sprintf("measured by %s on %d workers", out.Version, len(workers)))
	res.Notes = append(res.Notes, steadyNotes(entries, wl, sectionJobs)...)
	res.Notes = append(res.Notes, errorNotes(entries, wl, sectionJobs)...)
	res.Notes = append(res.Notes, stops...)
	res.Artifacts = append(artifacts, Artifact{Name: "fio-output.json", Content: stdout.Bytes()})
	if every > 0 {
		bySection := map[string][]JobStats{}
		for prefix, sec := range logged {
			for _, e := range entries {
				if (ClientKey{e.Host, e.Port}) == sec.client && e.Name == sec.name {
					bySection[prefix] = append(bySection[prefix], e)
				}
			}
		}
		if res.Samples, err = readSamples(dir, prefixes, bySection, every, len(wl.Jobs) == 1); err != nil {
			return nil, err
		}
		res.Notes = append(res.Notes, logNotes(wl)...)
	}
	if progress != nil {
		progress(res.Status(int(time.Since(start)/time.Second), int(expect/time.Second)))
	}
	for _, rl := range relays {
		if err := rl.close(); err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("live rate: %v", err))
		}
	}
	return res, nil
}

// steadyNotes says, for each job with a steady-state criterion, on how
// many of its fio jobs (sections and clones) fio found steady state, which
// ends them early. sectionJobs maps fio job names to the workload's jobs.
func steadyNotes(entries []JobStats, wl *Workload, sectionJobs map[string]int) []string {
	var notes []string
	for i, j := range wl.Jobs {
		crit, ok := j.raw("steadystate")
		if !ok {
			continue
		}
		reached, n := 0, 0
		for _, e := range entries {
			if k, ok := sectionJobs[e.Name]; ok && k == i && e.Steady != nil {
				n++
				reached += e.Steady.Attained
			}
		}
		notes = append(notes, fmt.Sprintf("job %s: steady state (%s) reached on %d of %d fio jobs; the others ran their whole runtime", j.Name, crit, reached, n))
	}
	return notes
}

// sectionOf names a section of a worker's job file in fio's output.
type sectionOf struct {
	client ClientKey
	name   string
}

// logNotes names the jobs whose own log options gave way to the samples.
func logNotes(wl *Workload) []string {
	var notes []string
	for _, j := range wl.Jobs {
		var own []string
		for _, o := range j.Options {
			if slices.Contains(logOptionNames, Canonical(o.Key)) && !slices.Contains(own, o.Key) {
				own = append(own, o.Key)
			}
		}
		if len(own) > 0 {
			notes = append(notes, fmt.Sprintf("job %s: its %s gave way to starbench's per-interval samples (the samples table)", j.Name, strings.Join(own, ", ")))
		}
	}
	return notes
}

// errorNotes counts, per job, the I/O errors fio went on after
// (continue_on_error) and names the first.
func errorNotes(entries []JobStats, wl *Workload, sectionJobs map[string]int) []string {
	var notes []string
	for i, j := range wl.Jobs {
		var n int64
		first := 0
		for _, e := range entries {
			if k, ok := sectionJobs[e.Name]; ok && k == i && e.TotalErr > 0 {
				n += e.TotalErr
				if first == 0 {
					first = e.FirstErr
				}
			}
		}
		if n > 0 {
			notes = append(notes, fmt.Sprintf("job %s: %d I/O errors (continue_on_error), the first %s", j.Name, n, errnoText(first)))
		}
	}
	return notes
}

// checkWorkers validates the workers and returns each one's client key.
func checkWorkers(workers []Worker) (map[string]ClientKey, error) {
	if len(workers) == 0 {
		return nil, fmt.Errorf("no workers: give at least one")
	}
	clients := map[string]ClientKey{}
	seen := map[ClientKey]string{}
	for _, w := range workers {
		if w.Simulated {
			return nil, fmt.Errorf("worker %s is simulated and runs no fio server; run it on the simulated data plane", w.Name)
		}
		host, port, err := net.SplitHostPort(w.Addr)
		p, perr := strconv.Atoi(port)
		if err != nil || perr != nil || host == "" || p <= 0 || p > 65535 {
			return nil, fmt.Errorf("worker %s has fio server address %q; want host:port, like 10.0.0.5:8765", w.Name, w.Addr)
		}
		if _, dup := clients[w.Name]; dup {
			return nil, fmt.Errorf("worker %s is given twice; give each worker once", w.Name)
		}
		k := ClientKey{Host: host, Port: p}
		if other, dup := seen[k]; dup {
			return nil, fmt.Errorf("workers %s and %s share the fio server %s; each worker needs its own", other, w.Name, w.Addr)
		}
		if len(w.Disks) == 0 {
			return nil, fmt.Errorf("worker %s has no data disks; give it at least one", w.Name)
		}
		names := map[string]bool{}
		for _, d := range w.Disks {
			if d.Name == "" || d.Path == "" || names[d.Name] {
				return nil, fmt.Errorf("worker %s: disk %q (%s) needs a unique name and a path", w.Name, d.Name, d.Path)
			}
			names[d.Name] = true
		}
		clients[w.Name] = k
		seen[k] = w.Name
	}
	return clients, nil
}

// clientArg writes a server address the way fio's --client reads it.
func clientArg(k ClientKey) string {
	ip := net.ParseIP(k.Host)
	switch {
	case ip == nil:
		return fmt.Sprintf("%s,%d", k.Host, k.Port)
	case ip.To4() == nil:
		return fmt.Sprintf("ip6:%s,%d", k.Host, k.Port)
	default:
		return fmt.Sprintf("ip:%s,%d", k.Host, k.Port)
	}
}

// dialAll checks that every worker's server accepts connections, so a
// worker that is down is named before anything runs.
func (r *Runner) dialAll(ctx context.Context, workers []Worker) error {
	timeout := r.dialTimeout()
	errs := make([]error, len(workers))
	var wg sync.WaitGroup
	for i, w := range workers {
		wg.Go(func() {
			d := net.Dialer{Timeout: timeout}
			c, err := d.DialContext(ctx, "tcp", w.Addr)
			if err != nil {
				errs[i] = fmt.Errorf("worker %s (fio server %s) does not answer: %w", w.Name, w.Addr, err)
				return
			}
			c.Close()
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// checkEntries fails the run when any worker did not report every section
// of its job file, reported an error, did no I/O, or stopped a time-based
// job before its runtime (unless a steady-state criterion ended it, or a
// job with exitall that the worker ran to its end: fio stops the others as
// the job file asks, and the notes say which it stopped).
func checkEntries(entries []JobStats, wl *Workload, workers []Worker, clients map[string]ClientKey, said string) ([]string, error) {
	byKey := map[ClientKey][]JobStats{}
	for _, e := range entries {
		k := ClientKey{e.Host, e.Port}
		byKey[k] = append(byKey[k], e)
	}
	var problems []string
	stopped := map[int]*exitallStops{} // by the workload's job stopped
	for _, w := range workers {
		k := clients[w.Name]
		got := byKey[k]
		targets, err := wl.Targets(w)
		if err != nil {
			return nil, err
		}
		sections := map[string]Target{}
		for _, t := range targets {
			sections[t.Section] = t
		}
		where := func(t Target) string {
			if len(wl.Jobs) == 1 {
				return "disk " + t.DiskLabel()
			}
			return fmt.Sprintf("job %s on disk %s", wl.Jobs[t.Job].Name, t.DiskLabel())
		}
		enders := exitallEnders(got, sections, wl)
		stoppedBy := func(j int) int { // the ender that stops job j, -1 if none
			for _, e := range enders {
				if wl.ExitallStops(e, j) {
					return e
				}
			}
			return -1
		}
		stop := func(j, by int, ms int64) {
			if stopped[j] == nil {
				stopped[j] = &exitallStops{by: wl.Jobs[by].Name}
			}
			stopped[j].add(ms)
		}
		reported := map[string]bool{}
		for _, e := range got {
			t, ok := sections[e.Name]
			if !ok {
				problems = append(problems, fmt.Sprintf("worker %s (%s) reported a job %q, which is none of the workload's", w.Name, w.Addr, e.Name))
				continue
			}
			reported[e.Name] = true
			j := &wl.Jobs[t.Job]
			if e.Error != 0 && !(j.continuesOnError() && e.TotalErr > 0) {
				problems = append(problems, fmt.Sprintf("worker %s (%s) failed on %s: fio error %d (%s)", w.Name, w.Addr, where(t), e.Error, errnoText(e.Error)))
				continue
			}
			by := stoppedBy(t.Job)
			if e.Read.TotalIOs+e.Write.TotalIOs+e.Trim.TotalIOs == 0 && !slices.Contains(noIOEngines, j.IOEngine) {
				if by >= 0 {
					stop(t.Job, by, -1)
				} else {
					problems = append(problems, fmt.Sprintf("worker %s (%s) did no I/O on %s", w.Name, w.Addr, where(t)))
				}
				continue
			}
			if j.TimeBased && j.RuntimeSec > 0 && e.RuntimeMs < int64(j.RuntimeSec)*900 && !j.hasRaw("steadystate") {
				if by >= 0 {
					stop(t.Job, by, e.RuntimeMs)
				} else {
					problems = append(problems, fmt.Sprintf("worker %s (%s) stopped %s after %.1f s of %d s", w.Name, w.Addr, where(t), float64(e.RuntimeMs)/1000, j.RuntimeSec))
				}
			}
		}
		var missing []string
		for _, t := range targets {
			if !reported[t.Section] {
				label := t.DiskLabel()
				if len(wl.Jobs) > 1 {
					label = wl.Jobs[t.Job].Name + " on " + label
				}
				missing = append(missing, label)
			}
		}
		switch {
		case len(got) == 0:
			problems = append(problems, fmt.Sprintf("worker %s (%s) did not report: its fio server died or lost the connection", w.Name, w.Addr))
		case len(missing) > 0:
			problems = append(problems, fmt.Sprintf("worker %s (%s) reported nothing for %s", w.Name, w.Addr, strings.Join(missing, ", ")))
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("the run failed: %s%s", strings.Join(problems, "; "), said)
	}
	var notes []string
	for j := range wl.Jobs {
		if s := stopped[j]; s != nil {
			notes = append(notes, s.note(wl.Jobs[j]))
		}
	}
	return notes, nil
}

// exitallEnders are, under exitall, the workload's jobs that ended on a
// worker (its entries) without error after doing I/O, the first to end
// first (by phase, then by start delay and runtime): when each ended, fio
// stopped the jobs its exit_what names (Workload.ExitallStops), so a job
// stopped with others is not taken for the one whose end stopped them.
func exitallEnders(got []JobStats, sections map[string]Target, wl *Workload) []int {
	if !wl.Exitall() {
		return nil
	}
	phase := make([]int, len(wl.Jobs))
	for p, jobs := range wl.Phases() {
		for _, j := range jobs {
			phase[j] = p
		}
	}
	var enders []int
	end := map[int]int64{} // ms from its phase's start
	for _, e := range got {
		t, ok := sections[e.Name]
		if !ok || e.Error != 0 || e.Read.TotalIOs+e.Write.TotalIOs+e.Trim.TotalIOs == 0 {
			continue
		}
		at := int64(wl.Jobs[t.Job].startDelay())*1000 + e.RuntimeMs
		if ms, seen := end[t.Job]; !seen || at < ms {
			if !seen {
				enders = append(enders, t.Job)
			}
			end[t.Job] = at
		}
	}
	slices.SortStableFunc(enders, func(a, b int) int {
		return cmp.Or(cmp.Compare(phase[a], phase[b]), cmp.Compare(end[a], end[b]))
	})
	return enders
}

// exitallStops counts the fio jobs (a job's sections on the workers) that
// exitall stopped before their runtime: how many stopped before any I/O,
// how many after some, and the shortest time one ran.
type exitallStops struct {
	by          string
	early, noIO int
	shortest    int64
}

// add counts a fio job stopped after ms milliseconds of I/O, or before any
// (ms < 0).
func (s *exitallStops) add(ms int64) {
	if ms < 0 {
		s.noIO++
		return
	}
	if s.early == 0 || ms < s.shortest {
		s.shortest = ms
	}
	s.early++
}

// note says what exitall did to job j.
func (s *exitallStops) note(j Job) string {
	var parts []string
	if s.early > 0 {
		parts = append(parts, fmt.Sprintf("stopped %d of its fio jobs before its %d s runtime (the shortest after %.1f s)", s.early, j.RuntimeSec, float64(s.shortest)/1000))
	}
	if s.noIO > 0 {
		parts = append(parts, fmt.Sprintf("stopped %d of its fio jobs before they did any I/O (they have no rows)", s.noIO))
	}
	return fmt.Sprintf("job %s: exitall: the end of job %s %s: under exitall (set on any job, fio applies it to all) a job's end stops the jobs its exit_what names, as the job file asks", j.Name, s.by, strings.Join(parts, " and "))
}

// unreported returns the workers with no entry in a (possibly partial) output.
func unreported(stdout []byte, workers []Worker, clients map[string]ClientKey) []Worker {
	out, err := ParseOutput(stdout)
	if err != nil {
		return workers
	}
	got := map[ClientKey]bool{}
	for _, e := range out.Entries() {
		got[ClientKey{e.Host, e.Port}] = true
	}
	var late []Worker
	for _, w := range workers {
		if !got[clients[w.Name]] {
			late = append(late, w)
		}
	}
	if len(late) == 0 {
		return workers
	}
	return late
}

// startRelays starts a relay to every worker's server, feeding one live
// rate; depths are the workers' jobs' outstanding I/Os (see liveRate).
func (r *Runner) startRelays(workers []Worker, depths [][]int) (*liveRate, []*relay, error) {
	dial := r.dialTimeout()
	live := &liveRate{latest: make([]eta, len(workers)), depths: depths}
	var relays []*relay
	for i, w := range workers {
		rl, err := startRelay(w.Addr, dial, func(e eta) { live.set(i, e) })
		if err != nil {
			for _, rl := range relays {
				rl.close()
			}
			return nil, nil, err
		}
		relays = append(relays, rl)
	}
	return live, relays, nil
}

// lateError says a run gave no result within limit; fio's client can wait
// forever on a server that died, so it names the late workers whose server
// no longer answers.
func (r *Runner) lateError(ctx context.Context, limit time.Duration, late []Worker) error {
	msg := fmt.Sprintf("no result within %s (the workload's bound plus a margin of %s)", limit.Round(time.Second), r.margin())
	if err := r.dialAll(ctx, late); err != nil {
		return fmt.Errorf("%s: %w", msg, err)
	}
	return fmt.Errorf("%s: %s did not finish", msg, describeWorkers(late))
}

func describeWorkers(ws []Worker) string {
	names := make([]string, len(ws))
	for i, w := range ws {
		names[i] = fmt.Sprintf("%s (%s)", w.Name, w.Addr)
	}
	if len(names) == 1 {
		return "worker " + names[0]
	}
	return "workers " + strings.Join(names, ", ")
}

// errnoText names the errno fio reports as a job's error.
func errnoText(n int) string { return syscall.Errno(n).Error() }

// fioSaid quotes what fio reported going wrong, for error messages: the
// servers' "fio:" lines printed before the JSON and the client's stderr.
func fioSaid(stdout, stderr []byte) string {
	var lines []string
	if i := bytes.IndexByte(stdout, '{'); i >= 0 {
		stdout = stdout[:i]
	}
	for _, l := range strings.Split(string(stdout), "\n") {
		if strings.Contains(l, "fio: ") {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	for _, l := range strings.Split(strings.TrimSpace(string(stderr)), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	if len(lines) > 6 {
		lines = lines[len(lines)-6:]
	}
	return "; fio said: " + strings.Join(lines, " | ")
}
