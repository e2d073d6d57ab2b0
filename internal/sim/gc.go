package sim

import (
	"os"
	"runtime/debug"
	"sync"
)

// GCPercent is the garbage collector's target (GOGC) a process running a
// simulator gets, unless its GOGC variable says otherwise. A simulated run
// allocates some 3.5 MB (the model's solve most of it) against a live heap
// of 25 MB that is mostly the simulator's inventory, full of pointers: at
// Go's default of 100 the collector walked that inventory every seven runs
// or so, a fifth of a run's CPU at 96 workers x 8 disks. At 200 it runs half
// as often: a run's CPU falls by about 2 ms (11 to 9 ms, measured with
// the process held to one core), and the heap in use between collections
// may reach three times the live heap instead of twice.
const GCPercent = 200

var tuneGC sync.Once

// tuneGarbageCollector sets GCPercent once per process, when GOGC is not
// set (a user's GOGC wins).
func tuneGarbageCollector() {
	tuneGC.Do(func() {
		if _, set := os.LookupEnv("GOGC"); !set {
			debug.SetGCPercent(GCPercent)
		}
	})
}
