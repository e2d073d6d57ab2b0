package store

import (
	"context"
	"database/sql"
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

// prepareBatches prepares the full-batch INSERT of each batched table once,
// when the store opens: a transaction reuses them on its connection instead
// of compiling them again for every run. (They cannot be prepared later, in
// a transaction: the store has one connection, which the transaction holds.)
func (s *Store) prepareBatches(ctx context.Context) error {
	s.batches = map[batchTable]*sql.Stmt{}
	for _, t := range []batchTable{rowsTable, samplesTable, hostMetricsTable} {
		stmt, err := s.db.PrepareContext(ctx, insertSQL(t.insert, t.cols, batchRows))
		if err != nil {
			return err
		}
		s.batches[t] = stmt
	}
	return nil
}

// insertBatched inserts n rows into t, in tx; args appends the values of
// row i. Full batches run the statement prepareBatches prepared.
func (s *Store) insertBatched(ctx context.Context, tx *sql.Tx, t batchTable, n int, args func(i int, to []any) []any) error {
	var full *sql.Stmt
	defer func() {
		if full != nil {
			full.Close()
		}
	}()
	values := make([]any, 0, batchRows*t.cols)
	for start := 0; start < n; start += batchRows {
		end := min(start+batchRows, n)
		values = values[:0]
		for i := start; i < end; i++ {
			values = args(i, values)
		}
		var err error
		if end-start == batchRows {
			if full == nil {
				full = tx.StmtContext(ctx, s.batches[t])
			}
			_, err = full.ExecContext(ctx, values...)
		} else {
			_, err = tx.ExecContext(ctx, insertSQL(t.insert, t.cols, end-start), values...)
		}
		if err != nil {
			return err
		}
	}
	return nil
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
