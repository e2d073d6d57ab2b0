package builtins

import (
	"fmt"
	"strconv"
	"time"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
	starlarktime "go.starlark.net/lib/time"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"starbench/internal/fio"
	"starbench/internal/runtime"
	"starbench/internal/target"
	"starbench/internal/vsphere"
	"starbench/internal/worker"
)

// NewVSphereModule returns the `vsphere` module: vSphere inventory and worker VMs.
func NewVSphereModule(deps Deps) *runtime.Module {
	v := vsphereModule{deps}
	return &runtime.Module{
		Name: "vsphere",
		Doc:  "vSphere inventory and worker VMs",
		Members: append([]runtime.Member{
			{Name: "connect", Params: "(target=None, testbed=None, url=None, username=None, insecure=False, datacenter=None, cluster=None)",
				Doc: "open the session's target explicitly: a simulated testbed (ignored when the session targets a vCenter), or a vCenter (password from GOVC_PASSWORD)", Fn: v.connect},
			{Name: "inventory", Params: "()",
				Doc: "the cluster's hosts, datastores and networks, as frames in a struct", Fn: v.inventory},
			{Name: "deploy_workers", Params: "(prefix, per_host=None, count=None, template=None, ova=None, cpus=None, memory=None, disks=None, disk_size=None, datastore=None, network=None, policy=None, pool=8, keep_on_failure=False, ip_timeout=\"10m\")",
				Doc: "clone worker VMs (from template=, or ova= imported once) evenly over the hosts, with thin data disks; reuses the set of that prefix", Fn: v.deployWorkers},
			{Name: "workers", Params: "(prefix)",
				Doc: "the deployed workers named prefix-NN", Fn: v.workers},
			{Name: "destroy_workers", Params: "(prefix, pool=8)",
				Doc: "power off and delete the workers named prefix-NN; returns their names", Fn: v.destroyWorkers},
			{Name: "host_metrics", Params: "(hosts, start, end)",
				Doc: "CPU, memory and network usage of hosts (None = all) between two times, in 20 s samples, as a frame (cpu_percent, memory_percent, net_received_kbps, net_transmitted_kbps, net_usage_kbps)", Fn: v.hostMetrics},
			{Name: "vsan_performance", Params: "(enable=False)",
				Doc: "whether the cluster's vSAN performance service is on; enable=True turns it on (recorded in the ledger, turned off by a cleanup)", Fn: v.vsanPerformance},
			{Name: "vsan_metrics", Params: "(start, end)",
				Doc: "vSAN performance service samples between two times as a long frame (host, metric, time, value): vsan.client.* and vsan.backend.* (IOPS, throughput, latency, congestion, oio, resync) for the cluster, vsan.backend.*, vsan.cpu.usedPct, vsan.network.rxThroughput, txThroughput (bytes/s) and vsan.domworlds.<kind>.count, runPct, busiestRunPct, readyPct (the DOM's worlds by kind; vsan.lsomworlds.* LSOM's) per host, and on OSA vsan.diskgroup.wbFreePct, wbFreePctMin and wbSize (its disk groups' write buffers: free, the mean and the fullest's, and their size in bytes)", Fn: v.vsanMetrics},
		}, vsphereEventMembers(deps)...),
	}
}

type vsphereModule struct{ deps Deps }

// client returns the session's vSphere client, opening the target if needed.
func (v vsphereModule) client(thread *starlark.Thread) (*vsphere.Client, *target.Target, error) {
	t, err := v.deps.target(thread)
	if err != nil {
		return nil, nil, err
	}
	return t.VSphere, t, nil
}

func (v vsphereModule) connect(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var kind, testbedName, url, username, datacenter, cluster string
	var insecure bool
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "target?", &kind, "testbed?", &testbedName, "url?", &url,
		"username?", &username, "insecure?", &insecure, "datacenter?", &datacenter, "cluster?", &cluster); err != nil {
		return nil, err
	}
	s, err := runtime.SessionFrom(thread)
	if err != nil {
		return nil, err
	}
	opts := target.Options{Kind: target.Kind(kind), Testbed: testbedName}
	if opts.Kind == "" {
		opts.Kind = target.Kind(s.Target)
	}
	if url != "" {
		opts.Kind = target.VCenter
	}
	if opts.Kind == target.VCenter {
		vo, err := vsphere.OptionsFromEnv(v.deps.env)
		if err != nil {
			return nil, err
		}
		if url != "" {
			vo.URL = url
		}
		if username != "" {
			vo.Username = username
		}
		vo.Insecure = vo.Insecure || insecure
		if datacenter != "" {
			vo.Datacenter = datacenter
		}
		if cluster != "" {
			vo.Cluster = cluster
		}
		opts.VSphere = &vo
	} else if opts.Testbed == "" {
		opts.Testbed = s.Testbed
	}
	if testbedName != "" && opts.Kind == target.VCenter {
		if kind != "" || url != "" {
			return nil, fmt.Errorf("testbed= names a simulated cluster; a vCenter (url= or target=\"vcenter\") is described by its own inventory")
		}
		// The script names the testbed it simulates by default; run on a
		// vCenter, it drives the real cluster unchanged. A --plan dry run
		// simulates that testbed instead of touching the vCenter.
		if !s.Plan {
			fmt.Fprintf(s.Stderr, "vsphere.connect: testbed %s stands for the simulated cluster; this session drives the vCenter at GOVC_URL\n", testbedName)
			opts.Testbed = ""
		}
	}
	t, fresh, err := v.deps.open(s, opts)
	if err != nil {
		return nil, err
	}
	if !fresh {
		return nil, fmt.Errorf("the session already drives %s, and a session drives one cluster: call vsphere.connect once, before any other vsphere, policy or cluster builtin; for another cluster start another session (another script, or starbench repl --testbed NAME)", describeTarget(t))
	}
	return targetStruct(t), nil
}

func describeTarget(t *target.Target) string {
	if t.Testbed != nil {
		return fmt.Sprintf("the %s testbed %s", t.Kind, t.Testbed.Name)
	}
	return "the vCenter at " + t.VSphere.Host()
}

func targetStruct(t *target.Target) *starlarkstruct.Struct {
	tb := starlark.Value(starlark.None)
	if t.Testbed != nil {
		tb = starlark.String(t.Testbed.Name)
	}
	return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"target":    starlark.String(t.Kind),
		"testbed":   tb,
		"host":      starlark.String(t.VSphere.Host()),
		"cluster":   starlark.String(t.VSphere.Cluster()),
		"simulated": starlark.Bool(t.Simulated),
	})
}

func (v vsphereModule) inventory(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	c, t, err := v.client(thread)
	if err != nil {
		return nil, err
	}
	inv, err := c.Inventory(runtime.Context(thread))
	if err != nil {
		return nil, err
	}
	var hName, hCPU, hNICs []string
	var hSockets, hCores, hThreads []int
	var hGHz, hMem []float64
	for _, h := range inv.Hosts {
		hName = append(hName, h.Name)
		hCPU = append(hCPU, h.CPUModel)
		hSockets = append(hSockets, h.Sockets)
		hCores = append(hCores, h.Cores)
		hThreads = append(hThreads, h.Threads)
		hGHz = append(hGHz, h.GHz)
		hMem = append(hMem, h.MemoryGB)
		nics := ""
		for i, n := range h.NICs {
			if i > 0 {
				nics += ", "
			}
			nics += fmt.Sprintf("%s %sg", n.Name, strconv.FormatFloat(n.SpeedGbps, 'f', -1, 64))
		}
		hNICs = append(hNICs, nics)
	}
	hosts := dataframe.New(
		series.New(hName, series.String, "host"), series.New(hCPU, series.String, "cpu_model"),
		series.New(hSockets, series.Int, "sockets"), series.New(hCores, series.Int, "cores"),
		series.New(hThreads, series.Int, "threads"), series.New(hGHz, series.Float, "ghz"),
		series.New(hMem, series.Float, "memory_gb"), series.New(hNICs, series.String, "nics"),
	)
	var dName, dType []string
	var dCap, dFree []float64
	for _, d := range inv.Datastores {
		dName, dType = append(dName, d.Name), append(dType, d.Type)
		dCap, dFree = append(dCap, d.CapacityGB), append(dFree, d.FreeGB)
	}
	datastores := dataframe.New(series.New(dName, series.String, "datastore"), series.New(dType, series.String, "type"),
		series.New(dCap, series.Float, "capacity_gb"), series.New(dFree, series.Float, "free_gb"))
	var nName, nType []string
	for _, n := range inv.Networks {
		nName, nType = append(nName, n.Name), append(nType, n.Type)
	}
	networks := dataframe.New(series.New(nName, series.String, "network"), series.New(nType, series.String, "type"))
	return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"datacenter": starlark.String(inv.Datacenter),
		"cluster":    starlark.String(inv.Cluster),
		"hosts":      NewFrame(hosts),
		"datastores": NewFrame(datastores),
		"networks":   NewFrame(networks),
		"simulated":  starlark.Bool(t.Testbed != nil),
	}), nil
}

func (v vsphereModule) deployWorkers(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var prefix, template, ova, datastore, network string
	var perHost, count, cpus, disks starlark.Value = starlark.None, starlark.None, starlark.None, starlark.None
	memory, diskSize := sizeArg{unit: 1 << 20, what: "memory", example: `"8GiB"`}, sizeArg{unit: 1 << 30, what: "disk_size", example: `"50GiB"`}
	var policy policyArg
	pool := 8
	var keep bool
	ipTimeout := durationArg{d: 10 * time.Minute}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "prefix", &prefix, "per_host?", &perHost, "count?", &count,
		"template?", &template, "ova?", &ova, "cpus?", &cpus, "memory?", &memory, "disks?", &disks, "disk_size?", &diskSize,
		"datastore?", &datastore, "network?", &network, "policy?", &policy, "pool?", &pool, "keep_on_failure?", &keep,
		"ip_timeout?", &ipTimeout); err != nil {
		return nil, err
	}
	if ova != "" {
		var err error
		if ova, err = inputPath(thread, ova); err != nil {
			return nil, err
		}
	}
	if pool < 1 {
		return nil, fmt.Errorf("pool=%d: want at least 1 (how many workers are deployed at once)", pool)
	}
	c, t, err := v.client(thread)
	if err != nil {
		return nil, err
	}
	spec := vsphere.WorkerSpec{
		Prefix: prefix, Template: template, OVA: ova, Datastore: datastore, Network: network, Policy: policy.name,
		Pool: pool, KeepOnFailure: keep, IPTimeout: ipTimeout.d,
		CPUs: 4, MemoryMB: 8192, Disks: 8, DiskSizeGB: 50,
	}
	if t.Testbed != nil { // the report's worker layout is the default
		l := t.Testbed.Workers
		spec.CPUs, spec.MemoryMB, spec.Disks, spec.DiskSizeGB = l.CPUs, l.MemoryMB, l.DataDisks, l.DiskSizeGB
	}
	for _, f := range []struct {
		v    starlark.Value
		name string
		dst  *int
	}{{perHost, "per_host", &spec.PerHost}, {count, "count", &spec.Count}, {cpus, "cpus", &spec.CPUs}, {disks, "disks", &spec.Disks}} {
		if f.v == starlark.None {
			continue
		}
		if err := starlark.AsInt(f.v, f.dst); err != nil {
			return nil, fmt.Errorf("%s=%s: want a whole number", f.name, f.v)
		}
	}
	if perHost == starlark.None && count == starlark.None && t.Testbed != nil {
		spec.PerHost = t.Testbed.Workers.PerHost
	}
	if memory.set {
		spec.MemoryMB = int(memory.n)
	}
	if diskSize.set {
		spec.DiskSizeGB = int(diskSize.n)
	}
	workers, err := c.DeployWorkers(runtime.Context(thread), spec)
	if err != nil {
		return nil, err
	}
	return workerList(workers, t.Simulated), nil
}

func (v vsphereModule) workers(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var prefix string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "prefix", &prefix); err != nil {
		return nil, err
	}
	c, t, err := v.client(thread)
	if err != nil {
		return nil, err
	}
	workers, err := c.Workers(runtime.Context(thread), prefix)
	if err != nil {
		return nil, err
	}
	return workerList(workers, t.Simulated), nil
}

func (v vsphereModule) destroyWorkers(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var prefix string
	pool := 8
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "prefix", &prefix, "pool?", &pool); err != nil {
		return nil, err
	}
	c, _, err := v.client(thread)
	if err != nil {
		return nil, err
	}
	names, err := c.DestroyWorkers(runtime.Context(thread), prefix, pool)
	if err != nil {
		return nil, err
	}
	out := make([]starlark.Value, len(names))
	for i, n := range names {
		out[i] = starlark.String(n)
	}
	return starlark.NewList(out), nil
}

func (v vsphereModule) hostMetrics(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var hostsV starlark.Value
	var start, end starlarktime.Time
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "hosts", &hostsV, "start", &start, "end", &end); err != nil {
		return nil, err
	}
	var hosts []string
	if hostsV != starlark.None {
		var err error
		if hosts, err = stringList(hostsV, "hosts"); err != nil {
			return nil, err
		}
	}
	c, t, err := v.client(thread)
	if err != nil {
		return nil, err
	}
	rows, err := c.HostMetrics(runtime.Context(thread), hosts, time.Time(start), time.Time(end))
	if err != nil {
		return nil, err
	}
	var host, at []string
	var cpu, mem, rx, tx, net []float64
	var sim []bool
	for _, r := range rows {
		host, at = append(host, r.Host), append(at, r.Time.UTC().Format(time.RFC3339))
		cpu, mem = append(cpu, r.CPUPercent), append(mem, r.MemoryPercent)
		rx, tx, net = append(rx, r.NetReceivedKBps), append(tx, r.NetTransmittedKBps), append(net, r.NetUsageKBps)
		sim = append(sim, t.Testbed != nil)
	}
	return NewFrame(dataframe.New(
		series.New(host, series.String, "host"), series.New(at, series.String, "time"),
		series.New(cpu, series.Float, "cpu_percent"), series.New(mem, series.Float, "memory_percent"),
		series.New(rx, series.Float, "net_received_kbps"), series.New(tx, series.Float, "net_transmitted_kbps"), series.New(net, series.Float, "net_usage_kbps"),
		series.New(sim, series.Bool, "simulated"),
	)), nil
}

func (v vsphereModule) vsanPerformance(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var enable bool
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "enable?", &enable); err != nil {
		return nil, err
	}
	c, _, err := v.client(thread)
	if err != nil {
		return nil, err
	}
	ctx := runtime.Context(thread)
	if enable {
		if err := c.EnablePerfService(ctx); err != nil {
			return nil, err
		}
	}
	on, err := c.PerfServiceEnabled(ctx)
	return starlark.Bool(on), err
}

func (v vsphereModule) vsanMetrics(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var start, end starlarktime.Time
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "start", &start, "end", &end); err != nil {
		return nil, err
	}
	c, t, err := v.client(thread)
	if err != nil {
		return nil, err
	}
	rows, err := c.VSANMetrics(runtime.Context(thread), time.Time(start), time.Time(end))
	if err != nil {
		return nil, err
	}
	var host, metric, at []string
	var value []float64
	var sim []bool
	for _, r := range rows {
		host, metric, at = append(host, r.Entity), append(metric, r.Metric), append(at, r.Time.UTC().Format(time.RFC3339))
		value, sim = append(value, r.Value), append(sim, t.Testbed != nil)
	}
	return NewFrame(dataframe.New(
		series.New(host, series.String, "host"), series.New(metric, series.String, "metric"),
		series.New(at, series.String, "time"), series.New(value, series.Float, "value"),
		series.New(sim, series.Bool, "simulated"),
	)), nil
}

// workerList turns deployed workers into Starlark worker handles.
func workerList(ws []vsphere.Worker, simulated bool) *starlark.List {
	out := make([]starlark.Value, len(ws))
	for i, w := range ws {
		out[i] = NewWorker(fioWorker(w, simulated), w.VM)
	}
	return starlark.NewList(out)
}

// fioWorker is a deployed worker as the data plane sees it.
func fioWorker(w vsphere.Worker, simulated bool) fio.Worker {
	fw := fio.Worker{Name: w.Name, Host: w.Host, Simulated: simulated, CPUs: w.CPUs, Controller: w.Controller}
	if w.IP != "" {
		fw.Addr = fmt.Sprintf("%s:%d", w.IP, worker.ServerPort)
	}
	for _, d := range w.Disks {
		fw.Disks = append(fw.Disks, fio.Disk{Name: d.Name, Path: d.Path, SizeBytes: d.SizeBytes, Policy: d.Policy})
	}
	return fw
}

// stringList unpacks a string or a list of strings.
func stringList(v starlark.Value, what string) ([]string, error) {
	if s, ok := starlark.AsString(v); ok {
		return []string{s}, nil
	}
	iter, ok := v.(starlark.Iterable)
	if !ok {
		return nil, fmt.Errorf("%s: got %s, want a string or a list of strings", what, v.Type())
	}
	var out []string
	it := iter.Iterate()
	defer it.Done()
	var x starlark.Value
	for it.Next(&x) {
		s, ok := starlark.AsString(x)
		if !ok {
			return nil, fmt.Errorf("%s: got a list holding %s, want only strings", what, x.Type())
		}
		out = append(out, s)
	}
	return out, nil
}

// sizeArg unpacks a size: a number in unit, or text like "8GiB" that is a
// whole number of units.
type sizeArg struct {
	unit    int64
	what    string
	example string
	n       int64
	set     bool
}

func (a *sizeArg) Unpack(v starlark.Value) error {
	a.set = true
	if i, ok := v.(starlark.Int); ok {
		n, ok := i.Int64()
		if !ok || n <= 0 {
			return fmt.Errorf("%s=%s: want a positive size", a.what, i)
		}
		a.n = n
		return nil
	}
	s, ok := starlark.AsString(v)
	if !ok {
		return fmt.Errorf("got %s, want a size like %s", v.Type(), a.example)
	}
	bytes, err := fio.ParseSize(s)
	if err != nil {
		return err
	}
	if bytes <= 0 || bytes%a.unit != 0 {
		return fmt.Errorf("%s=%q: want a positive whole number of %s, like %s", a.what, s, map[int64]string{1 << 20: "MiB", 1 << 30: "GiB"}[a.unit], a.example)
	}
	a.n = bytes / a.unit
	return nil
}

// durationArg unpacks a duration: seconds, or text like "10m".
type durationArg struct{ d time.Duration }

func (a *durationArg) Unpack(v starlark.Value) error {
	if n, ok := v.(starlark.Int); ok {
		sec, ok := n.Int64()
		if !ok || sec <= 0 {
			return fmt.Errorf("got %s, want a positive number of seconds", n)
		}
		a.d = time.Duration(sec) * time.Second
		return nil
	}
	s, ok := starlark.AsString(v)
	if !ok {
		return fmt.Errorf("got %s, want a duration like \"10m\" or a number of seconds", v.Type())
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return fmt.Errorf("duration %q: want a positive duration like \"90s\", \"10m\" or \"1h\"", s)
	}
	a.d = d
	return nil
}
