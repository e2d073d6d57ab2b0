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

// TestEmbeddedRunsShowUpInHostMetrics: the CPU the model predicts for a run
// is what PerformanceManager reports for every host over the run's window.
func TestEmbeddedRunsShowUpInHostMetrics(t *testing.T) {
	ctx := context.Background()
	tg, closeFn, err := Open(ctx, Options{ExactModel: true})
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	workers := []fio.Worker{{Name: "w1", Simulated: true, Disks: []fio.Disk{{Name: "disk1", Path: "/dev/sdb"}}}}
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
	var predicted float64
	for _, n := range res.Notes {
		if _, after, ok := strings.Cut(n, "host CPU "); ok {
			fmt.Sscanf(after, "%f", &predicted)
		}
	}
	hosts := map[string]bool{}
	for _, s := range samples {
		hosts[s.Host] = true
		if math.Abs(s.CPUPercent-predicted) > 1 {
			t.Errorf("host %s CPU %.1f %%, the model predicted %.1f %%", s.Host, s.CPUPercent, predicted)
		}
	}
	if predicted <= 2 || len(hosts) != tg.Testbed.Hosts {
		t.Errorf("predicted CPU %.1f %% from notes %q; samples from %d hosts, want %d", predicted, res.Notes, len(hosts), tg.Testbed.Hosts)
	}
}
