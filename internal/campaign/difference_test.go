package campaign

import (
	"strings"
	"testing"
)

// TestFirstDifferenceNamesTheWord: a changed definition is described by
// its first differing word, a missing word as (nothing) on either side,
// and a word longer than 80 characters clipped to 77 and "...".
func TestFirstDifferenceNamesTheWord(t *testing.T) {
	long := strings.Repeat("x", 81)
	cases := []struct{ was, now, want string }{
		{"rw=read runtime=60", "rw=read runtime=30", "it had runtime=60 where it now has runtime=30"},
		{"rw=read", "rw=read size=1g", "it had (nothing) where it now has size=1g"},
		{"rw=read size=1g", "rw=read", "it had size=1g where it now has (nothing)"},
		{"a " + long, "a b", "it had " + strings.Repeat("x", 77) + "... where it now has b"},
		{"a " + long[:80], "a b", "it had " + long[:80] + " where it now has b"},
		{"rw=read  runtime=60", "rw=read runtime=60", "they differ"},
	}
	for _, c := range cases {
		if got := firstDifference(c.was, c.now); got != c.want {
			t.Errorf("firstDifference(%q, %q) = %q, want %q", c.was, c.now, got, c.want)
		}
	}
}
