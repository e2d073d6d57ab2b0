// Package store keeps one campaign's results in one SQLite file: cells, runs,
// per-worker rows, host metrics and the provenance of every session that
// wrote to it (see docs/store.md). Runs are committed one transaction each,
// so a campaign killed at any moment loses at most the run in flight.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// ErrLocked means another process holds the campaign's store.
var ErrLocked = errors.New("the campaign store is in use by another starbench process")

// Store is an open campaign store.
type Store struct {
	db *sql.DB
	// commits is a writable store's second connection, on which runs are
	// committed without foreign-key checks (see connTx); nil when read-only.
	commits *sql.DB
	path    string
	lock    *os.File // nil for read-only stores
	tmp     string   // a recovered copy's directory, removed at Close
	// batches are the prepared batched INSERTs of a writable store.
	batches batchStmts
	// commitStmts are the other statements of a run's commit, prepared on
	// the commits connection the first time (see stmt).
	commitStmts map[string]*sql.Stmt
	// mu guards behind, the commit in flight (see CommitBehind).
	mu     sync.Mutex
	behind *behind
	// Simulated says whether the store holds simulated (model) results or
	// measured ones; never both.
	Simulated bool
	// Name is the campaign's name.
	Name string
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Path returns the store file of campaign name in outDir.
func Path(outDir, name string) (string, error) {
	if !nameRE.MatchString(name) {
		return "", fmt.Errorf("campaign name %q is not usable as a file name: use letters, digits, '.', '_' or '-'", name)
	}
	return filepath.Join(outDir, name+".db"), nil
}

// Options say how Open treats an existing store.
type Options struct {
	// Simulated is what the session produces; a store holding the other kind is refused.
	Simulated bool
	// Fresh discards every stored run and starts the campaign over.
	Fresh bool
}

// Open opens (creating if needed) the store of campaign name at path for
// writing. It takes the campaign's lock: a second process is refused with
// ErrLocked until the first one exits.
func Open(ctx context.Context, path, name string, opt Options) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	lock, err := lockFile(path + ".lock")
	if err != nil {
		return nil, err
	}
	db, err := openDB(path, false, true)
	if err != nil {
		unlockFile(lock)
		return nil, err
	}
	s := &Store{db: db, path: path, lock: lock, Name: name, Simulated: opt.Simulated}
	if err := s.init(ctx, opt); err != nil {
		s.Close()
		return nil, err
	}
	if s.commits, err = openDB(path, false, false); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.prepareCommits(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.setDurability(ctx); err != nil {
		s.Close()
		return nil, err
	}
	s.register()
	return s, nil
}

// OpenReadOnly opens an existing store for reading; it takes no lock, so it
// works while a campaign is writing to it.
func OpenReadOnly(ctx context.Context, path string) (*Store, error) {
	waitWriter(path)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no campaign store at %s: %w", path, err)
	}
	db, tmp, err := openReadable(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	s := &Store{db: db, path: path, tmp: tmp}
	var version int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		s.Close()
		return nil, fmt.Errorf("%s is not a campaign store: %w", path, err)
	}
	if version == 0 || version > SchemaVersion {
		s.Close()
		return nil, fmt.Errorf("%s is not a campaign store this starbench can read (schema version %d; this build reads 1 to %d)", path, version, SchemaVersion)
	}
	err = db.QueryRowContext(ctx, `SELECT name, simulated FROM campaign WHERE id = 1`).Scan(&s.Name, &s.Simulated)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("%s holds no campaign: %w", path, err)
	}
	return s, nil
}

// openDB opens path with one connection, with or without foreign-key
// checks (and their cascades).
func openDB(path string, readOnly, foreignKeys bool) (*sql.DB, error) {
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=foreign_keys(0)"
	if foreignKeys {
		dsn = "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)"
	}
	if readOnly {
		dsn += "&mode=ro"
	} else {
		dsn += "&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_txlock=immediate"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	return db, nil
}

// setDurability relaxes synchronous=FULL to NORMAL in a store of simulated
// results, once init has settled which kind the store holds. In WAL mode a
// commit then writes the WAL without waiting for the disk: a killed process
// (even SIGKILL) still loses nothing committed, since the kernel holds the
// written pages; only an OS crash or a power loss can lose the last
// committed runs, which a resume simulates again in milliseconds. A store of
// measured results keeps FULL: a measured run cannot be had again. (The
// store has one connection, so the setting holds for every later statement;
// a connection opened again would start at FULL.) Both connections take it.
func (s *Store) setDurability(ctx context.Context) error {
	if !s.Simulated {
		return nil
	}
	for _, db := range []*sql.DB{s.db, s.commits} {
		if _, err := db.ExecContext(ctx, `PRAGMA synchronous = NORMAL`); err != nil {
			return err
		}
	}
	return nil
}

// Path returns the store's file.
func (s *Store) Path() string { return s.path }

// Close closes the store and releases its lock, once the commit in flight
// (see CommitBehind) has ended; it returns that commit's error too.
func (s *Store) Close() error {
	werr := s.Wait()
	if s.lock != nil {
		s.unregister()
	}
	err := werr
	for _, st := range s.commitStmts {
		st.Close()
	}
	s.commitStmts = nil
	for _, db := range []*sql.DB{s.commits, s.db} {
		if db != nil {
			s.batches.close(db)
			err = errors.Join(err, db.Close())
		}
	}
	if s.tmp != "" {
		os.RemoveAll(s.tmp)
		s.tmp = ""
	}
	if s.lock != nil {
		unlockFile(s.lock)
		s.lock = nil
	}
	return err
}

func (s *Store) init(ctx context.Context, opt Options) error {
	if err := migrate(ctx, s.db, s.path); err != nil {
		return err
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := refreshViews(ctx, tx); err != nil {
			return err
		}
		var simulated bool
		err := tx.QueryRowContext(ctx, `SELECT simulated FROM campaign WHERE id = 1`).Scan(&simulated)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			_, err = tx.ExecContext(ctx, `INSERT INTO campaign (id, name, simulated, created_at) VALUES (1, ?, ?, ?)`,
				s.Name, opt.Simulated, stamp(time.Now()))
			return err
		case err != nil:
			return err
		}
		if opt.Fresh {
			for _, q := range []string{`DELETE FROM runs`, `DELETE FROM cells`, `DELETE FROM sessions`} {
				if _, err := tx.ExecContext(ctx, q); err != nil {
					return err
				}
			}
			// The campaign starts over: its start is now, as its runs' are.
			_, err = tx.ExecContext(ctx, `UPDATE campaign SET name = ?, simulated = ?, created_at = ?, completed_at = NULL`, s.Name, opt.Simulated, stamp(time.Now()))
			return err
		}
		// We hold the lock, so a session still "running" is a process that died.
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET status = ? WHERE status = ?`, SessionKilled, SessionRunning); err != nil {
			return err
		}
		if simulated != opt.Simulated {
			return fmt.Errorf("%s holds %s runs and this session's are %s; a store never mixes them: use another output directory, or --fresh to discard the stored runs",
				s.path, kind(simulated), kind(opt.Simulated))
		}
		return nil
	})
}

func kind(simulated bool) string {
	if simulated {
		return "simulated"
	}
	return "measured"
}

func migrate(ctx context.Context, db *sql.DB, path string) error {
	var version int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return fmt.Errorf("%s is not a SQLite file: %w", path, err)
	}
	if version > SchemaVersion {
		return fmt.Errorf("%s was written by a newer starbench (schema version %d; this build knows up to %d): upgrade starbench", path, version, SchemaVersion)
	}
	for v := version; v < SchemaVersion; v++ {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrating %s to schema version %d: %w", path, v+1, err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, v+1)); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// tx runs f in one transaction, committed if f returns nil.
func (s *Store) tx(ctx context.Context, f func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// connTx runs f in one transaction, committed if f returns nil; f reaches
// the driver through conn.Raw, in the same transaction. With foreignKeys it
// runs on the store's connection, with foreign-key checks and their
// cascades; without, on the commits connection, which has none. (Turning
// the checks off and on again on one connection, as this did before, made
// SQLite compile every prepared statement again at each commit: a PRAGMA
// of that kind expires them all.)
func (s *Store) connTx(ctx context.Context, foreignKeys bool, f func(*sql.Conn, *sql.Tx) error) error {
	db := s.commits
	if foreignKeys || db == nil {
		db = s.db
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(conn, tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// The statements of a run's commit besides its batches.
const (
	cellIDSQL    = `SELECT id FROM cells WHERE label = ?`
	failedRunSQL = `DELETE FROM runs WHERE cell_id = ? AND workload = ? AND repeat = ? AND status = 'failed'`
	insertRunSQL = `INSERT INTO runs (cell_id, workload, repeat, status, error, started_at, ended_at, session_id, simulated, notes) VALUES (?,?,?,?,?,?,?,?,?,?)`
)

// prepareCommits prepares the statements of a run's commit on the commits
// connection, once, while nothing holds it: a commit runs the same few
// every time.
func (s *Store) prepareCommits(ctx context.Context) error {
	s.commitStmts = map[string]*sql.Stmt{}
	for _, q := range []string{cellIDSQL, failedRunSQL, insertRunSQL} {
		st, err := s.commits.PrepareContext(ctx, q)
		if err != nil {
			return err
		}
		s.commitStmts[q] = st
	}
	return nil
}

// stmt returns query as a statement of tx, which connTx began with or
// without foreign-key checks (cascade): on the commits connection
// (without), the one prepareCommits prepared; with them, compiled for tx
// alone.
func (s *Store) stmt(ctx context.Context, tx *sql.Tx, cascade bool, query string) (*sql.Stmt, error) {
	st, ok := s.commitStmts[query]
	if cascade || !ok {
		return tx.PrepareContext(ctx, query)
	}
	return tx.StmtContext(ctx, st), nil
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
