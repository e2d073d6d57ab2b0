package runtime

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// ResolveLoad returns the file a load statement in file from names:
// "//x.star" is relative to root (the main script's directory), anything
// else is relative to the directory of the loading file.
func ResolveLoad(from, module, root string) string {
	if rest, ok := strings.CutPrefix(module, "//"); ok {
		return filepath.Join(root, rest)
	}
	if filepath.IsAbs(module) {
		return filepath.Clean(module)
	}
	return filepath.Join(filepath.Dir(from), module)
}

// loader implements load(): each file runs once per session on the
// loading thread (so backtraces span files), its globals are cached (a
// failed load is not), and cycles are reported with the chain of files.
type loader struct {
	opts        *syntax.FileOptions
	predeclared starlark.StringDict
	root        string
	cache       map[string]*loaded // by absolute path
	loading     []string           // files being loaded, outermost first
}

type loaded struct {
	globals starlark.StringDict
	err     error
	done    bool
}

func (l *loader) load(thread *starlark.Thread, module string) (starlark.StringDict, error) {
	from := thread.CallFrame(0).Pos
	path := ResolveLoad(from.Filename(), module, l.root)
	key, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if e, ok := l.cache[key]; ok {
		if !e.done {
			return nil, fmt.Errorf("cycle in load graph: %s -> %s", strings.Join(l.loading, " -> "), path)
		}
		return e.globals, e.err
	}
	src, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			what := "no such file"
			if path != module {
				what += " " + path
			}
			return nil, fmt.Errorf("%s (loaded from %s:%d)", what, from.Filename(), from.Line)
		}
		return nil, err
	}
	e := &loaded{}
	l.cache[key] = e
	l.loading = append(l.loading, path)
	e.globals, e.err = starlark.ExecFileOptions(l.opts, thread, path, src, l.predeclared)
	l.loading = l.loading[:len(l.loading)-1]
	e.done = true
	if e.err != nil {
		delete(l.cache, key) // the REPL may load it again once it is fixed
	}
	return e.globals, e.err
}
