package plots

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// scaled units: a unit with an SI prefix is rescaled to the best prefix of
// its base (1,500 µs shows as 1.5 ms, 10,000 MB/s as 10 GB/s).
var unitBase = map[string]struct {
	base  string
	scale float64
}{
	"B/s": {"B/s", 1}, "kB/s": {"B/s", 1e3}, "KB/s": {"B/s", 1e3}, "MB/s": {"B/s", 1e6}, "GB/s": {"B/s", 1e9},
	"B": {"B", 1}, "kB": {"B", 1e3}, "KB": {"B", 1e3}, "MB": {"B", 1e6}, "GB": {"B", 1e9}, "TB": {"B", 1e12},
	"b/s": {"b/s", 1}, "Mb/s": {"b/s", 1e6}, "Gb/s": {"b/s", 1e9},
	"s": {"s", 1}, "ms": {"s", 1e-3}, "µs": {"s", 1e-6}, "us": {"s", 1e-6}, "ns": {"s", 1e-9},
}

// FormatValue formats v for a tick or a value label: plain numbers with k, M,
// G suffixes (80k, 1.2M); units with an SI prefix rescaled (10 GB/s, 1.5 ms);
// other units appended (42 %).
func FormatValue(v float64, unit string) string {
	if math.IsNaN(v) {
		return "NA"
	}
	if u, ok := unitBase[unit]; ok {
		return siPrefixed(v*u.scale, u.base)
	}
	s := compact(v)
	switch unit {
	case "", "IOPS":
		return s
	case "%":
		return s + "%"
	}
	return s + " " + unit
}

// compact writes v with k, M, G, T suffixes and at most 3 significant digits.
func compact(v float64) string {
	a := math.Abs(v)
	for _, p := range []struct {
		div    float64
		suffix string
	}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if a >= p.div {
			return short(v/p.div) + p.suffix
		}
	}
	return short(v)
}

func siPrefixed(v float64, base string) string {
	a := math.Abs(v)
	prefixes := []struct {
		mul    float64
		prefix string
	}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}}
	if base == "s" {
		prefixes = []struct {
			mul    float64
			prefix string
		}{{1, ""}, {1e-3, "m"}, {1e-6, "µ"}, {1e-9, "n"}}
	}
	if a == 0 {
		return "0"
	}
	for _, p := range prefixes {
		if a >= p.mul*0.9999 {
			return short(v/p.mul) + " " + p.prefix + base
		}
	}
	last := prefixes[len(prefixes)-1]
	return short(v/last.mul) + " " + last.prefix + base
}

// short writes v with up to 3 significant digits, no trailing zeros.
func short(v float64) string {
	a := math.Abs(v)
	prec := 0
	switch {
	case a == 0:
	case a < 1:
		prec = 2 - int(math.Floor(math.Log10(a)))
	case a < 10:
		prec = 2
	case a < 100:
		prec = 1
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// unitTicks is a ticker labelling linear ticks (or gonum's logarithmic
// ones) with FormatValue.
type unitTicks struct {
	unit string
	log  bool
}

func (t unitTicks) Ticks(min, max float64) []plot.Tick {
	if math.IsInf(min, 0) || math.IsInf(max, 0) || math.IsNaN(min) || math.IsNaN(max) {
		return nil // gonum's tickers never return on these
	}
	var ticks []plot.Tick
	if t.log {
		ticks = plot.LogTicks{Prec: -1}.Ticks(min, max)
	} else {
		ticks = linearTicks(min, max)
	}
	seen := map[string]bool{}
	distinct := true
	for i, tk := range ticks {
		if !tk.IsMinor() {
			ticks[i].Label = FormatValue(tk.Value, t.unit)
			distinct = distinct && !seen[ticks[i].Label]
			seen[ticks[i].Label] = true
		}
	}
	if !distinct { // a narrow range far from 0 (Unix times): every digit
		decimals := stepDecimals(ticks)
		for i, tk := range ticks {
			if !tk.IsMinor() {
				ticks[i].Label = strconv.FormatFloat(tk.Value, 'f', decimals, 64)
				if t.unit != "" && t.unit != "IOPS" {
					ticks[i].Label += " " + t.unit
				}
			}
		}
	}
	return ticks
}

// stepDecimals is how many decimals the step between labelled ticks needs.
func stepDecimals(ticks []plot.Tick) int {
	step := math.Inf(1)
	prev := math.NaN()
	for _, tk := range ticks {
		if !tk.IsMinor() {
			if !math.IsNaN(prev) {
				step = math.Min(step, tk.Value-prev)
			}
			prev = tk.Value
		}
	}
	decimals := 0
	for ; decimals < 9 && math.Abs(step*math.Pow10(decimals)-math.Round(step*math.Pow10(decimals))) > 1e-6; decimals++ {
	}
	return decimals
}

// majorTicks is about how many labelled ticks a linear axis gets: gonum's
// default aims at three, which leaves a 5,000 s timeline with ticks 2,500 s
// apart and nothing to read a value between.
const majorTicks = 5

// linearTicks are labelled ticks at a round step (1, 2 or 5 times a power
// of ten: no 2.5, whose labels would need a digit more than the step's)
// giving the count nearest majorTicks within [min, max], and unlabelled
// minor ticks between them (a fifth of the step, a quarter for a step of 2).
func linearTicks(min, max float64) []plot.Tick {
	if !(max > min) {
		return []plot.Tick{{Value: min}}
	}
	count := func(step float64) float64 { return math.Floor(max/step+1e-9) - math.Ceil(min/step-1e-9) + 1 }
	mag := math.Pow(10, math.Floor(math.Log10((max-min)/majorTicks)))
	step, minors := 0.0, 0.0
	for _, m := range []struct{ mul, minors float64 }{{1, 5}, {2, 4}, {5, 5}, {10, 5}, {20, 4}} {
		s := m.mul * mag
		if step == 0 || math.Abs(count(s)-majorTicks) < math.Abs(count(step)-majorTicks) {
			step, minors = s, m.minors
		}
	}
	minor := step / minors
	var ticks []plot.Tick
	for i := math.Ceil(min/minor - 1e-9); i*minor <= max+minor*1e-9; i++ {
		v := i * minor
		if math.Abs(v) < minor*1e-9 {
			v = 0
		}
		if math.Mod(i, minors) == 0 {
			ticks = append(ticks, plot.Tick{Value: v, Label: FormatValue(v, "")})
		} else {
			ticks = append(ticks, plot.Tick{Value: v})
		}
	}
	return ticks
}
