package campaign

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"starbench/internal/fio"
)

func TestResultOfShapesRows(t *testing.T) {
	res, err := ResultOf([]Record{
		{"iops": int64(1000), "direction": "read"},
		{"worker": "all", "iops": 500.0, "direction": "write", "errors": int64(2)},
		{"worker": "w1", "iops": 250.0, "direction": "write"},
	}, true, true, []string{"note"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Aggregate) != 2 || len(res.Rows) != 1 || res.Aggregate[1].Worker != "" || res.Aggregate[1].Errors != 2 {
		t.Fatalf("result %+v", res)
	}
	if a := res.Aggregate[0]; a.IOPS != 1000 || !math.IsNaN(a.MBps) || !math.IsNaN(a.P99Us) || !a.Simulated {
		t.Fatalf("aggregate %+v: want iops 1000, metrics not given NaN, simulated", a)
	}
	for _, tc := range []struct {
		rec    Record
		strict bool
		want   string
	}{
		{Record{"iosp": 1.0}, true, `unknown metric "iosp"`},
		{Record{"iops": "fast"}, false, "iops is a string; want a number"},
		{Record{"iops": 1.0, "simulated": false}, false, "measured but this session's results are simulated"},
		{Record{"worker": "w1", "iops": 1.0}, false, "no aggregate row"},
		{Record{"direction": Other("list")}, false, "direction is a list; want a string"},
		// Values no measurement gives fail the run, naming the metric.
		{Record{"iops": math.Inf(1)}, false, "iops is +Inf: a measurement gives a finite number >= 0"},
		{Record{"iops": 5.0, "p99_us": -1.0}, false, "p99_us is -1: a measurement gives a finite number >= 0"},
		{Record{"iops": 5.0, "errors": int64(-2)}, false, "errors is -2"},
		{Record{"iops": math.NaN()}, true, "iops is NaN; give a number, or leave iops out"},
	} {
		if _, err := ResultOf([]Record{tc.rec}, true, tc.strict, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.rec, err, tc.want)
		}
	}
	// A frame's NaN is a metric not measured (a frame has no missing keys).
	if res, err := ResultOf([]Record{{"iops": 1.0, "p99_us": math.NaN()}}, true, false, nil); err != nil || !math.IsNaN(res.Aggregate[0].P99Us) {
		t.Errorf("a frame's NaN: %v, %v; want it kept as not measured", res, err)
	}
	// A frame's extra columns are kept out of the row, not refused.
	if _, err := ResultOf([]Record{{"iops": 1.0, "bs": "4k"}}, true, false, nil); err != nil {
		t.Errorf("extra column refused when not strict: %v", err)
	}
}

func TestHostMetricsOfLongAndWide(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := start.Add(time.Minute)
	got, err := HostMetricsOf([]Record{
		{"host": "esx1", "metric": "cpu", "value": int64(40)},
		{"host": "esx2", "time": at, "cpu_percent": 55.5, "memory_percent": 20.0, "simulated": true},
		{"host": "esx3", "at": "2026-01-02T03:06:05Z", "metric": "cpu", "value": 1.0},
	}, start)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got[0].At != start || got[0].Value != 40 || got[1].Metric != "cpu_percent" || got[1].At != at ||
		got[2].Metric != "memory_percent" || got[3].At != start.Add(2*time.Minute) {
		t.Fatalf("metrics %+v", got)
	}
	for _, tc := range []struct {
		rec  Record
		want string
	}{
		{Record{"metric": "cpu", "value": 1.0}, "has no host"},
		{Record{"host": "h", "metric": "cpu"}, "needs metric (a string) and value (a number)"},
		{Record{"host": "h", "at": "yesterday", "cpu": 1.0}, `time "yesterday" is not an RFC 3339 time`},
		{Record{"host": "h", "time": nil, "cpu": 1.0}, "time is a NoneType; want a time"},
	} {
		if _, err := HostMetricsOf([]Record{tc.rec}, start); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.rec, err, tc.want)
		}
	}
}

func TestRestoreTokensRoundTrip(t *testing.T) {
	f := Factor{Name: "uplink", Levels: []string{"10g", "25g"}}
	if tok, err := ParseToken(f, LevelToken(1)); err != nil || tok.Level != 1 || tok.IsJSON {
		t.Errorf("level token: %+v %v", tok, err)
	}
	if tok, err := ParseToken(f, JSONToken(`{"a": 1}`)); err != nil || !tok.IsJSON || tok.JSON != `{"a": 1}` {
		t.Errorf("json token: %+v %v", tok, err)
	}
	for _, bad := range []string{LevelToken(2), "level:x", MemoToken("uplink"), "garbage"} {
		if _, err := ParseToken(f, bad); !errors.Is(err, ErrUnrestorable) {
			t.Errorf("%s: err = %v, want ErrUnrestorable", bad, err)
		}
	}
}

// TestResultErrorsNameTheRow: a bad row is named by its place, counting
// from 1, whichever check refuses it.
func TestResultErrorsNameTheRow(t *testing.T) {
	ok := Record{"iops": 1.0}
	for _, tc := range []struct {
		recs []Record
		want string
	}{
		{[]Record{ok, {"iosp": 1.0}}, "workload result row 2: unknown metric"},
		{[]Record{ok, ok, {"iops": math.Inf(1)}}, "workload result row 3: "},
		{[]Record{ok, {"iops": 1.0, "simulated": false}}, "workload result row 2 is measured"},
	} {
		if _, err := ResultOf(tc.recs, true, true, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one saying %q", tc.recs, err, tc.want)
		}
	}
}

// TestMetricsErrorsNameTheRow: a bad metrics row is named by its place.
func TestMetricsErrorsNameTheRow(t *testing.T) {
	ok := Record{"host": "h1", "cpu_pct": 10.0}
	for _, tc := range []struct {
		rec  Record
		want string
	}{
		{Record{"cpu_pct": 1.0}, "metrics row 2 has no host (a string); got [cpu_pct]"},
		{Record{"host": "h2", "at": "yesterday"}, `metrics row 2: time "yesterday" is not an RFC 3339 time`},
		{Record{"host": "h2", "metric": "cpu_pct"}, "metrics row 2 needs metric (a string) and value (a number); got [host metric]"},
	} {
		if _, err := HostMetricsOf([]Record{ok, tc.rec}, time.Now()); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.rec, err, tc.want)
		}
	}
}

// TestResultRowsOfDifferentKeys: rows of one result may give different
// metrics; each is read with its own keys. A job or worker "all" is the
// aggregate over jobs or workers.
func TestResultRowsOfDifferentKeys(t *testing.T) {
	res, err := ResultOf([]Record{
		{"worker": "w1", "iops": 10.0},
		{"worker": "w2", "mbps": 5.0},
		{"worker": "all", "job": "all", "iops": 10.0, "mbps": 5.0},
	}, true, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 || res.Rows[0].IOPS != 10 || !math.IsNaN(res.Rows[0].MBps) || res.Rows[1].MBps != 5 || !math.IsNaN(res.Rows[1].IOPS) {
		t.Errorf("rows %+v: want each with its own metric, the other missing", res.Rows)
	}
	if len(res.Aggregate) != 1 || res.Aggregate[0].Job != "" || res.Aggregate[0].Worker != "" {
		t.Errorf("aggregate %+v: want one, of no job and no worker", res.Aggregate)
	}
}

// A result with only each job's aggregate rows (an events measurement's)
// gets the aggregate over all jobs that summaries read: one job's own rows
// with their percentiles, or the jobs' summed; a result that has it keeps
// it, and the rows it came from are left as they were.
func TestAddAllJobs(t *testing.T) {
	read := func(job string, iops, p99 float64) fio.Row {
		return fio.Row{Job: job, Direction: "read", IOPS: iops, MBps: iops / 100, LatMeanUs: 200, P99Us: p99}
	}
	one := []fio.Row{read("oltp", 1000, 900)}
	res := &fio.Result{Aggregate: slices.Grow(slices.Clone(one), 4)} // room to append in place
	AddAllJobs(res)
	if len(res.Aggregate) != 2 || res.Aggregate[1].Job != "" || res.Aggregate[1].IOPS != 1000 || res.Aggregate[1].P99Us != 900 {
		t.Errorf("one job: aggregate %+v; want its row again over all jobs, p99 kept", res.Aggregate)
	}
	two := &fio.Result{Aggregate: []fio.Row{read("a", 1000, 900), read("b", 3000, 500)}}
	AddAllJobs(two)
	if all := two.Aggregate[len(two.Aggregate)-1]; len(two.Aggregate) != 3 || all.Job != "" || all.IOPS != 4000 || !math.IsNaN(all.P99Us) {
		t.Errorf("two jobs: aggregate %+v; want their sum over all jobs (percentiles not merged)", two.Aggregate)
	}
	has := &fio.Result{Aggregate: []fio.Row{read("", 1000, 900)}}
	if AddAllJobs(has); len(has.Aggregate) != 1 {
		t.Errorf("with the aggregate over all jobs: %+v; want it kept alone", has.Aggregate)
	}
	// The rows it came from, another result's, are not written over.
	shared := slices.Grow([]fio.Row{read("oltp", 1000, 900)}, 4)
	other := &fio.Result{Aggregate: shared}
	AddAllJobs(other)
	if extra := shared[:2]; extra[1].Direction != "" {
		t.Errorf("the source rows' array was written into: %+v", extra)
	}
}
