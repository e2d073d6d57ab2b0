package runtime

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"starbench/internal/spell"
)

// Script is a main script and every file it loads, parsed and resolved
// but not run: what `starbench check` inspects and what `run` scans for
// declared args before running.
type Script struct {
	Files []*syntax.File // the main script first, then loaded files in load order
}

// ParseScript parses and resolves the script at path and, following its
// load statements, every file it loads (`//` = root). It returns every
// problem found (syntax errors, undefined names, missing files, names a
// file does not define) joined in one error, each with file:line:col.
func ParseScript(path, root string, opts *syntax.FileOptions, predeclared starlark.StringDict) (*Script, error) {
	p := &scriptParser{root: root, opts: opts, predeclared: predeclared, seen: map[string]*syntax.File{}}
	p.parse(path, nil)
	return &Script{Files: p.files}, errors.Join(p.errs...)
}

type scriptParser struct {
	root        string
	opts        *syntax.FileOptions
	predeclared starlark.StringDict
	seen        map[string]*syntax.File // by absolute path; nil while it failed to parse
	files       []*syntax.File
	errs        []error
}

// parse parses the file at path; stmt is the load statement naming it
// (nil for the main script).
func (p *scriptParser) parse(path string, stmt *syntax.LoadStmt) *syntax.File {
	key, _ := filepath.Abs(path)
	if f, ok := p.seen[key]; ok {
		return f
	}
	p.seen[key] = nil
	src, err := os.ReadFile(path)
	if err != nil {
		if stmt != nil && errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("%s: cannot load %s: no such file %s", stmt.Load, stmt.Module.Value, path)
		}
		p.errs = append(p.errs, err)
		return nil
	}
	f, _, err := starlark.SourceProgramOptions(p.opts, path, src, p.predeclared.Has)
	if err != nil {
		p.errs = append(p.errs, err)
		if f == nil || f.Module == nil {
			return nil
		}
	}
	p.seen[key] = f
	p.files = append(p.files, f)
	p.checkMembers(f)
	p.checkArgNames(f)
	for _, s := range f.Stmts {
		load, ok := s.(*syntax.LoadStmt)
		if !ok {
			continue
		}
		module := load.Module.Value.(string)
		if lf := p.parse(ResolveLoad(path, module, p.root), load); lf != nil {
			p.checkLoadedNames(load, lf)
		}
	}
	return f
}

// checkLoadedNames reports names a load statement takes from lf that lf
// does not define at top level (or keeps private with a leading _).
func (p *scriptParser) checkLoadedNames(load *syntax.LoadStmt, lf *syntax.File) {
	defined := map[string]bool{}
	var names []string
	for _, b := range lf.Module.(*resolve.Module).Globals {
		if b.First != nil {
			defined[b.First.Name] = true
			names = append(names, b.First.Name)
		}
	}
	sort.Strings(names)
	for _, from := range load.From {
		if !defined[from.Name] {
			msg := fmt.Sprintf("%s: load: name %s not found in module %s", from.NamePos, from.Name, load.Module.Value)
			if near := spell.Nearest(from.Name, names); near != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", near)
			}
			p.errs = append(p.errs, errors.New(msg))
		}
	}
}

// checkMembers reports `module.member` references to a predeclared module
// that has no such member: a typo caught before anything runs.
func (p *scriptParser) checkMembers(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		dot, ok := n.(*syntax.DotExpr)
		if !ok {
			return true
		}
		id, ok := dot.X.(*syntax.Ident)
		if !ok {
			return true
		}
		if b, ok := id.Binding.(*resolve.Binding); !ok || b.Scope != resolve.Predeclared {
			return true
		}
		mod, ok := p.predeclared[id.Name].(starlark.HasAttrs)
		if !ok {
			return true
		}
		names := mod.AttrNames()
		for _, name := range names {
			if name == dot.Name.Name {
				return true
			}
		}
		msg := fmt.Sprintf("%s: %s has no member %s", dot.Name.NamePos, id.Name, dot.Name.Name)
		if near := spell.Nearest(dot.Name.Name, names); near != "" {
			msg += fmt.Sprintf(" (did you mean %s.%s?)", id.Name, near)
		}
		p.errs = append(p.errs, errors.New(msg))
		return true
	})
}

// checkArgNames reports args.get calls whose name is not a string literal:
// --set values are checked against the declared names before the script
// runs, which needs the names in the source.
func (p *scriptParser) checkArgNames(f *syntax.File) {
	walkArgsGets(f, func(call *syntax.CallExpr, name, _ syntax.Expr) {
		if lit, ok := name.(*syntax.Literal); ok && lit.Token == syntax.STRING {
			return
		}
		p.errs = append(p.errs, fmt.Errorf(`%s: args.get needs its name as a string literal, like args.get("repeat", 2), so --set can be checked before the script runs`, call.Lparen))
	})
}
