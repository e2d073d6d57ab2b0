package fio

import (
	"fmt"
	"math"
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

// ParseTime reads a fio time in seconds: a number with a unit (us, ms, s,
// m, h; usec and msec too), or a bare number in the option's own unit,
// bare seconds (thinktime's is a microsecond, startdelay's a second).
func ParseTime(s string, bare float64) (float64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := bare
	for _, u := range []struct {
		suffix string
		sec    float64
	}{{"usec", 1e-6}, {"msec", 1e-3}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}, {"m", 60}, {"h", 3600}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSuffix(t, u.suffix), u.sec
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("time %q", s)
	}
	return v * mult, nil
}

// fioSizeUnits are the size suffixes starbench types as fio reads them
// (lower case): the power of the unit and whether it is the "i" form,
// whose base fio flips (with the default kb_base=1024, 4KiB is 4000 bytes
// and 4k, 4kb and 4ki are 4096).
var fioSizeUnits = map[string]struct {
	pow     int
	flipped bool
}{
	"": {0, false}, "b": {0, false},
	"k": {1, false}, "kb": {1, false}, "ki": {1, false}, "kib": {1, true},
	"m": {2, false}, "mb": {2, false}, "mi": {2, false}, "mib": {2, true},
	"g": {3, false}, "gb": {3, false}, "gi": {3, false}, "gib": {3, true},
	"t": {4, false}, "tb": {4, false}, "ti": {4, false}, "tib": {4, true},
	"p": {5, false}, "pb": {5, false}, "pi": {5, false}, "pib": {5, true},
}

// parseFioSize reads a size in a job file exactly as fio does with the
// given kb_base (1024 or 1000); ok is false for anything else (a range, a
// percentage, an expression), which stays fio's to read.
func parseFioSize(s string, kbBase int64) (int64, bool) {
	t := strings.ToLower(strings.TrimSpace(s))
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	u, ok := fioSizeUnits[t[i:]]
	if i == 0 || !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, false
	}
	base := kbBase
	if u.flipped {
		base = 1024 + 1000 - kbBase
	}
	for range u.pow {
		if n > (1<<62)/base {
			return 0, false
		}
		n *= base
	}
	return n, true
}
