package vsphere

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vmware/govmomi/session"

	"starbench/internal/sim"
)

func simOptions(s *sim.Sim) Options {
	pass, _ := s.Userinfo().Password()
	return Options{URL: s.URL.String(), Username: s.Userinfo().Username(), Password: pass, Retry: Retry{Attempts: 2, Backoff: time.Millisecond}}
}

func TestConnectVerifiesTLSUnlessAskedNotTo(t *testing.T) {
	s, _ := startSim(t, sim.Options{Testbed: testbedOf(3, "ESA")})
	ctx := context.Background()

	opts := simOptions(s)
	_, err := Connect(ctx, opts)
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("untrusted certificate: got %v, want a certificate error", err)
	}

	opts.Insecure = true
	c, err := Connect(ctx, opts)
	if err != nil {
		t.Fatalf("insecure: %v", err)
	}
	c.Close()

	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, s.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	opts = simOptions(s)
	opts.CACerts = ca
	c, err = Connect(ctx, opts)
	if err != nil {
		t.Fatalf("GOVC_TLS_CA_CERTS: %v", err)
	}
	c.Close()

	known := filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(known, []byte(s.URL.Host+" "+s.Thumbprint+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	opts = simOptions(s)
	opts.KnownHosts = known
	c, err = Connect(ctx, opts)
	if err != nil {
		t.Fatalf("GOVC_TLS_KNOWN_HOSTS: %v", err)
	}
	c.Close()
}

func TestPasswordNeverInErrors(t *testing.T) {
	s, _ := startSim(t, sim.Options{Testbed: testbedOf(3, "ESA")})
	ctx := context.Background()
	const secret = "Sup3r-S3cret!pw"
	for name, opts := range map[string]Options{
		"wrong password":  {URL: s.URL.String(), Username: sim.User, Password: secret, CAPEM: s.CertPEM},
		"in the URL":      {URL: "https://" + sim.User + ":" + secret + "@" + s.URL.Host + "/sdk", CAPEM: s.CertPEM},
		"untrusted":       {URL: s.URL.String(), Username: sim.User, Password: secret},
		"unreachable":     {URL: "https://127.0.0.1:1/sdk", Username: sim.User, Password: secret},
		"bad URL":         {URL: "https://u:" + secret + "@[::1/sdk", Password: secret},
		"bad URL in user": {URL: "https://u:" + secret + "%zz@host/sdk"},
	} {
		_, err := Connect(ctx, opts)
		if err == nil {
			t.Errorf("%s: connected", name)
			continue
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "S3cret") {
			t.Errorf("%s: error shows the password: %v", name, err)
		}
	}
}

func TestSessionIsReestablishedAfterItEnds(t *testing.T) {
	s, c := startSim(t, sim.Options{Testbed: testbedOf(3, "ESA")})
	ctx := context.Background()
	mine, err := session.NewManager(c.VIM()).UserSession(ctx)
	if err != nil || mine == nil {
		t.Fatalf("no session: %v", err)
	}
	opts := simOptions(s)
	opts.CAPEM = s.CertPEM
	admin, err := Connect(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if err := session.NewManager(admin.VIM()).TerminateSession(ctx, []string{mine.Key}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Inventory(ctx); err != nil {
		t.Fatalf("after the session was terminated: %v", err)
	}
	again, err := session.NewManager(c.VIM()).UserSession(ctx)
	if err != nil || again == nil || again.Key == mine.Key {
		t.Errorf("session after relogin: %+v, %v", again, err)
	}
}

func TestOptionsFromEnv(t *testing.T) {
	env := map[string]string{"GOVC_URL": "vc.example.com", "GOVC_USERNAME": "u", "GOVC_PASSWORD": "p", "GOVC_INSECURE": "1", "GOVC_DATACENTER": "dc"}
	opts, err := OptionsFromEnv(func(k string) string { return env[k] })
	if err != nil || !opts.Insecure || opts.URL != "vc.example.com" || opts.Datacenter != "dc" || opts.Password != "p" {
		t.Errorf("got %+v, %v", opts, err)
	}
	env["GOVC_INSECURE"] = "maybe"
	if _, err := OptionsFromEnv(func(k string) string { return env[k] }); err == nil || !strings.Contains(err.Error(), "want 1/true or 0/false") {
		t.Errorf("bad GOVC_INSECURE: %v", err)
	}
	if _, err := Connect(context.Background(), Options{}); err == nil || !strings.Contains(err.Error(), "set GOVC_URL") {
		t.Errorf("no URL: %v", err)
	}
}
