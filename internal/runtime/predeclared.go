package runtime

import (
	"go.starlark.net/lib/json"
	"go.starlark.net/lib/math"
	"go.starlark.net/lib/time"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// Library is a predeclared name that comes from go.starlark.net rather
// than from a starbench module table; `starbench doc` lists them.
type Library struct {
	Name, Doc string
	Value     starlark.Value
}

// Libraries returns go.starlark.net's json, math, time and struct.
func Libraries() []Library {
	return []Library{
		{"json", "encode and decode JSON (go.starlark.net/lib/json)", json.Module},
		{"math", "floating-point math (go.starlark.net/lib/math)", math.Module},
		{"time", "times and durations (go.starlark.net/lib/time)", time.Module},
		{"struct", "struct(**fields) builds an immutable record (go.starlark.net/starlarkstruct)",
			starlark.NewBuiltin("struct", starlarkstruct.Make)},
	}
}

// AllModules returns mods followed by the runtime's own `args` module:
// every module table a script sees.
func AllModules(mods []*Module) []*Module {
	return append(append([]*Module(nil), mods...), ArgsModule())
}

// Predeclared returns the names every script and the REPL start with:
// each module of AllModules(mods), the Libraries and help.
func Predeclared(mods []*Module) starlark.StringDict {
	d := starlark.StringDict{"help": helpBuiltin(mods)}
	for _, lib := range Libraries() {
		d[lib.Name] = lib.Value
	}
	for _, m := range AllModules(mods) {
		d[m.Name] = m.Value()
	}
	return d
}
