package builtins

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-gota/gota/dataframe"
	"go.starlark.net/starlark"

	"starbench/internal/fio"
	"starbench/internal/runtime"
	"starbench/internal/table"
)

// NewFioModule returns the `fio` module: fio workloads across workers.
func NewFioModule(deps Deps) *runtime.Module {
	m := fioModule{deps}
	return &runtime.Module{
		Name: "fio",
		Doc:  "fio workloads across workers",
		Members: []runtime.Member{
			{Name: "job", Params: "(name=\"job\", rw=, bs=, bssplit=, rwmixread=, iodepth=, numjobs=, runtime=, ramp_time=, time_based=, size=, direct=, ioengine=, buffer_compress_percentage=, dedupe_percentage=, rate_iops=, rate=, percentiles=, options=)",
				Doc: "a fio workload (fio.job): sizes as 4096 or \"4k\" (size also as a share of each disk, \"10%\"), times as seconds or \"2m\", direct and time_based as True or 1; options holds any other fio option (True sets it on: alone where fio takes it so, `=1` for a yes-or-no option it does not; False leaves it out)", Fn: fioJob},
			{Name: "jobfile", Params: "(path, vars=None)",
				Doc: "the workload of a .fio file (relative to the script): every job section, run at once on every worker (stonewall and wait_for order them); vars expand ${NAME} before the environment", Fn: fioJobfile},
			{Name: "workload", Params: "(jobs, name=None)",
				Doc: "a workload of several fio.job values run at once on every worker, each with its own results (the job column)", Fn: fioWorkload},
			{Name: "local_workers", Params: "(n, dir=None, size=\"64m\", disks=1)",
				Doc: "n fio servers on loopback, each with its own data files, stopped when the script ends", Fn: fioLocalWorkers},
			{Name: "prepare", Params: "(workers, method=\"random\", bs=\"256k\", compress=0, age=False)",
				Doc: "fill every data disk once (random, zero or none), optionally age it with mixed-size random writes", Fn: m.prepare},
			{Name: "samples", Params: "(result)",
				Doc: "the run over time of a fio.run result: t_s (seconds into the measurement, the interval's end: intervals of the runner's length but the last, which ends with the run), job, direction, iops, mbps, lat_mean_us, p99_us, per repeat", Fn: fioSamples},
			{Name: "run", Params: "(workers, job, repeat=1)",
				Doc: "run a fio.job or fio.workload on every data disk of the workers at once: a frame of per-job, per-disk rows and aggregate rows (worker \"all\"; job \"all\" over all jobs; direction \"total\" combines read and write where a job did both; a one-way job has its read or write row alone)", Fn: m.run},
		},
	}
}

type fioModule struct{ deps Deps }

// JobValue is the Starlark handle of a fio workload. It is immutable.
type JobValue struct{ job fio.Job }

var (
	_ starlark.HasAttrs = (*JobValue)(nil)
	_ starlark.Value    = (*JobValue)(nil)
)

// NewJobValue returns the handle of j.
func NewJobValue(j fio.Job) *JobValue { return &JobValue{job: j} }

// Job returns a copy of the workload.
func (j *JobValue) Job() *fio.Job {
	c := j.job
	c.BSSplit = slices.Clone(c.BSSplit)
	c.Percentiles = slices.Clone(c.Percentiles)
	c.Options = slices.Clone(c.Options)
	return &c
}

func (j *JobValue) String() string {
	var parts []string
	for _, o := range j.job.Render() {
		if o.Value == "" {
			parts = append(parts, o.Key)
		} else {
			parts = append(parts, o.Key+"="+o.Value)
		}
	}
	return fmt.Sprintf("fio.job(%q: %s)", j.job.Name, strings.Join(parts, " "))
}
func (j *JobValue) Type() string          { return "fio.job" }
func (j *JobValue) Freeze()               {}
func (j *JobValue) Truth() starlark.Bool  { return starlark.True }
func (j *JobValue) Hash() (uint32, error) { return starlark.String(j.String()).Hash() }

var jobAttrs = []string{"bs", "bssplit", "buffer_compress_percentage", "dedupe_percentage", "direct", "iodepth",
	"ioengine", "name", "numjobs", "options", "percentiles", "ramp_time", "rate", "rate_iops", "replace", "runtime",
	"rw", "rwmixread", "size", "text", "time_based"}

func (j *JobValue) AttrNames() []string { return jobAttrs }

func (j *JobValue) Attr(name string) (starlark.Value, error) {
	job := j.job
	switch name {
	case "name":
		return starlark.String(job.Name), nil
	case "rw":
		return starlark.String(job.RW), nil
	case "bs":
		return starlark.MakeInt64(job.BlockSize), nil
	case "bssplit":
		out := starlark.NewDict(len(job.BSSplit))
		for _, s := range job.BSSplit {
			_ = out.SetKey(starlark.MakeInt64(s.Size), starlark.MakeInt(s.Percent))
		}
		out.Freeze()
		return out, nil
	case "rwmixread":
		return starlark.MakeInt(job.RWMixRead), nil
	case "iodepth":
		return starlark.MakeInt(job.IODepth), nil
	case "numjobs":
		return starlark.MakeInt(job.NumJobs), nil
	case "runtime":
		return starlark.MakeInt(job.RuntimeSec), nil
	case "ramp_time":
		return starlark.MakeInt(job.RampSec), nil
	case "time_based":
		return starlark.Bool(job.TimeBased), nil
	case "size":
		return starlark.MakeInt64(job.Size), nil
	case "direct":
		return starlark.Bool(job.Direct), nil
	case "ioengine":
		return starlark.String(job.IOEngine), nil
	case "buffer_compress_percentage":
		return starlark.MakeInt(job.BufferCompressPercentage), nil
	case "dedupe_percentage":
		return starlark.MakeInt(job.DedupePercentage), nil
	case "rate_iops":
		return starlark.MakeInt(job.RateIOPS), nil
	case "rate":
		return starlark.MakeInt64(job.RateBytes), nil
	case "percentiles":
		out := make([]starlark.Value, len(job.Percentiles))
		for i, p := range job.Percentiles {
			out[i] = starlark.Float(p)
		}
		l := starlark.NewList(out)
		l.Freeze()
		return l, nil
	case "options":
		out := make([]starlark.Value, len(job.Options))
		for i, o := range job.Options {
			out[i] = starlark.Tuple{starlark.String(o.Key), starlark.String(o.Value)}
		}
		l := starlark.NewList(out)
		l.Freeze()
		return l, nil
	case "text":
		return starlark.String(fio.NewWorkload(job).Text()), nil
	case "replace":
		return starlark.NewBuiltin("fio.job.replace", func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args) > 0 {
				return nil, fmt.Errorf("replace takes only keyword arguments, like job.replace(bs=\"64k\")")
			}
			return buildJob(j.Job(), b.Name(), kwargs)
		}), nil
	}
	return nil, nil
}

// rwModes are the values of fio's rw option.
var rwModes = []string{"read", "write", "randread", "randwrite", "rw", "readwrite", "randrw", "trim", "randtrim", "trimwrite", "randtrimwrite"}

func fioJob(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) > 0 {
		return nil, fmt.Errorf("fio.job takes only keyword arguments, like fio.job(rw=\"randread\", bs=\"4k\")")
	}
	return buildJob(&fio.Job{Name: "job"}, b.Name(), kwargs)
}

// buildJob sets kwargs on a copy of base and validates the result.
func buildJob(base *fio.Job, fn string, kwargs []starlark.Tuple) (starlark.Value, error) {
	j := *base
	// A raw setting of an option (size=100% from a job file) renders after
	// the typed fields and would override the value given here.
	for _, kv := range kwargs {
		j.DropRaw(rawKeys[string(kv[0].(starlark.String))]...)
	}
	bs, size, rate := fioSize{j.BlockSize}, jobSize{fioSize: fioSize{j.Size}}, fioSize{j.RateBytes}
	runtimeArg, ramp := fioSeconds{j.RuntimeSec}, fioSeconds{j.RampSec}
	bssplit, percentiles, options := fioBSSplit(j.BSSplit), fioPercentiles(j.Percentiles), fioOptions(j.Options)
	var timeBased starlark.Value = starlark.None
	direct := fioFlag{j.Direct}
	if err := starlark.UnpackArgs(fn, nil, kwargs,
		"name?", &j.Name, "rw?", &j.RW, "bs?", &bs, "bssplit?", &bssplit, "rwmixread?", &j.RWMixRead,
		"iodepth?", &j.IODepth, "numjobs?", &j.NumJobs, "runtime?", &runtimeArg, "ramp_time?", &ramp,
		"time_based?", &timeBased, "size?", &size, "direct?", &direct, "ioengine?", &j.IOEngine,
		"buffer_compress_percentage?", &j.BufferCompressPercentage, "dedupe_percentage?", &j.DedupePercentage,
		"rate_iops?", &j.RateIOPS, "rate?", &rate, "percentiles?", &percentiles, "options?", &options); err != nil {
		return nil, err
	}
	j.BlockSize, j.Size, j.RateBytes, j.Direct = bs.n, size.n, rate.n, direct.on
	j.RuntimeSec, j.RampSec = runtimeArg.sec, ramp.sec
	j.BSSplit, j.Percentiles, j.Options = bssplit, percentiles, options
	if size.share != "" { // a share of each disk has no typed form: fio reads it raw
		j.Options = append(slices.Clone(j.Options), fio.Option{Key: "size", Value: size.share})
	}
	// rwmixread=0 (no reads) has no typed form: left out, fio would run its
	// default 50/50, so it goes to fio as a raw option.
	if hasKwarg(kwargs, "rwmixread") && j.RWMixRead == 0 {
		j.Options = append(slices.Clone(j.Options), fio.Option{Key: "rwmixread", Value: "0"})
	}
	// bs and bssplit replace each other, as in a job file.
	if hasKwarg(kwargs, "bssplit") && !hasKwarg(kwargs, "bs") {
		j.BlockSize = 0
	}
	if hasKwarg(kwargs, "bs") && !hasKwarg(kwargs, "bssplit") {
		j.BSSplit = nil
	}
	if timeBased == starlark.None {
		// A job with a runtime runs for it unless told otherwise.
		if !hasKwarg(kwargs, "time_based") && hasKwarg(kwargs, "runtime") {
			j.TimeBased = j.RuntimeSec > 0
		}
	} else {
		var tb fioFlag
		if err := tb.Unpack(timeBased); err != nil {
			return nil, fmt.Errorf("%s: for parameter \"time_based\": %v", fn, err)
		}
		j.TimeBased = tb.on
	}
	for _, p := range []struct {
		name string
		v    int
	}{{"iodepth", j.IODepth}, {"numjobs", j.NumJobs}} {
		if hasKwarg(kwargs, p.name) && p.v == 0 { // 0 is the typed form's "not set"
			return nil, fmt.Errorf("%s=0: fio's least is 1", p.name)
		}
	}
	if err := validateJob(&j); err != nil {
		return nil, err
	}
	return NewJobValue(j), nil
}

// rawKeys are the fio options a fio.job argument sets; bs and bssplit
// replace each other, as do rwmixread and rwmixwrite.
var rawKeys = map[string][]string{
	"rw": {"rw"}, "bs": {"bs", "bssplit"}, "bssplit": {"bs", "bssplit"}, "rwmixread": {"rwmixread", "rwmixwrite"},
	"iodepth": {"iodepth"}, "numjobs": {"numjobs"}, "runtime": {"runtime"}, "ramp_time": {"ramp_time"},
	"time_based": {"time_based"}, "size": {"size"}, "direct": {"direct"}, "ioengine": {"ioengine"},
	"buffer_compress_percentage": {"buffer_compress_percentage"}, "dedupe_percentage": {"dedupe_percentage"},
	"rate_iops": {"rate_iops"}, "rate": {"rate"}, "percentiles": {"percentile_list"},
}

func hasKwarg(kwargs []starlark.Tuple, name string) bool {
	return slices.ContainsFunc(kwargs, func(kv starlark.Tuple) bool { return string(kv[0].(starlark.String)) == name })
}

func validateJob(j *fio.Job) error {
	if j.Name == "" || strings.ContainsAny(j.Name, "[]\n;#") {
		return fmt.Errorf("job name %q: want a non-empty name without brackets, newlines, ';' or '#' (fio reads those as comments)", j.Name)
	}
	if j.RW != "" && !slices.Contains(rwModes, strings.SplitN(j.RW, ":", 2)[0]) {
		return fmt.Errorf("rw=%q: want one of %s", j.RW, strings.Join(rwModes, ", "))
	}
	if j.BlockSize > 0 && len(j.BSSplit) > 0 {
		return fmt.Errorf("give bs or bssplit, not both")
	}
	for _, p := range []struct {
		name string
		v    int
	}{{"rwmixread", j.RWMixRead}, {"buffer_compress_percentage", j.BufferCompressPercentage}, {"dedupe_percentage", j.DedupePercentage}} {
		if p.v < 0 || p.v > 100 {
			return fmt.Errorf("%s=%d: want a percentage from 0 to 100", p.name, p.v)
		}
	}
	for _, p := range []struct {
		name string
		v    int
	}{{"iodepth", j.IODepth}, {"numjobs", j.NumJobs}, {"rate_iops", j.RateIOPS}} {
		if p.v < 0 {
			return fmt.Errorf("%s=%d: want a positive number (or leave it out for fio's default)", p.name, p.v)
		}
	}
	if j.TimeBased && j.RuntimeSec == 0 {
		return fmt.Errorf("time_based needs a runtime, like runtime=\"60s\"")
	}
	return j.CheckOptions()
}

// scriptRelative resolves path against the directory of the session's
// main script (the working directory in the REPL).
func scriptRelative(thread *starlark.Thread, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	if s, err := runtime.SessionFrom(thread); err == nil && s.Script != "" && !strings.HasPrefix(s.Script, "<") {
		return filepath.Join(filepath.Dir(s.Script), path)
	}
	return path
}

func fioLocalWorkers(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var n, disks = 0, 1
	var dir starlark.Value = starlark.None
	size := fioSize{64 << 20}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "n", &n, "dir?", &dir, "size?", &size, "disks?", &disks); err != nil {
		return nil, err
	}
	s, err := runtime.SessionFrom(thread)
	if err != nil {
		return nil, err
	}
	spec := fio.LocalSpec{N: n, SizeBytes: size.n, Disks: disks}
	switch d := dir.(type) {
	case starlark.NoneType:
	case starlark.String:
		spec.Dir = scriptRelative(thread, string(d))
	default:
		return nil, fmt.Errorf("dir is a %s; want a directory path or None for a temporary one", dir.Type())
	}
	// The servers live as long as the session: in the REPL, beyond the
	// statement that started them.
	l, err := fio.StartLocal(s.Lifetime(), spec)
	if err != nil {
		return nil, err
	}
	s.OnClose(l.Close)
	out := make([]starlark.Value, len(l.Workers))
	for i, w := range l.Workers {
		out[i] = NewWorker(w, "")
	}
	return starlark.NewList(out), nil
}

var runnerKey = runtime.NewKey[*fio.Runner]("fio.runner")

// plane picks the data plane of the workers: real fio when none is
// simulated, the target's model when all are, and refuses a mix. It says
// whether the results will be simulated.
func (m fioModule) plane(thread *starlark.Thread, workers []fio.Worker) (fio.DataPlane, bool, error) {
	sim := 0
	for _, w := range workers {
		if w.Simulated {
			sim++
		}
	}
	switch sim {
	case 0:
		s, err := runtime.SessionFrom(thread)
		if err != nil {
			return nil, false, err
		}
		// A measured target a builtin opened (vcenter, or local, whose plane
		// binds VMs to loopback servers) runs its own workers; otherwise the
		// session's runner does, without opening a target.
		if t := openedTarget(s); t != nil && !t.Simulated && t.DataPlane != nil {
			return t.DataPlane, false, nil
		}
		r, err := runtime.Load(s, runnerKey, func() (*fio.Runner, error) { return &fio.Runner{}, nil })
		return r, false, err
	case len(workers):
		t, err := m.deps.target(thread)
		if err != nil {
			return nil, true, err
		}
		if t.DataPlane == nil {
			return nil, true, fmt.Errorf("the simulated data plane is not available on this target, so simulated workers cannot run workloads; use local workers (fio.local_workers) for measured results")
		}
		return t.DataPlane, true, nil
	}
	return nil, false, fmt.Errorf("%d of the %d workers are simulated and the rest run fio; simulated and measured results never mix, so run them separately", sim, len(workers))
}

// current reads simulated worker VMs back from the control plane: a handle
// is a snapshot, and policy.apply may have changed the disks' policies since,
// which the model must see.
func (m fioModule) current(thread *starlark.Thread, workers workersArg) ([]fio.Worker, error) {
	t, err := m.deps.target(thread)
	if err != nil {
		return nil, err
	}
	if t.VSphere == nil {
		return workers.fioWorkers(), nil
	}
	ids := make([]string, len(workers))
	for i, w := range workers {
		ids[i] = w.VM
	}
	vms, err := t.VSphere.WorkersByVM(runtime.Context(thread), ids)
	if err != nil {
		return nil, err
	}
	if len(vms) != len(ids) {
		return nil, fmt.Errorf("%d of the %d worker VMs are gone; deploy the workers again", len(ids)-len(vms), len(ids))
	}
	out := make([]fio.Worker, len(vms))
	for i, vm := range vms {
		out[i] = fioWorker(vm, true)
	}
	return out, nil
}

func (m fioModule) prepare(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var workers workersArg
	method := "random"
	bs := fioSize{256 << 10}
	compress := 0
	age := false
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "workers", &workers, "method?", &method, "bs?", &bs, "compress?", &compress, "age?", &age); err != nil {
		return nil, err
	}
	ws := workers.fioWorkers()
	plane, simulated, err := m.plane(thread, ws)
	if err != nil {
		return nil, err
	}
	if simulated {
		if ws, err = m.current(thread, workers); err != nil {
			return nil, err
		}
	}
	prep := fio.Prep{Method: method, BlockSize: bs.n, CompressPercentage: compress, Age: age}
	if err := plane.Prepare(runtime.Context(thread), ws, prep, func(st fio.Status) { campaignRunStatus(thread, st) }); err != nil {
		return nil, err
	}
	return starlark.None, nil
}

func (m fioModule) run(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var workers workersArg
	var job workloadArg
	repeat := 1
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "workers", &workers, "job", &job, "repeat?", &repeat); err != nil {
		return nil, err
	}
	if repeat < 1 || repeat > 1000 {
		return nil, fmt.Errorf("repeat=%d: want 1 to 1000", repeat)
	}
	ws := workers.fioWorkers()
	plane, simulated, err := m.plane(thread, ws)
	if err != nil {
		return nil, err
	}
	if simulated {
		if ws, err = m.current(thread, workers); err != nil {
			return nil, err
		}
	}
	ctx := runtime.Context(thread)
	var results []*fio.Result
	var notes []string
	for range repeat {
		res, err := plane.Run(ctx, ws, job.wl.Clone(), func(st fio.Status) { campaignRunStatus(thread, st) })
		if err != nil {
			return nil, err
		}
		if res.Simulated != simulated {
			return nil, fmt.Errorf("internal error: the data plane returned %s results for %s workers", simulatedWord(res.Simulated), simulatedWord(simulated))
		}
		results = append(results, res)
		for _, n := range res.Notes {
			if !slices.Contains(notes, n) {
				notes = append(notes, n)
			}
		}
	}
	sayNotes(thread, notes)
	return newRunFrame(notes, results), nil
}

// sayNotes prints what the data plane said of a fio.run outside a campaign
// (a campaign keeps the notes with each run and its report lists them), each
// note once a session, so that an option the model does not model, or an
// uncalibrated testbed, is never passed over in silence; the frame's notes
// keep them all.
func sayNotes(thread *starlark.Thread, notes []string) {
	s, err := runtime.SessionFrom(thread)
	if err != nil || len(notes) == 0 {
		return
	}
	holder, _ := runtime.Load(s, runBarKey, func() (*runBar, error) { return &runBar{}, nil })
	holder.mu.Lock()
	inCampaign := holder.bar != nil
	holder.mu.Unlock()
	if inCampaign {
		return
	}
	said, _ := runtime.Load(s, saidNotesKey, func() (*saidNotes, error) { return &saidNotes{seen: map[string]bool{}}, nil })
	for _, n := range said.first(notes) {
		msg := "fio.run: note: " + n
		if thread.Print != nil {
			thread.Print(thread, msg)
		} else {
			fmt.Fprintln(s.Stderr, msg)
		}
	}
}

// saidNotes are the notes a session has printed.
type saidNotes struct {
	mu   sync.Mutex
	seen map[string]bool
}

// first returns those of notes not printed before, and marks them printed.
func (s *saidNotes) first(notes []string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var fresh []string
	for _, n := range notes {
		if !s.seen[n] {
			s.seen[n] = true
			fresh = append(fresh, n)
		}
	}
	return fresh
}

var saidNotesKey = runtime.NewKey[*saidNotes]("fio.said_notes")

// keepRunData adds to a campaign's result of fio.run's runs what their
// rows do not hold: the samples and the files kept (named per repeat when
// there are several).
func keepRunData(res *fio.Result, runs []*fio.Result) {
	for i, r := range runs {
		res.Samples = append(res.Samples, r.Samples...)
		for _, a := range r.Artifacts {
			if len(runs) > 1 {
				a.Name = fmt.Sprintf("repeat-%d/%s", i+1, a.Name)
			}
			res.Artifacts = append(res.Artifacts, a)
		}
	}
}

func fioSamples(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var f *Frame
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "result", &f); err != nil {
		return nil, err
	}
	if f.runs == nil {
		return nil, fmt.Errorf("the frame is not a fio.run result; samples come with fio.run's frame (or a store's samples frame)")
	}
	var tb table.Builder
	n := 0
	for i, res := range f.runs {
		for _, s := range res.Samples {
			job := s.Job
			if job == "" {
				job = "all"
			}
			tb.Set("t_s", s.TS)
			tb.Set("job", job)
			tb.Set("direction", s.Direction)
			tb.Set("iops", s.IOPS)
			tb.Set("mbps", s.MBps)
			tb.Set("lat_mean_us", s.LatMeanUs)
			tb.Set("p99_us", s.P99Us)
			tb.Set(SimulatedColumn, res.Simulated)
			tb.Set("repeat", i+1)
			tb.EndRow()
			n++
		}
	}
	cols := []string{"t_s", "job", "direction", "iops", "mbps", "lat_mean_us", "p99_us", SimulatedColumn, "repeat"}
	df, err := emptyFrame(cols)
	if n > 0 {
		df, err = tb.Frame()
	}
	if err != nil {
		return nil, err
	}
	return NewFrame(df), nil
}

// ResultFrame turns results into one frame: per-disk rows then the
// aggregate rows (worker and disk "all") of each result, numbered by repeat
// from 1. job is fio's job name, "all" over every job of the workload.
// Latency columns are microseconds of completion latency; a latency no I/O
// measured is missing. Percentiles a job's percentile_list asks for beyond
// p50, p95, p99 and p99.9 get a column each (p99_99_us for 99.99).
func ResultFrame(results ...*fio.Result) (dataframe.DataFrame, error) {
	str := func(name string) *table.Column {
		return &table.Column{Name: name, Kind: table.String, Strings: []string{}}
	}
	flt := func(name string) *table.Column {
		return &table.Column{Name: name, Kind: table.Float, Floats: []float64{}}
	}
	job, worker, disk, dir := str("job"), str("worker"), str("disk"), str("direction")
	iops, mbps, mean, p50, p95, p99, p999 := flt("iops"), flt("mbps"), flt("lat_mean_us"), flt("p50_us"), flt("p95_us"), flt("p99_us"), flt("p999_us")
	errs := &table.Column{Name: "errors", Kind: table.Int, Ints: []int{}}
	sim := &table.Column{Name: SimulatedColumn, Kind: table.Bool, Bools: []bool{}}
	rep := &table.Column{Name: "repeat", Kind: table.Int, Ints: []int{}}
	var extra []*table.Column
	extraOf := map[float64]*table.Column{}
	for _, res := range results {
		for _, r := range append(slices.Clone(res.Rows), res.Aggregate...) {
			for _, p := range r.Percentiles {
				if extraOf[p.P] == nil {
					extraOf[p.P] = flt(PercentileColumn(p.P))
					extra = append(extra, extraOf[p.P])
				}
			}
		}
	}
	orAll := func(s string) string {
		if s == "" {
			return "all"
		}
		return s
	}
	for i, res := range results {
		for _, r := range append(slices.Clone(res.Rows), res.Aggregate...) {
			job.Strings = append(job.Strings, orAll(r.Job))
			worker.Strings = append(worker.Strings, orAll(r.Worker))
			disk.Strings = append(disk.Strings, orAll(r.Disk))
			dir.Strings = append(dir.Strings, r.Direction)
			for _, c := range []struct {
				col *table.Column
				v   float64
			}{{iops, r.IOPS}, {mbps, r.MBps}, {mean, r.LatMeanUs}, {p50, r.P50Us}, {p95, r.P95Us}, {p99, r.P99Us}, {p999, r.P999Us}} {
				c.col.Floats = append(c.col.Floats, c.v)
			}
			for p, c := range extraOf {
				v := math.NaN()
				for _, q := range r.Percentiles {
					if q.P == p {
						v = q.Us
					}
				}
				c.Floats = append(c.Floats, v)
			}
			errs.Ints = append(errs.Ints, r.Errors)
			sim.Bools = append(sim.Bools, r.Simulated || res.Simulated)
			rep.Ints = append(rep.Ints, i+1)
		}
	}
	floats := append([]*table.Column{iops, mbps, mean, p50, p95, p99, p999}, extra...)
	for _, c := range floats {
		for i, v := range c.Floats {
			if math.IsNaN(v) {
				if c.NA == nil {
					c.NA = make([]bool, len(c.Floats))
				}
				c.NA[i] = true
			}
		}
	}
	cols := slices.Concat([]*table.Column{job, worker, disk, dir}, floats, []*table.Column{errs, sim, rep})
	return table.NewFrame(cols...)
}

// PercentileColumn names the column of a percentile: p99_99_us for 99.99,
// p1_us for 1 (p50_us, p95_us, p99_us and p999_us are the fixed ones).
func PercentileColumn(p float64) string {
	return "p" + strings.ReplaceAll(strconv.FormatFloat(p, 'f', -1, 64), ".", "_") + "_us"
}

// fioSize unpacks a size: bytes as an int, or text like "4k" or "64MiB".
type fioSize struct{ n int64 }

func (s *fioSize) Unpack(v starlark.Value) (err error) {
	s.n, err = intOrText(v, math.MaxInt64, fio.ParseSize,
		"want a size in bytes (0 or more) or text like \"4k\"", "want a size like 4096 or \"4k\"")
	return err
}

// jobSize unpacks a job's size: bytes, as fioSize, or a share of each disk
// as fio writes it, like "10%".
type jobSize struct {
	fioSize
	share string
}

func (s *jobSize) Unpack(v starlark.Value) error {
	if text, ok := v.(starlark.String); ok {
		if pct, isShare := strings.CutSuffix(strings.TrimSpace(string(text)), "%"); isShare {
			if p, err := strconv.ParseFloat(pct, 64); err != nil || p <= 0 || p > 100 {
				return fmt.Errorf("size %q: want a share of the disk above 0 and at most 100%%, like \"10%%\"", string(text))
			}
			s.n, s.share = 0, strings.TrimSpace(string(text))
			return nil
		}
	}
	return s.fioSize.Unpack(v)
}

// fioSeconds unpacks a whole-second duration: an int, or text like "30s" or "2m".
type fioSeconds struct{ sec int }

// fioFlag is a yes-or-no fio option: True or False, or 1 or 0 as a job
// file writes it (direct=1).
type fioFlag struct{ on bool }

func (f *fioFlag) Unpack(v starlark.Value) error {
	switch x := v.(type) {
	case starlark.Bool:
		f.on = bool(x)
		return nil
	case starlark.Int:
		if n, ok := x.Int64(); ok && (n == 0 || n == 1) {
			f.on = n == 1
			return nil
		}
	}
	return fmt.Errorf("got %s, want True or False (or fio's 1 or 0)", v)
}

func (s *fioSeconds) Unpack(v starlark.Value) error {
	parse := func(text string) (int64, error) {
		n, err := fio.ParseSeconds(text)
		return int64(n), err
	}
	n, err := intOrText(v, math.MaxInt32, parse,
		"want a number of seconds (0 or more) or text like \"2m\"", "want seconds like 60 or text like \"2m\"")
	s.sec = int(n)
	return err
}

// intOrText unpacks an int from 0 to max, or text that parse reads; the
// messages say what was wanted of an int out of range and of another type.
func intOrText(v starlark.Value, max int64, parse func(string) (int64, error), badInt, badType string) (int64, error) {
	if i, ok := v.(starlark.Int); ok {
		n, ok := i.Int64()
		if !ok || n < 0 || n > max {
			return 0, fmt.Errorf("got %s, %s", i, badInt)
		}
		return n, nil
	}
	text, ok := starlark.AsString(v)
	if !ok {
		return 0, fmt.Errorf("got %s, %s", v.Type(), badType)
	}
	return parse(text)
}

// fioBSSplit unpacks block-size shares: {"4k": 70, "64k": 30} or "4k/70:64k/30".
type fioBSSplit []fio.BSSplit

func (s *fioBSSplit) Unpack(v starlark.Value) error {
	if text, ok := starlark.AsString(v); ok {
		split, err := fio.ParseBSSplit(text)
		if err != nil {
			return err
		}
		*s = split
		return nil
	}
	d, ok := v.(*starlark.Dict)
	if !ok {
		return fmt.Errorf("got %s, want a dict of size to percent like {\"4k\": 70, \"64k\": 30}", v.Type())
	}
	var parts []string
	for _, kv := range d.Items() {
		var size fioSize
		if err := size.Unpack(kv[0]); err != nil {
			return err
		}
		pct, ok := kv[1].(starlark.Int)
		if !ok {
			return fmt.Errorf("share of %s is a %s; want a whole percent", kv[0], kv[1].Type())
		}
		parts = append(parts, fmt.Sprintf("%d/%s", size.n, pct))
	}
	split, err := fio.ParseBSSplit(strings.Join(parts, ":"))
	if err != nil {
		return err
	}
	*s = split
	return nil
}

// fioPercentiles unpacks a list of percentiles like [50, 99, 99.9].
type fioPercentiles []float64

func (p *fioPercentiles) Unpack(v starlark.Value) error {
	iter, ok := v.(starlark.Iterable)
	if !ok {
		return fmt.Errorf("got %s, want a list of percentiles like [50, 99, 99.9]", v.Type())
	}
	var parts []string
	for _, x := range iterate(iter) {
		f, ok := starlark.AsFloat(x)
		if !ok {
			return fmt.Errorf("percentile %s is a %s; want a number", x, x.Type())
		}
		parts = append(parts, fmt.Sprint(f))
	}
	ps, err := fio.ParsePercentiles(strings.Join(parts, ":"))
	if err != nil {
		return err
	}
	*p = ps
	return nil
}

// fioOptions unpacks extra fio options: a dict or a list of (name, value)
// pairs; a value of "" or True writes a flag.
type fioOptions []fio.Option

func (o *fioOptions) Unpack(v starlark.Value) error {
	var pairs []starlark.Tuple
	switch v := v.(type) {
	case *starlark.Dict:
		pairs = v.Items()
	case starlark.Iterable:
		for _, x := range iterate(v) {
			t, ok := x.(starlark.Tuple)
			if !ok || len(t) != 2 {
				return fmt.Errorf("got a list holding %s, want (name, value) pairs", x.Type())
			}
			pairs = append(pairs, t)
		}
	default:
		return fmt.Errorf("got %s, want a dict like {\"norandommap\": True, \"randrepeat\": 0}", v.Type())
	}
	var out []fio.Option
	for _, kv := range pairs {
		key, ok := starlark.AsString(kv[0])
		if !ok || key == "" || strings.ContainsAny(key, "=[]\n") {
			return fmt.Errorf("option name %s: want a fio option name like \"norandommap\"", kv[0])
		}
		var val string
		switch x := kv[1].(type) {
		case starlark.Bool:
			if !x {
				continue
			}
			val = fio.OnValue(key)
		case starlark.String:
			val = string(x)
		case starlark.Int, starlark.Float:
			val = x.String()
		default:
			return fmt.Errorf("option %s is a %s; want a string, number or True", key, x.Type())
		}
		if strings.Contains(val, "\n") {
			return fmt.Errorf("option %s has a newline in its value", key)
		}
		out = append(out, fio.Option{Key: key, Value: val})
	}
	for _, o := range out {
		if err := fio.CheckOptionName(o.Key); err != nil {
			return err
		}
	}
	// Options the model names go to their fields, as in a job file.
	j := fio.JobFromOptions("x", out)
	if len(j.Options) != len(out) {
		return fmt.Errorf("give %s as fio.job arguments, not in options", typedNames(out, j.Options))
	}
	*o = out
	return nil
}

func typedNames(all, raw []fio.Option) string {
	var names []string
	for _, o := range all {
		if !slices.Contains(raw, o) {
			names = append(names, o.Key)
		}
	}
	return strings.Join(names, ", ")
}
