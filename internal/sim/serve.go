package sim

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"starbench/internal/testbed"
)

// ServeOptions configure Serve.
type ServeOptions struct {
	// Testbed names a shipped profile or a JSON file ("" = testbed.Default).
	Testbed string
	// Listen is host:port ("" = 127.0.0.1 on a free port).
	Listen string
	// Stdout receives the connection instructions.
	Stdout io.Writer
}

// Serve runs the simulated vCenter of a testbed until ctx is cancelled. It
// prints the GOVC_URL to use and writes the server's certificate to a file
// that clients trust with GOVC_TLS_CA_CERTS, so no client needs to turn
// certificate verification off.
func Serve(ctx context.Context, opts ServeOptions) error {
	name := opts.Testbed
	if name == "" {
		name = testbed.Default
	}
	p, err := testbed.Load(name)
	if err != nil {
		return err
	}
	s, err := Start(Options{Testbed: p, Listen: opts.Listen})
	if err != nil {
		return err
	}
	defer s.Close()

	dir, err := os.MkdirTemp("", "starbench-sim-")
	if err != nil {
		return fmt.Errorf("writing the simulator's certificate: %w", err)
	}
	defer os.RemoveAll(dir)
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, s.CertPEM, 0o644); err != nil {
		return fmt.Errorf("writing the simulator's certificate: %w", err)
	}

	out := opts.Stdout
	if out == nil {
		out = io.Discard
	}
	pass, _ := s.Userinfo().Password()
	fmt.Fprintf(out, "simulated vCenter of testbed %s (%d hosts, vSAN %s) at %s\n", p.Name, p.Hosts, p.Architecture, s.URL)
	fmt.Fprintf(out, "export GOVC_URL=%s\n", s.URL)
	fmt.Fprintf(out, "export GOVC_USERNAME=%s GOVC_PASSWORD=%s # this simulator's own, made up at start\n", s.Userinfo().Username(), pass)
	fmt.Fprintf(out, "export GOVC_TLS_CA_CERTS=%s\n", caFile)
	fmt.Fprintf(out, "# or trust it by thumbprint: export GOVC_TLS_KNOWN_HOSTS=<file with the line \"%s %s\">\n", s.URL.Host, s.Thumbprint)
	fmt.Fprintf(out, "# the certificate is removed when the simulator stops; Ctrl-C to stop\n")
	<-ctx.Done()
	return nil
}
