package model

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"math"
	"reflect"
	"slices"
	"sync"

	"starbench/internal/deepcopy"
	"starbench/internal/testbed"
)

// maxSolved bounds the outputs a solveCache keeps: enough for every cell
// and workload of a large what-if sweep, a few megabytes at most.
const maxSolved = 4096

// solveCache remembers the outputs of a profile's recent solves by their
// whole input, so identical inputs (the repeats of a cell and workload)
// solve once. The key is a digest of every field the input holds, however
// the Input type grows. Outputs are kept before noise and handed out as
// copies, so each run draws its own noise. The least recently used output
// goes first when the cache is full.
type solveCache struct {
	solver func(context.Context, *testbed.Profile, Input) (*Output, error) // Solve

	mu      sync.Mutex
	max     int
	entries map[[sha256.Size]byte]*list.Element
	order   list.List // of *solved, most recently used first
}

type solved struct {
	key [sha256.Size]byte
	out *Output
}

func newSolveCache(max int) *solveCache {
	return &solveCache{solver: Solve, max: max, entries: map[[sha256.Size]byte]*list.Element{}}
}

// solve returns Solve's output for in on p, from the cache when in was
// solved before.
func (c *solveCache) solve(ctx context.Context, p *testbed.Profile, in Input) (*Output, error) {
	key, ok := inputKey(in)
	if !ok {
		return c.solver(ctx, p, in)
	}
	c.mu.Lock()
	if e, hit := c.entries[key]; hit {
		c.order.MoveToFront(e)
		out := deepcopy.Of(e.Value.(*solved).out)
		c.mu.Unlock()
		return out, nil
	}
	c.mu.Unlock()
	out, err := c.solver(ctx, p, in)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, hit := c.entries[key]; !hit {
		c.entries[key] = c.order.PushFront(&solved{key: key, out: deepcopy.Of(out)})
		if c.order.Len() > c.max {
			oldest := c.order.Back()
			c.order.Remove(oldest)
			delete(c.entries, oldest.Value.(*solved).key)
		}
	}
	return out, nil
}

// inputKey is a digest of everything in holds; false when it holds what
// has no value to compare (a function or a channel).
func inputKey(in Input) ([sha256.Size]byte, bool) {
	b, ok := encode(nil, reflect.ValueOf(in))
	if !ok {
		return [sha256.Size]byte{}, false
	}
	return sha256.Sum256(b), true
}

// encode appends a canonical encoding of v to b: every field, exported or
// not, pointers followed, map entries in the order of their encoded keys.
// Two values encode the same exactly when they hold the same data.
func encode(b []byte, v reflect.Value) ([]byte, bool) {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return append(b, 1), true
		}
		return append(b, 0), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(b, v.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return binary.AppendUvarint(b, v.Uint()), true
	case reflect.Float32, reflect.Float64:
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float())), true
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(real(c)))
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(imag(c))), true
	case reflect.String:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		return append(b, v.String()...), true
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return append(b, 0), true
		}
		b = append(b, 1)
		if v.Kind() == reflect.Interface {
			b, _ = encode(b, reflect.ValueOf(v.Elem().Type().String()))
		}
		return encode(b, v.Elem())
	case reflect.Struct:
		ok := true
		for i := 0; i < v.NumField() && ok; i++ {
			b, ok = encode(b, v.Field(i))
		}
		return b, ok
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return append(b, 0), true
		}
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(v.Len()))
		ok := true
		for i := 0; i < v.Len() && ok; i++ {
			b, ok = encode(b, v.Index(i))
		}
		return b, ok
	case reflect.Map:
		if v.IsNil() {
			return append(b, 0), true
		}
		type entry struct{ k, v []byte }
		var entries []entry
		iter := v.MapRange()
		for iter.Next() {
			k, ok1 := encode(nil, iter.Key())
			e, ok2 := encode(nil, iter.Value())
			if !ok1 || !ok2 {
				return b, false
			}
			entries = append(entries, entry{k, e})
		}
		slices.SortFunc(entries, func(x, y entry) int { return bytes.Compare(x.k, y.k) })
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(len(entries)))
		for _, e := range entries {
			b = append(append(b, e.k...), e.v...)
		}
		return b, true
	}
	return b, false // functions, channels, unsafe pointers
}
