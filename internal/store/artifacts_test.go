package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"starbench/internal/fio"
)

// TestRunsKeepTheirArtifactsAndSessionsTheirFiles: a run's rendered job and
// raw output, and the files a session loaded, read back whole from a
// read-only opening, and are stored compressed.
func TestRunsKeepTheirArtifactsAndSessionsTheirFiles(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t, Options{Simulated: true})
	if err := s.SaveCells(ctx, testCells); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "bench.star")
	job := filepath.Join(filepath.Dir(script), "hcibench.fio")
	os.WriteFile(script, []byte("c = campaign.new(...)\n"), 0o644)
	jobText := "[global]\nioengine=libaio\n" + strings.Repeat("[disk]\nfilename=/dev/sdb\n", 200)
	os.WriteFile(job, []byte(jobText), 0o644)
	files, err := HashFiles([]string{script, job})
	if err != nil {
		t.Fatal(err)
	}
	session, err := s.BeginSession(ctx, Provenance{Script: script, Files: files})
	if err != nil {
		t.Fatal(err)
	}
	output := []byte(`{"fio version": "fio-3.33", "jobs": [` + strings.Repeat(`{"jobname": "disk"},`, 500) + `{}]}`)
	r := okRun(testCells[0].Label, "4k", 1, 1000, true)
	r.Session = session
	r.Result.Artifacts = []fio.Artifact{{Name: "job.fio", Content: []byte(jobText)}, {Name: "fio-output.json", Content: output}}
	if err := s.CommitRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	var stored int
	if err := s.db.QueryRowContext(ctx, `SELECT sum(length(content)) FROM artifacts`).Scan(&stored); err != nil || stored >= len(output)/4 {
		t.Errorf("artifacts take %d bytes for %d of raw output (%v): not compressed", stored, len(output), err)
	}
	s.Close()

	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	got, err := ro.Artifacts(ctx, r.RunKey)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "fio-output.json" || !bytes.Equal(got[0].Content, output) || got[1].Name != "job.fio" || string(got[1].Content) != jobText {
		t.Errorf("artifacts read back: %d, names %v", len(got), got)
	}
	if other, err := ro.Artifacts(ctx, RunKey{testCells[1].Label, "4k", 1}); err != nil || len(other) != 0 {
		t.Errorf("another run's artifacts: %v, %v", other, err)
	}
	if b, err := ro.SessionFile(ctx, session, job); err != nil || string(b) != jobText {
		t.Errorf("the job file the session loaded: %q, %v", b, err)
	}
	if _, err := ro.SessionFile(ctx, session, "nope.star"); err == nil {
		t.Errorf("a file the session did not load read back")
	}
	// A session recorded before contents were kept has only the hash.
	w, _ := Open(ctx, path, "wwt", Options{Simulated: true})
	w.db.ExecContext(ctx, `UPDATE session_files SET content = NULL WHERE path = ?`, script)
	if _, err := w.SessionFile(ctx, session, script); !errors.Is(err, ErrNoContent) {
		t.Errorf("a file without content: %v, want ErrNoContent", err)
	}
	w.Close()
}
