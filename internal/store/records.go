package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"starbench/internal/fio"
)

// Provenance says where a session's results came from. It never holds
// credentials: targets are named by kind and version only.
type Provenance struct {
	Script         string
	Files          []File            // the script and every file it loaded
	Sets           map[string]string // --set values
	ToolVersion    string
	FioVersion     string
	VCenterVersion string
	ESXiVersions   []string
	Testbed        string
	Target         string
	// ModelVersion names the model behind simulated runs ("" for measured).
	ModelVersion string
	Plan         string // the plan as printed
}

// File is one input file of a session with its content hash.
type File struct {
	Path    string
	SHA256  string
	Bytes   int64
	Content []byte // kept compressed in the store
}

// HashFiles reads each path and returns it with its sha256.
func HashFiles(paths []string) ([]File, error) {
	files := make([]File, 0, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		files = append(files, File{Path: p, SHA256: hex.EncodeToString(sum[:]), Bytes: int64(len(b)), Content: b})
	}
	return files, nil
}

// BeginSession records who is writing to the store from now on and returns
// the session's id; runs committed later point to it.
func (s *Store) BeginSession(ctx context.Context, p Provenance) (int64, error) {
	var id int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO sessions (started_at, status, pid, script, tool_version, fio_version,
			vcenter_version, esxi_versions, testbed, target, simulated, plan, model_version) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			stamp(time.Now()), SessionRunning, os.Getpid(), p.Script, p.ToolVersion, p.FioVersion, p.VCenterVersion,
			strings.Join(p.ESXiVersions, ","), p.Testbed, p.Target, s.Simulated, p.Plan, p.ModelVersion)
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
		for _, f := range p.Files {
			content, err := compress(f.Content)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO session_files (session_id, path, sha256, bytes, content) VALUES (?,?,?,?,?)`,
				id, f.Path, f.SHA256, f.Bytes, content); err != nil {
				return err
			}
		}
		for _, n := range p.SortedSets() {
			if _, err := tx.ExecContext(ctx, `INSERT INTO session_sets VALUES (?,?,?)`, id, n, p.Sets[n]); err != nil {
				return err
			}
		}
		return nil
	})
	return id, err
}

// Session statuses.
const (
	SessionRunning     = "running"
	SessionKilled      = "killed" // found running by the next process: it died without a word
	SessionCompleted   = "completed"
	SessionInterrupted = "interrupted"
	SessionFailed      = "failed"
)

// EndSession records how session id ended.
func (s *Store) EndSession(ctx context.Context, id int64, status string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE sessions SET ended_at = ?, status = ? WHERE id = ?`, stamp(time.Now()), status, id)
	return err
}

// MarkCompleted records that every run of the campaign is in the store.
func (s *Store) MarkCompleted(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `UPDATE campaign SET completed_at = ? WHERE id = 1`, stamp(time.Now()))
	return err
}

// Cell is one combination of factor levels.
type Cell struct {
	Label    string // "policy=raid1 compression=False", unique in a campaign
	Position int    // place in the execution order
	Levels   []Level
}

// Level is one factor's level in a cell, as text.
type Level struct{ Factor, Value string }

// SaveCells records cells (known ones keep their id and get the new position).
func (s *Store) SaveCells(ctx context.Context, cells []Cell) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		for _, c := range cells {
			var id int64
			err := tx.QueryRowContext(ctx, `INSERT INTO cells (label, position) VALUES (?, ?)
				ON CONFLICT (label) DO UPDATE SET position = excluded.position RETURNING id`, c.Label, c.Position).Scan(&id)
			if err != nil {
				return err
			}
			for _, l := range c.Levels {
				if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO cell_levels VALUES (?,?,?)`, id, l.Factor, l.Value); err != nil {
					return err
				}
			}
		}
		return refreshViews(ctx, tx)
	})
}

// RunKey names one run: a workload's repeat in a cell.
type RunKey struct {
	Cell     string
	Workload string
	Repeat   int // from 1
}

func (k RunKey) String() string { return fmt.Sprintf("%s / %s #%d", k.Cell, k.Workload, k.Repeat) }

// Run statuses.
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
)

// Run is one completed run, committed as a whole.
type Run struct {
	RunKey
	Session    int64
	Start, End time.Time
	Result     *fio.Result // nil for a failed run
	Err        error       // set for a failed run
	Metrics    []HostMetric
}

// HostMetric is one sample of a host counter during a run.
type HostMetric struct {
	Host, Metric string
	At           time.Time
	Value        float64
}

// CommitRun stores r with its rows and metrics in one transaction. A failed
// run of the same key (from --rerun-failed) is replaced.
func (s *Store) CommitRun(ctx context.Context, r Run) error {
	err := s.commitRun(ctx, r, false)
	if errors.Is(err, errReplacesFailedRun) {
		err = s.commitRun(ctx, r, true)
	}
	return err
}

// errReplacesFailedRun stops a commit without foreign-key checks that
// would delete a failed run: the rows of the failed run go with it only
// through those checks' cascades.
var errReplacesFailedRun = errors.New("the run replaces a failed run")

// commitRun writes r in one transaction. Without cascade, the transaction
// runs without foreign-key checks: every row it writes refers to the run it
// has just inserted, and checking that for each of a wide run's 1,500 rows
// took a tenth of the commit. A failed run of the same key, whose rows must
// be deleted with it, makes it give up with errReplacesFailedRun.
func (s *Store) commitRun(ctx context.Context, r Run, cascade bool) error {
	status, errText, simulated := StatusOK, "", s.Simulated
	var notes string
	if r.Err != nil {
		status, errText = StatusFailed, r.Err.Error()
	} else if r.Result == nil {
		return errors.New("internal error: a successful run without a result")
	} else {
		simulated = r.Result.Simulated
		notes = strings.Join(r.Result.Notes, "\n")
	}
	if simulated != s.Simulated {
		return fmt.Errorf("run %s is %s but %s holds %s runs; a store never mixes them", r.RunKey, kind(simulated), s.path, kind(s.Simulated))
	}
	return s.connTx(ctx, cascade, func(conn *sql.Conn, tx *sql.Tx) error {
		cell, err := s.stmt(ctx, tx, cascade, cellIDSQL)
		if err != nil {
			return err
		}
		var cellID int64
		if err := cell.QueryRowContext(ctx, r.Cell).Scan(&cellID); err != nil {
			return fmt.Errorf("run %s: unknown cell: %w", r.RunKey, err)
		}
		failed, err := s.stmt(ctx, tx, cascade, failedRunSQL)
		if err != nil {
			return err
		}
		res, err := failed.ExecContext(ctx, cellID, r.Workload, r.Repeat)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n > 0 && !cascade {
			return errReplacesFailedRun
		}
		var session any
		if r.Session != 0 {
			session = r.Session
		}
		insert, err := s.stmt(ctx, tx, cascade, insertRunSQL)
		if err != nil {
			return err
		}
		res, err = insert.ExecContext(ctx, cellID, r.Workload, r.Repeat, status, errText, stamp(r.Start), stamp(r.End), session, simulated, notes)
		if err != nil {
			return fmt.Errorf("run %s: %w", r.RunKey, err)
		}
		runID, err := res.LastInsertId()
		if err != nil {
			return err
		}
		if r.Result != nil {
			if err := s.insertRows(ctx, conn, runID, r.Result.Aggregate, true); err != nil {
				return err
			}
			if err := s.insertRows(ctx, conn, runID, r.Result.Rows, false); err != nil {
				return err
			}
			if err := insertEvents(ctx, tx, runID, r.Result.Events); err != nil {
				return err
			}
			if err := s.insertSamples(ctx, conn, runID, r.Result.Samples); err != nil {
				return err
			}
			if err := insertArtifacts(ctx, tx, runID, r.Result.Artifacts); err != nil {
				return err
			}
		}
		return s.insertBatched(ctx, conn, hostMetricsTable, len(r.Metrics), func(i int, to []any) []any {
			m := &r.Metrics[i]
			return append(to, runID, m.Host, m.Metric, stamp(m.At), m.Value)
		})
	})
}

func (s *Store) insertRows(ctx context.Context, conn *sql.Conn, runID int64, rows []fio.Row, aggregate bool) error {
	return s.insertBatched(ctx, conn, rowsTable, len(rows), func(i int, to []any) []any {
		r := &rows[i]
		return append(to, runID, aggregate, r.Worker, r.Disk, r.Direction, nullable(r.IOPS), nullable(r.MBps), nullable(r.LatMeanUs),
			nullable(r.P50Us), nullable(r.P95Us), nullable(r.P99Us), nullable(r.P999Us), int64(r.Errors), r.Simulated, r.Job)
	})
}

// nanIfNull reads NULL back as NaN.
func nanIfNull(n sql.NullFloat64) float64 {
	if !n.Valid {
		return math.NaN()
	}
	return n.Float64
}

// Done returns the status of every stored run. The cells, workloads and
// statuses are kept once each, not once per run.
func (s *Store) Done(ctx context.Context) (map[RunKey]string, error) {
	return s.done(ctx, "")
}

// CellDone is Done for the runs of one cell (by label).
func (s *Store) CellDone(ctx context.Context, cell string) (map[RunKey]string, error) {
	return s.done(ctx, cell)
}

// done reads the runs' statuses: every cell's, or with only set that
// cell's alone.
func (s *Store) done(ctx context.Context, only string) (map[RunKey]string, error) {
	done := map[RunKey]string{}
	var t texts
	var cell, workload, status sql.RawBytes
	q, args := `SELECT c.label, r.workload, r.repeat, r.status FROM runs r JOIN cells c ON c.id = r.cell_id`, []any{}
	if only != "" {
		q, args = q+` WHERE c.label = ?`, append(args, only)
	}
	err := s.each(ctx, q, func(rows *sql.Rows) error {
		var k RunKey
		if err := rows.Scan(&cell, &workload, &k.Repeat, &status); err != nil {
			return err
		}
		k.Cell, k.Workload = t.of(cell), t.of(workload)
		done[k] = t.of(status)
		return nil
	}, args...)
	return done, err
}

// Aggregate is one aggregate row of a successful run.
type Aggregate struct {
	RunKey
	fio.Row
}

// Block is what a summary of one cell and workload's repeats reads: the
// aggregate rows of its successful runs over all of their jobs (a workload
// of several jobs also stores each job's), repeats in order and each
// repeat's directions in order.
type Block struct {
	Cell, Workload string
	Aggregates     []Aggregate
	// HostMeans are, per run, the mean of each host metric over the run's
	// hosts and samples (runs that measured none have no entry); nil unless
	// asked for.
	HostMeans map[RunKey]map[string]float64
}

// blocksQuery reads the aggregate rows of the successful runs ordered by
// cell (the rank of its id in the JSON array ?1), workload, repeat and
// direction; with hostMeans, each run's host metric means follow its rows
// (kind 1, the metric in the direction's place).
func blocksQuery(hostMeans bool) string {
	q := `WITH k(cell_id, rank) AS (SELECT value, key FROM json_each(?1)),
	ok(id, rank, label, workload, repeat) AS (SELECT r.id, k.rank, c.label, r.workload, r.repeat
		FROM runs r JOIN cells c ON c.id = r.cell_id JOIN k ON k.cell_id = c.id WHERE r.status = 'ok')
	SELECT ok.rank, ok.label, ok.workload, ok.repeat, 0, w.direction, w.iops, w.mbps, w.lat_mean_us,
		w.p50_us, w.p95_us, w.p99_us, w.p999_us, w.errors, w.simulated
		FROM rows w JOIN ok ON ok.id = w.run_id WHERE w.aggregate AND w.job = ''`
	if hostMeans {
		q += `
	UNION ALL
	SELECT ok.rank, ok.label, ok.workload, ok.repeat, 1, m.metric, AVG(m.value), NULL, NULL, NULL, NULL, NULL, NULL, 0, 0
		FROM host_metrics m JOIN ok ON ok.id = m.run_id GROUP BY ok.id, m.metric`
	}
	return q + `
	ORDER BY 1, 3, 4, 5, 6`
}

// EachBlock calls f with the aggregate rows of every successful run, one
// cell and workload at a time (a Block), cells in the order Cells gives
// them and each cell's workloads by name: what the summaries of the
// repeats need, without holding every run. With hostMeans, each block also
// has its runs' host metric means. f must not keep the block's slice or
// map: their memory holds the next block.
func (s *Store) EachBlock(ctx context.Context, hostMeans bool, f func(Block) error) error {
	order, err := s.cellOrder(ctx)
	if err != nil {
		return err
	}
	return s.blocks(ctx, order, hostMeans, f)
}

// CellBlocks is EachBlock for one cell (by label): its workloads' blocks,
// without host means. A cell not stored has none.
func (s *Store) CellBlocks(ctx context.Context, cell string, f func(Block) error) error {
	var id int64
	err := s.db.QueryRowContext(ctx, `SELECT id FROM cells WHERE label = ?`, cell).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	return s.blocks(ctx, fmt.Sprintf("[%d]", id), false, f)
}

// blocks calls f with the blocks of the cells whose ids order lists (a
// JSON array), in that order.
func (s *Store) blocks(ctx context.Context, order string, hostMeans bool, f func(Block) error) error {
	rows, err := s.db.QueryContext(ctx, blocksQuery(hostMeans), order)
	if err != nil {
		return err
	}
	defer rows.Close()
	// The cells, workloads, directions and metrics repeat row after row:
	// each text is kept once.
	var t texts
	var cell, workload, name sql.RawBytes
	var b Block
	rank := -1
	flush := func() error {
		if len(b.Aggregates) == 0 && len(b.HostMeans) == 0 {
			return nil
		}
		if err := f(b); err != nil {
			return err
		}
		b.Aggregates = b.Aggregates[:0]
		clear(b.HostMeans)
		return nil
	}
	for rows.Next() {
		var k RunKey
		var r, kind int
		var m [7]sql.NullFloat64
		var a Aggregate
		if err := rows.Scan(&r, &cell, &workload, &k.Repeat, &kind, &name, &m[0], &m[1], &m[2],
			&m[3], &m[4], &m[5], &m[6], &a.Errors, &a.Simulated); err != nil {
			return err
		}
		if r != rank || string(workload) != b.Workload {
			if err := flush(); err != nil {
				return err
			}
			rank, b.Cell, b.Workload = r, t.of(cell), t.of(workload)
		}
		k.Cell, k.Workload = b.Cell, b.Workload
		if kind == 1 {
			if b.HostMeans == nil {
				b.HostMeans = map[RunKey]map[string]float64{}
			}
			if b.HostMeans[k] == nil {
				b.HostMeans[k] = map[string]float64{}
			}
			b.HostMeans[k][t.of(name)] = m[0].Float64
			continue
		}
		a.RunKey, a.Direction = k, t.of(name)
		a.IOPS, a.MBps, a.LatMeanUs, a.P50Us = nanIfNull(m[0]), nanIfNull(m[1]), nanIfNull(m[2]), nanIfNull(m[3])
		a.P95Us, a.P99Us, a.P999Us = nanIfNull(m[4]), nanIfNull(m[5]), nanIfNull(m[6])
		b.Aggregates = append(b.Aggregates, a)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return flush()
}

// SaveOriginal records the token that restores factor to what it was before
// the campaign first changed it. The first record wins: after a crash the
// cluster is no longer in its original state, so later ones would be wrong.
func (s *Store) SaveOriginal(ctx context.Context, factor, token string) error {
	_, err := s.db.ExecContext(ctx, `INSERT OR IGNORE INTO originals VALUES (?, ?)`, factor, token)
	return err
}

// Originals returns the recorded restore tokens by factor.
func (s *Store) Originals(ctx context.Context) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT factor, token FROM originals`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var f, t string
		if err := rows.Scan(&f, &t); err != nil {
			return nil, err
		}
		out[f] = t
	}
	return out, rows.Err()
}

// ForgetOriginal forgets factor's restore token once it is restored (or
// never can be).
func (s *Store) ForgetOriginal(ctx context.Context, factor string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM originals WHERE factor = ?`, factor)
	return err
}
