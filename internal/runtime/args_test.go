package runtime

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

func TestConvertSet(t *testing.T) {
	list := func(vs ...starlark.Value) starlark.Value { return starlark.NewList(vs) }
	for _, tc := range []struct {
		raw  string
		like starlark.Value
		want string // Starlark repr, or "error: substring"
	}{
		{"3", starlark.MakeInt(2), "3"},
		{"0x10", starlark.MakeInt(2), "16"},
		{"010", starlark.MakeInt(2), "10"},
		{"-007", starlark.MakeInt(2), "-7"},
		{"three", starlark.MakeInt(2), "error: want an int like 2, got \"three\""},
		{"2.5", starlark.Float(1), "2.5"},
		{"4", starlark.Float(1), "4.0"},
		{"true", starlark.False, "True"},
		{"nope", starlark.False, "error: want true or false"},
		{"a,b", starlark.String("x"), `"a,b"`},
		{"4k, 64k", list(starlark.String("4k")), `["4k", "64k"]`},
		{"1,2", list(starlark.MakeInt(8)), "[1, 2]"},
		{"1,x", list(starlark.MakeInt(8)), "error: list element: want an int"},
		{"1,2", starlark.Tuple{starlark.Float(0)}, "(1.0, 2.0)"},
		{"", list(starlark.MakeInt(1)), "[]"},
		{"7", starlark.None, "7"},
		{"1.5", starlark.None, "1.5"},
		{"false", starlark.None, "False"},
		{"1,on", starlark.None, `[1, "on"]`},
		{"raid1, raid5", starlark.None, `["raid1", "raid5"]`},
		{"raid5", starlark.None, `"raid5"`},
		{"x", starlark.NewDict(0), "error: a default of type dict cannot be set"},
	} {
		v, err := ConvertSet(tc.raw, tc.like)
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			got = v.String()
		}
		if strings.HasPrefix(tc.want, "error: ") && !strings.HasPrefix(got, tc.want) || !strings.HasPrefix(tc.want, "error: ") && got != tc.want {
			t.Errorf("ConvertSet(%q, %s) = %s, want %s", tc.raw, tc.like, got, tc.want)
		}
	}
}

func parseFile(t *testing.T, src string) *syntax.File {
	t.Helper()
	f, err := ScriptOptions().Parse("main.star", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestDeclaredArgs(t *testing.T) {
	f := parseFile(t, `
repeat = args.get("repeat", 2)
def g():
    return args.get("sizes", default = ["4k", "64k"])
neg = args.get("offset", -1.5)
first = args.get("repeat", "ignored: the first declaration wins")
dyn = args.get("dyn", repeat)
flag = args.get(name = "nameless", default = True)
`)
	got := DeclaredArgs([]*syntax.File{f})
	want := map[string]string{"repeat": "2", "sizes": `["4k", "64k"]`, "offset": "-1.5", "dyn": "None", "nameless": "True"}
	if len(got) != len(want) {
		t.Errorf("declared %v, want the names of %v", got, want)
	}
	for name, def := range want {
		if got[name].Default == nil || got[name].Default.String() != def {
			t.Errorf("%s default = %v, want %s", name, got[name].Default, def)
		}
	}
	if pos := got["repeat"].Pos; pos.Line != 2 {
		t.Errorf("repeat declared at %s, want line 2", pos)
	}
}

func TestCheckSet(t *testing.T) {
	declared := DeclaredArgs([]*syntax.File{parseFile(t, `r = args.get("repeat", 2)
s = args.get("sizes", ["4k"])`)})
	for _, tc := range []struct {
		set  map[string]string
		want string
	}{
		{map[string]string{"repeat": "3", "sizes": "8k,16k"}, ""},
		{map[string]string{"repeats": "3"}, `unknown --set name "repeats": did you mean repeat? this script declares repeat (int, default 2), sizes (list, default ["4k"])`},
		{map[string]string{"repeat": "x"}, `--set repeat=x: want an int like 2, got "x" (declared at main.star:1:13)`},
	} {
		err := CheckSet(tc.set, declared)
		if got := errString(err); got != tc.want {
			t.Errorf("CheckSet(%v) = %q, want %q", tc.set, got, tc.want)
		}
	}
	if err := CheckSet(map[string]string{"x": "1"}, nil); !strings.Contains(errString(err), "this script declares no args") {
		t.Errorf("no declared args: %v", err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestArgsGetTypesSetValues(t *testing.T) {
	dir := writeFiles(t, map[string]string{"main.star": `
print(args.get("repeat", 2) + 1, args.get("sizes", ["4k"]), args.get("name", "x"), args.get("unset", 1.5))
`})
	stderr, errText := run(t, dir, &Session{Set: map[string]string{"repeat": "4", "sizes": "8k,16k", "name": "run 1"}})
	if errText != "" {
		t.Fatal(errText)
	}
	if want := "5 [\"8k\", \"16k\"] run 1 1.5\n"; stderr != want {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}
}

func TestArgsGetNonLiteralDefaultIsCheckedAtRunTime(t *testing.T) {
	dir := writeFiles(t, map[string]string{"main.star": "d = 2\nargs.get('repeat', d)\n"})
	s := &Session{Ctx: context.Background(), Set: map[string]string{"repeat": "lots"}}
	_, errText := run(t, dir, s)
	want := filepath.Join(dir, "main.star") + ":2:9: in <toplevel>\nError in args.get: --set repeat=lots: want an int like 2, got \"lots\""
	if !strings.HasSuffix(errText, want) {
		t.Errorf("error =\n%s\nwant suffix\n%s", errText, want)
	}
}
