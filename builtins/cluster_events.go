package builtins

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"starbench/internal/events"
	"starbench/internal/ledger"
	"starbench/internal/runtime"
	"starbench/internal/target"
	"starbench/internal/vsphere"
)

// clusterEventMembers are the cluster module's actions on hosts (docs/events.md).
func clusterEventMembers(deps Deps) []runtime.Member {
	return []runtime.Member{
		{Name: "hosts", Params: "()",
			Doc: "the cluster's hosts as structs: name, connected, powered_on, maintenance, vsan_network, serving, vms", Fn: deps.clusterHosts},
		{Name: "maintenance", Params: "(host, enter=True, evacuation=\"ensure_accessibility\", timeout=\"1h\")",
			Doc: "put a host into maintenance mode with vSAN's evacuation (ensure_accessibility, full_data_migration, no_data_migration) or take it out (enter=False); disruptive; returns the host as it was", Fn: deps.clusterMaintenance},
		{Name: "fail_host", Params: "(host, how=\"isolate\")",
			Doc: "take a host out as a failure would: isolate (vSAN traffic off its VMkernel NIC) or power_off (forced shutdown); disruptive; returns the host as it was", Fn: deps.clusterFailHost},
		{Name: "restore_host", Params: "(host, timeout=\"30m\")",
			Doc: "bring back a host cluster.fail_host took out; returns the host as it was", Fn: deps.clusterRestoreHost},
		{Name: "disks", Params: "(host)",
			Doc: "a host's vSAN devices as structs: name, host, tier (cache or capacity), group (an OSA device's disk group, by its cache device), in_use, capacity_gb", Fn: deps.clusterDisks},
		{Name: "fail_disk", Params: "(host, disk=None, how=None)",
			Doc: "take a vSAN device out as a failure would: unmount (an OSA disk group, data kept; the default on OSA), remove (one device, data dropped; the default on ESA), both leaving its components absent, or error (simulator only: components degraded, rebuilt at once); disk None: the host's first in use; disruptive; returns the disk as it was", Fn: deps.clusterFailDisk},
		{Name: "restore_disk", Params: "(host, disk=None)",
			Doc: "bring back a device or disk group cluster.fail_disk took out (disk None: the host's only one); returns the disk as it was", Fn: deps.clusterRestoreDisk},
	}
}

// vsphereEventMembers are the vsphere module's snapshot actions.
func vsphereEventMembers(deps Deps) []runtime.Member {
	return []runtime.Member{
		{Name: "snapshot", Params: "(workers, name=\"starbench\")",
			Doc: "take a snapshot of every worker VM (no memory, not quiesced, as backup software does); deleted when the script ends", Fn: deps.vsphereSnapshot},
		{Name: "remove_snapshot", Params: "(workers, name=\"starbench\")",
			Doc: "delete the snapshot of every worker VM that has it, consolidating its disks", Fn: deps.vsphereRemoveSnapshot},
	}
}

// eventSession is one session's events state: the log of the
// measurement in progress, for the actions to add to.
type eventSession struct {
	target *target.Target
	report func(string)

	mu  sync.Mutex
	log *events.Log // nil outside events.run
}

var eventSessionKey = runtime.NewKey[*eventSession]("events")

// recoverChanges starts the session's events state once its target is
// open (and its ledger kept, builtins/cleanup.go): what a crashed run left
// changed by events on this cluster (hosts in maintenance mode or out,
// snapshots) is set back before the script touches anything, and whatever
// events change and nothing set back is set back when the session ends,
// also after a failure or Ctrl-C.
func recoverChanges(s *runtime.Session, t *target.Target) (*eventSession, error) {
	return runtime.Load(s, eventSessionKey, func() (*eventSession, error) {
		if t.VSphere == nil {
			return nil, fmt.Errorf("internal error: the target has no vSphere client")
		}
		stderr := s.Stderr
		es := &eventSession{target: t, report: func(msg string) {
			if stderr != nil {
				fmt.Fprintln(stderr, msg)
			}
		}}
		ctx := s.Lifetime()
		if left := es.pending(nil, vsphere.EventKind); len(left) > 0 {
			es.report(fmt.Sprintf("undo: %d change(s) to cluster %s left by an earlier run that stopped", len(left), t.VSphere.Cluster()))
			if err := es.undo(ctx, nil, vsphere.EventKind); err != nil {
				return nil, fmt.Errorf("setting back what an earlier run left: %w", err)
			}
		}
		s.OnClose(func() { _ = es.undo(context.WithoutCancel(ctx), nil, vsphere.EventKind) })
		return es, nil
	})
}

// pending are the changes of the kinds keep takes made on this vCenter
// that nothing set back yet, but those in before (ledger ids).
func (es *eventSession) pending(before map[string]bool, keep func(kind string) bool) []ledger.Entry {
	vc := es.target.VSphere
	if vc.Ledger() == nil {
		return nil
	}
	var out []ledger.Entry
	for _, e := range vc.Ledger().Pending() {
		if keep(e.Kind) && e.VCenter == vc.Host() && !before[e.ID] {
			out = append(out, e)
		}
	}
	return out
}

// undo sets back the changes of the kinds keep takes, but those in
// before, newest first, saying each on the session's error stream.
func (es *eventSession) undo(ctx context.Context, before map[string]bool, keep func(kind string) bool) error {
	vc := es.target.VSphere
	if len(es.pending(before, keep)) == 0 {
		return nil
	}
	start := time.Now()
	return vc.Ledger().UndoWhere(ctx, vc.Host(), vc.Undoers(), func(e ledger.Entry) bool {
		return keep(e.Kind) && !before[e.ID]
	}, func(o ledger.Outcome) {
		if o.Err != nil {
			es.report(fmt.Sprintf("undo: %s: FAILED: %v (still in the ledger; the next run or starbench clean tries again)", changeName(o.Entry), o.Err))
			return
		}
		es.report(fmt.Sprintf("undo: %s: set back (%.1f s)", changeName(o.Entry), time.Since(start).Seconds()))
		start = time.Now()
	})
}

// changeName says what an event changed, for the undo lines.
func changeName(e ledger.Entry) string {
	switch e.Kind {
	case vsphere.KindMaintenance:
		return "host " + e.Name + " in maintenance mode"
	case vsphere.KindHostFailure:
		var f vsphere.HostFailure
		_ = json.Unmarshal(e.Before, &f)
		return fmt.Sprintf("host %s failed (%s)", e.Name, f.How)
	case vsphere.KindDiskFailure:
		var f vsphere.DiskFailure
		_ = json.Unmarshal(e.Before, &f)
		return fmt.Sprintf("disk %s of host %s out (%s)", f.Disk, f.Host, f.How)
	case vsphere.KindCluster:
		return "the settings of cluster " + e.Name
	case vsphere.KindSnapshot:
		var ws []vsphere.Worker
		_ = json.Unmarshal(e.Before, &ws)
		return fmt.Sprintf("snapshot %s of %d workers", e.Name, len(ws))
	}
	return e.Kind + " " + e.Name
}

// events returns the session's events state, opening the target if needed.
func (d Deps) events(thread *starlark.Thread) (*eventSession, *runtime.Session, error) {
	s, err := runtime.SessionFrom(thread)
	if err != nil {
		return nil, nil, err
	}
	t, err := d.target(thread)
	if err != nil {
		return nil, nil, err
	}
	es, err := recoverChanges(s, t)
	return es, s, err
}

// disruptive refuses what takes hosts or devices of a real cluster out of
// service unless the command line allows it.
func (es *eventSession) disruptive(s *runtime.Session, what string) error {
	if es.target.Sim != nil || s.AllowDisruptive {
		return nil
	}
	return fmt.Errorf("%s disrupts cluster %s: run starbench with --allow-disruptive to allow it (what the script changes is set back when it ends)", what, es.target.VSphere.Cluster())
}

// logEvent adds to the log of the measurement in progress, if any.
func (es *eventSession) logEvent(kind, target, detail string) {
	es.mu.Lock()
	log := es.log
	es.mu.Unlock()
	if log != nil {
		log.Add(kind, target, detail)
	}
}

// logActive adds to the log of the measurement in progress on the thread's
// session, if any; it opens nothing.
func logActive(thread *starlark.Thread, kind, target, detail string) {
	s, err := runtime.SessionFrom(thread)
	if err != nil {
		return
	}
	if es, err := runtime.Load(s, eventSessionKey, func() (*eventSession, error) { return nil, errNotOpened }); err == nil {
		es.logEvent(kind, target, detail)
	}
}

// settingsDetail is a cluster.configure call as the events log shows it.
func settingsDetail(s vsphere.ClusterSettings) string {
	var parts []string
	for _, f := range []struct {
		name string
		v    *bool
	}{{"compression", s.Compression}, {"dedup", s.Dedup}, {"rdma", s.RDMA}, {"transit_encryption", s.TransitEncryption}, {"rest_encryption", s.RestEncryption}} {
		if f.v != nil {
			parts = append(parts, fmt.Sprintf("%s=%v", f.name, starlark.Bool(*f.v)))
		}
	}
	if s.KeyProvider != "" {
		parts = append(parts, "key_provider="+s.KeyProvider)
	}
	if s.Uplink != "" {
		parts = append(parts, "uplink="+s.Uplink)
	}
	return strings.Join(parts, " ")
}

func (es *eventSession) setLog(l *events.Log) {
	es.mu.Lock()
	es.log = l
	es.mu.Unlock()
}

func hostStruct(h vsphere.HostState) *starlarkstruct.Struct {
	return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"name":         starlark.String(h.Name),
		"connected":    starlark.Bool(h.Connected),
		"powered_on":   starlark.Bool(h.PoweredOn),
		"maintenance":  starlark.Bool(h.Maintenance),
		"vsan_network": starlark.Bool(h.VSANNetwork),
		"serving":      starlark.Bool(h.Serving()),
		"vms":          starlark.MakeInt(h.VMs),
	})
}

func (d Deps) clusterHosts(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	t, err := d.target(thread)
	if err != nil {
		return nil, err
	}
	hosts, err := t.VSphere.HostStates(runtime.Context(thread))
	if err != nil {
		return nil, err
	}
	out := make([]starlark.Value, len(hosts))
	for i, h := range hosts {
		out[i] = hostStruct(h)
	}
	return starlark.NewList(out), nil
}

func (d Deps) clusterMaintenance(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var host string
	enter := true
	evacuation := "ensure_accessibility"
	var timeout starlark.Value = starlark.String("1h")
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "host", &host, "enter?", &enter, "evacuation?", &evacuation, "timeout?", &timeout); err != nil {
		return nil, err
	}
	secs, err := durationSeconds("timeout", timeout)
	if err != nil {
		return nil, err
	}
	es, s, err := d.events(thread)
	if err != nil {
		return nil, err
	}
	if enter {
		if !slices.Contains(vsphere.Evacuations(), evacuation) {
			return nil, fmt.Errorf("evacuation=%q: want one of %s", evacuation, strings.Join(vsphere.Evacuations(), ", "))
		}
		if err := es.disruptive(s, "maintenance mode"); err != nil {
			return nil, err
		}
	}
	ctx := runtime.Context(thread)
	vc := es.target.VSphere
	prev, err := vc.HostState(ctx, host)
	if err != nil {
		return nil, err
	}
	if _, err := vc.Maintenance(ctx, host, enter, evacuation, time.Duration(secs*float64(time.Second))); err != nil {
		return nil, err
	}
	if enter {
		es.logEvent("maintenance_enter", host, evacuation)
	} else {
		es.logEvent("maintenance_exit", host, "")
	}
	return hostStruct(prev), nil
}

func (d Deps) clusterFailHost(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var host string
	how := vsphere.Isolate
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "host", &host, "how?", &how); err != nil {
		return nil, err
	}
	es, s, err := d.events(thread)
	if err != nil {
		return nil, err
	}
	if err := es.disruptive(s, "a host failure"); err != nil {
		return nil, err
	}
	ctx := runtime.Context(thread)
	vc := es.target.VSphere
	prev, err := vc.HostState(ctx, host)
	if err != nil {
		return nil, err
	}
	if _, err := vc.FailHost(ctx, host, how); err != nil {
		return nil, err
	}
	es.logEvent("host_failure", host, how)
	return hostStruct(prev), nil
}

func (d Deps) clusterRestoreHost(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var host string
	var timeout starlark.Value = starlark.String("30m")
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "host", &host, "timeout?", &timeout); err != nil {
		return nil, err
	}
	secs, err := durationSeconds("timeout", timeout)
	if err != nil {
		return nil, err
	}
	es, _, err := d.events(thread)
	if err != nil {
		return nil, err
	}
	ctx := runtime.Context(thread)
	vc := es.target.VSphere
	prev, err := vc.HostState(ctx, host)
	if err != nil {
		return nil, err
	}
	failure, ok := vc.HostFailureOf(host)
	if !ok {
		return nil, fmt.Errorf("host %s was not taken out by cluster.fail_host in this run, so starbench does not know how to bring it back", host)
	}
	if err := vc.RestoreHost(ctx, failure, time.Duration(secs*float64(time.Second))); err != nil {
		return nil, err
	}
	es.logEvent("host_return", host, failure.How)
	return hostStruct(prev), nil
}

// snapshotWorkers reads the worker VMs of a snapshot call.
func snapshotWorkers(workers workersArg) ([]vsphere.Worker, error) {
	out := make([]vsphere.Worker, len(workers))
	for i, w := range workers {
		if w.VM == "" {
			return nil, fmt.Errorf("worker %s is a local fio server, not a VM: snapshots are of worker VMs (vsphere.deploy_workers)", w.w.Name)
		}
		out[i] = vsphere.Worker{Name: w.w.Name, VM: w.VM, Host: w.w.Host}
	}
	return out, nil
}

func (d Deps) vsphereSnapshot(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var workers workersArg
	name := "starbench"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "workers", &workers, "name?", &name); err != nil {
		return nil, err
	}
	ws, err := snapshotWorkers(workers)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(name) == "" {
		return nil, fmt.Errorf("name is empty: want a snapshot name such as \"backup-1\"")
	}
	es, _, err := d.events(thread)
	if err != nil {
		return nil, err
	}
	if err := es.target.VSphere.CreateSnapshot(runtime.Context(thread), ws, name, 0); err != nil {
		return nil, err
	}
	es.logEvent("snapshot_create", workersLabel(ws), name)
	return starlark.None, nil
}

func (d Deps) vsphereRemoveSnapshot(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var workers workersArg
	name := "starbench"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "workers", &workers, "name?", &name); err != nil {
		return nil, err
	}
	ws, err := snapshotWorkers(workers)
	if err != nil {
		return nil, err
	}
	es, _, err := d.events(thread)
	if err != nil {
		return nil, err
	}
	if err := es.target.VSphere.DeleteSnapshot(runtime.Context(thread), ws, name, 0); err != nil {
		return nil, err
	}
	es.logEvent("snapshot_remove", workersLabel(ws), name)
	return starlark.None, nil
}

// workersLabel names a set of workers in the events log: "w-01" or
// "w-01..w-08 (8 workers)".
func workersLabel(ws []vsphere.Worker) string {
	if len(ws) == 1 {
		return ws[0].Name
	}
	return fmt.Sprintf("%s..%s (%d workers)", ws[0].Name, ws[len(ws)-1].Name, len(ws))
}

// The ways cluster.fail_disk fails a device: vsphere's two calls, and a
// device error, which no vCenter call makes (docs/events.md).
var diskFailures = []string{vsphere.DiskUnmount, vsphere.DiskRemove, "error"}

func diskStruct(d vsphere.VsanDisk) *starlarkstruct.Struct {
	return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"name":        starlark.String(d.Name),
		"host":        starlark.String(d.Host),
		"tier":        starlark.String(d.Tier),
		"group":       starlark.String(d.Group),
		"in_use":      starlark.Bool(d.InUse),
		"capacity_gb": starlark.Float(d.CapacityGB),
	})
}

func (d Deps) clusterDisks(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var host string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "host", &host); err != nil {
		return nil, err
	}
	t, err := d.target(thread)
	if err != nil {
		return nil, err
	}
	disks, err := t.VSphere.Disks(runtime.Context(thread), host)
	if err != nil {
		return nil, err
	}
	out := make([]starlark.Value, len(disks))
	for i, dk := range disks {
		out[i] = diskStruct(dk)
	}
	return starlark.NewList(out), nil
}

// optionalString reads a string argument that may be None.
func optionalString(name string, v starlark.Value) (string, error) {
	if v == starlark.None {
		return "", nil
	}
	s, ok := starlark.AsString(v)
	if !ok {
		return "", fmt.Errorf("%s is a %s; want a string or None", name, v.Type())
	}
	return s, nil
}

func (d Deps) clusterFailDisk(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var host string
	var diskArg, howArg starlark.Value = starlark.None, starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "host", &host, "disk?", &diskArg, "how?", &howArg); err != nil {
		return nil, err
	}
	disk, err := optionalString("disk", diskArg)
	if err != nil {
		return nil, err
	}
	how, err := optionalString("how", howArg)
	if err != nil {
		return nil, err
	}
	if how != "" && !slices.Contains(diskFailures, how) {
		return nil, fmt.Errorf("how=%q: want %s (or None: unmount on OSA, remove on ESA)", how, strings.Join(diskFailures, ", "))
	}
	es, s, err := d.events(thread)
	if err != nil {
		return nil, err
	}
	if how == "error" && es.target.Sim == nil {
		return nil, fmt.Errorf(`how="error": no vCenter call makes a device fail with an error (vSAN's own fault injection runs on the host); on a real cluster use how="unmount" or "remove", which leave its components absent (docs/events.md, "Disk failures")`)
	}
	if err := es.disruptive(s, "a disk failure"); err != nil {
		return nil, err
	}
	ctx := runtime.Context(thread)
	vc := es.target.VSphere
	disks, err := vc.Disks(ctx, host)
	if err != nil {
		return nil, err
	}
	osa := slices.ContainsFunc(disks, func(d vsphere.VsanDisk) bool { return d.Tier == "cache" })
	if how == "" {
		how = vsphere.DiskRemove
		if osa {
			how = vsphere.DiskUnmount
		}
	}
	call, components := how, "absent"
	if how == "error" {
		// A failed device: on OSA a cache device takes its disk group down,
		// and so does any device of a group with deduplication.
		components, call = "degraded", vsphere.DiskRemove
		if osa {
			st, err := vc.State(ctx)
			if err != nil {
				return nil, err
			}
			i := slices.IndexFunc(disks, func(d vsphere.VsanDisk) bool { return d.Name == disk })
			if st.Dedup || (i >= 0 && disks[i].Tier == "cache") {
				call = vsphere.DiskUnmount
			}
		}
	}
	f, err := vc.FailDisk(ctx, host, disk, call)
	if err != nil {
		return nil, err
	}
	unit := "device"
	if call == vsphere.DiskUnmount {
		unit = "disk_group"
	}
	es.logEvent("disk_failure", f.Name(), fmt.Sprintf("how=%s unit=%s components=%s", how, unit, components))
	prev := vsphere.VsanDisk{Name: f.Disk, Host: host}
	if i := slices.IndexFunc(disks, func(d vsphere.VsanDisk) bool { return d.Name == f.Disk }); i >= 0 {
		prev = disks[i]
	}
	return diskStruct(prev), nil
}

func (d Deps) clusterRestoreDisk(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var host string
	var diskArg starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "host", &host, "disk?", &diskArg); err != nil {
		return nil, err
	}
	disk, err := optionalString("disk", diskArg)
	if err != nil {
		return nil, err
	}
	es, _, err := d.events(thread)
	if err != nil {
		return nil, err
	}
	ctx := runtime.Context(thread)
	vc := es.target.VSphere
	f, ok := vc.DiskFailureOf(host, disk)
	if !ok {
		what := "no device"
		if disk != "" {
			what = "device " + disk
		}
		return nil, fmt.Errorf("%s of host %s was taken out by cluster.fail_disk in this run (or several were: name one), so starbench does not know what to bring back", what, host)
	}
	disks, err := vc.Disks(ctx, host)
	if err != nil {
		return nil, err
	}
	if err := vc.RestoreDisk(ctx, f); err != nil {
		return nil, err
	}
	es.logEvent("disk_return", f.Name(), fmt.Sprintf("%d device(s) back in use", len(f.Devices)))
	prev := vsphere.VsanDisk{Name: f.Disk, Host: host}
	if i := slices.IndexFunc(disks, func(d vsphere.VsanDisk) bool { return d.Name == f.Disk }); i >= 0 {
		prev = disks[i]
	}
	return diskStruct(prev), nil
}
