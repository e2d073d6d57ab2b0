package target

import (
	"context"
	"slices"
	"sync"

	"starbench/internal/fio"
)

// LocalPlane is the data plane of the local target: the simulated
// cluster's worker VMs run their workloads on real fio servers on
// loopback, one per VM, started on first use. Each VM disk becomes a data
// file of at most MaxDiskBytes, so the whole pipeline runs for real on one
// machine. Workers already bound to a server (fio.local_workers) run as they are.
type LocalPlane struct {
	Runner fio.Runner
	// MaxDiskBytes caps each data file (default 64 MiB): VM disks are
	// tens of GiB, which a laptop should not write for a test.
	MaxDiskBytes int64

	dir   string
	mu    sync.Mutex
	local *fio.Local
	bound map[string]fio.Worker
}

var _ fio.DataPlane = (*LocalPlane)(nil)

// NewLocalPlane returns a local data plane keeping data files under dir
// ("" = a temporary directory removed at Close).
func NewLocalPlane(dir string) *LocalPlane {
	return &LocalPlane{dir: dir, bound: map[string]fio.Worker{}}
}

// Run binds the workers to local servers and runs the workload on them.
func (p *LocalPlane) Run(ctx context.Context, workers []fio.Worker, wl *fio.Workload, progress func(fio.Status)) (*fio.Result, error) {
	ws, err := p.bind(ctx, workers)
	if err != nil {
		return nil, err
	}
	return p.Runner.Run(ctx, ws, wl, progress)
}

// Prepare binds the workers to local servers and fills their data files.
func (p *LocalPlane) Prepare(ctx context.Context, workers []fio.Worker, prep fio.Prep, progress func(fio.Status)) error {
	ws, err := p.bind(ctx, workers)
	if err != nil {
		return err
	}
	return p.Runner.Prepare(ctx, ws, prep, progress)
}

// bind returns the workers with every VM (a worker on a host) replaced by
// its local server: same name and disk names, loopback address, local files.
func (p *LocalPlane) bind(ctx context.Context, workers []fio.Worker) ([]fio.Worker, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]fio.Worker, len(workers))
	for i, w := range workers {
		if w.Host == "" && w.Addr != "" {
			out[i] = w
			continue
		}
		limit := p.MaxDiskBytes
		if limit <= 0 {
			limit = 64 << 20
		}
		disks := make([]fio.Disk, len(w.Disks))
		for j, d := range w.Disks {
			d.SizeBytes = min(d.SizeBytes, limit)
			if d.SizeBytes <= 0 {
				d.SizeBytes = limit
			}
			disks[j] = d
		}
		// A worker destroyed and deployed again under its name with other
		// disks gets a server with those disks, not the old layout.
		b, ok := p.bound[w.Name]
		if !ok || !sameDisks(b.Disks, disks) {
			if p.local == nil {
				l, err := fio.NewLocal(p.dir, p.Runner.Binary)
				if err != nil {
					return nil, err
				}
				p.local = l
			}
			var err error
			if b, err = p.local.Add(ctx, w.Name, disks); err != nil {
				return nil, err
			}
			b.Host = w.Host
			p.bound[w.Name] = b
		}
		out[i] = b
	}
	return out, nil
}

// sameDisks says whether a bound worker's data files stand for disks: the
// same names and (capped) sizes, in order.
func sameDisks(bound, disks []fio.Disk) bool {
	return slices.EqualFunc(bound, disks, func(a, b fio.Disk) bool {
		return a.Name == b.Name && a.SizeBytes == b.SizeBytes
	})
}

// Close stops every local server the plane started.
func (p *LocalPlane) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.local != nil {
		p.local.Close()
	}
}
