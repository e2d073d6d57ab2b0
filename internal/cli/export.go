package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"starbench/internal/atomicfile"
	"starbench/internal/store"
)

func exportCmd(st *State, args []string) int {
	fs := newFlagSet("export")
	var dir string
	fs.StringVar(&dir, "csv", "", "directory to write one CSV file per dataset into (results_wide, cell_summary, runs, rows, host_metrics, sessions, and events and samples when the store has them); required")
	pos, code, done := parseFlags(st, "export", fs, args)
	if done {
		return code
	}
	db, err := storeArgs("export", pos, 1, "one campaign store file (the .db a run writes, e.g. out/quickstart/quickstart.db)")
	if err == nil && dir == "" {
		err = usagef("export", "--csv DIR is required: the directory to write the CSV files into")
	}
	if err != nil {
		return reportUsage(st, err)
	}
	ctx := context.Background()
	s, err := store.OpenReadOnly(ctx, db[0])
	if err != nil {
		fmt.Fprintf(st.Stderr, "starbench export: %v\n", err)
		return ExitScriptError
	}
	defer s.Close()
	names, err := s.DatasetNames(ctx)
	if err != nil {
		fmt.Fprintf(st.Stderr, "starbench export: %v\n", err)
		return ExitScriptError
	}
	for _, name := range names {
		path := filepath.Join(dir, name+".csv")
		if err := atomicfile.Write(path, func(w io.Writer) error { return s.WriteCSV(ctx, name, w) }); err != nil {
			fmt.Fprintf(st.Stderr, "starbench export: %s: %v\n", path, err)
			return ExitScriptError
		}
		fmt.Fprintln(st.Stdout, path)
	}
	return ExitOK
}

// storeArgs returns the n store files of pos (want says what they are),
// refusing a missing one.
func storeArgs(cmd string, pos []string, n int, want string) ([]string, error) {
	if len(pos) != n {
		return nil, usagef(cmd, "want %s, got %d arguments", want, len(pos))
	}
	for _, p := range pos {
		if !isStoreFile(p) {
			return nil, usagef(cmd, "%s", noStore(p))
		}
	}
	return pos, nil
}
