package progress

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// clock is a settable time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock                   { return &clock{t: time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)} }
func lines(s string) []string            { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }
func newBar(tty bool) (*Bar, *bytes.Buffer, *clock) {
	var b bytes.Buffer
	c := newClock()
	bar := New(&b, tty)
	// The test's clock moves by hand, and the buffer is read between calls:
	// no redraws of the bars between events.
	bar.now, bar.redrawEvery = c.now, 0
	return bar, &b, c
}

func TestLineModeOneLinePerEvent(t *testing.T) {
	bar, out, c := newBar(false)
	bar.Start("wwt", 4, 1, 10*time.Second)
	bar.Event("cell 1/2: compression -> True")
	bar.RunStart(1, 2, "compression=True / 4k #1", 10*time.Second)
	bar.RunStatus("52.1k IOPS")
	c.advance(10 * time.Second)
	bar.RunStatus("53.0k IOPS") // within 30 s of the last sample: not printed
	bar.RunEnd("ok")
	bar.Stop("campaign wwt: done")
	got := lines(out.String())
	want := []string{
		"15:00:00 campaign wwt: 1 of 4 runs stored, 3 to run",
		"15:00:00 cell 1/2: compression -> True",
		"15:00:00 run 2/4 start: cell 1/2 compression=True / 4k #1",
		"15:00:00 run 2/4: 52.1k IOPS",
		"15:00:10 run 2/4 ok (10s): compression=True / 4k #1; ETA 20s",
		"15:00:10 campaign wwt: done",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if strings.Contains(out.String(), "\x1b") || strings.Contains(out.String(), "\r") {
		t.Fatal("line mode wrote terminal control sequences")
	}
}

func TestETAFromMeasuredRuns(t *testing.T) {
	bar, _, c := newBar(false)
	bar.Start("wwt", 10, 0, 60*time.Second)
	if got := bar.ETA(); got != 600*time.Second {
		t.Fatalf("ETA before any run = %v, want 10 x the 60 s estimate", got)
	}
	for range 2 {
		bar.RunStart(1, 1, "r", 0)
		c.advance(30 * time.Second)
		bar.RunEnd("ok")
	}
	if got := bar.ETA(); got != 8*30*time.Second {
		t.Fatalf("ETA after two 30 s runs = %v, want 8 x 30 s", got)
	}
}

func TestTerminalModeRedrawsTwoBars(t *testing.T) {
	bar, out, c := newBar(true)
	bar.Start("wwt", 4, 2, 0)
	bar.RunStart(3, 4, "uplink=25g / 4k #1", 20*time.Second)
	c.advance(10 * time.Second)
	bar.RunStatus("12k IOPS")
	s := out.String()
	for _, want := range []string{
		"wwt [###############...............] 2/4 runs  cell 3/4  ETA ?",
		"run [###############...............] 10s uplink=25g / 4k #1  12k IOPS",
		"\r\x1b[2K\x1b[1A\x1b[2K", // the previous bars erased before a redraw
	} {
		if !strings.Contains(s, want) {
			t.Errorf("terminal output lacks %q:\n%q", want, s)
		}
	}
	out.Reset()
	bar.Event("restored compression")
	if !strings.HasPrefix(out.String(), "\r\x1b[2K\x1b[1A\x1b[2Krestored compression\n") {
		t.Errorf("an event is not printed above the bars: %q", out.String())
	}
	out.Reset()
	bar.Stop("done")
	if got := out.String(); got != "\r\x1b[2K\x1b[1A\x1b[2K15:00:10 done\n" {
		t.Errorf("stop wrote %q", got)
	}
}

// TestRunsAddedAfterStart: extra repeats decided during the campaign count
// in its total; a bar past its total (more runs than announced) is drawn
// full instead of panicking.
func TestRunsAddedAfterStart(t *testing.T) {
	bar, out, _ := newBar(false)
	bar.Start("wwt", 1, 0, 0)
	bar.RunStart(1, 1, "a", 0)
	bar.RunEnd("ok")
	bar.AddRuns(1)
	bar.RunStart(1, 1, "a #2", 0)
	bar.RunEnd("ok")
	if !strings.Contains(out.String(), "run 2/2 ok") {
		t.Errorf("the added run is not counted:\n%s", out)
	}
	tty, out, _ := newBar(true)
	tty.Start("wwt", 1, 0, 0)
	defer tty.Stop("done")
	for range 2 {
		tty.RunStart(1, 1, "a", 0)
		tty.RunEnd("ok")
	}
	tty.RunStart(1, 1, "a", 0) // 2 of 1 done: drawn, not a panic
	if !strings.Contains(out.String(), "[##############################] 2/1 runs") {
		t.Errorf("a bar past its total is not drawn full:\n%q", out)
	}
}

func TestIsTerminal(t *testing.T) {
	if IsTerminal(&bytes.Buffer{}) {
		t.Fatal("a buffer is a terminal")
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Fatal("a regular file is a terminal")
	}
}
