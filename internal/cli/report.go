package cli

import (
	"context"
	"fmt"
	"os"
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
	all, err := filepath.Glob(filepath.Join(s.OutDir, "*.db"))
	if err != nil {
		return err
	}
	// Only the stores this run wrote: an older store in the same folder
	// (perhaps measured) must not get this run's figures in its report.
	var stores []string
	for _, db := range all {
		if writtenSince(db, start) {
			stores = append(stores, db)
		}
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

// writtenSince says whether the SQLite store db (or its write-ahead log)
// changed at or after start.
func writtenSince(db string, start time.Time) bool {
	for _, f := range []string{db, db + "-wal"} {
		if info, err := os.Stat(f); err == nil && !info.ModTime().Before(start) {
			return true
		}
	}
	return false
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
