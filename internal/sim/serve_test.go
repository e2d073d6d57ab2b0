package sim_test

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"starbench/internal/sim"
	"starbench/internal/vsphere"
)

// TestServeOverHTTPS starts `sim serve` on loopback and drives it with a
// govmomi client configured only from what it printed, certificate verified.
func TestServeOverHTTPS(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- sim.Serve(ctx, sim.ServeOptions{Testbed: "wwt-r640-osa", Listen: "127.0.0.1:0", Stdout: w})
		w.Close()
	}()

	env := map[string]string{}
	lines := bufio.NewScanner(r)
	for len(env) < 4 && lines.Scan() {
		for _, field := range strings.Fields(strings.TrimPrefix(lines.Text(), "export ")) {
			if k, v, ok := strings.Cut(field, "="); ok && strings.HasPrefix(k, "GOVC_") {
				env[k] = v
			}
		}
	}
	go io.Copy(io.Discard, r)
	for _, k := range []string{"GOVC_URL", "GOVC_USERNAME", "GOVC_PASSWORD", "GOVC_TLS_CA_CERTS"} {
		if env[k] == "" {
			t.Fatalf("sim serve printed no %s (got %v)", k, env)
		}
	}
	if _, insecure := env["GOVC_INSECURE"]; insecure {
		t.Errorf("sim serve asks clients to turn verification off")
	}

	opts, err := vsphere.OptionsFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	cctx, ccancel := context.WithTimeout(ctx, time.Minute)
	defer ccancel()
	c, err := vsphere.Connect(cctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	inv, err := c.Inventory(cctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Hosts) != 24 || inv.Hosts[0].CPUModel != "Intel Xeon Gold 6240" {
		t.Errorf("served inventory: %d hosts, first %+v", len(inv.Hosts), inv.Hosts[0])
	}
	ws, err := c.DeployWorkers(cctx, vsphere.WorkerSpec{Prefix: "served", Count: 2, CPUs: 2, MemoryMB: 2048, Disks: 1, DiskSizeGB: 1})
	if err != nil || len(ws) != 2 {
		t.Fatalf("deploy through sim serve: %v, %v", ws, err)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve returned %v after cancel", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not stop after its context was cancelled")
	}
}
