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
	rt    soap.RoundTripper
	login func(context.Context) error

	mu sync.Mutex
}

func (r *relogin) RoundTrip(ctx context.Context, req, res soap.HasFault) error {
	err := r.rt.RoundTrip(ctx, req, res)
	if err == nil || !fault.Is(err, &types.NotAuthenticated{}) {
		return err
	}
	switch req.(type) {
	case *methods.LoginBody, *methods.LogoutBody:
		return err
	}
	r.mu.Lock()
	lerr := r.login(ctx)
	r.mu.Unlock()
	if lerr != nil {
		return err
	}
	reset(res)
	return r.rt.RoundTrip(ctx, req, res)
}

// reset zeroes a response body before it is decoded again.
func reset(res soap.HasFault) {
	v := reflect.ValueOf(res)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v.Elem().Set(reflect.Zero(v.Elem().Type()))
	}
}
