package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"starbench/internal/store"
)

// emptyStore writes a campaign store with no runs yet and returns its path.
func emptyStore(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "campaign.db")
	s, err := store.Open(context.Background(), path, "campaign", store.Options{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	return path
}

func TestReportWritesHTMLAndMarkdownWithTheScriptsFigures(t *testing.T) {
	db, out := emptyStore(t), t.TempDir()
	// The figures script saves an image; the report embeds it.
	fig := writeScript(t, "fig.star", `plot.bars(frame.from_rows([{"x": "a", "y": 1.0}]), x = "x", y = "y", save = "bars.png", size = "6x4cm", dpi = 72)`+"\n")
	expect(t, runCLI(t, "", nil, "report", fig, "--from", db, "--out", out), ExitOK, "^$", `report: .*report\.html`)
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"SIMULATED", `<img src="data:image/png;base64,`, "(bars.png)"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "report.md")); err != nil {
		t.Error(err)
	}
}

func TestReportRefusesAFileThatIsNoStore(t *testing.T) {
	junk := writeScript(t, "junk.db", "")
	fig := writeScript(t, "fig.star", "pass\n")
	expect(t, runCLI(t, "", nil, "report", fig, "--from", junk, "--out", t.TempDir()), ExitScriptError, "^$", `writing the report of .*junk\.db: .*not a campaign store`)
}

func TestRunWritesNoReportWithoutAStore(t *testing.T) {
	out := t.TempDir()
	path := writeScript(t, "plain.star", "print('hi')\n")
	expect(t, runCLI(t, "", nil, "run", path, "--out", out), ExitOK, "^$", "^hi\n$")
	if _, err := os.Stat(filepath.Join(out, "report.html")); !os.IsNotExist(err) {
		t.Errorf("a script without a campaign got a report (stat: %v)", err)
	}
}

func TestRunWritesAReportPerCampaign(t *testing.T) {
	out := t.TempDir()
	path := writeScript(t, "two.star", `
def one(name):
    c = campaign.new(name, factors = [campaign.factor("a", [1, 2], apply = lambda v: 1)],
                     workloads = [campaign.workload("w", lambda: {"iops": 100.0})])
    c.run()
one("first")
one("second")
`)
	expect(t, runCLI(t, "", nil, "run", path, "--out", out, "--no-progress"), ExitOK, "^$", `report: .*first-report\.html.*\n.*report: .*second-report\.html`)
	for _, name := range []string{"first-report.html", "first-report.md", "second-report.html", "second-report.md"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Error(err)
		}
	}
	if html, _ := os.ReadFile(filepath.Join(out, "second-report.html")); !strings.Contains(string(html), "<h1>second</h1>") {
		t.Error("second-report.html is not the second campaign's report")
	}
}

// TestRunReportsOnlyTheStoresItWrote: an older store in the output folder
// (it could hold measured runs) gets no report of this run's figures.
func TestRunReportsOnlyTheStoresItWrote(t *testing.T) {
	out := t.TempDir()
	script := func(name string) string {
		return writeScript(t, name+".star", `
c = campaign.new("`+name+`", factors = [campaign.factor("a", [1], apply = lambda v: 1)],
                 workloads = [campaign.workload("w", lambda: {"iops": 100.0})])
c.run()
`)
	}
	expect(t, runCLI(t, "", nil, "run", script("older"), "--out", out, "--no-progress"), ExitOK, "^$", `report: .*report\.html`)
	r := runCLI(t, "", nil, "run", script("newer"), "--out", out, "--no-progress")
	expect(t, r, ExitOK, "^$", `report: \S+/report\.html`)
	if strings.Contains(r.stderr, "older") {
		t.Errorf("the second run reported on the older store:\n%s", r.stderr)
	}
	if html, _ := os.ReadFile(filepath.Join(out, "report.html")); !strings.Contains(string(html), "<h1>newer</h1>") {
		t.Error("report.html is not the newer campaign's report")
	}
}
