package model

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// What passes through OSA's write buffers besides fio's runs (a fill of the
// disks, vSAN's own rewrites) and how the plane reports their state to the
// control plane. How runs fill and drain them is timeline.go's.

// BufferFunc receives how full OSA's disk groups' write buffers are (the
// share of each holding data) whenever a run, a fill of the disks or a
// rewrite by vSAN leaves them otherwise, with the wall-clock time.
type BufferFunc func(at time.Time, full float64)

// WithWriteBuffer reports how full OSA's write buffers are to f, so the
// control plane can report it as vSAN's performance service does; never
// called on ESA.
func WithWriteBuffer(f BufferFunc) Option {
	return func(pl *Plane) { pl.bufferAt = f }
}

// reportBuffer hands the write buffers' state to the control plane.
func (pl *Plane) reportBuffer() {
	if pl.bufferAt == nil || pl.p.Storage.DiskGroups == 0 {
		return
	}
	pl.mu.Lock()
	full := pl.buffer.full(pl.p)
	pl.mu.Unlock()
	pl.bufferAt(time.Now(), full)
}

// prepBuffered is what a fill writes into OSA's write buffers, all disk
// groups together: every disk whole (twice with the aging pass), times its
// policy's capacity factor (the replicas' or the stripe's bytes the
// elevators will destage); 0 on ESA. A policy it cannot read or lay out
// is left to the runs, which refuse it saying why.
func (pl *Plane) prepBuffered(ctx context.Context, workers []fio.Worker, prep fio.Prep) float64 {
	if pl.p.Storage.DiskGroups == 0 {
		return 0
	}
	policies, _, err := pl.policies(ctx, workers)
	if err != nil {
		return 0
	}
	passes := 1.0
	if prep.Age {
		passes = 2
	}
	bytes := 0.0
	for _, d := range disksOf(workers) {
		if lay, err := policyLayout(pl.p, policies[d.Policy]); err == nil {
			bytes += passes * pl.diskSize(d) * lay.capFactor
		}
	}
	return bytes
}

// objectLayout is how a disk's objects lie on OSA's disk groups: what of
// its storage policy places their data, and the cluster settings the disk
// groups are formatted with. A change of any makes vSAN rewrite them.
type objectLayout struct {
	layout
	stripeWidth int
	format      diskFormat
}

// diskFormat is what OSA formats its disk groups with: changing any makes
// vSAN reformat them one at a time, moving all their data elsewhere and
// back (a rolling reformat).
type diskFormat struct{ compression, dedup, encryption bool }

// reformatTime says how long, at least, a rolling reformat takes on a
// real cluster to move bytes of components (the workers'; the cluster's
// other data takes longer still): vSAN empties one disk group at a time,
// so its data leaves no faster than the group's capacity devices read it
// (their datasheet rate) and its host's vSAN uplinks send it. "" where the
// uplinks cannot be read.
func reformatTime(p *testbed.Profile, state ClusterState, bytes float64) string {
	link, err := resolveLink(p, state, state.RDMA)
	if err != nil {
		return ""
	}
	read := float64(p.Storage.CapacityPerGroup) * p.Storage.Capacity.ReadMBps * 1e6
	send := link.bps / link.frame
	rate := math.Min(read, send)
	return fmt.Sprintf(" (a rolling reformat, a disk group at a time: moving them takes a real cluster at least %.1f h, a group's data read at %.1f GB/s by its capacity devices and sent at %.1f GB/s on the vSAN uplinks; other data on the cluster adds to it)",
		bytes/rate/3600, read/1e9, send/1e9)
}

// reformat finds whether the disk groups' format (space efficiency,
// data-at-rest encryption) changed since the run's disks last ran, and if
// so takes it as the rolling reformat of every disk group: the written
// components of every disk the plane has seen, whichever run they belong
// to, are moved once, at their layout's capacity factor, and each such
// disk is marked with the new format. It returns the bytes moved and how
// many disks held them; the caller holds pl.mu.
func (pl *Plane) reformat(workers []fio.Worker, format diskFormat) (float64, int) {
	changed := false
	for _, w := range workers {
		for _, d := range w.Disks {
			if lo, seen := pl.laidOut[diskKey{w.Name, d.Name}]; seen && lo.format != format {
				changed = true
			}
		}
	}
	if !changed {
		return 0, 0
	}
	moved, disks := 0.0, 0
	for key, lo := range pl.laidOut {
		if lo.format == format {
			continue
		}
		lo.format = format
		pl.laidOut[key] = lo
		if dd, ok := pl.disks[key]; ok {
			if written, _ := dd.whole(); written > 0 {
				moved += written * dd.size * lo.layout.capFactor
				disks++
			}
		}
	}
	return moved, disks
}

// relayOut finds, on OSA, the workers' disks whose objects vSAN rewrote
// since the plane last filled or ran on them: a storage policy that lays
// them out otherwise (policy.apply waits for the resync), or a change of
// space efficiency or data-at-rest encryption (the rolling reformat). The
// rewrite went through the disk groups' write buffers like any write: the
// disk's written blocks times its layout's capacity factor. It returns a
// note where it moved the buffers; a policy or state it cannot read is
// left to the run, which refuses it saying why.
func (pl *Plane) relayOut(ctx context.Context, workers []fio.Worker) string {
	if pl.p.Storage.DiskGroups == 0 {
		return ""
	}
	state, err := pl.src.ClusterState(ctx)
	if err != nil {
		return ""
	}
	policies, _, err := pl.policies(ctx, workers)
	if err != nil {
		return ""
	}
	format := diskFormat{state.Compression, state.Dedup, state.RestEncryption}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	moved, reformatted := pl.reformat(workers, format)
	bytes, relaid := moved, 0
	for _, w := range workers {
		for _, d := range w.Disks {
			lay, err := policyLayout(pl.p, policies[d.Policy])
			if err != nil {
				continue // the run refuses it
			}
			now := objectLayout{lay, max(policies[d.Policy].StripeWidth, 1), format}
			key := diskKey{w.Name, d.Name}
			before, seen := pl.laidOut[key]
			pl.laidOut[key] = now
			written, _ := pl.data(w.Name, d).whole()
			if !seen || before == now || written == 0 {
				continue
			}
			bytes += written * pl.diskSize(d) * lay.capFactor
			relaid++
		}
	}
	if bytes == 0 {
		return ""
	}
	pl.buffer.add(pl.p, bytes)
	var why []string
	if relaid > 0 {
		why = append(why, fmt.Sprintf("the storage policy of %d disks lays out their objects otherwise", relaid))
	}
	if reformatted > 0 {
		why = append(why, fmt.Sprintf("a change of space efficiency or encryption reformatted every disk group, moving the components of the %d workers' disks written so far", reformatted)+reformatTime(pl.p, state, moved))
	}
	return fmt.Sprintf("since the disks' last run %s: vSAN rewrote %.0f GB of their components, which went through the disk groups' write buffers (now %.0f %% full)",
		strings.Join(why, ", and "), bytes/1e9, 100*pl.buffer.full(pl.p))
}
