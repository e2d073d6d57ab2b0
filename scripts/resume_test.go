package scripts_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResumeRefusesAChangedWorkload: a campaign run again with a workload
// or factor defined otherwise under the same name (a job's runtime changed
// with --set, a job a function runs, a function's body, a factor's apply)
// is refused before
// anything runs, saying what changed; the same definition, respaced,
// resumes, and so does a change of a plain value a function reads (a
// path, a flag); the same campaign simulated on another testbed is refused
// too; --fresh measures again.
func TestResumeRefusesAChangedWorkload(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "resume.star")
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const campaignText = `
ws = vsphere.deploy_workers("r", count = 2, disks = 1, disk_size = "10GiB")
job = fio.job(name = "oltp", rw = "randrw", rwmixread = 70, bs = "8k", iodepth = 8,
              runtime = args.get("runtime", 60), time_based = True, direct = True, ioengine = "libaio")
seq = fio.job(name = "seq", rw = "read", bs = args.get("bs", "1m"), runtime = 60, time_based = True)
scale = args.get("scale", 1)
c = campaign.new("resume", workers = ws,
    factors = [campaign.factor("compression", [False, True], apply = lambda v: cluster.configure(compression = v))],
    workloads = [campaign.workload("oltp", job), campaign.workload("fn", lambda: fio.run(ws, seq)),
                 campaign.workload("plain", lambda: {"iops": 100 * scale})])
c.run()
`
	write(campaignText)
	out := filepath.Join(dir, "out")
	run := func(args ...string) (int, string) {
		t.Helper()
		code, _, stderr := starbench(t, append([]string{"run", script, "--out", out, "--no-progress"}, args...)...)
		return code, stderr
	}
	if code, stderr := run(); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	// The same definitions, respaced: resumed, nothing to run.
	write(strings.Replace(campaignText, "lambda: {", "lambda:   {", 1))
	if code, stderr := run("--set", "scale=2"); code != 0 || !strings.Contains(stderr, "0 to run") {
		t.Fatalf("the same campaign again: exit %d, want a resume with nothing to run\n%s", code, stderr)
	}
	for _, tc := range []struct {
		set  []string
		from string // what the script's text changes, "" for nothing
		to   string
		want string
	}{
		{[]string{"--set", "runtime=30"}, "", "", `workload "oltp" is not what it was when its 2 stored runs were measured: it had runtime=60 where it now has runtime=30`},
		{[]string{"--set", "bs=4k"}, "", "", `workload "fn" is not what it was when its 2 stored runs were measured: it had bs=1m where it now has bs=4k`},
		{nil, "100 * scale", "200 * scale", `workload "plain" is not what it was when its 2 stored runs were measured: it had 100 where it now has 200`},
		{nil, "configure(compression = v)", "configure(compression = not v)",
			`factor "compression" is not what it was when its 6 stored runs were measured: it had v) where it now has not`},
	} {
		write(strings.Replace(campaignText, tc.from, tc.to, 1))
		code, stderr := run(tc.set...)
		if code != 1 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "--fresh") || !strings.Contains(stderr, "resume.star:11") {
			t.Errorf("%v %q: exit %d, want 1 and %q with --fresh and the script line:\n%s", tc.set, tc.to, code, tc.want, stderr)
		}
	}
	// The same campaign on another testbed's simulator: refused, both data
	// planes named.
	write(campaignText)
	want := "stored runs of cell compression=False were simulated by starbench-model/2 on testbed storagereview-r6625-esa (profile "
	if code, stderr := run("--testbed", "vxrail-ve660-esa"); code != 1 || !strings.Contains(stderr, want) ||
		!strings.Contains(stderr, "this session's would be by starbench-model/2 on testbed vxrail-ve660-esa (profile ") || !strings.Contains(stderr, "resume.star:11") {
		t.Errorf("another testbed: exit %d, want 1 and %q with the script line:\n%s", code, want, stderr)
	}
	if code, stderr := run("--set", "runtime=30", "--fresh"); code != 0 || !strings.Contains(stderr, "6 to run") {
		t.Fatalf("--fresh: exit %d, want the campaign measured again\n%s", code, stderr)
	}
}
