package fio

import (
	"strings"
	"testing"
)

// TestSizesAtTheirLimits: sizes and durations at the edges of what they
// can hold: 0 is a size, 2^62 the largest, one unit more is refused;
// 2^31-1 seconds the longest duration.
func TestSizesAtTheirLimits(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "0k": 0, "1": 1, "1b": 1, "4096": 4096, "4194304k": 1 << 32, "4611686018427387904": 1 << 62,
		"4194304g": 1 << 52, "4096p": 1 << 62, " 8 KiB ": 8 << 10,
	} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"-1":    "want a whole number of bytes",
		"-1k":   "want a whole number of bytes",
		"4097p": "is too large",
		"4x":    "want a whole number of bytes",
	} {
		if _, err := ParseSize(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSize(%q): %v, want %q", in, err, want)
		}
	}
	for in, want := range map[string]int{"0": 0, "2147483647": 1<<31 - 1, "35791394m": 35791394 * 60, "24855d": 24855 * 86400} {
		if got, err := ParseSeconds(in); err != nil || got != want {
			t.Errorf("ParseSeconds(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"-1", "-1s", "2147483648", "35791395m", "24856d", "500ms", "10us"} {
		if _, err := ParseSeconds(in); err == nil {
			t.Errorf("ParseSeconds(%q) accepted", in)
		}
	}
}

// TestFioSizesAsFioReadsThem: job-file sizes with fio's own rules: the
// "i" forms flip the base, digits must lead, and the largest size is 2^62.
func TestFioSizesAsFioReadsThem(t *testing.T) {
	for _, tc := range []struct {
		in   string
		base int64
		want int64
		ok   bool
	}{
		{"4k", 1024, 4096, true}, {"4KiB", 1024, 4000, true}, {"4KiB", 1000, 4096, true}, {"4k", 1000, 4000, true},
		{"0", 1024, 0, true}, {"9", 1024, 9, true}, {"4096p", 1024, 1 << 62, true}, {"4097p", 1024, 0, false},
		{"k", 1024, 0, false}, {"4q", 1024, 0, false}, {"1-4k", 1024, 0, false}, {"50%", 1024, 0, false},
	} {
		got, ok := parseFioSize(tc.in, tc.base)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseFioSize(%q, %d) = %d, %v; want %d, %v", tc.in, tc.base, got, ok, tc.want, tc.ok)
		}
	}
}
