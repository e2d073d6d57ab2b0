package model

import (
	"fmt"
	"math"
	"slices"

	"starbench/internal/fio"
)

// minRateSettle is how long fio lets a job run before it checks the job's
// minimum rate (backend.c, __check_min_rate: "allow a 2 second settle
// period in the beginning").
const minRateSettle = 2.0

// belowMinRate is the error fio's rate_min and rate_iops_min make of a job
// that runs below them: after the settle, fio checks each direction's rate
// over each rate cycle (ratecycle, 1 s by default) and ends a job below its
// floor with error 5 (EIO), which fails the run; rate_min wins where both
// are given. Measured with fio 3.33 on a local file: a job doing 97 IOPS
// under rate_iops_min=500 ended at 3.0 s (at 2.5 s with ratecycle=500),
// exit status 1. sh is the job as read; its run in time, sp, gives its
// rate in each phase;
// its fio jobs are one per disk and numjobs clone. nil where the job keeps
// its floors, or does not run long enough to be checked.
func belowMinRate(j JobRun, sh jobShape, sp span) error {
	if !sh.hasFloors() {
		return nil
	}
	jobs := j.fioJobs()
	for _, ph := range sp.phases {
		if ph.to-math.Max(ph.from, minRateSettle) < sh.rateCycle {
			continue // no whole rate cycle of this phase is checked
		}
		for dir, name := range [2]string{"read", "write"} {
			d := ph.dirs[dir]
			if d.IOPS == 0 {
				continue // fio checks the directions a job moves
			}
			key, floor, got, unit := "rate_iops_min", sh.minRate[dir], d.IOPS/jobs, "IOPS"
			if sh.minRateB[dir] > 0 {
				key, floor, got, unit = "rate_min", sh.minRateB[dir], d.MBps*1e6/jobs, "B/s"
			}
			if got < floor {
				key = keyGiven(j.Job, key)
				return fmt.Errorf("job %s: %s=%s not met: the model gives each of its %.0f fio jobs %.0f %s of %ss from %.0f s into it; fio ends a job below its minimum rate with error 5 (EIO) once it has settled (2 s) and run a rate cycle (%g ms), and the run fails; lower the floor or the load",
					j.Job.Name, key, rawValue(j.Job, key), jobs, got, unit, name, ph.from, 1000*sh.rateCycle)
			}
		}
	}
	return nil
}

// minRateEventsNote says what a run stepped through events does not check.
const minRateEventsNote = "rate_min / rate_iops_min: fio ends a job that falls below its floor, failing the run; a run stepped through events is not checked against it"

// hasFloors says whether the job has a minimum rate (rate_min,
// rate_iops_min) in either direction.
func (sh *jobShape) hasFloors() bool {
	return sh.minRate != [2]float64{} || sh.minRateB != [2]float64{}
}

// keyGiven is the name under which job gives an option fio also knows by
// another (rate_min as ratemin): its last setting's.
func keyGiven(job *fio.Job, key string) string {
	for _, o := range slices.Backward(job.Options) {
		if fio.Canonical(o.Key) == key {
			return o.Key
		}
	}
	return key
}
