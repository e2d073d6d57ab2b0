package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"starbench/internal/report"
	"starbench/internal/runtime"
)

// writeReports writes the HTML and Markdown report of every campaign store
// in the session's output directory (after `starbench run`): report.html
// and report.md for one campaign, NAME-report.* for each of several. The
// reports embed the figures saved since start.
func writeReports(st *State, s *runtime.Session, start time.Time) error {
	stores, err := filepath.Glob(filepath.Join(s.OutDir, "*.db"))
	if err != nil {
		return err
	}
	for _, db := range stores {
		base := "report"
		if len(stores) > 1 {
			base = strings.TrimSuffix(filepath.Base(db), ".db") + "-report"
		}
		if err := writeReport(st, db, s.OutDir, base, start); err != nil {
			return err
		}
	}
	return nil
}

// writeReport writes the report of the store db into outDir as base.html
// and base.md, with the figures saved since start, and says where.
func writeReport(st *State, db, outDir, base string, start time.Time) error {
	files, err := report.Write(context.Background(), db, outDir, base, start)
	if err != nil {
		return fmt.Errorf("writing the report of %s: %w", db, err)
	}
	fmt.Fprintf(st.Stderr, "report: %s (and %s)\n", files.HTML, filepath.Base(files.Markdown))
	return nil
}
