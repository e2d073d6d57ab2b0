// Package report turns one campaign store into a self-contained HTML report
// (figures embedded as data URIs) and a Markdown report: summary, the plan
// that ran, results, figures, repeat spread, bottlenecks, warnings and
// provenance, with a banner when the results are simulated.
package report

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"starbench/internal/campaign"
	"starbench/internal/store"
)

// Campaign is everything a report shows of one campaign store.
type Campaign struct {
	Name        string
	Simulated   bool
	CreatedAt   string
	CompletedAt string // "" while runs are missing
	Factors     []string
	Cells       []Cell
	Workloads   []string
	Stats       []Stat
	Runs        []Run
	Sessions    []Session
	// CVThreshold is the repeat spread above which a result is flagged.
	CVThreshold float64
}

// Cell is one combination of factor levels, in execution order.
type Cell struct {
	Label  string
	Levels map[string]string
}

// Stat is the repeats of one workload in one cell and direction, summarised.
type Stat struct {
	campaign.Stat
	Levels map[string]string
}

// Run is one stored run with its outcome and the data plane's notes.
type Run struct {
	Cell, Workload string
	Repeat         int
	Status, Error  string
	Seconds        float64
	Notes          []string
}

// Key names a run as the store does: "cell / workload #n".
func (r Run) Key() string {
	return store.RunKey{Cell: r.Cell, Workload: r.Workload, Repeat: r.Repeat}.String()
}

// Session is one process that wrote to the store, with its provenance.
type Session struct {
	ID                      int64
	StartedAt, EndedAt      string
	Status                  string
	Script                  string
	ToolVersion, FioVersion string
	VCenterVersion, ESXi    string
	Testbed, Target         string
	Simulated               bool
	Plan                    string
	Files                   []store.File
	Sets                    []Set
}

// Set is one --set value of a session.
type Set struct{ Name, Value string }

// DefaultCVThreshold flags repeats that vary by more than 5 %.
const DefaultCVThreshold = 0.05

// Load reads the campaign store at path (read-only; a campaign may still be
// writing to it).
func Load(ctx context.Context, path string) (*Campaign, error) {
	st, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	c := &Campaign{Name: st.Name, Simulated: st.Simulated, CVThreshold: DefaultCVThreshold}
	aggs, err := st.Aggregates(ctx)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	for _, step := range []func(context.Context, *sql.DB) error{c.loadCampaign, c.loadCells, c.loadRuns, c.loadSessions} {
		if err := step(ctx, db); err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
	}
	levels := map[string]map[string]string{}
	for _, cell := range c.Cells {
		levels[cell.Label] = cell.Levels
	}
	for _, s := range campaign.Stats(aggs, c.CVThreshold) {
		c.Stats = append(c.Stats, Stat{Stat: s, Levels: levels[s.Cell]})
	}
	return c, nil
}

func (c *Campaign) loadCampaign(ctx context.Context, db *sql.DB) error {
	var completed sql.NullString
	if err := db.QueryRowContext(ctx, `SELECT created_at, completed_at FROM campaign WHERE id = 1`).Scan(&c.CreatedAt, &completed); err != nil {
		return err
	}
	c.CompletedAt = completed.String
	return nil
}

func (c *Campaign) loadCells(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, `SELECT c.label, l.factor, l.level FROM cells c
		JOIN cell_levels l ON l.cell_id = c.id ORDER BY c.position, l.rowid`)
	if err != nil {
		return err
	}
	defer rows.Close()
	seen := map[string]bool{}
	for rows.Next() {
		var label, factor, level string
		if err := rows.Scan(&label, &factor, &level); err != nil {
			return err
		}
		if n := len(c.Cells); n == 0 || c.Cells[n-1].Label != label {
			c.Cells = append(c.Cells, Cell{Label: label, Levels: map[string]string{}})
		}
		c.Cells[len(c.Cells)-1].Levels[factor] = level
		if !seen[factor] {
			seen[factor] = true
			c.Factors = append(c.Factors, factor)
		}
	}
	return rows.Err()
}

func (c *Campaign) loadRuns(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, `SELECT c.label, r.workload, r.repeat, r.status, r.error,
		(julianday(r.ended_at) - julianday(r.started_at)) * 86400.0, r.notes
		FROM runs r JOIN cells c ON c.id = r.cell_id ORDER BY c.position, r.workload, r.repeat`)
	if err != nil {
		return err
	}
	defer rows.Close()
	seen := map[string]bool{}
	for rows.Next() {
		var r Run
		var notes string
		var seconds sql.NullFloat64
		if err := rows.Scan(&r.Cell, &r.Workload, &r.Repeat, &r.Status, &r.Error, &seconds, &notes); err != nil {
			return err
		}
		r.Seconds = seconds.Float64
		if notes != "" {
			r.Notes = strings.Split(notes, "\n")
		}
		c.Runs = append(c.Runs, r)
		if !seen[r.Workload] {
			seen[r.Workload] = true
			c.Workloads = append(c.Workloads, r.Workload)
		}
	}
	return rows.Err()
}

func (c *Campaign) loadSessions(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, `SELECT id, started_at, COALESCE(ended_at, ''), status, script, tool_version,
		fio_version, vcenter_version, esxi_versions, testbed, target, simulated, plan FROM sessions ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	byID := map[int64]*Session{}
	for rows.Next() {
		var s Session
		if err := rows.Scan(&s.ID, &s.StartedAt, &s.EndedAt, &s.Status, &s.Script, &s.ToolVersion, &s.FioVersion,
			&s.VCenterVersion, &s.ESXi, &s.Testbed, &s.Target, &s.Simulated, &s.Plan); err != nil {
			return err
		}
		c.Sessions = append(c.Sessions, s)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for i := range c.Sessions {
		byID[c.Sessions[i].ID] = &c.Sessions[i]
	}
	files, err := db.QueryContext(ctx, `SELECT session_id, path, sha256, bytes FROM session_files ORDER BY session_id, path`)
	if err != nil {
		return err
	}
	defer files.Close()
	for files.Next() {
		var id int64
		var f store.File
		if err := files.Scan(&id, &f.Path, &f.SHA256, &f.Bytes); err != nil {
			return err
		}
		if s := byID[id]; s != nil {
			s.Files = append(s.Files, f)
		}
	}
	if err := files.Err(); err != nil {
		return err
	}
	sets, err := db.QueryContext(ctx, `SELECT session_id, name, value FROM session_sets ORDER BY session_id, name`)
	if err != nil {
		return err
	}
	defer sets.Close()
	for sets.Next() {
		var id int64
		var s Set
		if err := sets.Scan(&id, &s.Name, &s.Value); err != nil {
			return err
		}
		if sess := byID[id]; sess != nil {
			sess.Sets = append(sess.Sets, s)
		}
	}
	return sets.Err()
}
