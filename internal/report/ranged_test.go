package report

import (
	"fmt"
	"slices"
	"testing"
)

// A cell's repeats write its bottleneck with numbers of their own: the
// report gives one note with each number that differs as its range.
// Notes that differ in more than their numbers stay apart, and digits
// inside a word (a NIC's name, a block size) are the word's, not numbers.
func TestBottlenecksOfRepeatsBecomeRanges(t *testing.T) {
	var notes []rangedNote
	for _, n := range []string{
		"vsan-dom at 97 %; host CPU 7 %, NIC 6 %; 6,144 outstanding I/Os",
		"vsan-dom at 100 %; host CPU 7 %, NIC 6 %; 6,144 outstanding I/Os",
		"vsan-dom at 99.5 %; host CPU 8 %, NIC 6 %; 6,144 outstanding I/Os",
		"nic-rx at 96 %; host CPU 7 %, NIC 96 %; 6,144 outstanding I/Os",
		"vmnic0+vmnic1 carry 4k at 5 %",
		"vmnic2+vmnic3 carry 4k at 6 %",
		"vmnic0+vmnic1 carry 64k at 7 %",
	} {
		notes = addRanged(notes, n)
	}
	var got []string
	for _, n := range notes {
		got = append(got, n.String())
	}
	want := []string{
		"vsan-dom at 97-100 %; host CPU 7-8 %, NIC 6 %; 6,144 outstanding I/Os",
		"nic-rx at 96 %; host CPU 7 %, NIC 96 %; 6,144 outstanding I/Os",
		"vmnic0+vmnic1 carry 4k at 5 %",
		"vmnic2+vmnic3 carry 4k at 6 %",
		"vmnic0+vmnic1 carry 64k at 7 %",
	}
	if !slices.Equal(got, want) {
		t.Errorf("notes\n%q\nwant\n%q", got, want)
	}
}

// The runs of a workload write a note with numbers of their own (the
// passes fio's random map makes in each): the warnings give it once, its
// numbers as ranges over them, counted over them all; another workload's
// stays its own, and a note without numbers is one over every workload.
func TestWarningsOfAWorkloadBecomeRanges(t *testing.T) {
	var s RunSummary
	for i, run := range []struct {
		workload string
		notes    []string
	}{
		{"general", []string{"over the 0.21 passes they average 43,236 bytes", "testbed x is uncalibrated"}},
		{"general", []string{"over the 0.39 passes they average 37,559 bytes", "testbed x is uncalibrated"}},
		{"sql", []string{"over the 0.32 passes they average 22,015 bytes", "testbed x is uncalibrated"}},
	} {
		s.add(Run{Cell: "c", Workload: run.workload, Repeat: i + 1, Status: "ok", Notes: run.notes}, nil)
	}
	s.finish()
	var got []string
	for _, w := range s.Warnings {
		got = append(got, fmt.Sprintf("%d: %s", w.Count, w.Text))
	}
	want := []string{
		"3: testbed x is uncalibrated",
		"2: over the 0.21-0.39 passes they average 37,559-43,236 bytes",
		"1: over the 0.32 passes they average 22,015 bytes",
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings\n%q\nwant\n%q", got, want)
	}
}
