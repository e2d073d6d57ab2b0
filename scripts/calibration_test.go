package scripts_test

import (
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"starbench/internal/testbed"
)

var update = flag.Bool("update", false, "rewrite docs/model.md's calibration table from the script's output")

// publishedColumns maps the calibration table's columns to the script's workloads.
var publishedColumns = map[string]string{
	"seq_write_1m_mbs":      "1m-seq-write",
	"seq_read_1m_mbs":       "1m-seq-read",
	"rand_write_4k_iops":    "4k-rand-write",
	"rand_read_4k_iops":     "4k-rand-read",
	"rand_rw_8k_70_30_iops": "8k-rand-70-30",
}

// TestStorageReviewCalibration runs the shipped StorageReview campaign as a
// user would, on the embedded default with the model's noise off, for both
// SSD counts, and compares the table it prints with the published one: every
// cell within 15 %. -v prints each cell's error; -update writes the table
// into docs/model.md, which must otherwise match it.
func TestStorageReviewCalibration(t *testing.T) {
	t.Chdir("..")
	out := t.TempDir()
	for _, ssds := range []string{"8", "4"} {
		args := []string{"run", "scripts/storagereview_esa.star", "--out", out, "--no-progress", "--no-noise", "--set", "ssds=" + ssds}
		if code, _, stderr := starbench(t, args...); code != 0 {
			t.Fatalf("starbench %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "tables", "storagereview-esa.md"))
	if err != nil {
		t.Fatal(err)
	}
	model := parseMarkdownTable(t, string(md))
	published := readPublished(t, "internal/model/testdata/storagereview-esa-8u2.csv")
	var b strings.Builder
	fmt.Fprintf(&b, "| SSDs/host | policy | workload | published | simulated | error |\n|---:|:---|:---|---:|---:|---:|\n")
	worst, cells := 0.0, 0
	for _, p := range published {
		got, ok := model[p.ssds+"/"+p.policy][p.workload]
		if !ok {
			t.Errorf("the script's table has no %s SSD %s %s cell", p.ssds, p.policy, p.workload)
			continue
		}
		cells++
		rel := got/p.value - 1
		worst = math.Max(worst, math.Abs(rel))
		fmt.Fprintf(&b, "| %s | %s | %s | %.0f | %.0f | %+.1f %% |\n", p.ssds, p.policy, p.workload, p.value, got, 100*rel)
		if math.Abs(rel) > 0.15 {
			t.Errorf("%s SSD %s %s: simulated %.0f, published %.0f (%+.1f %%), want within 15 %%", p.ssds, p.policy, p.workload, got, p.value, 100*rel)
		}
	}
	if cells != 20 {
		t.Errorf("compared %d cells, want the table's 20", cells)
	}
	t.Logf("scripts/storagereview_esa.star (--no-noise) against storagereview-esa-8u2.csv, worst cell %.1f %%:\n%s", 100*worst, b.String())
	checkDocTable(t, "docs/model.md", string(md)+"\n"+b.String())
}

// The two testbeds of the script differ in their device count only.
func TestStorageReviewTestbedsDifferOnlyInDevices(t *testing.T) {
	eight, err := testbed.Load("storagereview-r6625-esa")
	if err != nil {
		t.Fatal(err)
	}
	four, err := testbed.Load("testbeds/storagereview-r6625-esa-4ssd.json")
	if err != nil {
		t.Fatal(err)
	}
	if four.Storage.CapacityDevices != 4 || eight.Storage.CapacityDevices != 8 {
		t.Fatalf("devices per host: %d and %d, want 4 and 8", four.Storage.CapacityDevices, eight.Storage.CapacityDevices)
	}
	four.Name, four.Description, four.Storage.CapacityDevices = eight.Name, eight.Description, eight.Storage.CapacityDevices
	if a, b := jsonFields(t, four), jsonFields(t, eight); !reflect.DeepEqual(a, b) {
		keys := map[string]bool{}
		for k := range a {
			keys[k] = true
		}
		for k := range b {
			keys[k] = true
		}
		for k := range keys {
			if !reflect.DeepEqual(a[k], b[k]) {
				t.Errorf("the 4-SSD testbed differs from the 8-SSD one in %s beyond the device count: %v, want %v", k, a[k], b[k])
			}
		}
	}
}

// jsonFields is a profile's top-level JSON fields.
func jsonFields(t *testing.T, p *testbed.Profile) map[string]any {
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

const (
	docBegin = "<!-- storagereview table: begin (go test ./scripts -run StorageReviewCalibration -update) -->"
	docEnd   = "<!-- storagereview table: end -->"
)

// checkDocTable checks that the doc shows table between its markers, or
// writes it there with -update.
func checkDocTable(t *testing.T, path, table string) {
	t.Helper()
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(doc), docBegin)
	_, after, ok2 := strings.Cut(rest, docEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s lacks the markers %q and %q around the calibration table", path, docBegin, docEnd)
	}
	want := before + docBegin + "\n" + table + docEnd + after
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want != string(doc) {
		t.Errorf("%s shows another calibration table than the script prints; regenerate it: go test ./scripts -run StorageReviewCalibration -update", path)
	}
}

type publishedCell struct {
	ssds, policy, workload string
	value                  float64
}

func readPublished(t *testing.T, path string) []publishedCell {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var cells []publishedCell
	for _, rec := range recs[1:] {
		for i := 2; i < len(rec); i++ {
			v, err := strconv.ParseFloat(rec[i], 64)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			cells = append(cells, publishedCell{rec[0], rec[1], publishedColumns[recs[0][i]], v})
		}
	}
	return cells
}

// parseMarkdownTable reads the script's table: ssds and policy, then one
// column per workload, by "ssds/policy" and workload.
func parseMarkdownTable(t *testing.T, md string) map[string]map[string]float64 {
	lines := strings.Split(strings.TrimSpace(md), "\n")
	cols := splitRow(lines[0])
	out := map[string]map[string]float64{}
	for _, line := range lines[2:] {
		cells := splitRow(line)
		row := map[string]float64{}
		for i := 2; i < len(cells) && i < len(cols); i++ {
			if v, err := strconv.ParseFloat(strings.ReplaceAll(cells[i], ",", ""), 64); err == nil {
				row[cols[i]] = v
			}
		}
		out[cells[0]+"/"+cells[1]] = row
	}
	if len(out) == 0 {
		t.Fatalf("no rows in the script's table:\n%s", md)
	}
	return out
}

func splitRow(line string) []string {
	parts := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}
