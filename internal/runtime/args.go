package runtime

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"starbench/internal/spell"
)

// ArgsModule returns the `args` module: the --set values of the run,
// typed by the defaults the script declares.
func ArgsModule() *Module {
	return &Module{
		Name: "args",
		Doc:  "values given with `--set name=value`, typed like the script's defaults",
		Members: []Member{{
			Name:   "get",
			Params: "(name, default)",
			Doc:    "the --set value of name (a string literal) converted to the type of default (int, float, bool, string or list), or default",
			Fn:     argsGet,
		}},
	}
}

func argsGet(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var def starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "default", &def); err != nil {
		return nil, err
	}
	s, err := SessionFrom(thread)
	if err != nil {
		return nil, err
	}
	raw, ok := s.Set[name]
	if !ok {
		return def, nil
	}
	v, err := ConvertSet(raw, def)
	if err != nil {
		return nil, fmt.Errorf("--set %s=%s: %v", name, raw, err)
	}
	return v, nil
}

// ConvertSet converts the command-line text raw to the type of like, the
// default the script declared: int, float, bool, string, or a list or tuple
// of those given as comma-separated text. A None default infers the type.
func ConvertSet(raw string, like starlark.Value) (starlark.Value, error) {
	switch like := like.(type) {
	case starlark.NoneType:
		return inferSet(raw), nil
	case starlark.Int:
		n, err := parseIntSet(raw)
		if err != nil {
			return nil, fmt.Errorf("want an int like %s, got %q", like, raw)
		}
		return starlark.MakeInt64(n), nil
	case starlark.Float:
		f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		if err != nil {
			return nil, fmt.Errorf("want a float like %s, got %q", like, raw)
		}
		return starlark.Float(f), nil
	case starlark.Bool:
		b, err := strconv.ParseBool(strings.TrimSpace(raw))
		if err != nil {
			return nil, fmt.Errorf("want true or false, got %q", raw)
		}
		return starlark.Bool(b), nil
	case starlark.String:
		return starlark.String(raw), nil
	case *starlark.List:
		elems, err := convertList(raw, like)
		if err != nil {
			return nil, err
		}
		return starlark.NewList(elems), nil
	case starlark.Tuple:
		elems, err := convertList(raw, like)
		if err != nil {
			return nil, err
		}
		return starlark.Tuple(elems), nil
	default:
		return nil, fmt.Errorf("a default of type %s cannot be set from the command line; use an int, float, bool, string or list default", like.Type())
	}
}

// convertList splits raw on commas and converts each element like the
// first element of like (or infers it when like is empty).
func convertList(raw string, like starlark.Indexable) ([]starlark.Value, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, nil
	}
	var elem starlark.Value = starlark.None
	if like.Len() > 0 {
		elem = like.Index(0)
	}
	var out []starlark.Value
	for _, part := range strings.Split(raw, ",") {
		v, err := ConvertSet(strings.TrimSpace(part), elem)
		if err != nil {
			return nil, fmt.Errorf("list element: %v", err)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseIntSet reads an int as users type it: decimal (a leading zero too,
// "010" is 10, not octal 8), or hex, octal and binary with 0x, 0o, 0b.
func parseIntSet(raw string) (int64, error) {
	s := strings.TrimSpace(raw)
	digits := strings.TrimLeft(s, "+-")
	if len(digits) > 1 && digits[0] == '0' && digits[1] >= '0' && digits[1] <= '9' {
		return strconv.ParseInt(s, 10, 64)
	}
	return strconv.ParseInt(s, 0, 64)
}

// inferSet types raw by its look: int, float, true/false, a comma list, or a string.
func inferSet(raw string) starlark.Value {
	s := strings.TrimSpace(raw)
	if strings.Contains(s, ",") {
		var elems []starlark.Value
		for _, part := range strings.Split(s, ",") {
			elems = append(elems, inferSet(strings.TrimSpace(part)))
		}
		return starlark.NewList(elems)
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return starlark.MakeInt64(n)
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return starlark.Float(f)
	}
	switch s {
	case "true", "True":
		return starlark.True
	case "false", "False":
		return starlark.False
	}
	return starlark.String(raw)
}

// DeclaredArg is one args.get("name", default) call found in a script.
type DeclaredArg struct {
	Name    string
	Default starlark.Value // None when the default is not a literal
	Pos     syntax.Position
}

// describe renders the arg for error messages: `repeat (int, default 2)`.
func (a DeclaredArg) describe() string {
	if a.Default == starlark.None {
		return a.Name
	}
	return fmt.Sprintf("%s (%s, default %s)", a.Name, a.Default.Type(), a.Default)
}

// DeclaredArgs finds every args.get call with a literal name in files.
// The first declaration of a name wins.
func DeclaredArgs(files []*syntax.File) map[string]DeclaredArg {
	out := map[string]DeclaredArg{}
	for _, f := range files {
		walkArgsGets(f, func(call *syntax.CallExpr, name, def syntax.Expr) {
			lit, ok := name.(*syntax.Literal)
			if !ok || lit.Token != syntax.STRING {
				return
			}
			arg := DeclaredArg{Name: lit.Value.(string), Default: starlark.None, Pos: call.Lparen}
			if v, ok := literalValue(def); ok {
				arg.Default = v
			}
			if _, seen := out[arg.Name]; !seen {
				out[arg.Name] = arg
			}
		})
	}
	return out
}

// walkArgsGets calls fn for each args.get call in f with its name and
// default arguments, positional or keyword (nil when absent).
func walkArgsGets(f *syntax.File, fn func(call *syntax.CallExpr, name, def syntax.Expr)) {
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || !isArgsGet(call.Fn) {
			return true
		}
		var params [2]syntax.Expr // name, default
		i := 0
		for _, e := range call.Args {
			if bin, ok := e.(*syntax.BinaryExpr); ok && bin.Op == syntax.EQ {
				if id, ok := bin.X.(*syntax.Ident); ok {
					switch id.Name {
					case "name":
						params[0] = bin.Y
					case "default":
						params[1] = bin.Y
					}
				}
				continue
			}
			if i < len(params) {
				params[i] = e
			}
			i++
		}
		fn(call, params[0], params[1])
		return true
	})
}

func isArgsGet(fn syntax.Expr) bool {
	dot, ok := fn.(*syntax.DotExpr)
	if !ok || dot.Name.Name != "get" {
		return false
	}
	id, ok := dot.X.(*syntax.Ident)
	return ok && id.Name == "args"
}

// literalValue evaluates a literal default: numbers, strings, booleans,
// None, negative numbers and lists or tuples of those.
func literalValue(e syntax.Expr) (starlark.Value, bool) {
	switch e := e.(type) {
	case nil:
		return nil, false
	case *syntax.Literal:
		switch v := e.Value.(type) {
		case int64:
			return starlark.MakeInt64(v), true
		case float64:
			return starlark.Float(v), true
		case string:
			return starlark.String(v), true
		}
	case *syntax.Ident:
		switch e.Name {
		case "True":
			return starlark.True, true
		case "False":
			return starlark.False, true
		case "None":
			return starlark.None, true
		}
	case *syntax.UnaryExpr:
		if v, ok := literalValue(e.X); ok && e.Op == syntax.MINUS {
			if r, err := starlark.Unary(syntax.MINUS, v); err == nil {
				return r, true
			}
		}
	case *syntax.ListExpr:
		elems, ok := literalValues(e.List)
		return starlark.NewList(elems), ok
	case *syntax.TupleExpr:
		elems, ok := literalValues(e.List)
		return starlark.Tuple(elems), ok
	case *syntax.ParenExpr:
		return literalValue(e.X)
	}
	return nil, false
}

func literalValues(list []syntax.Expr) ([]starlark.Value, bool) {
	var out []starlark.Value
	for _, e := range list {
		v, ok := literalValue(e)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

// CheckSet reports the first --set value whose name the script does not
// declare or whose text does not fit the declared default. The error
// names the declared args.
func CheckSet(set map[string]string, declared map[string]DeclaredArg) error {
	names := make([]string, 0, len(set))
	for name := range set {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		arg, ok := declared[name]
		if !ok {
			return fmt.Errorf("unknown --set name %q: %s", name, declaredList(name, declared))
		}
		if _, err := ConvertSet(set[name], arg.Default); err != nil {
			return fmt.Errorf("--set %s=%s: %v (declared at %s)", name, set[name], err, arg.Pos)
		}
	}
	return nil
}

func declaredList(name string, declared map[string]DeclaredArg) string {
	if len(declared) == 0 {
		return `this script declares no args (it reads none with args.get("name", default))`
	}
	names := make([]string, 0, len(declared))
	for n := range declared {
		names = append(names, n)
	}
	sort.Strings(names)
	descs := make([]string, len(names))
	for i, n := range names {
		descs[i] = declared[n].describe()
	}
	msg := "this script declares " + strings.Join(descs, ", ")
	if near := spell.Nearest(name, names); near != "" {
		msg = fmt.Sprintf("did you mean %s? %s", near, msg)
	}
	return msg
}
