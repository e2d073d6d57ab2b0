package target

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"starbench/internal/fio"
)

// TestLocalPlaneBindsVMsToLocalServers: VM workers of the simulated cluster
// (on a host, with /dev disks of tens of GiB) run on loopback fio servers
// with capped data files, keep their names, and keep their server across runs.
func TestLocalPlaneBindsVMsToLocalServers(t *testing.T) {
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed (apt-get install -y fio)")
	}
	p := NewLocalPlane(t.TempDir())
	p.MaxDiskBytes = 4 << 20
	defer p.Close()
	vms := []fio.Worker{
		{Name: "sb-worker-1", Host: "esx-01", Addr: "10.0.0.1:8765", Disks: []fio.Disk{{Name: "disk1", Path: "/dev/sdb", SizeBytes: 50 << 30, Policy: "raid1"}}},
		{Name: "sb-worker-2", Host: "esx-02", Disks: []fio.Disk{{Name: "disk1", Path: "/dev/sdb", SizeBytes: 50 << 30}}},
	}
	ctx := context.Background()
	if err := p.Prepare(ctx, vms, fio.Prep{Method: "zero"}, nil); err != nil {
		t.Fatal(err)
	}
	job := &fio.Job{Name: "r", RW: "randread", BlockSize: 4096, RuntimeSec: 1, TimeBased: true}
	res, err := p.Run(ctx, vms, fio.NewWorkload(*job), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 || res.Rows[0].Worker != "sb-worker-1" || res.Rows[1].Worker != "sb-worker-2" || res.Simulated {
		t.Fatalf("rows %+v", res.Rows)
	}
	b := p.bound["sb-worker-1"]
	if b.Addr == vms[0].Addr || b.Host != "esx-01" || b.Disks[0].Policy != "raid1" {
		t.Fatalf("bound worker %+v", b)
	}
	fi, err := os.Stat(b.Disks[0].Path)
	if err != nil || fi.Size() != 4<<20 {
		t.Fatalf("data file %s: %v, want 4 MiB", b.Disks[0].Path, err)
	}
	if st, ok := p.Runner.DiskState(b, b.Disks[0]); !ok || st.Method != "zero" {
		t.Fatalf("disk state %+v %v: the fill before the run is not recorded", st, ok)
	}
}

// TestLocalPlaneRebindsAWorkerRedeployedWithOtherDisks: a worker destroyed
// and deployed again under its name with more disks runs on all of them.
func TestLocalPlaneRebindsAWorkerRedeployedWithOtherDisks(t *testing.T) {
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed (apt-get install -y fio)")
	}
	p := NewLocalPlane(t.TempDir())
	defer p.Close()
	ctx := context.Background()
	vm := fio.Worker{Name: "w-01", Host: "esx-01", Disks: []fio.Disk{{Name: "disk1", Path: "/dev/sdb", SizeBytes: 10 << 30}}}
	first, err := p.bind(ctx, []fio.Worker{vm})
	if err != nil {
		t.Fatal(err)
	}
	if again, err := p.bind(ctx, []fio.Worker{vm}); err != nil || again[0].Addr != first[0].Addr {
		t.Fatalf("the same worker again: %+v, %v; want the server it has", again, err)
	}
	vm.Disks = append(vm.Disks, fio.Disk{Name: "disk2", Path: "/dev/sdc", SizeBytes: 10 << 30})
	redeployed, err := p.bind(ctx, []fio.Worker{vm})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(redeployed[0].Disks); got != 2 {
		t.Errorf("redeployed with 2 disks, bound to %d", got)
	}
}
