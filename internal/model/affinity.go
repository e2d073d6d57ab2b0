package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"starbench/internal/fio"
)

// maxCPUs is the most CPUs fio's affinity masks hold on Linux
// (FIO_MAX_CPUS, glibc's CPU_SETSIZE).
const maxCPUs = 1024

// cpuSet reads cpus_allowed ("0-3,8") and cpumask (a bit per CPU) as fio
// 3.33 does (options.c, set_cpus_allowed and str_cpumask_cb): the guest
// CPUs a job's threads may run on, sorted; the last of the two options
// given wins. cpus_allowed_policy (shared or split) decides only which of
// them each job takes.
func cpuSet(o fio.Option) ([]int, error) {
	var cpus []int
	switch o.Key {
	case "cpumask":
		mask, err := strconv.ParseUint(o.Value, 0, 32) // fio keeps the bits of an int
		if err != nil || mask == 0 {
			return nil, fmt.Errorf("cpumask=%s: want a mask with a bit for each CPU, like 0xf (CPUs 0 to 3)", o.Value)
		}
		for i := range 32 {
			if mask&(1<<i) != 0 {
				cpus = append(cpus, i)
			}
		}
	default: // cpus_allowed
		for part := range strings.SplitSeq(o.Value, ",") {
			lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
			a, err := strconv.Atoi(lo)
			b := a
			if isRange && err == nil {
				b, err = strconv.Atoi(hi)
			}
			if err != nil || a < 0 || b < a || b >= maxCPUs {
				return nil, fmt.Errorf("cpus_allowed=%s: want CPUs from 0 to %d and ranges of them, like 0-3,8", o.Value, maxCPUs-1)
			}
			for c := a; c <= b; c++ {
				cpus = append(cpus, c)
			}
		}
	}
	slices.Sort(cpus)
	return slices.Compact(cpus), nil
}

// checkCPUs refuses a set (cpus_allowed or cpumask, given as label) that
// names a CPU a worker of cpus vCPUs does not have, as fio does ("CPU 16
// too large (max=15)").
func checkCPUs(set []int, cpus int, label string) error {
	if last := len(set) - 1; last >= 0 && set[last] >= cpus {
		return fmt.Errorf("%s: fio refuses CPU %d on a worker of %d vCPUs (\"CPU %d too large (max=%d)\"); name CPUs 0 to %d", label, set[last], cpus, set[last], cpus-1, cpus-1)
	}
	return nil
}

// clockThread is gtod_cpu: fio's process in each worker then keeps a
// thread reading the clock in a loop, pinned to guest CPU cpu, for the
// whole run (fio 3.33 gettime-thread.c; measured: 100 % of its CPU). One
// process runs all of a worker's jobs, so a worker has one such thread
// whichever of its jobs ask for it.
type clockThread struct {
	given bool
	cpu   int
}

// clockAffinity notes gtod_cpu's clock thread and takes its CPU out of
// the job's cpus_allowed, as fio does (backend.c: only for a CPU other
// than 0, and only where the job has a set; without one its threads run
// on every vCPU, the clock's too).
func (sh *jobShape) clockAffinity() error {
	if !sh.clock.given {
		return nil
	}
	sh.notes = append(sh.notes, fmt.Sprintf("gtod_cpu=%d: fio's process in each worker keeps a thread reading the clock on vCPU %d for the whole run, whose hardware thread stays busy on its host (one a worker, whichever of its jobs ask)", sh.clock.cpu, sh.clock.cpu))
	if sh.clock.cpu == 0 || sh.cpus == nil {
		return nil
	}
	rest := slices.DeleteFunc(slices.Clone(sh.cpus), func(c int) bool { return c == sh.clock.cpu })
	if len(rest) == 0 {
		return fmt.Errorf("%s with gtod_cpu=%d: fio takes the clock thread's CPU out of the job's set, which leaves none (fio 3.33: err=22, cpu_set_affinity, Invalid argument); give the job another CPU as well", sh.cpusGiven, sh.clock.cpu)
	}
	sh.cpus = rest
	return nil
}

// sharesClock says whether the job's threads may run on the vCPU fio's
// clock thread spins on (clockThread), sharing it with that thread.
func (sh *jobShape) sharesClock() bool {
	return sh.clock.given && (sh.cpus == nil || slices.Contains(sh.cpus, sh.clock.cpu))
}

// checkClock refuses a gtod_cpu a worker of cpus vCPUs does not have:
// fio cannot pin the thread there ("gtod: setaffinity failed") and then
// never finishes (fio 3.33: a 3 s job still running after 20 s).
func checkClock(c clockThread, cpus int) error {
	if c.given && c.cpu >= cpus {
		return fmt.Errorf("gtod_cpu=%d: a worker of %d vCPUs has no CPU %d, and fio then never finishes (\"gtod: setaffinity failed\"; fio 3.33 still ran a 3 s job after 20 s); name a CPU from 0 to %d", c.cpu, cpus, c.cpu, cpus-1)
	}
	return nil
}
