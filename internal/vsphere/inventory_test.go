package vsphere

import (
	"context"
	"testing"

	"starbench/internal/sim"
)

func TestInventoryShowsTheTestbed(t *testing.T) {
	_, c := startSim(t, sim.Options{Testbed: testbedOf(4, "OSA")})
	inv, err := c.Inventory(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Hosts) != 4 {
		t.Fatalf("got %d hosts, want 4", len(inv.Hosts))
	}
	h := inv.Hosts[0]
	if h.CPUModel != "Test CPU 6240" || h.Cores != 36 || h.Sockets != 2 || h.GHz != 2.6 || h.MemoryGB != 512 {
		t.Errorf("host hardware = %+v", h)
	}
	if len(h.NICs) != 4 || h.NICs[2].Name != "vmnic2" || h.NICs[2].SpeedGbps != 25 {
		t.Errorf("host NICs = %+v", h.NICs)
	}
	var vsan bool
	for _, ds := range inv.Datastores {
		vsan = vsan || (ds.Name == "vsanDatastore" && ds.Type == "vsan")
	}
	if !vsan {
		t.Errorf("datastores = %+v, want vsanDatastore of type vsan", inv.Datastores)
	}
	if len(inv.Networks) == 0 {
		t.Errorf("no networks")
	}
}
