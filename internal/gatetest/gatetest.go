// Package gatetest lets a test decide how far a script gets, whatever the
// machine's speed: the script's workload waits at a gate before it
// finishes (frame.read_csv("%s/%d" % (GATE, n)) for its n-th run), and the
// test lets each run through, or holds one in flight. A gate is a
// directory of named pipes, one per run, so a release reaches the run it
// is meant for. For tests only.
package gatetest

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Gate is where one process's runs wait.
type Gate struct {
	Dir  string
	next int // the run the next release is for, from 1
}

// New makes a gate with pipes for the first n runs (a run past them fails:
// it finds no pipe).
func New(t *testing.T, n int) *Gate {
	t.Helper()
	g := &Gate{Dir: t.TempDir(), next: 1}
	for i := 1; i <= n; i++ {
		if err := syscall.Mkfifo(filepath.Join(g.Dir, strconv.Itoa(i)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// Reach waits until the next run waits at the gate and returns the write
// end of its pipe: the run stays in flight until Open is called with it.
// gone says the script has ended (the test then fails with why()).
func (g *Gate) Reach(t *testing.T, gone func() bool, why func() string) *os.File {
	t.Helper()
	path := filepath.Join(g.Dir, strconv.Itoa(g.next))
	g.next++
	for {
		// Opening a pipe's write end without blocking succeeds once its
		// reader has it open, and fails with ENXIO before.
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			return f
		}
		if !errors.Is(err, syscall.ENXIO) {
			t.Fatal(err)
		}
		if gone() {
			t.Fatalf("the script ended while the test waited for run %d at the gate:\n%s", g.next-1, why())
		}
		time.Sleep(time.Millisecond)
	}
}

// Open lets the run waiting at f go on.
func Open(t *testing.T, f *os.File) {
	t.Helper()
	if _, err := f.WriteString("gate\n1\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// Release lets the next n runs pass the gate, one after the other.
func (g *Gate) Release(t *testing.T, n int, gone func() bool, why func() string) {
	t.Helper()
	for range n {
		Open(t, g.Reach(t, gone, why))
	}
}
