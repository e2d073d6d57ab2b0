package store

import (
	"context"
	"database/sql"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The store as a dataset: views a sqlite3 or pandas user reads without
// joining the tables, and the tables `starbench export` writes as CSV.
// Factors become columns, so the views are made for the factors a store's
// cells have: again whenever cells are saved (see docs/store.md).

// Datasets are the tables WriteCSV writes, in order; a store also has the
// tables of optionalDatasets it holds (see DatasetNames).
var Datasets = []string{"results_wide", "cell_summary", "runs", "rows", "host_metrics", "sessions"}

// optionalDatasets are tables later schema versions or other writers add,
// exported as they are when a store has them.
var optionalDatasets = []string{"events", "samples"}

// layout is what a store's datasets depend on: its factors, and the
// columns and tables its schema version has.
type layout struct {
	factors  []string // as the cells name them, in declaration order
	declared []Factor // the factors table (version 8), in declaration order
	// modelVersion says sessions have a model_version column (version 8).
	modelVersion bool
	job          bool     // rows has a job column (concurrent jobs)
	tables       []string // optionalDatasets the store has
}

func readLayout(ctx context.Context, q querier) (layout, error) {
	var l layout
	var err error
	if l.factors, err = factorNames(ctx, q); err != nil {
		return l, err
	}
	cols, err := strings1(ctx, q, `SELECT name FROM pragma_table_info('rows') WHERE name = 'job'`)
	if err != nil {
		return l, err
	}
	l.job = len(cols) > 0
	tables, err := strings1(ctx, q, `SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		return l, err
	}
	for _, t := range optionalDatasets {
		if slices.Contains(tables, t) {
			l.tables = append(l.tables, t)
		}
	}
	if slices.Contains(tables, "factors") {
		l.modelVersion = true
		if l.declared, err = readDeclared(ctx, q); err != nil {
			return l, err
		}
	}
	return l, nil
}

// DatasetNames lists the datasets of this store: Datasets and the optional
// tables it holds.
func (s *Store) DatasetNames(ctx context.Context) ([]string, error) {
	l, err := readLayout(ctx, s.db)
	if err != nil {
		return nil, err
	}
	return slices.Concat(Datasets, l.tables), nil
}

// metricColumns are the metrics of a result row, as stored.
var metricColumns = []string{"iops", "mbps", "lat_mean_us", "p50_us", "p95_us", "p99_us", "p999_us"}

// summaryMetrics are the metrics cell_summary averages, with a standard
// deviation for the first two.
var summaryMetrics = []string{"iops", "mbps", "lat_mean_us", "p95_us", "p99_us"}

// SummaryColumns are cell_summary's columns after cell, the factors, workload, job and direction.
var SummaryColumns = []string{"n", "iops_mean", "iops_std", "iops_cv", "mbps_mean", "mbps_std",
	"lat_mean_us_mean", "p95_us_mean", "p99_us_mean", "simulated"}

// quoteIdent quotes a name for SQL: "name", with inner quotes doubled.
func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// quoteText quotes a string literal for SQL.
func quoteText(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }

// factorColumns selects each factor's level of cell c as a column, typed
// as the factor was declared (text in a store from before version 8).
func factorColumns(l layout, c string) string {
	var b strings.Builder
	for _, f := range l.factors {
		level := fmt.Sprintf("(SELECT level FROM cell_levels WHERE cell_id = %s.id AND factor = %s)", c, quoteText(f))
		switch l.declaredFactor(f).Type {
		case LevelInt:
			level = "CAST(" + level + " AS INTEGER)"
		case LevelFloat:
			level = "CAST(" + level + " AS REAL)"
		case LevelBool:
			level = "(" + level + " = 'True')"
		}
		fmt.Fprintf(&b, "%s AS %s, ", level, quoteIdent(f))
	}
	return b.String()
}

// resultsWideSQL is one row per successful run and direction (the
// aggregate of all workers; per job too when the store has jobs), with one
// column per factor.
func resultsWideSQL(l layout) string {
	job, jobOrder := "", ""
	if l.job {
		job, jobOrder = jobColumn+", ", "w.job, "
	}
	return `SELECT r.id AS run_id, c.label AS cell, ` + factorColumns(l, "c") + `r.workload AS workload, r.repeat AS repeat,
	` + job + `w.direction AS direction, ` + prefixed("w.", metricColumns) + `, w.errors AS errors, w.simulated AS simulated,
	r.started_at AS started_at, r.ended_at AS ended_at
FROM rows w JOIN runs r ON r.id = w.run_id JOIN cells c ON c.id = r.cell_id
WHERE w.aggregate AND r.status = 'ok'
ORDER BY ` + levelOrderSQL(l, "c") + `, r.workload, r.repeat, ` + jobOrder + directionOrder
}

// jobColumn is a row's job, "all" for a one-job workload's rows and the
// aggregate over all jobs.
const jobColumn = `CASE w.job WHEN '' THEN 'all' ELSE w.job END AS job`

// cellSummarySQL summarises the repeats per cell, workload, job and direction:
// the mean of each metric (missing values left out), the sample standard
// deviation of IOPS and MB/s (0 for one repeat, as the stats frame) and
// the CV of IOPS.
func cellSummarySQL(l layout) string {
	job := "'all' AS job"
	if l.job {
		job = jobColumn
	}
	var means, stds []string
	for _, m := range summaryMetrics {
		means = append(means, fmt.Sprintf("AVG(%s) AS %s_mean", m, m))
	}
	for _, m := range []string{"iops", "mbps"} {
		stds = append(stds, fmt.Sprintf(`(SELECT CASE WHEN COUNT(a.%[1]s) < 2 THEN 0.0
		ELSE sqrt(SUM((a.%[1]s - m.%[1]s_mean) * (a.%[1]s - m.%[1]s_mean)) / (COUNT(a.%[1]s) - 1)) END
		FROM agg a WHERE a.cell_id = m.cell_id AND a.workload = m.workload AND a.job = m.job AND a.direction = m.direction) AS %[1]s_std`, m))
	}
	return `WITH agg AS (
	SELECT r.cell_id, r.workload, ` + job + `, w.direction, ` + prefixed("w.", summaryMetrics) + `, w.simulated, w.rowid AS seq
	FROM rows w JOIN runs r ON r.id = w.run_id WHERE w.aggregate AND r.status = 'ok'
), m AS (
	SELECT cell_id, workload, job, direction, COUNT(*) AS n, ` + strings.Join(means, ", ") + `, MAX(simulated) AS simulated, MIN(seq) AS seq
	FROM agg GROUP BY cell_id, workload, job, direction
), s AS (
	SELECT m.*, ` + strings.Join(stds, ", ") + ` FROM m
)
SELECT c.label AS cell, ` + factorColumns(l, "c") + `s.workload AS workload, s.job AS job, s.direction AS direction, s.n AS n,
	s.iops_mean AS iops_mean, s.iops_std AS iops_std, CASE WHEN s.iops_mean > 0 THEN s.iops_std / s.iops_mean ELSE 0.0 END AS iops_cv,
	s.mbps_mean AS mbps_mean, s.mbps_std AS mbps_std, s.lat_mean_us_mean AS lat_mean_us_mean,
	s.p95_us_mean AS p95_us_mean, s.p99_us_mean AS p99_us_mean, s.simulated AS simulated
FROM s JOIN cells c ON c.id = s.cell_id
ORDER BY ` + levelOrderSQL(l, "c") + `, s.workload, s.job, s.seq`
}

// prefixed lists names as "p.name AS name, ...".
func prefixed(p string, names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = p + n + " AS " + n
	}
	return strings.Join(parts, ", ")
}

// datasetSQL is the query of one of a store's datasets.
func datasetSQL(name string, l layout) (string, error) {
	if slices.Contains(l.tables, name) {
		return `SELECT * FROM ` + name + ` ORDER BY rowid`, nil
	}
	switch name {
	case "results_wide":
		return resultsWideSQL(l), nil
	case "cell_summary":
		return cellSummarySQL(l), nil
	case "runs":
		return `SELECT r.id AS run_id, c.label AS cell, ` + factorColumns(l, "c") + `r.workload AS workload, r.repeat AS repeat,
	r.status AS status, r.error AS error, r.started_at AS started_at, r.ended_at AS ended_at,
	(julianday(r.ended_at) - julianday(r.started_at)) * 86400.0 AS seconds, r.session_id AS session_id,
	r.simulated AS simulated, r.notes AS notes
FROM runs r JOIN cells c ON c.id = r.cell_id ORDER BY ` + levelOrderSQL(l, "c") + `, r.workload, r.repeat`, nil
	case "rows":
		job := ""
		if l.job {
			job = "w.job, "
		}
		return `SELECT run_id, aggregate, worker, disk, ` + strings.Replace(job, "w.job", jobColumn, 1) + `direction, ` + strings.Join(metricColumns, ", ") + `, errors, simulated
FROM rows w ORDER BY run_id, aggregate DESC, worker, disk, ` + job + directionOrder, nil
	case "host_metrics":
		return `SELECT run_id, host, metric, at, value FROM host_metrics ORDER BY run_id, host, metric, at`, nil
	case "sessions":
		model := ""
		if l.modelVersion {
			model = "model_version, "
		}
		return `SELECT id AS session_id, started_at, ended_at, status, pid, script, tool_version, fio_version, ` + model + `vcenter_version,
	esxi_versions, testbed, target, simulated, plan FROM sessions ORDER BY id`, nil
	}
	return "", fmt.Errorf("no dataset %q in a campaign store; want one of %s", name, strings.Join(slices.Concat(Datasets, l.tables), ", "))
}

// refreshViews makes the views results_wide and cell_summary for the
// factors the store's cells have now.
func refreshViews(ctx context.Context, tx *sql.Tx) error {
	l, err := readLayout(ctx, tx)
	if err != nil {
		return err
	}
	for _, name := range []string{"results_wide", "cell_summary"} {
		q, _ := datasetSQL(name, l)
		if _, err := tx.ExecContext(ctx, `DROP VIEW IF EXISTS `+name); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `CREATE VIEW `+name+` AS `+q); err != nil {
			return fmt.Errorf("making view %s: %w", name, err)
		}
	}
	return nil
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// factorNames lists the factors of the store's cells in declaration order.
func factorNames(ctx context.Context, q querier) ([]string, error) {
	return strings1(ctx, q, `SELECT factor FROM cell_levels GROUP BY factor ORDER BY MIN(rowid)`)
}

// strings1 returns the first column of query's rows as text.
func strings1(ctx context.Context, q querier, query string) ([]string, error) {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// WriteCSV writes dataset name (one of Datasets) as CSV with a header row;
// missing values are empty fields, booleans 1 and 0 as SQLite keeps them.
func (s *Store) WriteCSV(ctx context.Context, name string, w io.Writer) error {
	l, err := readLayout(ctx, s.db)
	if err != nil {
		return err
	}
	q, err := datasetSQL(name, l)
	if err != nil {
		return err
	}
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("reading %s: %w", name, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	out := csv.NewWriter(w)
	if err := out.Write(cols); err != nil {
		return err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	record := make([]string, len(cols))
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		for i, v := range vals {
			record[i] = csvField(v)
		}
		if err := out.Write(record); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	out.Flush()
	return out.Error()
}

func csvField(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		if v {
			return "1"
		}
		return "0"
	case []byte:
		return string(v)
	case string:
		return v
	}
	return fmt.Sprint(v)
}

// reservedDatasetColumns are the datasets' column names a factor may not take.
var reservedDatasetColumns = slices.Concat([]string{"session_id", "aggregate", "notes"}, SummaryColumns)
