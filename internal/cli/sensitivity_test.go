package cli

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// starbench sensitivity says what each simulated answer of a campaign
// rests on. fit_sweep.star on VxRail's hosts: the 1M runs are bound by the
// one active 25 GbE link, so they move with the share of line rate a
// link carries (a public figure) alone; 4K reads by the DOM's pool, so with its
// world count (an assumption) in proportion and its fitted cycles; the run
// a rate holds answers with its latency. Repeats are one answer; an
// uncalibrated testbed says so; --csv writes every run's elasticity to
// every parameter; bad flags say what to give.
func TestSensitivitySaysWhatEachAnswerRestsOn(t *testing.T) {
	inRepoRoot(t)
	path := filepath.Join(t.TempDir(), "elasticities.csv")
	r := runCLI(t, "", nil, "sensitivity", "scripts/fit_sweep.star", "--testbed", "vxrail-ve660-esa",
		"--set", "per_host=1", "--set", "repeat=2", "--set", "threads=16", "--set", "duration=10", "--csv", path)
	expect(t, r, ExitOK, `(?m)^testbed vxrail-ve660-esa \(simulated, starbench-model/2\): 24 runs, 12 distinct;`, `^sensitivity: running scripts/fit_sweep\.star(.|\n)*sensitivity: wrote .*elasticities\.csv`)
	for _, want := range []string{
		`(?m)^testbed vxrail-ve660-esa is uncalibrated`,
		`(?m)^dom_worlds_per_host +8 +assumption +4/12 +[+-]0\.\d\d +\+1\.00 `,
		`(?m)^nic_efficiency +1 +public figure `,
		`(?m)^  policy=raid1 threads=16 / 1m-seq-read: [\d,]+ I/Os a second; nic_efficiency \+(0\.9\d|1\.00) \(public figure\)$`,
		`(?m)^  policy=raid5 threads=16 / 4k-rand-read: [\d,]+ I/Os a second; dom_worlds_per_host \+(0\.9\d|1\.00) \(assumption\), dom_io_cycles -0\.\d\d \(fitted\)`,
		`(?m)^  policy=raid1 threads=16 / 4k-rand-read-held: [\d,]+ us mean latency; .*software_latency_us \+0\.\d\d \(assumption\)`,
		`(?m)^\d+ of 12 answers move most with an assumption \(.*dom_worlds_per_host 4\)`,
		`starbench split writes the testbed with other worlds`,
	} {
		if !regexp.MustCompile(want).MatchString(r.stdout) {
			t.Errorf("stdout does not match %q:\n%s", want, r.stdout)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if head := rows[0]; len(head) != 8 || head[0] != "testbed" || head[3] != "answer_value" || head[7] != "elasticity" {
		t.Errorf("CSV head %v", head)
	}
	params := 0
	latencies := 0
	for _, row := range rows[1:] {
		if row[1] == "policy=raid1 threads=16 / 1m-seq-read" {
			params++
		}
		if row[2] == "latency_us" && row[4] == "software_latency_us" {
			latencies++
		}
		if row[1] == "policy=raid5 threads=16 / 4k-rand-read" && row[4] == "dom_worlds_per_host" {
			if e, err := strconv.ParseFloat(row[7], 64); err != nil || e < 0.9 || e > 1.05 || row[6] != "assumption" {
				t.Errorf("4K reads' row for the DOM's worlds %v: want an assumption, elasticity about 1", row)
			}
		}
	}
	if params < 40 || len(rows)-1 != 12*params || latencies != 2 {
		t.Errorf("%d CSV rows, %d parameters a run, %d held runs' latency rows: want 12 runs x every parameter above 0, two held", len(rows)-1, params, latencies)
	}
	expect(t, runCLI(t, "", nil, "sensitivity", "scripts/quickstart.star", "--step", "100"), ExitUsage, "^$", `--step 100: want a percentage above 0 and below 100`)
	expect(t, runCLI(t, "", nil, "sensitivity", "scripts/quickstart.star", "--top", "0"), ExitUsage, "^$", `--top 0: want at least 1`)
	expect(t, runCLI(t, "", nil, "sensitivity"), ExitUsage, "^$", `starbench sensitivity: missing SCRIPT`)
	expect(t, runCLI(t, "", nil, "sensitivity", "scripts/quickstart.star", "--testbed", "nope"), ExitUsage, "^$", `starbench sensitivity: no testbed profile "nope"`)
	expect(t, runCLI(t, "", nil, "sensitivity", "scripts/hello.star"), ExitScriptError, "^$", `scripts/hello\.star ran no campaign`)
}
