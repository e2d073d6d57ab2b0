package sim

import (
	"os"
	"runtime/debug"
	"testing"

	"starbench/internal/testbed"
)

// TestASimulatorSetsTheCollectorsTarget: a process that starts a simulator
// collects garbage at GCPercent, unless its GOGC says otherwise.
func TestASimulatorSetsTheCollectorsTarget(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set: the user's setting wins")
	}
	p, err := testbed.Load("wwt-r640-osa")
	if err != nil {
		t.Fatal(err)
	}
	startAndLogin(t, p)
	got := debug.SetGCPercent(GCPercent)
	if got != GCPercent {
		t.Errorf("GOGC %d after a simulator started, want %d", got, GCPercent)
	}
}
