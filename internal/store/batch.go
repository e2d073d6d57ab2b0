package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"hash/maphash"
	"math"
	"strconv"
	"strings"
)

// batchRows is how many rows one INSERT of insertBatched writes: a run's
// hundreds of rows take a few statements instead of one each, well under
// SQLite's limit of bound variables.
const batchRows = 64

// batchTable is a table written in batches: its INSERT prefix, how many
// values a row has, the column that holds the same value in every row of a
// batch (the run's id), bound once, and the columns whose values come back
// run after run (names, directions, flags), which a batch seen before has
// written into its statement instead of bound (see batchStmts).
type batchTable struct {
	insert  string // like "INSERT INTO rows VALUES"
	cols    int
	shared  int
	literal uint64 // bit i: column i
}

// The tables a run's commit writes in batches.
var (
	rowsTable        = batchTable{"INSERT INTO rows VALUES", 15, 0, columns(1, 2, 3, 4, 13, 14)} // aggregate, worker, disk, direction, simulated, job
	samplesTable     = batchTable{"INSERT INTO samples VALUES", 8, 0, columns(1, 2)}             // job, direction
	hostMetricsTable = batchTable{"INSERT INTO host_metrics VALUES", 5, 0, columns(1, 2)}        // host, metric
)

// columns is the set of columns cols.
func columns(cols ...int) uint64 {
	var set uint64
	for _, c := range cols {
		set |= 1 << c
	}
	return set
}

// Bounds of what batchStmts keeps per connection.
const (
	maxShaped = 256  // statements with literals
	maxSeen   = 4096 // digests of the batches written once
)

// batchStmts are the batched INSERTs of a writable store, prepared on the
// driver connection a commit runs on, and kept: a run of a given size
// writes the same batches every time. A batch goes to the driver directly,
// inside the run's transaction on that connection: database/sql would
// check and copy each of a run's thousands of values once more on the way.
//
// Binding a value costs the driver about 0.1 µs (a call under SQLite's
// connection mutex; a text is copied into C memory and freed again), some
// 2.5 ms for the 23,000 values of a run at 96 workers x 8 disks. Most of
// them are the same run after run: the run's id in every row, and the
// worker, disk, direction, job and flags of each row. So the second time a
// batch of the same names and flags comes (the next run of the campaign,
// usually), it gets a statement of its own with those written into its
// text as literals and the run's id as ?1, and binds only the numbers: 8
// values a row instead of 15. The first time, and for a value no literal
// can hold (a text with a NUL byte), every value is bound. What is stored
// is the same either way, value for value and type for type.
type batchStmts struct {
	conns map[any]*connStmts
	// values, named and sql hold a batch on its way to the driver, kept
	// from one batch to the next (commits run one at a time).
	values []any
	named  []driver.NamedValue
	sql    []byte
	seed   maphash.Seed
}

// connStmts are the statements prepared on one driver connection.
type connStmts struct {
	sized  map[batchSize]batchStmt // every value bound, by size
	shaped map[string]batchStmt    // with literals, by their SQL
	seen   map[uint64]bool         // digests of the SQL of batches written once
}

// batchSize is an INSERT of rows rows into table, every value bound.
type batchSize struct {
	table batchTable
	rows  int
}

// batchStmt is a prepared statement of the driver.
type batchStmt interface {
	driver.Stmt
	driver.StmtExecContext
}

// on returns the statements of the driver connection dc. (A connection
// database/sql opened again, after it dropped the first one, has its
// statements prepared again.)
func (b *batchStmts) on(dc any) *connStmts {
	if b.conns == nil {
		b.conns, b.seed = map[any]*connStmts{}, maphash.MakeSeed()
	}
	cs := b.conns[dc]
	if cs == nil {
		cs = &connStmts{sized: map[batchSize]batchStmt{}, shaped: map[string]batchStmt{}, seen: map[uint64]bool{}}
		b.conns[dc] = cs
	}
	return cs
}

// prepare prepares query on the driver connection dc.
func prepare(ctx context.Context, dc any, query string) (batchStmt, error) {
	prep, ok := dc.(driver.ConnPrepareContext)
	if !ok {
		return nil, fmt.Errorf("internal error: the SQLite driver's connection %T cannot prepare statements", dc)
	}
	st, err := prep.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	bs, ok := st.(batchStmt)
	if !ok {
		st.Close()
		return nil, fmt.Errorf("internal error: the SQLite driver's statement %T cannot execute with a context", st)
	}
	return bs, nil
}

// stmt returns the statement for a batch of rows rows into t on the
// driver connection dc, whose values (rows x t.cols) are values, and the
// values it binds.
func (b *batchStmts) stmt(ctx context.Context, dc any, t batchTable, rows int, values []any) (batchStmt, []driver.NamedValue, error) {
	cs := b.on(dc)
	if named, ok := b.shape(t, rows, values); ok {
		if st, ok := cs.shaped[string(b.sql)]; ok {
			return st, named, nil
		}
		digest := maphash.Bytes(b.seed, b.sql)
		if cs.seen[digest] {
			st, err := prepare(ctx, dc, string(b.sql))
			if err != nil {
				return nil, nil, err
			}
			if len(cs.shaped) >= maxShaped {
				for _, old := range cs.shaped {
					old.Close()
				}
				clear(cs.shaped)
			}
			cs.shaped[string(b.sql)] = st
			return st, named, nil
		}
		if len(cs.seen) >= maxSeen {
			clear(cs.seen)
		}
		cs.seen[digest] = true
	}
	named := b.named[:0]
	for i, v := range values {
		named = append(named, driver.NamedValue{Ordinal: i + 1, Value: v})
	}
	b.named = named
	key := batchSize{t, rows}
	st, ok := cs.sized[key]
	if !ok {
		var err error
		if st, err = prepare(ctx, dc, insertSQL(t.insert, t.cols, rows)); err != nil {
			return nil, nil, err
		}
		cs.sized[key] = st
	}
	return st, named, nil
}

// shape writes into b.sql the batch's INSERT with t's literal columns
// written as literals and its shared column as ?1, and returns the values
// it binds; false when a value cannot be written so, or the shared column
// is not the same in every row.
func (b *batchStmts) shape(t batchTable, rows int, values []any) ([]driver.NamedValue, bool) {
	shared := values[t.shared]
	named := append(b.named[:0], driver.NamedValue{Ordinal: 1, Value: shared})
	defer func() { b.named = named }()
	q := append(b.sql[:0], t.insert...)
	defer func() { b.sql = q }()
	for r := range rows {
		if r > 0 {
			q = append(q, ',')
		}
		q = append(q, " ("...)
		for c, v := range values[r*t.cols : (r+1)*t.cols] {
			if c > 0 {
				q = append(q, ',')
			}
			switch {
			case c == t.shared:
				if v != shared {
					return nil, false
				}
				q = append(q, "?1"...)
			case t.literal&(1<<c) != 0:
				var ok bool
				if q, ok = appendLiteral(q, v); !ok {
					return nil, false
				}
			default:
				q = append(q, '?')
				named = append(named, driver.NamedValue{Ordinal: len(named) + 1, Value: v})
			}
		}
		q = append(q, ')')
	}
	return named, true
}

// appendLiteral appends v as an SQL literal that SQLite stores as it
// stores v bound: NULL, a bool as 0 or 1, an integer, a text in quotes.
// False for a value no literal holds as it is.
func appendLiteral(q []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(q, "NULL"...), true
	case bool:
		if v {
			return append(q, '1'), true
		}
		return append(q, '0'), true
	case int64:
		if v == math.MinInt64 { // its digits without the sign overflow: SQLite reads them as a REAL
			return q, false
		}
		return strconv.AppendInt(q, v, 10), true
	case string:
		if strings.IndexByte(v, 0) >= 0 { // the statement's text would end there
			return q, false
		}
		q = append(q, '\'')
		for i := range len(v) {
			if v[i] == '\'' {
				q = append(q, '\'')
			}
			q = append(q, v[i])
		}
		return append(q, '\''), true
	}
	return q, false
}

// close closes the statements prepared on db's connection while it is
// open, and forgets them.
func (b *batchStmts) close(db *sql.DB) {
	if len(b.conns) == 0 {
		return
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	_ = conn.Raw(func(dc any) error {
		if cs := b.conns[dc]; cs != nil {
			for _, st := range cs.sized {
				st.Close()
			}
			for _, st := range cs.shaped {
				st.Close()
			}
			delete(b.conns, dc)
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
		b := &s.batches
		defer func() {
			clear(b.values[:cap(b.values)]) // let the run's strings and boxed values go
			clear(b.named[:cap(b.named)])
			b.values, b.named = b.values[:0], b.named[:0]
		}()
		for start := 0; start < n; start += batchRows {
			end := min(start+batchRows, n)
			values := b.values[:0]
			for i := start; i < end; i++ {
				values = args(i, values)
			}
			b.values = values
			st, named, err := b.stmt(ctx, dc, t, end-start, values)
			if err != nil {
				return err
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
