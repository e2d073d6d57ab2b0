package builtins

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"starbench/internal/runtime"
	"starbench/internal/store"
)

// TestTheStoreKeepsTheFilesASessionLoaded: the script, the files it
// load()s and the fio job files it reads are kept whole in the store.
func TestTheStoreKeepsTheFilesASessionLoaded(t *testing.T) {
	dir := t.TempDir()
	lib := "def measure():\n    return {\"iops\": 3}\n"
	main := `load("lib.star", "measure")
job = fio.jobfile("bench.fio")
c = campaign.new("kept", factors = [campaign.factor("a", [1], apply = lambda v: v)],
    workloads = [campaign.workload("w", measure)])
c.run()
`
	jobText, err := os.ReadFile("testdata/fio_hcibench.fio")
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string][]byte{"lib.star": []byte(lib), "main.star": []byte(main), "bench.fio": jobText} {
		os.WriteFile(filepath.Join(dir, name), content, 0o644)
	}
	s, _ := newTestSession(t, context.Background())
	s.Script = filepath.Join(dir, "main.star")
	if _, err := runtime.NewInterp(s, Modules(Deps{}), dir, runtime.ScriptOptions()).ExecFile(s.Script); err != nil {
		t.Fatal(backtrace(err))
	}
	st, err := store.OpenReadOnly(context.Background(), filepath.Join(s.OutDir, "kept.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for name, want := range map[string]string{"main.star": main, "lib.star": lib, "bench.fio": string(jobText)} {
		got, err := st.SessionFile(context.Background(), 1, filepath.Join(dir, name))
		if err != nil || string(got) != want {
			t.Errorf("%s kept as %q, %v", name, got, err)
		}
	}
}
