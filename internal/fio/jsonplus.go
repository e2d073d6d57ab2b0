package fio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Output is the part of fio's json+ output starbench reads. A client run
// fills Clients (one entry per server and job, plus an "All clients"
// summary); a plain local run fills Jobs.
type Output struct {
	Version string     `json:"fio version"`
	Clients []JobStats `json:"client_stats"`
	Jobs    []JobStats `json:"jobs"`
}

// JobStats is one job's result (one clone of a job when numjobs > 1).
type JobStats struct {
	Name      string   `json:"jobname"`
	Host      string   `json:"hostname"`
	Port      int      `json:"port"`
	Error     int      `json:"error"`
	RuntimeMs int64    `json:"job_runtime"`
	TotalErr  int64    `json:"total_err"`   // with continue_on_error only
	FirstErr  int      `json:"first_error"` // with continue_on_error only
	Read      DirStats `json:"read"`
	Write     DirStats `json:"write"`
	Trim      DirStats `json:"trim"`
	// Options are the job's own options (not [global]'s) as fio read them;
	// its filename tells which section of a worker's file an entry is.
	Options map[string]string `json:"job options"`
	// Steady says whether a job with a steady-state criterion reached it.
	Steady *SteadyState `json:"steadystate"`
}

// SteadyState is what fio says of a job's steady-state detection.
type SteadyState struct {
	Attained int `json:"attained"`
}

// dirs returns the job's directions in Directions' order.
func (e *JobStats) dirs() [3]DirStats { return [3]DirStats{e.Read, e.Write, e.Trim} }

// DirStats is one direction of a job.
type DirStats struct {
	IOBytes  int64   `json:"io_bytes"`
	BWBytes  float64 `json:"bw_bytes"` // bytes per second
	IOPS     float64 `json:"iops"`
	TotalIOs int64   `json:"total_ios"`
	Clat     Latency `json:"clat_ns"`
}

// Latency is a latency distribution in nanoseconds. Bins is json+'s
// histogram: bin value (ns) to count; fio's percentiles are read off it.
type Latency struct {
	Min        float64            `json:"min"`
	Max        float64            `json:"max"`
	Mean       float64            `json:"mean"`
	N          int64              `json:"N"`
	Percentile map[string]float64 `json:"percentile"`
	Bins       Histogram          `json:"bins"`
}

// allClients is the jobname of the summary entry fio adds to client_stats.
const allClients = "All clients"

// ParseOutput reads fio's json+ output. Text that fio prints before the JSON
// (connection notices, warnings) is skipped: parsing starts at the first '{'.
func ParseOutput(data []byte) (*Output, error) {
	i := bytes.IndexByte(data, '{')
	if i < 0 {
		return nil, fmt.Errorf("fio printed no JSON result (%d bytes of output)", len(data))
	}
	var out Output
	dec := json.NewDecoder(bytes.NewReader(data[i:]))
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("reading fio's JSON result: %w", err)
	}
	if out.Clients == nil && out.Jobs == nil {
		return nil, fmt.Errorf("fio's JSON result has neither client_stats nor jobs")
	}
	return &out, nil
}

// Entries returns the per-job entries: client_stats without the summary, or jobs.
func (o *Output) Entries() []JobStats {
	if o.Clients == nil {
		return o.Jobs
	}
	out := make([]JobStats, 0, len(o.Clients))
	for _, c := range o.Clients {
		if c.Name != allClients {
			out = append(out, c)
		}
	}
	return out
}

// Histogram is fio's latency histogram: bin value in ns to I/O count.
// Every fio uses the same bins, so histograms from many jobs merge exactly.
type Histogram map[int64]int64

// UnmarshalJSON reads json+ "bins", an object of decimal-string keys and
// counts. It scans the bytes itself: bins are most of a json+ result, and
// decoding them through a map[string]int64 doubles the parse time.
func (h *Histogram) UnmarshalJSON(b []byte) error {
	out := Histogram{}
	*h = out
	s := bytes.TrimSpace(b)
	if string(s) == "null" {
		return nil
	}
	bad := func() error { return fmt.Errorf("histogram bins %.40q: want an object of \"nanoseconds\": count", s) }
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return bad()
	}
	s = bytes.TrimSpace(s[1 : len(s)-1])
	for len(s) > 0 {
		if s[0] != '"' {
			return bad()
		}
		end := bytes.IndexByte(s[1:], '"')
		if end < 0 {
			return bad()
		}
		ns, err := strconv.ParseInt(string(s[1:1+end]), 10, 64)
		if err != nil || ns < 0 {
			return bad()
		}
		s = bytes.TrimSpace(s[2+end:])
		if len(s) == 0 || s[0] != ':' {
			return bad()
		}
		s = bytes.TrimSpace(s[1:])
		n := 0
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		count, err := strconv.ParseInt(string(s[:n]), 10, 64)
		if err != nil {
			return bad()
		}
		out[ns] += count
		s = bytes.TrimSpace(s[n:])
		if len(s) > 0 {
			if s[0] != ',' {
				return bad()
			}
			s = bytes.TrimSpace(s[1:])
			if len(s) == 0 {
				return bad()
			}
		}
	}
	return nil
}
