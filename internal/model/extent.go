package model

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"starbench/internal/fio"
)

// extent is what of each disk a job covers and how much it moves there,
// from fio's size, filesize, offset, offset_increment, io_size, loops and
// number_ios.
type extent struct {
	size, offset, ioSize amount
	offsetIncrement      amount // each clone starts this much after the last
	fileSize             amount // where the job's file ends on the disk
	loops                int    // passes over io_size (fio's loops); at least 1
	numberIOs            int64  // I/Os each job (clone) stops after; 0: none
	// hole is the bytes a sequential job skips after each I/O (rw=write:4k).
	hole float64
	// zone is a job's strided zones (zonemode=strided): it moves
	// zone.size bytes in each zone of zone.span bytes, then skips
	// zone.skip; a sequential job from the zone's start, a random one
	// drawing within it (zone.random); zero without them.
	zone struct {
		size, span, skip float64
		random           bool
	}
}

// stridedZones is how a random job's strided zones lie on its region of r
// bytes: the zones starting in it and, where the last runs past its end,
// how many fit before it, at which fio stops the job (fio 3.33 draws
// within the whole zone: zonerange=2m zonesize=1m zoneskip=1m over 16 MiB
// moved 5 MiB and stopped at the zone at 15 MiB).
func (e extent) stridedZones(r float64) (zones, fit float64) {
	period := e.zone.span + e.zone.skip
	zones = math.Ceil(r / period)
	fit = math.Floor((r-e.zone.span)/period) + 1
	return zones, math.Max(0, math.Min(zones, fit))
}

// stridedCoverage is, for each run of a random job's strided zones on a
// region of r bytes whose clone moves bytes there, the range it covers
// and the share of its blocks written. fio 3.33 (io_u.c,
// setup_strided_zone_mode) visits the zones in order, over again at the
// region's end, and draws each visit's zonesize bytes within the zone
// with its random map reset at each visit (and every zonerange bytes), so
// a zone visited v times holds 1-(1-f)^v of its blocks, f =
// zonesize/zonerange at most 1: measured over 16 MiB moving 16 MiB,
// zonerange=4m zonesize=1m 0.688 written (the model 0.684), with
// zoneskip=2m 0.583 (0.587), zonesize=3m 0.813 (0.8125), zonerange=1m
// zonesize=2m 0.500 (0.500).
func (e extent) stridedCoverage(start, r, bytes float64) (ranges []byteRange, shares []float64) {
	zones, fit := e.stridedZones(r)
	if fit < zones { // it stops at the zone running past the end
		zones = fit
		bytes = math.Min(bytes, fit*e.zone.size)
	}
	if zones <= 0 {
		return nil, nil
	}
	period, f := e.zone.span+e.zone.skip, math.Min(1, e.zone.size/e.zone.span)
	visits := bytes / e.zone.size
	each := math.Floor(visits / zones)
	more := visits - each*zones                                 // the first zones get one visit more, the next a part of one
	left := func(v float64) float64 { return math.Pow(1-f, v) } // a zone's blocks no visit wrote
	group := func(from, to, written float64) {
		if to <= from {
			return
		}
		end := math.Min(start+(to-1)*period+e.zone.span, start+r)
		span := byteRange{start + from*period, end}
		ranges = append(ranges, span)
		shares = append(shares, written*(to-from)*e.zone.span/(span.end-span.start))
	}
	whole := math.Floor(more)
	group(0, whole, 1-left(each+1))
	group(whole, math.Min(zones, whole+1), 1-left(each)*(1-(more-whole)*f)) // part of a visit: part of its draws
	group(whole+1, zones, 1-left(each))
	return ranges, shares
}

// touched is the share of a pass's region a job of I/Os of ioBytes
// touches, leaving its holes between them.
func (e extent) touched(ioBytes float64) float64 {
	return ioBytes / (ioBytes + e.hole)
}

// along is how far along its pass (of pass bytes) a sequential clone gets
// moving seq bytes of I/Os of ioBytes: past its holes, or through its
// zones, zonesize bytes moved in each zone and the next zone after the
// skip (fio 3.33 over 16 MiB with zonerange=4m zonesize=1m: the first
// MiB of each 4 MiB; with zonesize=2m over zonerange=1m, each MiB twice).
func (e extent) along(seq, ioBytes, pass float64) float64 {
	if e.zone.size > 0 {
		return math.Min(seq*(e.zone.span+e.zone.skip)/e.zone.size, pass)
	}
	return math.Min(seq/e.touched(ioBytes), pass)
}

// touchedOver is the share of the first r bytes of its pass a sequential
// job touches: its I/Os between their holes, or the start of each zone
// (fio 3.33 over 16 MiB, zonerange=4m zonesize=1m zoneskip=2m: zones at 0,
// 6 and 12 MiB, 3/16 of the file).
func (e extent) touchedOver(r, ioBytes float64) float64 {
	if e.zone.size == 0 {
		return e.touched(ioBytes)
	}
	if r <= 0 {
		return 0
	}
	period, run := e.zone.span+e.zone.skip, math.Min(e.zone.size, e.zone.span)
	return (math.Floor(r/period)*run + math.Min(run, math.Mod(r, period))) / r
}

// holedPass is the bytes a sequential job leaving holes moves in a pass
// over a region of r bytes, I/Os of ioBytes, before it stops, and whether
// it wraps to the region's start instead. fio 3.33 (io_u.c,
// get_next_seq_offset) wraps where the next offset, after the hole, is at
// or past the end, and stops where an I/O there would pass it: write:12k
// with bs=8k over 16 MiB moved 6,709,248 bytes; write:4k with bs=4k wrapped
// and moved 16 MiB.
func (e extent) holedPass(r, ioBytes float64) (bytes float64, wraps bool) {
	n := math.Floor((r-ioBytes)/(ioBytes+e.hole)) + 1
	lastEnd := (n-1)*(ioBytes+e.hole) + ioBytes
	return n * ioBytes, lastEnd+e.hole >= r
}

// amount is a size fio takes in bytes or as a share of the disk ("10%").
type amount struct {
	bytes, share float64
}

// of is the amount on a disk of disk bytes; 0 where not given.
func (a amount) of(disk float64) float64 {
	if a.share > 0 {
		return a.share * disk
	}
	return a.bytes
}

// parseAmount reads a size as fio does: bytes with fio's units, or a
// percentage of the disk.
func parseAmount(v string) (amount, error) {
	if pct, ok := strings.CutSuffix(strings.TrimSpace(v), "%"); ok {
		p, err := strconv.ParseFloat(pct, 64)
		if err != nil || p <= 0 || p > 100 {
			return amount{}, fmt.Errorf("want a percentage above 0 and at most 100")
		}
		return amount{share: p / 100}, nil
	}
	n, err := fio.ParseSize(v)
	if err != nil || n < 0 {
		return amount{}, fmt.Errorf("want a size, like 4g, or a percentage of the disk, like 10%%")
	}
	return amount{bytes: float64(n)}, nil
}

// option reads one of the extent's options, with a note where the model
// takes it in part; false for any other.
func (e *extent) option(o fio.Option) (ok bool, note string, err error) {
	switch o.Key {
	case "size":
		e.size, err = parseAmount(o.Value)
	case "filesize":
		// On a device fio ends the job's file at filesize (fio 3.33 on a
		// 10 MiB device: filesize=2m moves 2 MiB with size=4m, 1 MiB from
		// offset=1m; filesize=20m the device's 10 MiB); a range gives each
		// clone's file a size drawn in it (1m-3m: 1.25 to 2.94 MiB).
		lo, hi, isRange := cutRange(o.Value)
		if !isRange {
			e.fileSize, err = parseAmount(o.Value)
			break
		}
		a, errLo := parseAmount(lo)
		b, errHi := parseAmount(hi)
		if errLo != nil || errHi != nil || a.share > 0 || b.share > 0 || b.bytes < a.bytes {
			err = fmt.Errorf("want a size, like 4g, or a range of sizes, like 1g-4g")
			break
		}
		e.fileSize = amount{bytes: (a.bytes + b.bytes) / 2}
		note = fmt.Sprintf("filesize=%s: fio draws each clone's file size in the range; the model takes the mean, %s", o.Value, fio.FormatSize(int64(e.fileSize.bytes)))
	case "offset":
		e.offset, err = parseAmount(o.Value)
	case "offset_increment":
		e.offsetIncrement, err = parseAmount(o.Value)
	case "io_size":
		e.ioSize, err = parseAmount(o.Value)
	case "loops":
		n, perr := strconv.Atoi(o.Value)
		if perr != nil || n < 1 {
			err = fmt.Errorf("want a whole number of passes, at least 1")
		}
		e.loops = n
	case "number_ios":
		n, perr := fio.ParseSize(o.Value)
		if perr != nil || n < 0 {
			err = fmt.Errorf("want a whole number of I/Os")
		}
		e.numberIOs = n
	default:
		return false, "", nil
	}
	if err != nil {
		return true, "", fmt.Errorf("%s=%s: %w", o.Key, o.Value, err)
	}
	return true, note, nil
}

// cloneOffset is where clone i of the job (0 for the first) starts on a
// disk of disk bytes: offset plus i x offset_increment. fio 3.33 counts a
// job's own clones (numjobs=4 offset_increment=25% on a 10 MiB device
// wrote 1 MiB at 0, 2.5, 5 and 7.5 MiB).
func (e extent) cloneOffset(disk float64, i int) float64 {
	return e.offset.of(disk) + float64(i)*e.offsetIncrement.of(disk)
}

// end is where the job's file ends on a disk of disk bytes: the disk's
// end, or filesize's where it comes first.
func (e extent) end(disk float64) float64 {
	if f := e.fileSize.of(disk); f > 0 {
		return math.Min(disk, f)
	}
	return disk
}

// sizeOn is the job's size on a disk of disk bytes: a share of it is of
// the job's file, filesize where given (fio 3.33 on a 10 MiB device:
// filesize=4m size=50% moves 2 MiB), while offset and offset_increment
// shares are of the device (filesize=4m with numjobs=2
// offset_increment=25% starts the second clone at 2.5 MiB).
func (e extent) sizeOn(disk float64) float64 {
	return e.size.of(e.end(disk))
}

// region is the bytes of a disk of disk bytes that clone i's offsets fall
// in: from its offset to the file's end, or size bytes of it.
func (e extent) region(disk float64, i int) float64 {
	if disk <= 0 { // a disk of unknown size: size bytes, if given
		return e.size.bytes
	}
	r := math.Max(0, e.end(disk)-e.cloneOffset(disk, i))
	if s := e.sizeOn(disk); s > 0 {
		r = math.Min(r, s)
	}
	return r
}

// reach is the bytes of a disk of disk bytes a job's clones reach, in
// order: their regions, joined where they overlap.
func (e extent) reach(disk float64, clones int) []byteRange {
	var out []byteRange
	for i := range max(clones, 1) {
		start := e.cloneOffset(disk, i)
		s := byteRange{start, start + e.region(disk, i)}
		if s.end <= s.start {
			continue
		}
		// Clones start in order: each one joins the last range or follows it.
		if n := len(out); n > 0 && s.start <= out[n-1].end {
			out[n-1].end = math.Max(out[n-1].end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}

// footprint is what a job's clones reach on a disk of disk bytes: union,
// the bytes any of them reaches, and depth, how many clones reach each of
// those bytes on average (the clones without offset_increment share one
// region: depth = clones).
func (e extent) footprint(disk float64, clones int) (union, depth float64) {
	for _, s := range e.reach(disk, clones) {
		union += s.end - s.start
	}
	if union <= 0 {
		return 0, 0
	}
	total := 0.0
	for i := range max(clones, 1) {
		total += e.region(disk, i)
	}
	return union, total / union
}

// pass is the bytes clone i moves on a disk of disk bytes before it starts
// over at its offset: io_size (a share of the region), or the region.
func (e extent) pass(disk float64, i int) float64 {
	r := e.region(disk, i)
	if s := e.ioSize.of(r); s > 0 {
		return math.Min(r, s)
	}
	return r
}

// moved is the bytes a job's clones move on a disk of disk bytes when it
// is not time based: each clone io_size (its region when not given; a
// share of the region, as fio 3.33 takes it: offset=8m io_size=50% on a
// 10 MiB device moves 1 MiB, size=4m io_size=50% 2 MiB) on every loop,
// or less where its holes end a pass (holedPass), ioBytes a mean I/O,
// stopped after number_ios.
func (e extent) moved(disk, ioBytes float64, clones int) float64 {
	total := 0.0
	for i := range max(clones, 1) {
		b := e.region(disk, i)
		if s := e.ioSize.of(b); s > 0 { // a share is of the region
			b = s
		}
		if e.hole > 0 && ioBytes > 0 {
			if pass, wraps := e.holedPass(e.region(disk, i), ioBytes); !wraps {
				b = math.Min(b, pass)
			}
		}
		if e.zone.random {
			if zones, fit := e.stridedZones(e.region(disk, i)); fit < zones {
				b = math.Min(b, fit*e.zone.size) // it stops where a zone runs past the end
			}
		}
		b *= float64(max(e.loops, 1))
		if e.numberIOs > 0 {
			b = math.Min(b, float64(e.numberIOs)*ioBytes)
		}
		total += b
	}
	return total
}

// check refuses an extent fio would not run as written on a disk of disk
// bytes. A clone whose offset is at or past the end does no I/O (fio 3.33
// on a 10 MiB device: numjobs=3 offset_increment=6m size=2m, the third
// clone moved nothing; past filesize's end it says "you need to specify
// valid offset="). A random clone with an offset whose size passes the
// disk's end stops at its first I/O past it (offset=8m size=4m: read moves
// 2 MiB, randread one I/O, and time based it repeats that one I/O).
// Without an offset fio takes a size beyond the device as the device
// (size=20m: 10 MiB moved).
func (e extent) check(disk float64, clones int, random bool, job *fio.Job) error {
	for i := range max(clones, 1) {
		start, size := e.cloneOffset(disk, i), e.sizeOn(disk)
		where := "offset=" + rawValue(job, "offset")
		if i > 0 {
			where = fmt.Sprintf("clone %d of numjobs=%d (offset + %d x offset_increment=%s, %.0f bytes)", i+1, clones, i, rawValue(job, "offset_increment"), start)
		}
		switch {
		case e.region(disk, i) <= 0 && e.end(disk) < disk:
			return fmt.Errorf("%s is at or past the end of its file (filesize=%s): fio would do no I/O there; give an offset below the file's size", where, rawValue(job, "filesize"))
		case e.region(disk, i) <= 0:
			return fmt.Errorf("%s is at or past the end of a %.0f-byte disk: fio would do no I/O there; give an offset below the disk's size (or a percentage)", where, disk)
		case random && start > 0 && size > 0 && start+size > disk && e.end(disk) == disk:
			// Where filesize ends the file first, fio keeps to it
			// (filesize=2m offset=1m size=2m: 16 random 64 KiB writes).
			return fmt.Errorf("%s + size %.0f bytes passes the end of a %.0f-byte disk: a random job stops at its first I/O past the end; give a size of at most the disk less the offset", where, size, disk)
		}
	}
	return nil
}
