package fio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// installedFio is the fio on PATH when it is the one starbench reads job
// files as (fioVersion); "" when there is none or another version.
var installedFio = sync.OnceValue(func() string {
	path, err := exec.LookPath("fio")
	if err != nil {
		return ""
	}
	out, err := exec.Command(path, "--version").Output()
	if err != nil || strings.TrimSpace(string(out)) != fioVersion {
		return ""
	}
	return path
})

// Installed says whether the fio on PATH is the one starbench reads job
// files as, so that CheckWithFio asks it.
func Installed() bool { return installedFio() != "" }

// parseOnlySaid caches fio --parse-only's verdict by job text: campaigns
// run the same workload many times.
var parseOnlySaid sync.Map // job text -> error (nil where fio parses it)

// CheckWithFio runs the installed fio's --parse-only on the workload's job
// file and returns fio's refusal, so that a workload fio fails on a real
// cluster's workers fails the same on every target, the simulator's
// included: fio's own rules beyond those starbench reads (steadystate
// without its threshold, replay_align a power of 2 ...). It is nil where
// fio parses the job file, and where fio-3.33 is not installed (starbench's
// own checks, Validate, still hold).
func (wl *Workload) CheckWithFio(ctx context.Context) error {
	fio := installedFio()
	if fio == "" {
		return nil
	}
	text := wl.Text()
	if said, ok := parseOnlySaid.Load(text); ok {
		err, _ := said.(error)
		return err
	}
	refusal, err := parseOnly(ctx, fio, text)
	if err != nil {
		return err // not fio's verdict (no scratch file, fio killed): not kept
	}
	parseOnlySaid.Store(text, refusal)
	return refusal
}

// quickClock goes before the job file parseOnly checks: with its default
// clock fio calibrates the CPU's for about 70 ms of its 190 on every start
// (perf: half of it in clock_gettime); a job's own clocksource still
// stands, and is still checked.
const quickClock = "[global]\nclocksource=gettimeofday\n"

// parseOnly runs fio --parse-only on text and returns fio's refusal (nil
// where it parses it), or err where fio gave no verdict.
func parseOnly(ctx context.Context, fio, text string) (refusal, err error) {
	dir, err := os.MkdirTemp("", "starbench-parse-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "workload.fio")
	if err := os.WriteFile(path, []byte(quickClock+text), 0o600); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, fio, "--parse-only", path)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return nil, nil
	case ctx.Err() != nil:
		return nil, fmt.Errorf("%s --parse-only: %w", fioVersion, ctx.Err())
	case !errors.As(err, &exit):
		return nil, fmt.Errorf("%s --parse-only: %w", fioVersion, err)
	}
	var said []string
	for _, l := range strings.Split(string(bytes.TrimSpace(out)), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "valid values") {
			break // the option's help follows
		}
		if l != "" && !(strings.HasPrefix(l, "fio: job ") && strings.HasSuffix(l, " dropped")) {
			said = append(said, l)
		}
	}
	return fmt.Errorf("%s fails parsing the job file, as it would on the workers: %s", fioVersion, strings.Join(said, "; ")), nil
}
