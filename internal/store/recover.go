package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// openReadable opens the store file at path for reading. A store that a
// killed writer left with a hot rollback journal, or with a WAL that needs
// a recovery a read-only connection may not run (SQLITE_READONLY_ROLLBACK,
// SQLITE_READONLY_RECOVERY), is read from a copy in a temporary directory
// (returned, for the caller to remove) that SQLite recovers as the next
// writer would: the file itself is left as it is, for that writer.
func openReadable(ctx context.Context, path string) (*sql.DB, string, error) {
	db, err := openDB(path, true)
	if err == nil {
		if _, err = db.ExecContext(ctx, `SELECT count(*) FROM sqlite_master`); err == nil {
			return db, "", nil
		}
		db.Close()
	}
	if !needsWriter(err) {
		return nil, "", err
	}
	dir, cerr := os.MkdirTemp("", "starbench-store-")
	if cerr != nil {
		return nil, "", fmt.Errorf("%w; copying it to recover it failed: %v", err, cerr)
	}
	copyPath := filepath.Join(dir, filepath.Base(path))
	for _, suffix := range []string{"", "-journal", "-wal"} {
		if cerr = copyFile(path+suffix, copyPath+suffix); cerr != nil && !errors.Is(cerr, os.ErrNotExist) {
			os.RemoveAll(dir)
			return nil, "", fmt.Errorf("%w; copying it to recover it failed: %v", err, cerr)
		}
	}
	db, cerr = sql.Open("sqlite", "file:"+copyPath+"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)")
	if cerr == nil {
		db.SetMaxOpenConns(1)
		_, cerr = db.ExecContext(ctx, `SELECT count(*) FROM sqlite_master`) // recovers the copy
		if cerr == nil {
			_, cerr = db.ExecContext(ctx, `PRAGMA query_only = 1`)
		}
		if cerr != nil {
			db.Close()
		}
	}
	if cerr != nil {
		os.RemoveAll(dir)
		return nil, "", fmt.Errorf("%w; recovering a copy of it failed: %v", err, cerr)
	}
	return db, dir, nil
}

// needsWriter says whether err is SQLite refusing a read-only connection
// because the file needs a writer's recovery first.
func needsWriter(err error) bool {
	var coded interface{ Code() int }
	if !errors.As(err, &coded) {
		return false
	}
	const readOnly, cantOpen = 8, 14 // SQLITE_READONLY_* and SQLITE_CANTOPEN, with their extended codes
	primary := coded.Code() & 0xff
	return primary == readOnly || primary == cantOpen
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
