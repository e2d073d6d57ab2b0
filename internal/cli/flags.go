package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// newFlagSet returns a flag set that accepts flags before and after
// positional arguments and leaves error printing to us.
func newFlagSet(cmd string) *pflag.FlagSet {
	fs := pflag.NewFlagSet("starbench "+cmd, pflag.ContinueOnError)
	fs.SetInterspersed(true)
	fs.SortFlags = false
	fs.SetOutput(io.Discard)
	return fs
}

// parseFlags parses args for the command named name. It returns the
// positional arguments, or done with the exit code when the command must
// not go on (--help, or a usage error already printed).
func parseFlags(st *State, name string, fs *pflag.FlagSet, args []string) (pos []string, code int, done bool) {
	err := fs.Parse(args)
	if errors.Is(err, pflag.ErrHelp) {
		writeCommandUsage(st, name, fs)
		return nil, ExitOK, true
	}
	if err != nil {
		return nil, reportUsage(st, usagef(name, "%v", err)), true
	}
	return fs.Args(), ExitOK, false
}

func writeCommandUsage(st *State, name string, fs *pflag.FlagSet) {
	c, _ := findCommand(name)
	fmt.Fprintf(st.Stdout, "Usage: starbench %s %s\n\n%s.\n", c.name, c.args, strings.ToUpper(c.short[:1])+c.short[1:])
	if usages := fs.FlagUsages(); usages != "" {
		fmt.Fprintf(st.Stdout, "\nFlags:\n%s", usages)
	}
	writeFooter(st.Stdout, st)
}

// targetFlags are the flags of commands that drive a cluster.
type targetFlags struct {
	target, testbed string
}

func (t *targetFlags) add(fs *pflag.FlagSet, st *State) {
	fs.StringVar(&t.target, "target", defaultTarget(st),
		"what to drive: embedded (simulated cluster), vcenter (GOVC_URL, real fio), local (simulated control plane, real fio on loopback)")
	fs.StringVar(&t.testbed, "testbed", "", "testbed profile of the simulated cluster (default: the target's default)")
}

func defaultTarget(st *State) string {
	if st.Env["GOVC_URL"] != "" {
		return "vcenter"
	}
	return "embedded"
}

// check validates the flags of command cmd.
func (t *targetFlags) check(cmd string, st *State) error {
	switch t.target {
	case "embedded", "local":
		return nil
	case "vcenter":
		if st.Env["GOVC_URL"] == "" {
			return usagef(cmd, "--target vcenter needs GOVC_URL (the vCenter SDK URL, e.g. https://vc.example.com/sdk) and GOVC_USERNAME/GOVC_PASSWORD")
		}
		if t.testbed != "" {
			return usagef(cmd, "--testbed names a simulated cluster; --target vcenter drives the real one at GOVC_URL")
		}
		return nil
	}
	return usagef(cmd, "unknown --target %q; want embedded, vcenter or local", t.target)
}

// parseSets turns repeated --set name=value flags into a map (the last
// value of a name wins).
func parseSets(cmd string, sets []string) (map[string]string, error) {
	out := map[string]string{}
	for _, s := range sets {
		name, value, ok := strings.Cut(s, "=")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, usagef(cmd, "--set wants name=value (e.g. --set repeat=3), got %q", s)
		}
		out[strings.TrimSpace(name)] = value
	}
	return out, nil
}
