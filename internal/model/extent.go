package model

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"starbench/internal/fio"
)

// extent is what of each disk a job covers and how much it moves there,
// from fio's size, offset, io_size, loops and number_ios.
type extent struct {
	size, offset, ioSize amount
	loops                int   // passes over io_size (fio's loops); at least 1
	numberIOs            int64 // I/Os each job (clone) stops after; 0: none
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

// option reads one of the extent's options; false for any other.
func (e *extent) option(o fio.Option) (bool, error) {
	var err error
	switch o.Key {
	case "size":
		e.size, err = parseAmount(o.Value)
	case "offset":
		e.offset, err = parseAmount(o.Value)
	case "io_size", "io_limit":
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
		return false, nil
	}
	if err != nil {
		return true, fmt.Errorf("%s=%s: %w", o.Key, o.Value, err)
	}
	return true, nil
}

// region is the bytes of a disk of disk bytes that the job's offsets fall
// in: from offset to the end, or size bytes of it.
func (e extent) region(disk float64) float64 {
	if disk <= 0 { // a disk of unknown size: size bytes, if given
		return e.size.bytes
	}
	r := math.Max(0, disk-e.offset.of(disk))
	if s := e.size.of(disk); s > 0 {
		r = math.Min(r, s)
	}
	return r
}

// moved is the bytes one job (clone) moves on a disk of disk bytes when it
// is not time based: io_size (the region when not given) on every loop,
// ioBytes a mean I/O, stopped after number_ios.
func (e extent) moved(disk, ioBytes float64) float64 {
	b := e.region(disk)
	if s := e.ioSize.of(disk); s > 0 {
		b = s
	}
	b *= float64(max(e.loops, 1))
	if e.numberIOs > 0 {
		b = math.Min(b, float64(e.numberIOs)*ioBytes)
	}
	return b
}
