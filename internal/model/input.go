package model

import (
	"fmt"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// Input is one cell: jobs running concurrently in worker VMs on data disks
// of a cluster in some state.
type Input struct {
	State ClusterState
	// VMs are the worker VMs the jobs run in: the guest side (vCPUs, the
	// virtual controller) on the hosts' cores. nil: the profile's worker
	// layout (workers.per_host VMs on every host).
	VMs []VM
	// Jobs run at the same time, each on its own disks (fio's job
	// sections): one class of the network each.
	Jobs []JobLoad
	// Degradation, when set, is what events left of the cluster (hosts
	// out, objects missing a component, background work; degraded.go).
	Degradation *Degradation
}

// VM is one worker VM as the model sees it.
type VM struct {
	Name string
	// Host is the ESXi host the VM runs on; "" when not known (VMs are
	// then taken as spread evenly).
	Host string
	// CPUs is the VM's vCPU count; 0: the profile's workers.cpus.
	CPUs int
	// Controller is the data disks' virtual controller ("pvscsi",
	// "lsilogic", "nvme"); "": the profile's workers.controller.
	Controller string
}

// JobLoad is one fio job and the disks it runs on.
type JobLoad struct {
	Name  string // fio's job name; "" for a one-job workload
	Job   *fio.Job
	Disks []DiskLoad // one entry per worker disk the job runs on
	// readShare is the read share fio's rates settle a mixed job on
	// (solveSettled), strictly between 0 and 1; 0: rwmixread's.
	readShare float64
	// inPart says its disks' Written is what it finds in one part of its
	// pass (JobRun.finds), which the run tells of: no unwritten note.
	inPart bool
	// reaping is, for a job whose fio threads poll for completions between
	// I/Os a rate or think time spaces out (polling.spaced), the share of
	// their time they spin: their I/Os in flight per thread, at most 1, as
	// a first solve found (settleReaping).
	reaping float64
	// mapPasses is, for a time-based job whose random I/Os fio's random
	// map cuts short, the passes each of its fio jobs makes over its
	// region in the run, as a first solve found (settleRandomMap); 0:
	// from its size, or without end.
	mapPasses float64
	// mapSlice is, for a solve of one stretch of such a job's passes, the
	// share of the map done at the stretch's start and at its end ({0.9,
	// 1}: a pass's last tenth); zero for the whole run.
	mapSlice [2]float64
}

// readBy says whose reads a note tells of: "read", or the job's name where
// it runs beside others ("r read").
func (jl JobLoad) readBy() string {
	if jl.Name == "" {
		return "read"
	}
	return jl.Name + " read"
}

// shape reads the job's options (readJob), at the read share its rates
// settle it on.
func (jl JobLoad) shape() (jobShape, error) {
	sh, err := readJob(jl.Job)
	if err == nil && jl.readShare > 0 {
		sh.fr = jl.readShare
	}
	return sh, err
}

// DiskLoad is one data disk a job runs on, as the model sees it.
type DiskLoad struct {
	// VM is the index in Input.VMs of the VM the disk belongs to (ignored
	// when Input.VMs is nil).
	VM int
	// Disk names the worker disk: the disks of one VM with one name are
	// one vSAN object, placed once however many jobs use it (fio's job
	// sections on the same device); "": an object of its own.
	Disk   string
	Policy Policy
	// Written is the share of the blocks the job reaches on the disk that
	// hold data: 0 for a disk never written (reads cost metadata only), 1
	// after a full prepare.
	Written float64
	// CompressPercentage is the compressibility of that data.
	CompressPercentage int
	// SizeBytes is the disk's size; 0: the profile's workers.disk_size_gb.
	SizeBytes int64
	// LimitShare is the share of the policy's IOPS limit this job's I/Os
	// may take where jobs running at once use the same disk: vSAN limits the
	// object, not a job (docs/model.md, "Concurrent jobs"). 0 is all of
	// it.
	LimitShare float64
}

// check refuses an input the model cannot solve, saying what is missing.
func (in *Input) check() error {
	if len(in.Jobs) == 0 {
		return fmt.Errorf("no job: a cell runs at least one job")
	}
	for i, j := range in.Jobs {
		if j.Job == nil {
			return fmt.Errorf("job %d (%q): no fio job", i+1, j.Name)
		}
		if len(j.Disks) == 0 {
			return fmt.Errorf("job %d (%q): no disks: a job needs at least one worker disk", i+1, j.Name)
		}
		for _, d := range j.Disks {
			if len(in.VMs) > 0 && (d.VM < 0 || d.VM >= len(in.VMs)) {
				return fmt.Errorf("job %d (%q): a disk of VM %d, but the input has %d VMs", i+1, j.Name, d.VM, len(in.VMs))
			}
		}
	}
	return nil
}

// UniformInput is one job on every data disk of vms worker VMs of the
// profile's shape (spread evenly over the hosts, disksPerVM each, all on
// policy pol and fully written with incompressible data): the usual
// HCIBench layout.
func UniformInput(p *testbed.Profile, vms, disksPerVM int, pol Policy, job *fio.Job) Input {
	in := Input{VMs: make([]VM, vms)}
	jl := JobLoad{Job: job}
	for v := range in.VMs {
		in.VMs[v] = VM{Name: fmt.Sprintf("vm%d", v), Host: fmt.Sprintf("host%d", v%p.Hosts)}
		for range disksPerVM {
			jl.Disks = append(jl.Disks, DiskLoad{VM: v, Policy: pol, Written: 1})
		}
	}
	in.Jobs = []JobLoad{jl}
	return in
}
