package sim

import (
	"context"
	"testing"

	"github.com/vmware/govmomi/session"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/soap"

	"starbench/internal/testbed"
)

// startAndLogin starts a simulator of p and logs a plain govmomi client in.
func startAndLogin(t testing.TB, p *testbed.Profile) (*Sim, *vim25.Client) {
	t.Helper()
	s, err := Start(Options{Testbed: p})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ctx := context.Background()
	u := *s.URL
	sc := soap.NewClient(&u, true)
	c, err := vim25.NewClient(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	if err := session.NewManager(c).Login(ctx, s.Userinfo()); err != nil {
		t.Fatal(err)
	}
	return s, c
}
