package builtins

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"go.starlark.net/starlark"

	"starbench/internal/fio"
	"starbench/internal/runtime"
)

// WorkloadValue is the Starlark handle of a workload: the jobs of a job
// file (or of fio.workload) that a run starts together. It is immutable.
type WorkloadValue struct{ wl *fio.Workload }

var (
	_ starlark.HasAttrs = (*WorkloadValue)(nil)
	_ starlark.Value    = (*WorkloadValue)(nil)
)

// NewWorkloadValue returns the handle of wl.
func NewWorkloadValue(wl *fio.Workload) *WorkloadValue { return &WorkloadValue{wl: wl.Clone()} }

// Workload returns a copy of the workload.
func (w *WorkloadValue) Workload() *fio.Workload { return w.wl.Clone() }

func (w *WorkloadValue) String() string {
	return fmt.Sprintf("fio.workload(%q: %s)", w.wl.Name, strings.Join(w.wl.JobNames(), ", "))
}
func (w *WorkloadValue) Type() string          { return "fio.workload" }
func (w *WorkloadValue) Freeze()               {}
func (w *WorkloadValue) Truth() starlark.Bool  { return starlark.True }
func (w *WorkloadValue) Hash() (uint32, error) { return starlark.String(w.wl.Text()).Hash() }
func (w *WorkloadValue) AttrNames() []string {
	return []string{"duration", "jobs", "name", "phases", "text"}
}

func (w *WorkloadValue) Attr(name string) (starlark.Value, error) {
	switch name {
	case "name":
		return starlark.String(w.wl.Name), nil
	case "jobs":
		out := make([]starlark.Value, len(w.wl.Jobs))
		for i, j := range w.wl.Jobs {
			out[i] = NewJobValue(j)
		}
		l := starlark.NewList(out)
		l.Freeze()
		return l, nil
	case "phases":
		var out []starlark.Value
		for _, p := range w.wl.Phases() {
			names := make([]starlark.Value, len(p))
			for i, j := range p {
				names[i] = starlark.String(w.wl.Jobs[j].Name)
			}
			out = append(out, starlark.Tuple(names))
		}
		l := starlark.NewList(out)
		l.Freeze()
		return l, nil
	case "duration":
		return starlark.MakeInt(w.wl.Seconds()), nil
	case "text":
		return starlark.String(w.wl.Text()), nil
	}
	return nil, nil
}

// workloadSeconds is how long a run of v (a fio.job or fio.workload) takes
// by its runtimes, 0 when v is neither or its duration is not fixed.
func workloadSeconds(v starlark.Value) float64 {
	if wl := workloadOf(v); wl != nil {
		return float64(wl.Seconds())
	}
	return 0
}

// workloadOf returns what a run of v executes: a fio.job's workload of one
// job, a fio.workload's jobs; nil for anything else.
func workloadOf(v starlark.Value) *fio.Workload {
	switch v := v.(type) {
	case *JobValue:
		return fio.NewWorkload(*v.Job())
	case *WorkloadValue:
		return v.Workload()
	}
	return nil
}

// workloadArg unpacks a fio.job or a fio.workload.
type workloadArg struct{ wl *fio.Workload }

func (a *workloadArg) Unpack(v starlark.Value) error {
	if a.wl = workloadOf(v); a.wl == nil {
		return fmt.Errorf("got %s, want a fio.job or a fio.workload (fio.jobfile, fio.workload)", v.Type())
	}
	return nil
}

func fioWorkload(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var jobs *starlark.List
	name := ""
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "jobs", &jobs, "name?", &name); err != nil {
		return nil, err
	}
	wl := &fio.Workload{Name: name}
	for i, v := range iterate(jobs) {
		j, ok := v.(*JobValue)
		if !ok {
			return nil, fmt.Errorf("jobs[%d] is a %s; want fio.job values, like [fio.job(name=\"oltp\", ...), fio.job(name=\"backup\", ...)]", i, v.Type())
		}
		if slices.Contains(wl.JobNames(), j.job.Name) {
			return nil, fmt.Errorf("two jobs are named %q; give each its own name (results are keyed by it), like fio.job(name=\"backup\", ...)", j.job.Name)
		}
		wl.Jobs = append(wl.Jobs, *j.Job())
	}
	if len(wl.Jobs) == 0 {
		return nil, fmt.Errorf("no jobs; give at least one fio.job")
	}
	if wl.Name == "" {
		wl.Name = strings.Join(wl.JobNames(), "+")
	}
	if err := wl.Validate(); err != nil {
		return nil, err
	}
	if err := wl.CheckWithFio(runtime.Context(thread)); err != nil {
		return nil, err
	}
	return NewWorkloadValue(wl), nil
}

func fioJobfile(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path string
	var vars *starlark.Dict
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path, "vars?", &vars); err != nil {
		return nil, err
	}
	// Every file read (the job file and what it includes) is an input of
	// the session, kept with its results.
	o := fio.LoadOptions{Vars: map[string]string{}, ReadFile: func(path string) ([]byte, error) {
		data, err := os.ReadFile(path)
		if err == nil {
			noteInput(thread, path)
		}
		return data, err
	}}
	if vars != nil {
		for _, kv := range vars.Items() {
			k, ok := starlark.AsString(kv[0])
			if !ok {
				return nil, fmt.Errorf("vars key %s is a %s; want a variable name like \"SIZE\"", kv[0], kv[0].Type())
			}
			switch v := kv[1].(type) {
			case starlark.String:
				o.Vars[k] = string(v)
			case starlark.Int, starlark.Float:
				o.Vars[k] = v.String()
			default:
				return nil, fmt.Errorf("vars[%q] is a %s; want a string or a number", k, v.Type())
			}
		}
	}
	wl, err := fio.LoadWorkload(scriptRelative(thread, path), o)
	if err != nil {
		return nil, err
	}
	// Asked here too, so that the script's line, and --plan, show fio's refusal.
	if err := wl.CheckWithFio(runtime.Context(thread)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return NewWorkloadValue(wl), nil
}

// workloadDocType documents fio.workload values.
var workloadDocType = &runtime.Type{
	Name: "fio.workload",
	Doc:  "the jobs of a job file (fio.jobfile) or of fio.workload, run at once on every worker by fio.run",
	Members: []runtime.Member{
		attr("duration", "seconds the runtimes add up to (the longest job of each phase), 0 when a job runs by size"),
		attr("jobs", "the jobs, as fio.job values with [global]'s options merged in"),
		attr("name", "the workload's name: the job file's name, or the jobs' names joined by +"),
		attr("phases", "the jobs' names grouped by when they start: stonewall and wait_for begin a new phase"),
		attr("text", "the workload as one .fio file, every job whole"),
	},
}
