// Package cli is the starbench command line. All of its state is explicit
// (State: args, env, stdio, interrupts), so tests run whole commands in
// process and main stays a few lines.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"starbench/internal/campaign"
	"starbench/internal/target"
	"starbench/internal/vsphere"
)

// Exit codes, documented in the usage text and the README.
const (
	ExitOK          = 0
	ExitScriptError = 1
	ExitUsage       = 2
	// ExitRunsFailed: the script ran to its end, but a campaign it ran
	// holds failed runs.
	ExitRunsFailed = 3
	// ExitRegressed: starbench compare found a significant regression.
	ExitRegressed   = 4
	ExitInterrupted = 130
)

// State is everything a command may touch of the outside world.
type State struct {
	Args           []string          // command-line arguments without the program name
	Env            map[string]string // environment variables
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Terminal reports whether Stdin is an interactive terminal (the REPL
	// then edits lines with readline; otherwise it reads plain lines).
	Terminal bool
	// Interrupts delivers SIGINT and SIGTERM; nil means none arrive.
	Interrupts <-chan os.Signal
	// ConfigDir is the user's config directory (REPL history lives in
	// ConfigDir/starbench/history); "" keeps no history.
	ConfigDir string
	// OpenTarget opens a session's target; nil means the real one (openTarget).
	OpenTarget func(ctx context.Context, opts target.Options) (*target.Target, func(), error)
	// observer follows the campaigns of `run --metrics-listen`.
	observer campaign.Observer
}

// errInterrupted is the cause of a context cancelled by Ctrl-C or SIGTERM.
var errInterrupted = errors.New("interrupted")

// usageError is a command line that cannot run; it exits with ExitUsage.
type usageError struct {
	cmd string // the command whose usage applies ("" = top level)
	msg string
}

func (e *usageError) Error() string { return e.msg }

func usagef(cmd, format string, args ...any) error {
	return &usageError{cmd: cmd, msg: fmt.Sprintf(format, args...)}
}

// command is one subcommand.
type command struct {
	name  string
	args  string // synopsis after the name
	short string
	run   func(st *State, args []string) int
}

func commands() []command {
	return []command{
		{"run", "SCRIPT [--set name=value ...] [flags]", "run a script", runCmd},
		{"check", "SCRIPT [--set name=value ...]", "parse and resolve a script without running it", checkCmd},
		{"repl", "[--target T] [--testbed NAME] [--out DIR]", "interactive Starlark with the same modules as run; files saved with a relative path go to DIR (out/repl)", replCmd},
		{"report", "SCRIPT --from DB [--out DIR]", "run a figures script on a stored campaign (no cluster), then write report.html and report.md", reportCmd},
		{"compare", "BASE.db NEW.db [--threshold 5%] [--json] [--figure FILE]", "compare two campaign stores: each metric's change with a confidence interval; exit 4 when something regressed significantly", compareCmd},
		{"worker", "check [--template NAME] [--worker NAME ...] [--trial] [--port 8765]", "check a worker template or running workers before a deployment: guest OS, disks, guest IP, fio server and version, data disks (docs/worker-image.md)", workerCmd},
		{"clean", "OUTDIR [--list]", "remove the VMs and policies runs writing to OUTDIR made on the vCenter, and restore the settings they changed (from OUTDIR's ledger)", cleanCmd},
		{"export", "DB --csv DIR", "write a campaign store's datasets (results_wide, cell_summary, runs, ...) as CSV files", exportCmd},
		{"doc", "[NAME] [--markdown]", "reference of the builtins and the values they return (NAME: frame, frame.filter, plot.figure.save)", docCmd},
		{"split", "--dom-worlds N [--device-worlds N] [--diskgroup-worlds N] [--testbed NAME]", "write a testbed profile with vSAN's worlds as a real cluster showed them (scripts/vsan_worlds.star) and the fitted cycles refitted to the calibration", splitCmd},
		{"sensitivity", "SCRIPT [--testbed NAME] [--set k=v] [--step 10] [--top 3] [--csv FILE]", "run SCRIPT on the simulator and say what each simulated answer rests on: every model parameter moved a step either way, with how much each run's answer moves and whether its value is fitted, measured, published or an assumption", sensitivityCmd},
		{"fit", "[SCRIPT] --from DB [--from DB ...] --testbed NAME [--params a,b] [--validate 3] [--out FILE]", "fit a testbed profile's model parameters to campaigns measured on a real cluster, each rerun on the simulated testbed from the script its store keeps (or SCRIPT): the error before and after on the runs fitted and on those kept apart, and the profile written", fitCmd},
		{"sim", "serve [--testbed NAME] [--listen 127.0.0.1:PORT]", "serve a testbed's simulated vCenter until Ctrl-C", simCmd},
		{"version", "", "print version, commit and Go version", versionCmd},
	}
}

// Run runs the command line in st and returns the process exit code.
func Run(st *State) int {
	if len(st.Args) == 0 {
		writeUsage(st.Stderr, st)
		return ExitUsage
	}
	name, rest := st.Args[0], st.Args[1:]
	switch name {
	case "-h", "--help", "help":
		if len(rest) > 0 {
			if c, ok := findCommand(rest[0]); ok {
				return c.run(st, []string{"--help"})
			}
		}
		writeUsage(st.Stdout, st)
		return ExitOK
	case "--version":
		return versionCmd(st, nil)
	}
	c, ok := findCommand(name)
	if !ok {
		return reportUsage(st, usagef("", "unknown command %q; commands: %s", name, commandNames()))
	}
	return c.run(st, rest)
}

func findCommand(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func commandNames() string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

// reportUsage prints a usage error with a pointer to the help and returns ExitUsage.
func reportUsage(st *State, err error) int {
	ue, ok := err.(*usageError)
	if !ok {
		fmt.Fprintf(st.Stderr, "starbench: %v\n", err)
		return ExitUsage
	}
	prefix, help := "starbench", "starbench --help"
	if ue.cmd != "" {
		prefix, help = "starbench "+ue.cmd, "starbench "+ue.cmd+" --help"
	}
	fmt.Fprintf(st.Stderr, "%s: %s\nSee '%s'.\n", prefix, ue.msg, help)
	return ExitUsage
}

func writeUsage(w io.Writer, st *State) {
	fmt.Fprint(w, "starbench runs HCI benchmark campaigns on VMware vSAN, written as Starlark scripts.\n\nUsage:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  starbench %-8s %s\n  %-19s %s\n", c.name, c.args, "", c.short)
	}
	fmt.Fprint(w, "\nRun 'starbench COMMAND --help' for a command's flags.\n")
	writeFooter(w, st)
}

// writeFooter writes the exit codes and the environment every command honours.
func writeFooter(w io.Writer, st *State) {
	fmt.Fprint(w, `
Exit codes: 0 success, 1 script error, 2 usage error, 3 a campaign holds failed runs,
4 compare found a significant regression, 130 interrupted (Ctrl-C, SIGTERM).

Environment (a real vCenter, as govc reads it):
`)
	for _, v := range vsphere.EnvVars {
		fmt.Fprintf(w, "  %-26s %s [%s]\n", v.Name, v.Doc, envState(st, v.Name))
	}
}

// envState says whether a variable is set without showing its value:
// GOVC_URL may carry credentials.
func envState(st *State, name string) string {
	if st.Env[name] == "" {
		return "unset"
	}
	return "set"
}
