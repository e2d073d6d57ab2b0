package vsphere

import (
	"context"
	"fmt"
	"testing"
	"time"

	"starbench/internal/sim"
	"starbench/internal/testbed"
)

// BenchmarkDeploy96Workers deploys 96 workers with 8 data disks each on the
// 24-host wwt-r640-osa testbed, every simulator call taking 50 ms as a busy
// vCenter's might, with a pool of 1 and of 8. Run it alone, once:
//
//	go test ./internal/vsphere -run XXX -bench Deploy96 -benchtime 1x
func BenchmarkDeploy96Workers(b *testing.B) {
	p, err := testbed.Load("wwt-r640-osa")
	if err != nil {
		b.Fatal(err)
	}
	for _, size := range []int{1, 8} {
		b.Run(fmt.Sprintf("pool=%d", size), func(b *testing.B) {
			_, c := startSim(b, sim.Options{Testbed: p, Latency: 50 * time.Millisecond})
			deployFleets(b, c, WorkerSpec{Prefix: "bench", PerHost: 4, CPUs: 4, MemoryMB: 8192, Disks: 8, DiskSizeGB: 100, Pool: size, IPTimeout: time.Minute})
		})
	}
}

// BenchmarkDeployEmbedded deploys the WWT "general" fleet as the embedded
// default does: 96 workers x 8 data disks on RAID6 FTT2, in process, with no
// simulated latency. Run it alone, once:
//
//	go test ./internal/vsphere -run XXX -bench DeployEmbedded -benchtime 1x
func BenchmarkDeployEmbedded(b *testing.B) {
	p, err := testbed.Load("wwt-r640-osa")
	if err != nil {
		b.Fatal(err)
	}
	_, c, _ := startInProcess(b, sim.Options{Testbed: p})
	ctx := context.Background()
	if _, err := c.SetPolicy(ctx, PolicySpec{Name: "bench-raid6", RAID: "raid6", FTT: 2}); err != nil {
		b.Fatal(err)
	}
	spec := WorkerSpec{Prefix: "bench", PerHost: 4, CPUs: 4, MemoryMB: 8192, Disks: 8, DiskSizeGB: 100, Policy: "bench-raid6", IPTimeout: time.Minute}
	deployFleets(b, c, spec)
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/fleet")
	b.ReportMetric(0, "ns/op")
}

// deployFleets deploys the 96 workers of spec once per iteration, and
// destroys them again outside the timing.
func deployFleets(b *testing.B, c *Client, spec WorkerSpec) {
	ctx := context.Background()
	for b.Loop() {
		ws, err := c.DeployWorkers(ctx, spec)
		if err != nil {
			b.Fatal(err)
		}
		if len(ws) != 96 {
			b.Fatalf("%d workers, want 96", len(ws))
		}
		b.StopTimer()
		if _, err := c.DestroyWorkers(ctx, spec.Prefix, 16); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
