package report

import (
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
