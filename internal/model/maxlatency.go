package model

import (
	"fmt"
	"math"
)

// aboveMaxLatency is the error fio's max_latency makes of a job: fio ends
// a job at the first I/O whose latency passes it, with error 110
// (ETIMEDOUT), and the run fails (fio's HOWTO; io_u.c, lat_fatal). The
// model has percentiles, not a maximum: where a phase's p99.9 passes the
// limit, one of the thousands of I/Os the phase runs does, and the run
// fails; the phases' worst p99.9 otherwise (0 where the job, read as sh,
// sets none), which maxLatencyNote reports.
func aboveMaxLatency(j JobRun, sh jobShape, sp span) (worst float64, err error) {
	if sh.maxLat == [2]float64{} {
		return 0, nil
	}
	for _, ph := range sp.phases {
		for dir, name := range [2]string{"read", "write"} {
			limit, d := sh.maxLat[dir], ph.dirs[dir]
			if limit == 0 || d.IOPS == 0 {
				continue
			}
			if p := d.P999Us / 1e6; p > limit {
				return 0, fmt.Errorf("job %s: max_latency=%s passed: the model's p99.9 %s latency is %.0f us from %.0f s into the run, above %.0f us, so one of its I/Os in a thousand takes longer; fio ends a job at its first I/O slower than max_latency with error 110 (ETIMEDOUT), and the run fails; raise the limit or lower the load",
					j.Job.Name, rawValue(j.Job, "max_latency"), name, d.P999Us, ph.from, limit*1e6)
			}
			worst = math.Max(worst, d.P999Us)
		}
	}
	return worst, nil
}

// maxLatencyNote says what the model cannot tell of a job's max_latency
// that its p99.9 keeps: whether the slowest I/O does.
func maxLatencyNote(name, limit string, worst float64) string {
	return fmt.Sprintf("job %s: max_latency=%s: the model's p99.9 stays within it (%.0f us at most), but fio ends the job at the first slower I/O, and the model has no maximum: a real run can still fail", name, limit, worst)
}

// maxLatencyEventsNote says what a run stepped through events does not check.
const maxLatencyEventsNote = "max_latency: fio ends a job at its first I/O slower than it, failing the run; a run stepped through events is not checked against it"
