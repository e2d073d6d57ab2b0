package runtime

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// helpDoc is help's line in the docs.
const helpDoc = "help(x) prints the doc of a module, builtin, value, method or name (\"frame.filter\"); help() lists the modules"

// helpBuiltin returns `help`, which prints to the session's standard output
// the doc of what it is given, from the same tables as `starbench doc`.
func helpBuiltin(mods []*Module) *starlark.Builtin {
	return starlark.NewBuiltin("help", func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x starlark.Value
		if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 0, &x); err != nil {
			return nil, err
		}
		text, err := Help(mods, x)
		if err != nil {
			return nil, err
		}
		var out io.Writer = os.Stdout
		if s, err := SessionFrom(thread); err == nil && s.Stdout != nil {
			out = s.Stdout
		}
		if _, err := io.WriteString(out, text); err != nil {
			return nil, fmt.Errorf("writing the help: %w", err)
		}
		return starlark.None, nil
	})
}

// Help returns the doc help(x) prints; x nil means help() with no argument.
func Help(mods []*Module, x starlark.Value) (string, error) {
	switch x := x.(type) {
	case nil:
		return overview(mods), nil
	case starlark.String:
		return Doc(mods, string(x))
	case *starlarkstruct.Module:
		return Doc(mods, x.Name)
	case *moduleValue:
		return Doc(mods, x.Name)
	case *starlark.Builtin:
		return builtinHelp(mods, x), nil
	case *starlark.Function:
		return functionHelp(x), nil
	}
	if t := findType(mods, x.Type()); t != nil {
		var b strings.Builder
		writeType(&b, t, t.Members)
		return b.String(), nil
	}
	text := fmt.Sprintf("%s: a Starlark %s (see the Starlark spec)", x.Type(), x.Type())
	if attrs, ok := x.(starlark.HasAttrs); ok && len(attrs.AttrNames()) > 0 {
		names := attrs.AttrNames()
		sort.Strings(names)
		text += "; its methods and fields: " + strings.Join(names, ", ")
	}
	return text + "\n", nil
}

// builtinHelp documents a builtin by its name: "frame.filter" (a module
// member or a value's method), "len" (Starlark's own), "append" bound to
// a list.
func builtinHelp(mods []*Module, b *starlark.Builtin) string {
	if doc, err := Doc(mods, b.Name()); err == nil {
		return doc
	}
	if r := b.Receiver(); r != nil {
		return fmt.Sprintf("%s.%s: a method of Starlark %s values (see the Starlark spec)\n", r.Type(), b.Name(), r.Type())
	}
	return fmt.Sprintf("%s: a Starlark built-in function (see the Starlark spec)\n", b.Name())
}

// functionHelp documents a function the script defined: its signature,
// where, and its docstring.
func functionHelp(f *starlark.Function) string {
	params := make([]string, f.NumParams())
	for i := range params {
		params[i], _ = f.Param(i)
		if d := f.ParamDefault(i); d != nil {
			params[i] += "=" + d.String()
		}
	}
	if f.HasVarargs() || f.HasKwargs() {
		for i, p := range params {
			switch {
			case f.HasVarargs() && i == f.NumParams()-1-boolInt(f.HasKwargs()):
				params[i] = "*" + p
			case f.HasKwargs() && i == f.NumParams()-1:
				params[i] = "**" + p
			}
		}
	}
	text := fmt.Sprintf("def %s(%s)  # %s\n", f.Name(), strings.Join(params, ", "), f.Position())
	if doc := strings.TrimSpace(f.Doc()); doc != "" {
		text += "    " + strings.ReplaceAll(doc, "\n", "\n    ") + "\n"
	}
	return text
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// findType returns the documented value type called name, or nil.
func findType(mods []*Module, name string) *Type {
	for _, t := range types(AllModules(mods)) {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// overview is help(): what there is and how to ask about it.
func overview(mods []*Module) string {
	var b strings.Builder
	b.WriteString("help(x) prints the doc of x: a module (help(frame)), a builtin (help(plot.bars)),\n")
	b.WriteString("a value or its method (help(f), help(f.filter)), or a name (help(\"frame.filter\")).\n")
	b.WriteString("`starbench doc` prints the whole reference.\n\nModules:\n")
	for _, m := range AllModules(mods) {
		fmt.Fprintf(&b, "  %-9s %s\n", m.Name, m.Doc)
	}
	b.WriteString("\n")
	WriteLibraries(&b)
	return b.String()
}
