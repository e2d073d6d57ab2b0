package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// A store path guessed wrong is answered with the stores a run did write
// near it, whichever command reads stores.
func TestMissingStoreNamesTheStoresNearIt(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	for _, p := range []string{"wwt_matrix/wwt-matrix.db", "quickstart/quickstart.db", "quickstart/figures/deeper.db"} {
		p = filepath.Join(out, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := writeScript(t, "figures.star", "x = 1\n")
	guess := filepath.Join(out, "wwt", "results.db")
	near := "stores near it: " + filepath.Join(out, "quickstart", "quickstart.db") + ", " + filepath.Join(out, "wwt_matrix", "wwt-matrix.db") + "\n"
	for _, args := range [][]string{
		{"report", script, "--from", guess},
		{"export", guess, "--csv", t.TempDir()},
		{"compare", guess, guess},
		{"fit", "--from", guess, "--testbed", "storagereview-r6625-esa"},
	} {
		expect(t, runCLI(t, "", nil, args...), ExitUsage, "^$", "no such store file "+regexp.QuoteMeta(guess)+"; "+regexp.QuoteMeta(near))
	}
	// Nothing near a path under a directory that is not there at all.
	expect(t, runCLI(t, "", nil, "export", "/no-such-dir/x.db", "--csv", t.TempDir()), ExitUsage, "^$", `no such store file /no-such-dir/x.db\n`)
}
