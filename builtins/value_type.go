package builtins

import (
	"cmp"
	"slices"

	"go.starlark.net/starlark"

	"starbench/internal/runtime"
)

// methodFunc is a method of values of type T: the builtin signature with
// the receiver first.
type methodFunc[T any] func(recv T, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)

// method is one documented method of a value type.
type method[T any] struct {
	name, params, doc string
	fn                methodFunc[T]
}

// valueType is one table for a value type's methods and docs: the value
// dispatches its methods through it, and its Doc feeds `starbench doc`,
// docs/BUILTINS.md and help(), so a method cannot go undocumented.
type valueType[T any] struct {
	name, doc string
	// attrs are the value's documented fields (the value serves them).
	attrs   []runtime.Member
	methods []method[T]
}

// Doc returns the type's documentation, members sorted by name.
func (vt *valueType[T]) Doc() *runtime.Type {
	members := slices.Clone(vt.attrs)
	for _, m := range vt.methods {
		members = append(members, runtime.Member{Name: m.name, Params: m.params, Doc: m.doc})
	}
	slices.SortFunc(members, func(a, b runtime.Member) int { return cmp.Compare(a.Name, b.Name) })
	return &runtime.Type{Name: vt.name, Doc: vt.doc, Members: members}
}

// names returns the attribute and method names, sorted, for AttrNames.
func (vt *valueType[T]) names() []string {
	var out []string
	for _, a := range vt.attrs {
		out = append(out, a.Name)
	}
	for _, m := range vt.methods {
		out = append(out, m.name)
	}
	slices.Sort(out)
	return out
}

// method returns recv's method name as a builtin named "type.name"
// (help() and backtraces find it by that name), or nil when there is none.
func (vt *valueType[T]) method(recv T, name string) starlark.Value {
	for _, m := range vt.methods {
		if m.name == name {
			fn := m.fn
			return starlark.NewBuiltin(vt.name+"."+name, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				return fn(recv, thread, b, args, kwargs)
			})
		}
	}
	return nil
}

// attr documents a field of a value type.
func attr(name, doc string) runtime.Member { return runtime.Member{Name: name, Doc: doc} }
