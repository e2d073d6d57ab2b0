package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// Info is what a store says about its campaign as a whole.
type Info struct {
	Name      string
	Simulated bool
	CreatedAt string
	// CompletedAt is "" while planned runs are missing.
	CompletedAt string
}

// Info reads the campaign row.
func (s *Store) Info(ctx context.Context) (Info, error) {
	var in Info
	var completed sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT name, simulated, created_at, completed_at FROM campaign WHERE id = 1`).
		Scan(&in.Name, &in.Simulated, &in.CreatedAt, &completed)
	in.CompletedAt = completed.String
	return in, err
}

// Cells returns every cell in the declared order of its levels (factor by
// factor; Position is the execution order), each with its levels in the
// order the campaign declared its factors.
func (s *Store) Cells(ctx context.Context) ([]Cell, error) {
	l, err := readLayout(ctx, s.db)
	if err != nil {
		return nil, err
	}
	cells, err := s.cellsByPosition(ctx)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(cells, func(i, j int) bool { return compareCells(l, cells[i], cells[j]) < 0 })
	return cells, nil
}

// compareCells orders two cells by their levels' declared order.
func compareCells(l layout, a, b Cell) int {
	for _, f := range l.factors {
		if c := levelRank(l.declaredFactor(f), a.level(f), b.level(f)); c != 0 {
			return c
		}
	}
	return 0
}

// level is c's level of factor f ("" when c has none).
func (c Cell) level(f string) string {
	for _, l := range c.Levels {
		if l.Factor == f {
			return l.Value
		}
	}
	return ""
}

// cellOrder is the ids of the cells in the order Cells returns them, as a
// JSON array (for SQLite's json_each: a cell's rank is its index).
func (s *Store) cellOrder(ctx context.Context) (string, error) {
	cells, err := s.Cells(ctx)
	if err != nil {
		return "", err
	}
	ids := make(map[string]int64, len(cells))
	err = s.each(ctx, `SELECT id, label FROM cells`, func(rows *sql.Rows) error {
		var id int64
		var label string
		if err := rows.Scan(&id, &label); err != nil {
			return err
		}
		ids[label] = id
		return nil
	})
	if err != nil {
		return "", err
	}
	order := make([]int64, len(cells))
	for i, c := range cells {
		order[i] = ids[c.Label]
	}
	b, err := json.Marshal(order)
	return string(b), err
}

func (s *Store) cellsByPosition(ctx context.Context) ([]Cell, error) {
	var cells []Cell
	err := s.each(ctx, `SELECT c.label, c.position, l.factor, l.level FROM cells c
		LEFT JOIN cell_levels l ON l.cell_id = c.id ORDER BY c.position, c.id, l.rowid`, func(rows *sql.Rows) error {
		var label string
		var position int
		var factor, level sql.NullString
		if err := rows.Scan(&label, &position, &factor, &level); err != nil {
			return err
		}
		if n := len(cells); n == 0 || cells[n-1].Label != label {
			cells = append(cells, Cell{Label: label, Position: position})
		}
		if factor.Valid {
			c := &cells[len(cells)-1]
			c.Levels = append(c.Levels, Level{Factor: factor.String, Value: level.String})
		}
		return nil
	})
	return cells, err
}

// Factors returns the factor names of the store's cells in declaration order.
func Factors(cells []Cell) []string {
	var names []string
	seen := map[string]bool{}
	for _, c := range cells {
		for _, l := range c.Levels {
			if !seen[l.Factor] {
				seen[l.Factor] = true
				names = append(names, l.Factor)
			}
		}
	}
	return names
}

// RunRecord is one stored run as a reader sees it.
type RunRecord struct {
	RunKey
	ID                 int64
	Status, Error      string
	StartedAt, EndedAt string
	Seconds            float64
	Simulated          bool
	// Notes are what the data plane said about the run, one per line.
	Notes []string
}

// EachRun calls f with every stored run, by cell in execution order, then
// by workload name and repeat (ID says which ran first), reading one at
// a time: what a summary of every run needs, without holding them all. The
// texts that repeat from run to run (cells, workloads, statuses, errors,
// notes) are kept once, shared by the runs f keeps.
func (s *Store) EachRun(ctx context.Context, f func(RunRecord) error) error {
	var t texts
	var cell, workload, status, errText, notes sql.RawBytes
	return s.each(ctx, `SELECT r.id, c.label, r.workload, r.repeat, r.status, r.error, r.started_at, r.ended_at,
		(julianday(r.ended_at) - julianday(r.started_at)) * 86400.0, r.simulated, r.notes
		FROM runs r JOIN cells c ON c.id = r.cell_id ORDER BY c.position, r.workload, r.repeat`, func(rows *sql.Rows) error {
		var r RunRecord
		var seconds sql.NullFloat64
		if err := rows.Scan(&r.ID, &cell, &workload, &r.Repeat, &status, &errText, &r.StartedAt, &r.EndedAt,
			&seconds, &r.Simulated, &notes); err != nil {
			return err
		}
		r.Cell, r.Workload, r.Status, r.Error = t.of(cell), t.of(workload), t.of(status), t.of(errText)
		r.Seconds = seconds.Float64
		if len(notes) > 0 {
			for line := range bytes.SplitSeq(notes, []byte("\n")) {
				r.Notes = append(r.Notes, t.of(line))
			}
		}
		return f(r)
	})
}

// Host metrics of CPU: a host's (as vsphere.host_metrics names it) and
// vSAN's own part of it, as a campaign's metrics function names it or as
// the vSAN performance service does (vsphere.vsan_metrics).
const (
	HostCPUMetric     = "cpu_percent"
	VSANCPUMetric     = "vsan_cpu_percent"
	VSANPerfCPUMetric = "vsan.cpu.usedPct"
)

// The vSAN performance service's CPU of the DOM's worlds and of the LSOM's,
// one metric per kind of world (vsphere.vsan_metrics: runPct summed over
// the worlds of that kind on a host), as SQL LIKE patterns.
const (
	DOMWorldsMetrics  = "vsan.domworlds.%.runPct"
	LSOMWorldsMetrics = "vsan.lsomworlds.%.runPct"
)

// The seconds a sample of a CPU metric covers, up to its time: vCenter's
// real-time host samples and the vSAN performance service's.
const (
	hostSampleSeconds     = 20
	vsanPerfSampleSeconds = 300
)

// RunFigure is what a run did, reads and writes together.
type RunFigure struct {
	IOPS      float64
	LatMeanUs float64 // the mean latency of its I/Os, reads and writes weighted by their IOPS
	// CPUPercent is the mean of its hosts' CPU (HostCPUMetric) over the
	// run, VSANCPUPercent of vSAN's part of it (VSANCPUMetric or
	// VSANPerfCPUMetric); 0 when the campaign did not record it.
	CPUPercent, VSANCPUPercent float64
	// DOMBusyCores and LSOMBusyCores are the cores' worth of time the
	// DOM's worlds and the LSOM's ran on a host (DOMWorldsMetrics and
	// LSOMWorldsMetrics, every kind of world together, over 100), the mean
	// over the hosts and the run; 0 when the campaign did not record them.
	DOMBusyCores, LSOMBusyCores float64
	// Seconds is how long the run lasted, from its start to its end.
	Seconds float64
}

// RunFigures is every run's aggregate over all its jobs, reads and writes
// together, for the runs that completed (status ok). Its CPU and its vSAN
// worlds' are the mean of the samples that lie wholly within the run (a
// sample covers the seconds up to its time: the first of a run also covers
// what came before it, the idle between runs or the last run's tail), or
// of all its samples when none does (a run shorter than a sample).
func (s *Store) RunFigures(ctx context.Context) (map[RunKey]RunFigure, error) {
	out := map[RunKey]RunFigure{}
	// mean is agg of a run's samples of the metrics cond names (twice
	// over: its arguments come twice), those within the run or else all;
	// seconds is what a sample covers.
	mean := func(agg, cond, seconds string) string {
		within := "julianday(m.at) >= julianday(r.started_at) + " + seconds + " / 86400.0 AND julianday(m.at) <= julianday(r.ended_at)"
		return "COALESCE((SELECT " + agg + " FROM host_metrics m WHERE m.run_id = r.id AND " + cond + " AND " + within + "), " +
			"(SELECT " + agg + " FROM host_metrics m WHERE m.run_id = r.id AND " + cond + "))"
	}
	// A host's worlds at one time are summed over their kinds: the mean
	// over hosts and times is the sum over the number of those.
	const worlds = "SUM(m.value) / 100.0 / COUNT(DISTINCT m.host || ' ' || m.at)"
	vsanSample := strconv.Itoa(vsanPerfSampleSeconds)
	err := s.each(ctx, `SELECT c.label, r.workload, r.repeat, SUM(w.iops), SUM(w.iops * w.lat_mean_us) / SUM(w.iops),
		`+mean("AVG(m.value)", "m.metric = ?", strconv.Itoa(hostSampleSeconds))+`,
		`+mean("AVG(m.value)", "m.metric IN (?, ?)", "(CASE m.metric WHEN '"+VSANPerfCPUMetric+"' THEN "+vsanSample+" ELSE 0 END)")+`,
		`+mean(worlds, "m.metric LIKE ?", vsanSample)+`,
		`+mean(worlds, "m.metric LIKE ?", vsanSample)+`,
		(julianday(r.ended_at) - julianday(r.started_at)) * 86400 FROM rows w
		JOIN runs r ON r.id = w.run_id JOIN cells c ON c.id = r.cell_id
		WHERE w.aggregate = 1 AND w.job = '' AND r.status = 'ok' AND w.iops IS NOT NULL AND w.lat_mean_us IS NOT NULL
		GROUP BY r.id`, func(rows *sql.Rows) error {
		var k RunKey
		var f RunFigure
		var lat, cpu, vsan, dom, lsom, secs sql.NullFloat64
		if err := rows.Scan(&k.Cell, &k.Workload, &k.Repeat, &f.IOPS, &lat, &cpu, &vsan, &dom, &lsom, &secs); err != nil {
			return err
		}
		f.LatMeanUs, f.CPUPercent, f.VSANCPUPercent, f.DOMBusyCores, f.LSOMBusyCores, f.Seconds = lat.Float64, cpu.Float64, vsan.Float64, dom.Float64, lsom.Float64, secs.Float64
		out[k] = f
		return nil
	}, HostCPUMetric, HostCPUMetric, VSANCPUMetric, VSANPerfCPUMetric, VSANCPUMetric, VSANPerfCPUMetric,
		DOMWorldsMetrics, DOMWorldsMetrics, LSOMWorldsMetrics, LSOMWorldsMetrics)
	return out, err
}

// MeasuredHosts are the hosts whose CPU (HostCPUMetric) the store's runs
// read, sorted.
func (s *Store) MeasuredHosts(ctx context.Context) ([]string, error) {
	var hosts []string
	err := s.each(ctx, `SELECT DISTINCT host FROM host_metrics WHERE metric = ? ORDER BY host`, func(rows *sql.Rows) error {
		var h string
		if err := rows.Scan(&h); err != nil {
			return err
		}
		hosts = append(hosts, h)
		return nil
	}, HostCPUMetric)
	return hosts, err
}

// texts keeps each text read once, however many rows repeat it.
type texts map[string]string

// of is b as a text, the one kept.
func (t *texts) of(b []byte) string {
	if *t == nil {
		*t = texts{}
	}
	s, ok := (*t)[string(b)]
	if !ok {
		s = string(b)
		(*t)[s] = s
	}
	return s
}

// SessionRecord is one process that wrote to the store, with its provenance.
type SessionRecord struct {
	Provenance
	ID                 int64
	StartedAt, EndedAt string // EndedAt is "" while running or after a kill
	Status             string
	PID                int
	Simulated          bool
}

// Sessions returns every session in the order they began, with their input
// files and --set values.
func (s *Store) Sessions(ctx context.Context) ([]SessionRecord, error) {
	var out []SessionRecord
	l, err := readLayout(ctx, s.db)
	if err != nil {
		return nil, err
	}
	model := "''"
	if l.modelVersion {
		model = "model_version"
	}
	err = s.each(ctx, `SELECT id, started_at, COALESCE(ended_at, ''), status, pid, script, tool_version,
		fio_version, vcenter_version, esxi_versions, testbed, target, simulated, plan, `+model+` FROM sessions ORDER BY id`, func(rows *sql.Rows) error {
		var r SessionRecord
		var esxi string
		if err := rows.Scan(&r.ID, &r.StartedAt, &r.EndedAt, &r.Status, &r.PID, &r.Script, &r.ToolVersion, &r.FioVersion,
			&r.VCenterVersion, &esxi, &r.Testbed, &r.Target, &r.Simulated, &r.Plan, &r.ModelVersion); err != nil {
			return err
		}
		if esxi != "" {
			r.ESXiVersions = strings.Split(esxi, ",")
		}
		r.Sets = map[string]string{}
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	byID := map[int64]*SessionRecord{}
	for i := range out {
		byID[out[i].ID] = &out[i]
	}
	err = s.each(ctx, `SELECT session_id, path, sha256, bytes FROM session_files ORDER BY session_id, path`, func(rows *sql.Rows) error {
		var id int64
		var f File
		if err := rows.Scan(&id, &f.Path, &f.SHA256, &f.Bytes); err != nil {
			return err
		}
		if r := byID[id]; r != nil {
			r.Files = append(r.Files, f)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = s.each(ctx, `SELECT session_id, name, value FROM session_sets`, func(rows *sql.Rows) error {
		var id int64
		var name, value string
		if err := rows.Scan(&id, &name, &value); err != nil {
			return err
		}
		if r := byID[id]; r != nil {
			r.Sets[name] = value
		}
		return nil
	})
	return out, err
}

// SortedSets returns p's --set names in order.
func (p Provenance) SortedSets() []string {
	names := make([]string, 0, len(p.Sets))
	for n := range p.Sets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// each runs query and calls f for every row.
func (s *Store) each(ctx context.Context, query string, f func(*sql.Rows) error, args ...any) error {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := f(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
