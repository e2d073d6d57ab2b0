// Package hcibench reads what HCIBench users bring: the vdbench parameter
// files HCIBench writes (translated into fio workloads) and the sizing of
// its "easy run".
package hcibench

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"starbench/internal/fio"
)

// Run is one run definition (rd=) of a vdbench parameter file as a fio
// workload: one job per workload definition (wd=) it runs, all at once.
type Run struct {
	Name     string
	Workload *fio.Workload
}

// Parsed is an HCIBench parameter file read: its format ("vdbench" or
// "fio"), its runs in file order and what the translation decided that a
// reader should know.
type Parsed struct {
	Format string
	Runs   []Run
	Notes  []string
}

// Read reads a parameter file HCIBench runs (file names it in errors): a
// vdbench file translated by ParseVdbench, or a fio job file (HCIBench's
// fioconfig writes one section per data disk, filename=/dev/sdX) read by
// starbench's fio parser as it is, named name.
func Read(name, file, text string) (*Parsed, error) {
	if IsVdbench(text) {
		return ParseVdbench(file, text)
	}
	wl, err := fio.ParseWorkload(name, file, text, fio.LoadOptions{})
	if err != nil {
		return nil, err
	}
	return &Parsed{Format: "fio", Runs: []Run{{Name: name, Workload: wl}}, Notes: ioRateNotes(text, wl)}, nil
}

// ioRateNotes says what HCIBench's io_rate (its fio header's "; io_rate:
// [N]") is in the fio file it wrote: rate_iops=N on every job, one job per
// data disk, which fio applies to each job's reads and to its writes on
// their own, not to the worker's total as vdbench's iorate=N.
func ioRateNotes(text string, wl *fio.Workload) []string {
	rate := ""
	for line := range strings.Lines(text) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "; io_rate:"); ok {
			rate = strings.Trim(strings.TrimSpace(v), "[]")
		}
	}
	if rate == "" || rate == "None" {
		return nil
	}
	capped := 0
	for _, j := range wl.Jobs {
		if j.RateIOPS > 0 || slices.ContainsFunc(j.Options, func(o fio.Option) bool { return o.Key == "rate_iops" }) {
			capped++
		}
	}
	if capped == 0 {
		return nil
	}
	return []string{fmt.Sprintf("HCIBench's io_rate %s is rate_iops on each of the file's %d jobs (one per data disk): fio caps each job's reads and its writes at it on their own, so a worker may do up to %d times %s reads and as many writes a second, where vdbench's iorate=%s is the worker's total", rate, capped, capped, rate, rate)}
}

// definition is one sd=, wd= or rd= line: its name, its parameters in
// order (defaults merged in) and where it is.
type definition struct {
	name   string
	params map[string]string
	pos    fio.Pos
}

// Parameters that change nothing fio runs: vdbench's own diagnostics and
// reporting.
var reportingParams = []string{"debug", "data_errors", "messagescan", "report", "histogram", "monitor", "validate_options", "timeout", "pause"}

// IsVdbench says whether text reads as a vdbench parameter file: its first
// definition line is sd=, wd=, rd=, hd= or a general parameter, not a fio
// [section].
func IsVdbench(text string) bool {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || isComment(line) {
			continue
		}
		return !strings.HasPrefix(line, "[") && strings.Contains(line, "=")
	}
	return false
}

func isComment(line string) bool {
	return strings.HasPrefix(line, "*") || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "/")
}

// ParseVdbench translates a vdbench parameter file (file names it in
// errors) into fio workloads. Each storage definition (sd=) is one of the
// worker's data disks, in order; each workload definition becomes a fio
// job run on every data disk of every worker. What has no fio equivalent
// is refused with its file:line and why.
func ParseVdbench(file, text string) (*Parsed, error) {
	p := &Parsed{Format: "vdbench"}
	sds, wds := map[string]definition{}, map[string]definition{}
	var sdOrder, wdOrder []string
	defaults := map[string]map[string]string{"sd": {}, "wd": {}, "rd": {}}
	general := map[string]string{} // compratio, dedupratio, dedupunit
	var rds []definition
	noted := map[string]bool{}
	note := func(s string) {
		if !noted[s] {
			noted[s] = true
			p.Notes = append(p.Notes, s)
		}
	}
	for i, raw := range strings.Split(text, "\n") {
		pos := fio.Pos{File: file, Line: i + 1}
		line := strings.TrimSpace(raw)
		if line == "" || isComment(line) {
			continue
		}
		params, err := splitParams(line)
		if err != nil {
			return nil, &fio.PosError{Pos: pos, Err: err}
		}
		kind, name := params[0][0], params[0][1]
		switch kind {
		case "sd", "wd", "rd":
			d := definition{name: name, params: map[string]string{}, pos: pos}
			for k, v := range defaults[kind] {
				d.params[k] = v
			}
			for _, kv := range params[1:] {
				d.params[kv[0]] = kv[1]
			}
			if name == "default" {
				defaults[kind] = d.params
				continue
			}
			switch kind {
			case "sd":
				sds[name], sdOrder = d, append(sdOrder, name)
			case "wd":
				wds[name], wdOrder = d, append(wdOrder, name)
			default:
				rds = append(rds, d)
			}
		case "hd":
			return nil, errAt(pos, "hd= names vdbench hosts; starbench runs every workload on its own workers (vsphere.deploy_workers, fio.local_workers): drop the hd= lines")
		case "fsd", "fwd", "fsdopt", "format":
			return nil, errAt(pos, "%s= is a vdbench file-system workload; starbench translates raw-device workloads only (sd=, wd=, rd=): write it as a fio job with directory= instead", kind)
		case "compratio", "dedupratio":
			ratio, err := strconv.ParseFloat(name, 64)
			if err != nil || ratio < 1 {
				return nil, errAt(pos, "%s=%s: want a ratio of 1 or more, such as 2", kind, name)
			}
			general[kind] = name
		case "dedupunit":
			if _, err := fio.ParseSize(name); err != nil {
				return nil, errAt(pos, "dedupunit=%s: want a size such as 4k", name)
			}
			general[kind] = name
		default:
			if slices.Contains(reportingParams, kind) {
				note(fmt.Sprintf("%s=%s is vdbench's own diagnostics or reporting: nothing fio runs differently", kind, name))
				continue
			}
			return nil, errAt(pos, "vdbench parameter %s= has no fio equivalent starbench knows; remove it or write the workload as a fio job file", kind)
		}
	}
	if len(rds) == 0 {
		return nil, fmt.Errorf("%s: no run definition (rd=): a vdbench parameter file needs at least one rd= line", file)
	}
	for _, rd := range rds {
		run, err := translateRun(file, rd, wds, wdOrder, sds, sdOrder, general, note)
		if err != nil {
			return nil, err
		}
		p.Runs = append(p.Runs, run)
	}
	return p, nil
}

// translateRun makes the fio workload of one rd=: a [section] per wd= it
// runs, parsed back by starbench's fio parser so that what it makes is
// checked like any job file.
func translateRun(file string, rd definition, wds map[string]definition, wdOrder []string, sds map[string]definition, sdOrder []string,
	general map[string]string, note func(string)) (Run, error) {
	for k := range rd.params {
		switch {
		case strings.HasPrefix(k, "for"):
			return Run{}, errAt(rd.pos, "%s= makes vdbench run rd=%s once per value; declare one starbench workload per value instead (a campaign factor, or a list of fio.job)", k, rd.name)
		case slices.Contains([]string{"wd", "iorate", "elapsed", "warmup", "interval", "threads", "openflags"}, k):
		case k == "pause":
			note(fmt.Sprintf("rd=%s pause=%s: vdbench sleeps after the run; starbench runs workloads one after another without it", rd.name, rd.params[k]))
		default:
			return Run{}, errAt(rd.pos, "rd= parameter %s= has no fio equivalent starbench translates; use a time-based run (elapsed=, warmup=, iorate=, threads=)", k)
		}
	}
	if v := rd.params["iorate"]; v == "curve" {
		return Run{}, errAt(rd.pos, "iorate=curve runs vdbench's own search for the maximum and then a curve of fractions of it; run the fractions as separate workloads with rate_iops")
	}
	names, err := expand(rd.params["wd"], wdOrder, "wd", rd.pos)
	if err != nil {
		return Run{}, err
	}
	elapsed, err := seconds(rd.params, "elapsed", 30, rd.pos)
	if err != nil {
		return Run{}, err
	}
	warmup, err := seconds(rd.params, "warmup", 0, rd.pos)
	if err != nil {
		return Run{}, err
	}
	if warmup >= elapsed {
		return Run{}, errAt(rd.pos, "warmup=%d is not shorter than elapsed=%d: nothing would be measured", warmup, elapsed)
	}
	if v, ok := rd.params["interval"]; ok {
		note(fmt.Sprintf("rd=%s interval=%s: vdbench's reporting interval; starbench samples every run on its own interval (fio.samples)", rd.name, v))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[global]\nioengine=libaio\ntime_based=1\nruntime=%d\n", elapsed-warmup)
	if warmup > 0 {
		fmt.Fprintf(&b, "ramp_time=%d\n", warmup)
		note(fmt.Sprintf("rd=%s: vdbench counts warmup=%d inside elapsed=%d; fio runs ramp_time=%d then runtime=%d, the same %d s in all", rd.name, warmup, elapsed, warmup, elapsed-warmup, elapsed))
	}
	if v, ok := general["compratio"]; ok {
		r, _ := strconv.ParseFloat(v, 64)
		fmt.Fprintf(&b, "buffer_compress_percentage=%d\n", int(math.Round(100*(1-1/r))))
	}
	if v, ok := general["dedupratio"]; ok {
		r, _ := strconv.ParseFloat(v, 64)
		fmt.Fprintf(&b, "dedupe_percentage=%d\n", int(math.Round(100*(1-1/r))))
	} else if v, ok := general["dedupunit"]; ok {
		note(fmt.Sprintf("dedupunit=%s without dedupratio= changes nothing vdbench writes", v))
	}
	for _, name := range names {
		wd, ok := wds[name]
		if !ok {
			return Run{}, errAt(rd.pos, "rd=%s runs wd=%s, which no wd= line defines", rd.name, name)
		}
		section, err := translateWorkload(wd, rd, len(names), sds, sdOrder, general, note)
		if err != nil {
			return Run{}, err
		}
		b.WriteString(section)
	}
	wl, err := fio.ParseWorkload(rd.name, file, b.String(), fio.LoadOptions{})
	if err != nil {
		return Run{}, fmt.Errorf("%s: rd=%s translates into a fio job fio would refuse: %w\n%s", rd.pos, rd.name, err, b.String())
	}
	wl.Disks = len(sdOrder) // threads and iorate are shared among the SDs
	return Run{Name: rd.name, Workload: wl}, nil
}

// translateWorkload is the fio [section] of one wd= as rd= runs it.
func translateWorkload(wd, rd definition, workloads int, sds map[string]definition, sdOrder []string, general map[string]string, note func(string)) (string, error) {
	for _, k := range []string{"rhpct", "whpct"} {
		if v, ok := wd.params[k]; ok && v != "0" {
			return "", errAt(wd.pos, "%s=%s asks vdbench for cache hits in a small hit area; fio has no equivalent, and vSAN has no read cache to hit on all-flash: remove it", k, v)
		}
	}
	if _, ok := wd.params["skew"]; ok {
		return "", errAt(wd.pos, "skew= shares one I/O rate between workloads; fio runs each job at its own rate: give each wd= its own rate with rate_iops in a fio job file")
	}
	for k := range wd.params {
		switch k {
		case "sd", "xfersize", "rdpct", "seekpct", "rhpct", "whpct", "host", "hd":
		default:
			return "", errAt(wd.pos, "wd= parameter %s= has no fio equivalent starbench translates", k)
		}
	}
	sdNames, err := expand(wd.params["sd"], sdOrder, "sd", wd.pos)
	if err != nil {
		return "", err
	}
	if !sameSet(sdNames, sdOrder) {
		return "", errAt(wd.pos, "wd=%s drives %s of the SDs %s: starbench runs every workload on all of a worker's data disks (the SDs, in order); give each wd= every SD, or write a fio job file with one filename= per disk", wd.name, strings.Join(sdNames, ","), strings.Join(sdOrder, ","))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n[%s]\n", wd.name)
	rw, err := readWrite(wd)
	if err != nil {
		return "", err
	}
	b.WriteString(rw)
	bs, err := transferSizes(wd)
	if err != nil {
		return "", err
	}
	b.WriteString(bs)
	if unit, ok := general["dedupunit"]; ok && general["dedupratio"] != "" && bs != "bs="+strings.ToLower(unit)+"\n" {
		note(fmt.Sprintf("wd=%s: vdbench dedups in units of dedupunit=%s; fio repeats whole write buffers (%s), so the same share of data is duplicate in larger pieces", wd.name, unit, strings.TrimSpace(bs)))
	}
	rdpct, err := readPercent(wd)
	if err != nil {
		return "", err
	}
	disk, err := storage(sdNames, sds, rd, ioShare{rdpct, workloads}, note)
	if err != nil {
		return "", err
	}
	b.WriteString(disk)
	note(fmt.Sprintf("wd=%s runs on %d SDs (%s): each is one of a worker's data disks, in order; the fio job runs on every data disk of every worker, which must have %d", wd.name, len(sdNames), strings.Join(sdNames, ","), len(sdNames)))
	return b.String(), nil
}

// readPercent is a wd's rdpct: the share of its I/Os that read, in percent
// (vdbench's default 100).
func readPercent(wd definition) (int, error) {
	v, ok := wd.params["rdpct"]
	if !ok {
		return 100, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 100 {
		return 0, errAt(wd.pos, "rdpct=%s: want a percentage from 0 to 100", v)
	}
	return n, nil
}

// readWrite maps rdpct (reads, %) and seekpct (random I/Os, %) onto fio's
// rw, random offsets drawn afresh as vdbench draws them (norandommap).
func readWrite(wd definition) (string, error) {
	rdpct, err := readPercent(wd)
	if err != nil {
		return "", err
	}
	random := 100
	switch v := wd.params["seekpct"]; v {
	case "", "random", "rand":
	case "seq", "sequential":
		random = 0
	case "eof":
		return "", errAt(wd.pos, "seekpct=eof stops at the end of the disk; use a size-based fio job (size=100%%, no runtime) instead")
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 100 {
			return "", errAt(wd.pos, "seekpct=%s: want a percentage from 0 to 100, random or sequential", v)
		}
		random = n
	}
	kind := "rand"
	if random == 0 {
		kind = ""
	}
	var b strings.Builder
	switch rdpct {
	case 100:
		fmt.Fprintf(&b, "rw=%sread\n", kind)
	case 0:
		fmt.Fprintf(&b, "rw=%swrite\n", kind)
	default:
		if kind == "" {
			b.WriteString("rw=rw\n")
		} else {
			b.WriteString("rw=randrw\n")
		}
		fmt.Fprintf(&b, "rwmixread=%d\n", rdpct)
	}
	if random > 0 && random < 100 {
		fmt.Fprintf(&b, "percentage_random=%d\n", random)
	}
	if random > 0 {
		// vdbench draws every random offset afresh; fio would give each
		// block one I/O a pass (its random map) without this.
		b.WriteString("norandommap=1\n")
	}
	return b.String(), nil
}

// transferSizes maps xfersize: one size, or (size,share,size,share...).
func transferSizes(wd definition) (string, error) {
	v, ok := wd.params["xfersize"]
	if !ok {
		return "bs=4k\n", nil // vdbench's default
	}
	if !strings.HasPrefix(v, "(") {
		return "bs=" + strings.ToLower(v) + "\n", nil
	}
	parts := strings.Split(strings.Trim(v, "()"), ",")
	if len(parts)%2 != 0 || len(parts) < 2 {
		return "", errAt(wd.pos, "xfersize=%s: want one size, or (size,percent,size,percent,...)", v)
	}
	var split []string
	for i := 0; i < len(parts); i += 2 {
		if _, err := strconv.ParseFloat(parts[i+1], 64); err != nil {
			return "", errAt(wd.pos, "xfersize=%s: %q is not a percentage", v, parts[i+1])
		}
		split = append(split, strings.ToLower(parts[i])+"/"+parts[i+1])
	}
	return "bssplit=" + strings.Join(split, ":") + "\n", nil
}

// ioShare is what a wd takes of its rd's I/O rate: its read percentage and
// how many workloads the rd runs (vdbench shares the rate equally among
// workloads without a skew, and skew= is refused).
type ioShare struct {
	rdpct, workloads int
}

// storage maps what the SDs say about each disk: threads (outstanding
// I/Os per SD, or the rd's threads shared among them), range, openflags,
// and the wd's share of the rd's I/O rate over the SDs.
func storage(names []string, sds map[string]definition, rd definition, share ioShare, note func(string)) (string, error) {
	first, ok := sds[names[0]]
	if !ok {
		return "", errAt(rd.pos, "sd=%s is used but no sd= line defines it", names[0])
	}
	for _, n := range names {
		sd, ok := sds[n]
		if !ok {
			return "", errAt(rd.pos, "sd=%s is used but no sd= line defines it", n)
		}
		if _, ok := sd.params["lun"]; !ok {
			return "", errAt(sd.pos, "sd=%s has no lun=: vdbench needs the device it drives", n)
		}
		for k, v := range sd.params {
			switch k {
			case "lun", "hitarea":
			case "threads", "range", "openflags", "size":
				if first.params[k] != v {
					return "", errAt(sd.pos, "sd=%s has %s=%s where sd=%s has %s=%s; one fio job drives every data disk alike: give the SDs the same %s", n, k, v, first.name, k, first.params[k], k)
				}
			default:
				return "", errAt(sd.pos, "sd= parameter %s= has no fio equivalent starbench translates", k)
			}
		}
	}
	var b strings.Builder
	depth := 8 // vdbench's default threads per SD
	if v, ok := first.params["threads"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return "", errAt(first.pos, "threads=%s: want a whole number of at least 1", v)
		}
		depth = n
	}
	if v, ok := rd.params["threads"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return "", errAt(rd.pos, "threads=%s: want a whole number of at least 1", v)
		}
		depth = max(1, n/len(names))
		if n%len(names) != 0 {
			note(fmt.Sprintf("rd=%s threads=%d over %d SDs: %d outstanding I/Os per data disk (fio's iodepth), %d fewer in all", rd.name, n, len(names), depth, n-depth*len(names)))
		}
	}
	fmt.Fprintf(&b, "iodepth=%d\n", depth)
	flags, at := first.params["openflags"], first.pos
	if flags == "" {
		flags, at = rd.params["openflags"], rd.pos
	}
	direct, sync, err := openFlags(flags)
	if err != nil {
		return "", errAt(at, "openflags=%s: %v", flags, err)
	}
	if direct {
		b.WriteString("direct=1\n")
	} else {
		b.WriteString("direct=0\n")
		note("no openflags=o_direct: vdbench and fio then go through the guest's page cache (direct=0)")
	}
	if sync != "" {
		fmt.Fprintf(&b, "sync=%s\n", sync)
	}
	if v, ok := first.params["range"]; ok {
		lo, hi, err := rangePercent(v)
		if err != nil {
			return "", errAt(first.pos, "range=%s: %v", v, err)
		}
		if lo > 0 {
			fmt.Fprintf(&b, "offset=%g%%\n", lo)
		}
		fmt.Fprintf(&b, "size=%g%%\n", hi-lo)
	} else if v, ok := first.params["size"]; ok {
		fmt.Fprintf(&b, "size=%s\n", strings.ToLower(v))
	}
	if v, ok := first.params["hitarea"]; ok && v != "0" {
		note(fmt.Sprintf("hitarea=%s has no effect without rhpct or whpct", v))
	}
	switch v := rd.params["iorate"]; v {
	case "", "max":
	default:
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || n <= 0 {
			return "", errAt(rd.pos, "iorate=%s: want max or I/Os per second", v)
		}
		// vdbench's rate is reads and writes together, shared equally by
		// the rd's workloads; fio's rate_iops caps each direction on its
		// own, so a mix gets one rate per direction.
		per := n / float64(len(names)) / float64(share.workloads)
		rate := strconv.Itoa(int(math.Round(per)))
		if share.rdpct > 0 && share.rdpct < 100 {
			reads := max(1, int(math.Round(per*float64(share.rdpct)/100)))
			writes := max(1, int(math.Round(per*float64(100-share.rdpct)/100)))
			rate = fmt.Sprintf("%d,%d", reads, writes)
		}
		fmt.Fprintf(&b, "rate_iops=%s\n", rate)
		of := ""
		if share.workloads > 1 {
			of = fmt.Sprintf(", shared by its %d workloads", share.workloads)
		}
		note(fmt.Sprintf("rd=%s iorate=%s is each worker's total over its %d SDs%s, reads and writes together: %.0f I/Os a second per data disk, rate_iops=%s (fio caps each direction on its own)", rd.name, v, len(names), of, per, rate))
	}
	return b.String(), nil
}

// sameSet says whether a and b hold the same names.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// openFlags translates vdbench's openflags, one flag or a list in
// parentheses, into fio's: o_direct (or directio) is direct=1, o_sync is
// sync=1 and o_dsync sync=dsync (the same open(2) flags).
func openFlags(v string) (direct bool, sync string, err error) {
	if v == "" {
		return false, "", nil
	}
	for _, f := range strings.Split(strings.Trim(v, "()"), ",") {
		switch f = strings.TrimSpace(f); f {
		case "o_direct", "directio":
			direct = true
		case "o_sync":
			sync = "1"
		case "o_dsync":
			sync = "dsync"
		default:
			return false, "", fmt.Errorf("%s has no fio equivalent starbench translates (o_direct, o_sync and o_dsync do)", f)
		}
	}
	return direct, sync, nil
}

// rangePercent reads range=(lo,hi) in percent of the device.
func rangePercent(v string) (lo, hi float64, err error) {
	parts := strings.Split(strings.Trim(v, "()"), ",")
	if len(parts) != 2 {
		return 0, 0, fmt.Errorf("want (start,end) in percent of the disk")
	}
	if lo, err = strconv.ParseFloat(parts[0], 64); err != nil {
		return 0, 0, fmt.Errorf("%q is not a percentage (ranges in bytes are not translated)", parts[0])
	}
	if hi, err = strconv.ParseFloat(parts[1], 64); err != nil {
		return 0, 0, fmt.Errorf("%q is not a percentage (ranges in bytes are not translated)", parts[1])
	}
	if lo < 0 || hi > 100 || hi <= lo {
		return 0, 0, fmt.Errorf("want 0 <= start < end <= 100")
	}
	return lo, hi, nil
}

// seconds reads a duration parameter: seconds, or with s, m or h.
func seconds(params map[string]string, key string, def int, pos fio.Pos) (int, error) {
	v, ok := params[key]
	if !ok {
		return def, nil
	}
	mult := 1
	switch {
	case strings.HasSuffix(v, "s"):
		v = strings.TrimSuffix(v, "s")
	case strings.HasSuffix(v, "m"):
		v, mult = strings.TrimSuffix(v, "m"), 60
	case strings.HasSuffix(v, "h"):
		v, mult = strings.TrimSuffix(v, "h"), 3600
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, errAt(pos, "%s=%s: want seconds, or a number with s, m or h", key, params[key])
	}
	return n * mult, nil
}

// expand reads a definition list: one name, (a,b,...), or * for all.
func expand(v string, all []string, kind string, pos fio.Pos) ([]string, error) {
	switch {
	case v == "" || v == "*":
		if len(all) == 0 {
			return nil, errAt(pos, "no %s= line defines what this line uses", kind)
		}
		return all, nil
	case strings.HasPrefix(v, "("):
		names := strings.Split(strings.Trim(v, "()"), ",")
		for i := range names {
			names[i] = strings.TrimSpace(names[i])
		}
		return names, nil
	}
	return []string{v}, nil
}

// splitParams splits "sd=sd1,lun=/dev/sda,range=(0,100)" into key-value
// pairs, keeping parenthesised lists whole.
func splitParams(line string) ([][2]string, error) {
	var out [][2]string
	depth, start := 0, 0
	flush := func(end int) error {
		kv := strings.TrimSpace(line[start:end])
		if kv == "" {
			return nil
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("%q is not a parameter: want name=value", kv)
		}
		out = append(out, [2]string{strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)})
		return nil
	}
	for i, r := range line {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				if err := flush(i); err != nil {
					return nil, err
				}
				start = i + 1
			}
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("unbalanced parentheses in %q", line)
	}
	if err := flush(len(line)); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("an empty line")
	}
	return out, nil
}

func errAt(p fio.Pos, format string, args ...any) error {
	return &fio.PosError{Pos: p, Err: fmt.Errorf(format, args...)}
}
