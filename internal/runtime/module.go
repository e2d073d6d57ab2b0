package runtime

import (
	"fmt"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// BuiltinFunc is the standard signature of a Go function callable from Starlark.
type BuiltinFunc func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)

// Member is one documented entry of a module: a function (Fn) or a constant (Value).
type Member struct {
	Name   string // Starlark name, snake_case
	Params string // signature as shown to users, e.g. "(prefix, count=None, cpus=4)"
	Doc    string // one line
	Fn     BuiltinFunc
	Value  starlark.Value
}

// Module is a Starlark module with its documentation; it feeds the
// interpreter, `starbench doc` and docs/BUILTINS.md from one table.
type Module struct {
	Name    string
	Doc     string
	Members []Member
	// Types document the values the module's builtins return (a frame, a
	// figure, a store handle), so their methods are in the docs too.
	Types []*Type
}

// Type documents a kind of value scripts get: its methods (Params like
// "(n=5)") and attributes (Params ""), in `starbench doc`, docs/BUILTINS.md
// and help(). Members carry no Fn or Value: the value itself dispatches.
type Type struct {
	Name    string // what type(x) says, e.g. "frame" or "plot.figure"
	Doc     string // one line
	Members []Member
}

// With adds types to m's docs and returns m: for value types defined
// beside another module's code (a worker, a job).
func (m *Module) With(types ...*Type) *Module {
	m.Types = append(m.Types, types...)
	return m
}

// Struct builds the Starlark value of m. Builtins are named "module.member"
// so backtraces read `Error in vsphere.deploy_workers`.
func (m *Module) Struct() *starlarkstruct.Module {
	members := make(starlark.StringDict, len(m.Members))
	for _, mem := range m.Members {
		if mem.Fn != nil {
			members[mem.Name] = starlark.NewBuiltin(m.Name+"."+mem.Name, mem.Fn)
		} else {
			members[mem.Name] = mem.Value
		}
	}
	return &starlarkstruct.Module{Name: m.Name, Members: members}
}

// moduleValue is a module as scripts see it: starlarkstruct.Module's
// behaviour, with an error for a missing member that names the module and,
// where the name is a method or attribute of the values the module's
// builtins return (frame.pivot), says so and how to reach it.
type moduleValue struct {
	*starlarkstruct.Module
	types []*Type
}

// Value is m as a script's predeclared name.
func (m *Module) Value() starlark.Value {
	return &moduleValue{Module: m.Struct(), types: m.Types}
}

func (m *moduleValue) Attr(name string) (starlark.Value, error) {
	if v, err := m.Module.Attr(name); v != nil || err != nil {
		return v, err
	}
	for _, t := range m.types {
		for _, mem := range t.Members {
			if mem.Name != name {
				continue
			}
			what, use := "an attribute", "x."+name
			if mem.Params != "" {
				what, use = "a method", "x."+name+"(...)"
			}
			return nil, starlark.NoSuchAttrError(fmt.Sprintf("module %s has no .%s: %s is %s of %s values, used on one (%s where x is a %s); help(%q)",
				m.Name, name, name, what, t.Name, use, t.Name, t.Name+"."+name))
		}
	}
	return nil, starlark.NoSuchAttrError(fmt.Sprintf("module %s has no .%s; help(%s) lists its members", m.Name, name, m.Name))
}
