package store

import (
	"context"
	"math"
	"slices"
	"testing"

	"starbench/internal/fio"
)

// TestSamplesRoundTrip: a run's samples are committed with it and read
// back as the samples frame, in time order, a missing latency missing.
func TestSamplesRoundTrip(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t, Options{Simulated: true})
	if err := s.SaveCells(ctx, testCells); err != nil {
		t.Fatal(err)
	}
	r := okRun(testCells[0].Label, "4k", 1, 1000, true)
	for i := range 70 { // more than a batch
		r.Result.Samples = append(r.Result.Samples,
			fio.Sample{Job: "oltp", Direction: "read", TS: float64(i + 1), IOPS: float64(i), MBps: 1, LatMeanUs: 100, P99Us: 900},
			fio.Sample{Direction: "write", TS: float64(i + 1), IOPS: 2, LatMeanUs: math.NaN(), P99Us: math.NaN()})
	}
	if err := s.CommitRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	f, err := s.Frame(ctx, "samples")
	if err != nil {
		t.Fatal(err)
	}
	if f.Nrow() != 140 || !slices.Contains(f.Names(), "t_s") || !slices.Contains(f.Names(), "policy") {
		t.Fatalf("samples frame %d rows, columns %v", f.Nrow(), f.Names())
	}
	ts, job, lat := f.Col("t_s").Float(), f.Col("job").Records(), f.Col("lat_mean_us").Float()
	if ts[0] != 1 || ts[139] != 70 || job[0] != "oltp" || job[1] != "all" || lat[0] != 100 || !math.IsNaN(lat[1]) {
		t.Errorf("first rows t_s %v job %v lat %v", ts[:2], job[:2], lat[:2])
	}
}
