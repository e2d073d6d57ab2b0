package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
)

// unitsNote says what the reports' figures measure.
const unitsNote = "MB/s are 10^6 bytes per second (not MiB/s); latencies are fio's clat (completion latency, from submission to completion)."

// hciHead is the HCIBench summary's header after the factors.
func hciHead(v *view) []string {
	head := []string{"workload", "n", "IOPS", "throughput MB/s", "read latency", "write latency", "95th pct read latency", "95th pct write latency"}
	if v.HasCPU {
		head = append(head, "host CPU")
	}
	if v.HasVSANCPU {
		head = append(head, "vSAN CPU")
	}
	return head
}

// hciCells is one row of the HCIBench summary after the factors.
func hciCells(v *view, r HCIRow) []string {
	row := []string{r.Workload, strconv.Itoa(r.N), number(r.IOPS), number(r.MBps), latency(r.ReadLatUs), latency(r.WriteLatUs),
		latency(r.ReadP95Us), latency(r.WriteP95Us)}
	if v.HasCPU {
		row = append(row, cpuPercent(r.CPUPercent))
	}
	if v.HasVSANCPU {
		row = append(row, cpuPercent(r.VSANCPUPercent))
	}
	return row
}

func cpuPercent(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return fmt.Sprintf("%.1f %%", x)
}

// UnitsNote says what the figures measure (for the HTML template).
func (v *view) UnitsNote() string { return unitsNote }

// textTable is a table as text: a header and rows.
type textTable struct {
	Head []string
	Rows [][]string
}

// HCIBenchTable is the HCIBench summary as text, the factors first.
func (v *view) HCIBenchTable() textTable {
	t := textTable{Head: append(append([]string{}, v.Factors...), hciHead(v)...)}
	for _, r := range v.HCIBench {
		var row []string
		for _, f := range v.Factors {
			row = append(row, r.Levels[f])
		}
		t.Rows = append(t.Rows, append(row, hciCells(v, r)...))
	}
	return t
}

func writeHCIBenchMarkdown(p func(string, ...any), b io.Writer, v *view) {
	if len(v.HCIBench) == 0 {
		return
	}
	p("## HCIBench summary\n\nPer cell and workload, as HCIBench's results table: IOPS and throughput of reads and writes together, mean and 95th percentile read and write latency, host CPU (and vSAN's CPU) when the campaign measured them; means of the repeats. %s\n\n", unitsNote)
	t := v.HCIBenchTable()
	table(b, t.Head, len(t.Rows), func(i int) []string { return t.Rows[i] })
}
