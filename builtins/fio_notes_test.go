package builtins

import (
	"context"
	"strings"
	"testing"
)

// A fio.run outside a campaign says what the data plane noted of it (here
// an fio option the model does not model), each note once a session, and
// the frame keeps them all (f.notes; frames made from it have none); inside
// a campaign the run's notes go with the run to the store and its report,
// not to the console.
func TestRunSaysItsNotesOnceOutsideACampaign(t *testing.T) {
	s, _ := newTestSession(t, context.Background())
	var printed []string
	err := execStarPrinting(t, s, "notes.star", `
ws = vsphere.deploy_workers("n", per_host = 1, disks = 1, disk_size = "1GiB")
job = fio.job(rw = "randread", bs = "4k", ioengine = "libaio", direct = True, iodepth = 4, runtime = "60s", options = {"nrfiles": "2"})
f = fio.run(ws, job)
assert.contains(f.notes, "fio option nrfiles=2 is not modelled: ignored")
assert.eq(f.head().notes, [])
fio.run(ws, job)
c = campaign.new("quiet", factors = [campaign.factor("a", ["x"], apply = lambda v: "x")],
    workloads = [campaign.workload("w", lambda: fio.run(ws, job.replace(options = {"nrfiles": "3"})), duration = 60)])
c.run()
`, func(msg string) { printed = append(printed, msg) })
	if err != nil {
		t.Fatal(backtrace(err))
	}
	all := strings.Join(printed, "\n")
	if n := strings.Count(all, "fio.run: note: fio option nrfiles=2 is not modelled: ignored"); n != 1 {
		t.Errorf("the note of an unmodelled option printed %d times over two runs, want once:\n%s", n, all)
	}
	if strings.Contains(all, "nrfiles=3") {
		t.Errorf("a campaign's run printed its notes:\n%s", all)
	}
}
