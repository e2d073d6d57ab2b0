// Package ledger keeps the record of everything starbench runs create or
// change on a vCenter (worker VMs, storage policies, cluster settings, and
// whatever else a package records), so that `starbench run --cleanup` and
// `starbench clean` can remove and restore exactly that, and touch nothing
// else. Every record is appended to a JSON-lines file and synced to disk
// before the change it announces is made: a run killed at any moment leaves
// a ledger that covers what it did.
package ledger

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// FileName is the ledger's file in a run's output directory.
const FileName = "ledger.jsonl"

// Entry is one thing a run created (Created: remove it) or changed (restore
// Before).
type Entry struct {
	ID         string    `json:"id"`
	Run        string    `json:"run"` // the process that recorded it
	At         time.Time `json:"at"`
	VCenter    string    `json:"vcenter"` // host:port of the vCenter
	Datacenter string    `json:"datacenter"`
	Cluster    string    `json:"cluster"`
	// Kind says what the entry is about and who undoes it ("vm", "policy",
	// "cluster", "vm-settings", ...; see Undoer).
	Kind string `json:"kind"`
	// Name is what a person calls it ("w-01", "raid5", "DC0_C0"); Ref is
	// how vCenter names it (managed object or profile id), once known.
	Name    string          `json:"name"`
	Ref     string          `json:"ref,omitempty"`
	Created bool            `json:"created"`
	Before  json.RawMessage `json:"before,omitempty"`
}

// What records say happened to an entry.
const (
	Removed  = "removed"  // a created object was removed
	Restored = "restored" // a change was undone
	Gone     = "gone"     // the object no longer existed
)

// record is one line of the file.
type record struct {
	Op    string `json:"op"` // "add", "ref" or "done"
	Entry *Entry `json:"entry,omitempty"`
	ID    string `json:"id,omitempty"`
	Ref   string `json:"ref,omitempty"`
	How   string `json:"how,omitempty"`
}

// Ledger is an open ledger. Its methods are safe for concurrent use.
type Ledger struct {
	path string // "" keeps the ledger in memory (a simulated target)
	run  string

	mu      sync.Mutex
	f       *os.File
	entries []Entry
	done    map[string]string // id -> how
	seq     int
}

// Open reads the ledger at path (it need not exist; the file is created on
// the first record). An empty path gives a ledger kept in memory only.
func Open(path string) (*Ledger, error) {
	l := &Ledger{path: path, run: rand.Text()[:8], done: map[string]string{}}
	if path == "" {
		return l, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the ledger: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			// A run killed while writing leaves a torn last line: the change
			// it announced was never started.
			if !sc.Scan() {
				break
			}
			return nil, fmt.Errorf("ledger %s line %d is not a ledger record: %v", path, line, err)
		}
		l.apply(r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the ledger %s: %w", path, err)
	}
	return l, nil
}

func (l *Ledger) apply(r record) {
	switch r.Op {
	case "add":
		if r.Entry != nil {
			l.entries = append(l.entries, *r.Entry)
		}
	case "ref":
		for i := range l.entries {
			if l.entries[i].ID == r.ID {
				l.entries[i].Ref = r.Ref
			}
		}
	case "done":
		l.done[r.ID] = r.How
	}
}

// Path is the ledger's file ("" for one kept in memory).
func (l *Ledger) Path() string { return l.path }

// write appends r to the file and syncs it; l.mu is held.
func (l *Ledger) write(r record) error {
	if l.path == "" {
		return nil
	}
	if l.f == nil {
		if err := os.MkdirAll(filepath.Dir(l.path), 0o755); err != nil {
			return fmt.Errorf("ledger: %w", err)
		}
		f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("ledger: %w", err)
		}
		l.f = f
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := l.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("writing the ledger %s: %w", l.path, err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("syncing the ledger %s: %w", l.path, err)
	}
	return nil
}

// Add records e (its ID, Run and At are filled in) and returns its ID. Call
// it before making the change: an error means the change must not be made.
func (l *Ledger) Add(e Entry) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	e.ID = fmt.Sprintf("%s-%d", l.run, l.seq)
	e.Run, e.At = l.run, time.Now().UTC()
	if err := l.write(record{Op: "add", Entry: &e}); err != nil {
		return "", err
	}
	l.entries = append(l.entries, e)
	return e.ID, nil
}

// SetRef records how vCenter names the object of entry id, once it exists.
func (l *Ledger) SetRef(id, ref string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.write(record{Op: "ref", ID: id, Ref: ref}); err != nil {
		return err
	}
	l.apply(record{Op: "ref", ID: id, Ref: ref})
	return nil
}

// Done records that entry id needs nothing more (how: Removed, Restored, Gone).
func (l *Ledger) Done(id, how string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.done[id]; ok {
		return nil
	}
	if err := l.write(record{Op: "done", ID: id, How: how}); err != nil {
		return err
	}
	l.done[id] = how
	return nil
}

// Pending returns the entries not done yet, in the order they were added.
func (l *Ledger) Pending() []Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Entry
	for _, e := range l.entries {
		if _, ok := l.done[e.ID]; !ok {
			out = append(out, e)
		}
	}
	return out
}

// Find returns the pending entry of kind about ref (or, with ref "", about
// name) on vcenter, if any.
func (l *Ledger) Find(vcenter, kind, name, ref string) (Entry, bool) {
	for _, e := range l.Pending() {
		if e.VCenter == vcenter && e.Kind == kind && ((ref != "" && e.Ref == ref) || (ref == "" && e.Name == name)) {
			return e, true
		}
	}
	return Entry{}, false
}

// Close closes the ledger's file.
func (l *Ledger) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// Undoer removes or restores the entries of one kind.
type Undoer struct {
	// Phase orders the kinds: lower phases are undone first (the VMs
	// before the policies they use, those before cluster settings).
	Phase int
	// Undo removes what e created or restores what it changed, and says
	// which it did (Removed, Restored) or that the object was Gone. It
	// must leave alone anything that is not the entry's own object.
	Undo func(ctx context.Context, e Entry) (how string, err error)
}

// Outcome is what Undo did with one entry.
type Outcome struct {
	Entry Entry
	How   string // Removed, Restored or Gone; "" when Err is set
	Err   error
}

// Undo undoes the pending entries on vcenter, phase by phase and newest
// first within a phase, with the undoers by kind; it goes on past failures
// and reports every entry to report (nil: none). It returns the failures
// joined; entries of other vCenters and of unknown kinds are failures too.
func (l *Ledger) Undo(ctx context.Context, vcenter string, undoers map[string]Undoer, report func(Outcome)) error {
	return l.UndoWhere(ctx, vcenter, undoers, func(Entry) bool { return true }, report)
}

// UndoWhere is Undo for the pending entries match selects only (the
// changes events made, which are set back at every end of a run).
func (l *Ledger) UndoWhere(ctx context.Context, vcenter string, undoers map[string]Undoer, match func(Entry) bool, report func(Outcome)) error {
	pending := slices.DeleteFunc(l.Pending(), func(e Entry) bool { return !match(e) })
	slices.Reverse(pending)
	slices.SortStableFunc(pending, func(a, b Entry) int { return undoers[a.Kind].Phase - undoers[b.Kind].Phase })
	var errs []error
	for _, e := range pending {
		o := Outcome{Entry: e}
		u, ok := undoers[e.Kind]
		switch {
		case e.VCenter != vcenter:
			o.Err = fmt.Errorf("%s %s was recorded on the vCenter at %s, not %s: point GOVC_URL there", e.Kind, e.Name, e.VCenter, vcenter)
		case !ok:
			o.Err = fmt.Errorf("%s %s: this starbench does not know how to undo a %q entry", e.Kind, e.Name, e.Kind)
		default:
			o.How, o.Err = u.Undo(ctx, e)
			if o.Err == nil {
				o.Err = l.Done(e.ID, o.How)
			}
		}
		if o.Err != nil {
			o.How = ""
			errs = append(errs, o.Err)
		}
		if report != nil {
			report(o)
		}
		if ctx.Err() != nil {
			errs = append(errs, ctx.Err())
			break
		}
	}
	return errors.Join(errs...)
}
