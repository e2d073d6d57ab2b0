package vsphere

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

type roundTripFunc func(ctx context.Context, req, res soap.HasFault) error

func (f roundTripFunc) RoundTrip(ctx context.Context, req, res soap.HasFault) error {
	return f(ctx, req, res)
}

// TestCallsThatFindTheSessionGoneLogInOnce: calls in flight when the session
// ends all fail, and one login serves them all (each extra login would
// leave a session on vCenter until it expires).
func TestCallsThatFindTheSessionGoneLogInOnce(t *testing.T) {
	const calls = 8
	var logins atomic.Int32
	var failed sync.WaitGroup
	failed.Add(calls)
	rt := roundTripFunc(func(context.Context, soap.HasFault, soap.HasFault) error {
		if logins.Load() == 0 {
			failed.Done()
			failed.Wait() // every call fails before any logs in again
			return soap.WrapVimFault(&types.NotAuthenticated{})
		}
		return nil
	})
	auth := &reauth{login: func(context.Context) error { logins.Add(1); return nil }}
	vim, pbm := &relogin{rt: rt, auth: auth}, &relogin{rt: rt, auth: auth}
	var wg sync.WaitGroup
	for i := range calls {
		r := vim
		if i%2 == 1 {
			r = pbm
		}
		wg.Go(func() {
			if err := r.RoundTrip(context.Background(), &methods.RetrievePropertiesExBody{}, &methods.RetrievePropertiesExBody{}); err != nil {
				t.Errorf("call after the session ended: %v", err)
			}
		})
	}
	wg.Wait()
	if n := logins.Load(); n != 1 {
		t.Errorf("%d logins for %d calls that found the session gone, want 1", n, calls)
	}
}
