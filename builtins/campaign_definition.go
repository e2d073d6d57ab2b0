package builtins

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"starbench/internal/runtime"
)

// workloadDefinition is what a campaign workload runs, as the store keeps
// it to notice a change on resume: a job's options, or a function's source
// with the jobs it uses by name (so a --set value that changes a job
// changes the definition); then the warm-up likewise. Other values a
// function reads (paths, flags) are left out: they seldom change what is
// measured, and a resume must not be refused for them.
func workloadDefinition(run, warmup starlark.Value) string {
	def := definitionOf(run)
	if warmup != starlark.None {
		def += "\nwarmup: " + definitionOf(warmup)
	}
	return def
}

// factorDefinition is how a factor sets its levels, as the store keeps it
// to notice a change on resume: apply's source (and restore's), and what
// each level stands for where its label does not say it all (a policy
// handle's rules; plain strings, numbers and bools say it all).
func factorDefinition(f *factorValue) (string, map[string]string) {
	def := "apply: " + definitionOf(f.apply)
	if f.restore != nil {
		def += "\nrestore: " + definitionOf(f.restore)
	}
	levels := map[string]string{}
	for i, v := range f.levels {
		switch v.(type) {
		case starlark.String, starlark.Int, starlark.Float, starlark.Bool, starlark.NoneType:
		default:
			levels[f.spec.Levels[i]] = v.String()
		}
	}
	return def, levels
}

func definitionOf(v starlark.Value) string {
	switch v := v.(type) {
	case *JobValue:
		return v.String()
	case *WorkloadValue:
		return v.wl.Text()
	case *starlark.Function:
		return functionDefinition(v)
	}
	return v.String()
}

// functionDefinition is a function's source and the jobs and workloads it
// uses by name, whether it closes over them or reads them as globals.
func functionDefinition(fn *starlark.Function) string {
	src, names := functionSource(fn)
	var b strings.Builder
	b.WriteString(src)
	values := map[string]starlark.Value{}
	for name, v := range fn.Globals() {
		values[name] = v
	}
	for i := range fn.NumFreeVars() {
		bind, v := fn.FreeVar(i)
		values[bind.Name] = v
	}
	for _, name := range names {
		if v, ok := values[name]; ok && definesWork(v) {
			fmt.Fprintf(&b, "\n%s = %s", name, definitionOf(v))
		}
	}
	return b.String()
}

func definesWork(v starlark.Value) bool {
	switch v.(type) {
	case *JobValue, *WorkloadValue:
		return true
	}
	return false
}

// functionSource is the text of a def or lambda and the names it uses, in
// order; a function whose file cannot be read (the REPL's) is named by
// its position only.
func functionSource(fn *starlark.Function) (string, []string) {
	pos := fn.Position()
	fallback := fmt.Sprintf("%s at %s", fn.Name(), pos)
	src, err := os.ReadFile(pos.Filename())
	if err != nil {
		return fallback, nil
	}
	f, err := runtime.ScriptOptions().Parse(pos.Filename(), src, 0)
	if err != nil {
		return fallback, nil
	}
	var node syntax.Node
	syntax.Walk(f, func(n syntax.Node) bool {
		if node != nil {
			return false
		}
		switch n.(type) {
		case *syntax.DefStmt, *syntax.LambdaExpr:
			if start, _ := n.Span(); start.Line == pos.Line && start.Col == pos.Col {
				node = n
				return false
			}
		}
		return true
	})
	if node == nil {
		return fallback, nil
	}
	var names []string
	syntax.Walk(node, func(n syntax.Node) bool {
		if id, ok := n.(*syntax.Ident); ok && !slices.Contains(names, id.Name) {
			names = append(names, id.Name)
		}
		return true
	})
	start, end := node.Span()
	return sourceBetween(src, start, end), names
}

// sourceBetween is the text of src from start to end (lines and rune
// columns, 1-based, end exclusive).
func sourceBetween(src []byte, start, end syntax.Position) string {
	lines := strings.Split(string(src), "\n")
	if int(start.Line) < 1 || int(end.Line) > len(lines) || start.Line > end.Line {
		return ""
	}
	part := slices.Clone(lines[start.Line-1 : end.Line])
	last := []rune(part[len(part)-1])
	part[len(part)-1] = string(last[:min(len(last), max(int(end.Col)-1, 0))])
	first := []rune(part[0])
	part[0] = string(first[min(len(first), max(int(start.Col)-1, 0)):])
	return strings.Join(part, "\n")
}
