package vsphere

import (
	"context"
	"slices"
	"sync"

	"github.com/vmware/govmomi/vim25/mo"
)

// Versions are counters a control plane (the embedded simulator) moves when
// its state may have changed.
type Versions interface {
	// Version moves on any change.
	Version() uint64
	// VMVersion moves on the changes that may change what a read of worker
	// VMs returns: not on cluster settings.
	VMVersion() uint64
}

// readCache keeps the answers to reads while a version stands still:
// nothing the reads depend on has changed, so asking again would give the
// same answers.
type readCache struct {
	version func() uint64

	mu      sync.Mutex
	at      uint64
	answers map[string]any
}

// cachedRead returns the answer to the read named key: the one rc kept
// while its version stands still, else what read returns, kept if the
// version did not move meanwhile. clone copies an answer, so that no two
// callers share one. Without a cache (a real vCenter) every read goes to
// the server.
func cachedRead[T any](rc *readCache, key string, clone func(T) T, read func() (T, error)) (T, error) {
	if rc == nil {
		return read()
	}
	v := rc.version()
	rc.mu.Lock()
	if rc.at != v || rc.answers == nil {
		rc.at, rc.answers = v, map[string]any{}
	}
	kept, ok := rc.answers[key]
	rc.mu.Unlock()
	if ok {
		return clone(kept.(T)), nil
	}
	out, err := read()
	if err != nil {
		return out, err
	}
	rc.mu.Lock()
	if rc.at == v && rc.version() == v {
		rc.answers[key] = clone(out)
	}
	rc.mu.Unlock()
	return out, nil
}

func cloneWorkers(ws []Worker) []Worker {
	out := slices.Clone(ws)
	for i := range out {
		out[i].Disks = slices.Clone(out[i].Disks)
	}
	return out
}

func cloneState(s ClusterState) ClusterState {
	s.ActiveNICs, s.StandbyNICs, s.RDMAMissing = slices.Clone(s.ActiveNICs), slices.Clone(s.StandbyNICs), slices.Clone(s.RDMAMissing)
	return s
}

func same[T any](v T) T { return v }

// hostNames returns the cluster's hosts, sorted by name, with their names
// and references only.
func (c *Client) hostNames(ctx context.Context) ([]mo.HostSystem, error) {
	return cachedRead(c.cache, "host names", slices.Clone, func() ([]mo.HostSystem, error) {
		hosts, err := c.hosts(ctx)
		out := make([]mo.HostSystem, len(hosts))
		for i, h := range hosts {
			out[i].Self, out[i].Name = h.Self, h.Name
		}
		return out, err
	})
}
