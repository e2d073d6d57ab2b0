package cli

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"starbench/internal/campaign"
	"starbench/internal/model"
	"starbench/internal/store"
	"starbench/internal/target"
	"starbench/internal/testbed"
)

// observed is what the model solved for one run of a simulated campaign.
type observed struct {
	profile *testbed.Profile // the testbed it ran on
	in      model.Input
	fill    float64          // OSA's write buffers as the run started
	figures model.FitFigures // the run's as the model laid it out (model.RunFigures)
	held    bool             // a rate holds its I/Os (Output.RateLimited)
	solves  int
}

// inCampaignOrder compares runs as a campaign ran them: by their cell's
// place (order, by cell label), then workload and repeat.
func inCampaignOrder(order map[string]int) func(x, y store.RunKey) int {
	return func(x, y store.RunKey) int {
		return cmp.Or(cmp.Compare(order[x.Cell], order[y.Cell]), strings.Compare(x.Workload, y.Workload), cmp.Compare(x.Repeat, y.Repeat))
	}
}

// sameInput says whether o and other ran the same input from the same
// write buffers: a repeat, which the model answers alike.
func (o *observed) sameInput(other *observed) bool {
	return o.profile == other.profile && o.fill == other.fill && reflect.DeepEqual(o.in, other.in)
}

// runSimulated runs script on the embedded simulator of testbed bed (a
// shipped name or a profile file; "", the testbeds the script picks),
// exactly and without noise, with its stores under dir, and returns what
// the model solved for each run of the campaigns keep accepts, by
// campaign and run.
func runSimulated(ctx context.Context, script, bed string, sets map[string]string, dir string, keep func(campaign string) bool) (map[string]map[store.RunKey]*observed, error) {
	var mu sync.Mutex
	seen := map[string]map[store.RunKey]*observed{}
	observe := func(ctx context.Context, p *testbed.Profile, in model.Input, out model.Output, fill float64) {
		id, ok := campaign.RunOf(ctx)
		if !ok || !keep(id.Campaign) {
			return // a warm-up, a fill, a run outside the campaigns
		}
		mu.Lock()
		defer mu.Unlock()
		if seen[id.Campaign] == nil {
			seen[id.Campaign] = map[store.RunKey]*observed{}
		}
		o := seen[id.Campaign][id.RunKey]
		if o == nil {
			o = &observed{}
			seen[id.Campaign][id.RunKey] = o
		}
		o.profile, o.in, o.fill, o.figures, o.held = p, in, fill, model.RunFigures(p, in, &out, fill), out.RateLimited
		o.solves++
	}
	open := func(ctx context.Context, opts target.Options) (*target.Target, func(), error) {
		opts.Kind, opts.ExactModel, opts.Observe = target.Embedded, true, observe
		if bed != "" {
			opts.Testbed = bed
		}
		return openTarget(ctx, opts)
	}
	args := []string{"run", script, "--out", dir, "--no-progress", "--no-noise", "--target", "embedded"}
	if bed != "" {
		args = append(args, "--testbed", bed)
	}
	for _, k := range slices.Sorted(maps.Keys(sets)) {
		args = append(args, "--set", k+"="+sets[k])
	}
	var stderr bytes.Buffer
	sim := &State{Args: args, Env: map[string]string{}, Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &stderr, OpenTarget: open}
	if code := Run(sim); code != ExitOK {
		return nil, fmt.Errorf("the simulated run of %s failed (exit %d):\n%s", script, code, stderr.String())
	}
	return seen, ctx.Err()
}
