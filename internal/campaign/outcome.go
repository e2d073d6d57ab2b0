package campaign

import (
	"context"
	"encoding/json"
	"math"
	"strconv"

	"starbench/internal/store"
)

// Outcome is a campaign store summed up for machines (starbench run
// --summary-json): its cells, runs, failures and headline figures per cell.
type Outcome struct {
	Name      string `json:"name"`
	Store     string `json:"store"`
	Simulated bool   `json:"simulated"`
	// Complete says every planned run is stored (failed ones count).
	Complete bool `json:"complete"`
	Cells    int  `json:"cells"`
	// Runs counts the stored runs, OK and Failed by status.
	Runs     int          `json:"runs"`
	OK       int          `json:"ok"`
	Failed   int          `json:"failed"`
	Failures []Failure    `json:"failures"`
	Results  []CellResult `json:"results"`
	Units    Units        `json:"units"`
}

// Failure is one failed run.
type Failure struct {
	Cell     string `json:"cell"`
	Workload string `json:"workload"`
	Repeat   int    `json:"repeat"`
	Error    string `json:"error"`
}

// CellResult is the headline figures of one cell, workload and direction:
// means over the successful repeats.
type CellResult struct {
	Cell      string            `json:"cell"`
	Levels    map[string]string `json:"levels"`
	Workload  string            `json:"workload"`
	Direction string            `json:"direction"`
	N         int               `json:"n"`
	IOPS      Number            `json:"iops_mean"`
	IOPSCV    Number            `json:"iops_cv"`
	MBps      Number            `json:"mbps_mean"`
	LatUs     Number            `json:"lat_mean_us_mean"`
	P95Us     Number            `json:"p95_us_mean"`
	P99Us     Number            `json:"p99_us_mean"`
}

// Units say what the figures measure, in the words fio and HCIBench use.
type Units struct {
	MBps    string `json:"mbps"`
	Latency string `json:"latency"`
}

// TheUnits are the units of every figure starbench stores.
var TheUnits = Units{
	MBps:    "MB/s: 10^6 bytes per second (fio's bw is in KiB/s; 1 MiB/s = 1.048576 MB/s)",
	Latency: "microseconds of fio's clat (completion latency: submission to completion, clat_ns in fio's JSON)",
}

// Number is a float that encodes NaN (not measured) as JSON null.
type Number float64

// MarshalJSON writes n, or null when it is not a number or infinite.
func (n Number) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

var _ json.Marshaler = Number(0)

// ReadOutcome sums up the campaign store at path (read-only).
func ReadOutcome(ctx context.Context, path string) (*Outcome, error) {
	st, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	info, err := st.Info(ctx)
	if err != nil {
		return nil, err
	}
	o := &Outcome{Name: info.Name, Store: path, Simulated: info.Simulated, Complete: info.CompletedAt != "",
		Failures: []Failure{}, Results: []CellResult{}, Units: TheUnits}
	cells, err := st.Cells(ctx)
	if err != nil {
		return nil, err
	}
	o.Cells = len(cells)
	levels := map[string]map[string]string{}
	for _, c := range cells {
		levels[c.Label] = map[string]string{}
		for _, l := range c.Levels {
			levels[c.Label][l.Factor] = l.Value
		}
	}
	err = st.EachRun(ctx, func(r store.RunRecord) error {
		o.Runs++
		if r.Status == store.StatusFailed {
			o.Failed++
			o.Failures = append(o.Failures, Failure{Cell: r.Cell, Workload: r.Workload, Repeat: r.Repeat, Error: r.Error})
		} else {
			o.OK++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	stats, err := ReadStats(ctx, st, 0)
	if err != nil {
		return nil, err
	}
	for _, s := range stats {
		o.Results = append(o.Results, CellResult{Cell: s.Cell, Levels: levels[s.Cell], Workload: s.Workload, Direction: s.Direction,
			N: s.N, IOPS: Number(s.MeanIOPS), IOPSCV: Number(s.CV), MBps: Number(s.MeanMBps), LatUs: Number(s.MeanLatUs),
			P95Us: Number(s.MeanP95Us), P99Us: Number(s.MeanP99Us)})
	}
	return o, nil
}
