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
var FrameNames = []string{"results", "rows", "runs", "metrics", "events", "samples", "cells", "factors", "sessions", "files", "sets"}

// ReservedColumns are column names of the frames; a factor may not take one.
var ReservedColumns = slices.Concat([]string{"run_id", "cell", "position", "workload", "job", "repeat", "status", "error",
	"started_at", "ended_at", "seconds", "simulated", "worker", "disk", "direction", "iops", "mbps",
	"lat_mean_us", "p50_us", "p95_us", "p99_us", "p999_us", "errors", "host", "metric", "at", "value", "testbed", "model"}, reservedDatasetColumns, reservedEventColumns, reservedSampleColumns)

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

// provenanceCols say where a run's numbers come from: its session's testbed
// and model version ("" for measured runs); provenanceSQL selects them.
var provenanceCols = []column{{"testbed", text}, {"model", text}}

const provenanceSQL = "{provenance}"

// provenanceJoin joins a run r to its session s.
const provenanceJoin = " LEFT JOIN sessions s ON s.id = r.session_id "

var metricCols = []column{{"direction", text}, {"iops", real}, {"mbps", real}, {"lat_mean_us", real},
	{"p50_us", real}, {"p95_us", real}, {"p99_us", real}, {"p999_us", real}, {"errors", integer}, {"simulated", boolean}}

// directionOrder sorts rows read, write, trim, then their total.
const directionOrder = `CASE w.direction WHEN 'read' THEN 0 WHEN 'write' THEN 1 WHEN 'trim' THEN 2 ELSE 3 END`

// rowSQL reads rows; a job of ” (a one-job workload, or all jobs) reads as "all".
const rowSQL = `SELECT c.id, r.id, c.label, r.workload, r.repeat, CASE w.job WHEN '' THEN 'all' ELSE w.job END, %s w.direction,
	w.iops, w.mbps, w.lat_mean_us, w.p50_us, w.p95_us, w.p99_us, w.p999_us, w.errors, w.simulated, ` + provenanceSQL + `
	FROM rows w JOIN runs r ON r.id = w.run_id JOIN cells c ON c.id = r.cell_id` + provenanceJoin + `
	WHERE w.aggregate = %d AND r.status = 'ok' ORDER BY c.position, r.workload, r.repeat, w.worker, w.disk, w.job, ` + directionOrder

var frames = map[string]frameQuery{
	"results": {
		sql:        fmt.Sprintf(rowSQL, "", 1),
		cols:       concat(runCols, []column{{"job", text}}, metricCols, provenanceCols),
		withLevels: true,
	},
	"rows": {
		sql:        fmt.Sprintf(rowSQL, "w.worker, w.disk,", 0),
		cols:       concat(runCols, []column{{"job", text}, {"worker", text}, {"disk", text}}, metricCols, provenanceCols),
		withLevels: true,
	},
	"runs": {
		sql: `SELECT c.id, r.id, c.label, r.workload, r.repeat, r.status, r.error, r.started_at, r.ended_at,
			(julianday(r.ended_at) - julianday(r.started_at)) * 86400.0, r.simulated, ` + provenanceSQL + `
			FROM runs r JOIN cells c ON c.id = r.cell_id` + provenanceJoin + `ORDER BY c.position, r.workload, r.repeat`,
		cols: concat(runCols, []column{{"status", text}, {"error", text}, {"started_at", text},
			{"ended_at", text}, {"seconds", real}, {"simulated", boolean}}, provenanceCols),
		withLevels: true,
	},
	"metrics": {
		sql: `SELECT c.id, r.id, c.label, r.workload, r.repeat, m.host, m.metric, m.at, m.value, r.simulated
			FROM host_metrics m JOIN runs r ON r.id = m.run_id JOIN cells c ON c.id = r.cell_id
			ORDER BY c.position, r.workload, r.repeat, m.host, m.metric, m.at`,
		cols:       concat(runCols, []column{{"host", text}, {"metric", text}, {"at", text}, {"value", real}, {"simulated", boolean}}),
		withLevels: true,
	},
	"factors": {}, // from the declarations (factorsFrame), not a query
	"events":  eventsFrame,
	"samples": samplesFrame,
	"cells": {
		sql:        `SELECT id, label, position FROM cells ORDER BY position`,
		cols:       []column{{"cell", text}, {"position", integer}},
		withLevels: true,
	},
	"sessions": {
		sql: `SELECT 0, id, started_at, COALESCE(ended_at, ''), status, pid, script, tool_version, fio_version,
			vcenter_version, esxi_versions, testbed, target, simulated, {model_version} FROM sessions ORDER BY id`,
		cols: []column{{"session", integer}, {"started_at", text}, {"ended_at", text}, {"status", text}, {"pid", integer},
			{"script", text}, {"tool_version", text}, {"fio_version", text}, {"vcenter_version", text},
			{"esxi_versions", text}, {"testbed", text}, {"target", text}, {"simulated", boolean}, {"model", text}},
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
// Frames about cells carry one column per factor after "cell", typed as
// the factor's levels were declared (int, float, bool; text otherwise and
// in stores from before version 8), and list cells in the declared order
// of their levels, not in execution order.
func (s *Store) Frame(ctx context.Context, name string) (dataframe.DataFrame, error) {
	q, ok := frames[name]
	if !ok {
		return dataframe.DataFrame{}, fmt.Errorf("no frame %q in a campaign store; want one of %s", name, strings.Join(FrameNames, ", "))
	}
	l, err := readLayout(ctx, s.db)
	if err != nil {
		return dataframe.DataFrame{}, err
	}
	if name == "factors" {
		return factorsFrame(l), nil
	}
	var levels map[int64]map[string]string
	if q.withLevels {
		if levels, err = s.levels(ctx); err != nil {
			return dataframe.DataFrame{}, err
		}
	}
	model, provenance := "''", "COALESCE(s.testbed, ''), ''"
	if l.modelVersion {
		model, provenance = "model_version", "COALESCE(s.testbed, ''), COALESCE(s.model_version, '')"
	}
	query := strings.NewReplacer(provenanceSQL, provenance, "{model_version}", model).Replace(q.sql)
	if !l.job { // a store from before concurrent jobs (version 5): every row is the one job's
		query = strings.ReplaceAll(query, "w.job", "''")
	}
	rows, err := s.db.QueryContext(ctx, query)
	if err != nil {
		return dataframe.DataFrame{}, err
	}
	defer rows.Close()
	// One destination per column, reused row after row, and each column's
	// values kept typed: a frame of 10,000 runs read as a pointer per value
	// held some 800 bytes a row until it became series.
	cols := make([]frameColumn, len(q.cols))
	var cellID int64
	dest := make([]any, len(q.cols)+1)
	dest[0] = &cellID
	for i, c := range q.cols {
		cols[i].column = c
		dest[i+1] = cols[i].dest()
	}
	var cellIDs []int64
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return dataframe.DataFrame{}, fmt.Errorf("reading frame %q: %w", name, err)
		}
		cellIDs = append(cellIDs, cellID)
		for i := range cols {
			cols[i].keep()
		}
	}
	order := identity(len(cellIDs))
	if q.withLevels {
		order = declaredOrder(l, levels, cellIDs)
	}
	var out []series.Series
	for i, c := range q.cols {
		out = append(out, cols[i].series(order))
		if q.withLevels && c.name == "cell" {
			for _, f := range l.factors {
				texts := make([]string, len(order))
				for j, k := range order {
					texts[j] = levels[cellIDs[k]][f]
				}
				out = append(out, levelSeries(l.declaredFactor(f), texts))
			}
		}
	}
	return dataframe.New(out...), nil
}

// factorsFrame lists the factors as declared: factor, position, type (int,
// float, bool or text), kind (setting or load) and their levels in order;
// empty for a store from before version 8.
func factorsFrame(l layout) dataframe.DataFrame {
	n := len(l.declared)
	names, types, kinds, levels := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	positions := make([]int, n)
	for i, f := range l.declared {
		names[i], positions[i], types[i], kinds[i], levels[i] = f.Name, i, f.Type, "setting", strings.Join(f.Levels, ", ")
		if f.Load {
			kinds[i] = "load"
		}
	}
	return dataframe.New(series.New(names, series.String, "factor"), series.New(positions, series.Int, "position"),
		series.New(types, series.String, "type"), series.New(kinds, series.String, "kind"), series.New(levels, series.String, "levels"))
}

// declaredOrder is the order of rows that lists cells by their levels'
// declared order, factor by factor; rows of one cell keep their order.
func declaredOrder(l layout, levels map[int64]map[string]string, cellIDs []int64) []int {
	order := identity(len(cellIDs))
	slices.SortStableFunc(order, func(a, b int) int {
		la, lb := levels[cellIDs[a]], levels[cellIDs[b]]
		for _, f := range l.factors {
			if c := levelRank(l.declaredFactor(f), la[f], lb[f]); c != 0 {
				return c
			}
		}
		return 0
	})
	return order
}

func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func permute[T any](vals []T, order []int) []T {
	out := make([]T, len(order))
	for i, j := range order {
		out[i] = vals[j]
	}
	return out
}

// FactorColumns returns one column per factor for rows of the given cells
// (by label), typed and named as Frame's factor columns.
func (s *Store) FactorColumns(ctx context.Context, cells []string) ([]series.Series, error) {
	l, err := readLayout(ctx, s.db)
	if err != nil {
		return nil, err
	}
	stored, err := s.cellsByPosition(ctx)
	if err != nil {
		return nil, err
	}
	byLabel := make(map[string]Cell, len(stored))
	for _, c := range stored {
		byLabel[c.Label] = c
	}
	out := make([]series.Series, len(l.factors))
	for i, f := range l.factors {
		texts := make([]string, len(cells))
		for j, label := range cells {
			texts[j] = byLabel[label].level(f)
		}
		out[i] = levelSeries(l.declaredFactor(f), texts)
	}
	return out, nil
}

// levelSeries is factor f's column of the given levels, typed as f was
// declared; a level that does not parse as its type (a store edited by
// hand) leaves the column text.
func levelSeries(f Factor, texts []string) series.Series {
	ints := make([]int, len(texts))
	floats := make([]float64, len(texts))
	bools := make([]bool, len(texts))
	for j, t := range texts {
		switch v := typedLevel(f.Type, t).(type) {
		case int64:
			ints[j] = int(v)
		case float64:
			floats[j] = v
		case bool:
			bools[j] = v
		default:
			return series.New(texts, series.String, f.Name)
		}
	}
	switch f.Type {
	case LevelInt:
		return series.New(ints, series.Int, f.Name)
	case LevelFloat:
		return series.New(floats, series.Float, f.Name)
	case LevelBool:
		return series.New(bools, series.Bool, f.Name)
	}
	return series.New(texts, series.String, f.Name)
}

// frameColumn is one column of a frame as it is read: the destination
// of its value in the row being scanned, and the values kept so far.
type frameColumn struct {
	column
	// the row being scanned
	i int64
	f sql.NullFloat64
	b bool
	s string
	// the values kept, by kind
	ints   []int
	floats []float64
	bools  []bool
	texts  []string
	// seen are the texts kept so far, so that a repeated one (a cell, a
	// workload, a direction) is kept once, up to maxInterned of them.
	seen map[string]string
}

// maxInterned bounds the distinct texts a frame column shares.
const maxInterned = 4096

// dest is where Scan puts the column's value of a row.
func (c *frameColumn) dest() any {
	switch c.kind {
	case integer:
		return &c.i
	case real:
		return &c.f
	case boolean:
		return &c.b
	default:
		return &c.s
	}
}

// keep appends the scanned row's value.
func (c *frameColumn) keep() {
	switch c.kind {
	case integer:
		c.ints = append(c.ints, int(c.i))
	case real:
		c.floats = append(c.floats, nanIfNull(c.f))
	case boolean:
		c.bools = append(c.bools, c.b)
	default:
		v, ok := c.seen[c.s]
		if !ok {
			v = c.s
			if c.seen == nil {
				c.seen = map[string]string{}
			}
			if len(c.seen) < maxInterned {
				c.seen[v] = v
			}
		}
		c.texts = append(c.texts, v)
	}
}

// series is the column's values in order.
func (c *frameColumn) series(order []int) series.Series {
	switch c.kind {
	case integer:
		return series.New(permute(c.ints, order), series.Int, c.name)
	case real:
		return series.New(permute(c.floats, order), series.Float, c.name)
	case boolean:
		return series.New(permute(c.bools, order), series.Bool, c.name)
	default:
		return series.New(permute(c.texts, order), series.String, c.name)
	}
}

// levels returns each cell's levels as text.
func (s *Store) levels(ctx context.Context) (map[int64]map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT cell_id, factor, level FROM cell_levels`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	levels := map[int64]map[string]string{}
	for rows.Next() {
		var id int64
		var f, l string
		if err := rows.Scan(&id, &f, &l); err != nil {
			return nil, err
		}
		if levels[id] == nil {
			levels[id] = map[string]string{}
		}
		levels[id][f] = l
	}
	return levels, rows.Err()
}
