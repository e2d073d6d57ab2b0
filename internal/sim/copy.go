package sim

import (
	"bytes"
	"fmt"
	"reflect"
	"sync"

	"github.com/vmware/govmomi/vim25/types"
	"github.com/vmware/govmomi/vim25/xml"
)

// copyAs returns a deep copy of v as a value of type t. Of the same type it
// copies by reflection; of another type (a request or response type of our
// own, such as vsanext's, against the stock one) it converts through XML,
// as the wire would.
func copyAs(v reflect.Value, t reflect.Type) reflect.Value {
	if v.Type() == t {
		return deepCopy(v)
	}
	b, err := xml.Marshal(v.Interface())
	if err != nil {
		panic(fmt.Sprintf("internal error: encoding %s for %s: %v", v.Type(), t, err))
	}
	out := reflect.New(t)
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.TypeFunc = types.TypeFunc()
	if err := dec.Decode(out.Interface()); err != nil {
		panic(fmt.Sprintf("internal error: decoding %s as %s: %v", v.Type(), t, err))
	}
	return out.Elem()
}

// deepCopy copies v and everything it points to. Unexported struct fields
// are copied shallowly (time.Time's location); the vim25 types have no
// others, and no cycles.
func deepCopy(v reflect.Value) reflect.Value {
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
		dst.Set(deepCopy(src.Elem()))
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
			m.SetMapIndex(deepCopy(iter.Key()), deepCopy(iter.Value()))
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
