package report

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"starbench/internal/fio"
	"starbench/internal/store"
)

// writeLoadStore writes a campaign over policy (a setting) and iodepth (a
// load) whose cells ran in execution order iodepth 16 first. IOPS climbs
// with iodepth and flattens at the policy's ceiling; latency follows
// Little's law (iodepth / IOPS).
func writeLoadStore(t *testing.T, dir string) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(dir, "oio.db")
	s, err := store.Open(ctx, path, "oio", store.Options{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SaveFactors(ctx, []store.Factor{
		{Name: "policy", Type: store.LevelText, Levels: []string{"raid1", "raid5"}},
		{Name: "iodepth", Type: store.LevelInt, Load: true, Levels: []string{"1", "4", "16"}},
	}); err != nil {
		t.Fatal(err)
	}
	ceiling := map[string]float64{"raid1": 300000, "raid5": 200000}
	var cells []store.Cell
	for _, depth := range []int{16, 1, 4} {
		for _, policy := range []string{"raid5", "raid1"} {
			cells = append(cells, store.Cell{Label: fmt.Sprintf("policy=%s iodepth=%d", policy, depth), Position: len(cells),
				Levels: []store.Level{{Factor: "policy", Value: policy}, {Factor: "iodepth", Value: fmt.Sprint(depth)}}})
		}
	}
	if err := s.SaveCells(ctx, cells); err != nil {
		t.Fatal(err)
	}
	id, err := s.BeginSession(ctx, store.Provenance{Script: "oio.star", Target: "embedded", Testbed: "vxrail-ve660-esa", ModelVersion: "starbench-model/2"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cells {
		var depth int
		fmt.Sscan(c.Levels[1].Value, &depth)
		iops := min(float64(depth)*40000, ceiling[c.Levels[0].Value])
		start := time.Date(2026, 12, 4, 3, 0, 0, 0, time.UTC)
		r := store.Run{RunKey: store.RunKey{Cell: c.Label, Workload: "4k-randread", Repeat: 1}, Session: id, Start: start, End: start.Add(time.Second),
			Result: &fio.Result{Simulated: true, Aggregate: []fio.Row{{Direction: "read", IOPS: iops, LatMeanUs: 1e6 * float64(depth) * 32 / iops, Simulated: true}}}}
		if err := s.CommitRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func TestLoadFactorsAreCurvesNotRankings(t *testing.T) {
	dir := t.TempDir()
	db := writeLoadStore(t, dir)
	c, err := Load(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Load) != 1 || c.Load[0] != "iodepth" {
		t.Fatalf("load factors %v, want [iodepth]", c.Load)
	}
	// Tables follow the declared order: raid1 at 1, 4, 16, then raid5.
	var order []string
	for _, s := range c.Stats {
		order = append(order, s.Levels["policy"]+"/"+s.Levels["iodepth"])
	}
	if got := strings.Join(order, " "); got != "raid1/1 raid1/4 raid1/16 raid5/1 raid5/4 raid5/16" {
		t.Fatalf("stats in order %s", got)
	}
	// Best vs worst compares the policies at their peaks, never iodepth 16 with 1.
	v := newView(c, nil, time.Now())
	if len(v.Highlights) != 1 {
		t.Fatalf("highlights %+v", v.Highlights)
	}
	h := v.Highlights[0]
	if h.Best.Cell != "policy=raid1 iodepth=16" || h.Worst.Cell != "policy=raid5 iodepth=16" || h.Gain() != "+50.0 %" {
		t.Fatalf("best %s worst %s gain %s, want raid1 vs raid5 at their peaks, +50.0 %%", h.Best.Cell, h.Worst.Cell, h.Gain())
	}
	curves, err := LoadCurves(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(curves) != 1 || !strings.Contains(curves[0].Title, "IOPS against latency over iodepth: 4k-randread (read)") {
		t.Fatalf("curves %v", curves)
	}
	files, err := Write(context.Background(), db, dir, "report", nil)
	if err != nil {
		t.Fatal(err)
	}
	html, _ := os.ReadFile(files.HTML)
	md, _ := os.ReadFile(files.Markdown)
	for _, want := range []string{"queueing model (starbench-model/2) of testbed vxrail-ve660-esa", "Load factors (iodepth) are not ranked",
		"IOPS against latency over iodepth"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	for _, want := range []string{"queueing model (starbench-model/2) of testbed vxrail-ve660-esa", "- Model: starbench-model/2", "Load factors (iodepth) are not ranked"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
}

// With the load as the only factor there is one configuration: nothing to
// rank, a curve to draw.
func TestALoadAloneHasNoBestAndWorst(t *testing.T) {
	c, err := Load(context.Background(), writeLoadStore(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	c.Factors, c.Load = []string{"iodepth"}, []string{"iodepth"}
	var raid1 []Stat
	for _, s := range c.Stats {
		if s.Levels["policy"] == "raid1" {
			raid1 = append(raid1, s)
		}
	}
	c.Stats = raid1
	if v := newView(c, nil, time.Now()); len(v.Highlights) != 0 {
		t.Fatalf("highlights %+v, want none", v.Highlights)
	}
}

// TestWorkloadsInTheOrderTheyRan: a report lists workloads in the order
// the campaign ran them, the script's order, not by name (the store lists
// them by name, which put 32k before 4k and both before general).
func TestWorkloadsInTheOrderTheyRan(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "order.db")
	s, err := store.Open(ctx, path, "order", store.Options{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	cells := []store.Cell{{Label: "baseline", Position: 0}}
	if err := s.SaveCells(ctx, cells); err != nil {
		t.Fatal(err)
	}
	id, err := s.BeginSession(ctx, store.Provenance{Script: "order.star", Target: "embedded", Testbed: "wwt-r640-osa", ModelVersion: "starbench-model/2"})
	if err != nil {
		t.Fatal(err)
	}
	declared := []string{"general", "4k", "32k", "sql"}
	for _, w := range declared {
		for repeat := 1; repeat <= 2; repeat++ {
			start := time.Date(2026, 12, 4, 3, 0, 0, 0, time.UTC)
			r := store.Run{RunKey: store.RunKey{Cell: "baseline", Workload: w, Repeat: repeat}, Session: id, Start: start, End: start.Add(time.Second),
				Result: &fio.Result{Simulated: true, Aggregate: []fio.Row{{Direction: "read", IOPS: 1000, Simulated: true}}}}
			if err := s.CommitRun(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
	}
	s.Close()
	c, err := Load(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Workloads, " ") != strings.Join(declared, " ") {
		t.Errorf("workloads %q; want %q, the order they ran", c.Workloads, declared)
	}
}
