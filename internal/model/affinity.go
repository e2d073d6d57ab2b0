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
