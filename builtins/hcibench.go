package builtins

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"starbench/internal/fio"
	"starbench/internal/hcibench"
	"starbench/internal/runtime"
)

// NewHCIBenchModule returns the hcibench module: HCIBench's parameter files
// and easy-run sizing, for engineers moving their HCIBench runs over.
func NewHCIBenchModule(deps Deps) *runtime.Module {
	return &runtime.Module{
		Name: "hcibench",
		Doc:  "HCIBench's parameter files and easy run",
		Members: []runtime.Member{
			{Name: "read", Params: "(path)",
				Doc: "an HCIBench parameter file (relative to the script): a vdbench file (sd=, wd=, rd=) translated into fio, one fio.workload per rd=, or a fio job file; a struct of format, runs (fio.workload values, in file order), names and notes (what the translation decided)", Fn: hcibenchRead},
			{Name: "easy_run", Params: "(policy=None, tool=\"vdbench\", latency_target=\"Max\")",
				Doc: "HCIBench's easy run (its easy-run.rb) for the connected cluster's hosts, disk groups and vSAN datastore and a policy (a policy.vsan; None: FTT 1 with checksums); tool \"vdbench\" or \"fio\" picks which of HCIBench's generators writes the files, latency_target \"Max\" (8 disks a VM) or \"Low\", \"Medium\", \"High\" (4 disks; fio holds the latency). A struct of vms, disks_per_vm, disk_size, cpus, memory, threads_per_disk, working_set_gb, prepare (for fio.prepare), workloads (dict of fio.workload: 4k100r, 4k0r, 256k100r, 256k0r, 4k70r, 8k50r; 512k on ESA), files (what HCIBench would write) and notes", Fn: deps.hcibenchEasyRun},
		},
	}
}

func hcibenchRead(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path); err != nil {
		return nil, err
	}
	full := scriptRelative(thread, path)
	data, err := os.ReadFile(full)
	if err != nil {
		return nil, fmt.Errorf("reading HCIBench parameter file: %w", err)
	}
	noteInput(thread, full)
	p, err := hcibench.Read(strings.TrimSuffix(filepath.Base(full), filepath.Ext(full)), full, string(data))
	if err != nil {
		return nil, err
	}
	wls := make([]*fio.Workload, len(p.Runs))
	for i, r := range p.Runs {
		if err := r.Workload.CheckWithFio(runtime.Context(thread)); err != nil {
			return nil, fmt.Errorf("%s, run %s: %w", path, r.Workload.Name, err)
		}
		wls[i] = r.Workload
	}
	return parsedStruct(p.Format, wls, p.Notes), nil
}

func parsedStruct(format string, wls []*fio.Workload, notes []string) *starlarkstruct.Struct {
	runs, names := make([]starlark.Value, len(wls)), make([]starlark.Value, len(wls))
	for i, wl := range wls {
		runs[i], names[i] = NewWorkloadValue(wl), starlark.String(wl.Name)
	}
	return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"format": starlark.String(format),
		"runs":   starlark.NewList(runs),
		"names":  starlark.NewList(names),
		"notes":  strList(notes),
	})
}

func (d Deps) hcibenchEasyRun(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var pv starlark.Value = starlark.None
	tool, latency := "vdbench", "Max"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "policy?", &pv, "tool?", &tool, "latency_target?", &latency); err != nil {
		return nil, err
	}
	pol := hcibench.Policy{FTT: 1, Checksum: true}
	switch p := pv.(type) {
	case starlark.NoneType:
	case *Policy:
		pol = hcibench.Policy{FTT: p.spec.FTT, ErasureCoding: p.spec.RAID != "raid1", Checksum: p.spec.Checksum}
		if pol.FTT == 0 { // what the RAID level implies
			pol.FTT = map[string]int{"raid1": 1, "raid5": 1, "raid6": 2}[p.spec.RAID]
		}
	default:
		return nil, fmt.Errorf("policy is a %s; want a policy.vsan handle or None", pv.Type())
	}
	t, err := d.target(thread)
	if err != nil {
		return nil, err
	}
	ctx := runtime.Context(thread)
	inv, err := t.VSphere.Inventory(ctx)
	if err != nil {
		return nil, err
	}
	state, err := t.VSphere.State(ctx)
	if err != nil {
		return nil, err
	}
	c := hcibench.Cluster{Hosts: len(inv.Hosts), ESA: state.Architecture == "ESA", Dedup: state.Dedup}
	for _, ds := range inv.Datastores {
		if ds.Type == "vsan" {
			c.CapacityGB, c.FreeGB = int(ds.CapacityGB), int(ds.FreeGB)
		}
	}
	if !c.ESA {
		for _, h := range inv.Hosts {
			disks, err := t.VSphere.Disks(ctx, h.Name)
			if err != nil {
				return nil, err
			}
			for _, dk := range disks {
				if dk.Tier == "cache" && dk.InUse {
					c.DiskGroups++
					c.CacheGB += int(dk.CapacityGB)
				}
			}
		}
	}
	plan, err := hcibench.EasyRun(c, pol, tool, latency)
	if err != nil {
		return nil, err
	}
	workloads, files := starlark.NewDict(len(plan.Runs)), starlark.NewDict(len(plan.Runs))
	for _, r := range plan.Runs {
		if err := workloads.SetKey(starlark.String(r.Name), NewWorkloadValue(r.Workload)); err != nil {
			return nil, err
		}
		if err := files.SetKey(starlark.String(r.Name), starlark.String(plan.Files[r.Name])); err != nil {
			return nil, err
		}
	}
	return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"vms":              starlark.MakeInt(plan.VMs),
		"disks_per_vm":     starlark.MakeInt(plan.DisksPerVM),
		"disk_size":        starlark.String(fmt.Sprintf("%dGiB", plan.DiskSizeGB)),
		"cpus":             starlark.MakeInt(plan.CPUs),
		"threads_per_disk": starlark.MakeInt(plan.ThreadsPerDisk),
		"memory":           starlark.String(fmt.Sprintf("%dGiB", plan.MemoryGB)),
		"working_set_gb":   starlark.Float(plan.WorkingSetGB),
		"prepare":          starlark.String(plan.Prepare),
		"workloads":        workloads,
		"files":            files,
		"notes":            strList(plan.Notes),
	}), nil
}
