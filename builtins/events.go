package builtins

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-gota/gota/dataframe"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"starbench/internal/events"
	"starbench/internal/fio"
	"starbench/internal/model"
	"starbench/internal/runtime"
	"starbench/internal/table"
	"starbench/internal/target"
	"starbench/internal/vsphere"
)

// NewEventsModule returns the `events` module: events inside a measurement.
func NewEventsModule(deps Deps) *runtime.Module {
	m := eventsModule{deps}
	return &runtime.Module{
		Name: "events",
		Doc:  "events inside a measurement: host failures, maintenance, snapshots, noisy neighbours (docs/events.md)",
		Members: []runtime.Member{
			{Name: "at", Params: "(time, action, name=None)",
				Doc: "an event firing time into the measurement (\"5m\" or seconds); action is a function of no arguments or an events.workload", Fn: eventsAt},
			{Name: "after", Params: "(event, delay, action, name=None)",
				Doc: "an event firing delay after another event's action returned", Fn: eventsAfter},
			{Name: "when", Params: "(condition, action, name=None)",
				Doc: "an event firing once, at the first sample for which condition(sample) is True (sample: t_s, job, direction, iops, mbps, lat_mean_us, p99_us); on a measured run the samples are fio's live rate every second over all workers (direction \"total\", lat_mean_us by Little's law where the jobs' depth is fixed, p99_us NaN)", Fn: eventsWhen},
			{Name: "rolling", Params: "(hosts, enter, leave, at=0, hold=\"10m\", gap=0, name=\"rolling\")",
				Doc: "one host after another: enter(host), hold later leave(host), gap later the next host; a list of events", Fn: eventsRolling},
			{Name: "workload", Params: "(workers, job, name=None)",
				Doc: "an action starting a second workload (a noisy neighbour, a backup) on other workers or the measured ones (then on the same VMs and disks); it ends after its runtime", Fn: eventsWorkload},
			{Name: "run", Params: "(workers, job, events=[], interval=\"10s\")",
				Doc: "run a time-based job on the workers while the events fire: an events.result with results, samples and events frames", Fn: m.run},
		},
	}
}

type eventsModule struct{ deps Deps }

// eventValue is the Starlark handle of one scheduled event.
type eventValue struct {
	name  string
	at    float64
	after *eventValue // nil: fires at at, or on when
	delay float64
	when  starlark.Callable
	// action is a Starlark function, an *eventWorkload, or a Go action
	// (rolling's bound calls).
	action starlark.Value
	bound  func(*starlark.Thread) error
}

var _ starlark.HasAttrs = (*eventValue)(nil)

func (e *eventValue) String() string        { return fmt.Sprintf("events.event(%q)", e.name) }
func (e *eventValue) Type() string          { return "events.event" }
func (e *eventValue) Freeze()               {}
func (e *eventValue) Truth() starlark.Bool  { return starlark.True }
func (e *eventValue) Hash() (uint32, error) { return 0, errUnhashable("events.event") }
func (e *eventValue) AttrNames() []string   { return []string{"name"} }
func (e *eventValue) Attr(name string) (starlark.Value, error) {
	if name == "name" {
		return starlark.String(e.name), nil
	}
	return nil, nil
}

// eventWorkload is an action starting a second workload.
type eventWorkload struct {
	name    string
	workers workersArg
	job     *JobValue
}

func (w *eventWorkload) String() string        { return fmt.Sprintf("events.workload(%q)", w.name) }
func (w *eventWorkload) Type() string          { return "events.workload" }
func (w *eventWorkload) Freeze()               {}
func (w *eventWorkload) Truth() starlark.Bool  { return starlark.True }
func (w *eventWorkload) Hash() (uint32, error) { return 0, errUnhashable("events.workload") }

// checkAction accepts a function of no arguments or an events.workload.
func checkAction(v starlark.Value) error {
	switch v.(type) {
	case *eventWorkload, starlark.Callable:
		return nil
	}
	return fmt.Errorf("action is a %s; want a function of no arguments (lambda: cluster.fail_host(h)) or an events.workload", v.Type())
}

// eventName is the name given, or a description of the action.
func eventName(name starlark.Value, action starlark.Value) string {
	if s, ok := starlark.AsString(name); ok && s != "" {
		return s
	}
	switch a := action.(type) {
	case *eventWorkload:
		return a.name
	case *starlark.Function:
		if a.Name() != "lambda" {
			return a.Name()
		}
		return fmt.Sprintf("lambda at %s", a.Position())
	case starlark.Callable:
		return a.Name()
	}
	return action.String()
}

func eventsAt(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var at, action starlark.Value
	var name starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "time", &at, "action", &action, "name?", &name); err != nil {
		return nil, err
	}
	secs, err := durationSeconds("time", at)
	if err != nil {
		return nil, err
	}
	if err := checkAction(action); err != nil {
		return nil, err
	}
	return &eventValue{name: eventName(name, action), at: secs, action: action}, nil
}

func eventsAfter(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var prev *eventValue
	var delay, action starlark.Value
	var name starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "event", &prev, "delay", &delay, "action", &action, "name?", &name); err != nil {
		return nil, err
	}
	secs, err := durationSeconds("delay", delay)
	if err != nil {
		return nil, err
	}
	if err := checkAction(action); err != nil {
		return nil, err
	}
	return &eventValue{name: eventName(name, action), after: prev, delay: secs, action: action}, nil
}

func eventsWhen(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var cond starlark.Callable
	var action starlark.Value
	var name starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "condition", &cond, "action", &action, "name?", &name); err != nil {
		return nil, err
	}
	if err := checkAction(action); err != nil {
		return nil, err
	}
	return &eventValue{name: eventName(name, action), when: cond, action: action}, nil
}

func eventsRolling(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var hosts starlark.Value
	var enter, leave starlark.Callable
	var at, gap starlark.Value = starlark.MakeInt(0), starlark.MakeInt(0)
	var hold starlark.Value = starlark.String("10m")
	name := "rolling"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "hosts", &hosts, "enter", &enter, "leave", &leave,
		"at?", &at, "hold?", &hold, "gap?", &gap, "name?", &name); err != nil {
		return nil, err
	}
	names, err := stringList(hosts, "hosts")
	if err != nil || len(names) == 0 {
		return nil, fmt.Errorf("hosts: want a list of host names such as [h.name for h in cluster.hosts()]")
	}
	var times [3]float64
	for i, v := range []struct {
		what string
		v    starlark.Value
	}{{"at", at}, {"hold", hold}, {"gap", gap}} {
		if times[i], err = durationSeconds(v.what, v.v); err != nil {
			return nil, err
		}
	}
	call := func(fn starlark.Callable, host string) func(*starlark.Thread) error {
		return func(th *starlark.Thread) error {
			_, err := starlark.Call(th, fn, starlark.Tuple{starlark.String(host)}, nil)
			return err
		}
	}
	var out []starlark.Value
	var prev *eventValue
	for _, h := range names {
		in := &eventValue{name: fmt.Sprintf("%s: %s in", name, h), action: enter, bound: call(enter, h)}
		if prev == nil {
			in.at = times[0]
		} else {
			in.after, in.delay = prev, times[2]
		}
		back := &eventValue{name: fmt.Sprintf("%s: %s back", name, h), after: in, delay: times[1], action: leave, bound: call(leave, h)}
		out = append(out, in, back)
		prev = back
	}
	return starlark.NewList(out), nil
}

func eventsWorkload(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var workers workersArg
	var job *JobValue
	var name starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "workers", &workers, "job", &job, "name?", &name); err != nil {
		return nil, err
	}
	if job.Job().RuntimeSec <= 0 {
		return nil, fmt.Errorf("job %q has no runtime: a second workload ends after its runtime; give it runtime= (and time_based=True)", job.Job().Name)
	}
	n, _ := starlark.AsString(name)
	if n == "" {
		n = job.Job().Name
	}
	return &eventWorkload{name: n, workers: workers, job: job}, nil
}

// eventsResult is what events.run returns: a campaign stores its result.
type eventsResult struct {
	res *fio.Result
	// job is the measured job's name when second workloads ran beside it
	// ("" when none did).
	job string
}

var _ starlark.HasAttrs = (*eventsResult)(nil)

func (r *eventsResult) String() string {
	return fmt.Sprintf("events.result(%d samples, %d events)", len(r.res.Samples), len(r.res.Events))
}
func (r *eventsResult) Type() string          { return "events.result" }
func (r *eventsResult) Freeze()               {}
func (r *eventsResult) Truth() starlark.Bool  { return starlark.True }
func (r *eventsResult) Hash() (uint32, error) { return 0, errUnhashable("events.result") }
func (r *eventsResult) AttrNames() []string   { return []string{"events", "notes", "results", "samples"} }

// FioResult is the run as the campaign stores it: the measured job's rows
// only (the scenario measures that job; a total over every job would mix
// in the second workload's I/O), every job's samples, the events.
func (r *eventsResult) FioResult() *fio.Result { return r.measured() }

// measured is the result with only the measured job's rows.
func (r *eventsResult) measured() *fio.Result {
	if r.job == "" {
		return r.res
	}
	out := *r.res
	keep := func(rows []fio.Row) []fio.Row {
		return slices.DeleteFunc(slices.Clone(rows), func(row fio.Row) bool { return row.Job != "" && row.Job != r.job })
	}
	out.Rows, out.Aggregate = keep(r.res.Rows), keep(r.res.Aggregate)
	return &out
}

func (r *eventsResult) Attr(name string) (starlark.Value, error) {
	switch name {
	case "results":
		df, err := ResultFrame(r.measured())
		if err != nil {
			return nil, err
		}
		return NewFrameWithNotes(df, r.res.Notes), nil
	case "samples":
		df, err := SamplesFrame(r.res)
		return NewFrame(df), err
	case "events":
		df, err := EventsFrame(r.res.Events)
		return NewFrame(df), err
	case "notes":
		return strList(r.res.Notes), nil
	}
	return nil, nil
}

// SamplesFrame is a run's samples: t_s, job, direction, iops, mbps,
// lat_mean_us, p99_us, simulated.
func SamplesFrame(res *fio.Result) (dataframe.DataFrame, error) {
	var b table.Builder
	for _, s := range res.Samples {
		b.Set("t_s", s.TS)
		b.Set("job", s.Job)
		b.Set("direction", s.Direction)
		b.Set("iops", s.IOPS)
		b.Set("mbps", s.MBps)
		b.Set("lat_mean_us", s.LatMeanUs)
		b.Set("p99_us", s.P99Us)
		b.Set(SimulatedColumn, res.Simulated)
		b.EndRow()
	}
	if len(res.Samples) == 0 {
		return emptyFrame([]string{"t_s", "job", "direction", "iops", "mbps", "lat_mean_us", "p99_us", SimulatedColumn})
	}
	return b.Frame()
}

// EventsFrame is a run's events: at_s, kind, target, detail.
func EventsFrame(evs []fio.Event) (dataframe.DataFrame, error) {
	if len(evs) == 0 {
		return emptyFrame([]string{"at_s", "kind", "target", "detail"})
	}
	var b table.Builder
	for _, e := range evs {
		b.Set("at_s", e.AtS)
		b.Set("kind", e.Kind)
		b.Set("target", e.Target)
		b.Set("detail", e.Detail)
		b.EndRow()
	}
	return b.Frame()
}

// emptyFrame is a frame with the named columns and no rows.
func emptyFrame(names []string) (dataframe.DataFrame, error) {
	cols := make([]*table.Column, len(names))
	for i, n := range names {
		cols[i] = &table.Column{Name: n, Kind: table.String, Strings: []string{}}
	}
	return table.NewFrame(cols...)
}

// sampleStruct is a sample as conditions see it.
func sampleStruct(s fio.Sample) *starlarkstruct.Struct {
	return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"t_s":         starlark.Float(s.TS),
		"job":         starlark.String(s.Job),
		"direction":   starlark.String(s.Direction),
		"iops":        starlark.Float(s.IOPS),
		"mbps":        starlark.Float(s.MBps),
		"lat_mean_us": starlark.Float(s.LatMeanUs),
		"p99_us":      starlark.Float(s.P99Us),
	})
}

func (m eventsModule) run(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var workers workersArg
	var job *JobValue
	var evList starlark.Value = starlark.NewList(nil)
	var interval starlark.Value = starlark.String("10s")
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "workers", &workers, "job", &job, "events?", &evList, "interval?", &interval); err != nil {
		return nil, err
	}
	step, err := durationSeconds("interval", interval)
	if err != nil {
		return nil, err
	}
	if step < 1 {
		return nil, fmt.Errorf("interval=%s: want at least 1 s (fio reports once a second at most)", interval)
	}
	j := job.Job()
	if j.RuntimeSec <= 0 || !j.TimeBased {
		return nil, fmt.Errorf("job %q: events.run measures for the job's runtime; give it runtime= and time_based=True", j.Name)
	}
	// The simulator's measurement over time solves the job itself: fio is
	// asked here, as fio.run's targets ask it.
	if err := fio.NewWorkload(*j).CheckWithFio(runtime.Context(thread)); err != nil {
		return nil, err
	}
	list, ok := evList.(starlark.Iterable)
	if !ok {
		return nil, fmt.Errorf("events is a %s; want a list of events (events.at, events.after, events.when, events.rolling)", evList.Type())
	}
	var evs []*eventValue
	for i, v := range iterate(list) {
		e, ok := v.(*eventValue)
		if !ok {
			return nil, fmt.Errorf("events[%d] is a %s; want an event (events.at, events.after, events.when, events.rolling)", i, v.Type())
		}
		evs = append(evs, e)
	}
	es, _, err := m.deps.events(thread)
	if err != nil {
		return nil, err
	}
	fm := fioModule{m.deps}
	ws := workers.fioWorkers()
	plane, simulated, err := fm.plane(thread, ws)
	if err != nil {
		return nil, err
	}
	if simulated {
		if ws, err = fm.current(thread, workers); err != nil {
			return nil, err
		}
	}
	ctx := runtime.Context(thread)
	sc := &scenario{thread: thread, es: es, fm: fm, plane: plane, simulated: simulated}
	if simulated {
		sc.vclock = &events.VirtualClock{}
		sc.clock = sc.vclock.Now
	} else {
		// Events' times count from the end of the job's ramp, when fio
		// starts measuring, as the samples' do.
		sc.clock = events.WallClock(time.Now().Add(time.Duration(j.RampSec) * time.Second))
	}
	sc.log = events.NewLog(sc.clock)
	tl, err := sc.timeline(evs)
	if err != nil {
		return nil, err
	}
	// What the events change is set back when the measurement ends, however
	// it ends, so the next one starts from a healthy cluster with the
	// settings it had: a campaign's repeats measure the same thing.
	before := map[string]bool{}
	for _, e := range es.pending(nil, measurementChange) {
		before[e.ID] = true
	}
	es.setLog(sc.log)
	defer func() {
		es.setLog(nil)
		_ = es.undo(context.WithoutCancel(ctx), before, measurementChange)
	}()
	var res *fio.Result
	if simulated {
		sp, ok := plane.(scenarioPlane)
		if !ok {
			return nil, fmt.Errorf("internal error: the simulated data plane cannot solve a measurement over time")
		}
		sc.scenario = sp.Scenario(ws, j, func(st fio.Status) { campaignRunStatus(thread, st) })
		res, err = events.RunStepped(ctx, tl, sc.vclock, events.Logged{Scenario: sc.scenario, Log: sc.log}, float64(j.RampSec), float64(j.RuntimeSec), step)
	} else {
		res, err = events.RunWall(ctx, tl, sc.clock, sc.measure(ws, j, step))
		if err == nil {
			err = sc.waitNeighbours(ctx, res)
		}
	}
	if err != nil {
		return nil, err
	}
	res.Events = sc.log.Events()
	if unfired := tl.Unfired(); len(unfired) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("events that did not fire before the measurement ended: %s", strings.Join(unfired, ", ")))
	}
	if simulated {
		res.Notes = append(res.Notes, fmt.Sprintf("simulated over time: %d s of scenario time solved in %g s intervals on a virtual clock (not waited)", j.RuntimeSec, step))
	}
	if kinds := clusterKinds(res.Events); !simulated && es.target.Kind == target.Local && len(kinds) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%s changed the simulated cluster only: target local measures fio on loopback, which no cluster event reaches", strings.Join(kinds, ", ")))
	}
	out := &eventsResult{res: res}
	if sc.neighbours > 0 {
		out.job = j.Name
		res.Notes = append(res.Notes, fmt.Sprintf("rows are %s's; the second workloads' are in the samples, by job", j.Name))
	}
	return out, nil
}

// measurementChange says whether a change of this kind made during a
// measurement is set back when it ends: what events do to hosts, disks and
// snapshots, and the cluster's settings (cluster.configure).
func measurementChange(kind string) bool {
	return vsphere.EventKind(kind) || kind == vsphere.KindCluster
}

// clusterKinds are the kinds of the logged events that changed the
// cluster (not actions, conditions or workloads), each once, in order.
func clusterKinds(evs []fio.Event) []string {
	var kinds []string
	for _, e := range evs {
		switch e.Kind {
		case "action", "condition", "workload_start", "workload_end":
		default:
			if !slices.Contains(kinds, e.Kind) {
				kinds = append(kinds, e.Kind)
			}
		}
	}
	return kinds
}

// scenarioPlane is a simulated data plane that solves a measurement over
// time while events change the cluster (the model's).
type scenarioPlane interface {
	Scenario(workers []fio.Worker, job *fio.Job, progress func(fio.Status)) *model.Scenario
}

// scenario is one events.run in progress.
type scenario struct {
	thread    *starlark.Thread
	es        *eventSession
	fm        fioModule
	plane     fio.DataPlane
	simulated bool
	clock     func() float64
	vclock    *events.VirtualClock
	log       *events.Log
	scenario  *model.Scenario

	neighbours int // second workloads started
	mu         sync.Mutex
	running    sync.WaitGroup
	extra      []*fio.Result
	extraErr   error
	live       []fio.Sample
}

// timeline turns the script's events into the measurement's timeline.
func (sc *scenario) timeline(evs []*eventValue) (*events.Timeline, error) {
	index := map[*eventValue]int{}
	for i, e := range evs {
		index[e] = i
	}
	out := make([]events.Event, len(evs))
	for i, e := range evs {
		ev := events.Event{Name: e.name, At: e.at, After: -1, Delay: e.delay}
		if e.after != nil {
			k, ok := index[e.after]
			if !ok {
				return nil, fmt.Errorf("event %q waits for event %q, which is not in the list: pass both to events.run", e.name, e.after.name)
			}
			ev.After = k
		}
		var matched fio.Sample
		if e.when != nil {
			cond := e.when
			ev.When = func(s fio.Sample) (bool, error) {
				v, err := starlark.Call(sc.thread, cond, starlark.Tuple{sampleStruct(s)}, nil)
				if err != nil {
					return false, err
				}
				ok, isBool := v.(starlark.Bool)
				if !isBool {
					return false, fmt.Errorf("returned %s; want True or False", v.Type())
				}
				matched = s
				return bool(ok), nil
			}
		}
		ev.Do = func(ctx context.Context) error {
			before := len(sc.log.Events())
			if e.when != nil {
				sc.log.Add("condition", e.name, fmt.Sprintf("t=%gs %s %s: iops=%.0f lat_mean_us=%.0f p99_us=%.0f",
					matched.TS, matched.Job, matched.Direction, matched.IOPS, matched.LatMeanUs, matched.P99Us))
			}
			return sc.act(ctx, e, before)
		}
		out[i] = ev
	}
	return events.NewTimeline(out)
}

// act runs one event's action on the script's thread; an action that
// logged nothing since before (a plain function) is logged as "action".
func (sc *scenario) act(ctx context.Context, e *eventValue, before int) error {
	if w, ok := e.action.(*eventWorkload); ok {
		return sc.startWorkload(ctx, w)
	}
	var err error
	if e.bound != nil {
		err = e.bound(sc.thread)
	} else {
		_, err = starlark.Call(sc.thread, e.action.(starlark.Callable), nil, nil)
	}
	if err == nil && len(sc.log.Events()) == before {
		sc.log.Add("action", e.name, "")
	}
	return err
}

// measure runs the main job on the wall clock, passing fio's status
// samples to the timeline and the campaign's progress bar.
func (sc *scenario) measure(ws []fio.Worker, job *fio.Job, step float64) events.Measure {
	return func(ctx context.Context, sample func(fio.Sample)) (*fio.Result, error) {
		res, err := sc.plane.Run(ctx, ws, fio.NewWorkload(*job), func(st fio.Status) {
			campaignRunStatus(sc.thread, st)
			at := float64(st.Elapsed - job.RampSec) // on the measurement's time axis
			if at <= 0 {
				return // the ramp: fio does not measure it, and no condition sees it
			}
			s := fio.Sample{Job: job.Name, Direction: "total", TS: at, IOPS: st.IOPS, MBps: st.MBps,
				LatMeanUs: st.LatMeanUs, P99Us: math.NaN()}
			sc.mu.Lock()
			sc.live = append(sc.live, s)
			sc.mu.Unlock()
			sample(s)
		})
		if err != nil {
			return nil, err
		}
		if len(res.Samples) == 0 {
			// Until the runner keeps fio's per-interval samples, the
			// status samples stand for them.
			sc.mu.Lock()
			res.Samples = slices.Clone(sc.live)
			sc.mu.Unlock()
		}
		// The runner names no job of a one-job workload; beside second
		// workloads, and as the simulator does, the rows and samples name
		// the measured job.
		return res.AsJob(job.Name, 0), nil
	}
}

// startWorkload starts a second workload: on the simulator a class of the
// stepped model from now on, on a real cluster fio on its own workers.
func (sc *scenario) startWorkload(ctx context.Context, w *eventWorkload) error {
	job := w.job.Job()
	job.Name = w.name
	ws := w.workers.fioWorkers()
	plane, simulated, err := sc.fm.plane(sc.thread, ws)
	if err != nil {
		return err
	}
	if simulated != sc.simulated {
		return fmt.Errorf("workload %q runs on %s workers during a %s measurement; simulated and measured results never mix", w.name, simulatedWord(simulated), simulatedWord(sc.simulated))
	}
	sc.log.Add("workload_start", w.name, workersLabelOf(ws))
	sc.neighbours++
	start := sc.clock()
	end := start + float64(job.RuntimeSec+job.RampSec)
	if simulated {
		if ws, err = sc.fm.current(sc.thread, w.workers); err != nil {
			return err
		}
		sc.scenario.AddWorkload(w.name, ws, job, start, end)
		sc.log.AddAt(end, "workload_end", w.name, "")
		return nil
	}
	sc.running.Add(1)
	go func() {
		defer sc.running.Done()
		res, err := plane.Run(ctx, ws, fio.NewWorkload(*job), nil)
		sc.mu.Lock()
		defer sc.mu.Unlock()
		if err != nil {
			sc.extraErr = fmt.Errorf("workload %q: %w", w.name, err)
			return
		}
		sc.log.Add("workload_end", w.name, "")
		sc.extra = append(sc.extra, res.AsJob(w.name, start+float64(job.RampSec))) // its samples start after its own ramp
	}()
	return nil
}

// waitNeighbours waits for the second workloads of a measured run and adds
// their rows and samples to res, under their own job names.
func (sc *scenario) waitNeighbours(ctx context.Context, res *fio.Result) error {
	done := make(chan struct{})
	go func() { sc.running.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		<-done
		return ctx.Err()
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.extraErr != nil {
		return sc.extraErr
	}
	for _, x := range sc.extra {
		events.Merge(res, x)
	}
	return nil
}

// workersLabelOf names fio workers in the events log.
func workersLabelOf(ws []fio.Worker) string {
	if len(ws) == 1 {
		return ws[0].Name
	}
	return fmt.Sprintf("%s..%s (%d workers)", ws[0].Name, ws[len(ws)-1].Name, len(ws))
}
