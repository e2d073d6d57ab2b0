package builtins

import "starbench/internal/runtime"

// The docs of value types whose Attr is written out by hand beside their
// module; TestValueTypesAreDocumented keeps each table equal to the
// value's AttrNames.

// workerDoc documents worker values (worker_value.go).
var workerDoc = &runtime.Type{
	Name: "worker",
	Doc:  "one worker: a VM from vsphere.deploy_workers or a local fio server from fio.local_workers",
	Members: []runtime.Member{
		attr("addr", "the address fio's client reaches the worker's fio server at (host:port)"),
		attr("disks", "the worker's data disks: a list of dicts with name, path, size (bytes) and policy"),
		attr("host", "the ESXi host the worker runs on (\"\" for a local worker)"),
		attr("name", "the worker's name"),
		attr("vm", "the VM's managed object reference (\"vm-42\"); \"\" for a local worker"),
	},
}

// jobDoc documents fio.job values (fio.go).
var jobDoc = &runtime.Type{
	Name: "fio.job",
	Doc:  "one fio job (fio.job, or one of a fio.workload's jobs); sizes read back in bytes and times in seconds",
	Members: []runtime.Member{
		attr("bs", "block size in bytes"),
		attr("bssplit", "a dict of block size (bytes) to percent of I/Os, empty when bs alone applies"),
		attr("buffer_compress_percentage", "how compressible the written data is, in percent"),
		attr("dedupe_percentage", "how much of the written data repeats, in percent"),
		attr("direct", "True for O_DIRECT I/O"),
		attr("iodepth", "outstanding I/Os per job"),
		attr("ioengine", "fio's I/O engine, e.g. libaio"),
		attr("name", "the job's name"),
		attr("numjobs", "processes per worker disk"),
		attr("options", "every other fio option, as (key, value) pairs"),
		attr("percentiles", "the latency percentiles fio reports"),
		attr("ramp_time", "seconds run before measuring"),
		attr("rate", "bandwidth cap of each direction in bytes per second (0: none; a,b per direction stays in options)"),
		attr("rate_iops", "IOPS cap of each direction (0: none; a,b per direction stays in options)"),
		{Name: "replace", Params: "(**settings)", Doc: "a copy of the job with settings changed, the same keywords as fio.job"},
		attr("runtime", "seconds measured"),
		attr("rw", "the I/O pattern: read, write, randread, randwrite, rw, randrw, ..."),
		attr("rwmixread", "percent of reads in a mixed pattern"),
		attr("size", "bytes each job addresses (0: the whole disk, or the share given as \"10%\", which options holds)"),
		attr("text", "the job as a .fio file"),
		attr("time_based", "True to run for runtime whatever size says"),
	},
}

// policyDoc documents vsan.policy values (policy.go).
var policyDoc = &runtime.Type{
	Name: "vsan.policy",
	Doc:  "a vSAN storage policy (policy.vsan)",
	Members: []runtime.Member{
		attr("checksum", "True when vSAN checksums the data"),
		attr("compression", "True or False when the policy sets compression, None when the cluster decides"),
		attr("ftt", "failures to tolerate"),
		attr("iops_limit", "vSAN's IOPS limit for each object, in 32 KiB units (0: none)"),
		attr("name", "the policy's name in vCenter"),
		attr("raid", "the layout: raid1, raid5 or raid6"),
		attr("stripe_width", "capacity disks each replica is striped over"),
	},
}

// storeDoc documents store handles (store.go).
var storeDoc = &runtime.Type{
	Name: "store",
	Doc:  "a campaign store (store.open, store.current), read-only and read afresh on each use",
	Members: []runtime.Member{
		attr("campaign", "the campaign's name"),
		{Name: "frame", Params: "(name, cv_threshold=0.05)", Doc: "a frame of the store, one of .frames; \"stats\" summarises the repeats of each cell, workload and direction (n, mean, std and cv of IOPS; std and cv are 0 for one repeat; flagged above cv_threshold)"},
		attr("frames", "the names frame() takes: the store's tables and \"stats\""),
		attr("path", "the .db file"),
		attr("simulated", "True when the store holds simulated results"),
	},
}

// campaignDoc, factorDoc and workloadDoc document the campaign module's
// values (campaign.go).
var (
	campaignDoc = &runtime.Type{
		Name: "campaign",
		Doc:  "a campaign (campaign.new): its factors' matrix, workloads and repeats",
		Members: []runtime.Member{
			attr("factors", "the campaign.factor values, in matrix order"),
			attr("name", "the campaign's name (its store is out/NAME.db)"),
			{Name: "plan", Params: "()", Doc: "the plan against what the store already holds, as text: cells, runs, order and ETA"},
			attr("repeat", "how many times each workload runs in each cell"),
			{Name: "run", Params: "(results=True)", Doc: "runs what the store lacks (resuming an interrupted campaign), stores every run as it ends, and returns the campaign's results frame (None with results=False: a sweep of thousands of runs reads c.stats() instead of holding a row per run)"},
			{Name: "stats", Params: "()", Doc: "the store's stats frame: each cell, workload and direction's repeats summarised (n, mean, std, cv)"},
			{Name: "store_path", Params: "()", Doc: "the path of the campaign's store under the output directory"},
			attr("workloads", "the campaign.workload values, in order"),
		},
	}
	factorDoc = &runtime.Type{
		Name: "campaign.factor",
		Doc:  "a cluster setting a campaign varies (campaign.factor)",
		Members: []runtime.Member{
			attr("cost", "seconds one change of the setting takes, for ordering the matrix"),
			attr("invalidates_prep", "True when changing the setting undoes the campaign's prepare step"),
			attr("kind", "\"setting\", or \"load\" for a load (iodepth, VMs) that reports draw curves over"),
			attr("levels", "the levels, in the order given"),
			attr("name", "the factor's name, a column of the results"),
		},
	}
	workloadDoc = &runtime.Type{
		Name: "campaign.workload",
		Doc:  "a measurement a campaign repeats in every cell (campaign.workload)",
		Members: []runtime.Member{
			attr("duration", "seconds one run takes, for the plan's ETA"),
			attr("name", "the workload's name, a column of the results"),
		},
	}
)

// eventDoc, eventWorkloadDoc and eventsResultDoc document the events
// module's values (events.go).
var (
	eventDoc = &runtime.Type{
		Name:    "events.event",
		Doc:     "an event scheduled inside a measurement (events.at, after, when, rolling)",
		Members: []runtime.Member{attr("name", "the event's name, as the events frame shows it")},
	}
	eventWorkloadDoc = &runtime.Type{
		Name: "events.workload",
		Doc:  "an action starting a second workload on other workers (events.workload); give it to an event",
	}
	eventsResultDoc = &runtime.Type{
		Name: "events.result",
		Doc:  "what events.run measured",
		Members: []runtime.Member{
			attr("events", "a frame of the events: when each fired, what it did, on what"),
			attr("notes", "the data plane's notes of the run"),
			attr("results", "the results frame, as fio.run returns"),
			attr("samples", "a frame of per-interval samples: t_s, job, direction, iops, mbps, lat_mean_us, p99_us"),
		},
	}
)
