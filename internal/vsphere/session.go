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
	if !(fault.Is(err, &types.NotAuthenticated{}) || (err == nil && missingSession(res))) {
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
