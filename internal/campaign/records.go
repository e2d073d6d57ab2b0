package campaign

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"starbench/internal/fio"
	"starbench/internal/store"
)

// Record is one row a script's workload or metrics function returned, as
// Go values: int64 or float64 for numbers, string, bool, time.Time, nil for
// None, and Other for a value of any other type.
type Record map[string]any

// Other stands for a value a record cannot hold, by its type's name (as the
// script's language calls it: "list", "struct").
type Other string

// typeName names v's type as the script would.
func typeName(v any) string {
	switch v := v.(type) {
	case nil:
		return "NoneType"
	case int64:
		return "int"
	case float64:
		return "float"
	case string:
		return "string"
	case bool:
		return "bool"
	case time.Time:
		return "time"
	case Other:
		return string(v)
	}
	return fmt.Sprintf("%T", v)
}

func asFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// RowMetrics are the metrics a result row may give, as stored.
var RowMetrics = []string{"iops", "mbps", "lat_mean_us", "p50_us", "p95_us", "p99_us", "p999_us", "errors"}

// ResultOf shapes the rows a workload returned into a result. Rows whose
// worker is "" or "all" (or missing) are aggregates; rows that do not say
// whether they are simulated are as simulated as the session, and a row of
// the other kind is refused. strict refuses unknown keys (a typo in a
// script's dict); frames may carry extra columns. A metric a row does not
// give is NaN (stored as missing), never a measured 0.
func ResultOf(records []Record, simulated, strict bool, notes []string) (*fio.Result, error) {
	rows := make([]fio.Row, len(records))
	var keys []string // the keys of the record, in order: the same for every row of a frame
	for i, fields := range records {
		if !hasKeys(fields, keys) {
			keys = sortedKeys(fields)
		}
		row, err := rowOf(fields, keys, simulated, strict)
		if err != nil {
			return nil, fmt.Errorf("workload result row %d: %w", i+1, err)
		}
		rows[i] = row
	}
	return ResultOfRows(rows, simulated, notes)
}

// ResultOfRows is ResultOf of rows already read: those whose worker is ""
// or "all" are the aggregates. The caller hands rows over: the result's
// per-worker rows are rows' own memory, moved to its front in their order
// (a run at 96 workers x 8 disks would copy 1,536 rows of 136 bytes again).
func ResultOfRows(rows []fio.Row, simulated bool, notes []string) (*fio.Result, error) {
	res := &fio.Result{Simulated: simulated, Notes: notes}
	n := 0
	for i := range rows {
		row := rows[i]
		if row.Simulated != simulated {
			return nil, fmt.Errorf("workload result row %d is %s but this session's results are %s; simulated and measured results never mix (--target decides: embedded simulates, local and vcenter measure)",
				i+1, kind(row.Simulated), kind(simulated))
		}
		if err := checkFinite(row); err != nil {
			return nil, fmt.Errorf("workload result row %d: %w", i+1, err)
		}
		if row.Job == "all" {
			row.Job = ""
		}
		if row.Worker == "" || row.Worker == "all" {
			row.Worker = ""
			res.Aggregate = append(res.Aggregate, row)
		} else {
			rows[n] = row // n <= i: row i has been read
			n++
		}
	}
	if n > 0 {
		res.Rows = rows[:n:n]
	}
	if len(res.Aggregate) == 0 {
		return nil, fmt.Errorf("workload results have no aggregate row (worker \"\" or \"all\"); a campaign stores one per direction")
	}
	AddAllJobs(res)
	return res, nil
}

// AddAllJobs gives a result that has only each job's aggregate rows (an
// events measurement's) the aggregate over all jobs (Job ""), which
// summaries and reports read: one job's own rows (its percentiles kept),
// or the jobs' summed.
func AddAllJobs(res *fio.Result) {
	agg := res.Aggregate
	if len(agg) == 0 || slices.ContainsFunc(agg, func(r fio.Row) bool { return r.Job == "" }) {
		return
	}
	all := fio.CombineJobs(agg)
	if !slices.ContainsFunc(agg, func(r fio.Row) bool { return r.Job != agg[0].Job }) {
		all = slices.Clone(agg)
		for i := range all {
			all[i].Job = ""
		}
	}
	res.Aggregate = append(slices.Clip(agg), all...) // a new array: agg may be another result's
}

// checkFinite refuses a row with a metric no measurement can give: an
// infinite value or a negative one (NaN is a metric not measured).
func checkFinite(row fio.Row) error {
	for _, k := range RowMetrics {
		var v float64
		if k == "errors" {
			v = float64(row.Errors)
		} else {
			v = *rowNumber(&row, k)
		}
		if math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("%s is %g: a measurement gives a finite number >= 0 (find what produced it; a metric not measured is left out)", k, v)
		}
	}
	return nil
}

func kind(simulated bool) string {
	if simulated {
		return "simulated"
	}
	return "measured"
}

// rowOf reads a row from fields, whose keys are keys (in order, so that
// the first bad one is reported).
func rowOf(fields Record, keys []string, simulated, strict bool) (fio.Row, error) {
	nan := math.NaN()
	row := fio.Row{Direction: "all", Simulated: simulated, IOPS: nan, MBps: nan, LatMeanUs: nan,
		P50Us: nan, P95Us: nan, P99Us: nan, P999Us: nan}
	for _, k := range keys {
		v := fields[k]
		num, str := rowNumber(&row, k), rowText(&row, k)
		switch {
		case num != nil || k == "errors":
			f, ok := asFloat(v)
			if !ok {
				return row, fmt.Errorf("%s is a %s; want a number", k, typeName(v))
			}
			if math.IsNaN(f) && strict {
				return row, fmt.Errorf("%s is NaN; give a number, or leave %s out when it was not measured", k, k)
			}
			if k == "errors" {
				row.Errors = int(f)
			} else {
				*num = f
			}
		case str != nil:
			s, ok := v.(string)
			if !ok {
				return row, fmt.Errorf("%s is a %s; want a string", k, typeName(v))
			}
			*str = s
		case k == "simulated":
			b, ok := v.(bool)
			if !ok {
				return row, fmt.Errorf("simulated is a %s; want True or False", typeName(v))
			}
			row.Simulated = b
		case strict:
			return row, fmt.Errorf("unknown metric %q; want some of %s, job, worker, disk, direction, simulated", k, strings.Join(RowMetrics, ", "))
		}
	}
	return row, nil
}

// rowNumber is the field of row that the metric named k sets, or nil.
func rowNumber(row *fio.Row, k string) *float64 {
	switch k {
	case "iops":
		return &row.IOPS
	case "mbps":
		return &row.MBps
	case "lat_mean_us":
		return &row.LatMeanUs
	case "p50_us":
		return &row.P50Us
	case "p95_us":
		return &row.P95Us
	case "p99_us":
		return &row.P99Us
	case "p999_us":
		return &row.P999Us
	}
	return nil
}

// rowText is the field of row that the label named k sets, or nil.
func rowText(row *fio.Row, k string) *string {
	switch k {
	case "job":
		return &row.Job
	case "worker":
		return &row.Worker
	case "disk":
		return &row.Disk
	case "direction":
		return &row.Direction
	}
	return nil
}

// hasKeys says whether r's keys are exactly keys.
func hasKeys(r Record, keys []string) bool {
	if len(r) != len(keys) || keys == nil {
		return false
	}
	for _, k := range keys {
		if _, ok := r[k]; !ok {
			return false
		}
	}
	return true
}

// HostMetricsOf reads host metrics: rows long (host, metric, value) or wide
// (host and one numeric column per metric, as vsphere.host_metrics gives),
// with an optional time in at or time (start when missing).
func HostMetricsOf(records []Record, start time.Time) ([]store.HostMetric, error) {
	var out []store.HostMetric
	for i, r := range records {
		host, ok := r["host"].(string)
		if !ok {
			return nil, fmt.Errorf("metrics row %d has no host (a string); got %v", i+1, sortedKeys(r))
		}
		at, err := sampleTime(r, start)
		if err != nil {
			return nil, fmt.Errorf("metrics row %d: %w", i+1, err)
		}
		if _, long := r["metric"]; long {
			metric, ok1 := r["metric"].(string)
			value, ok2 := asFloat(r["value"])
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("metrics row %d needs metric (a string) and value (a number); got %v", i+1, sortedKeys(r))
			}
			out = append(out, store.HostMetric{Host: host, Metric: metric, At: at, Value: value})
			continue
		}
		for _, k := range sortedKeys(r) {
			if k == "host" || k == "at" || k == "time" || k == "simulated" {
				continue
			}
			if value, ok := asFloat(r[k]); ok {
				out = append(out, store.HostMetric{Host: host, Metric: k, At: at, Value: value})
			}
		}
	}
	return out, nil
}

// sampleTime reads a metric row's time from at or time: a time or RFC 3339
// text; start when there is none.
func sampleTime(r Record, start time.Time) (time.Time, error) {
	v, ok := r["at"]
	if !ok {
		v, ok = r["time"]
	}
	if !ok {
		return start, nil
	}
	switch t := v.(type) {
	case time.Time:
		return t, nil
	case string:
		parsed, err := time.Parse(time.RFC3339Nano, t)
		if err != nil {
			return time.Time{}, fmt.Errorf("time %q is not an RFC 3339 time", t)
		}
		return parsed, nil
	}
	return time.Time{}, fmt.Errorf("time is a %s; want a time", typeName(v))
}

func sortedKeys(r Record) []string {
	keys := make([]string, 0, len(r))
	for k := range r {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
