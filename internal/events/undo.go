package events

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"starbench/internal/vsphere"
)

// The kinds of change an action makes, each with its undo.
const (
	ChangeMaintenance = "maintenance"  // a host put into maintenance mode: take it out
	ChangeHostFailure = "host_failure" // a host isolated or powered off: bring it back
	ChangeSnapshot    = "snapshot"     // a snapshot of workers: delete it
)

// Change is one thing an action changed on the cluster, recorded before it
// is made, with what its undo needs.
type Change struct {
	ID int `json:"id"`
	// Cluster names the cluster changed (vCenter host and cluster name), so
	// that a change is never undone on another one.
	Cluster string `json:"cluster"`
	Kind    string `json:"kind"`
	Target  string `json:"target"` // the host, or the snapshot's name
	// Failure is how a host was taken out (ChangeHostFailure).
	Failure *vsphere.HostFailure `json:"failure,omitempty"`
	// Workers are the VMs a snapshot was taken of (ChangeSnapshot).
	Workers []vsphere.Worker `json:"workers,omitempty"`
	// Done marks the change undone (a line of its own in the journal).
	Done bool `json:"done,omitempty"`
}

// String says what the change is, for the undo lines.
func (c Change) String() string {
	switch c.Kind {
	case ChangeMaintenance:
		return "host " + c.Target + " in maintenance mode"
	case ChangeHostFailure:
		return fmt.Sprintf("host %s failed (%s)", c.Target, c.Failure.How)
	case ChangeSnapshot:
		return fmt.Sprintf("snapshot %s of %d workers", c.Target, len(c.Workers))
	}
	return c.Kind + " " + c.Target
}

// Undo sets back what c changed. Each undo may run twice (a crash between
// undoing and recording it): it does nothing when there is nothing to undo.
func Undo(ctx context.Context, vc *vsphere.Client, c Change) error {
	switch c.Kind {
	case ChangeMaintenance:
		_, err := vc.Maintenance(ctx, c.Target, false, "", 0)
		return err
	case ChangeHostFailure:
		if c.Failure == nil {
			return fmt.Errorf("internal error: host failure of %s without how", c.Target)
		}
		return vc.RestoreHost(ctx, *c.Failure, 0)
	case ChangeSnapshot:
		return vc.DeleteSnapshot(ctx, c.Workers, c.Target, 0)
	}
	return fmt.Errorf("a change of kind %q: this starbench cannot undo it; set it back by hand", c.Kind)
}

// Ledger holds the changes of one session that are not undone yet: in
// memory, and for a real cluster also in a journal file, so that the next
// process undoes what a crashed one left.
type Ledger struct {
	mu      sync.Mutex
	cluster string
	path    string // "" keeps the changes in memory only
	next    int
	open    []Change
}

// OpenLedger returns the ledger of cluster, journalled at path ("" for
// none). Changes a crashed process left in the journal for this cluster are
// open in it; those of other clusters stay in the file untouched.
func OpenLedger(path, cluster string) (*Ledger, error) {
	l := &Ledger{cluster: cluster, path: path}
	if path == "" {
		return l, nil
	}
	all, err := readJournal(path)
	if err != nil {
		return nil, err
	}
	for _, c := range all {
		l.next = max(l.next, c.ID+1)
		if c.Cluster == cluster {
			l.open = append(l.open, c)
		}
	}
	return l, nil
}

// readJournal reads the changes in the journal that are not marked done.
func readJournal(path string) ([]Change, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the record of cluster changes: %w", err)
	}
	defer f.Close()
	var out []Change
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		var c Change
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			// A line cut short by a crash is the last one; it was never acted on.
			continue
		}
		if c.Done {
			out = slices.DeleteFunc(out, func(o Change) bool { return o.ID == c.ID })
			continue
		}
		out = append(out, c)
	}
	return out, sc.Err()
}

// Record adds c (kind, target and what the undo needs) before the change is
// made, and returns it numbered.
func (l *Ledger) Record(c Change) (Change, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c.ID, c.Cluster = l.next, l.cluster
	l.next++
	if err := l.append(c); err != nil {
		return c, err
	}
	l.open = append(l.open, c)
	return c, nil
}

// Undone marks the open changes that match as undone: the script set them
// back itself (a host out of maintenance mode), or an undo did.
func (l *Ledger) Undone(match func(Change) bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	l.open = slices.DeleteFunc(l.open, func(c Change) bool {
		if !match(c) {
			return false
		}
		errs = append(errs, l.append(Change{ID: c.ID, Cluster: c.Cluster, Kind: c.Kind, Target: c.Target, Done: true}))
		return true
	})
	return errors.Join(errs...)
}

// Open returns the changes not undone, oldest first.
func (l *Ledger) Open() []Change {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.open)
}

// append writes c to the journal and syncs it.
func (l *Ledger) append(c Change) error {
	if l.path == "" {
		return nil
	}
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("recording a cluster change: %w", err)
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("recording a cluster change: %w", err)
	}
	return nil
}

// Mark is the number the next change will take: UndoAll(since=Mark())
// undoes what was changed from now on.
func (l *Ledger) Mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.next
}

// UndoAll undoes the open changes numbered since or later, newest first,
// saying each on report. An undo that fails is reported and stays open (the
// next process tries again); the others still run.
func (l *Ledger) UndoAll(ctx context.Context, vc *vsphere.Client, since int, report func(string)) error {
	open := l.Open()
	var errs []error
	for i := len(open) - 1; i >= 0; i-- {
		c := open[i]
		if c.ID < since {
			continue
		}
		start := time.Now()
		if err := Undo(ctx, vc, c); err != nil {
			report(fmt.Sprintf("undo: %s: FAILED: %v (still recorded; the next run tries again)", c, err))
			errs = append(errs, fmt.Errorf("undoing %s: %w", c, err))
			continue
		}
		report(fmt.Sprintf("undo: %s: set back (%.1f s)", c, time.Since(start).Seconds()))
		if err := l.Undone(func(o Change) bool { return o.ID == c.ID }); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ClusterID names a vSphere client's cluster for the ledger.
func ClusterID(vc *vsphere.Client) string {
	return strings.Join([]string{vc.Host(), vc.Cluster()}, "/")
}
