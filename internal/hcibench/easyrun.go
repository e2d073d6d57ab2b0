package hcibench

import (
	"fmt"
	"math"
)

// Cluster is what HCIBench's easy run reads of a vSAN cluster.
type Cluster struct {
	Hosts int
	ESA   bool
	// DiskGroups and CacheGB (their cache devices' capacity, summed) are
	// OSA's; ESA has neither.
	DiskGroups int
	CacheGB    float64
	Dedup      bool
}

// Policy is what easy run reads of the workers' storage policy.
type Policy struct {
	FTT      int  // failures to tolerate
	Checksum bool // vSAN checksums the data (the default)
}

// EasyRunPlan is an easy run: the workers to deploy, how to prepare their
// disks, and the four workloads, as HCIBench 2's easy run sizes them.
type EasyRunPlan struct {
	VMs, DisksPerVM, CPUs, MemoryGB int
	DiskSizeGB                      int     // each data disk
	WorkingSetGB                    float64 // all data disks together
	Prepare                         string  // "zero", or "random" where dedup would fold zeros
	// Files are the vdbench parameter files HCIBench would write, by
	// easy-run name ("4k70r", "4k100r", "8k50r", "256k0r"), and Runs
	// their translation, in that order.
	Files map[string]string
	Names []string
	Runs  []Run
	Notes []string
}

// HCIBench easy run's constants (its easy-run.rb): 8 data disks per VM, 32
// outstanding I/Os per VM, 4 vCPUs and 8 GB per VM, two VMs per disk
// group, a working set of 75 % of the (all-flash) cache tier, capped at
// 600 GB per disk group, divided by the policy's copies.
const (
	easyDisks         = 8
	easyOutstanding   = 32
	easyCPUs          = 4
	easyMemoryGB      = 8
	easyVMsPerGroup   = 2
	easyCacheShare    = 0.75
	easyCacheCapGB    = 600
	easyTestSeconds   = 3600
	easyWarmupSeconds = 1800
)

// EasyRun sizes an easy run of cluster c under policy p as HCIBench 2
// does, and writes its four workloads as HCIBench's vdbench parameter
// files (translated like any other). ESA has no disk groups and no cache
// tier: each host counts as one group with the capped cache, an
// extrapolation of HCIBench's OSA rule that the notes say.
func EasyRun(c Cluster, p Policy) (*EasyRunPlan, error) {
	if c.Hosts < 1 {
		return nil, fmt.Errorf("the cluster has no hosts to size an easy run for")
	}
	plan := &EasyRunPlan{DisksPerVM: easyDisks, CPUs: easyCPUs, MemoryGB: easyMemoryGB, Prepare: "zero", Files: map[string]string{}}
	groups, cache := c.DiskGroups, c.CacheGB
	if c.ESA {
		groups, cache = c.Hosts, float64(c.Hosts*easyCacheCapGB)
		plan.Notes = append(plan.Notes, fmt.Sprintf("ESA has no disk groups or cache tier: each of the %d hosts counts as one disk group with HCIBench's all-flash cache cap of %d GB (HCIBench 2's easy run sizes OSA clusters)", c.Hosts, easyCacheCapGB))
	} else if groups < 1 || cache <= 0 {
		return nil, fmt.Errorf("the cluster has no vSAN disk groups with a cache device: easy run sizes the working set from the cache tier")
	}
	cache = math.Min(cache, float64(groups*easyCacheCapGB))
	copies := p.FTT + 1
	plan.WorkingSetGB = cache * easyCacheShare / float64(copies)
	plan.VMs = groups * easyVMsPerGroup
	plan.DiskSizeGB = max(int(math.Floor(plan.WorkingSetGB/float64(plan.VMs*easyDisks))), 1)
	plan.Notes = append(plan.Notes, fmt.Sprintf("working set: %.0f %% of %.0f GB of cache tier over %d copies (FTT %d) = %.0f GB, on %d VMs x %d disks of %d GB",
		100*easyCacheShare, cache, copies, p.FTT, plan.WorkingSetGB, plan.VMs, easyDisks, plan.DiskSizeGB))
	if c.Dedup {
		plan.Prepare = "random"
		plan.Notes = append(plan.Notes, "deduplication is on: disks are filled with random data, which it cannot fold (zeros it would)")
	}
	threads := easyOutstanding / easyDisks
	seqThreads := threads / 4
	if !p.Checksum {
		seqThreads = threads
	}
	for _, w := range []struct {
		name            string
		bs              string
		read, random, t int
	}{{"4k70r", "4k", 70, 100, threads}, {"4k100r", "4k", 100, 100, threads}, {"8k50r", "8k", 50, 100, threads}, {"256k0r", "256k", 0, 0, seqThreads}} {
		text := vdbenchFile(easyDisks, 100, w.t, w.bs, w.read, w.random, easyTestSeconds, easyWarmupSeconds)
		name := fmt.Sprintf("vdb-%dvmdk-100ws-%s-%drdpct-%drandompct-%dthreads", easyDisks, w.bs, w.read, w.random, w.t)
		parsed, err := ParseVdbench(name, text)
		if err != nil {
			return nil, fmt.Errorf("internal error: easy run's %s: %w", w.name, err)
		}
		run := parsed.Runs[0]
		run.Name = w.name
		run.Workload.Name = w.name
		plan.Files[w.name], plan.Names, plan.Runs = text, append(plan.Names, w.name), append(plan.Runs, run)
	}
	return plan, nil
}

// vdbenchFile writes a parameter file as HCIBench's generator
// (generate-vdb-param-file.sh) does: disks raw devices /dev/sda..., the
// working set in percent of each, threads per disk, one workload and one
// run of test seconds, warmup included.
func vdbenchFile(disks, workingSet, threads int, bs string, read, random, test, warmup int) string {
	text := fmt.Sprintf("*Auto Generated VDBench Parameter File\n*%d raw disk, %d%% random, %d%% read\n*SD:    Storage Definition\n*WD:    Workload Definition\n*RD:    Run Definition\ndebug=86\ndata_errors=10000\n",
		disks, random, read)
	sds := ""
	for i := 1; i <= disks; i++ {
		text += fmt.Sprintf("sd=sd%d,lun=/dev/sd%c,openflags=o_direct,hitarea=0,range=(0,%d),threads=%d\n", i, 'a'+i-1, workingSet, threads)
		if i > 1 {
			sds += ","
		}
		sds += fmt.Sprintf("sd%d", i)
	}
	text += fmt.Sprintf("wd=wd1,sd=(%s),xfersize=%s,rdpct=%d,seekpct=%d\n", sds, bs, read, random)
	return text + fmt.Sprintf("rd=run1,wd=wd1,iorate=max,elapsed=%d,warmup=%d\n", test, warmup)
}
