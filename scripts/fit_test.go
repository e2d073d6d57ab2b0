package scripts_test

import (
	"bytes"
	"context"
	"flag"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"

	"starbench/internal/cli"
	"starbench/internal/model"
	"starbench/internal/target"
	"starbench/internal/testbed"
)

var fit = flag.Bool("fit", false, "refit the model's fitted parameters to storagereview-esa-8u2.csv and print them")

// solvedCell is one run of the StorageReview campaign as the model saw it.
type solvedCell struct {
	p  *testbed.Profile
	in model.Input
}

// recordStorageReview runs scripts/storagereview_esa.star for both SSD
// counts, as TestStorageReviewCalibration does, and returns every cell the
// model solved: the inputs the campaign really produced.
func recordStorageReview(t *testing.T) []solvedCell {
	t.Helper()
	var mu sync.Mutex
	var cells []solvedCell
	open := func(ctx context.Context, opts target.Options) (*target.Target, func(), error) {
		tg, closeFn, err := target.Open(ctx, opts)
		if err == nil && tg.Simulated {
			tg.DataPlane = model.NewPlane(tg.Testbed, tg.VSphere, model.WithObserver(func(_ context.Context, p *testbed.Profile, in model.Input, _ model.Output, _ float64) {
				mu.Lock()
				cells = append(cells, solvedCell{p, in})
				mu.Unlock()
			}))
		}
		return tg, closeFn, err
	}
	out := t.TempDir()
	for _, ssds := range []string{"8", "4"} {
		var stdout, stderr bytes.Buffer
		args := []string{"run", "scripts/storagereview_esa.star", "--out", out, "--no-progress", "--set", "ssds=" + ssds}
		st := &cli.State{Args: args, Env: map[string]string{}, Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, OpenTarget: open}
		if code := cli.Run(st); code != 0 {
			t.Fatalf("starbench %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
		}
	}
	return cells
}

// cellKey names a solved cell as the published table does.
func cellKey(c solvedCell) (key string, sequential bool) {
	j := c.in.Jobs[0].Job
	w := map[string]string{"write": "1m-seq-write", "read": "1m-seq-read", "randwrite": "4k-rand-write", "randread": "4k-rand-read", "randrw": "8k-rand-70-30"}[j.RW]
	return strings.Join([]string{strconv.Itoa(c.p.Storage.CapacityDevices), c.in.Jobs[0].Disks[0].Policy.RAID, w}, "/"), j.RW == "read" || j.RW == "write"
}

// TestFitCalibration reproduces the fitted parameters of
// testbed.DefaultModel (those whose source says "fitted to
// storagereview-esa-8u2.csv"): a coordinate search (multiplicative steps)
// minimising the worst relative error over the 20 published cells, on the
// inputs the shipped script produces. Run from the repository root:
//
//	go test ./scripts -run Fit -fit -v
func TestFitCalibration(t *testing.T) {
	if !*fit {
		t.Skip("run with -fit to refit")
	}
	t.Chdir("..")
	published := map[string]float64{}
	for _, p := range readPublished(t, "internal/model/testdata/storagereview-esa-8u2.csv") {
		published[p.ssds+"/"+p.policy+"/"+p.workload] = p.value
	}
	cells := recordStorageReview(t)
	// The fitted parameters of every profile the campaign used, by name:
	// a candidate value is set on all of them at once.
	params := map[string][]*testbed.Param{}
	var names []string
	for _, c := range cells {
		c.p.Model.Each(func(name string, q *testbed.Param) {
			if !strings.HasPrefix(q.Source, testbed.FittedToStorageReview) {
				return
			}
			if len(params[name]) == 0 {
				names = append(names, name)
			}
			for _, have := range params[name] {
				if have == q {
					return
				}
			}
			params[name] = append(params[name], q)
		})
	}
	score := func() float64 {
		worst, squares := 0.0, 0.0
		for _, c := range cells {
			out, err := model.Solve(context.Background(), c.p, c.in)
			if err != nil {
				t.Fatal(err)
			}
			key, seq := cellKey(c)
			got := out.Read.IOPS + out.Write.IOPS
			if seq {
				got = out.Read.MBps + out.Write.MBps
			}
			r := math.Abs(got/published[key] - 1)
			worst = math.Max(worst, r)
			squares += r * r
		}
		return worst + 0.01*squares
	}
	set := func(name string, v float64) {
		for _, q := range params[name] {
			q.Value = v
		}
	}
	best := score()
	for step := 0.2; step > 0.002; step /= 2 {
		for improved := true; improved; {
			improved = false
			for _, name := range names {
				old := params[name][0].Value
				for _, f := range []float64{1 + step, 1 / (1 + step)} {
					if set(name, old*f); score() < best-1e-9 {
						best, improved, old = score(), true, old*f
					} else {
						set(name, old)
					}
				}
			}
		}
	}
	for _, name := range names {
		t.Logf("%s = %.4g", name, params[name][0].Value)
	}
	t.Logf("%d cells; score (worst + 0.01 x sum of squares) = %.4f", len(cells), best)
}
