package runtime

import "go.starlark.net/syntax"

// ScriptOptions is the Starlark dialect of starbench scripts, chosen once
// here: unlike Bazel's Starlark, scripts may use while loops, recursion,
// top-level if/for/while, set(), and may reassign top-level names (a
// campaign script is a program, not a build file).
func ScriptOptions() *syntax.FileOptions {
	return &syntax.FileOptions{
		Set:             true,
		While:           true,
		TopLevelControl: true,
		GlobalReassign:  true,
		Recursion:       true,
	}
}

// REPLOptions is the dialect of the REPL: the script dialect, with load()
// binding globally so a loaded name stays usable in later statements.
func REPLOptions() *syntax.FileOptions {
	opts := ScriptOptions()
	opts.LoadBindsGlobally = true
	return opts
}
