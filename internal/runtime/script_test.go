package runtime

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestParseScriptFindsEveryProblem(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.star": `load("lib.star", "helper", "helpr")
load("//missing.star", "x")
print(undefined_name)
args.gett("x", 1)
helper()
n = "dyn"
args.get(n, 1)
`,
		"lib.star": "def helper():\n    return 1\n",
	})
	_, err := ParseScript(filepath.Join(dir, "main.star"), dir, ScriptOptions(), Predeclared(nil))
	main := filepath.Join(dir, "main.star")
	got := errString(err)
	for _, want := range []string{
		main + ":3:7: undefined: undefined_name",
		main + ":4:6: args has no member gett (did you mean args.get?)",
		main + ":2:1: cannot load //missing.star: no such file " + filepath.Join(dir, "missing.star"),
		main + ":1:29: load: name helpr not found in module lib.star (did you mean helper?)",
		main + `:7:9: args.get needs its name as a string literal, like args.get("repeat", 2), so --set can be checked before the script runs`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("errors\n%s\nlack %q", got, want)
		}
	}
	if n := strings.Count(got, "\n") + 1; n != 5 {
		t.Errorf("got %d errors, want 5:\n%s", n, got)
	}
}

func TestParseScriptCollectsLoadedFilesForArgs(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.star":    `load("sub/lib.star", "n")` + "\n",
		"sub/lib.star": `load("//common.star", "c")` + "\nn = args.get('n', 1)\n",
		"common.star":  "c = args.get('c', 'x')\n",
	})
	script, err := ParseScript(filepath.Join(dir, "main.star"), dir, ScriptOptions(), Predeclared(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(script.Files) != 3 {
		t.Errorf("parsed %d files, want 3", len(script.Files))
	}
	declared := DeclaredArgs(script.Files)
	if len(declared) != 2 || declared["n"].Default.String() != "1" || declared["c"].Default.String() != `"x"` {
		t.Errorf("declared = %v", declared)
	}
}

func TestParseScriptSyntaxError(t *testing.T) {
	dir := writeFiles(t, map[string]string{"main.star": "x = (1,\ny = 2\n"})
	_, err := ParseScript(filepath.Join(dir, "main.star"), dir, ScriptOptions(), Predeclared(nil))
	if want := filepath.Join(dir, "main.star") + ":2:4: got '=', want ')'"; !strings.HasPrefix(errString(err), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func TestMarkdownListsEveryModuleAndLibrary(t *testing.T) {
	md := Markdown([]*Module{{Name: "demo", Doc: "a demo", Members: []Member{{Name: "go", Params: "(x)", Doc: "goes | stops"}},
		Types: []*Type{{Name: "demo.thing", Doc: "a thing", Members: []Member{{Name: "size", Doc: "how big"}, {Name: "grow", Params: "(n=1)", Doc: "bigger"}}}}}})
	for _, want := range []string{"## demo", "| `demo.go(x)` | goes \\| stops |", "## args", "`args.get(name, default)`", "- `json`:", "- `struct`:",
		"### demo.thing values\n\na thing; `type(x)` is `\"demo.thing\"`.", "| `demo.thing.size` | how big |", "| `demo.thing.grow(n=1)` | bigger |", "- `help`:"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}
