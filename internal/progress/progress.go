// Package progress shows a campaign's progress: on a terminal, a campaign
// bar (cells, runs, ETA) and a run bar redrawn in place; elsewhere, or when
// asked, one timestamped line per event, which logs and CI keep readable.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
)

// IsTerminal says whether w is an interactive terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// Bar reports a campaign's progress to one writer. Its methods are safe to
// call from several goroutines.
type Bar struct {
	mu  sync.Mutex
	w   io.Writer
	tty bool
	now func() time.Time
	// redrawEvery is how often the bars are redrawn between events (tty
	// mode) so the elapsed time moves; 0 redraws only on events.
	redrawEvery time.Duration
	drawn       bool // the two bar lines are on screen (tty mode)
	stop        chan struct{}

	name              string
	total, done       int // runs of the campaign, runs stored
	ran               int // runs done by this process
	spent             time.Duration
	estimate          time.Duration // per run, before any finished
	cell, cells       int
	run               string
	runStart          time.Time
	runEst            time.Duration
	status            string // the run's latest sample, e.g. "12.3k IOPS"
	lastStatusPrinted time.Time
}

// New returns a bar writing to w: bars redrawn in place when tty, lines otherwise.
func New(w io.Writer, tty bool) *Bar {
	return &Bar{w: w, tty: tty, now: time.Now, redrawEvery: 500 * time.Millisecond}
}

// Start begins a campaign of total runs of which done are already stored;
// perRun estimates one run until the first one finishes (0 = unknown).
func (b *Bar) Start(name string, total, done int, perRun time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.name, b.total, b.done, b.estimate = name, total, done, perRun
	if !b.tty {
		b.line("campaign %s: %d of %d runs stored, %d to run", name, done, total, total-done)
		return
	}
	if b.redrawEvery > 0 {
		b.stop = make(chan struct{})
		go b.tick(b.stop)
	}
	b.draw()
}

func (b *Bar) tick(stop chan struct{}) {
	t := time.NewTicker(b.redrawEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			b.mu.Lock()
			b.draw()
			b.mu.Unlock()
		}
	}
}

// AddRuns adds n runs the campaign decided on after Start (extra repeats of
// a result that varies too much).
func (b *Bar) AddRuns(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += n
	b.draw()
}

// Event reports something that happened (a setting changed, disks prepared).
func (b *Bar) Event(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.line(format, args...)
}

// RunStart reports that run (a label) of cell i of n begins; est is its
// estimated duration (0 = unknown).
func (b *Bar) RunStart(cell, cells int, run string, est time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cell, b.cells, b.run, b.runEst, b.runStart, b.status = cell, cells, run, est, b.now(), ""
	if !b.tty {
		b.line("run %d/%d start: cell %d/%d %s", b.done+1, b.total, cell, cells, run)
		return
	}
	b.draw()
}

// RunStatus reports a progress sample of the current run (e.g. "52.1k IOPS").
// In line mode samples are printed at most every 30 s.
func (b *Bar) RunStatus(status string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.status = status
	if b.tty {
		b.draw()
		return
	}
	if now := b.now(); now.Sub(b.lastStatusPrinted) >= 30*time.Second {
		b.lastStatusPrinted = now
		b.line("run %d/%d: %s", b.done+1, b.total, status)
	}
}

// RunEnd reports the end of the current run: "ok", or "failed: why".
func (b *Bar) RunEnd(outcome string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	d := b.now().Sub(b.runStart)
	b.done++
	b.ran++
	b.spent += d
	run := b.run
	b.run = ""
	eta := "" // the campaign bar shows it on a terminal
	if e := b.eta(); e > 0 && !b.tty {
		eta = "; ETA " + e.Round(time.Second).String()
	}
	b.line("run %d/%d %s (%s): %s%s", b.done, b.total, outcome, d.Round(100*time.Millisecond), run, eta)
}

// Stop ends the display; the last message stays on screen.
func (b *Bar) Stop(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stop != nil {
		close(b.stop)
		b.stop = nil
	}
	b.clear()
	b.tty = false
	b.line(format, args...)
}

// ETA estimates the time left: the mean duration of this process's runs (or
// the estimate before the first) times the runs left.
func (b *Bar) ETA() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.eta()
}

func (b *Bar) eta() time.Duration {
	per := b.estimate
	if b.ran > 0 {
		per = b.spent / time.Duration(b.ran)
	}
	return per * time.Duration(b.total-b.done)
}

// line prints one event: above the bars on a terminal, timestamped otherwise.
func (b *Bar) line(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !b.tty {
		fmt.Fprintf(b.w, "%s %s\n", b.now().Format("15:04:05"), msg)
		return
	}
	b.clear()
	fmt.Fprintln(b.w, msg)
	b.draw()
}

// clear erases the two bar lines.
func (b *Bar) clear() {
	if b.drawn {
		fmt.Fprint(b.w, "\r\x1b[2K\x1b[1A\x1b[2K")
		b.drawn = false
	}
}

const width = 30

func (b *Bar) draw() {
	if !b.tty || b.total == 0 {
		return
	}
	b.clear()
	eta := "ETA ?"
	switch e := b.eta(); {
	case b.done >= b.total:
		eta = "done"
	case e > 0:
		eta = "ETA " + e.Round(time.Second).String()
	}
	fmt.Fprintf(b.w, "%s %s %d/%d runs  cell %d/%d  %s\n", b.name, bar(float64(b.done)/float64(b.total)), b.done, b.total, b.cell, b.cells, eta)
	line := "waiting"
	if b.run != "" {
		el := b.now().Sub(b.runStart)
		frac := 0.0
		if b.runEst > 0 {
			frac = min(1, float64(el)/float64(b.runEst))
		}
		line = fmt.Sprintf("run %s %s %s", bar(frac), el.Round(time.Second), b.run)
		if b.status != "" {
			line += "  " + b.status
		}
	}
	fmt.Fprint(b.w, line)
	b.drawn = true
}

func bar(frac float64) string {
	n := int(min(1, max(0, frac)) * width)
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", width-n) + "]"
}
