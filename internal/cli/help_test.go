package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHelpInTheREPL: help() documents modules, builtins, values, their
// methods, names, Starlark's own builtins and the user's functions, from
// the same tables as `starbench doc`.
func TestHelpInTheREPL(t *testing.T) {
	in := strings.Join([]string{
		`f = frame.from_rows([{"a": 1}])`,
		`help(f.filter)`,
		`help(f.group_by("a"))`,
		`help(plot)`,
		`help("plot.figure.save")`,
		`help(len)`,
		`help([].append)`,
		`def twice(x, n=2, *rest, **kw):`,
		`    "repeats x n times"`,
		`    return x * n`,
		``,
		`help(twice)`,
		`help(3)`,
		`help()`,
		`help("frame.fliter")`,
	}, "\n") + "\n"
	r := runCLI(t, in, nil, "repl")
	for _, want := range []string{
		"frame value: an immutable table", "  frame.filter(fn=None, **conditions)\n      rows where",
		"frame.groups value: ", "frame.groups.agg(",
		"plot: report-quality figures", "  plot.bars(frame, x, y,",
		"plot.figure value: ", "plot.figure.save(path, ",
		"len: a Starlark built-in function",
		"list.append: a method of Starlark list values",
		"def twice(x, n=2, *rest, **kw)  # <stdin>:1:1\n    repeats x n times",
		"int: a Starlark int",
		"help(x) prints the doc of x", "Modules:\n  vsphere ",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("help output lacks %q\nstdout:\n%s\nstderr:\n%s", want, r.stdout, r.stderr)
		}
	}
	if !strings.Contains(r.stderr, `frame has no member "fliter" (did you mean filter?)`) {
		t.Errorf("help of a misspelt name: stderr\n%s", r.stderr)
	}
}

// A module member that is not there says which module, and where the name
// is a method of the module's values (frame.pivot), how to reach it.
func TestMissingModuleMembersSayWhere(t *testing.T) {
	r := runCLI(t, "frame.pivot\ncampaign.plan\nframe.columns\nplot.bar\nfio.jb\n", nil, "repl")
	for _, want := range []string{
		`Error: module frame has no .pivot: pivot is a method of frame values, used on one (x.pivot(...) where x is a frame); help("frame.pivot")`,
		`Error: module campaign has no .plan: plan is a method of campaign values, used on one (x.plan(...) where x is a campaign); help("campaign.plan")`,
		`Error: module frame has no .columns: columns is an attribute of frame values, used on one (x.columns where x is a frame); help("frame.columns")`,
		`Error: module plot has no .bar; help(plot) lists its members (did you mean .bars?)`,
		`Error: module fio has no .jb; help(fio) lists its members`,
	} {
		if !strings.Contains(r.stderr, want+"\n") {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

// TestREPLSaysWhereFilesGo: files saved with a relative path land under
// --out (out/repl by default) and the REPL names each one.
func TestREPLSaysWhereFilesGo(t *testing.T) {
	dir := t.TempDir()
	in := `f = frame.from_rows([{"x": "a", "y": 1}])
plot.bars(f, x = "x", y = "y", save = "bars.png")
f.to_csv("t.csv")
`
	r := runCLI(t, in, nil, "repl", "--out", dir)
	for _, name := range []string{"bars.png", "t.csv"} {
		path := filepath.Join(dir, name)
		if !strings.Contains(r.stderr, "wrote "+path+"\n") {
			t.Errorf("the REPL did not say it wrote %s; stderr:\n%s", path, r.stderr)
		}
		if _, err := os.Stat(path); err != nil {
			t.Error(err)
		}
	}
	r = runCLI(t, "", nil, "repl", "--help")
	if !strings.Contains(r.stdout, "(default \"out/repl\")") {
		t.Errorf("repl --help does not name the default folder:\n%s", r.stdout)
	}
}

// TestREPLKeepsLocalWorkersAcrossStatements: local fio servers live as
// long as the REPL, not the statement that started them (they were
// stopped with it, and the next statement's run found no server).
func TestREPLKeepsLocalWorkersAcrossStatements(t *testing.T) {
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed (apt-get install -y fio)")
	}
	in := `w = fio.local_workers(1, size = "8m")
r = fio.run(w, fio.job(rw = "randread", bs = "4k", size = "1m"))
r.filter(worker = "all")["iops"][0] > 0
`
	r := runCLI(t, in, nil, "repl", "--out", t.TempDir())
	if r.stdout != "True\n" {
		t.Errorf("a run on the workers of an earlier statement: stdout %q\nstderr:\n%s", r.stdout, r.stderr)
	}
}
