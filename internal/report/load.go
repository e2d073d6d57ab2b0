// Package report turns one campaign store into a self-contained HTML report
// (figures embedded as data URIs) and a Markdown report: summary, the plan
// that ran, results, figures, repeat spread, bottlenecks, warnings and
// provenance, with a banner when the results are simulated.
package report

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
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
	// Load are the factors declared as loads (iodepth, VMs): the report
	// draws curves over them instead of ranking their levels.
	Load      []string
	Cells     []Cell
	Workloads []string
	Stats     []Stat
	// HCIBench sums up each cell and workload as HCIBench's results table does.
	HCIBench []HCIRow
	// HasCPU and HasVSANCPU say some run measured the hosts' and vSAN's CPU.
	HasCPU, HasVSANCPU bool
	// RunSummary is what the report shows of the runs one by one, gathered
	// as they are read: the store's runs are never all held at once.
	RunSummary
	Sessions []Session
	// CVThreshold is the repeat spread above which a result is flagged.
	CVThreshold float64
}

// Cell is one combination of factor levels; cells come in the declared
// order of their levels.
type Cell struct {
	Label  string
	Levels map[string]string
}

// Stat is the repeats of one workload in one cell and direction, summarised.
type Stat struct {
	campaign.Stat
	Levels map[string]string
}

// HCIRow is one cell and workload of the HCIBench summary, with its levels.
type HCIRow struct {
	campaign.HCIRow
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
	ModelVersion            string
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
	c, err := load(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return c, nil
}

func load(ctx context.Context, st *store.Store) (*Campaign, error) {
	info, err := st.Info(ctx)
	if err != nil {
		return nil, err
	}
	c := &Campaign{Name: info.Name, Simulated: info.Simulated, CreatedAt: info.CreatedAt, CompletedAt: info.CompletedAt,
		CVThreshold: DefaultCVThreshold}
	cells, err := st.Cells(ctx)
	if err != nil {
		return nil, err
	}
	c.Factors = store.Factors(cells)
	declared, err := st.DeclaredFactors(ctx)
	if err != nil {
		return nil, err
	}
	for _, f := range declared {
		if f.Load && slices.Contains(c.Factors, f.Name) {
			c.Load = append(c.Load, f.Name)
		}
	}
	levels := map[string]map[string]string{}
	for _, cell := range cells {
		m := map[string]string{}
		for _, l := range cell.Levels {
			m[l.Factor] = l.Value
		}
		c.Cells = append(c.Cells, Cell{Label: cell.Label, Levels: m})
		levels[cell.Label] = m
	}
	firstRun := map[string]int64{} // each workload's first run stored
	err = st.EachRun(ctx, func(r store.RunRecord) error {
		c.add(Run{Cell: r.Cell, Workload: r.Workload, Repeat: r.Repeat, Status: r.Status,
			Error: r.Error, Seconds: r.Seconds, Notes: r.Notes}, levels[r.Cell])
		if first, seen := firstRun[r.Workload]; !seen {
			c.Workloads = append(c.Workloads, r.Workload)
			firstRun[r.Workload] = r.ID
		} else {
			firstRun[r.Workload] = min(first, r.ID)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Workloads in the order the campaign ran them, which is the order its
	// script declares them (the store lists them by name: 32k before 4k).
	slices.SortStableFunc(c.Workloads, func(a, b string) int { return cmp.Compare(firstRun[a], firstRun[b]) })
	c.finish()
	sessions, err := st.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range sessions {
		sess := Session{ID: s.ID, StartedAt: s.StartedAt, EndedAt: s.EndedAt, Status: s.Status, Script: s.Script,
			ToolVersion: s.ToolVersion, FioVersion: s.FioVersion, VCenterVersion: s.VCenterVersion,
			ESXi: strings.Join(s.ESXiVersions, ","), Testbed: s.Testbed, Target: s.Target, ModelVersion: s.ModelVersion, Simulated: s.Simulated,
			Plan: s.Plan, Files: s.Files}
		for _, name := range s.SortedSets() {
			sess.Sets = append(sess.Sets, Set{Name: name, Value: s.Sets[name]})
		}
		c.Sessions = append(c.Sessions, sess)
	}
	// The summaries of the repeats, one cell and workload at a time.
	err = st.EachBlock(ctx, true, func(b store.Block) error {
		for _, s := range campaign.Stats(b.Aggregates, c.CVThreshold) {
			c.Stats = append(c.Stats, Stat{Stat: s, Levels: levels[s.Cell]})
		}
		for _, r := range campaign.HCIBench(b.Aggregates, b.HostMeans) {
			c.HCIBench = append(c.HCIBench, HCIRow{HCIRow: r, Levels: levels[r.Cell]})
			c.HasCPU = c.HasCPU || !math.IsNaN(r.CPUPercent)
			c.HasVSANCPU = c.HasVSANCPU || !math.IsNaN(r.VSANCPUPercent)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}
