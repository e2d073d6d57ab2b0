package builtins

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.starlark.net/lib/json"
	starlarktime "go.starlark.net/lib/time"
	"go.starlark.net/starlark"

	"starbench/internal/campaign"
	"starbench/internal/fio"
	"starbench/internal/model"
	"starbench/internal/progress"
	"starbench/internal/runtime"
	"starbench/internal/store"
	"starbench/internal/target"
)

// NewCampaignModule returns the `campaign` module: matrices of cluster settings, repeated and stored.
func NewCampaignModule(deps Deps) *runtime.Module {
	return &runtime.Module{
		Name: "campaign",
		Doc:  "matrices of cluster settings, repeated and stored",
		Members: []runtime.Member{
			{Name: "factor", Params: "(name, levels, apply, cost=\"cheap\", invalidates_prep=False, restore=None, kind=\"setting\")",
				Doc: "a cluster setting to vary: apply(level) sets it and returns the setting it replaced; levels keep their type (int, float, bool, text) and order in frames and reports; kind=\"load\" marks a load such as iodepth or VMs, which reports draw curves over instead of ranking", Fn: campaignFactor},
			{Name: "workload", Params: "(name, run, duration=None, warmup=None)",
				Doc: "a measurement: run is a fio.job or fio.workload (run on the campaign's workers; duration defaults to its runtime) or a callable returning results", Fn: campaignWorkload},
			{Name: "new", Params: "(name, factors=[], workloads=[], repeat=1, workers=None, prepare=None, prepare_cost=None, metrics=None, cv_threshold=0.05, rerun_high_cv=False)",
				Doc: "a campaign: every cell of the factors' matrix (one baseline cell with no factors) runs every workload repeat times into out/NAME.db",
				Fn: func(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
					return newCampaign(deps, th, b, args, kw)
				}},
		},
	}
}

// factorValue is the Starlark handle of one factor of a campaign.
type factorValue struct {
	spec            campaign.Factor
	levels          []starlark.Value
	apply, restore  starlark.Callable // restore may be nil
	costArg         starlark.Value
	invalidatesPrep bool
}

var _ starlark.HasAttrs = (*factorValue)(nil)

func (f *factorValue) String() string        { return fmt.Sprintf("campaign.factor(%q)", f.spec.Name) }
func (f *factorValue) Type() string          { return "campaign.factor" }
func (f *factorValue) Freeze()               {}
func (f *factorValue) Truth() starlark.Bool  { return starlark.True }
func (f *factorValue) Hash() (uint32, error) { return 0, errUnhashable("campaign.factor") }
func (f *factorValue) AttrNames() []string {
	return []string{"cost", "invalidates_prep", "kind", "levels", "name"}
}

func (f *factorValue) Attr(name string) (starlark.Value, error) {
	switch name {
	case "name":
		return starlark.String(f.spec.Name), nil
	case "levels":
		return starlark.Tuple(f.levels), nil
	case "cost":
		return starlark.Float(f.spec.Cost), nil
	case "invalidates_prep":
		return starlark.Bool(f.invalidatesPrep), nil
	case "kind":
		if f.spec.Load {
			return starlark.String(kindLoad), nil
		}
		return starlark.String(kindSetting), nil
	}
	return nil, nil
}

func campaignFactor(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var levels starlark.Iterable
	var apply starlark.Callable
	var cost starlark.Value = starlark.String("cheap")
	var invalidates bool
	kind := kindSetting
	var restore starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "levels", &levels, "apply", &apply,
		"cost?", &cost, "invalidates_prep?", &invalidates, "restore?", &restore, "kind?", &kind); err != nil {
		return nil, err
	}
	if err := campaign.CheckFactorName(name); err != nil {
		return nil, err
	}
	seconds, err := costSeconds(cost)
	if err != nil {
		return nil, fmt.Errorf("factor %q: %w", name, err)
	}
	if kind != kindSetting && kind != kindLoad {
		return nil, fmt.Errorf("factor %q has kind %q; want %q (a cluster setting) or %q (a load such as iodepth or VMs)", name, kind, kindSetting, kindLoad)
	}
	load := kind == kindLoad
	f := &factorValue{apply: apply, costArg: cost, invalidatesPrep: invalidates,
		spec: campaign.Factor{Name: name, Cost: seconds, InvalidatesPrep: invalidates, Load: load}}
	if restore != starlark.None {
		r, ok := restore.(starlark.Callable)
		if !ok {
			return nil, fmt.Errorf("factor %q: restore is a %s; want a function taking what apply returned", name, restore.Type())
		}
		f.restore = r
	}
	for _, v := range iterate(levels) {
		f.levels = append(f.levels, v)
		f.spec.Levels = append(f.spec.Levels, levelLabel(v))
	}
	if len(f.levels) == 0 {
		return nil, fmt.Errorf("factor %q has no levels; want a list such as [False, True]", name)
	}
	f.spec.LevelType = levelType(f.levels)
	f.spec.Definition, f.spec.LevelDefinitions = factorDefinition(f)
	if load && f.spec.LevelType != store.LevelInt && f.spec.LevelType != store.LevelFloat {
		i := slices.IndexFunc(f.levels, func(v starlark.Value) bool { _, ok := starlark.AsFloat(v); return !ok })
		return nil, fmt.Errorf("factor %q is a load (kind=\"load\") but level %s is a %s; a load's levels are numbers, such as iodepth [1, 4, 16, 64]",
			name, f.levels[i].String(), f.levels[i].Type())
	}
	return f, nil
}

// levelType is the type a factor's levels share, as the store keeps it:
// int, float (ints and floats mixed), bool, or text for anything else.
func levelType(levels []starlark.Value) string {
	ints, floats, bools := 0, 0, 0
	for _, v := range levels {
		switch v.(type) {
		case starlark.Int:
			ints++
		case starlark.Float:
			floats++
		case starlark.Bool:
			bools++
		}
	}
	switch len(levels) {
	case ints:
		return store.LevelInt
	case ints + floats:
		return store.LevelFloat
	case bools:
		return store.LevelBool
	}
	return store.LevelText
}

// Factor kinds: a cluster setting, or a load the campaign sweeps.
const (
	kindSetting = "setting"
	kindLoad    = "load"
)

// costSeconds reads a change cost: seconds, a duration ("90s", "30m") or a
// named cost (campaign.NamedCosts).
func costSeconds(v starlark.Value) (float64, error) {
	names := make([]string, 0, len(campaign.NamedCosts))
	for n := range campaign.NamedCosts {
		names = append(names, strconv.Quote(n))
	}
	slices.Sort(names)
	switch v := v.(type) {
	case starlark.Int, starlark.Float:
		f, _ := starlark.AsFloat(v)
		if f < 0 || math.IsNaN(f) {
			return 0, fmt.Errorf("cost %v is negative; want seconds >= 0", v)
		}
		return f, nil
	case starlark.String:
		if s, ok := campaign.NamedCosts[string(v)]; ok {
			return s, nil
		}
		if d, err := time.ParseDuration(string(v)); err == nil && d >= 0 {
			return d.Seconds(), nil
		}
		return 0, fmt.Errorf("cost %q is neither a named cost (%s) nor a duration such as \"90s\"", string(v), strings.Join(names, ", "))
	}
	return 0, fmt.Errorf("cost is a %s; want seconds, a duration such as \"30m\", or one of %s", v.Type(), strings.Join(names, ", "))
}

// durationSeconds reads an optional duration: None, seconds or "60s".
func durationSeconds(what string, v starlark.Value) (float64, error) {
	switch v := v.(type) {
	case starlark.NoneType:
		return 0, nil
	case starlark.Int, starlark.Float:
		f, _ := starlark.AsFloat(v)
		if f >= 0 {
			return f, nil
		}
	case starlark.String:
		if d, err := time.ParseDuration(string(v)); err == nil && d >= 0 {
			return d.Seconds(), nil
		}
	}
	return 0, fmt.Errorf("%s is %s; want seconds or a duration such as \"90s\"", what, v.String())
}

// levelLabel is a level as plans, labels and stores show it: strings bare,
// handles by their name, anything else as Starlark prints it.
func levelLabel(v starlark.Value) string {
	if s, ok := starlark.AsString(v); ok {
		return s
	}
	if h, ok := v.(starlark.HasAttrs); ok {
		if n, err := h.Attr("name"); err == nil && n != nil {
			if s, ok := starlark.AsString(n); ok {
				return s
			}
		}
	}
	return v.String()
}

// workloadValue is the Starlark handle of one campaign workload.
type workloadValue struct {
	spec        campaign.Workload
	run, warmup starlark.Value // a callable or a job for fio.run; warmup may be None
}

var _ starlark.HasAttrs = (*workloadValue)(nil)

func (w *workloadValue) String() string        { return fmt.Sprintf("campaign.workload(%q)", w.spec.Name) }
func (w *workloadValue) Type() string          { return "campaign.workload" }
func (w *workloadValue) Freeze()               {}
func (w *workloadValue) Truth() starlark.Bool  { return starlark.True }
func (w *workloadValue) Hash() (uint32, error) { return 0, errUnhashable("campaign.workload") }
func (w *workloadValue) AttrNames() []string   { return []string{"duration", "name"} }

func (w *workloadValue) Attr(name string) (starlark.Value, error) {
	switch name {
	case "name":
		return starlark.String(w.spec.Name), nil
	case "duration":
		return starlark.Float(w.spec.Seconds), nil
	}
	return nil, nil
}

func campaignWorkload(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var run starlark.Value
	var duration, warmup starlark.Value = starlark.None, starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "run", &run, "duration?", &duration, "warmup?", &warmup); err != nil {
		return nil, err
	}
	if name == "" {
		return nil, fmt.Errorf("workload name is empty; want a short label such as \"4k-randread\"")
	}
	seconds, err := durationSeconds("duration", duration)
	if err != nil {
		return nil, err
	}
	if duration == starlark.None {
		seconds = workloadSeconds(run) + workloadSeconds(warmup)
	}
	spec := campaign.Workload{Name: name, Seconds: seconds, Definition: workloadDefinition(run, warmup)}
	return &workloadValue{spec: spec, run: run, warmup: warmup}, nil
}

// campaignValue is the Starlark handle of a declared campaign.
type campaignValue struct {
	deps      Deps
	spec      campaign.Spec
	factors   []*factorValue
	workloads []*workloadValue
	workers   starlark.Value // None or what fio.run takes
	prepare   starlark.Callable
	metrics   starlark.Callable
}

var _ starlark.HasAttrs = (*campaignValue)(nil)

func (c *campaignValue) String() string        { return fmt.Sprintf("campaign(%q)", c.spec.Name) }
func (c *campaignValue) Type() string          { return "campaign" }
func (c *campaignValue) Freeze()               {}
func (c *campaignValue) Truth() starlark.Bool  { return starlark.True }
func (c *campaignValue) Hash() (uint32, error) { return 0, errUnhashable("campaign") }

func (c *campaignValue) AttrNames() []string {
	return []string{"factors", "name", "plan", "repeat", "run", "stats", "store_path", "workloads"}
}

func (c *campaignValue) Attr(name string) (starlark.Value, error) {
	switch name {
	case "name":
		return starlark.String(c.spec.Name), nil
	case "repeat":
		return starlark.MakeInt(c.spec.Repeat), nil
	case "factors":
		out := make([]starlark.Value, len(c.factors))
		for i, f := range c.factors {
			out[i] = f
		}
		return starlark.Tuple(out), nil
	case "workloads":
		out := make([]starlark.Value, len(c.workloads))
		for i, w := range c.workloads {
			out[i] = w
		}
		return starlark.Tuple(out), nil
	case "store_path":
		return starlark.NewBuiltin("campaign.store_path", c.storePathMethod), nil
	case "plan":
		return starlark.NewBuiltin("campaign.plan", c.planMethod), nil
	case "run":
		return starlark.NewBuiltin("campaign.run", c.runMethod), nil
	case "stats":
		return starlark.NewBuiltin("campaign.stats", c.statsMethod), nil
	}
	return nil, nil
}

func newCampaign(deps Deps, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	c := &campaignValue{deps: deps, workers: starlark.None}
	var factors, workloads starlark.Iterable = starlark.NewList(nil), starlark.NewList(nil)
	var prepare, prepareCost, metrics starlark.Value = starlark.None, starlark.None, starlark.None
	c.spec.Repeat = 1
	cv := starlark.Value(starlark.Float(0.05))
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &c.spec.Name, "factors?", &factors, "workloads?", &workloads,
		"repeat?", &c.spec.Repeat, "workers?", &c.workers, "prepare?", &prepare, "prepare_cost?", &prepareCost,
		"metrics?", &metrics, "cv_threshold?", &cv, "rerun_high_cv?", &c.spec.RerunHighCV); err != nil {
		return nil, err
	}
	if _, err := store.Path("", c.spec.Name); err != nil {
		return nil, err
	}
	for i, v := range iterate(factors) {
		f, ok := v.(*factorValue)
		if !ok {
			return nil, fmt.Errorf("factors[%d] is a %s; want campaign.factor(...)", i, v.Type())
		}
		c.factors = append(c.factors, f)
		c.spec.Factors = append(c.spec.Factors, f.spec)
	}
	for i, v := range iterate(workloads) {
		w, ok := v.(*workloadValue)
		if !ok {
			return nil, fmt.Errorf("workloads[%d] is a %s; want campaign.workload(...)", i, v.Type())
		}
		for _, job := range []starlark.Value{w.run, w.warmup} {
			if _, callable := job.(starlark.Callable); !callable && job != starlark.None && c.workers == starlark.None {
				return nil, fmt.Errorf("workload %q runs a %s on workers, but the campaign has none: pass workers= to campaign.new", w.spec.Name, job.Type())
			}
		}
		c.workloads = append(c.workloads, w)
		c.spec.Workloads = append(c.spec.Workloads, w.spec)
	}
	var err error
	if c.prepare, err = optionalCallable("prepare", prepare); err != nil {
		return nil, err
	}
	if c.metrics, err = optionalCallable("metrics", metrics); err != nil {
		return nil, err
	}
	c.spec.Prepare = c.prepare != nil
	if c.spec.PrepareSeconds, err = durationSeconds("prepare_cost", prepareCost); err != nil {
		return nil, err
	}
	if f, ok := starlark.AsFloat(cv); ok {
		c.spec.CVThreshold = f
	} else {
		return nil, fmt.Errorf("cv_threshold is a %s; want a fraction such as 0.05 (0 turns flagging off)", cv.Type())
	}
	if err := c.spec.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// iterate returns the elements of a list, tuple or other iterable.
func iterate(it starlark.Iterable) []starlark.Value {
	var out []starlark.Value
	iter := it.Iterate()
	defer iter.Done()
	var x starlark.Value
	for iter.Next(&x) {
		out = append(out, x)
	}
	return out
}

func optionalCallable(what string, v starlark.Value) (starlark.Callable, error) {
	if v == starlark.None {
		return nil, nil
	}
	f, ok := v.(starlark.Callable)
	if !ok {
		return nil, fmt.Errorf("%s is a %s; want a function", what, v.Type())
	}
	return f, nil
}

func (c *campaignValue) storePath(s *runtime.Session) (string, error) {
	return store.Path(s.OutDir, c.spec.Name)
}

func (c *campaignValue) storePathMethod(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	s, err := runtime.SessionFrom(thread)
	if err != nil {
		return nil, err
	}
	p, err := c.storePath(s)
	return starlark.String(p), err
}

// plan computes the plan against the stored runs, reading the store without
// locking it or touching anything.
func (c *campaignValue) plan(ctx context.Context, s *runtime.Session) (*campaign.Plan, error) {
	path, err := c.storePath(s)
	if err != nil {
		return nil, err
	}
	// --plan runs on the simulator whatever --target says; the plan is
	// for the target the real run would use.
	simulated := target.Kind(s.Target) == target.Embedded
	if !s.Plan {
		if simulated, err = sessionSimulated(s); err != nil {
			return nil, err
		}
	}
	p, err := campaign.StoredPlan(ctx, &c.spec, path, s.Fresh, s.RerunFailed)
	if err != nil {
		return nil, err
	}
	p.Simulated = simulated
	return p, nil
}

func (c *campaignValue) planMethod(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	s, err := runtime.SessionFrom(thread)
	if err != nil {
		return nil, err
	}
	p, err := c.plan(runtime.Context(thread), s)
	if err != nil {
		return nil, err
	}
	var sb strings.Builder
	p.Write(&sb)
	return starlark.String(sb.String()), nil
}

func (c *campaignValue) runMethod(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	results := true
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "results?", &results); err != nil {
		return nil, err
	}
	s, err := runtime.SessionFrom(thread)
	if err != nil {
		return nil, err
	}
	ctx := runtime.Context(thread)
	plan, err := c.plan(ctx, s)
	if err != nil {
		return nil, err
	}
	if s.Plan {
		// --plan: print the plan and stop the script before anything runs.
		plan.Write(s.Stdout)
		return nil, runtime.ErrPlanPrinted
	}
	plan.Write(s.Stderr)
	simulated, err := sessionSimulated(s)
	if err != nil {
		return nil, err
	}
	if err := c.checkWorkersKind(s, simulated); err != nil {
		return nil, err
	}
	if _, err := s.EnsureOutDir(); err != nil {
		return nil, err
	}
	path, err := c.storePath(s)
	if err != nil {
		return nil, err
	}
	tty := !s.NoProgress && progress.IsTerminal(s.Stderr)
	bar := progress.New(s.Stderr, tty)
	holder, _ := runtime.Load(s, runBarKey, func() (*runBar, error) { return &runBar{}, nil })
	holder.set(bar, c.deps.Observer)
	defer holder.set(nil, nil)
	if tty {
		// print() goes above the bars, not through them.
		plain := thread.Print
		thread.Print = func(_ *starlark.Thread, msg string) { bar.Event("%s", msg) }
		defer func() { thread.Print = plain }()
	}
	act := &actions{c: c, thread: thread, session: s, simulated: simulated, first: map[int]original{}}
	_, err = campaign.Run(ctx, &c.spec, campaign.RunOptions{Path: path, Simulated: simulated, Fresh: s.Fresh,
		RerunFailed: s.RerunFailed, Actions: act, Progress: bar, Origin: c.origin(s, simulated),
		Observer: c.deps.Observer, Opened: func() { s.Wrote(path) }})
	if err != nil {
		return nil, err
	}
	if !results {
		// A frame of every run grows with the runs; a large sweep reads
		// what it needs from the store instead (c.stats()).
		return starlark.None, nil
	}
	return storeFrame(ctx, path, "results", c.spec.CVThreshold)
}

func (c *campaignValue) statsMethod(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	s, err := runtime.SessionFrom(thread)
	if err != nil {
		return nil, err
	}
	path, err := c.storePath(s)
	if err != nil {
		return nil, err
	}
	return storeFrame(runtime.Context(thread), path, "stats", c.spec.CVThreshold)
}

// checkWorkersKind refuses, before anything runs, a campaign whose workers
// (workers=) give results of the other kind than the session stores: every
// run would fail once measured.
func (c *campaignValue) checkWorkersKind(s *runtime.Session, simulated bool) error {
	var ws workersArg
	if c.workers == starlark.None || ws.Unpack(c.workers) != nil {
		return nil // a callable, or checked when the runs use them
	}
	for _, w := range ws.fioWorkers() {
		if w.Simulated == simulated {
			continue
		}
		if simulated {
			return fmt.Errorf("campaign %s: worker %s runs real fio, but this session's target (%s) stores simulated results and the two never mix; run with --target local (the simulated cluster, real fio on loopback) to measure on local workers",
				c.spec.Name, w.Name, s.Target)
		}
		return fmt.Errorf("campaign %s: worker %s is simulated, but this session's target (%s) stores measured results and the two never mix; run with --target embedded to simulate",
			c.spec.Name, w.Name, s.Target)
	}
	return nil
}

// sessionSimulated says whether the session's results come from the model:
// as the opened target says (vsphere.connect may have chosen it), else as
// the session's target kind says: the embedded target's do; a vCenter's and
// local fio servers' are measured.
func sessionSimulated(s *runtime.Session) (bool, error) {
	if t := openedTarget(s); t != nil {
		return t.Simulated, nil
	}
	switch target.Kind(s.Target) {
	case target.Embedded:
		return true, nil
	case target.VCenter, target.Local:
		return false, nil
	}
	return false, fmt.Errorf("target %q runs no campaign; want embedded, vcenter or local (starbench report reads stores with store.current())", s.Target)
}

// origin says where this session's results come from.
func (c *campaignValue) origin(s *runtime.Session, simulated bool) campaign.Origin {
	o := campaign.Origin{Script: s.Script, Sets: s.Set, Target: s.Target, Testbed: s.Testbed, Simulated: simulated, Model: model.Version}
	if t := openedTarget(s); t != nil {
		// The cluster the script connected to (vsphere.connect(testbed=...)
		// picks its own), not the command line's default.
		o.VSphere, o.Target, o.Testbed = t.VSphere, string(t.Kind), ""
		if t.Testbed != nil {
			o.Testbed = t.Testbed.Name
		}
		if simulated && t.Testbed != nil {
			o.DataPlane = fmt.Sprintf("%s on testbed %s (profile %s)", model.Version, t.Testbed.Name, t.Testbed.Digest())
		}
	}
	// Parsing only finds the files (resolve errors, with no predeclared
	// names given, do not matter); the script already ran this far.
	script, _ := runtime.ParseScript(s.Script, filepath.Dir(s.Script), runtime.ScriptOptions(), nil)
	for _, f := range script.Files {
		o.Files = append(o.Files, f.Path)
	}
	o.Files = append(o.Files, sessionInputs(s)...)
	return o
}

// openedTarget returns the session's target if a builtin has opened it, and
// nil otherwise: provenance never opens a target by itself.
func openedTarget(s *runtime.Session) *target.Target {
	t, err := runtime.Load(s, targetKey, func() (*target.Target, error) { return nil, errNotOpened })
	if err != nil {
		return nil
	}
	return t
}

var errNotOpened = errors.New("target not opened")

// actions implements campaign.Actions with the script's callables, run on
// the thread that called c.run().
type actions struct {
	c         *campaignValue
	thread    *starlark.Thread
	session   *runtime.Session
	simulated bool
	first     map[int]original // by factor
}

var _ campaign.Actions = (*actions)(nil)

func (a *actions) Apply(ctx context.Context, f, level int) (string, error) {
	fac := a.c.factors[f]
	prev, err := starlark.Call(a.thread, fac.apply, starlark.Tuple{fac.levels[level]}, nil)
	if err != nil {
		return "", err
	}
	if fac.restore == nil {
		if prev == starlark.None {
			return "", fmt.Errorf("apply of factor %q returned None, so the setting it replaced cannot be restored: return the previous setting (cluster.configure does) or pass restore=", fac.spec.Name)
		}
		prev = settingOf(fac.spec.Name, prev)
	}
	token := a.token(fac, prev)
	if _, ok := a.first[f]; !ok {
		a.first[f] = original{token: token, value: prev}
	}
	return token, nil
}

// original is what a factor's first apply in this process replaced.
type original struct {
	token string
	value starlark.Value
}

// token turns what apply returned (the setting it replaced) into a restore
// token (see campaign.LevelToken).
func (a *actions) token(fac *factorValue, prev starlark.Value) string {
	for i, l := range fac.levels {
		if eq, err := starlark.Equal(prev, l); err == nil && eq {
			return campaign.LevelToken(i)
		}
	}
	if enc, err := starlark.Call(a.thread, json.Module.Members["encode"], starlark.Tuple{prev}, nil); err == nil {
		return campaign.JSONToken(string(enc.(starlark.String)))
	}
	return campaign.MemoToken(fac.spec.Name)
}

// settingOf picks factor's entry out of a previous state that holds several
// settings (a dict or struct such as cluster.configure returns).
func settingOf(factor string, prev starlark.Value) starlark.Value {
	switch p := prev.(type) {
	case *starlark.Dict:
		if v, found, _ := p.Get(starlark.String(factor)); found {
			return v
		}
	case starlark.HasAttrs:
		if v, err := p.Attr(factor); err == nil && v != nil {
			return v
		}
	}
	return prev
}

func (a *actions) Restore(ctx context.Context, f int, token string) error {
	fac := a.c.factors[f]
	// A fresh thread: the script's may be cancelled (Ctrl-C), and restoring
	// must still run, under ctx.
	th := &starlark.Thread{Name: "restore " + fac.spec.Name, Print: a.thread.Print, Load: a.thread.Load}
	runtime.SetSession(th, a.session)
	runtime.SetThreadContext(th, ctx)
	var v starlark.Value
	if first, ok := a.first[f]; ok && first.token == token {
		v = first.value // as apply returned it, not a JSON round trip
	} else {
		t, err := campaign.ParseToken(fac.spec, token)
		if err != nil {
			return err
		}
		if !t.IsJSON {
			v = fac.levels[t.Level]
		} else if v, err = starlark.Call(th, json.Module.Members["decode"], starlark.Tuple{starlark.String(t.JSON)}, nil); err != nil {
			return campaign.BadJSONToken(token, err)
		}
	}
	fn := fac.apply
	if fac.restore != nil {
		fn = fac.restore
	}
	_, err := starlark.Call(th, fn, starlark.Tuple{v}, nil)
	return err
}

func (a *actions) Prepare(ctx context.Context) error {
	if a.c.prepare == nil {
		return nil
	}
	_, err := starlark.Call(a.thread, a.c.prepare, nil, nil)
	return err
}

func (a *actions) Warmup(ctx context.Context, w int) error {
	if a.c.workloads[w].warmup == starlark.None {
		return nil
	}
	_, err := a.call(a.c.workloads[w].warmup)
	return err
}

func (a *actions) Run(ctx context.Context, w int, key store.RunKey) (*fio.Result, error) {
	// The workload runs under the context the engine gives it, the
	// thread's own naming the run it measures (campaign.RunOf).
	outer := runtime.Context(a.thread)
	runtime.SetThreadContext(a.thread, ctx)
	v, err := a.call(a.c.workloads[w].run)
	runtime.SetThreadContext(a.thread, outer)
	if err != nil {
		return nil, err
	}
	return resultOf(v, a.simulated)
}

// call runs a workload: a callable with no arguments, or a job through fio.run.
func (a *actions) call(job starlark.Value) (starlark.Value, error) {
	if fn, ok := job.(starlark.Callable); ok {
		return starlark.Call(a.thread, fn, nil, nil)
	}
	for _, m := range NewFioModule(a.c.deps).Members {
		if m.Name == "run" {
			return starlark.Call(a.thread, starlark.NewBuiltin("fio.run", m.Fn), starlark.Tuple{a.c.workers, job}, nil)
		}
	}
	return nil, fmt.Errorf("internal error: the fio module has no run")
}

func (a *actions) Metrics(ctx context.Context, start, end time.Time) ([]store.HostMetric, error) {
	if a.c.metrics == nil {
		return nil, nil
	}
	v, err := starlark.Call(a.thread, a.c.metrics, starlark.Tuple{starlarktime.Time(start), starlarktime.Time(end)}, nil)
	if err != nil {
		return nil, err
	}
	return metricsOf(v, start)
}

// resultOf reads what a workload returned: a frame (as fio.run returns), a
// dict of aggregate metrics, or a list of row dicts (see campaign.ResultOf).
func resultOf(v starlark.Value, simulated bool) (*fio.Result, error) {
	switch v := v.(type) {
	case *eventsResult:
		res := *v.FioResult() // the script keeps v's own
		campaign.AddAllJobs(&res)
		return &res, nil
	case *Frame:
		if v.runs != nil {
			res, err := campaign.ResultOfRows(runRows(v.runs), simulated, v.Notes())
			if err == nil {
				keepRunData(res, v.runs)
			}
			return res, err
		}
		return campaign.ResultOf(frameRecords(v), simulated, false, v.Notes())
	case *starlark.Dict:
		return campaign.ResultOf([]campaign.Record{dictFields(v)}, simulated, true, nil)
	case *starlark.List, starlark.Tuple:
		rows, err := dictRecords(v.(starlark.Iterable), "workload", "dicts of metrics such as {\"iops\": 1000}")
		if err != nil {
			return nil, err
		}
		return campaign.ResultOf(rows, simulated, true, nil)
	}
	return nil, fmt.Errorf("workload returned a %s; want a frame (as fio.run returns), an events.result (as events.run returns), a dict of metrics such as {\"iops\": 1000}, or a list of such dicts", v.Type())
}

func simulatedWord(simulated bool) string {
	if simulated {
		return "simulated"
	}
	return "measured"
}

// dictRecords reads the list of dicts what (a script callable) returned;
// want says what each dict should hold.
func dictRecords(list starlark.Iterable, what, want string) ([]campaign.Record, error) {
	var rows []campaign.Record
	for _, x := range iterate(list) {
		d, ok := x.(*starlark.Dict)
		if !ok {
			return nil, fmt.Errorf("%s returned a list holding a %s; want %s", what, x.Type(), want)
		}
		rows = append(rows, dictFields(d))
	}
	return rows, nil
}

func dictFields(d *starlark.Dict) campaign.Record {
	out := campaign.Record{}
	for _, item := range d.Items() {
		k, ok := starlark.AsString(item[0])
		if !ok {
			k = item[0].String()
		}
		out[k] = goValue(item[1])
	}
	return out
}

// goValue translates one value of a record (see campaign.Record).
func goValue(v starlark.Value) any {
	switch v := v.(type) {
	case starlark.NoneType:
		return nil
	case starlark.Int:
		if n, ok := v.Int64(); ok {
			return n
		}
		f, _ := starlark.AsFloat(v)
		return f
	case starlark.Float:
		return float64(v)
	case starlark.String:
		return string(v)
	case starlark.Bool:
		return bool(v)
	case starlarktime.Time:
		return time.Time(v)
	}
	return campaign.Other(v.Type())
}

func frameRecords(f *Frame) []campaign.Record {
	df := f.DataFrame()
	rows := make([]campaign.Record, df.Nrow())
	for i := range rows {
		rows[i] = campaign.Record{}
	}
	for _, name := range df.Names() {
		col := df.Col(name)
		switch col.Type() {
		case "float":
			for i, v := range col.Float() {
				rows[i][name] = v
			}
		case "int":
			for i := range rows {
				n, _ := col.Elem(i).Int() // a missing int reads 0
				rows[i][name] = int64(n)
			}
		case "bool":
			for i := range rows {
				b, _ := col.Elem(i).Bool()
				rows[i][name] = b
			}
		default:
			for i, v := range col.Records() {
				rows[i][name] = v
			}
		}
	}
	return rows
}

// runRows are the rows of ResultFrame(runs) as campaign.ResultOf reads
// them from the frame: the same rows without the detour through the table.
func runRows(runs []*fio.Result) []fio.Row {
	n := 0
	for _, res := range runs {
		n += len(res.Rows) + len(res.Aggregate)
	}
	rows := make([]fio.Row, 0, n)
	for _, res := range runs {
		for _, part := range [][]fio.Row{res.Rows, res.Aggregate} {
			for _, r := range part {
				if r.Disk == "" {
					r.Disk = "all"
				}
				r.Simulated = r.Simulated || res.Simulated
				rows = append(rows, r)
			}
		}
	}
	return rows
}

// metricsOf reads host metrics from a frame or a list of dicts (see
// campaign.HostMetricsOf).
func metricsOf(v starlark.Value, start time.Time) ([]store.HostMetric, error) {
	switch v := v.(type) {
	case starlark.NoneType:
		return nil, nil
	case *Frame:
		return campaign.HostMetricsOf(frameRecords(v), start)
	case *starlark.List, starlark.Tuple:
		rows, err := dictRecords(v.(starlark.Iterable), "metrics", "dicts with host, metric, value")
		if err != nil {
			return nil, err
		}
		return campaign.HostMetricsOf(rows, start)
	}
	return nil, fmt.Errorf("metrics returned a %s; want a frame or a list of dicts with host, metric, value", v.Type())
}

// runBar holds the progress bar of the campaign running in a session, if
// any, and its observer.
type runBar struct {
	mu       sync.Mutex
	bar      *progress.Bar
	observer campaign.Observer
}

func (r *runBar) set(b *progress.Bar, o campaign.Observer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bar, r.observer = b, o
}

var runBarKey = runtime.NewKey[*runBar]("campaign.run_bar")

// campaignRunStatus shows a progress sample of a running workload (fio.run
// passes its --status-interval samples) on the campaign's run bar; it does
// nothing when no campaign is running on the thread's session.
func campaignRunStatus(thread *starlark.Thread, st fio.Status) {
	s, err := runtime.SessionFrom(thread)
	if err != nil {
		return
	}
	holder, _ := runtime.Load(s, runBarKey, func() (*runBar, error) { return &runBar{}, nil })
	holder.mu.Lock()
	bar, observer := holder.bar, holder.observer
	holder.mu.Unlock()
	if observer != nil {
		observer.Sample(st)
	}
	if bar != nil {
		status := fmt.Sprintf("%ds/%ds %s IOPS %.0f MB/s", st.Elapsed, st.Total, humanCount(st.IOPS), st.MBps)
		switch {
		case st.LatMeanUs >= 1000:
			status += fmt.Sprintf(" %.3g ms", st.LatMeanUs/1000)
		case st.LatMeanUs > 0:
			status += fmt.Sprintf(" %.3g µs", st.LatMeanUs)
		}
		bar.RunStatus(status)
	}
}

// humanCount writes n as 950, 12.3k or 1.25M.
func humanCount(n float64) string {
	switch {
	case n >= 1e6:
		return strconv.FormatFloat(n/1e6, 'f', 2, 64) + "M"
	case n >= 1e3:
		return strconv.FormatFloat(n/1e3, 'f', 1, 64) + "k"
	}
	return strconv.FormatFloat(n, 'f', 0, 64)
}
