package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"starbench/builtins"
	"starbench/internal/ledger"
	"starbench/internal/vsphere"
	"starbench/internal/worker"
)

func workerCmd(st *State, args []string) int {
	fs := newFlagSet("worker")
	var template string
	var workers []string
	var trial bool
	var port int
	fs.StringVar(&template, "template", "", "the template to check (default "+vsphere.DefaultTemplate+" when no --worker is given)")
	fs.StringArrayVar(&workers, "worker", nil, "a running worker VM to check (repeatable)")
	fs.BoolVar(&trial, "trial", false, "also deploy one worker from the template, check it running, and remove it")
	fs.IntVar(&port, "port", worker.ServerPort, "the port of the workers' fio server")
	pos, code, done := parseFlags(st, "worker", fs, args)
	if done {
		return code
	}
	if len(pos) != 1 || pos[0] != "check" {
		return reportUsage(st, usagef("worker", "want 'worker check', got 'worker %v'", pos))
	}
	if template == "" && (len(workers) == 0 || trial) {
		template = vsphere.DefaultTemplate
	}
	opts, err := vsphere.OptionsFromEnv(func(k string) string { return st.Env[k] })
	if err == nil && opts.URL == "" {
		err = errors.New("GOVC_URL is not set: the check reads the template and workers from the vCenter")
	}
	if err != nil {
		return reportUsage(st, usagef("worker", "%v", err))
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	defer watchInterrupts(st, func(os.Signal) { cancel(errInterrupted) })()
	c, err := vsphere.Connect(ctx, opts)
	if err != nil {
		fmt.Fprintf(st.Stderr, "starbench worker check: %v\n", err)
		return ExitScriptError
	}
	defer c.Close()
	var findings []worker.Finding
	check := worker.Options{Port: port}
	if template != "" {
		findings = append(findings, worker.Template(ctx, c, template)...)
	}
	for _, name := range workers {
		w, err := c.WorkerNamed(ctx, name)
		if err != nil {
			findings = append(findings, worker.Finding{Subject: "worker " + name, Check: "exists", Detail: err.Error()})
			continue
		}
		findings = append(findings, worker.Running(ctx, w, check)...)
	}
	if trial && !worker.Failed(findings) {
		findings = append(findings, trialWorker(ctx, st, c, template, check)...)
	}
	for _, f := range findings {
		fmt.Fprintln(st.Stdout, f)
	}
	switch {
	case errors.Is(context.Cause(ctx), errInterrupted):
		return ExitInterrupted
	case worker.Failed(findings):
		fmt.Fprintln(st.Stderr, "starbench worker check: the image is not ready for a deployment (see docs/worker-image.md)")
		return ExitScriptError
	}
	return ExitOK
}

// trialWorker deploys one worker from template, checks it running and
// removes it again (from a ledger of its own, also when the check fails or
// is interrupted).
func trialWorker(ctx context.Context, st *State, c *vsphere.Client, template string, check worker.Options) []worker.Finding {
	l, _ := ledger.Open("")
	c.SetLedger(l)
	defer func() {
		cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Minute)
		defer cancel()
		if err := builtins.Undo(cleanup, l, c.Host(), c.Undoers(), st.Stderr); err != nil {
			fmt.Fprintf(st.Stderr, "starbench worker check: %v\n", err)
		}
	}()
	ws, err := c.DeployWorkers(ctx, vsphere.WorkerSpec{Prefix: "starbench-check", Count: 1, Template: template,
		CPUs: 2, MemoryMB: 2048, Disks: 2, DiskSizeGB: 1, IPTimeout: 10 * time.Minute})
	if err != nil {
		return []worker.Finding{{Subject: "trial worker from " + template, Check: "deploys", Detail: err.Error()}}
	}
	return worker.Running(ctx, ws[0], check)
}
