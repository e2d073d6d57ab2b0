package model

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"starbench/internal/fio"
)

// skew is how a random job's offsets fall on the blocks of its region:
// fio's random_distribution. fio 3.33 draws a zipf or pareto rank, or a
// near-normal one (the mean of 12 uniform draws, widened by a uniform
// deviation), and hashes it onto a block (lib/zipf.c, lib/gauss.c); zoned
// distributions put a share of the accesses uniformly on each zone. Any
// of them turns fio's random map off (init.c), so blocks are written
// again before all are written once. Where a block lies does not matter
// to vSAN's costs; how often it comes back does: OSA's write buffer holds
// the hot blocks, and the blocks written are fewer than a uniform spread
// would write.
type skew struct {
	kind  string  // "zipf", "pareto", "normal", "zoned", "zoned_abs"; "" for uniform
	param float64 // zipf's theta, pareto's power, normal's deviation in percent
	zones []zone  // zoned and zoned_abs: the writes' zones
	spec  string  // random_distribution's value, naming the groups it makes (groupsMade)
	// centred: a centre was given, so every clone of the job puts its
	// most likely offset there; zipf and pareto otherwise start each
	// clone's hashed ranks at an offset drawn from its own seed.
	centred bool
}

// zone is a zoned distribution's piece: a share of the accesses on the
// next share (zoned) or bytes (zoned_abs) of the region.
type zone struct{ access, size float64 }

// popGroup is a group of equally likely blocks: its share of the region's
// blocks and its share of the accesses.
type popGroup struct{ blocks, mass float64 }

// parseSkew reads random_distribution's value as fio 3.33 does.
func parseSkew(value string) (skew, error) {
	s, err := readSkew(value)
	s.spec = value
	return s, err
}

func readSkew(value string) (skew, error) {
	kind, rest, _ := strings.Cut(value, ":")
	switch kind {
	case "random":
		return skew{}, nil
	case "zipf", "pareto", "normal":
		s := skew{kind: kind, param: map[string]float64{"zipf": 1.1, "pareto": 0.2, "normal": 0}[kind]}
		if rest != "" {
			v, center, _ := strings.Cut(rest, ":")
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return skew{}, fmt.Errorf("%s's value %q: want a number", kind, v)
			}
			s.param = f
			if center != "" {
				if c, err := strconv.ParseFloat(center, 64); err != nil || c < 0 || c > 1 {
					return skew{}, fmt.Errorf("center %q: want 0 to 1, where the most likely offset lies", center)
				}
				s.centred = true
			}
		}
		switch {
		case kind == "zipf" && (s.param <= 0 || s.param == 1):
			return skew{}, fmt.Errorf("zipf theta %g: want above 0 and not 1 (fio refuses 1)", s.param)
		case kind == "pareto" && (s.param <= 0 || s.param >= 1):
			return skew{}, fmt.Errorf("pareto power %g: want between 0 and 1", s.param)
		case kind == "normal" && (s.param < 0 || s.param >= 100):
			return skew{}, fmt.Errorf("normal deviation %g: want 0 up to 100 (a percentage of the region)", s.param)
		}
		return s, nil
	case "zoned", "zoned_abs":
		// fio's HOWTO gives zones per direction (R,W,T), but fio 3.33
		// fails to parse them ("failed parsing random_distribution=
		// zoned:90/10:10/90,10/10:90/90", job dropped).
		if strings.Contains(rest, ",") {
			return skew{}, fmt.Errorf("zones per direction: fio 3.33 fails to parse them and drops the job; give one set of zones for reads and writes alike")
		}
		s := skew{kind: kind}
		access, sized, blank := 0.0, 0.0, 0
		for _, z := range strings.Split(rest, ":") {
			a, b, ok := strings.Cut(z, "/")
			pct, err := strconv.ParseFloat(a, 64)
			if !ok || err != nil || pct < 0 {
				return skew{}, fmt.Errorf("zone %q: want access%%/size, e.g. 60/10", z)
			}
			var size float64
			switch {
			case kind == "zoned" && (b == "" || b == "0"):
				// fio 3.33 (options.c, zone_split_ddir): a zone without a
				// size takes an equal part of what the others leave.
				blank++
			case kind == "zoned":
				size, err = strconv.ParseFloat(b, 64)
				size = math.Min(size, 100) / 100
			default:
				var n int64
				n, err = fio.ParseSize(b)
				size = float64(n)
			}
			if err != nil || size < 0 || size == 0 && kind == "zoned_abs" {
				return skew{}, fmt.Errorf("zone %q: want a size above 0 (%s)", z, map[string]string{"zoned": "a percentage of the region, or none for an equal part of the rest", "zoned_abs": "bytes, e.g. 20g"}[kind])
			}
			s.zones = append(s.zones, zone{pct / 100, size})
			access += pct
			sized += size
		}
		if math.Abs(access-100) > 1e-9 {
			return skew{}, fmt.Errorf("zones' accesses add up to %g %%: want 100", access)
		}
		if kind == "zoned" && sized > 1+1e-9 {
			return skew{}, fmt.Errorf("zones' sizes add up to %.0f %% of the region: want at most 100", 100*sized)
		}
		for i := range s.zones {
			if s.zones[i].size == 0 { // fio divides the rest in whole percent
				s.zones[i].size = math.Floor((100-math.Round(100*sized))/float64(blank)) / 100
			}
			if s.zones[i].size <= 0 {
				return skew{}, fmt.Errorf("zone %d of %s has no size left: the others take the whole region", i+1, rest)
			}
		}
		return s, nil
	}
	return skew{}, fmt.Errorf("want random, zipf, pareto, normal, zoned or zoned_abs")
}

// uniform says offsets fall evenly on the region's blocks.
func (s skew) uniform() bool { return s.kind == "" }

// ranked says offsets follow a ranked distribution (zipf, pareto, normal):
// their most likely blocks hashed over the region from the thread's seed,
// not laid out in zones.
func (s skew) ranked() bool { return s.kind == "zipf" || s.kind == "pareto" || s.kind == "normal" }

// groups is the distribution over a region of n blocks of blockBytes
// each, as groups of equally likely blocks (shares of the blocks and of
// the accesses, each adding up to 1). Ranks near the most likely one are
// kept apart one by one, farther ones in groups growing by 2 % each. A
// region is taken as at least 4 blocks. The groups are made once for
// each distribution and region (they take about a quarter of a
// millisecond, and a run asks for them for every disk and solve); callers
// only read them.
func (s skew) groups(n, blockBytes float64) []popGroup {
	n = math.Max(4, math.Round(n))
	key := groupsKey{s.spec, n, blockBytes}
	if gs, ok := groupsMade.Load(key); ok {
		return gs.([]popGroup)
	}
	gs := s.makeGroups(n, blockBytes)
	groupsMade.Store(key, gs)
	return gs
}

// groupsMade holds the groups made, by distribution and region: few of
// them in a process (its distinct disk sizes and distributions).
var groupsMade sync.Map // groupsKey -> []popGroup

type groupsKey struct {
	spec          string
	n, blockBytes float64
}

func (s skew) makeGroups(n, blockBytes float64) []popGroup {
	switch s.kind {
	case "zipf":
		return rankGroups(n, zipfRanks(n, s.param))
	case "pareto":
		// fio's rank is (n-1) u^k, k = log(h)/log(1-h): P(rank < r) =
		// (r/(n-1))^(1/k). The hot end is rank 0 when 1/k < 1, else n-1;
		// ranks are counted from it.
		k := math.Log(s.param) / math.Log(1-s.param)
		cdf := func(r float64) float64 { return math.Pow(math.Min(1, r/math.Max(1, n-1)), 1/k) }
		if 1/k > 1 {
			cdf = func(r float64) float64 { return 1 - math.Pow(math.Max(0, 1-r/math.Max(1, n-1)), 1/k) }
		}
		return rankGroups(n, func(a, b float64) float64 { return cdf(b-1) - cdf(a-1) })
	case "normal":
		// The mean of 12 uniform draws over the region (deviation n/12),
		// plus a uniform deviation of dev % of it (capped at half): both
		// sides of the centre, ranks counted outwards in pairs.
		width := math.Min(math.Ceil(n*s.param/100), n/2)
		sigma := math.Sqrt(n*n/144 + width*width/12)
		half := n / 2
		mass := func(d float64) float64 { return math.Erf(math.Min(d, half) / (sigma * math.Sqrt2)) }
		return rankGroups(half, func(a, b float64) float64 { return mass(b-1) - mass(a-1) })
	case "zoned", "zoned_abs":
		var gs []popGroup
		for i, share := range s.zoneShares(n * blockBytes) {
			if share > 0 {
				gs = append(gs, popGroup{share, s.zones[i].access})
			}
		}
		return gs
	}
	return []popGroup{{1, 1}}
}

// zipfRanks is the share of ranks a..b-1 (from 1) fio 3.33's zipf
// generator draws over n ranks (lib/zipf.c, after Gray et al.'s quick
// zipf): rank 1 with u zeta < 1, rank 2 below 1 + 2^-theta, else 1 +
// floor(n (eta u - eta + 1)^(1/(1-theta))), u uniform and zeta fio's sum
// of i^-theta over the first min(n, 10M) ranks. That puts more on the top
// ranks than i^-theta would.
func zipfRanks(n, theta float64) func(a, b float64) float64 {
	// zeta: the first 1,024 terms one by one, the rest by the midpoint rule.
	terms := math.Min(n, 10e6)
	zeta := 0.0
	for i := 1.0; i <= math.Min(terms, 1024); i++ {
		zeta += math.Pow(i, -theta)
	}
	if terms > 1024 {
		zeta += (math.Pow(terms+0.5, 1-theta) - math.Pow(1024.5, 1-theta)) / (1 - theta)
	}
	second := math.Pow(0.5, theta)
	eta := (1 - math.Pow(2/n, 1-theta)) / (1 - (1+second)/zeta)
	u2 := (1 + second) / zeta // below it, ranks 1 and 2
	// below is P(rank <= r) for the formula's draws (u of u2 and up).
	below := func(r float64) float64 {
		if r < 1 {
			return 0
		}
		u := 1 - (1-math.Pow(r/n, 1-theta))/eta
		return math.Max(0, math.Min(u, 1)-u2)
	}
	return func(a, b float64) float64 {
		m := below(b-1) - below(a-1)
		if a <= 1 && b > 1 {
			m += 1 / zeta
		}
		if a <= 2 && b > 2 {
			m += second / zeta
		}
		return m
	}
}

// rankGroups groups n ranks (1 for the most likely) by likelihood: the
// first 1,024 one by one, the rest in groups 2 % wider each time; mass(a,
// b) is the (unnormalised) share of accesses of ranks a..b-1.
func rankGroups(n float64, mass func(a, b float64) float64) []popGroup {
	var gs []popGroup
	total := 0.0
	for a := 1.0; a <= n; {
		b := a + 1
		if a > 1024 {
			b = math.Ceil(a * 1.02)
		}
		b = math.Min(b, n+1)
		m := mass(a, b)
		gs = append(gs, popGroup{(b - a) / n, m})
		total += m
		a = b
	}
	for i := range gs {
		gs[i].mass /= total
	}
	return gs
}

// hotSpread is a job's random distribution over the region its clones
// reach: groups of equally likely blocks, and how many independently
// placed copies of it the clones make.
type hotSpread struct {
	groups []popGroup
	copies float64
}

// hotSpread is the job's random distribution over a region of regionBytes
// reached by clones of it, in blocks of its smallest block size (fio's
// ranges). zipf and pareto clones place their hot blocks apart unless a
// centre is given; normal ones share the centre of the region, zoned ones
// the zones.
func (sh jobShape) hotSpread(regionBytes, clones float64) hotSpread {
	if sh.skew.uniform() {
		return hotSpread{[]popGroup{{1, 1}}, 1}
	}
	bs := math.Inf(1)
	for _, dir := range sh.sizes {
		for _, s := range dir {
			bs = math.Min(bs, float64(s.size))
		}
	}
	if math.IsInf(bs, 1) || bs <= 0 {
		bs = 4096
	}
	copies := 1.0
	if (sh.skew.kind == "zipf" || sh.skew.kind == "pareto") && !sh.skew.centred {
		copies = math.Max(1, clones)
	}
	return hotSpread{sh.skew.groups(regionBytes/bs, bs), copies}
}

// hit is the share of accesses whose block was written within the last x
// region's worth of writes, the writes shared evenly by the copies: its
// own copy's chance and the others' (independent placements).
func (s hotSpread) hit(x float64) float64 {
	y := x / s.copies
	return 1 - (1-hitShare(s.groups, y))*math.Pow(1-coveredShare(s.groups, y), s.copies-1)
}

// covered is the share of the region's blocks written at least once by x
// region's worth of writes shared evenly by the copies.
func (s hotSpread) covered(x float64) float64 {
	return 1 - math.Pow(1-coveredShare(s.groups, x/s.copies), s.copies)
}

// hitShare is the share of accesses whose block was written within the
// last x region's worth of writes: a block of access share m among b of
// the blocks comes back within them with probability 1-exp(-x m/b).
// Uniform: 1-exp(-x).
func hitShare(gs []popGroup, x float64) float64 {
	h := 0.0
	for _, g := range gs {
		h += g.mass * -math.Expm1(-x*g.mass/g.blocks)
	}
	return h
}

// coveredShare is the share of the region's blocks written at least once
// by x region's worth of writes. Uniform: 1-exp(-x).
func coveredShare(gs []popGroup, x float64) float64 {
	c := 0.0
	for _, g := range gs {
		c += g.blocks * -math.Expm1(-x*g.mass/g.blocks)
	}
	return c
}

// zoneRange is a zone of a zoned distribution laid on a disk: its bytes
// and the share of a clone's accesses that fall there, evenly.
type zoneRange struct {
	byteRange
	access float64
}

// laidOut is where a zoned distribution's zones lie in a clone's region
// of size bytes from start: in order from the region's start, as fio 3.33
// lays them (io_u.c, __get_next_rand_offset_zoned and _zoned_abs); a
// run's zoned_abs zones fit its region (fits). Other distributions hash their ranks onto
// the blocks (lib/zipf.c, lib/gauss.c), so their accesses fall evenly over
// the region in expectation: nil.
func (s skew) laidOut(start, size float64) []zoneRange {
	if s.kind != "zoned" && s.kind != "zoned_abs" || size <= 0 {
		return nil
	}
	var out []zoneRange
	at := start
	for i, share := range s.zoneShares(size) {
		if n := share * size; n > 0 {
			out = append(out, zoneRange{byteRange{at, at + n}, s.zones[i].access})
			at += n
		}
	}
	return out
}

// zoneShares is each zone's share of a region of region bytes: zoned
// gives shares, zoned_abs bytes. Zones adding up to more than the region
// are scaled to fit it (fio fails such a job, and a cell refuses it:
// fits).
func (s skew) zoneShares(region float64) []float64 {
	scale := 1.0 // zoned: shares of the region
	if s.kind == "zoned_abs" {
		scale = region
	}
	total := s.zonesTotal()
	shares := make([]float64, len(s.zones))
	for i, z := range s.zones {
		shares[i] = z.size / math.Max(total, scale)
	}
	return shares
}

// zonesTotal is what the zones' sizes add up to.
func (s skew) zonesTotal() float64 {
	total := 0.0
	for _, z := range s.zones {
		total += z.size
	}
	return total
}

// fits refuses zoned_abs zones that add up to more than a region of
// region bytes: fio 3.33 fails such a job ("zoned_abs sizes exceed file
// size", measured: zones of 20 MiB and 10 MiB on a 16 MiB file).
func (s skew) fits(region float64) error {
	if s.kind != "zoned_abs" || region <= 0 {
		return nil
	}
	if total := s.zonesTotal(); total > region {
		return fmt.Errorf("random_distribution=%s: its zones add up to %.0f bytes, more than the job's %.0f-byte region; fio 3.33 fails the job (\"zoned_abs sizes exceed file size\"): give zones that fit, or zoned with percentages", s.spec, total, region)
	}
	return nil
}

// cloneZones are the zones of one clone's region and the region's bytes.
type cloneZones struct {
	region float64
	zones  []zoneRange
}

// zonesOn lays a zoned job's zones in the region of each of its clones
// that reaches a disk of disk bytes; nil for other distributions.
func (sh jobShape) zonesOn(disk float64, clones int) []cloneZones {
	var out []cloneZones
	for i := range max(clones, 1) {
		region := sh.extent.region(disk, i)
		if zs := sh.skew.laidOut(sh.extent.cloneOffset(disk, i), region); len(zs) > 0 {
			out = append(out, cloneZones{region, zs})
		}
	}
	return out
}

// finds is what a job's reads find on a disk of disk bytes holding dd:
// the share of them on blocks that hold data, and that data's
// compressibility. Sequential reads, and random ones but zoned, find what
// the clones reach evenly; a zoned job's random reads find each zone of
// each clone's region by the zone's share of the accesses.
func (sh jobShape) finds(dd diskData, disk float64, clones int) (written, compressPct float64) {
	even, evenPct := dd.over(sh.extent.reach(disk, clones))
	cz := sh.zonesOn(disk, clones)
	if len(cz) == 0 || sh.randomShare == 0 {
		return even, evenPct
	}
	held := (1 - sh.randomShare) * even
	heldPct := held * evenPct
	for _, c := range cz {
		for _, z := range c.zones {
			w, pct := dd.over([]byteRange{z.byteRange})
			h := sh.randomShare * z.access / float64(len(cz)) * w
			held += h
			heldPct += h * pct
		}
	}
	if held <= 0 {
		return 0, 0
	}
	return held, heldPct / held
}

// writeZones records a zoned job's random writes of bytes on a disk of
// disk bytes: each clone writes its share zone by zone in its own region,
// the blocks of a zone drawn evenly (fio's random map is off), so a zone
// gets 1-exp(-x a/s) of its blocks written, x the clone's bytes over its
// region, a and s the zone's share of the accesses and of the region.
// False, and nothing recorded, for other distributions.
func (sh jobShape) writeZones(data *diskData, disk float64, clones int, bytes, compressPct float64) bool {
	cz := sh.zonesOn(disk, clones)
	for _, c := range cz {
		x := bytes / float64(len(cz)) / c.region
		for _, z := range c.zones {
			share := (z.end - z.start) / c.region
			data.write([]byteRange{z.byteRange}, -math.Expm1(-x*z.access/share), compressPct)
		}
	}
	return len(cz) > 0
}

// writeStrided writes what a random job's strided zones leave on a disk
// of disk bytes, its clones moving bytes (extent.stridedCoverage); false
// for a job without them.
func (sh jobShape) writeStrided(data *diskData, disk float64, clones int, bytes, compressPct float64) bool {
	if !sh.extent.zone.random {
		return false
	}
	for i := range max(clones, 1) {
		ranges, shares := sh.extent.stridedCoverage(sh.extent.cloneOffset(disk, i), sh.extent.pass(disk, i), bytes/float64(max(clones, 1)))
		for k, r := range ranges {
			data.write([]byteRange{r}, shares[k], compressPct)
		}
	}
	return true
}
