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
//
// A store no killed writer left so is read through a query-only read-write connection instead:
// when that is the store's last connection, closing it removes the -wal
// and -shm files SQLite made for the reading, which a read-only connection
// must leave behind.
func openReadable(ctx context.Context, path string) (*sql.DB, string, error) {
	if leftClean(path) {
		if db, err := openQueryOnly(ctx, path); err == nil {
			return db, "", nil
		}
		// A file or directory this process may not write: read-only below.
	}
	db, err := openDB(path, true, true)
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

// leftClean says whether the store at path has no rollback journal beside
// it, and a WAL only if empty or in use by a live writer (one holding the
// campaign's lock): no killed writer left it to recover.
func leftClean(path string) bool {
	if _, err := os.Stat(path + "-journal"); !errors.Is(err, os.ErrNotExist) {
		return false
	}
	fi, err := os.Stat(path + "-wal")
	return errors.Is(err, os.ErrNotExist) || (err == nil && fi.Size() == 0) || writerAlive(path+".lock")
}

// openQueryOnly opens path read-write with every write refused.
func openQueryOnly(ctx context.Context, path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=query_only(1)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `SELECT count(*) FROM sqlite_master`); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
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
