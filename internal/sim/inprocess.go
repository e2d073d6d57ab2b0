package sim

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// InProcess returns the round tripper that serves the SOAP calls of one SDK
// path (vim25.Path, pbm.Path or vsan.Path) in process: the simulator's
// handler is called directly, as its HTTP endpoint would call it, without
// HTTP, TLS or XML. The request and the response are copied, so the client
// and the simulator never share memory. The calls run in the simulator's
// own session, logged in as User: a client on it needs no login. It returns
// nil for a path the simulator does not serve.
func (s *Sim) InProcess(path string) soap.RoundTripper {
	reg := s.registries[path]
	if reg == nil {
		return nil
	}
	return &inProcess{sim: s, reg: reg}
}

type inProcess struct {
	sim *Sim
	reg *simulator.Registry
}

// inProcessKey marks the context of a call served in process.
type inProcessKey struct{}

// servedInProcess says whether ctx is a call served in process, whose response
// is copied rather than encoded.
func servedInProcess(ctx *simulator.Context) bool {
	return ctx.Context != nil && ctx.Context.Value(inProcessKey{}) != nil
}

// newSession is the session of in-process calls.
func newSession(m *simulator.Registry) *simulator.Session {
	now := time.Now().UTC()
	return &simulator.Session{
		UserSession: types.UserSession{Key: uuid.NewString(), UserName: User, FullName: User,
			LoginTime: now, LastActiveTime: now, Locale: "en_US", MessageLocale: "en_US"},
		Registry: simulator.NewRegistry(),
		Map:      m,
	}
}

// RoundTrip calls the simulator's handler for req and fills res.
func (t *inProcess) RoundTrip(ctx context.Context, req, res soap.HasFault) error {
	reqField := reflect.ValueOf(req).Elem().FieldByName("Req")
	if !reqField.IsValid() || reqField.IsNil() {
		return soap.WrapSoapFault(simulator.Fault("request without a body", &types.InvalidRequest{}))
	}
	method := &simulator.Method{Name: methodName(req), Body: reqField.Interface()}
	if this := reqField.Elem().FieldByName("This"); this.IsValid() {
		method.This, _ = this.Interface().(types.ManagedObjectReference)
	}
	out := t.call(ctx, method)
	if f := out.Fault(); f != nil {
		return soap.WrapSoapFault(f)
	}
	dst := reflect.ValueOf(res).Elem().FieldByName("Res")
	src := reflect.ValueOf(out).Elem().FieldByName("Res")
	if !src.IsValid() || src.IsNil() {
		return soap.WrapSoapFault(simulator.Fault(method.Name+" returned no response", &types.InvalidRequest{}))
	}
	if task, ok := startedTask(src); ok && !t.sim.holds.isHeld(task) {
		// The simulator's task bodies take microseconds to milliseconds,
		// but a client waiting for one is told of its end on the property
		// collector's next 20 ms tick: answer once the task ended, as a
		// fast vCenter would. A held task (HoldTasks) is left to the
		// client to wait for or cancel.
		t.sim.tasks.wait(ctx, task, taskWaitLimit)
	}
	if sharesNothing[method.Name] && src.Type() == dst.Type() {
		dst.Set(src)
		return nil
	}
	dst.Set(copyAs(src, dst.Type()))
	return nil
}

// taskWaitLimit bounds how long a call that started a task waits for it.
const taskWaitLimit = time.Second

// isHeld says whether task is held by a Hold.
func (hs *holds) isHeld(task types.ManagedObjectReference) bool {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	for _, h := range hs.m {
		h.mu.Lock()
		_, ok := h.held[task]
		h.mu.Unlock()
		if ok {
			return true
		}
	}
	return false
}

// startedTask returns the task a response names, when it names one.
func startedTask(res reflect.Value) (types.ManagedObjectReference, bool) {
	v := res.Elem().FieldByName("Returnval")
	if !v.IsValid() {
		return types.ManagedObjectReference{}, false
	}
	ref, ok := v.Interface().(types.ManagedObjectReference)
	return ref, ok && ref.Type == "Task"
}

// sharesNothing are the methods whose responses the simulator builds from
// copies of its objects: they need no second copy.
var sharesNothing = map[string]bool{
	"RetrieveProperties": true, "RetrievePropertiesEx": true, "ContinueRetrievePropertiesEx": true,
}

// methodName is the SOAP method of a request body: the element name in the
// XML tag of its Req field (a request type of our own, such as vsanext's
// ClusterReconfig, has another Go name), else the Go type name.
func methodName(body soap.HasFault) string {
	f, _ := reflect.TypeOf(body).Elem().FieldByName("Req")
	tag, _, _ := strings.Cut(f.Tag.Get("xml"), ",")
	if _, name, ok := strings.Cut(tag, " "); ok && name != "" {
		return name
	}
	if tag != "" {
		return tag
	}
	return f.Type.Elem().Name()
}

// call dispatches a method as the simulator's SOAP endpoint does: the
// registry's handler hook (fault injection, guest IPs, disk policies), the
// session's objects (views, the session's property collector), the
// method's lock, the simulated latency.
func (t *inProcess) call(goctx context.Context, m *simulator.Method) soap.HasFault {
	// The simulator's own context carries its service, through which tasks
	// of the SPBM and vSAN endpoints reach the vim25 inventory.
	ctx := *t.sim.model.Service.Context
	session := *t.sim.session
	ctx.Context, ctx.Map, ctx.Session, ctx.Caller = context.WithValue(goctx, inProcessKey{}, true), t.reg, &session, &m.This
	if m.Name == "Fetch" {
		m.This = t.sim.model.ServiceContent.PropertyCollector
	}

	handler := t.reg.Get(m.This)
	if t.reg.Handler != nil {
		h, fault := t.reg.Handler(&ctx, m)
		if fault != nil {
			return faultBody(fault)
		}
		if h != nil {
			handler = h
		}
	}
	if h := session.Get(m.This); h != nil {
		handler = h
	}
	if handler == nil {
		return faultBody(&types.ManagedObjectNotFound{Obj: m.This})
	}
	name := m.Name
	if base, ok := strings.CutSuffix(name, "_Task"); ok {
		name = base + "Task"
	}
	name = strings.ToUpper(name[:1]) + name[1:]
	fn := reflect.ValueOf(handler).MethodByName(name)
	if !fn.IsValid() {
		return faultBody(&types.MethodNotFound{Receiver: m.This, Method: m.Name})
	}
	if e, ok := handler.(mo.Entity); ok && slices.Contains(e.Entity().DisabledMethod, name) {
		return faultBody(&types.MethodDisabled{})
	}
	if d := t.sim.latency; d > 0 {
		select {
		case <-time.After(d):
		case <-goctx.Done():
			return faultBody(&types.RequestCanceled{})
		}
	}

	var args []reflect.Value
	if fn.Type().NumIn() == 2 {
		args = append(args, reflect.ValueOf(&ctx))
	}
	body := reflect.ValueOf(m.Body)
	args = append(args, copyAs(body, fn.Type().In(fn.Type().NumIn()-1)))
	var out []reflect.Value
	t.reg.WithLock(&ctx, handler, func() { out = fn.Call(args) })
	// The handler hook moved the version before the call; a read that ran
	// meanwhile may have seen the state before the change.
	t.sim.changed(m.Name)
	return out[0].Interface().(soap.HasFault)
}

type faultResponse struct {
	Res    *struct{}
	Fault_ *soap.Fault
}

func (b *faultResponse) Fault() *soap.Fault { return b.Fault_ }

func faultBody(f types.BaseMethodFault) soap.HasFault {
	return &faultResponse{Fault_: simulator.Fault("", f)}
}
