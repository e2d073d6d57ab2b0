package fio

import (
	"strings"
	"testing"
)

// TestEvalIntAsBc: the arithmetic fio hands to bc, worked out as bc does
// at its default scale: precedence, left to right, truncating division,
// parentheses and signs.
func TestEvalIntAsBc(t *testing.T) {
	for in, want := range map[string]int64{
		"7":            7,
		"2+3*4":        14,
		"(2+3)*4":      20,
		"20-4-3":       13,
		"17/4":         4,
		"100/7/2":      7,
		"8*1024/3":     2730,
		"-5+12":        7,
		"2*(3+(4-1))":  12,
		"10 - 2 * 3":   4,
		"1-(2-(3-4))":  -2,
		"9/(4-1)*2+1":  7,
		"4096*16-4096": 61440,
	} {
		if got, err := evalInt(in); err != nil || got != want {
			t.Errorf("evalInt(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"4/0":   "division by zero",
		"(2+3":  "missing )",
		"2+x":   "x",
		"3)":    "cannot read \")\"",
		"":      "",
		"2**3":  "",
		"(1)+(": "",
	} {
		if _, err := evalInt(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("evalInt(%q): error %v, want one saying %q", in, err, want)
		}
	}
}

// TestExpandKeywords: fio's reserved keywords take the worker's values
// (the page size 4096 unless given), arithmetic around them is worked out,
// and the typed fields follow; a job without keywords is returned as it is.
func TestExpandKeywords(t *testing.T) {
	m := Machine{NCPUs: 6, MemMB: 2048}
	j := JobFromOptions("k", []Option{{"rw", "randread"}, {"numjobs", "$ncpus"}, {"iodepth", "$ncpus*2+1"},
		{"bs", "$pagesize"}, {"size", "($mb_memory/4)*1048576"}})
	if !j.HasKeywords() {
		t.Fatal("HasKeywords is false for a job using $ncpus")
	}
	got, err := j.Expand(m)
	if err != nil {
		t.Fatal(err)
	}
	if got.NumJobs != 6 || got.IODepth != 13 || got.BlockSize != 4096 || got.Size != 512<<20 {
		t.Errorf("expanded job: numjobs %d, iodepth %d, bs %d, size %d; want 6, 13, 4096, %d", got.NumJobs, got.IODepth, got.BlockSize, got.Size, 512<<20)
	}
	if got.HasKeywords() {
		t.Errorf("the expanded job still has keywords: %+v", got.Options)
	}
	if pg, err := JobFromOptions("p", []Option{{"bs", "$pagesize*2"}}).Expand(Machine{PageSize: 16384}); err != nil || pg.BlockSize != 32768 {
		t.Errorf("bs=$pagesize*2 on 16 KiB pages: %d, %v; want 32768", pg.BlockSize, err)
	}
	plain := JobFromOptions("p", []Option{{"rw", "read"}, {"numjobs", "3"}})
	if plain.HasKeywords() {
		t.Error("HasKeywords is true for a job without keywords")
	}
	if same, err := plain.Expand(m); err != nil || same.NumJobs != 3 {
		t.Errorf("a job without keywords expanded to %+v, %v", same, err)
	}
	bad := JobFromOptions("b", []Option{{"numjobs", "$ncpus/0"}})
	if _, err := bad.Expand(m); err == nil || !strings.Contains(err.Error(), `job "b": numjobs=$ncpus/0: division by zero`) {
		t.Errorf("numjobs=$ncpus/0: error %v, want one naming the job, option and cause", err)
	}
}
