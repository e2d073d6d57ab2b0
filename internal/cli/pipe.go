package cli

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"

	"starbench/internal/progress"
)

// errBrokenPipe is the cause of a run stopped because whoever read its
// output went away (`starbench run x.star | head`).
var errBrokenPipe = fmt.Errorf("%w: standard output was closed (broken pipe)", errInterrupted)

// stopOnBrokenPipe wraps w so that the first write failing because its
// reader is gone (EPIPE) calls stop: the run then ends as if interrupted,
// its results stored, its session closed and its report written, instead
// of dying of SIGPIPE half-way (main turns SIGPIPE into EPIPE). A
// terminal is no pipe and stays as it is, so progress bars still see it.
func stopOnBrokenPipe(w io.Writer, stop func()) io.Writer {
	if w == nil || progress.IsTerminal(w) {
		return w
	}
	return &pipeGuard{w: w, stop: stop}
}

type pipeGuard struct {
	w    io.Writer
	once sync.Once
	stop func()
}

func (g *pipeGuard) Write(p []byte) (int, error) {
	n, err := g.w.Write(p)
	if errors.Is(err, syscall.EPIPE) {
		g.once.Do(g.stop)
	}
	return n, err
}
