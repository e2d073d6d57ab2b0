package fio

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// File is a parsed fio job file: an optional [global] section and the job
// sections in file order. Comments are not kept; every option is.
type File struct {
	Global *Job // nil when the file has no [global] section
	Jobs   []Job
}

// Section is one [name] block of a job file with its raw options in order.
type Section struct {
	Name    string
	Options []Option
}

// maxLine bounds one job-file line, as fio's own parser does (it reads 8 KiB lines).
const maxLine = 64 << 10

// ParseSections reads a job file into its sections without interpreting options.
func ParseSections(r io.Reader) ([]Section, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxLine)
	var out []Section
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == ';' || line[0] == '#' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			name := ""
			if end > 0 {
				name = strings.TrimSpace(line[1:end])
			}
			if end < 0 || name == "" || strings.TrimSpace(line[end+1:]) != "" {
				return nil, fmt.Errorf("line %d: %q is not a section header; want [name]", n, line)
			}
			out = append(out, Section{Name: name})
			continue
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("line %d: option %q comes before any section; put it under [global] or a [job] header", n, line)
		}
		key, value, _ := strings.Cut(line, "=")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if key == "" {
			return nil, fmt.Errorf("line %d: %q has no option name; want name=value or a flag name", n, line)
		}
		s := &out[len(out)-1]
		s.Options = append(s.Options, Option{Key: key, Value: value})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading job file: %w", err)
	}
	return out, nil
}

// ParseFile reads a job file into the model.
func ParseFile(r io.Reader) (*File, error) {
	secs, err := ParseSections(r)
	if err != nil {
		return nil, err
	}
	f := &File{}
	for _, s := range secs {
		j := JobFromOptions(s.Name, s.Options)
		if s.Name == "global" {
			if f.Global != nil {
				// fio merges repeated [global] sections in order.
				j = JobFromOptions("global", append(f.Global.Render(), s.Options...))
			}
			f.Global = &j
			continue
		}
		f.Jobs = append(f.Jobs, j)
	}
	if len(f.Jobs) == 0 {
		return nil, fmt.Errorf("the job file has no job section; want at least one [name] section besides [global]")
	}
	return f, nil
}

// WriteTo writes the file as fio reads it.
func (f *File) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	if f.Global != nil {
		writeSection(&b, "global", f.Global.Render())
	}
	for _, j := range f.Jobs {
		writeSection(&b, j.Name, j.Render())
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

func writeSection(b *strings.Builder, name string, opts []Option) {
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	fmt.Fprintf(b, "[%s]\n", name)
	for _, o := range opts {
		b.WriteString(o.Key)
		if o.Value != "" {
			b.WriteByte('=')
			b.WriteString(o.Value)
		}
		b.WriteByte('\n')
	}
}

// diskBinding names the options that say which files a job touches; on a
// worker its data disks decide that, so a workload never carries them.
var diskBinding = []string{"filename", "filename_format", "directory", "nrfiles", "opendir"}

// perDisk are options a workload drops: which files to use (the worker's
// disks decide) and group_reporting (starbench reports every disk and
// aggregates itself).
var perDisk = append([]string{"group_reporting"}, diskBinding...)

// Workload merges the file into the one workload starbench runs on every
// data disk: [global] overlaid with the job sections, which must agree on
// every option except which file they use (as HCIBench's per-disk sections do).
func (f *File) Workload() (*Job, error) {
	var base []Option
	if f.Global != nil {
		base = f.Global.Render()
	}
	var first []Option
	for i, j := range f.Jobs {
		opts := slices.DeleteFunc(j.Render(), func(o Option) bool { return slices.Contains(perDisk, o.Key) })
		if i == 0 {
			first = opts
			continue
		}
		if !slices.Equal(opts, first) {
			return nil, fmt.Errorf("job sections [%s] and [%s] run different workloads; starbench runs one workload on every disk, so give sections that differ only in filename (or split the file)", f.Jobs[0].Name, j.Name)
		}
	}
	merged := slices.DeleteFunc(overlay(base, first), func(o Option) bool { return slices.Contains(perDisk, o.Key) })
	j := JobFromOptions(f.Jobs[0].Name, merged)
	return &j, nil
}

// overlay returns base with each option of top set: a key already present
// takes the new value in place, a new key is appended.
func overlay(base, top []Option) []Option {
	out := slices.Clone(base)
	for _, o := range top {
		if i := slices.IndexFunc(out, func(b Option) bool { return b.Key == o.Key }); i >= 0 {
			out[i] = o
		} else {
			out = append(out, o)
		}
	}
	return out
}

// aliases maps fio's alternative option names to the names the model uses.
var aliases = map[string]string{"readwrite": "rw", "blocksize": "bs", "timeout": "runtime"}

func canonical(key string) string {
	if a, ok := aliases[key]; ok {
		return a
	}
	return key
}

// DropRaw removes the raw settings of the named options, under any name fio
// accepts for them, so that a typed value set afterwards is the one fio
// runs: a raw setting renders after the typed fields and would win.
func (j *Job) DropRaw(keys ...string) {
	drop := func(o Option) bool {
		return slices.ContainsFunc(keys, func(k string) bool { return canonical(k) == canonical(o.Key) })
	}
	j.Options = slices.DeleteFunc(slices.Clone(j.Options), drop)
	if len(j.Options) == 0 {
		j.Options = nil
	}
}

// hasRaw says whether the job sets key as a raw option.
func (j *Job) hasRaw(key string) bool {
	return slices.ContainsFunc(j.Options, func(o Option) bool { return canonical(o.Key) == key })
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
	for _, o := range opts {
		key := canonical(o.Key)
		// The last setting of an option wins, as in fio: a typed value
		// replaces earlier raw ones and a raw value clears the typed one.
		if j.setTyped(key, o.Value) {
			j.Options = slices.DeleteFunc(j.Options, func(r Option) bool { return canonical(r.Key) == key })
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

// setTyped stores a known option in its field and says whether it did.
func (j *Job) setTyped(key, v string) bool {
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
		n, err := ParseSize(v)
		if err != nil || n == 0 {
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
		if v == "" || v == "1" {
			j.TimeBased = true
			return true
		}
		return false
	case "size":
		return size(&j.Size)
	case "direct":
		if v == "1" {
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
		add("bs", FormatSize(j.BlockSize))
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
		add("size", FormatSize(j.Size))
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
		add("rate", FormatSize(j.RateBytes))
	}
	if len(j.Percentiles) > 0 {
		add("percentile_list", FormatPercentiles(j.Percentiles))
	}
	return append(out, j.Options...)
}

// forbiddenOnWorkers are options that would break per-disk reporting or
// send I/O somewhere other than the worker's data disks.
var forbiddenOnWorkers = perDisk

// WorkerFile writes the job file one worker runs: the job under [global]
// and one section per data disk, named after the disk. A job without a
// size (typed or raw, like size=50%) gets each disk's size, so files are
// laid out whole.
func (j *Job) WorkerFile(disks []Disk) (string, error) {
	opts := j.Render()
	for _, o := range opts {
		if slices.Contains(forbiddenOnWorkers, o.Key) {
			return "", fmt.Errorf("job %q sets %s; starbench chooses each worker's files and reports every disk itself, so leave %s out", j.Name, o.Key, o.Key)
		}
	}
	if len(disks) == 0 {
		return "", fmt.Errorf("no data disks: give the worker at least one disk")
	}
	var b strings.Builder
	writeSection(&b, "global", opts)
	for _, d := range disks {
		sec := []Option{{Key: "filename", Value: escapeFilename(d.Path)}}
		if j.Size == 0 && !j.hasRaw("size") && d.SizeBytes > 0 {
			sec = append(sec, Option{Key: "size", Value: strconv.FormatInt(d.SizeBytes, 10)})
		}
		writeSection(&b, d.Name, sec)
	}
	return b.String(), nil
}

// escapeFilename escapes the colons fio would read as a list of files.
func escapeFilename(p string) string { return strings.ReplaceAll(p, ":", `\:`) }

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
