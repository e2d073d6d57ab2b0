package cli

import (
	"math"
	"strings"
	"testing"

	"starbench/internal/testbed"
)

// split writes a profile that loads: the testbed's hardware, the worlds
// given, and the DOM's fitted cycles refitted (more than doubled for twice
// the worlds: the worlds also run costs that are not fitted); the other
// parameters as the testbed's. Without a world count, or with a bad one,
// it says what to give.
func TestSplitWritesARefittedProfile(t *testing.T) {
	r := runCLI(t, "", nil, "split", "--dom-worlds", "16", "--testbed", "vxrail-ve660-esa")
	expect(t, r, ExitOK, `"name": "vxrail-ve660-esa-split"`, "^$")
	p, err := testbed.Parse([]byte(r.stdout))
	if err != nil {
		t.Fatalf("the profile written does not load: %v", err)
	}
	shipped, _ := testbed.Load("vxrail-ve660-esa")
	m := &p.Model
	if m.DOMWorldsPerHost.Value != 16 || !(m.DOMIOCycles.Value > 2*shipped.Model.DOMIOCycles.Value) || !(m.DOMByteCycles.Value > 2*shipped.Model.DOMByteCycles.Value) ||
		!strings.Contains(m.DOMIOCycles.Source, "refitted by starbench split with dom_worlds_per_host 16") {
		t.Errorf("DOM worlds %v, dom_io_cycles %v (%q), dom_byte_cycles %v; want 16, and cycles more than doubled from %v and %v",
			m.DOMWorldsPerHost.Value, m.DOMIOCycles.Value, m.DOMIOCycles.Source, m.DOMByteCycles.Value, shipped.Model.DOMIOCycles.Value, shipped.Model.DOMByteCycles.Value)
	}
	if m.LSOMOpCycles != shipped.Model.LSOMOpCycles || p.CPU != shipped.CPU || math.Abs(m.ChecksumCyclesPerByte.Value-shipped.Model.ChecksumCyclesPerByte.Value) > 0 {
		t.Errorf("a DOM split changed what it does not move: lsom_op_cycles %+v, cpu %+v", m.LSOMOpCycles, p.CPU)
	}
	expect(t, runCLI(t, "", nil, "split"), ExitUsage, "^$", "give --dom-worlds, --device-worlds or --diskgroup-worlds")
	expect(t, runCLI(t, "", nil, "split", "--dom-worlds", "-2"), ExitUsage, "^$", "world counts are whole numbers")
	expect(t, runCLI(t, "", nil, "split", "--dom-worlds", "2.5"), ExitUsage, "^$", "world counts are whole numbers")
	expect(t, runCLI(t, "", nil, "split", "--device-worlds", "33", "--testbed", "vxrail-ve660-esa"), ExitUsage, "^$", "hosts have 32 hardware threads")
	expect(t, runCLI(t, "", nil, "split", "--dom-worlds", "16", "--testbed", "nope"), ExitUsage, "^$", `no testbed profile "nope"`)
}
