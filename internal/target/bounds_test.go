package target

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"starbench/internal/fio"
)

// A measured result passes the same physical-bound check as a simulated
// one: real fio on the local target, whose testbed's devices are far too
// slow for what loopback files deliver, gets the warning in its notes.
func TestMeasuredResultsAreCheckedAgainstTheTestbed(t *testing.T) {
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed (apt-get install -y fio)")
	}
	data, err := os.ReadFile("../testbed/profiles/storagereview-r6625-esa.json")
	if err != nil {
		t.Fatal(err)
	}
	slow := strings.NewReplacer(`"read_mbps": 6800`, `"read_mbps": 0.001`, `"read_iops": 1100000`, `"read_iops": 0.01`).Replace(string(data))
	profile := filepath.Join(t.TempDir(), "slow.json")
	if err := os.WriteFile(profile, []byte(slow), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tg, closeFn, err := Open(ctx, Options{Kind: Local, Testbed: profile})
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	vms := []fio.Worker{{Name: "w-1", Host: "esx-01", Disks: []fio.Disk{{Name: "disk1", Path: "/dev/sdb", SizeBytes: 1 << 30}}}}
	if err := tg.DataPlane.Prepare(ctx, vms, fio.Prep{Method: "random"}, nil); err != nil {
		t.Fatal(err)
	}
	res, err := tg.DataPlane.Run(ctx, vms, fio.NewWorkload(fio.Job{Name: "r", RW: "randread", BlockSize: 4096, RuntimeSec: 1, TimeBased: true}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Simulated || len(res.Aggregate) == 0 {
		t.Fatalf("a measured result with rows: simulated %v, %d aggregate rows", res.Simulated, len(res.Aggregate))
	}
	if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "exceeds the capacity devices'") {
		t.Errorf("%.0f measured read IOPS on devices of 0.01 IOPS: notes %q lack the bound warning", res.Aggregate[0].IOPS, res.Notes)
	}
}
