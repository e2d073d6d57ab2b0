package vsphere

import (
	"context"
	"testing"

	"starbench/internal/sim"
)

// Deployed workers carry their vCPUs and their data disks' controller, the
// guest side the simulated data plane models.
func TestWorkersCarryTheirGuestSide(t *testing.T) {
	_, c := startSim(t, sim.Options{Testbed: testbedOf(4, "ESA")})
	ctx := context.Background()
	spec := smallSpec("g")
	spec.CPUs = 6
	if _, err := c.DeployWorkers(ctx, spec); err != nil {
		t.Fatal(err)
	}
	workers, err := c.Workers(ctx, "g")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range workers {
		if w.CPUs != 6 || w.Controller != "pvscsi" {
			t.Errorf("worker %s: %d vCPUs on %q, want 6 on pvscsi", w.Name, w.CPUs, w.Controller)
		}
	}
}
