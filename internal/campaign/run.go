package campaign

import (
	"context"
	"strings"

	"starbench/internal/progress"
	"starbench/internal/store"
)

// StoredPlan plans spec against the store at path, reading it without
// locking or touching anything. fresh plans as if nothing were stored.
func StoredPlan(ctx context.Context, spec *Spec, path string, fresh, rerunFailed bool) (*Plan, error) {
	var st *store.Store
	if !fresh {
		// No store yet means nothing is done. Other errors are not final
		// either: a store a killed process left with a hot journal opens
		// only for a writer, which recovers it (and refuses a file that is
		// no store); Run plans again under the writer's lock.
		var err error
		if st, err = store.OpenReadOnly(ctx, path); err != nil {
			st = nil
		} else {
			defer st.Close()
		}
	}
	return PlanFrom(ctx, spec, st, rerunFailed)
}

// RunOptions say how one process runs a campaign into its store.
type RunOptions struct {
	// Path is the campaign's store file.
	Path string
	// Simulated says this session's results come from the model.
	Simulated bool
	// Fresh discards the stored runs; RerunFailed runs failed ones again.
	Fresh, RerunFailed bool
	Actions            Actions
	Progress           *progress.Bar
	// Origin is recorded as the session's provenance.
	Origin Origin
	// Observer follows the campaign (nil: none).
	Observer Observer
	// Opened, if set, is called once the store is open for this process:
	// from then on the session has written to it.
	Opened func()
}

// Run runs spec into its store: it opens the store (taking the campaign's
// lock), plans again under the lock (another process may have added runs
// since the plan was shown), records the session with its provenance and
// executes the plan.
func Run(ctx context.Context, spec *Spec, opt RunOptions) (Summary, error) {
	st, err := store.Open(ctx, opt.Path, spec.Name, store.Options{Simulated: opt.Simulated, Fresh: opt.Fresh})
	if err != nil {
		return Summary{}, err
	}
	defer st.Close()
	if opt.Opened != nil {
		opt.Opened()
	}
	if err := checkDefinitions(ctx, spec, st, opt.Origin.DataPlane); err != nil {
		return Summary{}, err
	}
	plan, err := PlanFrom(ctx, spec, st, opt.RerunFailed)
	if err != nil {
		return Summary{}, err
	}
	plan.Simulated = opt.Simulated
	var printed strings.Builder
	plan.Write(&printed)
	session, err := st.BeginSession(ctx, opt.Origin.Provenance(ctx, printed.String()))
	if err != nil {
		return Summary{}, err
	}
	eng := &Engine{Spec: spec, Store: st, Actions: opt.Actions, Progress: opt.Progress, Session: session, Observer: opt.Observer}
	return eng.Execute(ctx, plan)
}
