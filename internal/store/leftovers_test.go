package store

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCleanStoresLeaveOnlyTheirFile: however a writer and readers take
// turns on a store (a reader after the writer, a reader open while the
// writer closes, a reader alone), once all are closed the directory holds
// the .db file and nothing else: no -wal, -shm or .lock.
func TestCleanStoresLeaveOnlyTheirFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "c.db")
	left := func(when string) {
		t.Helper()
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if !slices.Equal(names, []string{"c.db"}) {
			t.Errorf("%s: the directory holds %v, want only c.db", when, names)
		}
	}
	writer := func() *Store {
		t.Helper()
		s, err := Open(ctx, path, "c", Options{Simulated: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SaveCells(ctx, testCells); err != nil {
			t.Fatal(err)
		}
		return s
	}
	reader := func() *Store {
		t.Helper()
		r, err := OpenReadOnly(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Cells(ctx); err != nil {
			t.Fatal(err)
		}
		return r
	}

	writer().Close()
	left("after a writer")
	reader().Close()
	left("after a reader alone")

	w := writer()
	r := reader()
	w.Close()
	r.Close()
	left("after a reader open while the writer closed")

	w = writer()
	r = reader()
	r.Close()
	w.Close()
	left("after a reader closed before the writer")
}

// TestTheLockIsTakenAgainAfterItsFileWentAway: the lock file is removed on
// Close, and the next writer takes the lock afresh; a reader meanwhile
// sees no writer.
func TestTheLockIsTakenAgainAfterItsFileWentAway(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.db")
	for range 2 {
		s, err := Open(ctx, path, "c", Options{Simulated: true})
		if err != nil {
			t.Fatal(err)
		}
		if !writerAlive(path + ".lock") {
			t.Error("the writer's lock is not seen as held")
		}
		if _, err := Open(ctx, path, "c", Options{Simulated: true}); err == nil {
			t.Fatal("a second writer opened the store")
		}
		s.Close()
		if writerAlive(path + ".lock") {
			t.Error("a closed writer's lock is seen as held")
		}
	}
}
