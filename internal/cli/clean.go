package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"starbench/builtins"
	"starbench/internal/ledger"
	"starbench/internal/vsphere"
)

func cleanCmd(st *State, args []string) int {
	fs := newFlagSet("clean")
	var list bool
	fs.BoolVar(&list, "list", false, "list what the ledger holds still to be undone, without touching the vCenter")
	pos, code, done := parseFlags(st, "clean", fs, args)
	if done {
		return code
	}
	if len(pos) != 1 {
		return reportUsage(st, usagef("clean", "want one OUTDIR (the --out of the runs to clean up), got %d arguments", len(pos)))
	}
	dir := pos[0]
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return reportUsage(st, usagef("clean", "%s is not a directory: give the --out directory of the runs to clean up", dir))
	}
	path := filepath.Join(dir, ledger.FileName)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(st.Stdout, "%s has no ledger: no run writing there changed a vCenter (runs on a simulated target keep none)\n", dir)
		return ExitOK
	}
	l, err := ledger.Open(path)
	if err != nil {
		fmt.Fprintf(st.Stderr, "starbench clean: %v\n", err)
		return ExitScriptError
	}
	pending := l.Pending()
	if len(pending) == 0 {
		fmt.Fprintf(st.Stdout, "nothing to clean: every entry of %s is undone\n", path)
		return ExitOK
	}
	if list {
		for _, e := range pending {
			what := "created"
			if !e.Created {
				what = "changed"
			}
			fmt.Fprintf(st.Stdout, "%s  %-11s %-20s %s  on %s (cluster %s)\n", e.At.Format("2006-01-02 15:04:05"), e.Kind, e.Name, what, e.VCenter, e.Cluster)
		}
		return ExitOK
	}
	opts, err := vsphere.OptionsFromEnv(func(k string) string { return st.Env[k] })
	if err != nil {
		return reportUsage(st, usagef("clean", "%v", err))
	}
	if opts.URL == "" {
		return reportUsage(st, usagef("clean", "GOVC_URL is not set: point it at the vCenter the runs used (%s)", vcenters(pending)))
	}
	if opts.Datacenter == "" && opts.Cluster == "" {
		opts.Datacenter, opts.Cluster = onlyPlace(pending)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	defer watchInterrupts(st, func(os.Signal) { cancel(errInterrupted) })()
	c, err := vsphere.Connect(ctx, opts)
	if err != nil {
		fmt.Fprintf(st.Stderr, "starbench clean: %v\n", err)
		return ExitScriptError
	}
	defer c.Close()
	c.SetLedger(l)
	err = builtins.Undo(ctx, l, c.Host(), c.Undoers(), st.Stderr)
	l.Close()
	switch {
	case errors.Is(context.Cause(ctx), errInterrupted):
		return ExitInterrupted
	case err != nil:
		fmt.Fprintf(st.Stderr, "starbench clean: %v\n", err)
		return ExitScriptError
	}
	return ExitOK
}

// vcenters lists the vCenters the entries were recorded on.
func vcenters(entries []ledger.Entry) string {
	seen := map[string]bool{}
	for _, e := range entries {
		seen[e.VCenter] = true
	}
	var out []string
	for v := range seen {
		out = append(out, v)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// onlyPlace is the datacenter and cluster of the entries when they all
// name the same ones.
func onlyPlace(entries []ledger.Entry) (datacenter, cluster string) {
	datacenter, cluster = entries[0].Datacenter, entries[0].Cluster
	for _, e := range entries {
		if e.Datacenter != datacenter || e.Cluster != cluster {
			return "", ""
		}
	}
	return datacenter, cluster
}
