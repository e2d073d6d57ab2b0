package vsphere

import (
	"context"
	"reflect"
	"sync"

	"github.com/vmware/govmomi/fault"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// relogin is a soap.RoundTripper that logs in again when vCenter says the
// session is gone (expired, or terminated by an administrator) and repeats
// the call once.
type relogin struct {
	rt   soap.RoundTripper
	auth *reauth
}

func (r *relogin) RoundTrip(ctx context.Context, req, res soap.HasFault) error {
	seen := r.auth.generation()
	err := r.rt.RoundTrip(ctx, req, res)
	if !(fault.Is(err, &types.NotAuthenticated{}) || (err == nil && missingSession(res))) {
		return err
	}
	switch req.(type) {
	case *methods.LoginBody, *methods.LogoutBody:
		return err
	}
	if lerr := r.auth.renew(ctx, seen); lerr != nil {
		return err
	}
	reset(res)
	return r.rt.RoundTrip(ctx, req, res)
}

// reauth logs a client in again for all its endpoints (vim25, SPBM, vSAN):
// the calls that find the session gone at the same time log in once between
// them, not once each (every extra login would leave a session behind).
type reauth struct {
	login func(context.Context) error

	mu  sync.Mutex
	gen uint64 // logins since the first
}

func (a *reauth) generation() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.gen
}

// renew logs in again unless another call has done so since generation seen.
func (a *reauth) renew(ctx context.Context, seen uint64) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.gen != seen {
		return nil
	}
	if err := a.login(ctx); err != nil {
		return err
	}
	a.gen++
	return nil
}

// missingSession says whether a property retrieval came back with every
// property missing for want of a session, as it does once a session ends.
func missingSession(res soap.HasFault) bool {
	var objects []types.ObjectContent
	switch b := res.(type) {
	case *methods.RetrievePropertiesExBody:
		if b.Res != nil && b.Res.Returnval != nil {
			objects = b.Res.Returnval.Objects
		}
	case *methods.RetrievePropertiesBody:
		if b.Res != nil {
			objects = b.Res.Returnval
		}
	}
	for _, o := range objects {
		for _, m := range o.MissingSet {
			if _, ok := m.Fault.Fault.(*types.NotAuthenticated); ok {
				return true
			}
		}
	}
	return false
}

// reset zeroes a response body before it is decoded again.
func reset(res soap.HasFault) {
	v := reflect.ValueOf(res)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v.Elem().Set(reflect.Zero(v.Elem().Type()))
	}
}
