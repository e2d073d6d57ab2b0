package builtins_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarktest"
	"go.starlark.net/syntax"

	"starbench/builtins"
	"starbench/internal/runtime"
)

// TestScripts runs the script tests in testdata/*.star (files under
// testdata/lib are only loaded). Each file is split into chunks at lines
// that are exactly "---"; each chunk runs in a fresh session with the
// predeclared names of `starbench run` plus go.starlark.net's `assert`
// module. A `### "regex"` comment expects an error on its line matching
// regex (go.starlark.net's convention; the quotes are Go string quotes
// when they parse as such, else just delimiters); a chunk line `# --set name=value`
// passes a --set value to args.get. Run one file with
// `go test ./builtins -run 'TestScripts/runtime.star'`.
func TestScripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.star"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range splitChunks(string(src)) {
				t.Run(fmt.Sprintf("line%d", c.line), func(t *testing.T) { c.run(t, file) })
			}
		})
	}
}

// chunk is one test case of a script test file.
type chunk struct {
	line   int               // first line in the file
	src    string            // padded with newlines so positions match the file
	set    map[string]string // from `# --set name=value` lines
	wantAt map[int]string    // line -> regexp the error there must match
}

var (
	wantRE = regexp.MustCompile(`###\s*(.*)$`)
	setRE  = regexp.MustCompile(`^#\s*--set\s+(\S+?)=(.*)$`)
)

func splitChunks(src string) []*chunk {
	lines := strings.Split(src, "\n")
	var chunks []*chunk
	c := &chunk{line: 1}
	var body []string
	flush := func(next int) {
		c.src = strings.Repeat("\n", c.line-1) + strings.Join(body, "\n")
		chunks = append(chunks, c)
		c, body = &chunk{line: next}, nil
	}
	for i, line := range lines {
		if line == "---" {
			flush(i + 2)
			continue
		}
		body = append(body, line)
		if m := setRE.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			if c.set == nil {
				c.set = map[string]string{}
			}
			c.set[m[1]] = m[2]
		}
		if m := wantRE.FindStringSubmatch(line); m != nil {
			pattern := strings.TrimSpace(m[1])
			if unq, err := strconv.Unquote(pattern); err == nil {
				pattern = unq
			} else if len(pattern) >= 2 && pattern[0] == '"' && pattern[len(pattern)-1] == '"' {
				pattern = pattern[1 : len(pattern)-1] // `### "a \(b\)"`: regexp escapes as written
			}
			if c.wantAt == nil {
				c.wantAt = map[int]string{}
			}
			c.wantAt[i+1] = pattern
		}
	}
	flush(0)
	return chunks
}

func (c *chunk) run(t *testing.T, file string) {
	var stderr bytes.Buffer
	s := &runtime.Session{
		Ctx: context.Background(), Script: file, OutDir: t.TempDir(), Target: "embedded",
		Stdout: &stderr, Stderr: &stderr, Set: c.set,
	}
	defer s.Close()
	in := runtime.NewInterp(s, builtins.Modules(scriptTestDeps()), filepath.Dir(file), runtime.ScriptOptions())
	assert, err := starlarktest.LoadAssertModule()
	if err != nil {
		t.Fatal(err)
	}
	in.Predeclared["assert"] = assert["assert"]
	starlarktest.SetReporter(in.Thread, t)
	_, err = in.Exec(file, []byte(c.src))
	if err == nil {
		for line, re := range c.wantAt {
			t.Errorf("%s:%d: no error, want one matching %q", file, line, re)
		}
		return
	}
	line, msg := errorLine(err, file), runtime.FormatError(err)
	pattern, ok := c.wantAt[line]
	if !ok {
		t.Errorf("unexpected error at line %d:\n%s\noutput:\n%s", line, msg, stderr.String())
	} else if re, err := regexp.Compile(pattern); err != nil {
		t.Errorf("%s:%d: bad ### regexp: %v", file, line, err)
	} else if !re.MatchString(msg) {
		t.Errorf("%s:%d: error\n%s\ndoes not match %q", file, line, msg, pattern)
	}
	for l, re := range c.wantAt {
		if l != line {
			t.Errorf("%s:%d: no error here, want one matching %q (the chunk stopped at line %d)", file, l, re, line)
		}
	}
}

// errorLine is the line of file where err arose: the position of a syntax
// or resolve error, or the innermost frame in file of an evaluation error.
func errorLine(err error, file string) int {
	var syn syntax.Error
	if errors.As(err, &syn) {
		return int(syn.Pos.Line)
	}
	var list resolve.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		return int(list[0].Pos.Line)
	}
	var inner *starlark.EvalError
	for e := err; e != nil; e = errors.Unwrap(e) {
		if ee, ok := e.(*starlark.EvalError); ok {
			inner = ee
		}
	}
	if inner == nil {
		return 0
	}
	for i := len(inner.CallStack) - 1; i >= 0; i-- {
		if inner.CallStack[i].Pos.Filename() == file {
			return int(inner.CallStack[i].Pos.Line)
		}
	}
	return 0
}

// scriptTestDeps are the deps script tests run with.
func scriptTestDeps() builtins.Deps {
	return builtins.Deps{}
}
