package fio

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Canonical returns fio's name of an option given under any of its names
// (blockalign is ba, fileoffset offset, wait_for_previous stonewall).
func Canonical(key string) string {
	if a, ok := optionAliases[key]; ok {
		return a
	}
	return key
}

// DropRaw removes the raw settings of the named options, under any name fio
// accepts for them, so that a typed value set afterwards is the one fio
// runs: a raw setting renders after the typed fields and would win.
func (j *Job) DropRaw(keys ...string) {
	drop := func(o Option) bool {
		return slices.ContainsFunc(keys, func(k string) bool { return Canonical(k) == Canonical(o.Key) })
	}
	j.Options = slices.DeleteFunc(slices.Clone(j.Options), drop)
	if len(j.Options) == 0 {
		j.Options = nil
	}
}

// hasRaw says whether the job sets key as a raw option.
func (j *Job) hasRaw(key string) bool {
	return slices.ContainsFunc(j.Options, func(o Option) bool { return Canonical(o.Key) == key })
}

// clearTyped resets the field of a known option to fio's default.
func (j *Job) clearTyped(key string) {
	switch key {
	case "rw":
		j.RW = ""
	case "bs":
		j.BlockSize = 0
	case "bssplit":
		j.BSSplit = nil
	case "rwmixread":
		j.RWMixRead = 0
	case "iodepth":
		j.IODepth = 0
	case "numjobs":
		j.NumJobs = 0
	case "runtime":
		j.RuntimeSec = 0
	case "ramp_time":
		j.RampSec = 0
	case "time_based":
		j.TimeBased = false
	case "size":
		j.Size = 0
	case "direct":
		j.Direct = false
	case "ioengine":
		j.IOEngine = ""
	case "buffer_compress_percentage":
		j.BufferCompressPercentage = 0
	case "dedupe_percentage":
		j.DedupePercentage = 0
	case "rate_iops":
		j.RateIOPS = 0
	case "rate":
		j.RateBytes = 0
	case "percentile_list":
		j.Percentiles = nil
	}
}

// JobFromOptions interprets raw options into a Job. An option the model
// names takes its typed field only when the field can say exactly the same
// (bs=4k does, bs=4k-16k and rwmixread=0 do not); everything else stays in
// Options, in order, so rendering the job gives fio the same settings.
func JobFromOptions(name string, opts []Option) Job {
	j := Job{Name: name}
	kb := kbBaseOf(opts)
	for _, o := range opts {
		key := Canonical(o.Key)
		// The last setting of an option wins, as in fio: a typed value
		// replaces earlier raw ones and a raw value clears the typed one.
		if j.setTyped(key, o.Value, kb) {
			j.Options = slices.DeleteFunc(j.Options, func(r Option) bool { return Canonical(r.Key) == key })
			continue
		}
		j.clearTyped(key)
		j.Options = append(j.Options, o)
	}
	j.mixFromWrites()
	if len(j.Options) == 0 {
		j.Options = nil
	}
	return j
}

// mixFromWrites turns a lone rwmixwrite=W into RWMixRead=100-W, so the
// model sees the mix however the file spelled it.
func (j *Job) mixFromWrites() {
	if j.RWMixRead != 0 || slices.ContainsFunc(j.Options, func(o Option) bool { return o.Key == "rwmixread" }) {
		return
	}
	i := slices.IndexFunc(j.Options, func(o Option) bool { return o.Key == "rwmixwrite" })
	if i < 0 || slices.ContainsFunc(j.Options[i+1:], func(o Option) bool { return o.Key == "rwmixwrite" }) {
		return
	}
	w, err := strconv.Atoi(j.Options[i].Value)
	if err != nil || w <= 0 || w >= 100 {
		return
	}
	j.RWMixRead = 100 - w
	j.Options = slices.Delete(j.Options, i, i+1)
}

// kbBaseOf returns the kb_base options set (fio applies it before the
// sizes it governs, wherever it stands): 1024 unless set to 1000.
func kbBaseOf(opts []Option) int64 {
	kb := int64(1024)
	for _, o := range opts {
		if o.Key == "kb_base" {
			kb = 1024
			if o.Value == "1000" {
				kb = 1000
			}
		}
	}
	return kb
}

// formatSize writes a typed size for fio: in units under fio's default
// kb_base, in bytes when the job counts kilobytes as 1000.
func (j *Job) formatSize(n int64) string {
	if kbBaseOf(j.Options) == 1000 {
		return strconv.FormatInt(n, 10)
	}
	return FormatSize(n)
}

// setTyped stores a known option in its field and says whether it did.
// kb is the job's kb_base, which decides what "k" means in its sizes.
func (j *Job) setTyped(key, v string, kb int64) bool {
	posInt := func(dst *int) bool {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return false
		}
		*dst = n
		return true
	}
	pct := func(dst *int) bool {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > 100 {
			return false
		}
		*dst = n
		return true
	}
	size := func(dst *int64) bool {
		n, ok := parseFioSize(v, kb)
		if !ok || n == 0 {
			return false
		}
		*dst = n
		return true
	}
	secs := func(dst *int) bool {
		n, err := ParseSeconds(v)
		if err != nil || n == 0 {
			return false
		}
		*dst = n
		return true
	}
	switch key {
	case "rw":
		if v == "" {
			return false
		}
		j.RW = v
		return true
	case "bs":
		return size(&j.BlockSize)
	case "bssplit":
		// Typed only where starbench's units agree with fio's (4KiB is
		// 4000 bytes to fio under its default kb_base).
		if kb != 1024 || strings.Contains(strings.ToLower(v), "ib") {
			return false
		}
		split, err := ParseBSSplit(v)
		if err != nil {
			return false
		}
		j.BSSplit = split
		return true
	case "rwmixread":
		return pct(&j.RWMixRead)
	case "iodepth":
		return posInt(&j.IODepth)
	case "numjobs":
		return posInt(&j.NumJobs)
	case "runtime":
		return secs(&j.RuntimeSec)
	case "ramp_time":
		return secs(&j.RampSec)
	case "time_based":
		if FlagOn(v) {
			j.TimeBased = true
			return true
		}
		return false
	case "size":
		return size(&j.Size)
	case "direct":
		if v != "" && FlagOn(v) {
			j.Direct = true
			return true
		}
		return false
	case "ioengine":
		if v == "" {
			return false
		}
		j.IOEngine = v
		return true
	case "buffer_compress_percentage":
		return pct(&j.BufferCompressPercentage)
	case "dedupe_percentage":
		return pct(&j.DedupePercentage)
	case "rate_iops":
		return posInt(&j.RateIOPS)
	case "rate":
		return size(&j.RateBytes)
	case "percentile_list":
		p, err := ParsePercentiles(v)
		if err != nil {
			return false
		}
		j.Percentiles = p
		return true
	}
	return false
}

// Render returns the job's options in fio's terms: the named fields in a
// fixed order, then Options in their order.
func (j *Job) Render() []Option {
	var out []Option
	add := func(k, v string) { out = append(out, Option{Key: k, Value: v}) }
	itoa := strconv.Itoa
	if j.RW != "" {
		add("rw", j.RW)
	}
	if j.BlockSize > 0 {
		add("bs", j.formatSize(j.BlockSize))
	}
	if len(j.BSSplit) > 0 {
		add("bssplit", FormatBSSplit(j.BSSplit))
	}
	if j.RWMixRead > 0 {
		add("rwmixread", itoa(j.RWMixRead))
	}
	if j.IODepth > 0 {
		add("iodepth", itoa(j.IODepth))
	}
	if j.NumJobs > 0 {
		add("numjobs", itoa(j.NumJobs))
	}
	if j.RuntimeSec > 0 {
		add("runtime", itoa(j.RuntimeSec))
	}
	if j.RampSec > 0 {
		add("ramp_time", itoa(j.RampSec))
	}
	if j.TimeBased {
		add("time_based", "")
	}
	if j.Size > 0 {
		add("size", j.formatSize(j.Size))
	}
	if j.Direct {
		add("direct", "1")
	}
	if j.IOEngine != "" {
		add("ioengine", j.IOEngine)
	}
	if j.BufferCompressPercentage > 0 {
		add("buffer_compress_percentage", itoa(j.BufferCompressPercentage))
	}
	if j.DedupePercentage > 0 {
		add("dedupe_percentage", itoa(j.DedupePercentage))
	}
	if j.RateIOPS > 0 {
		add("rate_iops", itoa(j.RateIOPS))
	}
	if j.RateBytes > 0 {
		add("rate", j.formatSize(j.RateBytes))
	}
	if len(j.Percentiles) > 0 {
		add("percentile_list", FormatPercentiles(j.Percentiles))
	}
	return append(out, j.Options...)
}

// ParseBSSplit reads fio's bssplit for one direction: "4k/50:64k/50".
func ParseBSSplit(s string) ([]BSSplit, error) {
	var out []BSSplit
	total := 0
	for _, part := range strings.Split(s, ":") {
		sz, pc, ok := strings.Cut(part, "/")
		if !ok {
			return nil, fmt.Errorf("bssplit entry %q: want size/percent, like 4k/50", part)
		}
		n, err := ParseSize(sz)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("bssplit entry %q: want size/percent, like 4k/50", part)
		}
		p, err := strconv.Atoi(strings.TrimSpace(pc))
		if err != nil || p <= 0 || p > 100 {
			return nil, fmt.Errorf("bssplit entry %q: the percent must be 1 to 100", part)
		}
		total += p
		out = append(out, BSSplit{Size: n, Percent: p})
	}
	if total != 100 {
		return nil, fmt.Errorf("bssplit %q adds up to %d %%; the shares must add up to 100", s, total)
	}
	return out, nil
}

// FormatBSSplit writes a split as fio reads it.
func FormatBSSplit(split []BSSplit) string {
	parts := make([]string, len(split))
	for i, s := range split {
		parts[i] = FormatSize(s.Size) + "/" + strconv.Itoa(s.Percent)
	}
	return strings.Join(parts, ":")
}

// ParsePercentiles reads fio's percentile_list: "50:95:99:99.9".
func ParsePercentiles(s string) ([]float64, error) {
	var out []float64
	for _, part := range strings.Split(s, ":") {
		p, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || !(p > 0 && p <= 100) {
			return nil, fmt.Errorf("percentile %q: want a number above 0 and at most 100", part)
		}
		out = append(out, p)
	}
	return out, nil
}

// FormatPercentiles writes percentiles as fio's percentile_list.
func FormatPercentiles(ps []float64) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = strconv.FormatFloat(p, 'f', -1, 64)
	}
	return strings.Join(parts, ":")
}

// Rates returns the job's rate caps per direction (read, write, trim), 0
// where a direction is not capped, as fio reads rate_iops and rate: one
// value caps every direction on its own, "a,b" caps reads at a and writes
// (and trims) at b, "a," reads only, ",b" writes only, "a,b,c" each. ok is
// false when a value is not one starbench can read (fio still runs it).
func (j *Job) Rates() (iops, bytes [3]float64, ok bool) {
	ok = true
	read := func(key string, typed float64, parse func(string) (float64, bool)) [3]float64 {
		v, raw := j.raw(key)
		if !raw {
			return [3]float64{typed, typed, typed}
		}
		parts := strings.Split(v, ",")
		if len(parts) > 3 {
			ok = false
			return [3]float64{}
		}
		vals := make([]float64, len(parts))
		for i, p := range parts {
			if p = strings.TrimSpace(p); p == "" {
				continue
			}
			n, good := parse(p)
			if !good {
				ok = false
			}
			vals[i] = n
		}
		switch len(vals) {
		case 1:
			return [3]float64{vals[0], vals[0], vals[0]}
		case 2:
			return [3]float64{vals[0], vals[1], vals[1]}
		}
		return [3]float64{vals[0], vals[1], vals[2]}
	}
	kb := kbBaseOf(j.Options)
	iops = read("rate_iops", float64(j.RateIOPS), func(s string) (float64, bool) {
		n, err := strconv.ParseInt(s, 10, 64)
		return float64(n), err == nil && n >= 0
	})
	bytes = read("rate", float64(j.RateBytes), func(s string) (float64, bool) {
		n, good := parseFioSize(s, kb)
		return float64(n), good
	})
	return iops, bytes, ok
}
