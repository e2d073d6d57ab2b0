package model

import (
	"cmp"
	"strings"
	"testing"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// cpus_allowed and cpumask pin a job's threads to some of the worker's
// vCPUs: one VM of 16 vCPUs on LSI Logic controllers (the costliest guest
// path) running 8 jobs of 4K random reads is bound by vSAN's DOM on its
// host, and by its guest when the jobs share one vCPU, as on a VM of one
// vCPU. Pinned to all 16 it runs as unpinned; cpumask=0x3 is
// cpus_allowed=0-1, and cpus_allowed_policy (which CPU each job takes)
// changes nothing the model answers.
func TestPinnedJobsShareTheirVCPUs(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	run := func(cpus int, options ...fio.Option) *Output {
		t.Helper()
		job := fio.JobFromOptions("pinned", append([]fio.Option{{Key: "rw", Value: "randread"}, {Key: "bs", Value: "4k"}, {Key: "ioengine", Value: "libaio"},
			{Key: "direct", Value: "1"}, {Key: "iodepth", Value: "32"}, {Key: "size", Value: "1g"}}, options...))
		in := UniformInput(p, 1, 8, Policy{RAID: "raid1", FTT: 1}, &job)
		in.VMs[0].CPUs, in.VMs[0].Controller = cpus, testbed.LSILogic
		return solve(t, p, in)
	}
	free, one, two := run(16), run(16, fio.Option{Key: "cpus_allowed", Value: "0"}), run(16, fio.Option{Key: "cpus_allowed", Value: "0-1"})
	if u := util(one, "guest"); !(u > 0.99) || !(total(one) < 0.9*total(free)) || !(util(free, "vsan-dom") > 0.99) {
		t.Errorf("8 jobs on one vCPU: %.0f IOPS, guest %.2f busy; unpinned %.0f, DOM %.2f busy; want the DOM bound, then the guest, below", total(one), u, total(free), util(free, "vsan-dom"))
	}
	if small := run(1); !near6(total(one), total(small)) {
		t.Errorf("8 jobs on one of 16 vCPUs: %.0f IOPS; on a VM of one vCPU %.0f", total(one), total(small))
	}
	for _, same := range [][]fio.Option{
		{{Key: "cpus_allowed", Value: "0-15"}},
		{{Key: "cpumask", Value: "0xffff"}},
	} {
		if got := total(run(16, same...)); got != total(free) {
			t.Errorf("%v: %.0f IOPS, want the unpinned %.0f", same, got, total(free))
		}
	}
	for _, same := range [][]fio.Option{
		{{Key: "cpumask", Value: "3"}},
		{{Key: "cpus_allowed", Value: "1,0"}, {Key: "cpus_allowed_policy", Value: "split"}},
	} {
		if got := total(run(16, same...)); got != total(two) {
			t.Errorf("%v: %.0f IOPS, want cpus_allowed=0-1's %.0f", same, got, total(two))
		}
	}
	for _, c := range []struct {
		opt  fio.Option
		want string
	}{
		{fio.Option{Key: "cpus_allowed", Value: "8-16"}, `cpus_allowed=8-16: fio refuses CPU 16 on a worker of 16 vCPUs ("CPU 16 too large (max=15)"); name CPUs 0 to 15`},
		{fio.Option{Key: "cpumask", Value: "0x10000"}, "fio refuses CPU 16"},
		{fio.Option{Key: "cpus_allowed", Value: "3-1"}, "cpus_allowed=3-1: want CPUs from 0 to 1023"},
		{fio.Option{Key: "cpus_allowed", Value: "0-1024"}, "cpus_allowed=0-1024: want CPUs from 0 to 1023"},
		{fio.Option{Key: "cpumask", Value: "0"}, "cpumask=0: want a mask"},
		{fio.Option{Key: "cpus_allowed_policy", Value: "spread"}, "cpus_allowed_policy=spread: want shared or split"},
	} {
		job := fio.JobFromOptions("bad", []fio.Option{{Key: "rw", Value: "randread"}, {Key: "size", Value: "1g"}, c.opt})
		in := UniformInput(p, 1, 8, Policy{RAID: "raid1", FTT: 1}, &job)
		in.VMs[0].CPUs = 16
		if _, err := Solve(t.Context(), p, in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s=%s: error %v, want it to contain %q", c.opt.Key, c.opt.Value, err, c.want)
		}
	}
}

// With bs_is_seq_rand fio takes bs's first size for sequential I/Os and
// its second for random ones, reads and writes alike: against fio 3.33's
// mean read and write sizes on local files, bs=4k,64k. norandommap keeps
// fio's random map from cutting short the random reads that reach blocks
// already read (their offsets are 4 KiB-aligned, the read entry's size).
func TestSeqRandSizesAsFioDrawsThem(t *testing.T) {
	needFio(t)
	cases := []struct {
		rw, random string // rw and percentage_random
	}{{"randrw", ""}, {"rw", ""}, {"randrw", "50"}, {"randread", "25"}}
	dir := t.TempDir()
	args := []string{"--output-format=json", "--size=256m", "--rwmixread=70", "--bs=4k,64k", "--bs_is_seq_rand=1", "--norandommap", "--ioengine=psync"}
	for i, c := range cases {
		args = append(args, fioJob(dir, i, "--rw="+c.rw, "--percentage_random="+cmp.Or(c.random, "100"))...)
	}
	var report sizesReport
	if runFio(t, &report, args...); len(report.Jobs) != len(cases) {
		t.Fatalf("fio's report has %d jobs, want %d", len(report.Jobs), len(cases))
	}
	for i, c := range cases {
		options := []fio.Option{{Key: "rw", Value: c.rw}, {Key: "rwmixread", Value: "70"}, {Key: "bs", Value: "4k,64k"}, {Key: "bs_is_seq_rand", Value: "1"}}
		if c.random != "" {
			options = append(options, fio.Option{Key: "percentage_random", Value: c.random})
		}
		job := fio.JobFromOptions("j", options)
		sh, err := readJob(&job)
		if err != nil {
			t.Fatal(err)
		}
		for dir, real := range report.meanSizes(i) {
			if real == 0 {
				continue // randread writes nothing
			}
			if model := meanSize(sh.sizes[dir]); !within(model, real, 0.08) {
				t.Errorf("rw=%s percentage_random=%s, direction %d: fio's I/Os %.0f bytes on average, the model's %.0f", c.rw, c.random, dir, real, model)
			}
		}
		if !strings.Contains(strings.Join(sh.notes, "\n"), "bs_is_seq_rand: fio takes a sequential I/O's size from bs's first entry") {
			t.Errorf("rw=%s: notes %q name no bs_is_seq_rand", c.rw, sh.notes)
		}
	}
}
