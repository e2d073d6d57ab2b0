package model

import (
	"context"
	"math"
	"strings"
	"testing"

	"starbench/internal/fio"
)

// solveStriped solves one 4K random-write job of depth 64 on each disk of
// vms VMs (on 4 hosts in turn), disks disks each, RAID-1 striped over
// width devices, on StorageReview's ESA cluster (8 devices a host).
func solveStriped(t *testing.T, vms, disks, width int, job *fio.Job) *Output {
	t.Helper()
	p := mustLoad(t, "storagereview-r6625-esa")
	in := Input{Jobs: []JobLoad{{Job: job}}}
	for v := range vms {
		in.VMs = append(in.VMs, VM{Host: string(rune('a' + v%4))})
		for range disks {
			in.Jobs[0].Disks = append(in.Jobs[0].Disks, DiskLoad{VM: v, Policy: Policy{RAID: "raid1", FTT: 1, StripeWidth: width}, Written: 1})
		}
	}
	out, err := Solve(context.Background(), p, in)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func randWrite4K() *fio.Job {
	return &fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4096, IODepth: 64}
}

// Striping spreads a few objects over more devices: one VM's one disk
// binds its two replicas' devices (the LSOM station of each); striped over
// 2 and 4 devices the same writes reach more devices and run faster until
// something above the devices binds (VMware: "striping may help
// performance if certain virtual machines are I/O intensive and others
// are not").
func TestStripeWidthSpreadsFewObjects(t *testing.T) {
	prev := solveStriped(t, 1, 1, 1, randWrite4K())
	if !strings.HasPrefix(prev.Bottleneck, "vsan-device") && !strings.HasPrefix(prev.Bottleneck, "ssd") {
		t.Fatalf("one disk not striped: bound by %s, want its devices", prev.Bottleneck)
	}
	for _, width := range []int{2, 4} {
		out := solveStriped(t, 1, 1, width, randWrite4K())
		if out.Write.IOPS <= 1.2*prev.Write.IOPS {
			t.Errorf("striped over %d: %.0f IOPS, want well above %.0f (over %d)", width, out.Write.IOPS, prev.Write.IOPS, width/2)
		}
		t.Logf("stripe width %d: %.0f IOPS, bound by %s", width, out.Write.IOPS, out.Bottleneck)
		prev = out
	}
}

// Where every device already holds as many components as any other (8 VMs
// of 8 disks on 4 hosts of 8 devices), striping spreads the same load the
// same way: "striping may not help performance if a VM's data is spread
// across devices that are already busy" (VMware).
func TestStripeWidthChangesNothingOnAFullLayout(t *testing.T) {
	plain := solveStriped(t, 8, 8, 1, randWrite4K())
	striped := solveStriped(t, 8, 8, 4, randWrite4K())
	if math.Abs(striped.Write.IOPS-plain.Write.IOPS) > 1e-6*plain.Write.IOPS || striped.Bottleneck != plain.Bottleneck {
		t.Errorf("full layout: %.0f IOPS (%s) striped over 4, %.0f (%s) not", striped.Write.IOPS, striped.Bottleneck, plain.Write.IOPS, plain.Bottleneck)
	}
}

// What the model leaves out of striping is said on the run: stripes beyond
// a host's devices, and blocks larger than a stripe.
func TestStripeNotes(t *testing.T) {
	has := func(out *Output, part string) bool {
		for _, n := range out.Notes {
			if strings.Contains(n, part) {
				return true
			}
		}
		return false
	}
	large := &fio.Job{IOEngine: "libaio", Direct: true, RW: "read", BlockSize: 4 << 20, IODepth: 4}
	stripeSized := &fio.Job{IOEngine: "libaio", Direct: true, RW: "read", BlockSize: 1 << 20, IODepth: 4}
	cases := []struct {
		width     int
		job       *fio.Job
		wide, big bool
	}{
		{1, randWrite4K(), false, false},
		{1, large, false, false},
		{8, randWrite4K(), false, false},
		{12, randWrite4K(), true, false},
		{2, large, false, true},
		{2, stripeSized, false, false}, // a 1 MiB block fits one stripe
	}
	for _, c := range cases {
		out := solveStriped(t, 1, 1, c.width, c.job)
		wide, big := has(out, "capacity devices of a host"), has(out, "blocks of 4096 KiB span more than one 1 MiB stripe")
		if wide != c.wide || big != c.big {
			t.Errorf("stripe width %d, %d KiB blocks: notes %q; want the too-wide note %v, the large-block note %v", c.width, c.job.BlockSize>>10, out.Notes, c.wide, c.big)
		}
	}
}
