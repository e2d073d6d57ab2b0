package hcibench

import (
	"fmt"
	"math"
	"strings"
)

// Cluster is what HCIBench's easy run reads of a vSAN cluster and its
// datastore.
type Cluster struct {
	Hosts int
	ESA   bool
	// DiskGroups and CacheGB (their cache devices' capacity, summed) are
	// OSA's; ESA has neither.
	DiskGroups int
	CacheGB    int
	// CapacityGB and FreeGB are the vSAN datastore's, in GiB.
	CapacityGB, FreeGB int
	Dedup              bool
}

// Policy is what easy run reads of the workers' storage policy.
type Policy struct {
	FTT           int  // host failures to tolerate
	ErasureCoding bool // RAID-5/6 (HCIBench: replica preference "Capacity")
	Checksum      bool // vSAN checksums the data (the default)
}

// EasyRunPlan is an easy run: the workers to deploy, how to prepare their
// disks, and the six workloads, as HCIBench's easy run sizes them.
type EasyRunPlan struct {
	VMs, DisksPerVM, CPUs, MemoryGB int
	DiskSizeGB                      int     // each data disk
	WorkingSetGB                    float64 // what easy run aims to fill: cache (or a third of the capacity) over the policy's copies
	ThreadsPerDisk                  int     // outstanding I/Os per disk of the random workloads; the sequential ones get fewer
	Prepare                         string  // "zero", or "random" where dedup or compression would fold zeros
	// Files are the parameter files HCIBench would write, by easy-run
	// name ("4k70r", ..., "256k0r" on OSA, "512k0r" on ESA), and Runs
	// their translation, in Names' order.
	Files map[string]string
	Names []string
	Runs  []Run
	Notes []string
}

// Easy run's constants, from HCIBench's easy-run.rb: 4 vCPUs and 8 GB per
// VM; one hour with half an hour of warm-up; the latency targets (µs) of
// fio's latency-bound runs.
const (
	easyCPUs          = 4
	easyMemoryGB      = 8
	easyTestSeconds   = 3600
	easyWarmupSeconds = 1800
)

var easyLatencyTargets = map[string][2]int{"Low": {1000, 3000}, "Medium": {5000, 10000}, "High": {10000, 20000}} // random, sequential

// easyProfile is one of easy run's workloads.
type easyProfile struct {
	bs           string
	read, random int
	sequential   bool
}

// easyProfiles are HCIBench's six easy-run workloads, in its order; the
// large sequential ones are 256k on OSA and 512k on ESA.
func easyProfiles(esa bool) []easyProfile {
	large := "256k"
	if esa {
		large = "512k"
	}
	return []easyProfile{{"4k", 100, 100, false}, {"4k", 0, 100, false}, {large, 100, 0, true}, {large, 0, 0, true}, {"4k", 70, 100, false}, {"8k", 50, 100, false}}
}

// EasyRun sizes an easy run of cluster c under policy p as HCIBench's
// easy-run.rb does, and writes its workloads as HCIBench's generators do
// for tool ("vdbench" or "fio"), translated like any other file.
// latencyTarget is HCIBench's "Max" (8 disks a VM, as many I/Os as easy
// run gives) or "Low", "Medium", "High" (4 disks; for fio, a latency
// target fio holds by adjusting the queue depth).
//
// OSA (all-flash): 2 VMs per disk group; the working set is 75 % of the
// cache tier, capped at 600 GB a disk group, over the policy's copies; 32
// outstanding I/Os per VM, the sequential ones a quarter of that while
// vSAN checksums. ESA: 2 VMs per host; the working set is a third of the
// datastore's capacity over the copies, disks of 64 GB unless that is
// more; 128 outstanding I/Os per VM, the sequential ones an eighth. Either
// way the working set is halved until it fits in 80 % of the free space.
func EasyRun(c Cluster, p Policy, tool, latencyTarget string) (*EasyRunPlan, error) {
	if c.Hosts < 1 {
		return nil, fmt.Errorf("the cluster has no hosts to size an easy run for")
	}
	if tool != "vdbench" && tool != "fio" {
		return nil, fmt.Errorf("tool is %q; want \"vdbench\" or \"fio\", HCIBench's two", tool)
	}
	disks := 8
	if latencyTarget != "Max" {
		if _, ok := easyLatencyTargets[latencyTarget]; !ok {
			return nil, fmt.Errorf("latency target is %q; want \"Max\", \"Low\", \"Medium\" or \"High\", HCIBench's four", latencyTarget)
		}
		disks = 4
	}
	if c.CapacityGB <= 0 || c.FreeGB <= 0 {
		return nil, fmt.Errorf("the vSAN datastore reports no capacity or no free space: easy run sizes the working set from them")
	}
	plan := &EasyRunPlan{DisksPerVM: disks, CPUs: easyCPUs, MemoryGB: easyMemoryGB, Prepare: "zero", Files: map[string]string{}}
	copies := copiesOf(p, c)
	var cache, share float64
	var outstanding, seqDivider int
	if c.ESA {
		cache, share = float64(c.CapacityGB/3), 1
		plan.VMs, outstanding, seqDivider = 2*c.Hosts, 128, 8
		// easy-run.rb fills ESA disks with random data whenever the
		// policy names no space efficiency, which is always as it reads
		// policies: vSAN 8 compresses by default.
		plan.Prepare = "random"
	} else {
		if c.DiskGroups < 1 || c.CacheGB <= 0 {
			return nil, fmt.Errorf("the cluster has no vSAN disk groups with a cache device: easy run sizes an OSA working set from the cache tier")
		}
		cache, share = math.Min(float64(c.DiskGroups*600), float64(c.CacheGB)), 0.75
		plan.VMs, outstanding, seqDivider = 2*c.DiskGroups, 32, 4
		if !p.Checksum {
			seqDivider = 1
		}
		if c.Dedup {
			plan.Prepare = "random"
		}
		plan.Notes = append(plan.Notes, "OSA sized as all-flash (HCIBench takes 25 % of an uncapped cache on hybrid disk groups)")
	}
	for float64(c.FreeGB)*0.8 < cache {
		cache = math.Floor(cache / 2)
	}
	plan.WorkingSetGB = cache * share / copies
	if c.ESA {
		plan.DiskSizeGB = 64
		if float64(plan.VMs*disks*64) > plan.WorkingSetGB {
			plan.DiskSizeGB = max(int(math.Floor(plan.WorkingSetGB/float64(plan.VMs*disks))), 1)
		}
	} else {
		plan.DiskSizeGB = max(int(math.Floor(plan.WorkingSetGB/float64(plan.VMs*disks))), 1)
	}
	plan.ThreadsPerDisk = outstanding / disks
	plan.Notes = append(plan.Notes, fmt.Sprintf("the vSAN datastore has %d GB, %d GB free", c.CapacityGB, c.FreeGB))
	plan.Notes = append(plan.Notes, fmt.Sprintf("working set: %.0f GB over %.2f copies = %.0f GB, on %d VMs x %d disks of %d GB; %d outstanding I/Os per disk, %d on the sequential workloads",
		cache*share, copies, plan.WorkingSetGB, plan.VMs, disks, plan.DiskSizeGB, plan.ThreadsPerDisk, plan.ThreadsPerDisk/seqDivider))
	if plan.Prepare == "random" {
		plan.Notes = append(plan.Notes, "disks are filled with random data and written with a compression and dedup ratio of 2, as easy run does where vSAN would fold zeros")
	}
	for _, w := range easyProfiles(c.ESA) {
		threads := plan.ThreadsPerDisk
		latency := easyLatencyTargets[latencyTarget][0]
		if w.sequential {
			threads, latency = threads/seqDivider, easyLatencyTargets[latencyTarget][1]
		}
		name := fmt.Sprintf("%s%dr", w.bs, w.read)
		g := generatorArgs{disks: disks, workingSet: 100, threads: threads, bs: w.bs, read: w.read, random: w.random,
			test: easyTestSeconds, warmup: easyWarmupSeconds, reduce: plan.Prepare == "random"}
		var file, text string
		if tool == "fio" {
			g.latencyTarget = latency
			file, text = fioFile(g)
		} else {
			file, text = vdbenchFile(g)
		}
		parsed, err := Read(name, file, text)
		if err != nil {
			return nil, fmt.Errorf("internal error: easy run's %s: %w", name, err)
		}
		run := parsed.Runs[0]
		run.Name, run.Workload.Name = name, name
		plan.Files[name], plan.Names, plan.Runs = text, append(plan.Names, name), append(plan.Runs, run)
	}
	return plan, nil
}

// copiesOf is how many times the policy stores the data, as easy run
// reckons it: FTT + 1 mirrors, or the parity overhead of RAID-5/6 (OSA 3+1
// and 4+2, ESA 4+1 above 4 hosts and 2+1 up to 4).
func copiesOf(p Policy, c Cluster) float64 {
	copies := float64(p.FTT + 1)
	if !p.ErasureCoding {
		return copies
	}
	switch {
	case p.FTT == 1 && !c.ESA:
		return 1.33
	case p.FTT == 1 && c.Hosts > 4:
		return 1.25
	case p.FTT == 2 || p.FTT == 1:
		return 1.5
	}
	return copies
}

// generatorArgs are the arguments easy run gives HCIBench's generators.
type generatorArgs struct {
	disks, workingSet, threads int
	bs                         string
	read, random, test, warmup int
	reduce                     bool // -c 2 -d 2 (vdbench), -bc 50 -dp 50 (fio)
	latencyTarget              int  // fio's -lt in µs; 0: none
}

// vdbenchFile writes a parameter file as HCIBench's vdbench generator
// (generate-vdb-param-file.sh) does, with its file name: disks are raw
// devices /dev/sda..., the working set in percent of each, threads per
// disk, one workload and one run of test seconds, warmup included.
func vdbenchFile(g generatorArgs) (name, text string) {
	var b strings.Builder
	fmt.Fprintf(&b, "*Auto Generated VDBench Parameter File\n*%d raw disk, %d%% random, %d%% read\n*SD:    Storage Definition\n*WD:    Workload Definition\n*RD:    Run Definition\ndebug=86\ndata_errors=10000\n",
		g.disks, g.random, g.read)
	if g.reduce {
		b.WriteString("compratio=2\ndedupratio=2\ndedupunit=4k\n")
	}
	var sds []string
	for i, dev := range devices(g.disks) {
		fmt.Fprintf(&b, "sd=sd%d,lun=%s,openflags=o_direct,hitarea=0,range=(0,%d),threads=%d\n", i+1, dev, g.workingSet, g.threads)
		sds = append(sds, fmt.Sprintf("sd%d", i+1))
	}
	fmt.Fprintf(&b, "wd=wd1,sd=(%s),xfersize=%s,rdpct=%d,seekpct=%d\n", strings.Join(sds, ","), g.bs, g.read, g.random)
	fmt.Fprintf(&b, "rd=run1,wd=wd1,iorate=max,elapsed=%d,warmup=%d\n", g.test, g.warmup)
	return fmt.Sprintf("vdb-%dvmdk-%dws-%s-%drdpct-%drandompct-%dthreads", g.disks, g.workingSet, g.bs, g.read, g.random, g.threads), b.String()
}

// fioFile writes a job file as HCIBench's fio generator (fioconfig
// create) does, with its file name: a [global] section with the
// workload, then one job per data disk. With a latency target fio holds
// the 95th percentile under it, from up to 1024 outstanding I/Os a disk.
func fioFile(g generatorArgs) (name, text string) {
	threads := g.threads
	name = fmt.Sprintf("fio-%dvmdk-%dws-%s-%drdpct-%drandompct-%dthreads", g.disks, g.workingSet, g.bs, g.read, g.random, threads)
	var b strings.Builder
	fmt.Fprintf(&b, "; Auto generated FIO parameter file\n; block_size:          %s\n; testing_time:        %d \n; warmup_time:         %d\n; nb_disks:            %d\n; io_rate:             None\n; read_pct:            %d\n; random_pct:          %d\n; working_set:         %d\n; nvme_ctrlr:          False\n",
		g.bs, g.test, g.warmup, g.disks, g.read, g.random, g.workingSet)
	if g.latencyTarget > 0 {
		threads = 1024
		name = fmt.Sprintf("fio-%dvmdk-%dws-%s-%drdpct-%drandompct-%dlt", g.disks, g.workingSet, g.bs, g.read, g.random, g.latencyTarget)
		fmt.Fprintf(&b, "; latency_target:      %d\n; latency_window:      1000000\n; latency_percentile:  95.0 \n; latency_run:         1\n; nb_threads:          1024 # override by latency_target\n", g.latencyTarget)
	} else {
		fmt.Fprintf(&b, "; nb_threads:          %d\n", threads)
	}
	if g.reduce {
		name += "-50compress-50dedupe"
		b.WriteString("; buffer_compress_pct: 50\n; dedupe_pct:          50\n")
	}
	fmt.Fprintf(&b, "\n[global]\nruntime=%d\ntime_based=1\nramp_time=%d\ndirect=1\nbuffered=0\nfsync=0\n", g.test, g.warmup)
	switch {
	case g.read == 0 && g.random == 0:
		b.WriteString("readwrite=write\n")
	case g.read == 100 && g.random == 0:
		b.WriteString("readwrite=read\n")
	case g.read == 0 && g.random == 100:
		b.WriteString("readwrite=randwrite\n")
	case g.read == 100 && g.random == 100:
		b.WriteString("readwrite=randread\n")
	default: // the mixes easy run writes, all random
		fmt.Fprintf(&b, "readwrite=randrw\nrwmixread=%d\npercentage_random=%d\n", g.read, g.random)
	}
	fmt.Fprintf(&b, "random_generator=tausworthe64\nblocksize=%s\n", strings.ToUpper(g.bs))
	if g.reduce {
		b.WriteString("buffer_compress_percentage=50\ndedupe_percentage=50\n")
	}
	b.WriteString("ioengine=libaio\n")
	if g.latencyTarget > 0 {
		fmt.Fprintf(&b, "latency_target=%d\nlatency_window=1000000\nlatency_percentile=95.0\nlatency_run=1\n", g.latencyTarget)
	}
	b.WriteString("group_reporting\nlat_percentiles=1\ncontinue_on_error=all\n")
	for i, dev := range devices(g.disks) {
		fmt.Fprintf(&b, "\n[job%d]\nfilename=%s\nsize=%d%%\niodepth=%d\n", i, dev, g.workingSet, threads)
	}
	return name, b.String()
}

// devices are the guest's data disks as HCIBench's generators name them:
// /dev/sda ... /dev/sdz, then /dev/sdaa ...
func devices(n int) []string {
	out := make([]string, n)
	for i := range out {
		if i < 26 {
			out[i] = fmt.Sprintf("/dev/sd%c", 'a'+i)
		} else {
			out[i] = fmt.Sprintf("/dev/sd%c%c", 'a'+i/26-1, 'a'+i%26)
		}
	}
	return out
}
