package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// FrameNames lists the tables Frame serves, in doc order.
var FrameNames = []string{"results", "rows", "runs", "metrics", "events", "samples", "cells", "sessions", "files", "sets"}

// ReservedColumns are column names of the frames; a factor may not take one.
var ReservedColumns = slices.Concat([]string{"run_id", "cell", "position", "workload", "job", "repeat", "status", "error",
	"started_at", "ended_at", "seconds", "simulated", "worker", "disk", "direction", "iops", "mbps",
	"lat_mean_us", "p50_us", "p95_us", "p99_us", "p999_us", "errors", "host", "metric", "at", "value"}, reservedDatasetColumns, reservedEventColumns, reservedSampleColumns)

type colKind int

const (
	text colKind = iota
	integer
	real
	boolean
)

type column struct {
	name string
	kind colKind
}

// frameQuery is one frame: its SQL (whose first column is the cell id, not
// shown) and its columns; factor columns follow "cell" when withLevels.
type frameQuery struct {
	sql        string
	cols       []column
	withLevels bool
}

var runCols = []column{{"run_id", integer}, {"cell", text}, {"workload", text}, {"repeat", integer}}

var metricCols = []column{{"direction", text}, {"iops", real}, {"mbps", real}, {"lat_mean_us", real},
	{"p50_us", real}, {"p95_us", real}, {"p99_us", real}, {"p999_us", real}, {"errors", integer}, {"simulated", boolean}}

// directionOrder sorts rows read, write, trim, then their total.
const directionOrder = `CASE w.direction WHEN 'read' THEN 0 WHEN 'write' THEN 1 WHEN 'trim' THEN 2 ELSE 3 END`

// rowSQL reads rows; a job of ” (a one-job workload, or all jobs) reads as "all".
const rowSQL = `SELECT c.id, r.id, c.label, r.workload, r.repeat, CASE w.job WHEN '' THEN 'all' ELSE w.job END, %s w.direction,
	w.iops, w.mbps, w.lat_mean_us, w.p50_us, w.p95_us, w.p99_us, w.p999_us, w.errors, w.simulated
	FROM rows w JOIN runs r ON r.id = w.run_id JOIN cells c ON c.id = r.cell_id
	WHERE w.aggregate = %d AND r.status = 'ok' ORDER BY c.position, r.workload, r.repeat, w.worker, w.disk, w.job, ` + directionOrder

var frames = map[string]frameQuery{
	"results": {
		sql:        fmt.Sprintf(rowSQL, "", 1),
		cols:       concat(runCols, []column{{"job", text}}, metricCols),
		withLevels: true,
	},
	"rows": {
		sql:        fmt.Sprintf(rowSQL, "w.worker, w.disk,", 0),
		cols:       concat(runCols, []column{{"job", text}, {"worker", text}, {"disk", text}}, metricCols),
		withLevels: true,
	},
	"runs": {
		sql: `SELECT c.id, r.id, c.label, r.workload, r.repeat, r.status, r.error, r.started_at, r.ended_at,
			(julianday(r.ended_at) - julianday(r.started_at)) * 86400.0, r.simulated
			FROM runs r JOIN cells c ON c.id = r.cell_id ORDER BY c.position, r.workload, r.repeat`,
		cols: concat(runCols, []column{{"status", text}, {"error", text}, {"started_at", text},
			{"ended_at", text}, {"seconds", real}, {"simulated", boolean}}),
		withLevels: true,
	},
	"metrics": {
		sql: `SELECT c.id, r.id, c.label, r.workload, r.repeat, m.host, m.metric, m.at, m.value, r.simulated
			FROM host_metrics m JOIN runs r ON r.id = m.run_id JOIN cells c ON c.id = r.cell_id
			ORDER BY c.position, r.workload, r.repeat, m.host, m.metric, m.at`,
		cols:       concat(runCols, []column{{"host", text}, {"metric", text}, {"at", text}, {"value", real}, {"simulated", boolean}}),
		withLevels: true,
	},
	"events":  eventsFrame,
	"samples": samplesFrame,
	"cells": {
		sql:        `SELECT id, label, position FROM cells ORDER BY position`,
		cols:       []column{{"cell", text}, {"position", integer}},
		withLevels: true,
	},
	"sessions": {
		sql: `SELECT 0, id, started_at, COALESCE(ended_at, ''), status, pid, script, tool_version, fio_version,
			vcenter_version, esxi_versions, testbed, target, simulated FROM sessions ORDER BY id`,
		cols: []column{{"session", integer}, {"started_at", text}, {"ended_at", text}, {"status", text}, {"pid", integer},
			{"script", text}, {"tool_version", text}, {"fio_version", text}, {"vcenter_version", text},
			{"esxi_versions", text}, {"testbed", text}, {"target", text}, {"simulated", boolean}},
	},
	"files": {
		sql:  `SELECT 0, session_id, path, sha256, bytes FROM session_files ORDER BY session_id, path`,
		cols: []column{{"session", integer}, {"path", text}, {"sha256", text}, {"bytes", integer}},
	},
	"sets": {
		sql:  `SELECT 0, session_id, name, value FROM session_sets ORDER BY session_id, name`,
		cols: []column{{"session", integer}, {"name", text}, {"value", text}},
	},
}

func concat(parts ...[]column) []column {
	var out []column
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// Frame returns one of the store's tables (see FrameNames) for analysis.
// Frames about cells carry one text column per factor after "cell".
func (s *Store) Frame(ctx context.Context, name string) (dataframe.DataFrame, error) {
	q, ok := frames[name]
	if !ok {
		return dataframe.DataFrame{}, fmt.Errorf("no frame %q in a campaign store; want one of %s", name, strings.Join(FrameNames, ", "))
	}
	var factors []string
	var levels map[int64]map[string]string
	if q.withLevels {
		var err error
		if factors, levels, err = s.levels(ctx); err != nil {
			return dataframe.DataFrame{}, err
		}
	}
	rows, err := s.db.QueryContext(ctx, q.sql)
	if err != nil {
		return dataframe.DataFrame{}, err
	}
	defer rows.Close()
	values := make([][]any, len(q.cols))
	var cellIDs []int64
	for rows.Next() {
		dest := make([]any, len(q.cols)+1)
		dest[0] = new(int64)
		for i, c := range q.cols {
			switch c.kind {
			case text:
				dest[i+1] = new(string)
			case integer:
				dest[i+1] = new(int64)
			case real:
				dest[i+1] = new(sql.NullFloat64)
			case boolean:
				dest[i+1] = new(bool)
			}
		}
		if err := rows.Scan(dest...); err != nil {
			return dataframe.DataFrame{}, fmt.Errorf("reading frame %q: %w", name, err)
		}
		cellIDs = append(cellIDs, *dest[0].(*int64))
		for i := range q.cols {
			values[i] = append(values[i], dest[i+1])
		}
	}
	if err := rows.Err(); err != nil {
		return dataframe.DataFrame{}, err
	}
	var cols []series.Series
	for i, c := range q.cols {
		cols = append(cols, toSeries(c, values[i]))
		if q.withLevels && c.name == "cell" {
			for _, f := range factors {
				col := make([]string, len(cellIDs))
				for j, id := range cellIDs {
					col[j] = levels[id][f]
				}
				cols = append(cols, series.New(col, series.String, f))
			}
		}
	}
	return dataframe.New(cols...), nil
}

func toSeries(c column, vals []any) series.Series {
	switch c.kind {
	case integer:
		out := make([]int, len(vals))
		for i, v := range vals {
			out[i] = int(*v.(*int64))
		}
		return series.New(out, series.Int, c.name)
	case real:
		out := make([]float64, len(vals))
		for i, v := range vals {
			out[i] = nanIfNull(*v.(*sql.NullFloat64))
		}
		return series.New(out, series.Float, c.name)
	case boolean:
		out := make([]bool, len(vals))
		for i, v := range vals {
			out[i] = *v.(*bool)
		}
		return series.New(out, series.Bool, c.name)
	default:
		out := make([]string, len(vals))
		for i, v := range vals {
			out[i] = *v.(*string)
		}
		return series.New(out, series.String, c.name)
	}
}

// levels returns the factor names in first-seen order and each cell's levels.
func (s *Store) levels(ctx context.Context) ([]string, map[int64]map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT cell_id, factor, level FROM cell_levels ORDER BY rowid`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var factors []string
	seen := map[string]bool{}
	levels := map[int64]map[string]string{}
	for rows.Next() {
		var id int64
		var f, l string
		if err := rows.Scan(&id, &f, &l); err != nil {
			return nil, nil, err
		}
		if !seen[f] {
			seen[f] = true
			factors = append(factors, f)
		}
		if levels[id] == nil {
			levels[id] = map[string]string{}
		}
		levels[id][f] = l
	}
	return factors, levels, rows.Err()
}
