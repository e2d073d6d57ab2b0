package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"starbench/internal/sim"
)

func simCmd(st *State, args []string) int {
	fs := newFlagSet("sim")
	var opts sim.ServeOptions
	fs.StringVar(&opts.Testbed, "testbed", "", "testbed profile name or JSON file (default: the default testbed)")
	fs.StringVar(&opts.Listen, "listen", "127.0.0.1:0", "host:port to serve the SDK on (port 0 picks a free one)")
	pos, code, done := parseFlags(st, "sim", fs, args)
	if done {
		return code
	}
	if len(pos) != 1 || pos[0] != "serve" {
		return reportUsage(st, usagef("sim", "want 'sim serve', got '%s'", strings.Join(append([]string{"sim"}, pos...), " ")))
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	defer watchInterrupts(st, func(os.Signal) { cancel(errInterrupted) })()
	opts.Stdout = st.Stdout
	err := sim.Serve(ctx, opts)
	if errors.Is(context.Cause(ctx), errInterrupted) {
		return ExitInterrupted
	}
	if err != nil {
		fmt.Fprintf(st.Stderr, "starbench sim serve: %v\n", err)
		return ExitScriptError
	}
	return ExitOK
}
