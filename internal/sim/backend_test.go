package sim

import (
	"math"
	"testing"

	"starbench/internal/model"
	"starbench/internal/testbed"
)

// The backend view's latency is that of the device each direction lands
// on, at its utilisation (M/M/1): reads the capacity device; writes the
// capacity device on ESA and the cache device (the write buffer) on OSA.
func TestBackendLatencyOfTheDeviceWritesLandOn(t *testing.T) {
	load := model.HostLoad{HostFigures: model.HostFigures{CompReadIOPS: 1000, CompWriteIOPS: 500, DeviceUtil: 0.5, CacheUtil: 0.75}}
	for _, tc := range []struct {
		profile string
		write   func(p *testbed.Profile) float64 // µs at no load
		util    float64
	}{
		{"wwt-r640-osa", func(p *testbed.Profile) float64 { return p.Storage.Cache.LatencyUs }, 0.75},
		{"storagereview-r6625-esa", func(p *testbed.Profile) float64 { return p.Storage.Capacity.LatencyUs }, 0.5},
	} {
		p, err := testbed.Load(tc.profile)
		if err != nil {
			t.Fatal(err)
		}
		b := backend(p, load)
		read, write := p.Storage.Capacity.LatencyUs/0.5/1000, tc.write(p)/(1-tc.util)/1000
		if math.Abs(b[latencyAvgRead]-read) > 1e-9 || math.Abs(b[latencyAvgWrite]-write) > 1e-9 {
			t.Errorf("%s: read %.4f ms, write %.4f ms; want %.4f and %.4f", tc.profile, b[latencyAvgRead], b[latencyAvgWrite], read, write)
		}
		if want := (1000*read + 500*write) / 1000; math.Abs(b[oio]-want) > 1e-9 {
			t.Errorf("%s: oio %g, want %g (Little's law)", tc.profile, b[oio], want)
		}
	}
}
