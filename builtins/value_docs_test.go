package builtins

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"go.starlark.net/starlark"

	"starbench/internal/runtime"
)

// TestValueTypesAreDocumented: every value type a builtin can return has
// a doc table (found by its Type() in the source, so a new type cannot be
// missed), and each table names exactly the value's fields and methods.
func TestValueTypesAreDocumented(t *testing.T) {
	docs := map[string]*runtime.Type{}
	for _, m := range Modules(Deps{}) {
		for _, typ := range m.Types {
			if docs[typ.Name] != nil {
				t.Errorf("value type %s documented twice", typ.Name)
			}
			docs[typ.Name] = typ
		}
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	samples := []starlark.Value{&Frame{}, &Groups{}, &Figure{}, &storeValue{}, &Worker{}, &JobValue{}, &WorkloadValue{}, &Policy{},
		&campaignValue{}, &factorValue{}, &workloadValue{}, &eventValue{}, &eventWorkload{}, &eventsResult{}}
	sampled := map[string]bool{}
	for _, v := range samples {
		sampled[v.Type()] = true
	}
	typeMethod := regexp.MustCompile(`\) Type\(\) string\s*\{\s*return "([^"]+)"`)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range typeMethod.FindAllSubmatch(src, -1) {
			if docs[string(m[1])] == nil {
				t.Errorf("%s: value type %s has no doc table (add one to its module's Types)", f, m[1])
			}
			if !sampled[string(m[1])] {
				t.Errorf("%s: value type %s is not among this test's samples, so its members go unchecked", f, m[1])
			}
		}
	}
	for _, v := range samples {
		doc := docs[v.Type()]
		if doc == nil {
			t.Errorf("value type %s has no doc table", v.Type())
			continue
		}
		var documented, served []string
		for _, mem := range doc.Members {
			documented = append(documented, mem.Name)
		}
		if h, ok := v.(starlark.HasAttrs); ok {
			served = slices.Clone(h.AttrNames())
		}
		slices.Sort(documented)
		slices.Sort(served)
		if !slices.Equal(documented, served) {
			t.Errorf("value type %s: documented members %v, the value serves %v", v.Type(), documented, served)
		}
		for _, mem := range doc.Members {
			if mem.Params != "" {
				checkMethodServed(t, v, mem.Name)
			}
		}
	}
}

// checkMethodServed fails unless v's Attr gives a callable for the
// documented method name (a method documented but dispatched nowhere).
func checkMethodServed(t *testing.T, v starlark.Value, name string) {
	t.Helper()
	h, ok := v.(starlark.HasAttrs)
	if !ok {
		t.Errorf("value type %s documents method %s but has no attributes", v.Type(), name)
		return
	}
	got, err := h.Attr(name)
	if err != nil {
		t.Errorf("%s.%s: %v", v.Type(), name, err)
		return
	}
	if _, ok := got.(starlark.Callable); !ok {
		t.Errorf("%s.%s is documented as a method but the value serves %v", v.Type(), name, got)
	}
}
