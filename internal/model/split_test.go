package model

import (
	"context"
	"testing"

	"starbench/internal/testbed"
)

// Refit gives back the calibration: with the parameters it returns set,
// each calibration cell the split moves reaches the shipped model's
// ceiling again (within 0.2 %), and cells it does not move keep theirs;
// the model's own world counts change nothing, and OSA's worlds a disk
// group, which the calibration cannot see, move no cycles.
func TestRefitKeepsTheCalibration(t *testing.T) {
	ctx := context.Background()
	if params, err := Refit(ctx, Split{DOMWorlds: testbed.DefaultModel("ESA").DOMWorldsPerHost.Value}); err != nil || len(params) != 0 {
		t.Errorf("the model's own DOM worlds: %v, %v; want nothing to change", params, err)
	}
	if params, err := Refit(ctx, Split{DiskGroupWorlds: 4}); err != nil || len(params) != 1 || params["diskgroup_worlds"].Value != 4 {
		t.Errorf("4 worlds a disk group: %v, %v; want them alone (the calibration has no disk groups)", params, err)
	}
	params, err := Refit(ctx, Split{DeviceWorlds: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(params) != 4 || params["device_worlds"].Value != 3 {
		t.Fatalf("3 LSOM worlds a device: %v; want device_worlds and the three LSOM cycles", params)
	}
	set := func(m *testbed.ModelParams) { m.Set(params) }
	base := mustLoad(t, calibrationProfile)
	for _, c := range append(append([]fitCell{}, lsomCells...), domCells...) {
		want, err1 := c.ceiling(ctx, base, nil)
		got, err2 := c.ceiling(ctx, base, set)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !within(got, want, 0.002) {
			t.Errorf("%s: %.0f I/Os a second with 3 LSOM worlds a device refitted, the shipped model's %.0f", c.name, got, want)
		}
	}
}
