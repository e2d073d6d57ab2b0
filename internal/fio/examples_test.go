package fio

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// exampleVars are the variables fio's examples expect from the environment,
// as a user would set them (fio.jobfile's vars).
var exampleVars = map[string]string{
	"POOL": "tank", "CONT": "bench", "FIO_BS": "4k", "FIO_RW": "randread", "FIO_IODEPTH": "16", "FIO_DIR": "/mnt/gpu",
	"GPU_DEV_IDS": "0", "S3_ID": "id", "S3_KEY": "key", "SSE_KEY": "sse", "STORAGE_CLASS": "STANDARD", "SWIFT_id": "token",
	"unixsocket": "/tmp/nbd.sock", "uri": "nbd://localhost",
}

// refusedExamples are the examples starbench refuses, with why: an option
// only fio builds with CUDA have (the fio the option list comes from has
// none, and neither would the workers').
var refusedExamples = map[string]string{
	"gpudirect-rdmaio-client.fio": `gpudirect-rdmaio-client.fio:8: unknown option "gpu_dev_id"`,
	"gpudirect-rdmaio-server.fio": `gpudirect-rdmaio-server.fio:6: unknown option "gpu_dev_id"`,
}

// TestFioExamples loads fio 3.33's own examples/ (testdata/fio-examples):
// at least 95 % become workloads, the others are refused for the reason
// listed above. fio itself then parses (fio --parse-only) the job file a
// two-disk worker would run for each example whose engines this fio has;
// one that fio rejects must be one whose original fio rejects too.
func TestFioExamples(t *testing.T) {
	paths, err := filepath.Glob("testdata/fio-examples/*.fio")
	if err != nil || len(paths) < 80 {
		t.Fatalf("%d example files (%v)", len(paths), err)
	}
	dir := t.TempDir()
	var originals, rendered []string
	loaded := 0
	for _, p := range paths {
		name := filepath.Base(p)
		wl, err := LoadWorkload(p, LoadOptions{Vars: exampleVars, Env: noEnv})
		if want, refused := refusedExamples[name]; refused {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: got %v, want it refused with %q", name, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		loaded++
		w := Worker{Name: "w"}
		for i := range max(2, len(wl.Files())) {
			w.Disks = append(w.Disks, Disk{Name: fmt.Sprintf("disk%d", i+1), Path: fmt.Sprintf("/dev/sd%c", 'b'+i), SizeBytes: 1 << 30})
		}
		text, _, err := wl.WorkerFile(w)
		if err != nil {
			t.Errorf("%s: worker file: %v", name, err)
			continue
		}
		if engineHere(wl) {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			originals, rendered = append(originals, p), append(rendered, path)
		}
	}
	pct := 100 * float64(loaded) / float64(len(paths))
	t.Logf("%d of %d fio examples load (%.1f %%); fio parses the worker files of %d", loaded, len(paths), pct, len(rendered))
	if pct < 95 {
		t.Errorf("only %.1f %% of fio's examples load, want at least 95 %%", pct)
	}
	if _, err := exec.LookPath("fio"); err != nil {
		return
	}
	for _, r := range rejected(rendered) {
		if fioAcceptsAll(originals[slices.Index(rendered, r)]) {
			text, _ := os.ReadFile(r)
			t.Errorf("%s: fio accepts the example but not the worker file starbench renders of it:\n%s", filepath.Base(r), text)
		}
	}
}

// rejected returns the job files fio does not parse, halving the batch
// until each culprit is alone (one fio per file would take seconds).
func rejected(paths []string) []string {
	if len(paths) == 0 || fioAcceptsAll(paths...) {
		return nil
	}
	if len(paths) == 1 {
		return paths
	}
	return append(rejected(paths[:len(paths)/2]), rejected(paths[len(paths)/2:])...)
}

// engineHere says whether this machine's fio has every engine the
// workload's jobs use.
func engineHere(wl *Workload) bool {
	for _, j := range wl.Jobs {
		if j.IOEngine != "" && !slices.Contains(localEngines(), j.IOEngine) {
			return false
		}
	}
	return true
}

var localEngines = sync.OnceValue(func() []string {
	out, _ := exec.Command("fio", "--enghelp").Output()
	return strings.Fields(string(out))
})

// fioAcceptsAll runs fio --parse-only on job files with the examples'
// variables in the environment.
func fioAcceptsAll(paths ...string) bool {
	cmd := exec.Command("fio", append([]string{"--parse-only"}, paths...)...)
	cmd.Env = os.Environ()
	for k, v := range exampleVars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd.Run() == nil
}
