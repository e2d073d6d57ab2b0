package report

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// figureCheck is appended to a copy of the report: after the page has
// loaded it writes, into the DOM, how many images decoded with a size.
const figureCheck = `<script>
window.addEventListener("load", function () {
  var imgs = document.querySelectorAll("img"), ok = 0, bad = [];
  imgs.forEach(function (img) {
    if (img.complete && img.naturalWidth > 0) { ok++; } else { bad.push(img.alt); }
  });
  var out = document.createElement("pre");
  out.id = "figure-check";
  out.textContent = "figures " + ok + "/" + imgs.length + " rendered; broken: [" + bad.join(", ") + "]";
  document.body.appendChild(out);
});
</script>
</body>`

// chromium returns the browser to test with: $CHROMIUM, else chromium on the
// PATH. Without one the test skips, unless CI is set: there it must run.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
		t.Fatal("chromium is not installed and CI is set: ./test.sh installs it (apt-get install -y chromium)")
	}
	t.Skip("chromium is not installed: run ./test.sh (it installs Debian's chromium) or set CHROMIUM to a browser binary")
	return ""
}

// headless runs the browser on a local file with the flags that keep it off
// the network and out of the user's profile, and returns its stdout.
func headless(t *testing.T, browser, page string, extra ...string) string {
	t.Helper()
	// A bound on a hung browser, not a speed assertion.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--virtual-time-budget=5000"}, extra...)
	cmd := exec.CommandContext(ctx, browser, append(args, "file://"+page)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, stderr.String())
	}
	return stdout.String()
}

// checkFigures loads a copy of the HTML page with figureCheck and returns
// what it wrote into the DOM.
func checkFigures(t *testing.T, browser, page string) string {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(t.TempDir(), "probe.html")
	if err := os.WriteFile(probe, bytes.Replace(b, []byte("</body>"), []byte(figureCheck), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := headless(t, browser, probe, "--dump-dom")
	m := regexp.MustCompile(`<pre id="figure-check">([^<]*)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the figure check wrote nothing into the DOM; dumped DOM starts:\n%.2000s", dom)
	}
	return m[1]
}

func TestReportRendersInChromium(t *testing.T) {
	browser := chromium(t)
	dir := t.TempDir()
	db := writeStore(t, dir, true)
	fig := filepath.Join(dir, "figures", "cost-of-compression.png")
	saveFigure(t, fig)
	files, err := Write(context.Background(), db, dir, "report", []string{fig})
	if err != nil {
		t.Fatal(err)
	}
	if got := checkFigures(t, browser, files.HTML); got != "figures 2/2 rendered; broken: []" {
		t.Errorf("figures in chromium: %s; want both figures rendered", got)
	}

	// The check can fail: a page with an undecodable image is caught.
	broken := filepath.Join(dir, "broken.html")
	os.WriteFile(broken, []byte(`<!DOCTYPE html><html><body><img alt="bad" src="data:image/png;base64,AAAA"></body></html>`), 0o644)
	if got := checkFigures(t, browser, broken); got != "figures 0/1 rendered; broken: [bad]" {
		t.Errorf("broken page: %s; want the broken image reported", got)
	}

	shot := screenshotPath(t)
	headless(t, browser, files.HTML, "--screenshot="+shot, "--window-size=1200,2600", "--hide-scrollbars")
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	if colours := distinctColours(img, 64); colours < 16 {
		t.Errorf("screenshot %s has %d distinct colours; a rendered report has text, banner and charts", shot, colours)
	}
	t.Logf("screenshot for review: %s", shot)
}

// screenshotPath is where the screenshot goes: $STARBENCH_SCREENSHOTS to
// keep it for review, else a temporary directory (tests write nothing into
// the source tree).
func screenshotPath(t *testing.T) string {
	dir := os.Getenv("STARBENCH_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(filepath.Join(dir, "report.png"))
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// distinctColours counts the colours of img, sampled on a grid, up to limit.
func distinctColours(img image.Image, limit int) int {
	seen := map[[3]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
			if len(seen) >= limit {
				return len(seen)
			}
		}
	}
	return len(seen)
}
