package cli

import (
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"starbench/internal/gatetest"
)

// gatedScript runs 2 cells x 1 workload x 2 repeats; each run waits at the
// test's gate, so the test scrapes while a run is in flight.
const gatedScript = `
gate = args.get("gate", "")
n = [0]
def measure():
    n[0] += 1
    frame.read_csv("%s/%d" % (gate, n[0]))
    return [{"direction": "read", "iops": 1000.0 * n[0], "mbps": 4.0, "lat_mean_us": 120.0, "p99_us": 480.0},
            {"direction": "write", "iops": 10.0, "mbps": 0.04, "lat_mean_us": 300.0}]
c = campaign.new("live", factors = [campaign.factor("a", ["x", "y"], apply = lambda v: "x")],
    workloads = [campaign.workload("w", measure)], repeat = 2)
c.run()
`

// freeAddr returns a loopback address with a port nothing listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func scrape(t *testing.T, addr string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("scrape: %d %v", resp.StatusCode, err)
	}
	return string(b)
}

func hasLines(t *testing.T, when, text string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !regexp.MustCompile(`(?m)^` + l + `$`).MatchString(text) {
			t.Errorf("%s: no line matching %q in:\n%s", when, l, text)
		}
	}
}

// TestMetricsListenServesTheRunningCampaign scrapes /metrics on loopback
// while runs are held in flight: the planned and stored runs, the run in
// flight and the last stored run's figures, in Prometheus' text format.
func TestMetricsListenServesTheRunningCampaign(t *testing.T) {
	g := gatetest.New(t, 4)
	addr := freeAddr(t)
	script := writeScript(t, "live.star", gatedScript)
	done := make(chan result, 1)
	go func() {
		done <- runCLI(t, "", nil, "run", script, "--out", t.TempDir(), "--set", "gate="+g.Dir, "--metrics-listen", addr)
	}()
	var finished *result
	gone := func() bool {
		select {
		case r := <-done:
			finished = &r
			return true
		default:
			return finished != nil
		}
	}
	why := func() string { return finished.stderr }
	first := g.Reach(t, gone, why)
	text := scrape(t, addr)
	hasLines(t, "first run in flight", text,
		`starbench_campaign_info\{campaign="live",simulated="true"\} 1`,
		`starbench_campaign_runs\{campaign="live"\} 4`,
		`starbench_campaign_runs_stored\{campaign="live"\} 0`,
		`starbench_campaign_runs_failed_total\{campaign="live"\} 0`,
		`starbench_run_active\{campaign="live",cell="a=x",repeat="1",workload="w"\} 1`,
		`# TYPE starbench_campaign_runs gauge`)
	gatetest.Open(t, first)
	second := g.Reach(t, gone, why)
	text = scrape(t, addr)
	hasLines(t, "second run in flight", text,
		`starbench_campaign_runs_stored\{campaign="live"\} 1`,
		`starbench_run_active\{campaign="live",cell="a=x",repeat="2",workload="w"\} 1`,
		`starbench_last_run_iops\{campaign="live",cell="a=x",direction="read",workload="w"\} 1000`,
		`starbench_last_run_clat_p99_microseconds\{campaign="live",cell="a=x",direction="read",workload="w"\} 480`,
		`starbench_last_run_mbps\{campaign="live",cell="a=x",direction="write",workload="w"\} 0.04`)
	if strings.Contains(text, `repeat="1"`) {
		t.Errorf("the finished run is still shown in flight:\n%s", text)
	}
	if strings.Contains(text, `starbench_last_run_clat_p99_microseconds{campaign="live",cell="a=x",direction="write"`) {
		t.Errorf("a p99 the run did not measure is exported:\n%s", text)
	}
	gatetest.Open(t, second)
	g.Release(t, 2, gone, why)
	var r result
	if finished != nil {
		r = *finished
	} else {
		r = <-done
	}
	expect(t, r, ExitOK, "", `metrics: http://127\.0\.0\.1:\d+/metrics`)
	if _, err := http.Get("http://" + addr + "/metrics"); err == nil {
		t.Error("the metrics server still answers after the run ended")
	}
}

func TestMetricsListenRefusesABadAddress(t *testing.T) {
	expect(t, runCLI(t, "", nil, "run", writeScript(t, "x.star", "pass\n"), "--metrics-listen", "nowhere:-1"), ExitUsage, "^$", "--metrics-listen nowhere:-1")
}
