package store

import (
	"context"
	"database/sql"
	"strings"
)

// batchRows is how many rows one INSERT of insertBatched writes: a run's
// hundreds of rows take a few statements instead of one each, well under
// SQLite's limit of bound variables.
const batchRows = 64

// insertBatched inserts n rows into table (an INSERT prefix naming the
// table and its columns, like "INSERT INTO rows VALUES"), cols values
// each; args appends the values of row i. Full batches run one prepared
// statement.
func insertBatched(ctx context.Context, tx *sql.Tx, table string, cols, n int, args func(i int, to []any) []any) error {
	var full *sql.Stmt
	defer func() {
		if full != nil {
			full.Close()
		}
	}()
	values := make([]any, 0, batchRows*cols)
	for start := 0; start < n; start += batchRows {
		end := min(start+batchRows, n)
		values = values[:0]
		for i := start; i < end; i++ {
			values = args(i, values)
		}
		var err error
		if end-start == batchRows {
			if full == nil {
				if full, err = tx.PrepareContext(ctx, insertSQL(table, cols, batchRows)); err != nil {
					return err
				}
			}
			_, err = full.ExecContext(ctx, values...)
		} else {
			_, err = tx.ExecContext(ctx, insertSQL(table, cols, end-start), values...)
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
