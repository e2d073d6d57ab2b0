package fio

import (
	"context"
	"strings"
	"testing"
)

// TestCheckWithFioRefusesWhatFioFails: a workload that passes starbench's
// own checks but not fio's (steadystate without its threshold, replay_align
// not a power of 2) is refused with what fio said; one fio parses passes.
func TestCheckWithFioRefusesWhatFioFails(t *testing.T) {
	if !Installed() {
		t.Skip("fio-3.33 is not installed")
	}
	ctx := context.Background()
	for opt, want := range map[string]string{
		"steadystate=iops": "fio-3.33 fails parsing the job file, as it would on the workers: fio: steadystate threshold must be specified in addition to criterion; fio: failed parsing steadystate=iops",
		"replay_align=0":   "fio-3.33 fails parsing the job file, as it would on the workers: replay_align: must be a power-of-2; fio: failed parsing replay_align=0",
	} {
		wl := parseT(t, "[a]\nrw=randread\nbs=4k\n"+opt+"\n")
		if err := wl.Validate(); err != nil {
			t.Fatalf("%s: starbench's own checks refuse it (%v); the test wants one only fio refuses", opt, err)
		}
		for range 2 { // the second answer comes from the cache
			if err := wl.CheckWithFio(ctx); err == nil || err.Error() != want {
				t.Errorf("%s: %v, want %q", opt, err, want)
			}
		}
	}
	ok := parseT(t, "[a]\nrw=randread\nbs=4k\nsteadystate=iops:2%\nss_dur=30s\nreplay_align=4k\n")
	if err := ok.CheckWithFio(ctx); err != nil {
		t.Errorf("a workload fio parses: %v", err)
	}
	if !strings.Contains(ok.Text(), "steadystate=iops:2%") {
		t.Fatalf("the workload's text %q", ok.Text())
	}
}

// The runner asks fio before it starts a run on any worker.
func TestRunnerRefusesWhatFioFailsParsing(t *testing.T) {
	if !Installed() {
		t.Skip("fio-3.33 is not installed")
	}
	wl := parseT(t, "[a]\nrw=randread\nbs=4k\nruntime=10\nsteadystate=iops\n")
	_, err := (&Runner{}).Run(context.Background(), []Worker{{Name: "w1", Addr: "127.0.0.1:1"}}, wl, nil)
	if err == nil || !strings.Contains(err.Error(), "fio-3.33 fails parsing the job file") {
		t.Errorf("%v, want fio's refusal before the run", err)
	}
}
