package campaign

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"starbench/internal/fio"
	"starbench/internal/progress"
	"starbench/internal/store"
)

// Actions are what the engine does to the cluster and the workers; the
// campaign builtins implement them with the script's callables.
type Actions interface {
	// Apply sets factor to level and returns a token that restores the
	// setting the cluster had before this change.
	Apply(ctx context.Context, factor, level int) (token string, err error)
	// Restore puts factor back as token (from the campaign's first Apply)
	// says. An error wrapping ErrUnrestorable says no later attempt can do it.
	Restore(ctx context.Context, factor int, token string) error
	// Prepare fills the workers' disks before measuring.
	Prepare(ctx context.Context) error
	// Warmup runs the workload's warm-up, if it has one.
	Warmup(ctx context.Context, workload int) error
	// Run measures one run of a workload.
	Run(ctx context.Context, workload int, key store.RunKey) (*fio.Result, error)
	// Metrics returns host metrics for a run's window (nil when not asked for).
	Metrics(ctx context.Context, start, end time.Time) ([]store.HostMetric, error)
}

// PlanFrom plans spec against what st holds (st may be nil: nothing stored).
func PlanFrom(ctx context.Context, spec *Spec, st *store.Store, rerunFailed bool) (*Plan, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if st == nil {
		return NewPlan(spec, nil, rerunFailed, nil), nil
	}
	done, err := st.Done(ctx)
	if err != nil {
		return nil, err
	}
	flagged, err := flaggedBase(ctx, spec, st)
	if err != nil {
		return nil, err
	}
	return NewPlan(spec, done, rerunFailed, flagged), nil
}

// Engine executes a plan into a store.
type Engine struct {
	Spec     *Spec
	Store    *store.Store
	Actions  Actions
	Progress *progress.Bar
	// Session is the store session runs are recorded under.
	Session int64
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Observer follows the campaign (nil: none).
	Observer Observer

	// commitBehind says runs are committed behind the next run's
	// simulation; inFlight is the run whose commit is in flight, if any.
	commitBehind bool
	inFlight     *handed
}

// Summary is what a campaign execution did.
type Summary struct {
	Ran, Failed int
	// Complete is true when every planned run is in the store.
	Complete bool
	// Flagged are the cell and workload pairs whose repeats vary above the threshold.
	Flagged []Stat
}

// ErrInterrupted is wrapped by Execute's error when the context was cancelled.
var ErrInterrupted = errors.New("campaign interrupted")

// ErrUnrestorable marks a Restore error that no later attempt can cure (the
// token was known only to a process that is gone, or names no level any
// more): the engine reports it once and forgets the original, instead of
// failing every later run of the campaign with it.
var ErrUnrestorable = errors.New("no process can restore this setting")

// Execute runs plan: it saves the cells, walks the steps (changes,
// preparation, runs; each run committed when it completes) and, at the end
// or on interruption, restores every setting the campaign changed to what it
// was before the campaign's first change, even one changed by an earlier
// process that was killed.
func (e *Engine) Execute(ctx context.Context, plan *Plan) (sum Summary, err error) {
	if e.Now == nil {
		e.Now = time.Now
	}
	// A simulated run is committed behind the next one's simulation, unless
	// an observer follows the campaign: it sees each run stored before the
	// next one starts.
	e.commitBehind = e.Store.Simulated && e.Observer == nil
	if e.Observer == nil {
		e.Observer = noObserver{}
	}
	defer func() {
		e.Observer.CampaignEnded(err == nil && sum.Complete)
		if rerr := e.restore(context.WithoutCancel(ctx)); rerr != nil {
			err = errors.Join(err, rerr)
		}
		status := store.SessionCompleted
		switch {
		case errors.Is(err, ErrInterrupted):
			status = store.SessionInterrupted
		case err != nil:
			status = store.SessionFailed
		}
		if serr := e.Store.EndSession(context.WithoutCancel(ctx), e.Session, status); serr != nil {
			err = errors.Join(err, serr)
		}
	}()
	cells := make([]store.Cell, len(plan.Cells))
	for i, c := range plan.Cells {
		cells[i] = e.Spec.StoreCell(c, i)
	}
	e.Progress.Start(e.Spec.Name, plan.Total, plan.Kept(), perRun(plan))
	e.Observer.CampaignStarted(e.Spec.Name, e.Store.Simulated, plan.Total, plan.Kept())
	// Every way out from here stops the progress display (its ticker too):
	// finish on success, stopped otherwise.
	err = e.Store.SaveFactors(ctx, e.Spec.StoreFactors())
	if err == nil {
		err = e.Store.SaveCells(ctx, cells)
	}
	if err == nil {
		err = e.steps(ctx, &sum, plan)
		// However the steps ended, the run handed over last is stored.
		if serr := e.settle(&sum); serr != nil {
			err = errors.Join(err, serr)
		}
	}
	if err == nil {
		err = e.finish(ctx, &sum, plan)
	}
	if err != nil {
		return sum, e.stopped(ctx, &sum, plan, err)
	}
	return sum, nil
}

// steps walks the plan's steps: changes, preparation, runs.
func (e *Engine) steps(ctx context.Context, sum *Summary, plan *Plan) error {
	saved := map[int]bool{}
	for i, st := range plan.Steps {
		for _, c := range st.Changes {
			f := e.Spec.Factors[c.Factor]
			e.Progress.Event("cell %d/%d: %s -> %s", i+1, len(plan.Steps), f.Name, f.Levels[c.To])
			token, err := e.Actions.Apply(ctx, c.Factor, c.To)
			if err != nil {
				return fmt.Errorf("setting %s=%s: %w", f.Name, f.Levels[c.To], err)
			}
			if !saved[c.Factor] {
				if err := e.Store.SaveOriginal(context.WithoutCancel(ctx), f.Name, token); err != nil {
					return err
				}
				saved[c.Factor] = true
			}
		}
		if st.Prepare {
			e.Progress.Event("cell %d/%d: preparing disks", i+1, len(plan.Steps))
			if err := e.Actions.Prepare(ctx); err != nil {
				return fmt.Errorf("preparing disks: %w", err)
			}
		}
		for _, k := range st.Runs {
			if err := e.runOne(ctx, sum, i+1, len(plan.Steps), k); err != nil {
				return err
			}
		}
		if err := e.settle(sum); err != nil {
			return err
		}
		if err := e.rerunHighCV(ctx, sum, i+1, len(plan.Steps), st.Label); err != nil {
			return err
		}
		if err := e.settle(sum); err != nil {
			return err
		}
	}
	return nil
}

// perRun is the mean estimated run duration of plan (0 when unknown).
func perRun(plan *Plan) time.Duration {
	e := plan.Estimate()
	if !e.RunsKnown || plan.Pending() == 0 {
		return 0
	}
	return e.Runs / time.Duration(plan.Pending())
}

func (e *Engine) runOne(ctx context.Context, sum *Summary, cell, cells int, k store.RunKey) error {
	w := e.workload(k.Workload)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	e.Progress.RunStart(cell, cells, k.String(), time.Duration(e.Spec.Workloads[w].Seconds*float64(time.Second)))
	e.Observer.RunStarted(k)
	start := e.Now()
	err := e.Actions.Warmup(ctx, w)
	if err != nil {
		err = fmt.Errorf("warm-up: %w", err)
	}
	var res *fio.Result
	if err == nil {
		res, err = e.Actions.Run(WithRun(ctx, RunID{e.Spec.Name, k}), w, k)
	}
	end := e.Now()
	if ctx.Err() != nil {
		// The run did not complete: it is redone on resume, never stored half.
		e.Progress.RunEnd("interrupted")
		return ctx.Err()
	}
	run := store.Run{RunKey: k, Session: e.Session, Start: start, End: end, Result: res, Err: err}
	if err == nil {
		metrics, merr := e.Actions.Metrics(ctx, start, end)
		if merr != nil {
			res.Notes = append(res.Notes, "host metrics unavailable: "+merr.Error())
		}
		run.Metrics = metrics
	}
	if e.commitBehind {
		// Committed behind the next run's simulation: counted and
		// observed as stored once its commit has returned (settle).
		cerr := e.settle(sum)
		if cerr == nil {
			cerr = e.Store.CommitBehind(context.WithoutCancel(ctx), run)
		}
		if cerr != nil {
			e.Progress.RunEnd("not stored")
			return cerr
		}
		e.inFlight = &handed{k, res, err}
		e.Progress.RunEnd(outcome(err))
		return nil
	}
	if cerr := e.Store.CommitRun(context.WithoutCancel(ctx), run); cerr != nil {
		e.Progress.RunEnd("not stored")
		return cerr
	}
	e.stored(sum, handed{k, res, err})
	e.Progress.RunEnd(outcome(err))
	return nil
}

// RunID names one run of a campaign.
type RunID struct {
	Campaign string
	store.RunKey
}

// runKey is the context key of the run a workload is measuring.
type runKey struct{}

// WithRun returns ctx saying that what runs under it measures run id (not
// its warm-up): what the simulated data plane solves under it can be told
// apart by run (starbench fit).
func WithRun(ctx context.Context, id RunID) context.Context {
	return context.WithValue(ctx, runKey{}, id)
}

// RunOf is the run ctx measures (WithRun), if any.
func RunOf(ctx context.Context) (RunID, bool) {
	id, ok := ctx.Value(runKey{}).(RunID)
	return id, ok
}

// handed is a run handed over to the store, committed behind the next one.
type handed struct {
	key store.RunKey
	res *fio.Result
	err error
}

// settle waits for the commit of the run handed over last, if one is in
// flight, and counts it as stored. The engine settles before it reads the
// store or changes a setting, and before it returns.
func (e *Engine) settle(sum *Summary) error {
	if e.inFlight == nil {
		return nil
	}
	if err := e.Store.Wait(); err != nil {
		return e.notStored(err)
	}
	e.stored(sum, *e.inFlight)
	e.inFlight = nil
	return nil
}

// notStored is the error of the commit of the run handed over last; that
// run and any simulated since are not stored (a resume simulates them).
func (e *Engine) notStored(err error) error {
	k := e.inFlight.key
	e.inFlight = nil
	return fmt.Errorf("run %s not stored: %w", k, err)
}

// stored counts a run as stored.
func (e *Engine) stored(sum *Summary, h handed) {
	sum.Ran++
	e.Observer.RunStored(h.key, h.res, h.err)
	if h.err != nil {
		sum.Failed++
	}
}

// outcome is a run's outcome as its progress line ends.
func outcome(err error) string {
	if err != nil {
		return "failed: " + err.Error()
	}
	return "ok"
}

func (e *Engine) workload(name string) int {
	for i, w := range e.Spec.Workloads {
		if w.Name == name {
			return i
		}
	}
	panic("internal error: run of an undeclared workload " + name)
}

// rerunHighCV gives a cell's workloads whose base repeats vary above the
// threshold Repeat more repeats, once.
func (e *Engine) rerunHighCV(ctx context.Context, sum *Summary, cell, cells int, label string) error {
	if !e.Spec.RerunHighCV || e.Spec.CVThreshold <= 0 {
		return nil
	}
	// This cell's runs alone: after every cell, reading every run would
	// cost cells x runs over a campaign.
	done, err := e.Store.CellDone(ctx, label)
	if err != nil {
		return err
	}
	flagged, err := flaggedIn(ctx, e.Spec, e.Store, label)
	if err != nil {
		return err
	}
	for _, w := range e.Spec.Workloads {
		if !flagged[Pair{label, w.Name}] {
			continue
		}
		var extra []store.RunKey
		for r := e.Spec.Repeat + 1; r <= 2*e.Spec.Repeat; r++ {
			k := store.RunKey{Cell: label, Workload: w.Name, Repeat: r}
			if _, ok := done[k]; !ok {
				extra = append(extra, k)
			}
		}
		if len(extra) == 0 {
			continue
		}
		e.Progress.Event("cell %d/%d: %s varies above CV %.3g; %d more repeats", cell, cells, w.Name, e.Spec.CVThreshold, len(extra))
		e.Progress.AddRuns(len(extra))
		e.Observer.RunsAdded(len(extra))
		for _, k := range extra {
			if err := e.runOne(ctx, sum, cell, cells, k); err != nil {
				return err
			}
		}
	}
	return nil
}

// stopped turns the reason the campaign stopped into its error.
func (e *Engine) stopped(ctx context.Context, sum *Summary, plan *Plan, cause error) error {
	if ctx.Err() != nil {
		e.Progress.Stop("campaign %s interrupted: %d runs done now; restoring settings", e.Spec.Name, sum.Ran)
		return fmt.Errorf("%w after %d of %d runs (%w); settings restored; run the script again to resume",
			ErrInterrupted, plan.Kept()+sum.Ran, plan.Total, ctx.Err())
	}
	e.Progress.Stop("campaign %s stopped: %v", e.Spec.Name, cause)
	return cause
}

// finish summarises the repeats, marks a complete campaign and says so.
func (e *Engine) finish(ctx context.Context, sum *Summary, plan *Plan) error {
	stats, err := ReadStats(ctx, e.Store, e.Spec.CVThreshold)
	if err != nil {
		return err
	}
	for _, s := range stats {
		if s.Flagged {
			sum.Flagged = append(sum.Flagged, s)
			e.Progress.Event("varies: %s / %s %s: IOPS CV %.1f%% over %d repeats (threshold %.1f%%)",
				s.Cell, s.Workload, s.Direction, 100*s.CV, s.N, 100*e.Spec.CVThreshold)
		}
	}
	after, err := PlanFrom(ctx, e.Spec, e.Store, false)
	if err != nil {
		return err
	}
	sum.Complete = after.Pending() == 0
	if sum.Complete {
		if err := e.Store.MarkCompleted(ctx); err != nil {
			return err
		}
	}
	msg := fmt.Sprintf("campaign %s: %d runs done now (%d failed), %d of %d stored", e.Spec.Name, sum.Ran, sum.Failed, after.Stored, after.Total)
	if len(sum.Flagged) > 0 {
		msg += fmt.Sprintf("; %d cell workloads vary above CV %.3g", len(sum.Flagged), e.Spec.CVThreshold)
	}
	e.Progress.Stop("%s", msg)
	return nil
}

// restore puts back every factor the store has an original for, cheapest
// first, and forgets each original once it is restored or can never be.
// Originals of factors the campaign no longer declares are reported, not
// dropped silently.
func (e *Engine) restore(ctx context.Context) error {
	originals, err := e.Store.Originals(ctx)
	if err != nil || len(originals) == 0 {
		return err
	}
	order := costOrder(e.Spec)
	var errs []error
	for i := len(order) - 1; i >= 0; i-- {
		f := e.Spec.Factors[order[i]]
		token, ok := originals[f.Name]
		if !ok {
			continue
		}
		delete(originals, f.Name)
		err := e.Actions.Restore(ctx, order[i], token)
		switch {
		case err == nil:
			e.Progress.Event("restored %s", f.Name)
		case errors.Is(err, ErrUnrestorable):
			errs = append(errs, fmt.Errorf("restoring %s: %w", f.Name, err))
		default:
			errs = append(errs, fmt.Errorf("restoring %s: %w", f.Name, err))
			continue // kept: the next run of the campaign tries again
		}
		if err := e.Store.ForgetOriginal(ctx, f.Name); err != nil {
			errs = append(errs, err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(originals)) {
		errs = append(errs, fmt.Errorf("restoring %s: %w: campaign %s declares no factor %s any more; its setting from before the campaign (%s) is not restored: set it back by hand",
			name, ErrUnrestorable, e.Spec.Name, name, originals[name]))
		if err := e.Store.ForgetOriginal(ctx, name); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
