package target

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"starbench/internal/fio"
	"starbench/internal/model"
	"starbench/internal/sim"
	"starbench/internal/testbed"
)

func TestOpenEmbeddedDefaultsToTheStorageReviewTestbed(t *testing.T) {
	tg, closeFn, err := Open(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	if tg.Kind != Embedded || !tg.Simulated || tg.Testbed.Name != testbed.Default || tg.Sim == nil {
		t.Errorf("target = %+v", tg)
	}
	if _, ok := tg.DataPlane.(*model.Plane); !ok {
		t.Errorf("embedded data plane = %T, want the model", tg.DataPlane)
	}
	inv, err := tg.VSphere.Inventory(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Hosts) != tg.Testbed.Hosts {
		t.Errorf("%d hosts, want %d", len(inv.Hosts), tg.Testbed.Hosts)
	}
}

func TestOpenVCenterFromTheGovcEnvironment(t *testing.T) {
	p, err := testbed.Load("vxrail-ve660-esa")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.Start(sim.Options{Testbed: p})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pass, _ := s.Userinfo().Password()
	env := map[string]string{"GOVC_URL": s.URL.String(), "GOVC_USERNAME": sim.User, "GOVC_PASSWORD": pass}

	_, _, err = Open(context.Background(), Options{Kind: VCenter, Env: func(k string) string { return env[k] }})
	if err == nil || !strings.Contains(err.Error(), "certificate") || strings.Contains(err.Error(), pass) {
		t.Fatalf("untrusted vCenter: got %v, want a certificate error without the password", err)
	}
	env["GOVC_INSECURE"] = "true"
	tg, closeFn, err := Open(context.Background(), Options{Kind: VCenter, Env: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	if tg.Simulated || tg.Testbed != nil || tg.VSphere.Cluster() != sim.Cluster {
		t.Errorf("target = %+v", tg)
	}
}

func TestOpenRefusesUnknownTargetsAndTestbeds(t *testing.T) {
	if _, _, err := Open(context.Background(), Options{Kind: "cloud"}); err == nil || !strings.Contains(err.Error(), `want "embedded", "vcenter" or "local"`) {
		t.Errorf("unknown kind: %v", err)
	}
	if _, _, err := Open(context.Background(), Options{Testbed: "nope"}); err == nil || !strings.Contains(err.Error(), "storagereview-r6625-esa") {
		t.Errorf("unknown testbed: %v", err)
	}
}

// runOnEmbedded runs 4K random reads on one disk of one worker on host
// ("": not known) of the embedded default and returns the host CPU each
// host reported over the run, and the busiest host's CPU the run's notes
// quote (in whole percent).
func runOnEmbedded(t *testing.T, host func(hosts []string) string) (cpu map[string]float64, hosts []string, predicted float64) {
	t.Helper()
	ctx := context.Background()
	tg, closeFn, err := Open(ctx, Options{ExactModel: true})
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	inv, err := tg.VSphere.Inventory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range inv.Hosts {
		hosts = append(hosts, h.Name)
	}
	workers := []fio.Worker{{Name: "w1", Host: host(hosts), Simulated: true, Disks: []fio.Disk{{Name: "disk1", Path: "/dev/sdb"}}}}
	if err := tg.DataPlane.Prepare(ctx, workers, fio.Prep{Method: "random", BlockSize: 256 << 10}, nil); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := tg.DataPlane.Run(ctx, workers, fio.NewWorkload(fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4096, IODepth: 64, NumJobs: 1, RuntimeSec: 60}), nil)
	if err != nil {
		t.Fatal(err)
	}
	samples, err := tg.VSphere.HostMetrics(ctx, nil, start, time.Now().Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range res.Notes {
		if _, after, ok := strings.Cut(n, "host CPU "); ok {
			fmt.Sscanf(after, "%f", &predicted)
		}
	}
	cpu = map[string]float64{}
	for _, s := range samples {
		if c, ok := cpu[s.Host]; ok && c != s.CPUPercent {
			t.Errorf("host %s reports %.2f %% and %.2f %% over one run", s.Host, c, s.CPUPercent)
		}
		cpu[s.Host] = s.CPUPercent
	}
	if predicted <= 0 || len(cpu) != tg.Testbed.Hosts {
		t.Fatalf("predicted CPU %.1f %% from notes %q; samples from %d hosts, want %d", predicted, res.Notes, len(cpu), tg.Testbed.Hosts)
	}
	return cpu, hosts, predicted
}

// TestEmbeddedRunsShowUpInHostMetrics: the CPU the model predicts for a run
// on top of ESXi's idle is what PerformanceManager reports for every host
// over the run's window, where the worker's host is not known (its load
// spread evenly).
func TestEmbeddedRunsShowUpInHostMetrics(t *testing.T) {
	cpu, _, predicted := runOnEmbedded(t, func([]string) string { return "" })
	idle := testbed.DefaultModel("ESA").HostIdleCPUPercent.Value
	for h, c := range cpu {
		if math.Abs(c-(idle+predicted)) > 0.5 {
			t.Errorf("host %s CPU %.2f %%, the model predicted %.2f %% over idle %.0f %%", h, c, predicted, idle)
		}
	}
}

// TestEmbeddedHostMetricsFollowTheLayout: one worker with one RAID-1 disk
// (vSAN's default policy) on the second host: that host reports the
// busiest CPU, one other host (its remote replica's) less but above idle,
// the other two idle.
func TestEmbeddedHostMetricsFollowTheLayout(t *testing.T) {
	cpu, hosts, predicted := runOnEmbedded(t, func(hosts []string) string { return hosts[1] })
	idleCPU := testbed.DefaultModel("ESA").HostIdleCPUPercent.Value
	if got, want := cpu[hosts[1]], idleCPU+predicted; math.Abs(got-want) > 0.5 {
		t.Errorf("the worker's host %s CPU %.2f %%, want %.2f %% (idle and the busiest host's %.2f %%)", hosts[1], got, want, predicted)
	}
	replicas, idle := 0, 0
	for _, h := range hosts {
		switch c := cpu[h]; {
		case h == hosts[1]:
		case c == idleCPU:
			idle++
		case c > idleCPU && c < cpu[hosts[1]]:
			replicas++
		default:
			t.Errorf("host %s CPU %.2f %%: want idle (%.0f %%) or between that and the worker's host's %.2f %%", h, c, idleCPU, cpu[hosts[1]])
		}
	}
	if replicas != 1 || idle != len(hosts)-2 {
		t.Errorf("host CPU %v: %d hosts above idle beside the worker's, %d idle; want 1 and %d", cpu, replicas, idle, len(hosts)-2)
	}
}
