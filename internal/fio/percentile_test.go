package fio

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
)

// quantileOfBins is an independent reading of fio's percentile rule over
// raw json+ bins: every (nanoseconds, count) pair of every entry in one
// sorted list, unmerged, and the first value whose running count reaches
// p % of all I/Os.
func quantileOfBins(entries []JobStats, dir int, p float64) float64 {
	type bin struct{ ns, n int64 }
	var bins []bin
	var total int64
	for _, e := range entries {
		for ns, n := range e.dirs()[dir].Clat.Bins {
			bins = append(bins, bin{ns, n})
			total += n
		}
	}
	slices.SortFunc(bins, func(a, b bin) int { return int(a.ns - b.ns) })
	var run int64
	for _, b := range bins {
		run += b.n
		if float64(run) >= p/100*float64(total) {
			return float64(b.ns) / 1000
		}
	}
	return -1
}

// TestMergedPercentiles: percentiles of rows over several workers, disks
// and jobs equal, to the bin, an independent computation over the raw
// json+ bins of exactly the fio jobs each row covers. The two jobs move
// different block sizes, so no one disk's distribution (the last disk's,
// say) is the merged one.
func TestMergedPercentiles(t *testing.T) {
	t.Parallel()
	l := startLocal(t, 3, 2)
	res, err := runText(t, l, `[global]
rw=randrw
runtime=1
time_based
[small]
bs=4k
filename=a
[large]
bs=256k
filename=b
`)
	if err != nil {
		t.Fatal(err)
	}
	entries := rawEntries(t, res)
	port := map[int]string{}
	for name, k := range clients(t, l) {
		port[k.Port] = name
	}
	covers := func(r Row) []JobStats {
		var out []JobStats
		for _, e := range entries {
			job, _, _ := strings.Cut(e.Name, "@")
			if (r.Job == "" || r.Job == job) && (r.Worker == "" || r.Worker == port[e.Port]) {
				out = append(out, e)
			}
		}
		return out
	}
	checked := 0
	for _, r := range append(slices.Clone(res.Rows), res.Aggregate...) {
		dir := slices.Index(Directions[:], r.Direction)
		if dir < 0 {
			continue // the total row: TestTotalRows
		}
		of := covers(r)
		for _, c := range []struct {
			p   float64
			got float64
		}{{50, r.P50Us}, {99, r.P99Us}, {99.9, r.P999Us}} {
			if want := quantileOfBins(of, dir, c.p); c.got != want {
				t.Errorf("%s/%s/%s %s p%v: %.3f us, the bins of its %d fio jobs give %.3f us", r.Job, r.Worker, r.Disk, r.Direction, c.p, c.got, len(of), want)
			}
		}
		checked++
	}
	// 3 workers x 2 jobs x 2 directions, 2 jobs x 2, and 2 over all jobs.
	if checked != 12+4+2 {
		t.Errorf("checked %d rows, want 18", checked)
	}
}

// TestTotalRows: a job moving data both ways gets a total row whose IOPS
// and MB/s are its directions' sums and whose percentiles come from both
// directions' bins merged.
func TestTotalRows(t *testing.T) {
	out, err := ParseOutput(loadFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Aggregate(out.Entries(), fixtureWorkload, fixtureWorkers, fixtureClients)
	if err != nil {
		t.Fatal(err)
	}
	all := res.Aggregate
	if len(all) != 3 || all[2].Direction != TotalDirection {
		t.Fatalf("aggregate rows %+v", all)
	}
	total := all[2]
	if total.IOPS != all[0].IOPS+all[1].IOPS || total.MBps != all[0].MBps+all[1].MBps {
		t.Errorf("total %.1f IOPS %.3f MB/s, want the sums %.1f and %.3f", total.IOPS, total.MBps, all[0].IOPS+all[1].IOPS, all[0].MBps+all[1].MBps)
	}
	var ios [2]float64
	for _, e := range out.Entries() {
		ios[0] += float64(e.Read.Clat.N)
		ios[1] += float64(e.Write.Clat.N)
	}
	if want := (all[0].LatMeanUs*ios[0] + all[1].LatMeanUs*ios[1]) / (ios[0] + ios[1]); !near(total.LatMeanUs, want) {
		t.Errorf("total mean latency %.3f us, want %.3f (weighted by I/Os)", total.LatMeanUs, want)
	}
	both := func(p float64) float64 {
		var e []JobStats
		for _, x := range out.Entries() {
			merged := x
			merged.Read.Clat.Bins = Histogram{}
			merged.Read.Clat.Bins.Add(x.Read.Clat.Bins)
			merged.Read.Clat.Bins.Add(x.Write.Clat.Bins)
			e = append(e, merged)
		}
		return quantileOfBins(e, 0, p)
	}
	for p, got := range map[float64]float64{50: total.P50Us, 99: total.P99Us, 99.9: total.P999Us} {
		if want := both(p); got != want {
			t.Errorf("total p%v %.3f us, want %.3f from both directions' bins", p, got, want)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9*b && b-a < 1e-9*b }

// TestErrorsPerDirection: fio counts a job's I/O errors once; they belong
// to the one direction the job moved data in, and to its total row when it
// moved data both ways. Reads that fail verification count on reads, a
// write to /dev/full on writes (also in a mixed job that, as here, only
// got to write before /dev/full stopped it); with continue_on_error the
// run goes on and says so.
func TestErrorsPerDirection(t *testing.T) {
	t.Parallel()
	l := startLocal(t, 2, 1)
	ws := slices.Clone(l.Workers)
	for i := range ws {
		ws[i].Disks = append(slices.Clone(ws[i].Disks), Disk{Name: "full", Path: "/dev/full"})
	}
	wl, err := ParseWorkload("t", "t.fio", `[global]
bs=4k
size=256k
continue_on_error=all
[reads]
rw=read
verify=crc32c
filename=data
[writes]
rw=write
filename=full
[mixed]
rw=randrw
rwmixread=90
filename=full
`, LoadOptions{Env: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	res, err := (&Runner{}).Run(context.Background(), ws, wl, nil)
	if err != nil {
		t.Fatal(err)
	}
	errs := map[string]int{}
	for _, r := range append(slices.Clone(res.Rows), res.Aggregate...) {
		w := r.Worker
		if w != "" {
			w = "one"
		}
		errs[r.Job+"/"+w+"/"+r.Direction] += r.Errors
	}
	want := map[string]int{
		"reads/one/read": 2 * 64, "reads//read": 2 * 64,
		"writes/one/write": 2, "writes//write": 2,
		"mixed/one/read": 0, "mixed/one/write": 2, "mixed/one/total": 0, "mixed//write": 2,
		"//read": 2 * 64, "//write": 4, "//total": 2*64 + 4,
	}
	for k, n := range want {
		if errs[k] != n {
			t.Errorf("%s: %d errors, want %d (all: %v)", k, errs[k], n, errs)
		}
	}
	if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "job reads: 128 I/O errors") {
		t.Errorf("notes %q do not count the errors", notes)
	}
}

// TestMixedJobErrorsOnTotal: the errors of a job that moved data both ways
// cannot be split by direction (fio's json+ counts them per job), so they
// are on its total rows only (the capture is a randrw job; total_err is
// what fio adds with continue_on_error).
func TestMixedJobErrorsOnTotal(t *testing.T) {
	out, err := ParseOutput(loadFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	entries := slices.Clone(out.Entries())
	entries[0].TotalErr = 5
	res, err := Aggregate(entries, fixtureWorkload, fixtureWorkers, fixtureClients)
	if err != nil {
		t.Fatal(err)
	}
	sum := map[string]int{}
	for _, r := range res.Rows {
		sum[r.Direction] += r.Errors
	}
	for _, r := range res.Aggregate {
		sum["all/"+r.Direction] += r.Errors
	}
	if want := map[string]int{"read": 0, "write": 0, "total": 5, "all/read": 0, "all/write": 0, "all/total": 5}; !maps.Equal(sum, want) {
		t.Errorf("errors %v, want %v", sum, want)
	}
}
