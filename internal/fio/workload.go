package fio

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Workload is what one run executes on every worker: the jobs of a job
// file, each with [global]'s options merged in. Jobs start together, as in
// fio, except where stonewall or wait_for order them.
type Workload struct {
	Name string
	Jobs []Job
	// Disks is how many data disks a worker must have where the workload
	// was written for that many (a vdbench file's storage definitions,
	// among which its threads and iorate are shared); 0 for any.
	Disks int
}

// NewWorkload returns the workload of one job, named after it.
func NewWorkload(j Job) *Workload { return &Workload{Name: j.Name, Jobs: []Job{j}} }

// Single returns the only job of a one-job workload, nil otherwise.
func (wl *Workload) Single() *Job {
	if len(wl.Jobs) != 1 {
		return nil
	}
	return &wl.Jobs[0]
}

// Clone returns a deep copy.
func (wl *Workload) Clone() *Workload {
	c := &Workload{Name: wl.Name, Jobs: make([]Job, len(wl.Jobs)), Disks: wl.Disks}
	for i, j := range wl.Jobs {
		c.Jobs[i] = j.Clone()
	}
	return c
}

// Clone returns a deep copy of the job.
func (j Job) Clone() Job {
	j.BSSplit = slices.Clone(j.BSSplit)
	j.Percentiles = slices.Clone(j.Percentiles)
	j.Options = slices.Clone(j.Options)
	return j
}

// workloadOf builds a workload from the sections of a job file: [global]
// sections set defaults for the jobs that follow them (fio's rule: a
// [global] after a job does not reach back), every other section is a job.
func workloadOf(name string, secs []section) (*Workload, error) {
	wl := &Workload{Name: name}
	var global []Option
	var globalAt []Pos
	var waitAt []Pos // where each job's wait_for was set
	for _, s := range secs {
		if isGlobal(s.name) {
			global = append(global, s.opts...)
			globalAt = append(globalAt, s.at...)
			continue
		}
		opts := slices.Concat(global, s.opts)
		at := slices.Concat(globalAt, s.at)
		jobName := s.name
		// name= renames the job, as fio reports it.
		for i := len(opts) - 1; i >= 0; i-- {
			if opts[i].Key == "name" {
				jobName = opts[i].Value
				opts, at = slices.Delete(opts, i, i+1), slices.Delete(at, i, i+1)
				break
			}
		}
		opts, at = dropOtherEngines(opts, at)
		for i, o := range opts {
			if err := refused(o); err != nil {
				return nil, &PosError{Pos: at[i], Err: fmt.Errorf("[%s] %w", s.name, err)}
			}
		}
		if jobName == "" || strings.ContainsAny(jobName, "[]\n") {
			return nil, errAt(s.pos, "job name %q: want a name without brackets", jobName)
		}
		wl.Jobs = append(wl.Jobs, JobFromOptions(jobName, opts))
		var w Pos
		for i, o := range opts {
			if Canonical(o.Key) == "wait_for" {
				w = at[i]
			}
		}
		waitAt = append(waitAt, w)
	}
	if len(wl.Jobs) == 0 {
		return nil, fmt.Errorf("the job file has no job section; want at least one [name] section besides [global]")
	}
	for i, j := range wl.Jobs {
		if w, ok := j.raw("wait_for"); ok && !slices.ContainsFunc(wl.Jobs, func(o Job) bool { return o.Name == w }) {
			return nil, errAt(waitAt[i], "[%s] wait_for=%s: no job is called %s; name one of %s", j.Name, w, w, strings.Join(wl.JobNames(), ", "))
		}
	}
	return wl, nil
}

// dropOtherEngines drops the options of another I/O engine set before the
// job's last ioengine (as a [global] for one engine and a job for another
// give): fio parsed them for the engine they followed and the job's own
// engine never sees them, while rendered after it they would be refused.
func dropOtherEngines(opts []Option, at []Pos) ([]Option, []Pos) {
	last := -1
	for i, o := range opts {
		if o.Key == "ioengine" {
			last = i
		}
	}
	if last < 0 {
		return opts, at
	}
	engine := opts[last].Value
	var keep []Option
	var keepAt []Pos
	for i, o := range opts {
		spec := knownOptions[Canonical(o.Key)]
		if i < last && len(spec.engines) > 0 && !slices.Contains(spec.engines, engine) {
			continue
		}
		keep, keepAt = append(keep, o), append(keepAt, at[i])
	}
	return keep, keepAt
}

// isGlobal says whether fio takes a section for [global]: any name that
// starts with "global".
func isGlobal(name string) bool { return strings.HasPrefix(name, "global") }

// refused says why starbench cannot honour an option, nil when it can.
func refused(o Option) error {
	if err := unparsable(o); err != nil {
		return err
	}
	off := o.Value == "0" || strings.EqualFold(o.Value, "none")
	if Canonical(o.Key) == "unified_rw_reporting" {
		if !off {
			return fmt.Errorf("%s=%s: starbench reports read, write and trim apart and adds a total row itself; leave unified_rw_reporting out", o.Key, o.Value)
		}
	}
	return nil
}

// noPercentiles says whether the job turns off the completion-latency
// percentiles (and with them json+'s histograms): its rows have none.
func (j *Job) noPercentiles() bool {
	if v, ok := j.raw("clat_percentiles"); ok && v == "0" {
		return true
	}
	for _, k := range []string{"gtod_reduce", "disable_clat", "disable_lat"} {
		if v, ok := j.raw(k); ok && v != "0" {
			return true
		}
	}
	return false
}

// continuesOnError says whether fio goes on after I/O errors in the job.
func (j *Job) continuesOnError() bool {
	v, ok := j.raw("continue_on_error")
	return ok && v != "none" && v != "0"
}

// JobNames lists the jobs' names in order.
func (wl *Workload) JobNames() []string {
	out := make([]string, len(wl.Jobs))
	for i, j := range wl.Jobs {
		out[i] = j.Name
	}
	return out
}

// CheckOptions says which of the job's own options fio would fail, or
// starbench cannot honour: a word for a number, a value out of fio's
// range, unified_rw_reporting.
func (j *Job) CheckOptions() error {
	for _, o := range j.Options {
		if err := refused(o); err != nil {
			return err
		}
	}
	return nil
}

// Validate says what makes the workload unrunnable.
func (wl *Workload) Validate() error {
	if len(wl.Jobs) == 0 {
		return fmt.Errorf("a workload needs at least one job")
	}
	for _, j := range wl.Jobs {
		if err := j.CheckOptions(); err != nil {
			return fmt.Errorf("job %q: %w", j.Name, err)
		}
		if w, ok := j.raw("wait_for"); ok && !slices.Contains(wl.JobNames(), w) {
			return fmt.Errorf("job %q waits for %q, which is none of the jobs %s", j.Name, w, strings.Join(wl.JobNames(), ", "))
		}
	}
	return nil
}

// Phases groups the jobs by when they start: a job with stonewall starts a
// new phase after every job before it has finished, and a job that waits
// for another (wait_for) runs in the phase after that job's. Jobs of one
// phase run at the same time.
func (wl *Workload) Phases() [][]int {
	phase := make([]int, len(wl.Jobs))
	cur := 0
	for i, j := range wl.Jobs {
		if i > 0 && j.flag("stonewall") {
			cur = 0
			for k := range i {
				cur = max(cur, phase[k]+1)
			}
		}
		phase[i] = cur
		if w, ok := j.raw("wait_for"); ok {
			for k := range i {
				if wl.Jobs[k].Name == w {
					phase[i] = max(phase[i], phase[k]+1)
				}
			}
		}
	}
	n := slices.Max(phase) + 1
	out := make([][]int, n)
	for i, p := range phase {
		out[p] = append(out[p], i)
	}
	return slices.DeleteFunc(out, func(p []int) bool { return len(p) == 0 })
}

// Exitall says whether the workload runs under exitall: fio keeps the
// option for the whole process, whichever job sets it (fio 3.33's
// exitall_on_terminate), so every job's end then stops others.
func (wl *Workload) Exitall() bool {
	return slices.ContainsFunc(wl.Jobs, func(j Job) bool { return j.flag("exitall") })
}

// ExitallStops says whether job ender's end, under exitall, stops job j
// (fio 3.33): the ender's own exit_what=group (the default) stops the jobs
// of its reporting group (new_group or stonewall starts one), stonewall
// those of its phase, all every job, later phases too. Measured: with a
// 1 s and a 3 s job each in a group of its own, exitall stops nothing by
// default, and the 3 s job at 1 s with exit_what=stonewall on the 1 s job
// (not on the 3 s one); a stonewalled job after them still runs with
// exit_what=stonewall and never with all.
func (wl *Workload) ExitallStops(ender, j int) bool {
	if ender == j || !wl.Exitall() {
		return false
	}
	switch what, _ := wl.Jobs[ender].raw("exit_what"); what {
	case "all":
		return true
	case "stonewall":
		for _, p := range wl.Phases() {
			if slices.Contains(p, ender) {
				return slices.Contains(p, j)
			}
		}
		return false
	default:
		return wl.reportingGroup(ender) == wl.reportingGroup(j)
	}
}

// reportingGroup is fio's reporting group of job i: each job with
// new_group or stonewall after the first starts the next.
func (wl *Workload) reportingGroup(i int) int {
	g := 0
	for k := 1; k <= i; k++ {
		if wl.Jobs[k].flag("new_group") || wl.Jobs[k].flag("stonewall") {
			g++
		}
	}
	return g
}

// Seconds is how long the workload runs by its jobs' runtimes: the longest
// job (start delay, ramp and runtime) of each phase, summed; 0 when a job
// has no runtime (it runs until it has moved its size).
func (wl *Workload) Seconds() int {
	total := 0
	for _, p := range wl.Phases() {
		longest := 0
		for _, i := range p {
			j := wl.Jobs[i]
			if j.RuntimeSec == 0 {
				return 0
			}
			longest = max(longest, j.startDelay()+j.RuntimeSec+j.RampSec)
		}
		total += longest
	}
	return total
}

// startDelay is the longest a job waits before it starts, in whole seconds
// rounded up: fio's startdelay (seconds, or with a unit: 500ms, 2m; see
// ParseTime), the
// upper end of a range (fio draws each clone's delay from it); 0 when not
// given or not a time (fio refuses those itself).
func (j *Job) startDelay() int {
	v, ok := j.raw("startdelay")
	if !ok {
		return 0
	}
	if _, hi, ranged := strings.Cut(v, "-"); ranged {
		v = hi
	}
	n, err := ParseTime(v, 1)
	if err != nil {
		return 0
	}
	return int(math.Ceil(n))
}

// flag says whether a raw flag option is on, as fio reads it (FlagOn).
func (j *Job) flag(key string) bool {
	v, ok := j.raw(key)
	return ok && FlagOn(v)
}

// raw returns the job's last raw setting of key (any of fio's names for it).
func (j *Job) raw(key string) (string, bool) {
	for i := len(j.Options) - 1; i >= 0; i-- {
		if Canonical(j.Options[i].Key) == Canonical(key) {
			return j.Options[i].Value, true
		}
	}
	return "", false
}

// Raw returns the job's last setting of a fio option it keeps untyped.
func (j *Job) Raw(key string) (string, bool) { return j.raw(key) }

// Directions are the data directions fio reports, in its order.
var Directions = [3]string{"read", "write", "trim"}

// TotalDirection names the combined row of a job that moved data in more
// than one direction.
const TotalDirection = "total"

// diskOptions name the files a job uses; on a worker its data disks take
// their place (see Targets).
var diskOptions = []string{"filename", "directory", "filename_format", "opendir", "nrfiles", "unique_filename"}

// notDiskEngines are I/O engines whose filename is no file: a host and
// port (net, rdma), an object URL (http), a pool (rados), a CPU burner.
// Their jobs keep their filename and run once per worker.
var notDiskEngines = []string{"net", "netsplice", "rdma", "http", "rados", "rbd", "nbd", "libiscsi", "dfs", "nfs",
	"gfapi", "gfapi_async", "cpuio", "exec", "libhdfs", "librpma_apm_client", "librpma_apm_server",
	"librpma_gpspm_client", "librpma_gpspm_server"}

// noIOEngines do no I/O at all; their jobs are not failed for it.
var noIOEngines = []string{"cpuio", "exec"}

// onDisks says whether the job's I/O goes to files, so to a worker's disks.
func (j *Job) onDisks() bool { return !slices.Contains(notDiskEngines, j.IOEngine) }

// namedFiles returns the files a job names: its filename list (fio's ':'
// separates names, '\:' is a colon in one) or its directory.
func (j *Job) namedFiles() []string {
	if f, ok := j.raw("filename"); ok {
		return splitFilenames(f)
	}
	if d, ok := j.raw("directory"); ok {
		return []string{d}
	}
	return nil
}

func splitFilenames(s string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == ':':
			cur.WriteByte(':')
			i++
		case s[i] == ':':
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(s[i])
		}
	}
	return append(out, cur.String())
}

// Files lists the distinct files the workload's jobs name, in order of
// first appearance: the n-th is the n-th data disk of every worker.
func (wl *Workload) Files() []string {
	var out []string
	for _, j := range wl.Jobs {
		if !j.onDisks() {
			continue
		}
		for _, f := range j.namedFiles() {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// Target is one fio section a worker runs: a job on one of the worker's
// data disks, on several (a job naming several files), or on none (an
// engine whose filename is no file).
type Target struct {
	Job      int    // index in Workload.Jobs
	Disks    []Disk // nil when the job reads no disk
	Filename string // the section's filename option ("" when none)
	// Section is the fio job name of the section, unique in the worker's
	// file: the job's name, with "@disk2" when the job has several
	// sections (fio lets wait_for name one job only).
	Section string
}

// DiskLabel names the target's disks in result rows: "disk1",
// "disk1+disk2", or "-" for a job that uses no disk.
func (t Target) DiskLabel() string {
	if len(t.Disks) == 0 {
		return "-"
	}
	names := make([]string, len(t.Disks))
	for i, d := range t.Disks {
		names[i] = d.Name
	}
	return strings.Join(names, "+")
}

// Targets maps the workload onto a worker's data disks. A job that names
// no file runs on every data disk, one fio section each (HCIBench's
// layout). Files a job names stand for data disks: the n-th distinct file
// of the workload (Files) is the worker's n-th disk, so [sdb]
// filename=/dev/sdb ... [sdc] filename=/dev/sdc run on disks 1 and 2, and
// jobs naming the same file share a disk. A job naming several files
// (a:b) spreads over those disks in one section, as fio does. A workload
// written for a number of disks (Disks) refuses a worker with another.
func (wl *Workload) Targets(w Worker) ([]Target, error) {
	if wl.Disks > 0 && len(w.Disks) != wl.Disks {
		return nil, fmt.Errorf("workload %s was written for %d data disks per worker (their share of its outstanding I/Os and rate is per disk), but worker %s has %d; deploy the workers with disks=%d",
			wl.Name, wl.Disks, w.Name, len(w.Disks), wl.Disks)
	}
	files := wl.Files()
	if len(files) > len(w.Disks) {
		return nil, fmt.Errorf("the workload names %d files (%s) but worker %s has %d data disks; give each worker at least %d disks, or leave filename out to run every job on every disk",
			len(files), strings.Join(files, ", "), w.Name, len(w.Disks), len(files))
	}
	var out []Target
	for i, j := range wl.Jobs {
		if !j.onDisks() {
			f, _ := j.raw("filename")
			out = append(out, Target{Job: i, Filename: f})
			continue
		}
		named := j.namedFiles()
		if len(named) == 0 {
			for _, d := range w.Disks {
				out = append(out, Target{Job: i, Disks: []Disk{d}, Filename: escapeFilename(d.Path)})
			}
			continue
		}
		t := Target{Job: i}
		var paths []string
		for _, f := range named {
			d := w.Disks[slices.Index(files, f)]
			if !slices.ContainsFunc(t.Disks, func(x Disk) bool { return x.Name == d.Name }) {
				t.Disks = append(t.Disks, d)
				paths = append(paths, escapeFilename(d.Path))
			}
		}
		t.Filename = strings.Join(paths, ":")
		out = append(out, t)
	}
	nameSections(wl, out)
	return out, nil
}

// nameSections gives every target its fio job name: the job's name, with
// the disk appended when the job has several sections, made unique.
func nameSections(wl *Workload, targets []Target) {
	count := map[int]int{}
	for _, t := range targets {
		count[t.Job]++
	}
	taken := map[string]bool{}
	for i := range targets {
		t := &targets[i]
		name := wl.Jobs[t.Job].Name
		if count[t.Job] > 1 {
			name += "@" + t.DiskLabel()
		}
		// fio ends a line at ';' or '#', and a section name at ']'.
		name = strings.Map(func(r rune) rune {
			if strings.ContainsRune("[];#\n", r) {
				return '_'
			}
			return r
		}, name)
		for n, base := 2, name; taken[name]; n++ {
			name = fmt.Sprintf("%s~%d", base, n)
		}
		taken[name] = true
		t.Section = name
	}
}

// waitee returns the section a target's wait_for names: the waited-for
// job's section on the same disks, or its only section.
func waitee(wl *Workload, targets []Target, t Target, job string) (string, error) {
	var of []Target
	for _, o := range targets {
		if wl.Jobs[o.Job].Name == job {
			of = append(of, o)
		}
	}
	for _, o := range of {
		if o.DiskLabel() == t.DiskLabel() {
			return o.Section, nil
		}
	}
	if len(of) == 1 {
		return of[0].Section, nil
	}
	return "", fmt.Errorf("job %q waits for %q, which runs on %d disks but not on %s; fio waits for one job only, so let both run on the same disks (or name one file in %s)",
		wl.Jobs[t.Job].Name, job, len(of), t.DiskLabel(), job)
}

// escapeFilename escapes the colons fio would read as a list of files.
func escapeFilename(p string) string { return strings.ReplaceAll(p, ":", `\:`) }

// WorkerFile writes the job file one worker runs and says what each of its
// sections is. Every section is a whole job ([global]'s options merged
// in) named as Target.Section says. Only a job's first section keeps
// stonewall and new_group, or its disks would run one after another; a
// wait_for waits for the named job's section on the same disks (each disk
// runs its own copy of the file's jobs). group_reporting is left out:
// starbench reports every disk and merges them itself. A disk target
// without a size gets its disks' size, so files are laid out whole.
func (wl *Workload) WorkerFile(w Worker) (string, []Target, error) {
	return wl.workerFile(w, nil, nil)
}

// workerFile is WorkerFile with the options extra gives each section added
// last and the job's own settings of them and of drop left out.
func (wl *Workload) workerFile(w Worker, extra func(section int, t Target) []Option, drop []string) (string, []Target, error) {
	if len(w.Disks) == 0 {
		return "", nil, fmt.Errorf("worker %s has no data disks: give it at least one", w.Name)
	}
	targets, err := wl.Targets(w)
	if err != nil {
		return "", nil, err
	}
	var b strings.Builder
	seen := map[int]bool{}
	for i, t := range targets {
		j := wl.Jobs[t.Job]
		var more []Option
		if extra != nil {
			more = extra(i, t)
		}
		drop := append([]string{"group_reporting"}, drop...)
		for _, o := range more {
			drop = append(drop, o.Key)
		}
		if j.onDisks() {
			drop = append(drop, diskOptions...)
		}
		if seen[t.Job] {
			drop = append(drop, "stonewall", "new_group")
		}
		seen[t.Job] = true
		opts := slices.DeleteFunc(j.Render(), func(o Option) bool { return slices.Contains(drop, Canonical(o.Key)) })
		for i, o := range opts {
			if Canonical(o.Key) == "wait_for" {
				name, err := waitee(wl, targets, t, o.Value)
				if err != nil {
					return "", nil, err
				}
				opts[i].Value = name
			}
		}
		if j.onDisks() {
			opts = append(opts, Option{Key: "filename", Value: t.Filename})
			if j.Size == 0 && !j.hasRaw("size") && !j.hasRaw("io_size") && !j.hasRaw("filesize") {
				if sz := sectionSize(t.Disks); sz > 0 {
					opts = append(opts, Option{Key: "size", Value: strconv.FormatInt(sz, 10)})
				}
			}
		}
		writeSection(&b, t.Section, append(opts, more...))
	}
	return b.String(), targets, nil
}

// sectionSize is the size of a section over disks: the smallest disk's
// size for each (fio splits a job's size evenly over its files).
func sectionSize(disks []Disk) int64 {
	var least int64
	for i, d := range disks {
		if i == 0 || d.SizeBytes < least {
			least = d.SizeBytes
		}
	}
	return least * int64(len(disks))
}

// Text renders the workload as one fio job file, every job whole.
func (wl *Workload) Text() string {
	var b strings.Builder
	for _, j := range wl.Jobs {
		writeSection(&b, j.Name, j.Render())
	}
	return b.String()
}

func writeSection(b *strings.Builder, name string, opts []Option) {
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	fmt.Fprintf(b, "[%s]\n", name)
	for _, o := range opts {
		b.WriteString(o.Key)
		if o.Value != "" {
			b.WriteByte('=')
			b.WriteString(o.Value)
		}
		b.WriteByte('\n')
	}
}

// rwDirections says which directions a job's rw moves data in.
func (j *Job) rwDirections() []string {
	rw, _, _ := strings.Cut(j.RW, ":")
	switch rw {
	case "", "read", "randread":
		return []string{"read"}
	case "write", "randwrite":
		return []string{"write"}
	case "trim", "randtrim":
		return []string{"trim"}
	case "trimwrite", "randtrimwrite":
		return []string{"write", "trim"}
	}
	return []string{"read", "write"}
}
