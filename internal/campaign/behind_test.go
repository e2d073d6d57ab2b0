package campaign

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"starbench/internal/fio"
	"starbench/internal/store"
)

// wrongKind is a cluster whose run number bad returns measured rows into
// the simulated store: its commit, behind the next run, fails.
type wrongKind struct {
	*cluster
	bad int
}

func (w *wrongKind) Run(ctx context.Context, i int, k store.RunKey) (*fio.Result, error) {
	res, err := w.cluster.Run(ctx, i, k)
	if err == nil && w.runs == w.bad {
		res.Simulated, res.Aggregate[0].Simulated = false, false
	}
	return res, err
}

// TestCommitBehindFailureStopsTheCampaign: a simulated run is committed
// behind the next run's simulation; when that commit fails the campaign
// stops naming the run, neither it nor the run simulated meanwhile is
// stored or counted, the settings are restored, and a resume simulates
// both again.
func TestCommitBehindFailureStopsTheCampaign(t *testing.T) {
	s := matrix16()
	path := filepath.Join(t.TempDir(), "wwt.db")
	c := &wrongKind{cluster: newCluster(s), bad: 10}
	sum, err, out := execute(t, context.Background(), path, s, c, store.Options{Simulated: true}, false)
	bad := c.ranUnder[9].key
	if err == nil || !strings.Contains(err.Error(), "run "+bad.String()+" not stored") || !strings.Contains(err.Error(), "never mixes") {
		t.Fatalf("err = %v, want run %s not stored (a store never mixes kinds)", err, bad)
	}
	if errors.Is(err, ErrInterrupted) {
		t.Errorf("err = %v, want a failure, not an interruption", err)
	}
	if sum.Ran != 9 || sum.Complete {
		t.Errorf("summary %+v, want 9 runs done, incomplete", sum)
	}
	if len(c.ranUnder) != 11 {
		t.Errorf("%d runs simulated, want 11 (the failed commit is seen after the next run)", len(c.ranUnder))
	}
	if done := storedRuns(t, path); len(done) != 9 {
		t.Errorf("%d runs stored, want 9", len(done))
	}
	if !strings.Contains(out, "not stored") {
		t.Errorf("progress does not say the run was not stored:\n%s", out)
	}
	assertRestored(t, c.cluster)

	again := newCluster(s)
	sum, err, _ = execute(t, context.Background(), path, s, again, store.Options{Simulated: true}, false)
	if err != nil || sum.Ran != 55 || !sum.Complete {
		t.Fatalf("resume: %+v %v, want the 55 runs not stored done", sum, err)
	}
	if got := again.ranUnder[0].key; got != bad {
		t.Errorf("resume started with %s, want %s, whose commit failed", got, bad)
	}
	if done := storedRuns(t, path); len(done) != 64 {
		t.Errorf("%d runs stored after the resume, want 64", len(done))
	}
}
