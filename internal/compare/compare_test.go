package compare

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"starbench/internal/fio"
	"starbench/internal/store"
)

// repeats are one cell's runs of workload "w": IOPS and mean latency per repeat.
type repeats struct {
	iops, lat []float64
}

// writeStore writes a store of campaign name with the given cells (label
// "a=LEVEL") and their repeats of workload "w", direction "read".
func writeStore(t *testing.T, name string, simulated bool, cells map[string]repeats) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), name+".db")
	st, err := store.Open(ctx, path, name, store.Options{Simulated: simulated})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var labels []string
	for level := range cells {
		labels = append(labels, level)
	}
	for i, level := range labels {
		if err := st.SaveCells(ctx, []store.Cell{{Label: "a=" + level, Position: i, Levels: []store.Level{{Factor: "a", Value: level}}}}); err != nil {
			t.Fatal(err)
		}
		for r, iops := range cells[level].iops {
			row := fio.Row{Direction: "read", IOPS: iops, MBps: iops * 4096 / 1e6, LatMeanUs: cells[level].lat[r],
				P95Us: math.NaN(), P99Us: 2 * cells[level].lat[r], P50Us: math.NaN(), P999Us: math.NaN(), Simulated: simulated}
			now := time.Now()
			run := store.Run{RunKey: store.RunKey{Cell: "a=" + level, Workload: "w", Repeat: r + 1}, Start: now, End: now,
				Result: &fio.Result{Simulated: simulated, Aggregate: []fio.Row{row}}}
			if err := st.CommitRun(ctx, run); err != nil {
				t.Fatal(err)
			}
		}
	}
	return path
}

var defaults = Options{Threshold: 0.05, Confidence: 0.95}

// TestWelchAgainstAPublishedExample checks the interval and p-value against
// the worked example of Welch's test in Wikipedia's article (its first data
// set: t = -2.46, 24.9 degrees of freedom, p = 0.021).
func TestWelchAgainstAPublishedExample(t *testing.T) {
	a1 := []float64{27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4}
	a2 := []float64{27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4}
	c := change(key{"c", "w", "read"}, key{"c", "w", "read"}, Metrics[0], sample(a1), sample(a2), Options{Threshold: 0, Confidence: 0.95})
	if math.Abs(c.P-0.021) > 0.001 {
		t.Errorf("p = %.4f, want 0.021", c.P)
	}
	if c.Verdict != Improved || !c.Significant || !(c.RelLow > 0) {
		t.Errorf("IOPS up with p = 0.021 at 95 %%: %+v, want a significant improvement", c)
	}
	// The interval is the one the t quantile gives: at 99 % it spans 0.
	c = change(key{"c", "w", "read"}, key{"c", "w", "read"}, Metrics[0], sample(a1), sample(a2), Options{Threshold: 0, Confidence: 0.99})
	if c.Significant || !(c.RelLow < 0 && c.RelHigh > 0) {
		t.Errorf("at 99 %%: %+v, want an interval spanning 0", c)
	}
	// Latency up by as much is a regression.
	c = change(key{"c", "w", "read"}, key{"c", "w", "read"}, Metrics[2], sample(a1), sample(a2), Options{Threshold: 0, Confidence: 0.95})
	if c.Verdict != Regressed {
		t.Errorf("latency up: verdict %s, want regressed", c.Verdict)
	}
}

func TestStoresVerdicts(t *testing.T) {
	ctx := context.Background()
	base := writeStore(t, "upgrade", false, map[string]repeats{
		"slower": {iops: []float64{1000, 1010, 990}, lat: []float64{100, 101, 99}},
		"faster": {iops: []float64{1000, 1010, 990}, lat: []float64{100, 101, 99}},
		"same":   {iops: []float64{1000, 1010, 990}, lat: []float64{100, 101, 99}},
		"once":   {iops: []float64{1000}, lat: []float64{100}},
		"gone":   {iops: []float64{1000, 1000}, lat: []float64{100, 100}},
	})
	next := writeStore(t, "upgrade", false, map[string]repeats{
		"slower": {iops: []float64{800, 810, 790}, lat: []float64{125, 126, 124}},
		"faster": {iops: []float64{1200, 1210, 1190}, lat: []float64{80, 81, 79}},
		"same":   {iops: []float64{1020, 1030, 1010}, lat: []float64{101, 100, 99}}, // +2 %: under the threshold
		"once":   {iops: []float64{500}, lat: []float64{300}},
		"new":    {iops: []float64{1, 2}, lat: []float64{1, 2}},
	})
	r, err := Stores(ctx, base, next, defaults)
	if err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]string{}
	for _, c := range r.Changes {
		verdicts[c.Cell+" "+c.Metric] = c.Verdict
	}
	for k, want := range map[string]string{
		"a=slower iops": Regressed, "a=slower mbps": Regressed, "a=slower lat_mean_us": Regressed, "a=slower p99_us": Regressed,
		"a=slower p95_us": "", // measured by neither: no row
		"a=faster iops":   Improved, "a=faster lat_mean_us": Improved,
		"a=same iops": Unchanged, "a=same lat_mean_us": Unchanged,
		"a=once iops": TooFewRuns,
	} {
		if verdicts[k] != want {
			t.Errorf("%s: %s, want %s", k, verdicts[k], want)
		}
	}
	if r.Regressed != 4 || r.Improved != 4 || r.TooFewRuns != 4 {
		t.Errorf("counts: %d regressed, %d improved, %d too few; want 4, 4, 4", r.Regressed, r.Improved, r.TooFewRuns)
	}
	if len(r.UnmatchedBase) != 1 || r.UnmatchedBase[0] != "a=gone / w" || len(r.UnmatchedNew) != 1 || r.UnmatchedNew[0] != "a=new / w" {
		t.Errorf("unmatched %v / %v", r.UnmatchedBase, r.UnmatchedNew)
	}
	var table bytes.Buffer
	if err := WriteTable(&table, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"a=slower / w", "-20.0 %", "regressed", "4 regressed, 4 improved", "fewer than 2 repeats", "only in base: a=gone / w", "clat"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		Regressed int `json:"regressed"`
		Changes   []struct {
			Metric    string   `json:"metric"`
			WorseWhen string   `json:"worse_when"`
			Low       *float64 `json:"change_low"`
		} `json:"changes"`
	}
	if err := json.Unmarshal(js.Bytes(), &parsed); err != nil {
		t.Fatalf("%v\n%s", err, js.String())
	}
	if parsed.Regressed != 4 || parsed.Changes[0].WorseWhen == "" {
		t.Errorf("json: %+v", parsed)
	}
}

func TestStoresRefuseMixedKindsAndOtherCampaigns(t *testing.T) {
	ctx := context.Background()
	cells := map[string]repeats{"x": {iops: []float64{1, 2}, lat: []float64{1, 2}}}
	measured, simulated, other := writeStore(t, "c", false, cells), writeStore(t, "c", true, cells), writeStore(t, "d", false, cells)
	if _, err := Stores(ctx, measured, simulated, defaults); err == nil || !strings.Contains(err.Error(), "holds measured results") || !strings.Contains(err.Error(), "--mixed") {
		t.Errorf("mixed: err = %v", err)
	}
	mixed := defaults
	mixed.Mixed = true
	if _, err := Stores(ctx, measured, simulated, mixed); err != nil {
		t.Errorf("mixed when asked: %v", err)
	}
	if _, err := Stores(ctx, measured, other, defaults); err == nil || !strings.Contains(err.Error(), "--other-campaign") {
		t.Errorf("other campaign: err = %v", err)
	}
	mapped := defaults
	mapped.Cells = map[string]string{"a=x": "a=x"}
	if _, err := Stores(ctx, measured, other, mapped); err != nil {
		t.Errorf("other campaign with a map: %v", err)
	}
	mapped.Cells = map[string]string{"a=nope": "a=x"}
	if _, err := Stores(ctx, measured, other, mapped); err == nil || !strings.Contains(err.Error(), `--map-cell names cell "a=nope"`) {
		t.Errorf("a map naming no cell: err = %v", err)
	}
}
