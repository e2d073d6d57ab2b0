package vsphere

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"starbench/internal/sim"
)

// govmomiTestOVA is a small real appliance shipped in govmomi's test data.
func govmomiTestOVA(t *testing.T) string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/vmware/govmomi").Output()
	if err != nil {
		t.Skipf("cannot locate the govmomi module: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "vapi", "library", "testdata", "ttylinux-pc_i486-16.1.ova")
}

func TestDeployFromAnOVAImportsItOnce(t *testing.T) {
	ova := govmomiTestOVA(t)
	_, c := startSim(t, sim.Options{Testbed: testbedOf(3, "ESA")})
	ctx := context.Background()
	spec := WorkerSpec{Prefix: "tty", Count: 3, OVA: ova, CPUs: 1, MemoryMB: 512, Disks: 1, DiskSizeGB: 1, IPTimeout: time.Minute}
	ws, err := c.DeployWorkers(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 3 || len(ws[0].Disks) != 1 {
		t.Fatalf("workers %+v", ws)
	}
	if _, err := c.finder.VirtualMachine(ctx, "ttylinux-pc_i486-16.1"); err != nil {
		t.Fatalf("no template from the OVA: %v", err)
	}
	if again, err := c.DeployWorkers(ctx, spec); err != nil || again[0].VM != ws[0].VM {
		t.Errorf("second deployment: %v", err)
	}
	if vms, err := c.finder.VirtualMachineList(ctx, "ttylinux*"); err != nil || len(vms) != 1 {
		t.Errorf("the OVA was imported %d times, want once (%v)", len(vms), err)
	}
	spec.OVA = filepath.Join(t.TempDir(), "missing.ova")
	spec.Prefix = "none"
	if _, err := c.DeployWorkers(ctx, spec); err == nil || !strings.Contains(err.Error(), "missing.ova") {
		t.Errorf("missing OVA: %v", err)
	}
}
