package model

import (
	"flag"
	"math"
	"testing"

	"starbench/internal/testbed"
)

var fit = flag.Bool("fit", false, "refit the ESA software parameters to storagereview-esa-8u2.csv and print them")

// TestFitCalibration reproduces the fitted parameters of testbed.DefaultModel:
// a coordinate search (multiplicative steps) minimising the worst relative
// error over the 20 published cells. Run: go test ./internal/model -run Fit -fit -v
func TestFitCalibration(t *testing.T) {
	if !*fit {
		t.Skip("run with -fit to refit")
	}
	p, err := testbed.Load("storagereview-r6625-esa")
	if err != nil {
		t.Fatal(err)
	}
	m := &p.Model
	params := map[string]*testbed.Param{
		"host_op_cycles": &m.HostOpCycles, "host_read_byte_cycles": &m.HostReadByteCycles,
		"host_write_byte_cycles": &m.HostWriteByteCycles, "mixed_contention": &m.MixedContention,
		"device_op_cycles": &m.DeviceOpCycles, "device_byte_cycles": &m.DeviceByteCycles,
	}
	cells := readCalibration(t)
	score := func() float64 {
		worst, squares := 0.0, 0.0
		for _, c := range cells {
			r := math.Abs(predictCell(t, p, c)/c.published - 1)
			worst = math.Max(worst, r)
			squares += r * r
		}
		return worst + 0.01*squares
	}
	best := score()
	for step := 0.2; step > 0.002; step /= 2 {
		for improved := true; improved; {
			improved = false
			for _, q := range params {
				for _, f := range []float64{1 + step, 1 / (1 + step)} {
					old := q.Value
					if q.Value = old * f; score() < best-1e-9 {
						best, improved = score(), true
					} else {
						q.Value = old
					}
				}
			}
		}
	}
	for name, q := range params {
		t.Logf("%s = %.4g", name, q.Value)
	}
	t.Logf("score (worst + 0.01 x sum of squares) = %.4f", best)
}
