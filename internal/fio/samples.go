package fio

import (
	"bufio"
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Per-interval samples of a real run come from fio's own per-job logs:
// every section logs IOPS, bandwidth and completion latency averaged over
// the interval (log_avg_msec) and a completion-latency histogram per
// interval (log_hist_msec), stamped with the wall clock (log_unix_epoch),
// which the servers send back to the client when the job ends (fio 3.33's
// client prints json+ only at the end, so nothing arrives earlier). The
// logs of every worker and section are then merged on one time axis.

// histCoarseness halves the histogram logs' bins this many times: 116
// bins of a quarter octave each instead of fio's 1856, so per-interval
// percentiles are within about 19 % (the run's own percentiles come from
// json+, exactly).
const histCoarseness = 4

// maxSamples bounds how many intervals a run is cut into: a long run gets
// longer intervals rather than ever larger logs.
const maxSamples = 600

// sampleInterval is the interval of a run's samples: every, or 1 s,
// lengthened so that a run of expect gives at most maxSamples.
func sampleInterval(every, expect time.Duration) time.Duration {
	if every <= 0 {
		every = time.Second
	}
	if n := expect / maxSamples; n > every {
		every = (n + time.Second - 1).Truncate(time.Second)
	}
	return every
}

// logOptions are the options that make a section log per interval under
// prefix (unique per worker and section: servers on one host would
// otherwise overwrite each other's files on the client).
func logOptions(prefix string, every time.Duration) []Option {
	ms := strconv.FormatInt(every.Milliseconds(), 10)
	return []Option{{"write_iops_log", prefix}, {"write_bw_log", prefix}, {"write_lat_log", prefix},
		{"write_hist_log", prefix}, {"log_avg_msec", ms}, {"log_hist_msec", ms},
		{"log_hist_coarseness", strconv.Itoa(histCoarseness)}, {"log_unix_epoch", "1"}, {"per_job_logs", "1"}}
}

// logOptionNames are fio's log options: starbench sets some for its
// samples and leaves the others out (they change what the logs hold); a
// job's own settings of them give way (and its notes say so).
var logOptionNames = []string{"write_iops_log", "write_bw_log", "write_lat_log", "write_hist_log", "log_avg_msec",
	"log_hist_msec", "log_hist_coarseness", "log_unix_epoch", "per_job_logs", "log_offset", "log_prio",
	"log_max_value", "log_compression", "log_store_compressed"}

// point is one logged interval of one fio job and direction: it ends at
// end (Unix ms) and holds a rate (I/Os or KiB per second), a mean latency
// (ns) or a histogram's counts.
type point struct {
	end    float64
	dir    int
	value  float64
	counts []float64
}

// logKinds are the logs read, by file name part.
var logKinds = []string{"iops", "bw", "clat", "clat_hist"}

// logSection is what one section of a worker's file logged: per kind, each
// fio job's (clone's) points, by log file number.
type logSection struct {
	job  string
	logs map[string]map[string][]point // kind, file number
}

// readSamples reads the logs in dir that sections wrote under prefixes
// (prefix to workload job name) and merges them into samples every long,
// on one time axis that starts when the first job began logging. The logs
// give the samples their course over time and json+ (entries, by section)
// their totals: fio logs whole intervals only and drops a job's last one,
// and what json+ counted beyond the logs fills it; a rate fio logs is the
// mean of rates its helper thread measured over uneven spans, so logs can
// also count more than fio did, and are then scaled down to json+'s
// count. A job that logged no rate (it ended within its first interval)
// has its json+ laid where its latency log stamps its end. A one-job
// workload's samples name no job.
func readSamples(dir string, prefixes map[string]string, entries map[string][]JobStats, every time.Duration, single bool) ([]Sample, error) {
	var secs []*logSection
	var names []string
	for prefix, job := range prefixes {
		sec := &logSection{job: job, logs: map[string]map[string][]point{}}
		for _, kind := range logKinds {
			sec.logs[kind] = map[string][]point{}
			paths, _ := filepath.Glob(filepath.Join(dir, prefix+"_"+kind+".*.log*"))
			for _, p := range paths {
				num := strings.SplitN(strings.TrimPrefix(filepath.Base(p), prefix+"_"+kind+"."), ".", 2)[0]
				pts, err := readLog(p, kind)
				if err != nil {
					return nil, err
				}
				sec.logs[kind][num] = pts
			}
		}
		secs = append(secs, sec)
		names = append(names, prefix)
	}
	step := float64(every.Milliseconds())
	start := math.Inf(1)
	for _, sec := range secs {
		for _, pts := range sec.logs["iops"] {
			if len(pts) > 0 {
				start = math.Min(start, pts[0].end-step)
			}
		}
	}
	logs, json := make([]logTotals, len(secs)), make([]jsonTotals, len(secs))
	for i, sec := range secs {
		logs[i], json[i] = sec.logged(step), counted(entries[names[i]])
	}
	if math.IsInf(start, 1) {
		// Every job ran shorter than an interval, so fio logged no rate:
		// json+ alone gives one interval, from when the first job began.
		if start = shortRunStart(logs, json); math.IsInf(start, 1) {
			return nil, nil
		}
	}
	m := newMerger(start, step)
	for i, sec := range secs {
		logs, json := logs[i], json[i]
		m.add(sec, step, logs.scale(json))
		m.addRest(sec.job, logs, json, step)
		m.end = math.Max(m.end, logs.last)
	}
	return m.samples(single), nil
}

// readLog reads one log file: "time, value, direction, bs, ..." lines, or
// "time, direction, bs, counts..." for a histogram log.
func readLog(path, kind string) ([]point, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []point
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ",")
		if len(fields) < 3 {
			continue
		}
		nums := make([]float64, len(fields))
		for i, x := range fields {
			if nums[i], err = strconv.ParseFloat(strings.TrimSpace(x), 64); err != nil {
				return nil, fmt.Errorf("fio log %s: %q: %w", filepath.Base(path), sc.Text(), err)
			}
		}
		p := point{end: nums[0], dir: int(nums[2]), value: nums[1]}
		if kind == "clat_hist" {
			p = point{end: nums[0], dir: int(nums[1]), counts: nums[3:]}
		}
		if p.dir >= 0 && p.dir < len(Directions) {
			out = append(out, p)
		}
	}
	return out, sc.Err()
}

// cell accumulates one interval of one job and direction.
type cell struct {
	ios, kib       float64 // I/Os and KiB in the interval
	latIos, latSum float64 // I/Os with a logged latency, and their latency sum (ns)
	counts         []float64
	// restLat and restCounts are json+'s mean latency (ns) and histogram
	// of the job's direction where the interval holds I/Os beyond the
	// logs: its latency and p99 when no log gives them.
	restLat    float64
	restCounts []float64
}

type cellKey struct {
	job string
	dir int
	n   int
}

// merger lays points onto intervals of step ms from start (Unix ms); end
// is where the last job's I/O ended (Unix ms), so the last interval is
// only as long as the run went on.
type merger struct {
	start, step, end float64
	cells            map[cellKey]*cell
}

func newMerger(start, step float64) *merger {
	return &merger{start: start, step: step, cells: map[cellKey]*cell{}}
}

// spread calls f for every interval [from, to) overlaps, with the share
// of [from, to) that falls in it.
func (m *merger) spread(from, to float64, f func(n int, share float64)) {
	if to <= from {
		return
	}
	for n := int(math.Floor((from - m.start) / m.step)); m.start+float64(n)*m.step < to; n++ {
		lo, hi := math.Max(from, m.start+float64(n)*m.step), math.Min(to, m.start+float64(n+1)*m.step)
		if hi > lo && n >= 0 {
			f(n, (hi-lo)/(to-from))
		}
	}
}

func (m *merger) cell(job string, dir, n int) *cell {
	k := cellKey{job, dir, n}
	c := m.cells[k]
	if c == nil {
		c = &cell{}
		m.cells[k] = c
	}
	return c
}

// add lays a section's logged points out: each point covers the time since
// the point before it of its file and direction (the first, one step), its
// I/Os and KiB times sc's factor for its direction. A mean latency counts
// for the I/Os its file's IOPS log gives the same time.
func (m *merger) add(sec *logSection, step float64, sc scale) {
	for _, kind := range logKinds {
		for num, pts := range sec.logs[kind] {
			rate := rateOf(sec.logs["iops"][num], step)
			prev := map[int]float64{}
			for _, p := range pts {
				from, ok := prev[p.dir]
				if !ok {
					from = p.end - step
				}
				prev[p.dir] = p.end
				ms := p.end - from
				m.spread(from, p.end, func(n int, share float64) {
					c := m.cell(sec.job, p.dir, n)
					switch kind {
					case "iops":
						c.ios += p.value * ms / 1000 * share * sc.ios[p.dir]
					case "bw":
						c.kib += p.value * ms / 1000 * share * sc.kib[p.dir]
					case "clat":
						ios := rate(p.dir, from, p.end)
						c.latSum += p.value * ios * share
						c.latIos += ios * share
					case "clat_hist":
						if c.counts == nil {
							c.counts = make([]float64, len(p.counts))
						}
						for i, x := range p.counts {
							if i < len(c.counts) {
								c.counts[i] += x * share
							}
						}
					}
				})
			}
		}
	}
}

// rateOf returns the I/Os an IOPS log gives a direction between two times
// (Unix ms), its last rate carrying on past its last point.
func rateOf(pts []point, step float64) func(dir int, from, to float64) float64 {
	return func(dir int, from, to float64) float64 {
		var ios, last, lastRate float64
		first := true
		for _, p := range pts {
			if p.dir != dir {
				continue
			}
			lo := p.end - step
			if !first {
				lo = last
			}
			first = false
			ios += p.value * math.Max(0, math.Min(to, p.end)-math.Max(from, lo)) / 1000
			last, lastRate = p.end, p.value
		}
		if to > last && !first {
			ios += lastRate * (to - math.Max(from, last)) / 1000
		}
		return ios
	}
}

// logTotals is what a section's logs hold: from when its first interval
// began (first) to its rate logs' last point (last), per direction the
// I/Os and KiB of its IOPS and bandwidth logs and the counts of its
// histogram log; exit is its latency log's last point, which fio writes
// when the job ends (finalize_logs), 0 without one.
type logTotals struct {
	first, last, exit float64
	ios, kib          [3]float64
	counts            [3][]float64
}

// logged adds a section's logs up: each point covers the time since the
// point before it of its file and direction (the first, one step).
func (sec *logSection) logged(step float64) logTotals {
	t := logTotals{first: math.Inf(1)}
	for _, pts := range sec.logs["clat"] {
		for _, p := range pts {
			t.exit = math.Max(t.exit, p.end)
		}
	}
	for _, kind := range []string{"iops", "bw", "clat_hist"} {
		for _, pts := range sec.logs[kind] {
			prev := map[int]float64{}
			for _, p := range pts {
				from, ok := prev[p.dir]
				if !ok {
					from = p.end - step
				}
				prev[p.dir] = p.end
				t.first = math.Min(t.first, from)
				switch kind {
				case "iops":
					t.ios[p.dir] += p.value * (p.end - from) / 1000
					t.last = math.Max(t.last, p.end)
				case "bw":
					t.kib[p.dir] += p.value * (p.end - from) / 1000
					t.last = math.Max(t.last, p.end)
				case "clat_hist":
					if t.counts[p.dir] == nil {
						t.counts[p.dir] = make([]float64, len(p.counts))
					}
					for i, x := range p.counts {
						if i < len(t.counts[p.dir]) {
							t.counts[p.dir][i] += x
						}
					}
				}
			}
		}
	}
	return t
}

// jsonTotals is what json+ counted for a section: per direction its I/Os,
// KiB and latency histogram (in the logs' coarse bins), and its longest
// job's runtime (ms); ok is false when json+ has no entry for it.
type jsonTotals struct {
	ok       bool
	runtime  float64
	ios, kib [3]float64
	latSum   [3]float64 // completion latency (ns) summed over the I/Os
	counts   [3][]float64
}

// shortRunStart is where the axis of a run whose jobs all ended before
// their first interval begins (Unix ms): the earliest job's end, which its
// latency log stamps, less its runtime; 0 (the samples' own origin) when
// no latency log stamped an end, and +Inf when json+ counted no I/O.
func shortRunStart(logs []logTotals, json []jsonTotals) float64 {
	start, any := math.Inf(1), false
	for i, j := range json {
		if !j.ok || j.ios == [3]float64{} {
			continue
		}
		any = true
		if logs[i].exit > 0 {
			start = math.Min(start, logs[i].exit-j.runtime)
		}
	}
	switch {
	case !any:
		return math.Inf(1)
	case math.IsInf(start, 1):
		return 0
	}
	return start
}

func counted(entries []JobStats) jsonTotals {
	t := jsonTotals{ok: len(entries) > 0}
	for d := range Directions {
		t.counts[d] = make([]float64, fineBins>>histCoarseness)
	}
	for _, e := range entries {
		t.runtime = math.Max(t.runtime, float64(e.RuntimeMs))
		for d, ds := range e.dirs() {
			t.ios[d] += float64(ds.Clat.N)
			t.kib[d] += float64(ds.IOBytes) / 1024
			t.latSum[d] += ds.Clat.Mean * float64(ds.Clat.N)
			for ns, n := range ds.Clat.Bins {
				if i := platIndex(ns) >> histCoarseness; i < len(t.counts[d]) {
					t.counts[d][i] += float64(n)
				}
			}
		}
	}
	return t
}

// scale is the factor of a section's logged I/Os and KiB, per direction.
type scale struct{ ios, kib [3]float64 }

// scale brings logs that count more than json+ did down to its count (1
// otherwise, and without json+).
func (t logTotals) scale(json jsonTotals) scale {
	var sc scale
	for d := range Directions {
		sc.ios[d], sc.kib[d] = 1, 1
		if json.ok && t.ios[d] > json.ios[d] {
			sc.ios[d] = json.ios[d] / t.ios[d]
		}
		if json.ok && t.kib[d] > json.kib[d] {
			sc.kib[d] = json.kib[d] / t.kib[d]
		}
	}
	return sc
}

// addRest adds what json+ counted for a section beyond its logs (fio drops
// each job's last interval from its periodic logs): the rest of its I/Os,
// KiB and histogram, spread from its rate logs' last point to its end.
// The end is where its latency log ends, else when its logs began plus its
// runtime (later than the job's end when the helper thread logging rates
// ran late, as on a loaded machine, which left intervals of I/Os with no
// latency). Logs that reach the end already lack only their last
// interval's rounding, which goes into that interval.
func (m *merger) addRest(job string, logs logTotals, json jsonTotals, step float64) {
	if !json.ok {
		return
	}
	var from, end float64
	switch {
	case math.IsInf(logs.first, 1): // logged no rate: the whole job is the rest
		from = m.start
		if logs.exit > 0 {
			from = logs.exit - json.runtime
		}
		end = from + json.runtime
	default:
		from, end = logs.last, logs.first+json.runtime
		if logs.exit > 0 {
			end = logs.exit
		}
		if end <= from {
			from, end = logs.last-step, logs.last
		}
	}
	m.end = math.Max(m.end, end)
	for d := range Directions {
		restIos, restKib := json.ios[d]-logs.ios[d], json.kib[d]-logs.kib[d]
		if restIos <= 0.5 {
			continue
		}
		whole := slices.Clone(json.counts[d])
		counts := json.counts[d]
		for i := range counts {
			if logs.counts[d] != nil && i < len(logs.counts[d]) {
				counts[i] = math.Max(0, counts[i]-logs.counts[d][i])
			}
		}
		m.spread(from, end, func(n int, share float64) {
			c := m.cell(job, d, n)
			c.ios += restIos * share
			c.kib += math.Max(0, restKib) * share
			if logs.ios[d] == 0 { // nothing logged: json+'s mean latency is the rest's
				c.latSum += json.latSum[d] * share
				c.latIos += json.ios[d] * share
			}
			c.restLat, c.restCounts = json.latSum[d]/json.ios[d], whole
			if c.counts == nil {
				c.counts = make([]float64, len(counts))
			}
			for i, x := range counts {
				c.counts[i] += x * share
			}
		})
	}
}

// samples turns the intervals into samples, in time order. Each interval
// ends a step after the one before, but the last, which ends with the run
// (as the simulator's do), its rates over the time it lasted: a run ends a
// little after a whole number of steps (fio's own start and stop), and
// those few milliseconds rated over a whole step would show a fall to
// almost nothing, so a tail under half a step joins the interval before.
// Latency is the logged means weighted by their I/Os; a one-job
// workload's samples name no job.
func (m *merger) samples(single bool) []Sample {
	last := int(math.Ceil((m.end-m.start)/m.step)) - 1
	if tail := m.end - m.start - float64(last)*m.step; last > 0 && tail < m.step/2 {
		m.foldInto(last-1, last)
		last--
	}
	var out []Sample
	for k, c := range m.cells {
		if c.ios == 0 {
			continue // a job's latency log reaching into an interval it did no I/O in
		}
		from, to := m.start+float64(k.n)*m.step, m.start+float64(k.n+1)*m.step
		if k.n == last && m.end > from {
			to = m.end
		}
		sec := (to - from) / 1000
		job := k.job
		if single {
			job = ""
		}
		s := Sample{Job: job, Direction: Directions[k.dir], TS: (to - m.start) / 1000,
			IOPS: c.ios / sec, MBps: c.kib * 1024 / 1e6 / sec, LatMeanUs: math.NaN(), P99Us: math.NaN()}
		switch {
		case c.latIos > 0:
			s.LatMeanUs = c.latSum / c.latIos / 1000
		case c.restLat > 0: // only I/Os beyond the logs, as on a loaded machine
			s.LatMeanUs = c.restLat / 1000
		}
		if c.counts != nil {
			s.P99Us = histPercentile(c.counts, 99) / 1000
		}
		if math.IsNaN(s.P99Us) && c.restCounts != nil {
			s.P99Us = histPercentile(c.restCounts, 99) / 1000
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Sample) int {
		switch {
		case a.TS != b.TS:
			return cmp.Compare(a.TS, b.TS)
		case a.Job != b.Job:
			return strings.Compare(a.Job, b.Job)
		}
		return slices.Index(Directions[:], a.Direction) - slices.Index(Directions[:], b.Direction)
	})
	return out
}

// foldInto adds every job's and direction's cell of interval from to its
// cell of interval to, which then spans both.
func (m *merger) foldInto(to, from int) {
	for k, c := range m.cells {
		if k.n != from {
			continue
		}
		delete(m.cells, k)
		d := m.cell(k.job, k.dir, to)
		d.ios, d.kib, d.latIos, d.latSum = d.ios+c.ios, d.kib+c.kib, d.latIos+c.latIos, d.latSum+c.latSum
		if len(c.counts) > len(d.counts) {
			d.counts = append(d.counts, make([]float64, len(c.counts)-len(d.counts))...)
		}
		for i, x := range c.counts {
			d.counts[i] += x
		}
		if d.restCounts == nil {
			d.restLat, d.restCounts = c.restLat, c.restCounts
		}
	}
}

// histPercentile reads percentile p off a coarse histogram log's counts,
// fio's rule (the first bin whose running count reaches p %), each bin
// standing for the middle of the latencies it gathers.
func histPercentile(counts []float64, p float64) float64 {
	var total float64
	for _, c := range counts {
		total += c
	}
	if total == 0 {
		return math.NaN()
	}
	var run float64
	for i, c := range counts {
		run += c
		if run >= p/100*total {
			return coarseBinValue(i)
		}
	}
	return coarseBinValue(len(counts) - 1)
}

// coarseBinValue is the latency (ns) a bin of a coarse histogram log
// stands for: the middle of the fine bins it sums.
func coarseBinValue(i int) float64 {
	stride := 1 << histCoarseness
	lo := platLowerEdge(i * stride)
	hi := platLowerEdge((i + 1) * stride)
	return (lo + hi) / 2
}

// fineBins is how many bins fio's latency histograms have (stat.h).
const fineBins = 29 << 6

// platIndex is the fine bin fio counts a latency (ns) in: 6 bits of
// precision per power of two, as stat.h's plat_val_to_idx.
func platIndex(ns int64) int {
	if ns < 128 {
		return int(ns)
	}
	msb := 63 - bits.LeadingZeros64(uint64(ns))
	errorBits := msb - 6
	idx := (errorBits+1)<<6 + int(ns>>errorBits)&63
	return min(idx, fineBins-1)
}

// platLowerEdge is the smallest latency (ns) fio puts in fine bin idx
// (stat.h: 6 bits of precision per power of two).
func platLowerEdge(idx int) float64 {
	const bits, val = 6, 1 << 6
	if idx < val<<1 {
		return float64(idx)
	}
	errorBits := idx>>bits - 1
	base := float64(int64(1) << (errorBits + bits))
	return base + float64(idx%val)*float64(int64(1)<<errorBits)
}
