package model

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"starbench/internal/fio"
)

// jobShape is what a job's fio options make of it, read as fio's HOWTO
// says: every option is modelled, named in the notes as ignored, or
// refused where it changes what the run means.
type jobShape struct {
	fr                float64        // share of I/Os that are reads
	sizes             [2][]sizeShare // block sizes of reads and writes
	depth             int            // I/Os each job (clone) keeps outstanding
	buffers           int            // the I/O buffers fio fills for each job: iodepth under the engine's rules
	poll              polling        // the guest threads polled I/O keeps spinning
	think             float64        // think time per outstanding I/O slot, seconds
	spin              float64        // guest CPU seconds of thinktime_spin per I/O
	duty              float64        // share of the run spent issuing I/O (thinktime_iotime)
	rate              [2]float64     // per-direction IOPS cap per job; 0: none
	rateB             [2]float64     // per-direction bytes/s cap per job; 0: none
	minRate           [2]float64     // per-direction IOPS floor per job (rate_iops_min); 0: none
	minRateB          [2]float64     // per-direction bytes/s floor per job (rate_min); 0: none
	rateCycle         float64        // seconds over which fio averages a rate it checks (ratecycle)
	latTarget, latPct float64        // latency_target (seconds) at latency_percentile
	maxLat            [2]float64     // max_latency per direction, seconds; 0: none
	randomShare       float64        // share of I/Os at random offsets
	skew              skew           // how its random offsets fall on its blocks (random_distribution)
	order             rewriteOrder   // how its random offsets come back to its blocks
	timeBased         bool
	compressPct       int // compressibility of the data written (zero_buffers: 100)
	dedupePct         int
	// workingSet is, under dedupe_mode=working_set, the share of size
	// whose blocks fio draws its duplicates from; 0 for repeat (the last
	// unique buffer again).
	workingSet float64
	// compressChunk is buffer_compress_chunk (fio's default 512): fio fills
	// each chunk of a write with its random bytes first and its zeros
	// after; 0 is the write's size (see blockMix).
	compressChunk float64
	// cpus are the guest CPUs the job's threads may run on
	// (cpus_allowed or cpumask, cpusGiven as given); nil for all.
	cpus      []int
	cpusGiven string
	clock     clockThread // gtod_cpu's thread spinning on a vCPU
	// sameBlocks is, for a job whose buffers repeat (repeatedBuffers), the
	// distinct 4 KiB blocks of data each fio job writes; 0 where every
	// write is new data. sameBecause says why.
	sameBlocks  float64
	sameBecause string
	extent      extent  // what of each disk it covers and moves
	startDelay  float64 // seconds after the run's start the job starts (startdelay)
	verify      bool    // a size-based writing job fio reads back after its I/O (verify)
	// readBack is the share of the job's reads that read back a block it
	// has just written (verify_backlog), whatever the disk held before;
	// ownReads are then the sizes of its own reads (sizes[read] has them
	// and the read-backs together) and readBackBytes the bytes read back
	// per byte of its own I/O (see readsBackItsWrites).
	readBack      float64
	ownReads      []sizeShare
	readBackBytes float64
	// align is blockalign per direction: the boundary random offsets fall
	// on; 0 where not given (the block size).
	align [2]float64
	// syncs are the flushes the guest makes per write: fsync, fdatasync
	// or sync_file_range every so many writes, O_SYNC writes through a
	// synchronous engine (see flushes).
	syncs float64
	// syncCommands: the flushes reach the virtual disk as SCSI commands
	// (the sg engine's SYNCHRONIZE CACHE) instead of ending in the guest.
	syncCommands bool
	notes        []string
}

type sizeShare struct {
	size  int64
	share float64
}

// meanIO is the mean size of the job's I/Os, reads and writes together.
func (sh *jobShape) meanIO() float64 {
	return sh.fr*meanSize(sh.sizes[read]) + (1-sh.fr)*meanSize(sh.sizes[write])
}

// meanSize is the mean block size of a direction's I/Os.
func meanSize(sizes []sizeShare) float64 {
	m := 0.0
	for _, s := range sizes {
		m += float64(s.size) * s.share
	}
	return m
}

// The ioengines by what they mean on a vSAN disk.
var (
	asyncEngines = []string{"libaio", "io_uring", "posixaio"}
	syncEngines  = []string{"psync", "sync", "pvsync", "pvsync2", "vsync", "mmap", "sg"} // sg on a block device: the SG_IO ioctl
	// Engines that do no I/O on the worker's data disk: no I/O at all,
	// another storage system over the network, persistent memory or raw
	// flash, or file metadata only.
	noDiskEngines = []string{"null", "net", "netsplice", "cpuio", "http", "nbd", "rdma", "exec", "filecreate", "filestat", "filedelete", "dircreate", "dirstat", "dirdelete",
		"dfs", "gfapi", "gfapi_async", "libhdfs", "libiscsi", "librpma_apm_client", "librpma_apm_server", "librpma_gpspm_client", "librpma_gpspm_server", "nfs", "rados", "rbd", "ime_aio", "ime_psync", "ime_psyncv",
		"dev-dax", "libpmem", "pmemblk", "mtd", "falloc", "ftruncate"}
	// Engines that need a device the workers' virtual disks are not.
	otherDeviceEngines = map[string]string{
		"libzbc":       "drives a zoned block device; a vSAN virtual disk is not zoned",
		"io_uring_cmd": "needs an NVMe character device (/dev/ngXnY); the workers' disks are block devices: use io_uring",
	}
	// Options that put another workload in the job's place, and what the
	// model would need instead.
	replacedWorkloads = map[string]string{
		"read_iolog":  "fio replays the I/O log's recorded I/Os instead of the job's, which the model cannot answer for; give the workload the log records as rw, bs, rwmixread and iodepth",
		"create_only": "fio only lays out the job's files and does no I/O: there is nothing to simulate; leave it out",
		"verify_only": "fio does not run the job but reads back and checks what an earlier run of it wrote; run that as a read job (rw=read or randread with the job's write block sizes)",
		"opendir":     "fio runs the job on every file under the directory instead of the worker's disk, which the model cannot answer for; leave it out (the workers' disks are raw devices)",
		"profile":     "fio runs one of its built-in profiles (tiobench, act) in the job's place, which the model cannot answer for; give that profile's jobs as a job file",
	}
	// Options the model reads elsewhere, or that change nothing it
	// answers: reporting, seeds, and fill_device (on a block device fio
	// 3.33 writes what it would without it: 10 MiB of a 10 MiB loop
	// device either way, 4 MiB with size=4m).
	quietOptions = []string{"name", "description", "filename", "directory", "filename_format", "group_reporting", "new_group", "stonewall", "wait_for", "kb_base", "unit_base", "randrepeat", "randseed", "random_generator", "norandommap", "softrandommap", "allrandrepeat", "invalidate", "thread", "clat_percentiles", "lat_percentiles", "slat_percentiles", "percentile_list", "unified_rw_reporting", "disable_lat", "disable_clat", "disable_slat", "disable_bw_measurement", "gtod_reduce", "per_job_logs", "log_avg_msec", "log_hist_msec", "log_max_value", "log_offset", "log_compression", "steadystate_duration", "steadystate_ramp_time", "write_bw_log", "write_lat_log", "write_iops_log", "write_hist_log", "write_iolog", "verify_backlog", "verify_backlog_batch", "exitall", "exitall_on_error", "create_serialize", "create_fsync", "create_on_open", "allow_mounted_write", "allow_file_create", "refill_buffers", "scramble_buffers", "iodepth_batch", "iodepth_batch_complete_max", "latency_window", "latency_run", "buffered", "direct", "rwmixwrite", "rwmixread", "thinktime", "thinktime_blocks", "thinktime_spin", "thinktime_iotime", "thinktime_blocks_type", "rate_iops", "rate", "latency_target", "latency_percentile", "percentage_random", "zero_buffers", "do_verify", "fill_device", "continue_on_error", "ignore_error", "bs", "bssplit", "bsrange", "bs_unaligned",
		"bwavgtime", "iopsavgtime", "significant_figures", "disk_util", "block_error_percentiles", "error_dump", "log_entries", "log_alternate_epoch", "log_alternate_epoch_clock_id",
		"log_compression_cpus", "log_store_compressed", "log_unix_epoch", "log_prio", "log_hist_coarseness"}
)

// optionNotes are what the notes say of options the model takes as they
// are whatever their value, after the option as given: no effect on what
// vSAN sees (only with a feature the model refuses, only on files, only in
// the guest's memory or reports), or an effect in the guest it does not
// model (fio 3.33's HOWTO and sources; measured where a note gives
// figures).
var optionNotes = notesByOption([]struct {
	keys []string
	note string
}{
	{[]string{"fadvise_hint"},
		" advises the guest's page cache (posix_fadvise), which direct I/O does not use and the model does not model: no effect on what vSAN sees"},
	{[]string{"replay_align", "replay_no_stall", "replay_redirect", "replay_scale", "replay_skip", "replay_time_scale", "read_iolog_chunked", "merge_blktrace_file", "merge_blktrace_iters", "merge_blktrace_scalars"},
		" has no effect without read_iolog (which the model refuses): fio reads it only to replay an I/O log"},
	{[]string{"max_open_zones", "job_max_open_zones", "ignore_zone_limits", "zone_reset_frequency", "zone_reset_threshold", "read_beyond_wp"},
		" has no effect without zonemode=zbd (which the model refuses): fio reads it only on a zoned device"},
	{[]string{"verify_dump", "verify_fatal", "verify_state_save", "verify_state_load", "verify_async", "verify_async_cpus", "verify_offset", "experimental_verify"},
		" changes how fio checks the data verify reads back, or keeps track of it, in the guest, not the I/O vSAN sees; the check's CPU is not modelled"},
	{[]string{"nice", "prio", "prioclass", "cgroup", "cgroup_weight", "cgroup_nodelete", "uid", "gid"},
		" sets the job's CPU or I/O priority, cgroup or user inside the worker's guest: the model shares the guest's vCPUs and queues alike among its jobs (not modelled)"},
	{[]string{"numa_cpu_nodes", "numa_mem_policy"},
		" places the job on the worker's virtual NUMA nodes, which the model does not model: its threads may run on any of the worker's vCPUs"},
	{[]string{"ioscheduler"},
		" switches the guest's I/O scheduler of the disk, whose cost per I/O the model does not tell apart: fio's and the virtual controller's per-I/O cycles are the same for every scheduler (not modelled)"},
	{[]string{"file_service_type", "openfiles"},
		" has no effect: fio chooses among a job's files, and a job on a worker's disk has one"},
	{[]string{"offset_align"},
		" rounds a percentage offset up to a multiple of it: the region starts at most that many bytes later, which the model leaves out"},
	{[]string{"exec_prerun", "exec_postrun"},
		": fio runs the command in the worker before or after the job, outside its figures; the simulator runs none"},
	{[]string{"mem", "iomem", "hugepage-size", "lockmem"},
		" chooses where fio allocates its I/O buffers in the guest's memory: no effect on what vSAN sees"},
	{[]string{"fixedbufs", "registerfiles", "nonvectored", "force_async", "userspace_reap"},
		" changes how fio submits or reaps I/O in the guest (its engine's own option), whose cost per I/O the model's fio cycles do not tell apart (not modelled)"},
	{[]string{"cmdprio_percentage", "cmdprio_class", "cmdprio", "cmdprio_bssplit"},
		" gives some of the job's I/Os another I/O priority inside the guest; the model runs them alike (not modelled)"},
	{[]string{"clocksource"},
		" chooses how fio reads the clock in the guest, whose cost the model's per-I/O fio cycles do not tell apart (not modelled)"},
	{[]string{"gpu_dev_id"},
		" has no effect: fio reads it only for GPU memory (mem=cudamalloc, the libcufile engine)"},
	{[]string{"unique_filename"},
		" has no effect: fio prefixes only the file names it makes up in a directory, and a worker's disk is named"},
	{[]string{"serialize_overlap"},
		" makes fio wait for in-flight I/Os to overlapping blocks before issuing one, which the model does not follow (on a disk far larger than the I/Os in flight it rarely waits) (not modelled)"},
	{[]string{"trim_percentage", "trim_backlog", "trim_backlog_batch", "trim_verify_zero"},
		": with verify fio trims (discards) some of the blocks it verified; TRIM is not modelled"},
	{[]string{"write_hint"},
		" passes a write-lifetime hint to the disk (fcntl F_SET_RW_HINT); what a vSAN virtual disk does with it is not modelled"},
	{[]string{"verifysort", "verifysort_nr"},
		" has no effect: fio 3.33 warns that it is deprecated and ignores it"},
})

// notesByOption gives each option of a group the group's note.
func notesByOption(groups []struct {
	keys []string
	note string
}) map[string]string {
	notes := map[string]string{}
	for _, g := range groups {
		for _, k := range g.keys {
			notes[k] = g.note
		}
	}
	return notes
}

// readJob reads a job's options.
func readJob(job *fio.Job) (jobShape, error) {
	sh := jobShape{duty: 1, randomShare: 1, latPct: 100, rateCycle: 1, compressPct: job.BufferCompressPercentage, dedupePct: job.DedupePercentage, compressChunk: 512,
		extent: extent{size: amount{bytes: float64(job.Size)}, loops: 1}}
	var err error
	if sh.fr, err = readShare(job); err != nil {
		return sh, err
	}
	if !strings.HasPrefix(baseRW(job.RW), "rand") && job.RW != "" {
		sh.randomShare = 0
	}
	if err := sh.engine(job); err != nil { // an engine that does no disk I/O is refused first
		return sh, err
	}
	if sh.sizes, err = blockSizes(job, &sh.notes); err != nil {
		return sh, err
	}
	for _, o := range job.Options {
		if err := sh.option(job, o); err != nil {
			return sh, err
		}
	}
	if flagSet(job, "bs_is_seq_rand") {
		sh.seqRandSizes()
	}
	if err := sh.clockAffinity(); err != nil {
		return sh, err
	}
	if err := sh.offsetModifier(job); err != nil {
		return sh, err
	}
	if err := sh.zones(job); err != nil {
		return sh, err
	}
	if err := sh.dedupeWorkingSet(job); err != nil {
		return sh, err
	}
	sh.repeatedBuffers(job)
	sh.timeBased = job.TimeBased
	switch {
	case flagSet(job, "norandommap") || sh.alignedApart():
		sh.order = drawnAfresh
	case rawValue(job, "random_generator") == "lfsr":
		// An LFSR visits every block once a cycle, the same cycle pass
		// after pass, time based too.
		sh.order = samePasses
	case job.TimeBased || hasRaw(job, "randrepeat") && !flagSet(job, "randrepeat"):
		sh.order = freshPasses
	default:
		sh.order = samePasses
	}
	// A typed rate_iops or rate is one value for reads and writes alike
	// (a raw one may give each its own).
	for dir := range sh.rate {
		if sh.rate[dir] == 0 && job.RateIOPS > 0 && !hasRaw(job, "rate_iops") {
			sh.rate[dir] = float64(job.RateIOPS)
		}
		if sh.rateB[dir] == 0 && job.RateBytes > 0 && !hasRaw(job, "rate") {
			sh.rateB[dir] = float64(job.RateBytes)
		}
	}
	if flagSet(job, "rate_ignore_thinktime") {
		sh.rateWhileBusy(job)
	}
	if err := sh.polled(job); err != nil {
		return sh, err
	}
	if job.TimeBased && job.RuntimeSec == 0 {
		if _, _, steady, err := steadyWindow(job); err == nil && !steady {
			return sh, fmt.Errorf("time_based without a runtime: fio would run the job until it is stopped; give runtime= (or leave time_based out to move the size once)")
		}
	}
	return sh, nil
}

// engine reads ioengine and direct: a synchronous engine keeps one I/O in
// flight per job whatever iodepth says; engines that touch no disk are
// refused.
func (sh *jobShape) engine(job *fio.Job) error {
	engine := job.IOEngine
	sh.depth = max(job.IODepth, 1)
	direct := isDirect(job)
	switch {
	case slices.Contains(noDiskEngines, engine):
		return fmt.Errorf("ioengine=%s does no I/O on the worker's disk: the simulated vSAN data plane cannot answer for it; use libaio (or io_uring) with direct=1", engine)
	case otherDeviceEngines[engine] != "":
		return fmt.Errorf("ioengine=%s %s", engine, otherDeviceEngines[engine])
	case engine == "" || slices.Contains(syncEngines, engine):
		if sh.depth > 1 {
			name := engine
			if name == "" {
				name = "not set (fio's default psync)"
			}
			sh.notes = append(sh.notes, fmt.Sprintf("ioengine %s is synchronous: iodepth=%d has no effect, one I/O per job is in flight (set ioengine=libaio to queue)", name, sh.depth))
		}
		sh.depth = 1
	case engine == "libaio" && !direct:
		if sh.depth > 1 {
			sh.notes = append(sh.notes, fmt.Sprintf("libaio with buffered I/O (direct=0) does not queue on Linux: iodepth=%d has no effect, one I/O per job is in flight", sh.depth))
		}
		sh.depth = 1
	case slices.Contains(asyncEngines, engine):
	default:
		sh.notes = append(sh.notes, fmt.Sprintf("ioengine=%s is not one the model knows: run as libaio", engine))
	}
	if !direct {
		sh.notes = append(sh.notes, "buffered I/O (direct=0): the guest's page cache is not modelled; every I/O goes to vSAN")
	}
	sh.buffers = sh.depth
	return sh.drain(job)
}

// isDirect says whether the job's I/O is direct. fio reads the job text in
// order, fio.job's own direct=1 first, and the last of direct and
// buffered (its inverse) wins; atomic opens the disk with O_DIRECT and
// fio's O_ATOMIC, which Linux ignores (filesetup.c; fio 3.33 moved 8 MiB
// of 4K randwrite with it as without).
func isDirect(job *fio.Job) bool {
	direct := job.Direct
	for _, o := range job.Options {
		switch o.Key {
		case "direct":
			direct = fio.FlagOn(o.Value)
		case "buffered":
			direct = !fio.FlagOn(o.Value)
		}
	}
	return direct || flagSet(job, "atomic")
}

// drain reads iodepth_low and iodepth_batch_complete_min together, as
// fio 3.33 reaps (backend.c, wait_for_completions): once a job's queue of
// iodepth is full, fio waits for at least iodepth_batch_complete_min
// completions (0 is 1, more than iodepth is iodepth) and goes on reaping
// that many at a time while more than iodepth_low are in flight (0, or
// more than iodepth, is iodepth: one reap), then fills the queue again.
// With completions spread evenly the queue steps down one I/O at a time
// from iodepth to where the reaping stopped and refills at once, so
// (iodepth + stop + 1) / 2 are in flight on average. Measured with fio
// 3.33 (libaio, direct=1, iodepth=16, a local file, by Little's law; the
// model's figure in brackets): 10.41 at iodepth_low=4 (10.5), 8.92 at 1
// (9), 12.4 at 8 (12.5); 14.51 at iodepth_batch_complete_min=4 (14.5),
// 12.52 at 8 (12.5), 8.46 at 16 (8.5); 12.02 at iodepth_low=8 with a
// minimum of 3 (12: reaps of 3 stop at 7). A device completing in bursts
// keeps the queue fuller (another machine measured 13.7 at a minimum of 8).
func (sh *jobShape) drain(job *fio.Job) error {
	low, err := wholeCount(job, "iodepth_low")
	if err != nil {
		return err
	}
	least, err := wholeCount(job, "iodepth_batch_complete_min")
	if err != nil {
		return err
	}
	depth := sh.depth
	if low == 0 || low > depth {
		low = depth
	}
	least = min(max(least, 1), depth)
	reaps := max(1, (depth-low+least-1)/least)
	stop := max(0, depth-reaps*least)
	mean := float64(depth+stop+1) / 2
	if stop == depth-1 {
		return nil // one completion at a time: the queue stays full
	}
	sh.depth = int(math.Round(mean))
	sh.notes = append(sh.notes, fmt.Sprintf("%s: fio lets each job's queue of %d drain to %d before filling it again (reaping %d at a time), so about %.1f I/Os are in flight on average, completions spread evenly; modelled as iodepth=%d", drainOptions(job), depth, stop, least, mean, sh.depth))
	return nil
}

// polling is what polled I/O keeps busy in a worker VM for each fio job
// (clone): threads that spin on a vCPU whether or not there is I/O to see,
// so the vCPU's hardware thread is busy the whole run.
type polling struct {
	// submitter: io_uring's sqthread_poll gives each job a guest kernel
	// thread that spins on its submission ring (the kernel's default
	// sq_thread_idle of a second, which fio leaves alone, outlasts any gap
	// between a running job's I/Os).
	submitter bool
	// pinned: sqthread_poll_cpu puts every job's submission thread on one
	// vCPU, where they share it.
	pinned bool
	// reaper: fio's own thread spins while its I/Os are in flight: with
	// sqthread_poll it reads the completion ring without entering the
	// kernel, with hipri the kernel polls in io_uring_enter.
	reaper bool
	// spaced: a rate or think time leaves the reaper without I/O in flight
	// at times, when it sleeps; the share of its time it spins comes from
	// solving the job (JobLoad.reaping). Without, it spins all the time.
	spaced bool
}

// reapShare is the share of its time each of the job's fio threads spins.
func (po polling) reapShare(jl JobLoad) float64 {
	switch {
	case !po.reaper:
		return 0
	case po.spaced:
		return jl.reaping
	}
	return 1
}

// polled reads io_uring's hipri and sqthread_poll, and pvsync2's hipri.
// Measured with fio 3.33 on Linux 6.18 (per thread, from /proc over 2 s):
// io_uring with sqthread_poll at rate_iops=200 keeps its iou-sqp thread at
// 100 % of a CPU and fio's at 2 %; in a closed loop at iodepth=4 both at
// 100 %; two jobs with sqthread_poll_cpu=0 share that CPU (53 % and 51 %).
// pvsync2's hipri costs what psync does (52.8 % and 53.4 % of a CPU, the
// same IOPS): Linux ignores RWF_HIPRI on synchronous direct I/O. A worker's
// virtual disk has no poll queues (PVSCSI, LSI Logic; the guest's NVMe
// driver opens none by default): io_uring's hipri then completes by
// interrupt while fio's thread polls (older guest kernels), or fails the
// I/O with "Operation not supported" (fio error 95 on Linux 6.18, measured
// on a local disk without poll queues); the model runs the former.
func (sh *jobShape) polled(job *fio.Job) error {
	hipri, sq := flagSet(job, "hipri"), flagSet(job, "sqthread_poll")
	engine := job.IOEngine
	if engine == "" {
		engine = "psync"
	}
	closed := sh.rate == [2]float64{} && sh.rateB == [2]float64{} && sh.think == 0
	switch {
	case engine == "io_uring":
		sh.poll = polling{submitter: sq, pinned: sq && hasRaw(job, "sqthread_poll_cpu"), reaper: hipri || sq, spaced: (hipri || sq) && !closed}
	case hasRaw(job, "sqthread_poll") || hasRaw(job, "sqthread_poll_cpu"):
		return fmt.Errorf("%s with ioengine=%s: sqthread_poll is io_uring's (fio 3.33 refuses it with any other engine, 'unrecognized option'); set ioengine=io_uring or leave it out", pollOptions(job), engine)
	case !hasRaw(job, "hipri"):
		return nil
	case engine == "pvsync2":
		if hipri {
			sh.notes = append(sh.notes, "hipri with pvsync2 has no effect: Linux ignores RWF_HIPRI on synchronous direct I/O (fio 3.33 measured: the same IOPS and CPU as without)")
		}
		return nil
	case engine == "sg":
		if hipri {
			sh.notes = append(sh.notes, "hipri with the sg engine is not modelled: fio asks the SCSI generic driver to poll for completions, which the worker's virtual SCSI disk cannot (no poll queues); the model runs it by interrupt")
		}
		return nil
	default:
		return fmt.Errorf("hipri with ioengine=%s: hipri belongs to io_uring, pvsync2 and sg (fio 3.33 refuses it with any other engine, 'unrecognized option'); set one of those or leave it out", engine)
	}
	var what []string
	if sh.poll.submitter {
		who := "a kernel thread per job spins on io_uring's submission ring, a vCPU each"
		if sh.poll.pinned {
			who = "the jobs' kernel threads spin on io_uring's submission rings, all on the vCPU sqthread_poll_cpu names"
		}
		what = append(what, who)
	}
	switch {
	case sh.poll.reaper && sq:
		what = append(what, "fio's thread spins reading the completion ring while its I/Os are in flight")
	case sh.poll.reaper:
		what = append(what, "fio's thread spins in the kernel polling for completions while its I/Os are in flight (the worker's disk has no poll queues: they still complete by interrupt on an older guest kernel; Linux 6.18 fails such I/O with 'Operation not supported', fio error 95)")
	}
	if sh.poll.spaced {
		what = append(what, "between the I/Os its rate or think time spaces out fio's thread sleeps: it spins the share of its time its I/Os are in flight, as solved")
	}
	if len(what) > 0 {
		sh.notes = append(sh.notes, fmt.Sprintf("polled I/O (%s): %s; those vCPUs are busy the whole run, their hardware threads taken from vSAN's", pollOptions(job), strings.Join(what, "; ")))
	}
	return nil
}

// pollOptions names the polling options given, as given.
func pollOptions(job *fio.Job) string {
	var given []string
	for _, k := range []string{"hipri", "sqthread_poll", "sqthread_poll_cpu"} {
		if v := rawValue(job, k); v != "" {
			given = append(given, k+"="+v)
		}
	}
	return strings.Join(given, " ")
}

// blockShare is a share of a write's 4 KiB blocks and how compressible
// they are, in percent.
type blockShare struct{ share, pct float64 }

// blocksMix is how a write's 4 KiB blocks come out compressible.
type blocksMix []blockShare

func (m blocksMix) String() string {
	parts := make([]string, len(m))
	for i, b := range m {
		parts[i] = fmt.Sprintf("%.0f %% of its blocks %.0f %% compressible", 100*b.share, b.pct)
	}
	return strings.Join(parts, ", ")
}

// blockMix is how compressible the 4 KiB blocks vSAN compresses one by
// one come out of a write of size bytes whose data is pct compressible:
// fio 3.33 (lib/rand.c, fill_random_buf_percentage) fills each chunk of
// compressChunk bytes (the write's size for 0, at most the write) with
// its random bytes first and its zeros after, so a chunk of at most 4 KiB
// spreads them over every block alike, and a larger one leaves its first
// blocks random, its last ones zeros and one between.
func (sh jobShape) blockMix(size, pct float64) blocksMix {
	chunk := sh.compressChunk
	if chunk <= 0 || chunk > size {
		chunk = size
	}
	blocks := math.Floor(chunk / efficiencyBlock)
	if chunk <= efficiencyBlock || pct <= 0 || pct >= 100 || blocks < 2 {
		return blocksMix{{1, pct}}
	}
	random := (1 - pct/100) * blocks * efficiencyBlock // the random bytes of the chunk's whole blocks
	full := math.Floor(random / efficiencyBlock)
	mix := blocksMix{{full / blocks, 0}}
	if part := random/efficiencyBlock - full; part > 0 {
		mix = append(mix, blockShare{1 / blocks, 100 * (1 - part)})
	}
	if zeros := blocks - math.Ceil(random/efficiencyBlock); zeros > 0 {
		mix = append(mix, blockShare{zeros / blocks, 100})
	}
	return slices.DeleteFunc(mix, func(b blockShare) bool { return b.share == 0 })
}

// verifying reads a writing job's verify (label names it in the notes) as
// fio 3.33 runs it: nothing more on a reader or with do_verify=0; with
// verify_backlog a read-back of each batch beside the job's own I/O
// (readsBackItsWrites); on a time-based job nothing read back; else a
// read-back pass after its I/O (sh.verify: verifyPasses).
func (sh *jobShape) verifying(job *fio.Job, label string) {
	switch {
	case sh.fr == 1:
		sh.notes = append(sh.notes, fmt.Sprintf("%s on a job that only reads: fio checks the headers a verifying write left, the same reads the model runs; the check's CPU in the guest is not modelled", label))
	case hasRaw(job, "do_verify") && !flagSet(job, "do_verify"):
		sh.notes = append(sh.notes, fmt.Sprintf("%s with do_verify=0: fio writes the verification headers (inside each block) and reads nothing back, as the model runs it", label))
	case hasRaw(job, "verify_backlog"):
		own := sh.fr
		sh.readsBackItsWrites()
		what := "the job runs as a 50/50 mix whose reads find the blocks just written"
		if own > 0 {
			what = fmt.Sprintf("the job's %.0f/%.0f mix runs as a %.0f/%.0f one, %.0f %% of its reads finding the blocks just written", 100*own, 100*(1-own), 100*sh.fr, 100*(1-sh.fr), 100*sh.readBack)
		}
		sh.notes = append(sh.notes, fmt.Sprintf("%s with verify_backlog=%s: fio reads back each batch of blocks as it writes them, besides the job's own I/O (fio 3.33: a 4K randwrite of 8 MiB reads 8 MiB and writes 8 MiB; a 70/30 randrw of 8 MiB reads 1,426 blocks of its own and its 622 writes back), so %s (on OSA in the write buffers); the job's size counts its own I/O only", label, rawValue(job, "verify_backlog"), what))
	case job.TimeBased && job.RuntimeSec > 0:
		sh.notes = append(sh.notes, fmt.Sprintf("%s on a time-based job: fio never reads back, its I/O taking the whole runtime, and the model runs the job as it is (fio 3.33: \"verification read phase will never start because write phase uses all of runtime\"; a 16 MiB randwrite at 16 MiB/s wrote 80 MiB in 5 s and read nothing; a randrw moved what it moves with verify=0)", label))
	default:
		// A run of jobs reads back after each such job's I/O
		// (verifyPasses, which drops the option); a run stepped
		// through events keeps the note.
		sh.verify = true
		sh.notes = append(sh.notes, fmt.Sprintf("%s is not modelled in a run stepped through events: after its I/O fio reads back and checks the blocks it wrote (modelled in runs without events); the simulator reports the job's own I/O", label))
	}
}

// readsBackItsWrites makes a writing job the mix verify_backlog makes of
// it: fio reads back each block the job writes soon after writing it, so
// for each I/O of its own the job reads once (its own read, or a write's
// read-back: readBack of its reads are read-backs, at the writes' sizes),
// and its size counts its own I/O only. Measured (fio 3.33, 8 MiB, 4K,
// verify_backlog=16): a randwrite reads and writes 8 MiB; a 70/30 randrw
// makes 1,426 reads and 622 writes of its own and reads the 622 back
// (2,048 reads, 622 writes); a 30/70 one 590 and 1,458, then 1,458 back.
func (sh *jobShape) readsBackItsWrites() {
	own := sh.fr
	sh.readBack, sh.ownReads = 1-own, sh.sizes[read]
	written := (1 - own) * meanSize(sh.sizes[write])
	sh.readBackBytes = written / (own*meanSize(sh.ownReads) + written)
	sh.sizes[read] = blend(sh.ownReads, own, sh.sizes[write])
	sh.fr = 1 / (2 - own)
}

// rateWhileBusy reads rate_ignore_thinktime: fio then holds the job's
// rate only while it does I/O, where it otherwise catches up after each
// think time (fio 3.33, randread at rate_iops=1000 with thinktime=100ms
// every 500 blocks: 835 I/Os a second, 968 without; with
// thinktime_iotime=200ms 703, 1,000 without). Each cycle the job does its
// thinktime_blocks at its rates (or thinktime_iotime of I/O), then
// thinks: its rates scale by the share of the cycle it does I/O. Where a
// direction it does runs free the cycle's length is the solve's, which
// the model does not follow: noted.
func (sh *jobShape) rateWhileBusy(job *fio.Job) {
	think, err := parseMicros(rawValue(job, "thinktime"))
	if err != nil || think <= 0 {
		sh.notes = append(sh.notes, "rate_ignore_thinktime has no effect without thinktime")
		return
	}
	perSecond := 0.0 // the job's I/Os a second at its rates
	for dir, share := range [2]float64{sh.fr, 1 - sh.fr} {
		switch {
		case share == 0:
		case sh.rate[dir] > 0:
			perSecond += sh.rate[dir]
		case sh.rateB[dir] > 0:
			perSecond += sh.rateB[dir] / meanSize(sh.sizes[dir])
		default:
			sh.notes = append(sh.notes, "rate_ignore_thinktime with a direction that has no rate is not modelled: the rates hold over the think times, as without it")
			return
		}
	}
	busy := 1 / perSecond // thinktime_blocks' default, 1
	if v := rawValue(job, "thinktime_blocks"); v != "" {
		blocks, _ := strconv.ParseFloat(v, 64) // checked with thinktime
		busy = blocks / perSecond
	}
	if v := rawValue(job, "thinktime_iotime"); v != "" {
		busy, _ = fio.ParseTime(v, 1) // checked with thinktime
	}
	share := busy / (busy + think)
	for dir := range sh.rate {
		sh.rate[dir] *= share
		sh.rateB[dir] *= share
	}
	sh.notes = append(sh.notes, fmt.Sprintf("rate_ignore_thinktime: fio holds the rates only while the job does I/O (%.3g s of each %.3g s cycle), so they come to %.0f %% of what is given over time", busy, busy+think, 100*share))
}

// blend is I/Os a share w of which come at sizes a and the rest at sizes
// b, each size once.
func blend(a []sizeShare, w float64, b []sizeShare) []sizeShare {
	var out []sizeShare
	add := func(size int64, share float64) {
		if i := slices.IndexFunc(out, func(s sizeShare) bool { return s.size == size }); i >= 0 {
			out[i].share += share
		} else if share > 0 {
			out = append(out, sizeShare{size, share})
		}
	}
	for _, s := range a {
		add(s.size, s.share*w)
	}
	for _, s := range b {
		add(s.size, s.share*(1-w))
	}
	return out
}

// seqRandSizes reads bs_is_seq_rand: fio 3.33 (io_u.c, get_next_buflen)
// then takes a sequential I/O's size from the first (read) entry of bs,
// bsrange or bssplit and a random one's from the second (write), reads
// and writes alike. verify_backlog's read-backs follow the writes.
func (sh *jobShape) seqRandSizes() {
	backlog := sh.readBack > 0
	if backlog {
		*sh = sh.ownIO()
	}
	mix := blend(sh.sizes[read], 1-sh.randomShare, sh.sizes[write])
	sh.sizes = [2][]sizeShare{mix, mix}
	if backlog {
		sh.readsBackItsWrites()
	}
	sh.notes = append(sh.notes, fmt.Sprintf("bs_is_seq_rand: fio takes a sequential I/O's size from bs's first entry and a random one's from its second, reads and writes alike: %s", sizesText(mix)))
}

// ownIO is the shape of the job's own I/O, without verify_backlog's
// read-backs: what draws its offsets.
func (sh jobShape) ownIO() jobShape {
	if sh.readBack > 0 {
		sh.fr, sh.sizes[read], sh.readBack, sh.ownReads, sh.readBackBytes = 1-sh.readBack, sh.ownReads, 0, nil, 0
	}
	return sh
}

// wholeCount reads a count option of fio's, 0 where it is not given.
func wholeCount(job *fio.Job, key string) (int, error) {
	v := rawValue(job, key)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%s: want a whole number of I/Os, at most iodepth", key, v)
	}
	return n, nil
}

// drainOptions names the options that drain a job's queue, as given.
func drainOptions(job *fio.Job) string {
	var given []string
	for _, k := range []string{"iodepth_low", "iodepth_batch_complete_min"} {
		if v := rawValue(job, k); v != "" {
			given = append(given, k+"="+v)
		}
	}
	return strings.Join(given, " ")
}

// option reads one raw option.
func (sh *jobShape) option(job *fio.Job, given fio.Option) error {
	// fio's other names of an option (fileoffset, blockalign ...) read as
	// its name; a note names it as given.
	o := fio.Option{Key: fio.Canonical(given.Key), Value: given.Value}
	bad := func(want string) error { return fmt.Errorf("%s=%s: want %s", o.Key, o.Value, want) }
	if ok, note, err := sh.extent.option(o); ok {
		if note != "" {
			sh.notes = append(sh.notes, note)
		}
		return err
	}
	switch o.Key {
	case "thinktime":
		t, err := parseMicros(o.Value)
		if err != nil {
			return bad("a time, like 100 (microseconds), 100us or 2ms")
		}
		blocks := 1.0
		iotime := rawValue(job, "thinktime_iotime")
		if v := rawValue(job, "thinktime_blocks"); v != "" {
			if blocks, err = strconv.ParseFloat(v, 64); err != nil || blocks < 1 {
				return fmt.Errorf("thinktime_blocks=%s: want a whole number of at least 1", v)
			}
		} else if iotime != "" {
			// With thinktime_iotime and no thinktime_blocks fio stalls by
			// time only: the queue keeps its depth (measured with fio 3.33).
			blocks = float64(sh.depth)
		}
		// fio waits thinktime after every thinktime_blocks completions,
		// which caps the queue at thinktime_blocks.
		sh.depth = min(sh.depth, int(blocks))
		sh.think = t * float64(sh.depth) / blocks
		if v := rawValue(job, "thinktime_spin"); v != "" {
			spin, err := parseMicros(v)
			if err != nil {
				return fmt.Errorf("thinktime_spin=%s: want a time", v)
			}
			sh.spin = math.Min(spin, t) / blocks
		}
		if iotime != "" {
			io, err := fio.ParseTime(iotime, 1) // fio reads a bare thinktime_iotime in seconds
			if err != nil || io <= 0 {
				return fmt.Errorf("thinktime_iotime=%s: want a time above 0, like 9 (seconds), 9s or 500ms", iotime)
			}
			// Stall thinktime after every thinktime_iotime of I/O: a duty cycle.
			sh.duty, sh.think, sh.spin = io/(io+t), 0, 0
		}
	case "steadystate":
		ramp, dur, ok, err := steadyWindow(job)
		switch {
		case err != nil:
			return err
		case !ok:
			sh.notes = append(sh.notes, fmt.Sprintf("steadystate=%s without steadystate_duration (ss_dur): fio does not judge it, and the job runs its whole length", o.Value))
		default:
			sh.notes = append(sh.notes, fmt.Sprintf("steadystate=%s: the model's regime is steady from the start, so fio's criterion holds as soon as it is judged: the job stops after ss_ramp + ss_dur = %.0f s unless its runtime or size ends it first (on OSA, writes still filling the write buffers would keep fio judging longer)", o.Value, ramp+dur))
		}
	case "rate_iops", "rate", "rate_iops_min", "rate_min":
		values := strings.Split(o.Value, ",")
		if len(values) == 1 { // one value caps reads and writes alike, as in fio
			values = append(values, values[0])
		}
		for dir, v := range values {
			if dir > 1 || strings.TrimSpace(v) == "" {
				continue // trims, or a direction left unlimited
			}
			n, err := fio.ParseSize(v)
			if err != nil {
				return bad("a rate per direction, like 500 or 500,200")
			}
			switch o.Key {
			case "rate_iops":
				sh.rate[dir] = float64(n)
			case "rate":
				sh.rateB[dir] = float64(n)
			case "rate_iops_min":
				sh.minRate[dir] = float64(n)
			default:
				sh.minRateB[dir] = float64(n)
			}
		}
	case "rate_cycle":
		ms, err := strconv.Atoi(o.Value)
		if err != nil || ms < 1 {
			return bad("a whole number of milliseconds, like 1000")
		}
		sh.rateCycle = float64(ms) / 1000
	case "verify":
		if o.Value != "0" && o.Value != "null" {
			sh.verifying(job, "verify="+o.Value)
		}
	case "verify_pattern":
		// fio 3.33 fills every write with the pattern (a 4 KiB block of it
		// with a verify header leaves 44 to 76 bytes to lz4, whatever
		// buffer_compress_percentage says) and, where verify is not
		// given, verifies: a 4 MiB write with verify_pattern alone reads
		// its 4 MiB back.
		if sh.fr < 1 {
			sh.compressPct = 100
		}
		if !hasRaw(job, "verify") {
			sh.verifying(job, optionText(given)+" (which turns verify on)")
		}
	case "verify_interval":
		n, err := fio.ParseSize(o.Value)
		if err != nil || n < 2*verifyHeaderBytes {
			return bad(fmt.Sprintf("a size of at least %d bytes (fio 3.33's least: twice its verify header)", 2*verifyHeaderBytes))
		}
		sh.notes = append(sh.notes, verifyIntervalNote(job, optionText(given)))
	case "iodepth_low", "iodepth_batch_complete_min": // read by drain
	case "flow", "flow_id": // read by settleFlow
	case "flow_sleep", "flow_watermark":
		// How long a job ahead of its flow waits changes how closely fio
		// keeps the ratio, not the ratio; fio ignores flow_watermark.
	case "exit_what": // read by exitAllStops
		if !slices.Contains([]string{"group", "stonewall", "all"}, o.Value) {
			return bad("group, stonewall or all")
		}
	case "startdelay":
		lo, hi, ranged := cutRange(o.Value)
		a, err := fio.ParseTime(lo, 1)
		b := a
		if err == nil && ranged {
			b, err = fio.ParseTime(hi, 1)
		}
		if err != nil || b < a { // high to low, fio 3.33 hangs (measured: startdelay=2-1)
			return bad("a delay, like 30 (seconds), 500ms or 2m, or a range like 10-20")
		}
		sh.startDelay = (a + b) / 2
		if ranged {
			sh.notes = append(sh.notes, fmt.Sprintf("startdelay=%s: fio draws each clone's delay from the range; the model starts the job at its mean, %.4g s", o.Value, sh.startDelay))
		}
	case "rate_process":
		if o.Value == "poisson" {
			sh.notes = append(sh.notes, "rate_process=poisson: the model holds the rate steady; Poisson arrivals would add queueing at the same mean rate")
		}
	case "latency_target":
		t, err := parseMicros(o.Value)
		if err != nil || t <= 0 {
			return bad("a time above 0, like 500 (microseconds) or 2ms")
		}
		sh.latTarget = t
	case "max_latency":
		for _, dv := range perDirection(o.Value) {
			t, err := parseMicros(dv.value)
			if err != nil || t <= 0 {
				return bad("a time above 0 per direction, like 10ms or 5ms,20ms")
			}
			sh.maxLat[dv.dir] = t
		}
	case "latency_percentile":
		p, err := strconv.ParseFloat(o.Value, 64)
		if err != nil || p <= 0 || p > 100 {
			return bad("a percentage above 0 and at most 100")
		}
		sh.latPct = p
	case "percentage_random":
		first := strings.Split(o.Value, ",")[0]
		p, err := strconv.ParseFloat(first, 64)
		if err != nil || p < 0 || p > 100 {
			return bad("a percentage from 0 to 100")
		}
		switch {
		case !strings.HasPrefix(baseRW(job.RW), "rand"):
			sh.notes = append(sh.notes, fmt.Sprintf("percentage_random=%s on a sequential job: fio applies it to random workloads only, so the job stays sequential", o.Value))
		default:
			sh.randomShare = p / 100
			if p > 0 && p < 100 || strings.Contains(o.Value, ",") {
				sh.notes = append(sh.notes, fmt.Sprintf("percentage_random=%s: vSAN's costs do not depend on the order of offsets, only which blocks end up written", o.Value))
			}
		}
	case "random_distribution":
		sk, err := parseSkew(o.Value)
		if err != nil {
			return fmt.Errorf("%s=%s: %v", o.Key, o.Value, err)
		}
		switch {
		case sk.uniform():
		case !strings.HasPrefix(baseRW(job.RW), "rand"):
			sh.notes = append(sh.notes, fmt.Sprintf("random_distribution=%s on a sequential job: fio draws it for random offsets only, so the job stays sequential", o.Value))
		default:
			sh.skew = sk
			sh.notes = append(sh.notes, fmt.Sprintf("random_distribution=%s: fio turns its random map off, so hot blocks come back before cold ones are reached; the blocks written, what the reads find written and, on OSA, what the write buffer holds and destages follow the distribution; vSAN's cost per I/O does not depend on which block (no read cache)", o.Value))
		}
	case "zero_buffers":
		if o.Value == "" || o.Value == "1" {
			sh.compressPct = 100
		}
	case "buffer_pattern":
		// fio fills the buffers with the pattern, or with it the part
		// buffer_compress_percentage makes compressible: a repeated
		// pattern compresses as zeros do.
		switch {
		case strings.HasPrefix(o.Value, "'"):
			sh.notes = append(sh.notes, fmt.Sprintf("buffer_pattern=%s: the file's data is not known, so it is taken as incompressible", o.Value))
		case job.BufferCompressPercentage == 0 && !hasRaw(job, "buffer_compress_percentage"):
			sh.compressPct = 100
		}
	case "time_based":
		if fio.FlagOn(o.Value) || job.TimeBased { // off is the job as read
			sh.ignored(o)
		}
	case "ba":
		return sh.blockAlign(given)
	case "read_iolog", "create_only", "verify_only", "opendir", "profile":
		if (o.Key == "create_only" || o.Key == "verify_only") && !fio.FlagOn(o.Value) {
			break
		}
		return fmt.Errorf("%s: %s", optionText(given), replacedWorkloads[o.Key])
	case "dedupe_global":
		// Read by settleDedupe; it changes only a working set's draws.
		if fio.FlagOn(o.Value) && rawValue(job, "dedupe_mode") != "working_set" {
			sh.notes = append(sh.notes, fmt.Sprintf("%s has no effect without dedupe_mode=working_set: fio shares only a working set's blocks among jobs", optionText(given)))
		}
	case "threads":
		// Registered by fio's tiobench profile, which stores it for
		// itself: a job run without --profile=tiobench ignores it.
		sh.notes = append(sh.notes, fmt.Sprintf("%s has no effect on a job: it is an option of fio's tiobench profile (threads, not thread)", optionText(given)))
	case "nrfiles":
		if o.Value != "1" { // fio's default
			sh.ignored(given)
		}
	case "file_append", "fallocate", "overwrite", "unlink", "unlink_each_loop":
		// On a block device fio 3.33 makes no fallocate, ftruncate or
		// unlink call and moves the same bytes (strace on a loop device).
		if o.Value != "0" && o.Value != "false" && o.Value != "none" {
			sh.notes = append(sh.notes, fmt.Sprintf("%s has no effect on the workers' disks: fio ignores it on anything but a regular file", optionText(given)))
		}
	case "pre_read":
		if fio.FlagOn(o.Value) {
			return fmt.Errorf("%s: with direct=1 fio 3.33 fails the job on a block device (err=5 in pre_read, Input/output error; measured on a loop device), and with direct=0 it reads the region into the guest's page cache first, so the job's reads never reach vSAN, which the model cannot answer for; leave it out", optionText(given))
		}
	case "atomic":
		if fio.FlagOn(o.Value) {
			sh.notes = append(sh.notes, fmt.Sprintf("%s: fio opens the disk with O_DIRECT and its O_ATOMIC flag, which Linux ignores (fio 3.33 moved the same bytes as without): run as direct I/O", optionText(given)))
		}
	case "lockfile":
		if o.Value != "none" {
			sh.notes = append(sh.notes, fmt.Sprintf("%s makes the clones of a job (numjobs) that share a disk take turns at the file lock around each I/O, which the model does not follow: each runs its own queue (not modelled)", optionText(given)))
		}
	case "mem_align", "iomem_align":
		n, err := fio.ParseSize(o.Value)
		if err != nil || n < 0 {
			return bad("a size, like 4k")
		}
		if n%512 != 0 && isDirect(job) {
			return fmt.Errorf("%s with direct=1: fio 3.33 fails the job on a buffer off the 512-byte sector (error 22, Invalid argument; measured with mem_align=1); give a multiple of 512", optionText(given))
		}
		sh.notes = append(sh.notes, fmt.Sprintf("%s aligns fio's I/O buffers in the guest's memory: no effect on what vSAN sees", optionText(given)))
	case "io_submit_mode":
		switch {
		case o.Value == "inline":
		case o.Value != "offload":
			return bad("inline or offload")
		case !job.TimeBased:
			return fmt.Errorf("%s on a size-based job: fio 3.33 did not finish one here (8 MiB of 4K randwrite, psync and libaio); run it time based, or leave the option out", optionText(given))
		default:
			sh.notes = append(sh.notes, fmt.Sprintf("%s: fio submits through a pool of threads, which costs the guest more per I/O than the model's fio cycles (fio 3.33 on a local file, psync: 13,717 I/Os a second against 22,795 inline, 57 us against 44) (not modelled)", optionText(given)))
		}
	case "hipri", "sqthread_poll", "sqthread_poll_cpu": // read by polled
	case "buffer_compress_chunk":
		n, err := fio.ParseSize(o.Value)
		if err != nil || n < 0 {
			return bad("a size, like 512 or 4k (0 for the block size)")
		}
		sh.compressChunk = float64(n)
		largest := sh.largestWrite()
		if n == 0 {
			n = int64(largest)
		}
		if pct := job.BufferCompressPercentage; pct > 0 && pct < 100 && n > efficiencyBlock && largest > efficiencyBlock {
			mix := sh.blockMix(largest, float64(pct))
			sh.notes = append(sh.notes, fmt.Sprintf("buffer_compress_chunk=%s: fio fills each %.0f-byte chunk of a write with its random bytes first and its zeros after, so vSAN's 4 KiB blocks come out random, zeros or between (a %.0f-byte write's: %s): each is compressed as it is (LZ4 on fio 3.33's data: at 50 %% with 64 KiB chunks half the blocks of a 64 KiB write fit 2 KiB, none with the default 512 bytes)", o.Value, math.Min(float64(n), largest), largest, mix))
		}
	case "dedupe_mode":
		if o.Value != "repeat" && o.Value != "working_set" {
			return bad("repeat or working_set")
		}
	case "dedupe_working_set_percentage":
		if n, err := strconv.Atoi(o.Value); err != nil || n < 0 || n > 100 {
			return bad("a percentage from 0 to 100")
		}
	case "zonemode", "zonesize", "zonerange", "zoneskip", "zonecapacity": // read together by zones
	case "rw_sequencer": // read with rw's offset modifier
		if o.Value != "sequential" && o.Value != "identical" {
			return bad("sequential or identical")
		}
	case "fsync", "fdatasync", "sync_file_range", "sync", "end_fsync", "fsync_on_close", "write_barrier":
		return sh.flushes(job, o)
	case "cpus_allowed", "cpumask":
		set, err := cpuSet(o)
		if err != nil {
			return err
		}
		sh.cpus, sh.cpusGiven = set, optionText(given)
	case "gtod_cpu":
		cpu, err := strconv.Atoi(o.Value)
		if err != nil || cpu < 0 || cpu >= maxCPUs {
			return bad(fmt.Sprintf("the guest CPU (0 to %d) fio's clock thread spins on", maxCPUs-1))
		}
		sh.clock = clockThread{given: true, cpu: cpu}
	case "cpus_allowed_policy":
		if o.Value != "shared" && o.Value != "split" {
			return bad("shared or split")
		}
	case "bs_is_seq_rand": // read by seqRandSizes
	case "rate_ignore_thinktime": // read by rateWhileBusy
	case "percentage_sequential", "rwmixcycle":
		return fio.CheckOptionName(o.Key) // deprecated: fio fails parsing them
	case "stats":
		if o.Value == "0" || o.Value == "false" {
			return fmt.Errorf("%s: fio collects no statistics for the job and reports it as having done no I/O (fio 3.33: io_bytes 0, iops 0), so there is nothing to compare a simulated figure with; leave it out", optionText(given))
		}
	default:
		if note, ok := optionNotes[o.Key]; ok {
			sh.notes = append(sh.notes, optionText(given)+note)
		} else if !slices.Contains(quietOptions, o.Key) {
			sh.ignored(given)
		}
	}
	return nil
}

// verifyHeaderBytes is the size of fio 3.33's struct verify_header
// (verify.h), which a verifying write puts at each verify interval.
const verifyHeaderBytes = 40

// verifyIntervalNote says what verify_interval (label) changes: where
// fio 3.33 puts a header in each write (the checksum of the interval
// after it), which changes nothing vSAN sees in random data; in
// verify_pattern's data each header but the first is bytes LZ4 cannot
// shrink, which the model leaves out.
func verifyIntervalNote(job *fio.Job, label string) string {
	switch {
	case patternOnly(job):
		return label + " has no effect: verify=pattern writes no header"
	case !hasRaw(job, "verify_pattern") && slices.Contains([]string{"", "0", "null"}, rawValue(job, "verify")):
		return label + " has no effect: the job does not verify"
	case !hasRaw(job, "verify_pattern"):
		return label + ": fio writes a verify header every interval of each write; the data is random, so vSAN's compression and deduplication find in it what they would without (the check's CPU in the guest is not modelled)"
	}
	return label + ": fio writes a verify header every interval of each write; in verify_pattern's data each header after a block's first leaves LZ4 about 15 bytes (fio 3.33 and lz4 -1 on 4 KiB blocks: 140 to 205 bytes at 512, 228 to 341 at 256, 450 to 563 at 128, against 57 to 83 with one header); the model compresses the blocks as with one header, so at 128 bytes, where a block comes near or beyond one 512-byte sector, ESA may store some blocks in two sectors where the model stores one (OSA keeps each in 2 KiB either way)"
}

// ignored notes an option the model does not model.
func (sh *jobShape) ignored(o fio.Option) {
	sh.notes = append(sh.notes, fmt.Sprintf("fio option %s is not modelled: ignored", optionText(o)))
}

// optionText is an option as a job file writes it.
func optionText(o fio.Option) string {
	if o.Value == "" {
		return o.Key
	}
	return o.Key + "=" + o.Value
}

// steadyWindow reads fio's steady-state options: ss_ramp and ss_dur in
// seconds, and whether a criterion is set with a window to judge it in.
func steadyWindow(job *fio.Job) (ramp, dur float64, ok bool, err error) {
	if v, _ := job.Raw("steadystate"); v == "" {
		return 0, 0, false, nil
	}
	read := func(key string) (float64, error) {
		v, _ := job.Raw(key)
		if v == "" {
			return 0, nil
		}
		n, err := fio.ParseSeconds(v)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%s=%s: want a duration such as 30s", key, v)
		}
		return float64(n), nil
	}
	if ramp, err = read("steadystate_ramp_time"); err != nil {
		return 0, 0, false, err
	}
	if dur, err = read("steadystate_duration"); err != nil {
		return 0, 0, false, err
	}
	return ramp, dur, dur > 0, nil
}

// rawValue is a raw option's value ("" when absent; flags read as "1").
func rawValue(job *fio.Job, key string) string {
	for _, o := range slices.Backward(job.Options) {
		if fio.Canonical(o.Key) == fio.Canonical(key) {
			if o.Value == "" {
				return "1"
			}
			return o.Value
		}
	}
	return ""
}

// flagSet says whether a raw flag option is given and on, as fio reads it.
func flagSet(job *fio.Job, key string) bool {
	v := rawValue(job, key)
	return v != "" && fio.FlagOn(v)
}

func hasRaw(job *fio.Job, key string) bool {
	return slices.ContainsFunc(job.Options, func(o fio.Option) bool { return fio.Canonical(o.Key) == fio.Canonical(key) })
}

// parseMicros reads a fio time given in microseconds by default: "100",
// "100us", "2ms", "1s"; the result is in seconds.
func parseMicros(s string) (float64, error) { return fio.ParseTime(s, 1e-6) }

// cutRange splits a fio range, low and high joined by '-' or ':' (parse.c:
// bsrange=4k:64k is 4k-64k; filesize and startdelay take either too).
func cutRange(v string) (lo, hi string, ok bool) {
	if lo, hi, ok = strings.Cut(v, "-"); ok {
		return lo, hi, ok
	}
	return strings.Cut(v, ":")
}

// baseRW is rw without fio's ":<offset modifier>" suffix.
func baseRW(rw string) string {
	base, _, _ := strings.Cut(rw, ":")
	return base
}

// readShare is the share of I/Os that are reads.
func readShare(job *fio.Job) (float64, error) {
	switch baseRW(job.RW) {
	case "read", "randread":
		return 1, nil
	case "write", "randwrite":
		return 0, nil
	case "rw", "readwrite", "randrw":
		mix := job.RWMixRead
		if mix == 0 {
			mix = 50 // fio's default
			// rwmixread=0 (no reads) and rwmixwrite have no typed field;
			// fio reads them as raw options, so the model does too.
			for _, o := range job.Options {
				v, err := strconv.Atoi(o.Value)
				switch {
				case err != nil:
				case o.Key == "rwmixread":
					mix = v
				case o.Key == "rwmixwrite":
					mix = 100 - v
				}
			}
		}
		if mix < 0 || mix > 100 {
			return 0, fmt.Errorf("rwmixread %d: want a percentage from 0 to 100", job.RWMixRead)
		}
		return float64(mix) / 100, nil
	case "":
		return 1, nil // fio's default is read
	}
	return 0, fmt.Errorf("rw %q: the model runs read, write, randread, randwrite, rw and randrw", job.RW)
}

// blockSizes turns bs (one size, or one per direction as "4k,64k"), a
// bsrange (rangeSizes, noted) or bssplit (one split, or one per
// direction) into shares of I/Os per direction: fio.job's typed bs or
// bssplit first, then the raw options in order, the last one for a
// direction winning as in fio.
func blockSizes(job *fio.Job, notes *[]string) ([2][]sizeShare, error) {
	out := [2][]sizeShare{{{4096, 1}}, {{4096, 1}}} // fio's default
	unaligned := flagSet(job, "bs_unaligned")
	if unaligned && job.Direct {
		return out, fmt.Errorf("bs_unaligned with direct=1: fio 3.33's first I/O of a size that is not a multiple of the sector fails (error 22, Invalid argument; fio says 'bs_unaligned may not work with raw io'); leave bs_unaligned out or use direct=0")
	}
	switch {
	case len(job.BSSplit) > 0:
		total := 0
		for _, s := range job.BSSplit {
			if s.Size < 512 || s.Percent < 0 {
				return out, fmt.Errorf("bssplit %d/%d: want sizes of at least 512 bytes and percentages of at least 0", s.Size, s.Percent)
			}
			total += s.Percent
		}
		if total <= 0 {
			return out, fmt.Errorf("bssplit percentages add up to %d: want 100", total)
		}
		var mix []sizeShare
		for _, s := range job.BSSplit {
			mix = append(mix, sizeShare{s.Size, float64(s.Percent) / float64(total)})
		}
		out = [2][]sizeShare{mix, mix}
	case job.BlockSize > 0:
		out = [2][]sizeShare{{{job.BlockSize, 1}}, {{job.BlockSize, 1}}}
	}
	for _, o := range job.Options {
		for _, dv := range perDirection(o.Value) {
			dir, v := dv.dir, dv.value
			var err error
			switch fio.Canonical(o.Key) {
			case "bs":
				var n int64
				if n, err = fio.ParseSize(v); err != nil {
					return out, fmt.Errorf("%s=%s: want a block size per direction, like 4k or 4k,64k", o.Key, o.Value)
				}
				out[dir] = []sizeShare{{n, 1}}
			case "bsrange":
				lo, hi, ok := cutRange(v)
				a, err1 := fio.ParseSize(lo)
				b, err2 := fio.ParseSize(hi)
				if !ok || err1 != nil || err2 != nil {
					return out, fmt.Errorf("%s=%s: want a range like 4k-64k", o.Key, o.Value)
				}
				a, b = min(a, b), max(a, b) // fio swaps them
				sizes, mean := rangeSizes(a, b, unaligned)
				if out[dir] = sizes; a < b && (dir == read || strings.Contains(o.Value, ",")) { // a range of one size needs no note
					what := fmt.Sprintf("every multiple of %d bytes from %d to %d alike", a, a, b)
					if unaligned {
						what = fmt.Sprintf("any size from %d to %d bytes alike (bs_unaligned), %d itself %.0f %% of the time", a, b, b, 100*float64(a)/float64(b))
					}
					*notes = append(*notes, fmt.Sprintf("%s=%s: fio draws %s, a mean of %.0f bytes per I/O", o.Key, v, what, mean))
				}
			case "bssplit":
				if out[dir], err = parseSplit(v); err != nil {
					return out, fmt.Errorf("%s=%s: %v", o.Key, o.Value, err)
				}
			}
		}
	}
	for dir := range out {
		for _, s := range out[dir] {
			if s.size < 512 {
				return out, fmt.Errorf("block size %d bytes: want at least 512", s.size)
			}
		}
	}
	return out, nil
}

// rangeSizes is a bsrange of min to max bytes as fio 3.33 draws it
// (io_u.c get_next_buflen): min + max x u, u uniform on [0, 1), cut down
// to a multiple of min and capped at max, so every multiple of min up to
// max comes alike; unaligned (bs_unaligned), not cut down: any size from
// min to max alike, and max itself min/max of the time. More than 64
// sizes are kept as 64 groups of neighbours, each at its mean. mean is
// the sizes' mean.
func rangeSizes(min, max int64, unaligned bool) (sizes []sizeShare, mean float64) {
	if min >= max {
		return []sizeShare{{max, 1}}, float64(max)
	}
	lo, hi := float64(min), float64(max)
	if unaligned {
		const parts = 63
		width := (hi - lo) / parts
		for i := range parts {
			size := lo + (float64(i)+0.5)*width
			sizes = append(sizes, sizeShare{int64(math.Round(size)), width / hi})
			mean += width / hi * size
		}
		sizes = append(sizes, sizeShare{max, lo / hi})
		return sizes, mean + lo
	}
	for k := int64(1); k*min < min+max; k++ {
		size := k * min
		from, to := math.Max(float64(size), lo), math.Min(float64(size+min), lo+hi)
		share := (to - from) / hi
		if size > max {
			size = max
		}
		if n := len(sizes); n > 0 && sizes[n-1].size == size {
			sizes[n-1].share += share
		} else {
			sizes = append(sizes, sizeShare{size, share})
		}
		mean += share * float64(size)
	}
	const most = 64
	if len(sizes) <= most {
		return sizes, mean
	}
	grouped := make([]sizeShare, 0, most)
	for g := range most {
		part := sizes[g*len(sizes)/most : (g+1)*len(sizes)/most]
		share, bytes := 0.0, 0.0
		for _, s := range part {
			share += s.share
			bytes += s.share * float64(s.size)
		}
		grouped = append(grouped, sizeShare{int64(math.Round(bytes / share)), share})
	}
	return grouped, mean
}

// perDirection is a value given once for reads and writes alike, or as
// "read,write" (either left empty: that direction as it was; a third, for
// trims, ignored): the value for each direction it sets, reads first.
func perDirection(v string) []dirValue {
	parts := strings.Split(v, ",")
	if len(parts) == 1 {
		return []dirValue{{read, v}, {write, v}}
	}
	var dirs []dirValue
	for dir, p := range parts[:min(len(parts), 2)] {
		if strings.TrimSpace(p) != "" {
			dirs = append(dirs, dirValue{dir, p})
		}
	}
	return dirs
}

// dirValue is an option's value for one direction.
type dirValue struct {
	dir   int
	value string
}

// parseSplit reads one direction of fio's bssplit: size/percent entries
// joined by ':', an entry without a percent taking an equal part of what
// the others leave.
func parseSplit(v string) ([]sizeShare, error) {
	var out []sizeShare
	total, blank := 0.0, 0
	for _, entry := range strings.Split(v, ":") {
		size, pct, _ := strings.Cut(entry, "/")
		n, err := fio.ParseSize(size)
		if err != nil || n < 512 {
			return nil, fmt.Errorf("entry %q: want size/percent with a size of at least 512 bytes, like 4k/50", entry)
		}
		share := -1.0 // blank: a part of the rest
		if strings.TrimSpace(pct) != "" {
			if share, err = strconv.ParseFloat(pct, 64); err != nil || share < 0 || share > 100 {
				return nil, fmt.Errorf("entry %q: want a percentage from 0 to 100", entry)
			}
			total += share
		} else {
			blank++
		}
		out = append(out, sizeShare{n, share})
	}
	switch {
	case total > 100+1e-9:
		return nil, fmt.Errorf("the percentages add up to %g: want 100", total)
	case blank == 0 && math.Abs(total-100) > 1e-9:
		return nil, fmt.Errorf("the percentages add up to %g: want 100 (or leave one blank for the rest)", total)
	}
	for i := range out {
		if out[i].share < 0 {
			out[i].share = (100 - total) / float64(blank)
		}
		out[i].share /= 100
	}
	return out, nil
}

// sizesText says a mix of I/O sizes: "4096 bytes", or "70 % of the I/Os
// 4096 bytes, 30 % 65536".
func sizesText(sizes []sizeShare) string {
	if len(sizes) == 1 {
		return fmt.Sprintf("%d bytes", sizes[0].size)
	}
	parts := make([]string, len(sizes))
	for i, s := range sizes {
		parts[i] = fmt.Sprintf("%.0f %% %d", 100*s.share, s.size)
	}
	return strings.Replace(strings.Join(parts, ", "), " %", " % of the I/Os", 1) + " bytes"
}
