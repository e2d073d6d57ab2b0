package model

import (
	"context"
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// calibrationCell is one published figure of storagereview-esa-8u2.csv.
type calibrationCell struct {
	ssds      int
	policy    string
	workload  string
	published float64 // MB/s for the 1M columns, IOPS otherwise
}

// hcibenchJob is the fio job HCIBench runs for a column. Assumption: HCIBench
// turns "threads per disk" into fio's iodepth with one job per disk (libaio),
// so 16 VMs x 8 disks give 1024 (sequential) or 2048 (random) outstanding I/Os.
func hcibenchJob(workload string) (*fio.Job, bool) {
	switch workload {
	case "seq_write_1m_mbs":
		return &fio.Job{RW: "write", BlockSize: 1 << 20, IODepth: 8}, true
	case "seq_read_1m_mbs":
		return &fio.Job{RW: "read", BlockSize: 1 << 20, IODepth: 8}, true
	case "rand_write_4k_iops":
		return &fio.Job{RW: "randwrite", BlockSize: 4096, IODepth: 16}, false
	case "rand_read_4k_iops":
		return &fio.Job{RW: "randread", BlockSize: 4096, IODepth: 16}, false
	case "rand_rw_8k_70_30_iops":
		return &fio.Job{RW: "randrw", BlockSize: 8192, RWMixRead: 70, IODepth: 16}, false
	}
	return nil, false
}

func readCalibration(t testing.TB) []calibrationCell {
	f, err := os.Open("testdata/storagereview-esa-8u2.csv")
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
	head := recs[0]
	var cells []calibrationCell
	for _, rec := range recs[1:] {
		ssds, _ := strconv.Atoi(rec[0])
		for i := 2; i < len(rec); i++ {
			v, err := strconv.ParseFloat(rec[i], 64)
			if err != nil {
				t.Fatalf("%s: %v", head[i], err)
			}
			cells = append(cells, calibrationCell{ssds, rec[1], head[i], v})
		}
	}
	return cells
}

// predictCell runs one calibration cell on a copy of the profile.
func predictCell(t testing.TB, base *testbed.Profile, c calibrationCell) float64 {
	p := *base
	p.Storage.CapacityDevices = c.ssds
	job, mbs := hcibenchJob(c.workload)
	if job == nil {
		t.Fatalf("no job for column %s", c.workload)
	}
	disks := make([]DiskLoad, 16*8) // HCIBench: 16 VMs x 8 data disks, prepared with random data
	for i := range disks {
		disks[i] = DiskLoad{Policy: Policy{RAID: c.policy, FTT: 1}, Written: 1}
	}
	// vSAN ESA's default policies compress; fio's buffers are incompressible.
	out, err := Solve(context.Background(), &p, Input{State: ClusterState{Compression: true}, Jobs: []JobLoad{{Job: job, Disks: disks}}})
	if err != nil {
		t.Fatal(err)
	}
	if mbs {
		return (out.Read.MBps + out.Write.MBps) // the table's MB/s are MiB-based 1M blocks
	}
	return out.Read.IOPS + out.Write.IOPS
}

func TestCalibrationStorageReviewESA(t *testing.T) {
	p, err := testbed.Load("storagereview-r6625-esa")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("ssd/host policy workload                 published      model   error\n")
	worst := 0.0
	for _, c := range readCalibration(t) {
		got := predictCell(t, p, c)
		rel := got/c.published - 1
		worst = math.Max(worst, math.Abs(rel))
		b.WriteString(strconvLine(c, got, rel))
		if math.Abs(rel) > 0.15 {
			t.Errorf("%d SSD %s %s: model %.0f, published %.0f (%+.1f %%), want within 15 %%", c.ssds, c.policy, c.workload, got, c.published, 100*rel)
		}
	}
	t.Logf("model vs storagereview-esa-8u2.csv (worst %.1f %%):\n%s", 100*worst, b.String())
}

func strconvLine(c calibrationCell, got, rel float64) string {
	return strings.Join([]string{
		pad(strconv.Itoa(c.ssds), 8), pad(c.policy, 6), pad(c.workload, 22),
		lpad(strconv.FormatFloat(c.published, 'f', 0, 64), 11),
		lpad(strconv.FormatFloat(got, 'f', 0, 64), 10),
		lpad(strconv.FormatFloat(100*rel, 'f', 1, 64)+" %", 9),
	}, " ") + "\n"
}

func pad(s string, n int) string  { return s + strings.Repeat(" ", max(0, n-len(s))) }
func lpad(s string, n int) string { return strings.Repeat(" ", max(0, n-len(s))) + s }
