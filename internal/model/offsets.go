package model

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"starbench/internal/fio"
)

// offsetModifier reads rw's ":<nr>" (fio's HOWTO, rw and rw_sequencer).
// On a sequential job it is a hole of nr bytes after each I/O: a pass
// touches a share of its region, bs/(bs+nr), and a job moves its size,
// coming back over the same blocks, or stops early (extent.holedPass). On a
// random job it is how many I/Os go to one random offset: the next ones
// follow it in order (rw_sequencer=sequential, the default) or repeat it
// (identical); vSAN's cost per I/O does not depend on the order, and the
// blocks they cover are taken as random I/Os' (noted).
func (sh *jobShape) offsetModifier(job *fio.Job) error {
	_, nr, ok := strings.Cut(job.RW, ":")
	if !ok {
		return nil
	}
	if sh.randomShare == 0 {
		if strings.HasPrefix(nr, "-") {
			return fmt.Errorf("rw=%s: sequential I/O backwards (a negative offset modifier) is not modelled; give a hole of 0 or more bytes, like write:4k", job.RW)
		}
		hole, err := fio.ParseSize(nr)
		if err != nil || hole < 0 {
			return fmt.Errorf("rw=%s: want a hole in bytes after each sequential I/O, like write:4k", job.RW)
		}
		if hole > 0 {
			sh.extent.hole = float64(hole)
			sh.notes = append(sh.notes, fmt.Sprintf("rw=%s: a %s hole after each I/O, so the job touches %.0f %% of its region, coming back over the same blocks where a pass ends at the region's end", job.RW, fio.FormatSize(hole), 100*sh.extent.touched(sh.meanIO())))
		}
		return nil
	}
	n, err := strconv.Atoi(nr)
	if err != nil || n < 1 {
		return fmt.Errorf("rw=%s: want how many I/Os go to each random offset, like randread:8", job.RW)
	}
	if n == 1 {
		return nil
	}
	follow := "the next %d follow it in order"
	if rawValue(job, "rw_sequencer") == "identical" {
		follow = "it is used %d times more"
	}
	sh.notes = append(sh.notes, fmt.Sprintf("rw=%s: a new random offset every %d I/Os and "+follow+"; vSAN's cost per I/O does not depend on the order, and the blocks covered are taken as random I/Os' (not modelled apart)", job.RW, n, n-1))
	return nil
}

// zones reads fio's zone options as fio 3.33 runs them (init.c):
// zonemode=strided moves zonesize bytes in each zone of zonerange bytes
// (zonesize when not given) and then skips zoneskip, starting over at the
// region's end until the job has moved its size: a sequential job touches
// the start of each zone (extent.zone), a random one draws within each
// zone in turn (extent.stridedCoverage); a zonesize without
// zonemode=strided, and strided without a zonesize, are refused as fio
// refuses them ("--zonemode=none and --zonesize are not compatible": the
// mode defaults to none); zonemode=zbd emulates a zoned device
// (sequential writes in each zone, zone resets), which a vSAN disk is
// not, and is refused.
func (sh *jobShape) zones(job *fio.Job) error {
	mode, size := rawValue(job, "zonemode"), rawValue(job, "zonesize")
	switch {
	case mode == "zbd":
		return fmt.Errorf("zonemode=zbd: fio runs the job as on a zoned device, writing each zone sequentially and resetting zones; a vSAN virtual disk is not zoned and the model does not emulate one: leave zonemode out")
	case mode != "" && mode != "none" && mode != "strided":
		return fmt.Errorf("zonemode=%s: want none, strided or zbd", mode)
	case mode != "strided" && size != "":
		return fmt.Errorf("zonesize=%s without zonemode=strided: fio 3.33 refuses it ('--zonemode=none and --zonesize are not compatible'; the mode defaults to none); add zonemode=strided or leave zonesize out", size)
	case mode == "strided" && size == "":
		return fmt.Errorf("zonemode=strided without zonesize: fio 3.33 refuses it ('--zonesize must be specified when using --zonemode=strided'); give zonesize")
	case mode == "strided":
		zone := "zonesize=" + size
		var z [3]float64 // zonesize, zonerange, zoneskip
		for k, key := range []string{"zonesize", "zonerange", "zoneskip"} {
			v := rawValue(job, key)
			if v == "" {
				continue
			}
			n, err := fio.ParseSize(v)
			if err != nil || n < 0 || k == 0 && n == 0 {
				return fmt.Errorf("%s=%s: want a size in bytes, like 1m", key, v)
			}
			z[k] = float64(n)
			if k > 0 {
				zone += " " + key + "=" + v
			}
		}
		if z[1] == 0 {
			z[1] = z[0] // fio's zonerange defaults to zonesize
		}
		sh.extent.zone.size, sh.extent.zone.span, sh.extent.zone.skip = z[0], z[1], z[2]
		if sh.randomShare > 0 {
			sh.extent.zone.random = true
			sh.notes = append(sh.notes, fmt.Sprintf("zonemode=strided (%s) on a random job: fio visits the zones in order, over again at the region's end, drawing zonesize bytes within each zone's zonerange (its random map reset at each visit), and stops at a zone running past the region's end; a zone visited v times holds 1-(1-%.2g)^v of its blocks; what a job finds there is the share written over the region it reaches", zone, math.Min(1, z[0]/z[1])))
			return nil
		}
		sh.notes = append(sh.notes, fmt.Sprintf("zonemode=strided (%s): fio moves zonesize bytes from the start of each zone of zonerange bytes, then skips zoneskip, starting over at the region's end until the job has moved its size: it touches %.0f %% of its region; what a job finds there is the share written over the region it reaches, whatever its zones", zone, 100*math.Min(z[0], z[1])/(z[1]+z[2])))
	}
	return nil
}

// blockAlign reads blockalign (ba), one boundary or one per direction:
// fio draws a random job's offsets as multiples of it, and turns its
// random map off where it is not the direction's smallest block size
// (init.c). Writes smaller than the boundary reach only bs/ba of the
// region's blocks (alignedReach). fio ignores it on a sequential job.
func (sh *jobShape) blockAlign(given fio.Option) error {
	for _, dv := range perDirection(given.Value) {
		n, err := fio.ParseSize(dv.value)
		if err != nil || n < 512 {
			return fmt.Errorf("%s: want a boundary of at least 512 bytes per direction, like 8k or 4k,8k", optionText(given))
		}
		sh.align[dv.dir] = float64(n)
	}
	switch {
	case sh.randomShare == 0:
		sh.notes = append(sh.notes, fmt.Sprintf("%s on a sequential job: fio aligns only random offsets, and ignores it", optionText(given)))
	case sh.alignedApart():
		sh.notes = append(sh.notes, fmt.Sprintf("%s: random offsets fall on its boundaries and fio turns its random map off (offsets drawn anew); the writes can reach %.0f %% of the region's blocks", optionText(given), 100*sh.alignedReach()))
	}
	return nil
}

// alignedApart says whether blockalign differs from a direction's
// smallest block size, which turns fio's random map off.
func (sh jobShape) alignedApart() bool {
	for dir, a := range sh.align {
		if a > 0 && sh.randomShare > 0 && a != float64(slices.MinFunc(sh.sizes[dir], func(x, y sizeShare) int { return int(x.size - y.size) }).size) {
			return true
		}
	}
	return false
}

// alignedReach is the share of a region's blocks random writes can reach:
// bs/ba where blockalign is above their size (writes of 4 KiB on 8 KiB
// boundaries leave every other block alone), else all of them. Of mixed
// sizes, each starting at a boundary, the largest sets what a boundary's
// slot ends up holding.
func (sh jobShape) alignedReach() float64 {
	if a := sh.align[write]; a > 0 {
		return math.Min(1, sh.largestWrite()/a)
	}
	return 1
}

// largestWrite is the largest of the job's write sizes (0 with none).
func (sh jobShape) largestWrite() float64 {
	largest := 0.0
	for _, s := range sh.sizes[write] {
		largest = math.Max(largest, float64(s.size))
	}
	return largest
}
