package fio

import (
	"fmt"
	"strconv"
	"strings"
)

var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40}, {"pib", 1 << 50},
	{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"tb", 1 << 40}, {"pb", 1 << 50},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40}, {"p", 1 << 50},
	{"b", 1},
}

// ParseSize reads a size the way fio does with its default kb_base=1024:
// "4096", "4k", "4KiB", "64m", "50g" (k, KB and KiB all mean 1024).
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("size %q: want a whole number of bytes with an optional unit, like 4096, 4k, 256KiB or 50g", s)
	}
	if n > 0 && mult > 1 && n > (1<<62)/mult {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return n * mult, nil
}

// FormatSize writes n in the largest unit that divides it: 4k, 256k, 1m, 50g.
func FormatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"p", 1 << 50}, {"t", 1 << 40}, {"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}} {
		if n != 0 && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

var timeUnits = []struct {
	suffix string
	sec    int64
}{{"d", 86400}, {"h", 3600}, {"m", 60}, {"s", 1}}

// ParseSeconds reads a whole-second duration the way fio's runtime and
// ramp_time do: "30" (seconds), "30s", "2m", "1h". Sub-second values
// ("500ms") are refused: jobs are timed in whole seconds.
func ParseSeconds(s string) (int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if strings.HasSuffix(t, "ms") || strings.HasSuffix(t, "us") {
		return 0, fmt.Errorf("duration %q: want whole seconds, like 30, 30s, 2m or 1h", s)
	}
	mult := int64(1)
	for _, u := range timeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSuffix(t, u.suffix), u.sec
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 32)
	if err != nil || n < 0 || n*mult > 1<<31-1 {
		return 0, fmt.Errorf("duration %q: want whole seconds, like 30, 30s, 2m or 1h", s)
	}
	return int(n * mult), nil
}
