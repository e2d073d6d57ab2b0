// Command starbench runs HCI benchmark campaigns on VMware vSAN written as
// Starlark scripts. All the work is in internal/cli.
package main

import (
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/chzyer/readline"

	"starbench/internal/cli"
)

func main() {
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt, syscall.SIGTERM)
	// A closed standard output (`starbench run x.star | head`) must not
	// kill the process half-way: with SIGPIPE caught (and dropped), the
	// write fails with EPIPE and the run ends cleanly (internal/cli).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	configDir, _ := os.UserConfigDir()
	os.Exit(cli.Run(&cli.State{
		Args:       os.Args[1:],
		Env:        env,
		Stdin:      os.Stdin,
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
		Terminal:   readline.DefaultIsTerminal(),
		Interrupts: interrupts,
		ConfigDir:  configDir,
	}))
}
