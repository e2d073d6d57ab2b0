package model

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// Split is how many worlds vSAN's DOM and LSOM run where a real cluster
// says otherwise than the model's assumptions (scripts/vsan_worlds.star
// measures them): dom_worlds_per_host, device_worlds (ESA's LSOM per
// capacity device) and diskgroup_worlds (OSA's per disk group); 0 keeps
// the model's. The calibration fixes each software ceiling as worlds x
// cycles per op, never either alone, so a split with its fitted cycles
// refitted (Refit) is the same fit as far as the table can tell, and moves
// only what the table cannot see: the CPU those cycles take, latency at
// low load, platforms whose CPU binds before the worlds.
type Split struct {
	DOMWorlds, DeviceWorlds, DiskGroupWorlds float64
}

// fitCell is a calibration cell and the fitted parameter its ceiling sets
// (as each fitted parameter's source names it).
type fitCell struct {
	name  string
	ssds  int
	job   fio.Job
	param func(*testbed.ModelParams) *testbed.Param
}

var (
	calRandRead  = fio.Job{IOEngine: "libaio", Direct: true, RW: "randread", BlockSize: 4 << 10, IODepth: 16}
	calRandWrite = fio.Job{IOEngine: "libaio", Direct: true, RW: "randwrite", BlockSize: 4 << 10, IODepth: 16}
	calRead      = fio.Job{IOEngine: "libaio", Direct: true, RW: "read", BlockSize: 1 << 20, IODepth: 8}
	calWrite     = fio.Job{IOEngine: "libaio", Direct: true, RW: "write", BlockSize: 1 << 20, IODepth: 8}
	domCells     = []fitCell{
		{"4K random read, 8 SSDs", 8, calRandRead, func(m *testbed.ModelParams) *testbed.Param { return &m.DOMIOCycles }},
		{"1M read, 8 SSDs", 8, calRead, func(m *testbed.ModelParams) *testbed.Param { return &m.DOMByteCycles }},
	}
	lsomCells = []fitCell{
		{"4K random write, 4 SSDs", 4, calRandWrite, func(m *testbed.ModelParams) *testbed.Param { return &m.LSOMOpCycles }},
		{"1M read, 4 SSDs", 4, calRead, func(m *testbed.ModelParams) *testbed.Param { return &m.LSOMReadByteCycles }},
		{"1M write, 4 SSDs", 4, calWrite, func(m *testbed.ModelParams) *testbed.Param { return &m.LSOMWriteByteCycles }},
	}
)

// calibrationProfile is the testbed the calibration table was measured on.
const calibrationProfile = "storagereview-r6625-esa"

// worlds are the split's world counts as parameters of m, with where they
// come from.
func (s Split) worlds(m *testbed.ModelParams) map[*testbed.Param]float64 {
	out := map[*testbed.Param]float64{}
	for q, v := range map[*testbed.Param]float64{&m.DOMWorldsPerHost: s.DOMWorlds, &m.DeviceWorlds: s.DeviceWorlds, &m.DiskGroupWorlds: s.DiskGroupWorlds} {
		if v > 0 && v != q.Value {
			out[q] = v
		}
	}
	return out
}

// cells are the calibration cells whose fitted cycles the split moves: the
// DOM's where it changes the DOM's worlds, the LSOM's where it changes
// ESA's worlds a device. The calibration (ESA) has no disk groups, so
// OSA's worlds a disk group alone move no fitted cycles: OSA's LSOM runs
// on the ESA fit's cycles either way.
func (s Split) cells() []fitCell {
	m := testbed.DefaultModel("ESA")
	moved := s.worlds(&m)
	var cells []fitCell
	if _, ok := moved[&m.DOMWorldsPerHost]; ok {
		cells = append(cells, domCells...)
	}
	if _, ok := moved[&m.DeviceWorlds]; ok {
		cells = append(cells, lsomCells...)
	}
	return cells
}

// ceiling is a calibration cell's throughput on the calibration's hosts
// (base, loaded once by the caller) with ssds devices each and its layout
// (16 VMs of 16 vCPUs, 8 disks each, RAID-1, compression on, disks
// filled), the parameters adjusted.
func (c fitCell) ceiling(ctx context.Context, base *testbed.Profile, adjust func(*testbed.ModelParams)) (float64, error) {
	profile := *base // devices and parameters are values: the copy changes them alone
	p := &profile
	p.Storage.CapacityDevices = c.ssds
	if adjust != nil {
		adjust(&p.Model)
	}
	in := UniformInput(p, 16, 8, Policy{RAID: "raid1", FTT: 1}, &c.job)
	for i := range in.VMs {
		in.VMs[i].CPUs = 16
	}
	in.State = ClusterState{Compression: true}
	out, err := Solve(ctx, p, in)
	if err != nil {
		return 0, err
	}
	return out.Read.IOPS + out.Write.IOPS, nil
}

// Refit returns the parameters the split changes, by their JSON names:
// its worlds, and each fitted cycles parameter of the calibration cells it
// moves set (by bisection, in turn until none moves) so that the cell's
// ceiling is the shipped model's again, within 0.2 %; each with its
// source. The cycles grow by more than the worlds shrink them because the
// worlds also run costs that are not fitted (checksums, the copy into
// guest memory, messages), which keep their public figures. OSA's worlds
// a disk group are set alone (see cells); an empty split changes nothing.
func Refit(ctx context.Context, s Split) (map[string]testbed.Param, error) {
	shipped := testbed.DefaultModel("ESA")
	cells := s.cells()
	base, err := testbed.Load(calibrationProfile)
	if err != nil {
		return nil, err
	}
	want := make([]float64, len(cells))
	values := make([]float64, len(cells))
	for i, c := range cells {
		if want[i], err = c.ceiling(ctx, base, nil); err != nil {
			return nil, err
		}
		values[i] = c.param(&shipped).Value
	}
	adjust := func(m *testbed.ModelParams) {
		for q, v := range s.worlds(m) {
			q.Value = v
		}
		for i, c := range cells {
			c.param(m).Value = values[i]
		}
	}
	for range 4 {
		for i, c := range cells {
			lo, hi := values[i]/16, values[i]*16 // more cycles, a lower ceiling
			for range 60 {
				values[i] = math.Sqrt(lo * hi)
				got, err := c.ceiling(ctx, base, adjust)
				if err != nil {
					return nil, err
				}
				if got > want[i] {
					lo = values[i]
				} else {
					hi = values[i]
				}
			}
		}
	}
	var given []string
	out := map[string]testbed.Param{}
	for q, v := range s.worlds(&shipped) {
		given = append(given, fmt.Sprintf("%s %g", paramName(&shipped, q), v))
		source := "given to starbench split (measured worlds: scripts/vsan_worlds.star)"
		if q == &shipped.DiskGroupWorlds {
			source += "; the calibration (ESA) has no disk groups, so no fitted cycles follow it"
		}
		out[paramName(&shipped, q)] = testbed.Param{Value: v, Source: source}
	}
	slices.Sort(given)
	for i, c := range cells {
		got, err := c.ceiling(ctx, base, adjust)
		if err != nil {
			return nil, err
		}
		if math.Abs(got/want[i]-1) > 0.002 {
			return nil, fmt.Errorf("%s: refitted to %.0f I/Os a second against the shipped model's %.0f: its ceiling does not follow %s alone with %s", c.name, got, want[i], paramName(&shipped, c.param(&shipped)), strings.Join(given, ", "))
		}
		out[paramName(&shipped, c.param(&shipped))] = testbed.Param{Value: values[i], Source: fmt.Sprintf(
			"refitted by starbench split with %s: set until StorageReview's %s (%s) reaches the shipped model's %.0f I/Os a second again", strings.Join(given, ", "), c.name, calibrationProfile, want[i])}
	}
	return out, nil
}

// paramName is the JSON name of q, one of m's parameters.
func paramName(m *testbed.ModelParams, q *testbed.Param) string {
	name := ""
	m.Each(func(n string, p *testbed.Param) {
		if p == q {
			name = n
		}
	})
	return name
}
