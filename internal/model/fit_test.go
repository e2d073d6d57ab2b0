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
	names := []string{"host_op_cycles", "host_read_byte_cycles", "host_write_byte_cycles", "mixed_contention", "device_op_cycles", "device_byte_cycles"}
	params := []*testbed.Param{&m.HostOpCycles, &m.HostReadByteCycles, &m.HostWriteByteCycles, &m.MixedContention, &m.DeviceOpCycles, &m.DeviceByteCycles}
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
	for i, q := range params {
		t.Logf("%s = %.4g", names[i], q.Value)
	}
	t.Logf("score (worst + 0.01 x sum of squares) = %.4f", best)
}
