package model

import (
	"fmt"
	"slices"
	"strings"

	"starbench/internal/fio"
)

// verifyPass is what fio's verify adds to a size-based writing job
// (jobShape.verify): once the job's own I/O is done, a pass reading back
// the blocks it wrote (readBackJob), whatever other jobs are doing.
// Measured on local files (fio 3.33): a 32 MiB randwrite with
// verify=crc32c writes 32 MiB in 326 ms, then reads them back in 139 ms
// (job_runtime 463 ms); a 16 MiB randrw moves 16 MiB, 2,104 of its 4,096
// I/Os writes, then reads those 2,104 back; a 16 MiB randwrite beside a
// time-based randrw on another file writes for 137 ms and reads back for
// 79 while the other runs on. fio stops reading back at the job's runtime,
// and reads nothing back when its I/O used the runtime.
type verifyPass struct {
	label string // the option that verifies: verify=crc32c, or verify_pattern
	back  JobRun // the read-back, reading only blocks the job wrote
}

// verifyPasses takes verify off each job that reads back after its I/O:
// the jobs as they run their own I/O and, for each such job, its pass.
// verify_pattern goes too, its data kept: as compressible as zeros, every
// block alike where it is all the job writes (patternOnly).
func verifyPasses(jobs []JobRun) ([]JobRun, []*verifyPass) {
	own := slices.Clone(jobs)
	passes := make([]*verifyPass, len(jobs))
	for i, j := range jobs {
		if sh, err := readJob(j.Job); err != nil || !sh.verify {
			continue
		}
		label := "verify=" + rawValue(j.Job, "verify")
		if !hasRaw(j.Job, "verify") {
			label = "verify_pattern=" + rawValue(j.Job, "verify_pattern")
		}
		first := *j.Job
		first.Options = slices.DeleteFunc(slices.Clone(j.Job.Options), func(o fio.Option) bool { return o.Key == "verify" || o.Key == "verify_pattern" })
		switch {
		case patternOnly(j.Job):
			first.Options = append(first.Options, fio.Option{Key: "zero_buffers", Value: "1"})
		case hasRaw(j.Job, "verify_pattern"):
			first.BufferCompressPercentage = 100 // refilled: headers tell the blocks apart
		}
		own[i].Job = &first
		back := readBackJob(&first)
		back.RuntimeSec = 0 // the job's runtime bounds both its I/O and the pass (overlap)
		passes[i] = &verifyPass{label: label, back: JobRun{Workers: j.Workers, Job: back, readsBack: true, threads: j.threads}}
	}
	return own, passes
}

// checking is where a verifying job is in its run (overlap): the bytes its
// own I/O wrote and moved, and when its read-back began (0: not yet) and
// must end by (its runtime).
type checking struct {
	wrote, moved float64
	from, until  float64
}

// note says how the job's verify ran: its read-back after its own I/O
// (done: how far through a whole pass of its extent the read-back got,
// end: when the job ended, bound: the solve it spent longest in), or why
// fio read nothing back.
func (p *verifyPass) note(job *fio.Job, c checking, done, end float64, bound *Output, several bool) string {
	who, whose := "fio", "the job's"
	if several {
		who, whose = "job "+job.Name, "job "+job.Name+"'s"
	}
	switch {
	case c.wrote == 0:
		return ""
	case c.from == 0:
		return fmt.Sprintf("%s: %s I/O used the whole runtime (%d s), so fio reads nothing back", p.label, whose, job.RuntimeSec)
	}
	share := c.wrote / c.moved
	what := "its writes"
	if share < 1-1e-9 {
		what = fmt.Sprintf("its mix of reads and writes (%.0f %% of the bytes written)", 100*share)
	}
	note := fmt.Sprintf("%s: after %s (%.4g s) %s reads back and checks the blocks written, solved as a %s pass of them (%.4g s) at the job's depth, without its rate limits or think time", p.label, what, c.from, who, p.back.Job.RW, end-c.from)
	if several {
		note += ", beside the jobs then running"
	}
	if bound != nil {
		note += fmt.Sprintf(", bound by %s at %.0f %%", bound.Bottleneck, 100*bound.BottleneckUtil)
	}
	note += "; the job's read row holds every read it made, over their time; the check's CPU in the guest is not modelled"
	if read := (done - (1 - share)) / share; read < 1-1e-6 {
		note += fmt.Sprintf("; fio stops reading back at the job's runtime (%d s), %.0f %% of the way through the blocks written", job.RuntimeSec, 100*read)
	}
	return note
}

// readBackJob is the pass with which fio's verify reads back what job
// wrote: the same extent at the job's write block sizes, random where its
// I/O was, at its depth, without its ramp, rate limits or think time,
// which fio's verify phase leaves out (fio 3.33, a 16 MiB randwrite on a
// local file: written at rate_iops=4000 and at thinktime=1ms, 16 and 3.8
// MiB/s, read back at 78 and 91).
func readBackJob(job *fio.Job) *fio.Job {
	back := *job
	back.RW, back.RWMixRead, back.RampSec = "read", 0, 0
	if strings.HasPrefix(baseRW(job.RW), "rand") {
		back.RW = "randread"
	}
	back.RateIOPS, back.RateBytes = 0, 0
	back.Options = nil
	for _, o := range job.Options {
		switch {
		case strings.HasPrefix(o.Key, "rate"), strings.HasPrefix(o.Key, "thinktime"), o.Key == "rwmixread", o.Key == "rwmixwrite":
		case slices.Contains([]string{"bs", "bsrange", "bssplit"}, fio.Canonical(o.Key)) && strings.Contains(o.Value, ","):
			// The blocks read back are the ones written.
			for _, dv := range perDirection(o.Value) {
				if dv.dir == write {
					back.Options = append(back.Options, fio.Option{Key: o.Key, Value: dv.value})
				}
			}
		default:
			back.Options = append(back.Options, o)
		}
	}
	return &back
}
