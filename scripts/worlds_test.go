package scripts_test

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"starbench/internal/testbed"
)

// vsan_worlds.star on the embedded default reads back the model's own
// split of vSAN's work: every host's DOM pool at the profile's world count,
// all of it busy where the DOM binds (4K reads on every disk); the lone
// disk's guest I/Os on its worker's host alone, at the DOM cycles per I/O
// the many-disk run found (the same path); the LSOM's worlds per device;
// and what to give starbench split.
func TestWorldsScriptReadsTheModelsSplit(t *testing.T) {
	t.Chdir("..")
	out := t.TempDir()
	code, _, stderr := starbench(t, "run", "scripts/vsan_worlds.star", "--out", out, "--no-progress", "--set", "duration=60")
	if code != 0 {
		t.Fatalf("vsan_worlds.star: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "starbench split --dom-worlds 8 --testbed NAME") {
		t.Errorf("stderr %q: want what to give starbench split, the pool's 8 worlds", stderr)
	}
	p, err := testbed.Load("storagereview-r6625-esa")
	if err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, filepath.Join(out, "tables", "vsan-worlds.csv"))
	if len(rows) != 3*p.Hosts {
		t.Fatalf("%d rows, want one per run and host (%d)", len(rows), 3*p.Hosts)
	}
	var domCycles, loneCycles float64
	loneHosts := 0
	for _, r := range rows {
		num := func(col string) float64 {
			v, err := strconv.ParseFloat(r[col], 64)
			if err != nil {
				return math.NaN()
			}
			return v
		}
		if num("dom_worlds") != p.Model.DOMWorldsPerHost.Value || num("lsom_worlds") != p.Model.DeviceWorlds.Value*float64(p.Storage.CapacityDevices) {
			t.Errorf("%s on %s: %v DOM and %v LSOM worlds, want the profile's %v and %v a device", r["workload"], r["host"], r["dom_worlds"], r["lsom_worlds"], p.Model.DOMWorldsPerHost.Value, p.Model.DeviceWorlds.Value)
		}
		switch r["workload"] {
		case "dom":
			if num("dom_busy_cores") < 0.99*num("dom_worlds") || num("dom_busiest_pct") < 99 {
				t.Errorf("dom on %s: %v cores' worth busy (busiest %v %%), want the whole pool of %v: the model binds 4K reads there", r["host"], r["dom_busy_cores"], r["dom_busiest_pct"], r["dom_worlds"])
			}
			domCycles = num("dom_cycles_per_op")
		case "lone":
			if num("guest_iops") > 0 {
				loneHosts++
				loneCycles = num("dom_cycles_per_op")
			} else if r["dom_cycles_per_op"] != "" && r["dom_cycles_per_op"] != "NA" {
				t.Errorf("lone on %s: no guest I/O but %q DOM cycles per guest I/O", r["host"], r["dom_cycles_per_op"])
			}
		case "lsom":
			if !(num("lsom_cycles_per_op") > 0) || !(num("component_ops") > num("guest_iops")) {
				t.Errorf("lsom on %s: %v LSOM cycles per component op over %v ops for %v guest writes: want cycles, and more component ops than writes (two mirrors)", r["host"], r["lsom_cycles_per_op"], r["component_ops"], r["guest_iops"])
			}
		}
	}
	if loneHosts != 1 || !(math.Abs(loneCycles/domCycles-1) < 0.03) {
		t.Errorf("lone: guest I/O on %d hosts at %.0f DOM cycles per I/O; want one host, at the dom run's %.0f within 3 %%", loneHosts, loneCycles, domCycles)
	}
	if kinds := readCSV(t, filepath.Join(out, "tables", "vsan-worlds-kinds.csv")); len(kinds) != 2*3*p.Hosts {
		t.Errorf("%d rows of world kinds, want the model's one DOM and one LSOM pool per run and host (%d)", len(kinds), 2*3*p.Hosts)
	}
}

// readCSV reads a CSV file with a header into one map per row.
func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]string
	for _, rec := range records[1:] {
		row := map[string]string{}
		for i, col := range records[0] {
			row[col] = rec[i]
		}
		rows = append(rows, row)
	}
	return rows
}
