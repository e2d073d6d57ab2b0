package builtins

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"starbench/internal/ledger"
	"starbench/internal/runtime"
	"starbench/internal/target"
)

// keepLedger gives the session's freshly opened target its ledger: on a
// vCenter the file in the output directory (earlier runs' entries
// included), so that `starbench clean` can undo the run later; on a
// simulated target, which ends with the session, one in memory.
func keepLedger(s *runtime.Session, t *target.Target) error {
	if t == nil || t.VSphere == nil {
		return nil
	}
	path := ""
	if t.Kind == target.VCenter && s.OutDir != "" {
		path = filepath.Join(s.OutDir, ledger.FileName)
	}
	l, err := ledger.Open(path)
	if err != nil {
		return err
	}
	t.VSphere.SetLedger(l)
	s.OnClose(func() { l.Close() })
	return nil
}

// cleanupTimeout bounds the cleanup at the end of a run.
const cleanupTimeout = 30 * time.Minute

// Cleanup removes what the session's target recorded in its ledger as
// created and restores what it recorded as changed (earlier runs' pending
// entries in the same output directory too), writing one line per entry to
// w. It runs after the script ended however it ended, so it ignores the
// session's cancellation. A session that opened no target has nothing to do.
func Cleanup(s *runtime.Session, w io.Writer) error {
	t := openedTarget(s)
	if t == nil || t.VSphere == nil || t.VSphere.Ledger() == nil {
		return nil
	}
	ctx := context.Background()
	if s.Ctx != nil {
		ctx = context.WithoutCancel(s.Ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, cleanupTimeout)
	defer cancel()
	return Undo(ctx, t.VSphere.Ledger(), t.VSphere.Host(), t.VSphere.Undoers(), w)
}

// Undo undoes the pending entries of l on the vCenter at host, writing one
// line per entry and a summary to w.
func Undo(ctx context.Context, l *ledger.Ledger, host string, undoers map[string]ledger.Undoer, w io.Writer) error {
	pending := len(l.Pending())
	if pending == 0 {
		return nil
	}
	counts := map[string]int{}
	err := l.Undo(ctx, host, undoers, func(o ledger.Outcome) {
		what := o.Entry.Kind + " " + o.Entry.Name
		switch o.How {
		case ledger.Removed:
			fmt.Fprintf(w, "cleanup: removed %s\n", what)
		case ledger.Restored:
			fmt.Fprintf(w, "cleanup: restored %s\n", what)
		case ledger.Gone:
			fmt.Fprintf(w, "cleanup: %s was gone already\n", what)
		default:
			fmt.Fprintf(w, "cleanup: FAILED %s: %v\n", what, o.Err)
			counts["failed"]++
			return
		}
		counts[o.How]++
	})
	fmt.Fprintf(w, "cleanup: %d removed, %d restored, %d gone already, %d failed", counts[ledger.Removed], counts[ledger.Restored], counts[ledger.Gone], counts["failed"])
	if p := l.Path(); p != "" && err != nil {
		fmt.Fprintf(w, "; what is left stays in %s for starbench clean", p)
	}
	fmt.Fprintln(w)
	if err != nil {
		return fmt.Errorf("cleanup incomplete: %w", err)
	}
	return nil
}
