package builtins_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"starbench/builtins"
	"starbench/internal/runtime"
)

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// TestRegistry checks every module table a script sees: unique names that
// shadow nothing, documented members, builtins named module.member, and
// value types documented once, each field and method with a doc line
// (TestValueTypesAreDocumented checks the tables against the values).
func TestRegistry(t *testing.T) {
	seen := map[string]string{}
	for _, lib := range runtime.Libraries() {
		seen[lib.Name] = "a go.starlark.net library"
	}
	for _, name := range starlark.Universe.Keys() {
		seen[name] = "a Starlark built-in"
	}
	seen["help"] = "the help builtin"
	types := map[string]string{} // value type -> module documenting it
	for _, m := range runtime.AllModules(builtins.Modules(builtins.Deps{})) {
		if what, dup := seen[m.Name]; dup {
			t.Errorf("module %s: name already taken by %s", m.Name, what)
		}
		seen[m.Name] = "module " + m.Name
		if !snakeCase.MatchString(m.Name) || strings.TrimSpace(m.Doc) == "" {
			t.Errorf("module %q: want a snake_case name and a doc line, got doc %q", m.Name, m.Doc)
		}
		members := map[string]bool{}
		for _, mem := range m.Members {
			full := m.Name + "." + mem.Name
			if members[mem.Name] {
				t.Errorf("%s: defined twice", full)
			}
			members[mem.Name] = true
			if !snakeCase.MatchString(mem.Name) {
				t.Errorf("%s: want a snake_case name", full)
			}
			if doc := strings.TrimSpace(mem.Doc); doc == "" || strings.Contains(doc, "\n") {
				t.Errorf("%s: want a one-line Doc, got %q", full, mem.Doc)
			}
			if (mem.Fn == nil) == (mem.Value == nil) {
				t.Errorf("%s: want exactly one of Fn and Value", full)
			}
			if mem.Fn != nil && !(strings.HasPrefix(mem.Params, "(") && strings.HasSuffix(mem.Params, ")")) {
				t.Errorf("%s: want Params like \"(name, count=1)\", got %q", full, mem.Params)
			}
		}
		for _, typ := range m.Types {
			if what, dup := types[typ.Name]; dup {
				t.Errorf("value type %s: also documented in module %s", typ.Name, what)
			}
			types[typ.Name] = m.Name
			if strings.TrimSpace(typ.Doc) == "" {
				t.Errorf("value type %s: want a doc line", typ.Name)
			}
			for _, mem := range typ.Members {
				full := typ.Name + "." + mem.Name
				if !snakeCase.MatchString(mem.Name) {
					t.Errorf("%s: want a snake_case name", full)
				}
				if doc := strings.TrimSpace(mem.Doc); doc == "" || strings.Contains(doc, "\n") {
					t.Errorf("%s: want a one-line Doc, got %q", full, mem.Doc)
				}
				if mem.Params != "" && !(strings.HasPrefix(mem.Params, "(") && strings.HasSuffix(mem.Params, ")")) {
					t.Errorf("%s: want Params like \"(n=5)\" for a method or \"\" for a field, got %q", full, mem.Params)
				}
			}
		}
		for name, v := range m.Struct().Members {
			if b, ok := v.(*starlark.Builtin); ok && b.Name() != m.Name+"."+name {
				t.Errorf("%s.%s: builtin named %q, want %q", m.Name, name, b.Name(), m.Name+"."+name)
			}
		}
	}
}

// TestBuiltinsDocIsFresh fails when docs/BUILTINS.md differs from what the
// module tables generate.
func TestBuiltinsDocIsFresh(t *testing.T) {
	got, err := os.ReadFile("../docs/BUILTINS.md")
	if err != nil {
		t.Fatalf("%v; generate it: go run ./cmd/starbench doc --markdown > docs/BUILTINS.md", err)
	}
	if want := runtime.Markdown(builtins.Modules(builtins.Deps{})); string(got) != want {
		t.Errorf("docs/BUILTINS.md is stale (%s); regenerate it: go run ./cmd/starbench doc --markdown > docs/BUILTINS.md",
			firstDifference(string(got), want))
	}
}

func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d is %q, want %q", i+1, gl, wl)
		}
	}
	return "no difference"
}
