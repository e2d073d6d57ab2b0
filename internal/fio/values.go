package fio

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// This file reads option values as fio 3.33 does, to refuse when a job is
// read what fio would fail or run otherwise than written.

// numberKinds are fio's option types (as --cmdhelp names them) whose
// values fio reads as numbers, with what to give instead (%s is the
// option). fio 3.33 fails parsing a value of these types without a digit:
// measured for every option of the types with abc, true, yes, on, off,
// none, max, min, inf, k and m ("fio: failed parsing iodepth=deep", the
// job dropped). A ${NAME} is replaced before this, and fio's own
// $keywords and (arithmetic) are left to fio.
var numberKinds = map[string]string{
	"integer value (opt=100)":            "a number, like %s=100",
	"boolean value (opt=1)":              "0 or 1, like %s=1",
	"empty or boolean value ([0|1])":     "0 or 1, or %s alone",
	"string with time postfix (opt=10s)": "a time, like %s=10s",
	"(null)":                             "a size, like %s=4g, or a percentage, like %s=10%",
	"list of floating point values separated by ':' (opt=5.9:7.8)": "numbers separated by ':', like %s=50:99",
	"one to three ranges (opt=1k-4k[,4k-8k[,1k-8k]])":              "a range, like %s=4k-64k",
}

// numberStrings are the options fio lists as strings but reads as numbers
// or sizes, with what to give instead: fio 3.33 fails parsing abc for each
// (measured over every string option without listed words).
var numberStrings = map[string]string{
	"filesize": "a size, like %s=4g", "lockmem": "a size, like %s=1g", "number_ios": "a number, like %s=1000",
	"randseed": "a number, like %s=1234", "trim_backlog": "a number, like %s=100", "verify_backlog": "a number, like %s=100",
	"zonecapacity": "a size, like %s=256m", "zonerange": "a size, like %s=256m", "zonesize": "a size, like %s=256m",
}

// numberWanted says what to give an option fio reads as a number, in
// words naming it as the job does (key); ok is false for other options.
func numberWanted(key string, spec optionSpec) (want string, ok bool) {
	want, ok = numberStrings[Canonical(key)]
	if !ok {
		want, ok = numberKinds[spec.typ]
	}
	return strings.ReplaceAll(want, "%s", key), ok
}

// unparsable refuses a value fio fails parsing, or does not run as
// written: none where fio wants one (iodepth alone), a word for a number,
// a number out of the option's range, or a word none of those a string
// option takes.
func unparsable(o Option) error {
	spec := knownOptions[Canonical(o.Key)]
	if o.Value == "" && spec.typ != "" && !spec.bare {
		return fmt.Errorf("%s: %s fails parsing it given alone; want %s", o.Key, fioVersion, valueWanted(o.Key, spec))
	}
	if err := notOneOf(o, spec); err != nil {
		return err
	}
	want, ok := numberWanted(o.Key, spec)
	if !ok || o.Value == "" {
		return outOfRange(o, spec)
	}
	if !strings.ContainsAny(o.Value, "0123456789$(") {
		return fmt.Errorf("%s=%s: %s fails parsing it; want %s", o.Key, o.Value, fioVersion, want)
	}
	if !spec.floatList() && slices.ContainsFunc(digitRuns.FindAllString(o.Value, -1), tooLarge) {
		return fmt.Errorf("%s=%s: %s fails parsing a number beyond %d; want %s", o.Key, o.Value, fioVersion, int64(math.MaxInt64), want)
	}
	return outOfRange(o, spec)
}

var digitRuns = regexp.MustCompile(`[0-9]+`)

// tooLarge says whether a run of digits is beyond what fio reads a whole
// number into (a signed 64-bit integer: strtoll fails with ERANGE, and fio
// 3.33 fails parsing the option; measured for 88 options).
func tooLarge(digits string) bool {
	_, err := strconv.ParseInt(digits, 10, 64)
	return errors.Is(err, strconv.ErrRange)
}

// OnValue is the value that sets an option on: none where fio takes it
// alone (norandommap), 1 for a yes-or-no option it does not (verify_fatal=1),
// else none, which the job's check then refuses with what to give.
func OnValue(key string) string {
	spec := knownOptions[Canonical(key)]
	if !spec.bare && strings.HasPrefix(spec.typ, "boolean") {
		return "1"
	}
	return ""
}

// valueWanted says what to give an option fio does not take alone.
func valueWanted(key string, spec optionSpec) string {
	if want, ok := numberWanted(key, spec); ok {
		return want
	}
	if len(spec.values) > 0 {
		return "one of " + strings.Join(spec.values, ", ")
	}
	return fmt.Sprintf("a value, like %s=VALUE", key)
}

// storedAsGiven are the options fio lists words for but takes any value.
var storedAsGiven = []string{"ioengine", "profile"}

// notOneOf refuses a value none of the words `fio --cmdhelp` lists for
// the option (rate_process=exponential, verify=md6, fallocate=false). fio
// matches the value up to its first ',' (else ':') exactly, case and all,
// so rw=randread:8, random_distribution=zipf:1.2 and
// continue_on_error=read,write pass, and fails parsing anything else.
// ioengine and profile are left out: fio stores their values as given
// (it loads an engine it does not list by name or path when the job
// starts, and parses profile=bogus).
func notOneOf(o Option, spec optionSpec) error {
	if len(spec.values) == 0 || o.Value == "" || slices.Contains(storedAsGiven, Canonical(o.Key)) || strings.Contains(o.Value, "$") {
		return nil
	}
	head, _, found := strings.Cut(o.Value, ",")
	if !found {
		head, _, _ = strings.Cut(o.Value, ":")
	}
	if slices.Contains(spec.values, head) {
		return nil
	}
	return fmt.Errorf("%s=%s: %s fails parsing it; want one of %s", o.Key, o.Value, fioVersion, strings.Join(spec.values, ", "))
}

// outOfRange refuses a value out of the range `fio --cmdhelp` gives the
// option (iodepth=0, rwmixread=101, direct=2, percentile_list=50:100.5),
// in any of its comma-separated values (a float list's colon-separated
// ones). fio 3.33 fails parsing an option whose first value is out of
// range; a later value it reports and runs anyway, and a negative below a
// least of 0 it takes silently as another number (measured: rwmixread=-1
// ran 1 % reads, rate_iops=-5 held writes at 5 a second). Values starbench
// does not read as fio does (times, percentages, ranges, $keywords)
// are left to fio.
func outOfRange(o Option, spec optionSpec) error {
	lim := spec.limits
	float := spec.floatList()
	if lim == nil || !float && !spec.wholeNumber() {
		return nil
	}
	sep := ","
	if float {
		sep = ":"
	}
	for _, part := range strings.Split(o.Value, sep) {
		v, ok := fioNumber(strings.TrimSpace(part), float)
		if !ok || v >= lim.min && v <= lim.max {
			continue
		}
		return fmt.Errorf("%s=%s: %s is out of %s's range for %s; want %s", o.Key, o.Value, part, fioVersion, Canonical(o.Key), lim)
	}
	return nil
}

// fioNumber reads one value as fio does for a whole-number option (a size
// with fio's units, kb_base 1024, or hex after 0x) or a float list; ok is
// false for forms left to fio.
func fioNumber(s string, float bool) (float64, bool) {
	t, neg := strings.CutPrefix(s, "-")
	var v float64
	if float {
		f, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsNaN(f) {
			return 0, false
		}
		v = f
	} else if h, hex := strings.CutPrefix(strings.ToLower(t), "0x"); hex {
		n, err := strconv.ParseUint(h, 16, 64)
		if err != nil {
			return 0, false
		}
		v = float64(n)
	} else {
		n, ok := parseFioSize(t, 1024)
		if !ok {
			return 0, false
		}
		v = float64(n)
	}
	if neg {
		v = -v
	}
	return v, true
}

func number(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// String says the range in words: "0 or 1", "0 to 100", "1 or more".
func (l *limits) String() string {
	switch {
	case l.min == 0 && l.max == 1:
		return "0 or 1"
	case math.IsInf(l.max, 1):
		return number(l.min) + " or more"
	}
	return number(l.min) + " to " + number(l.max)
}

// FlagOn reads a yes-or-no option's value as fio 3.33 does (its check_int:
// sscanf's %u, or %x after 0x): on when given alone or when the number the
// value starts with is not 0, so stonewall=2, -1, 1.5 and 0x1 are on and
// 0.5, 00 and 0x0 off (measured: the jobs' reporting groups).
func FlagOn(v string) bool {
	if v == "" {
		return true
	}
	t := strings.ToLower(strings.TrimSpace(v))
	digits := "0123456789"
	if h, ok := strings.CutPrefix(t, "0x"); ok {
		t, digits = h, "0123456789abcdef"
	} else {
		t = strings.TrimLeft(t, "+-")
	}
	end := 0
	for end < len(t) && strings.IndexByte(digits, t[end]) >= 0 {
		end++
	}
	return strings.Trim(t[:end], "0") != ""
}
