package store

import (
	"context"
	"strings"
	"testing"
)

// TestCommitBehind: a run committed behind is read by a reader this
// process opens (it waits for the commit), a commit that fails reports its
// error to the next CommitBehind and stores nothing of its run, and a
// measured store never commits behind.
func TestCommitBehind(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t, Options{Simulated: true})
	if err := s.SaveCells(ctx, testCells); err != nil {
		t.Fatal(err)
	}
	first := okRun(testCells[0].Label, "4k", 1, 100, true)
	if err := s.CommitBehind(ctx, first); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	done, err := r.Done(ctx)
	r.Close()
	if err != nil || done[first.RunKey] != StatusOK {
		t.Fatalf("a reader opened after CommitBehind read %v (%v), want %s stored", done, err, first.RunKey)
	}

	unknown := okRun("policy=raid9", "4k", 1, 100, true)
	if err := s.CommitBehind(ctx, unknown); err != nil {
		t.Fatalf("CommitBehind of the run after a stored one: %v, want nil", err)
	}
	second := okRun(testCells[1].Label, "4k", 1, 100, true)
	if err := s.CommitBehind(ctx, second); err == nil || !strings.Contains(err.Error(), "unknown cell") {
		t.Fatalf("CommitBehind after a commit that failed: %v, want that commit's error (unknown cell)", err)
	}
	if err := s.Wait(); err != nil {
		t.Fatalf("Wait after the failed commit's error was returned: %v, want nil (the run after it was not started)", err)
	}
	if done, err := s.Done(ctx); err != nil || len(done) != 1 {
		t.Fatalf("stored %v (%v), want only %s", done, err, first.RunKey)
	}

	m, _ := openTemp(t, Options{})
	if err := m.SaveCells(ctx, testCells); err != nil {
		t.Fatal(err)
	}
	if err := m.CommitBehind(ctx, okRun(testCells[0].Label, "4k", 1, 100, false)); err == nil {
		t.Fatal("a measured store committed a run behind; want it refused")
	}
	if done, err := m.Done(ctx); err != nil || len(done) != 0 {
		t.Fatalf("measured store holds %v (%v), want nothing", done, err)
	}
}

// TestCloseWaitsForTheCommitBehind: Close ends the commit in flight before
// it closes the file, and returns its error when nobody waited for it.
func TestCloseWaitsForTheCommitBehind(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t, Options{Simulated: true})
	if err := s.SaveCells(ctx, testCells); err != nil {
		t.Fatal(err)
	}
	run := wideRun(1, true)
	if err := s.CommitBehind(ctx, run); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	r, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := r.Frame(ctx, "rows")
	r.Close()
	if err != nil || rows.Nrow() != len(run.Result.Rows) {
		t.Fatalf("after Close, %d rows stored (%v), want %d", rows.Nrow(), err, len(run.Result.Rows))
	}

	s, _ = openTemp(t, Options{Simulated: true})
	if err := s.CommitBehind(ctx, okRun("policy=raid9", "4k", 1, 100, true)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err == nil || !strings.Contains(err.Error(), "unknown cell") {
		t.Fatalf("Close after a failed commit nobody waited for: %v, want its error (unknown cell)", err)
	}
}
