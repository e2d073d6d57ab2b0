package store

import (
	"bufio"
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A child process that opens a store's file, writes in a transaction and
// waits to be killed: what a SIGKILL mid-run leaves behind.
func init() {
	path, mode := os.Getenv("STARBENCH_STORE_CRASH"), os.Getenv("STARBENCH_STORE_CRASH_MODE")
	if path == "" {
		return
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode("+mode+")&_pragma=cache_size(1)&_txlock=immediate")
	if err != nil {
		panic(err)
	}
	db.SetMaxOpenConns(1)
	tx, err := db.Begin()
	if err != nil {
		panic(err)
	}
	// Enough pages that the small cache spills them into the database
	// file (rollback journal) or the WAL before any commit.
	for i := range 2000 {
		if _, err := tx.Exec(`INSERT INTO session_sets (session_id, name, value) VALUES (?, ?, ?)`, 1, fmt.Sprint("n", i), fmt.Sprintf("%0500d", i)); err != nil {
			panic(err)
		}
	}
	fmt.Println("written")
	select {} // until killed
}

// crash leaves the store at path as a process killed mid-transaction does,
// in journal mode ("delete": a hot rollback journal; "wal": a WAL that
// needs recovery).
func crash(t *testing.T, path, mode string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "STARBENCH_STORE_CRASH="+path, "STARBENCH_STORE_CRASH_MODE="+mode)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	cmd.Process.Kill()
	cmd.Wait()
	if line != "written\n" {
		t.Fatalf("the child process did not write (%q)", line)
	}
}

// TestAStoreAKilledWriterLeftOpensReadOnly: a store left by a process
// killed mid-transaction, with a hot rollback journal or a WAL to recover,
// opens read-only with what was committed (not the transaction in flight),
// and its files are left for the next writer, which recovers them.
func TestAStoreAKilledWriterLeftOpensReadOnly(t *testing.T) {
	for _, mode := range []string{"delete", "wal"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			s, path := openTemp(t, Options{Simulated: true})
			if err := s.SaveCells(ctx, testCells); err != nil {
				t.Fatal(err)
			}
			if err := s.CommitRun(ctx, okRun(testCells[0].Label, "4k", 1, 1000, true)); err != nil {
				t.Fatal(err)
			}
			s.Close()
			if mode == "delete" { // as a store written before WAL, or a copy of one
				db, _ := sql.Open("sqlite", "file:"+path)
				if _, err := db.Exec("PRAGMA journal_mode=DELETE"); err != nil {
					t.Fatal(err)
				}
				db.Close()
			}
			crash(t, path, mode)
			before := files(t, path)
			ro, err := OpenReadOnly(ctx, path)
			if err != nil {
				t.Fatalf("read-only open: %v", err)
			}
			done, err := ro.Done(ctx)
			if err != nil || len(done) != 1 {
				t.Errorf("stored runs %v, %v; want the one committed", done, err)
			}
			var sets int
			if err := ro.db.QueryRowContext(ctx, `SELECT count(*) FROM session_sets`).Scan(&sets); err != nil || sets != 0 {
				t.Errorf("%d rows of the killed transaction read back (%v), want none", sets, err)
			}
			tmp := ro.tmp
			ro.Close()
			if mode == "delete" {
				if tmp == "" {
					t.Errorf("a hot journal was read in place")
				} else if _, err := os.Stat(tmp); err == nil {
					t.Errorf("the recovered copy %s is left after Close", tmp)
				}
			}
			if after := files(t, path); after != before {
				t.Errorf("reading changed the files the killed writer left:\n%s\nwant\n%s", after, before)
			}
			w, err := Open(ctx, path, "wwt", Options{Simulated: true})
			if err != nil {
				t.Fatalf("the next writer: %v", err)
			}
			defer w.Close()
			if done, err := w.Done(ctx); err != nil || len(done) != 1 {
				t.Errorf("after the writer recovered: %v, %v", done, err)
			}
		})
	}
}

// files describes the store's files (name, size, content hash).
func files(t *testing.T, path string) string {
	t.Helper()
	var out string
	for _, suffix := range []string{"", "-journal", "-wal"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			continue
		}
		out += fmt.Sprintf("%s %d %x\n", filepath.Base(path+suffix), len(b), sha256.Sum256(b))
	}
	return out
}
