// Package deepcopy copies Go values and everything they point to, by
// reflection: the simulator's in-process transport copies requests and
// responses with it, the model's solve cache its outputs.
package deepcopy

import (
	"reflect"
	"sync"
)

// Of returns a deep copy of v.
func Of[T any](v T) T {
	return Value(reflect.ValueOf(&v).Elem()).Interface().(T)
}

// Value copies v and everything it points to. Unexported struct fields are
// copied shallowly (time.Time's location); values must hold no cycles.
func Value(v reflect.Value) reflect.Value {
	out := reflect.New(v.Type()).Elem()
	copyInto(out, v)
	return out
}

func copyInto(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		p := reflect.New(src.Type().Elem())
		copyInto(p.Elem(), src.Elem())
		dst.Set(p)
	case reflect.Interface:
		if src.IsNil() {
			return
		}
		dst.Set(Value(src.Elem()))
	case reflect.Struct:
		dst.Set(src)
		t := src.Type()
		for i := range src.NumField() {
			if t.Field(i).IsExported() && holdsReferences(t.Field(i).Type) {
				copyInto(dst.Field(i), src.Field(i))
			}
		}
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		if holdsReferences(src.Type().Elem()) {
			for i := range src.Len() {
				copyInto(s.Index(i), src.Index(i))
			}
		} else {
			reflect.Copy(s, src)
		}
		dst.Set(s)
	case reflect.Array:
		for i := range src.Len() {
			copyInto(dst.Index(i), src.Index(i))
		}
	case reflect.Map:
		if src.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		iter := src.MapRange()
		for iter.Next() {
			m.SetMapIndex(Value(iter.Key()), Value(iter.Value()))
		}
		dst.Set(m)
	default:
		dst.Set(src)
	}
}

// holdsReferences says whether a value of type t can point to shared memory.
func holdsReferences(t reflect.Type) bool {
	if r, ok := referenceTypes.Load(t); ok {
		return r.(bool)
	}
	r := findReferences(t)
	referenceTypes.Store(t, r)
	return r
}

var referenceTypes sync.Map // reflect.Type -> bool

func findReferences(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsReferences(t.Field(i).Type) {
				return true
			}
		}
	case reflect.Array:
		return holdsReferences(t.Elem())
	}
	return false
}
