package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"math"
	"strings"
)

// batchRows is how many rows one INSERT of insertBatched writes: a run's
// hundreds of rows take a few statements instead of one each, well under
// SQLite's limit of bound variables.
const batchRows = 64

// batchTable is a table written in batches: its INSERT prefix and how many
// values a row has.
type batchTable struct {
	insert string // like "INSERT INTO rows VALUES"
	cols   int
}

// The tables a run's commit writes in batches.
var (
	rowsTable        = batchTable{"INSERT INTO rows VALUES", 15}
	samplesTable     = batchTable{"INSERT INTO samples VALUES", 8}
	hostMetricsTable = batchTable{"INSERT INTO host_metrics VALUES", 5}
)

// batchStmts are the batched INSERTs of a writable store, prepared on the
// driver connection a commit runs on the first time a batch of their size
// is written there, and kept (at most batchRows a table and connection): a
// run of a given size writes the same batches every time. A run's rows go
// to the driver directly, inside the run's transaction on that connection:
// database/sql would check and copy each of a run's thousands of values
// once more on the way.
type batchStmts struct {
	stmts map[batchKey]batchStmt
	// values and named hold a batch's values on their way to the driver,
	// kept from one batch to the next (commits run one at a time): a run
	// of 1,500 rows would allocate them afresh for each of its tables.
	values []any
	named  []driver.NamedValue
}

// batchKey is an INSERT of rows rows into table on a driver connection.
type batchKey struct {
	conn  any
	table batchTable
	rows  int
}

// batchStmt is a prepared statement of the driver.
type batchStmt interface {
	driver.Stmt
	driver.StmtExecContext
}

// stmt returns the INSERT of rows rows into t, prepared on the driver
// connection dc. (A connection database/sql opened again, after it dropped
// the first one, has its statements prepared again; the first one's went
// with it.)
func (b *batchStmts) stmt(ctx context.Context, dc any, t batchTable, rows int) (batchStmt, error) {
	key := batchKey{dc, t, rows}
	if st, ok := b.stmts[key]; ok {
		return st, nil
	}
	prep, ok := dc.(driver.ConnPrepareContext)
	if !ok {
		return nil, fmt.Errorf("internal error: the SQLite driver's connection %T cannot prepare statements", dc)
	}
	st, err := prep.PrepareContext(ctx, insertSQL(t.insert, t.cols, rows))
	if err != nil {
		return nil, err
	}
	bs, ok := st.(batchStmt)
	if !ok {
		st.Close()
		return nil, fmt.Errorf("internal error: the SQLite driver's statement %T cannot execute with a context", st)
	}
	if b.stmts == nil {
		b.stmts = map[batchKey]batchStmt{}
	}
	b.stmts[key] = bs
	return bs, nil
}

// close closes the statements prepared on db's connection while it is
// open, and forgets them.
func (b *batchStmts) close(db *sql.DB) {
	if len(b.stmts) == 0 {
		return
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	_ = conn.Raw(func(dc any) error {
		for k, st := range b.stmts {
			if k.conn == dc {
				st.Close()
				delete(b.stmts, k)
			}
		}
		return nil
	})
}

// insertBatched inserts n rows into t on conn, inside the transaction open
// on it; args appends the values of row i (int64, float64, bool, string or
// nil, as the driver takes them).
func (s *Store) insertBatched(ctx context.Context, conn *sql.Conn, t batchTable, n int, args func(i int, to []any) []any) error {
	if n == 0 {
		return nil
	}
	return conn.Raw(func(dc any) error {
		values, named := s.batches.values, s.batches.named
		defer func() {
			clear(values[:cap(values)]) // let the run's strings and boxed values go
			clear(named[:cap(named)])
			s.batches.values, s.batches.named = values[:0], named[:0]
		}()
		for start := 0; start < n; start += batchRows {
			end := min(start+batchRows, n)
			st, err := s.batches.stmt(ctx, dc, t, end-start)
			if err != nil {
				return err
			}
			values = values[:0]
			for i := start; i < end; i++ {
				values = args(i, values)
			}
			named = named[:0]
			for i, v := range values {
				named = append(named, driver.NamedValue{Ordinal: i + 1, Value: v})
			}
			if _, err := st.ExecContext(ctx, named); err != nil {
				return err
			}
		}
		return nil
	})
}

// insertSQL is table's INSERT of n rows of cols values.
func insertSQL(table string, cols, n int) string {
	row := "(" + strings.TrimSuffix(strings.Repeat("?,", cols), ",") + ")"
	return table + " " + strings.TrimSuffix(strings.Repeat(row+",", n), ",")
}

// nullable is f as the driver stores it: NaN (no I/O measured it) as NULL.
// (A plain float64 or nil, which the driver takes as it is.)
func nullable(f float64) any {
	if math.IsNaN(f) {
		return nil
	}
	return f
}
