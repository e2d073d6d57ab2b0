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

// batchStmts are the full-batch INSERTs of a writable store, prepared on
// its one driver connection. A run's rows go to the driver directly, inside
// the run's transaction on that connection: database/sql would check and
// copy each of a run's thousands of values once more on the way.
type batchStmts struct {
	conn  any // the driver connection they were prepared on
	stmts map[batchTable]batchStmt
}

// batchStmt is a prepared statement of the driver.
type batchStmt interface {
	driver.Stmt
	driver.StmtExecContext
}

// prepare prepares the full-batch INSERT of each batched table on the
// driver connection dc, once: later calls on the same connection keep them.
// (A connection database/sql opened again, after it dropped the first one,
// has them prepared again; the first one's went with it.)
func (b *batchStmts) prepare(ctx context.Context, dc any) error {
	if b.conn == dc {
		return nil
	}
	prep, ok := dc.(driver.ConnPrepareContext)
	if !ok {
		return fmt.Errorf("internal error: the SQLite driver's connection %T cannot prepare statements", dc)
	}
	stmts := map[batchTable]batchStmt{}
	for _, t := range []batchTable{rowsTable, samplesTable, hostMetricsTable} {
		st, err := prep.PrepareContext(ctx, insertSQL(t.insert, t.cols, batchRows))
		if err != nil {
			closeStmts(stmts)
			return err
		}
		bs, ok := st.(batchStmt)
		if !ok {
			st.Close()
			closeStmts(stmts)
			return fmt.Errorf("internal error: the SQLite driver's statement %T cannot execute with a context", st)
		}
		stmts[t] = bs
	}
	b.conn, b.stmts = dc, stmts
	return nil
}

// close closes the statements while their connection is open.
func (b *batchStmts) close(db *sql.DB) {
	if b.conn == nil {
		return
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	_ = conn.Raw(func(dc any) error {
		if dc == b.conn {
			closeStmts(b.stmts)
		}
		return nil
	})
	b.conn, b.stmts = nil, nil
}

func closeStmts(stmts map[batchTable]batchStmt) {
	for _, st := range stmts {
		st.Close()
	}
}

// prepareBatches prepares the full-batch INSERTs when the store opens.
func (s *Store) prepareBatches(ctx context.Context) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error { return s.batches.prepare(ctx, dc) })
}

// insertBatched inserts n rows into t on conn, inside the transaction open
// on it; args appends the values of row i (int64, float64, bool, string or
// nil, as the driver takes them). Full batches run the prepared statement.
func (s *Store) insertBatched(ctx context.Context, conn *sql.Conn, t batchTable, n int, args func(i int, to []any) []any) error {
	if n == 0 {
		return nil
	}
	return conn.Raw(func(dc any) error {
		if err := s.batches.prepare(ctx, dc); err != nil {
			return err
		}
		exec, ok := dc.(driver.ExecerContext)
		if !ok {
			return fmt.Errorf("internal error: the SQLite driver's connection %T cannot execute statements", dc)
		}
		values := make([]any, 0, batchRows*t.cols)
		named := make([]driver.NamedValue, 0, batchRows*t.cols)
		for start := 0; start < n; start += batchRows {
			end := min(start+batchRows, n)
			values = values[:0]
			for i := start; i < end; i++ {
				values = args(i, values)
			}
			named = named[:0]
			for i, v := range values {
				named = append(named, driver.NamedValue{Ordinal: i + 1, Value: v})
			}
			var err error
			if end-start == batchRows {
				_, err = s.batches.stmts[t].ExecContext(ctx, named)
			} else {
				_, err = exec.ExecContext(ctx, insertSQL(t.insert, t.cols, end-start), named)
			}
			if err != nil {
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
