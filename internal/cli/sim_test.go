package cli

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"starbench/internal/syncbuf"
)

// serveSim runs `starbench sim serve` on a free loopback port until the
// returned stop function interrupts it, and returns what it printed.
func serveSim(t *testing.T) (stdout string, stop func() (code int, stderr string)) {
	t.Helper()
	interrupts := make(chan os.Signal, 1)
	ready := make(chan struct{})
	out := &signalWriter{on: regexp.MustCompile(`GOVC_TLS_CA_CERTS=\S+\n`), fire: func() { close(ready) }}
	var stderr syncbuf.Buffer
	done := make(chan int)
	go func() {
		done <- Run(&State{Args: []string{"sim", "serve", "--listen", "127.0.0.1:0"}, Stdout: out, Stderr: &stderr, Interrupts: interrupts})
	}()
	select {
	case <-ready:
	case code := <-done:
		t.Fatalf("sim serve exited %d before serving: %s", code, stderr.String())
	}
	return out.String(), func() (int, string) {
		interrupts <- os.Interrupt
		return <-done, stderr.String()
	}
}

func TestSimServeServesUntilInterrupted(t *testing.T) {
	out, stop := serveSim(t)
	url := regexp.MustCompile(`export GOVC_URL=(\S+)`).FindStringSubmatch(out)
	ca := regexp.MustCompile(`GOVC_TLS_CA_CERTS=(\S+)`).FindStringSubmatch(out)
	if url == nil || ca == nil {
		t.Fatalf("no GOVC_URL / GOVC_TLS_CA_CERTS in:\n%s", out)
	}
	pem, err := os.ReadFile(ca[1])
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := client.Get(strings.TrimSuffix(url[1], "/sdk") + "/about")
	if err != nil {
		t.Fatalf("the served simulator does not verify with its CA: %v", err)
	}
	resp.Body.Close()

	if code, stderr := stop(); code != ExitInterrupted {
		t.Errorf("exit %d, want 130; stderr: %s", code, stderr)
	}
}

// TestScriptNamingATestbedDrivesTheVCenterItIsGiven: a campaign script that
// names its simulated testbed runs unchanged against a vCenter (here the
// simulator served over HTTPS, trusted through its CA file): the inventory
// is the vCenter's, not the testbed's.
func TestScriptNamingATestbedDrivesTheVCenterItIsGiven(t *testing.T) {
	out, stop := serveSim(t)
	defer stop()
	env := map[string]string{}
	for _, m := range regexp.MustCompile(`(GOVC_\w+)=(\S+)`).FindAllStringSubmatch(out, -1) {
		if !strings.HasPrefix(m[2], "<") {
			env[m[1]] = m[2]
		}
	}
	script := writeScript(t, "real.star", `
vsphere.connect(testbed = "wwt-r640-osa")  # 24 hosts when simulated
print("hosts:", len(vsphere.inventory().hosts))
`)
	r := runCLI(t, "", env, "run", script, "--out", t.TempDir())
	expect(t, r, ExitOK, ``, `(?s)testbed wwt-r640-osa stands for the simulated cluster.*hosts: 4\n`)
	if strings.Contains(r.stderr, env["GOVC_PASSWORD"]) {
		t.Errorf("the password reached the output:\n%s", r.stderr)
	}
}

// TestPlanOnAVCenterSimulatesTheNamedTestbed: a --plan dry run of a script
// that names its testbed plans on that testbed, not on the default one.
func TestPlanOnAVCenterSimulatesTheNamedTestbed(t *testing.T) {
	script := writeScript(t, "plan.star", `
vsphere.connect(testbed = "wwt-r640-osa")
print("hosts:", len(vsphere.inventory().hosts))
`)
	env := map[string]string{"GOVC_URL": "https://127.0.0.1:1/sdk", "GOVC_USERNAME": "u", "GOVC_PASSWORD": "p"}
	r := runCLI(t, "", env, "run", script, "--plan", "--out", t.TempDir())
	expect(t, r, ExitOK, ``, `hosts: 24\n`)
}
