package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"starbench/internal/report"
	"starbench/internal/runtime"
)

// writeReports writes the HTML and Markdown report of every campaign store
// the session wrote (after `starbench run`): report.html and report.md for
// one campaign, NAME-report.* for each of several. The reports embed the
// figures the session saved. An older store in the same folder (perhaps
// measured) gets no report of this run's figures.
func writeReports(st *State, s *runtime.Session) error {
	var stores []string
	for _, f := range s.Written() {
		if filepath.Ext(f) == ".db" {
			stores = append(stores, f)
		}
	}
	for _, db := range stores {
		base := "report"
		if len(stores) > 1 {
			base = strings.TrimSuffix(filepath.Base(db), ".db") + "-report"
		}
		if err := writeReport(st, s, db, base); err != nil {
			return err
		}
	}
	return nil
}

// writeReport writes the report of the store db into the session's output
// directory as base.html and base.md, with the figures the session saved,
// and says where.
// An interrupt stops it.
func writeReport(st *State, s *runtime.Session, db, base string) error {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	defer watchInterrupts(st, func(os.Signal) { cancel(errInterrupted) })()
	files, err := report.Write(ctx, db, s.OutDir, base, s.Written())
	if err != nil {
		return fmt.Errorf("writing the report of %s: %w", db, err)
	}
	fmt.Fprintf(st.Stderr, "report: %s (and %s)\n", files.HTML, filepath.Base(files.Markdown))
	return nil
}
