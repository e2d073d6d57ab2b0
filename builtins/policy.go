package builtins

import (
	"fmt"
	"time"

	"go.starlark.net/starlark"

	"starbench/internal/runtime"
	"starbench/internal/vsphere"
)

// NewPolicyModule returns the `policy` module: vSAN storage policies (SPBM).
func NewPolicyModule(deps Deps) *runtime.Module {
	p := policyModule{deps}
	return &runtime.Module{
		Name: "policy",
		Doc:  "vSAN storage policies (SPBM)",
		Members: []runtime.Member{
			{Name: "vsan", Params: "(name, raid=\"raid1\", ftt=None, stripe_width=1, compression=None, checksum=True, iops_limit=0)",
				Doc: "create or update a vSAN storage policy after checking it against the cluster; iops_limit caps each disk's I/Os a second, counted in 32 KiB units (0: none)", Fn: p.vsan},
			{Name: "delete", Params: "(name)",
				Doc: "delete a storage policy starbench made (no VM disk may still use it)", Fn: p.delete},
			{Name: "apply", Params: "(workers, policy, timeout=\"30m\")",
				Doc: "assign a policy to every data disk of workers, wait (at most timeout) until vSAN reports them compliant, return the workers updated", Fn: p.apply},
		},
	}
}

type policyModule struct{ deps Deps }

func (p policyModule) vsan(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	spec := vsphere.PolicySpec{RAID: "raid1", StripeWidth: 1, Checksum: true}
	var ftt, compression starlark.Value = starlark.None, starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &spec.Name, "raid?", &spec.RAID, "ftt?", &ftt,
		"stripe_width?", &spec.StripeWidth, "compression?", &compression, "checksum?", &spec.Checksum, "iops_limit?", &spec.IOPSLimit); err != nil {
		return nil, err
	}
	if ftt != starlark.None {
		if err := starlark.AsInt(ftt, &spec.FTT); err != nil || spec.FTT < 0 {
			return nil, fmt.Errorf("ftt=%s: want the number of host failures to tolerate (1 to 3)", ftt)
		}
		if spec.FTT == 0 { // PolicySpec reads 0 as "what raid= implies"
			return nil, fmt.Errorf("ftt=0 keeps a single copy of every object: starbench does not benchmark unprotected data; want ftt 1 to 3")
		}
	}
	switch c := compression.(type) {
	case starlark.NoneType:
	case starlark.Bool:
		on := bool(c)
		spec.Compression = &on
	default:
		return nil, fmt.Errorf("compression=%s: want True, False or None (the cluster's setting)", compression)
	}
	t, err := p.deps.target(thread)
	if err != nil {
		return nil, err
	}
	if _, err := t.VSphere.SetPolicy(runtime.Context(thread), spec); err != nil {
		return nil, err
	}
	if err := spec.Normalize(); err != nil { // fills the implied FTT for the handle
		return nil, err
	}
	return &Policy{spec: spec}, nil
}

func (p policyModule) delete(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var policy policyArg
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &policy); err != nil {
		return nil, err
	}
	if policy.name == "" {
		return nil, fmt.Errorf("name: want a policy from policy.vsan or its name")
	}
	t, err := p.deps.target(thread)
	if err != nil {
		return nil, err
	}
	return starlark.None, t.VSphere.DeletePolicy(runtime.Context(thread), policy.name)
}

func (p policyModule) apply(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var ws workersArg
	var policy policyArg
	timeout := durationArg{d: 30 * time.Minute}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "workers", &ws, "policy", &policy, "timeout?", &timeout); err != nil {
		return nil, err
	}
	t, err := p.deps.target(thread)
	if err != nil {
		return nil, err
	}
	var targets []vsphere.Worker
	for _, w := range ws {
		if w.VM == "" {
			return nil, fmt.Errorf("worker %s is not a VM (a local fio server has no disks to give a policy)", w.FioWorker().Name)
		}
		targets = append(targets, vsphere.Worker{Name: w.FioWorker().Name, VM: w.VM})
	}
	updated, err := t.VSphere.ApplyPolicy(runtime.Context(thread), targets, policy.name, 8, timeout.d)
	if err != nil {
		return nil, err
	}
	return workerList(updated, t.Simulated), nil
}

// Policy is the Starlark handle of a vSAN storage policy (policy.vsan). It
// is immutable.
type Policy struct {
	spec vsphere.PolicySpec
}

var (
	_ starlark.HasAttrs = (*Policy)(nil)
	_ starlark.Value    = (*Policy)(nil)
)

// Name is the policy's name in vCenter.
func (p *Policy) Name() string { return p.spec.Name }

func (p *Policy) String() string {
	return fmt.Sprintf("vsan.policy(%q, raid=%q, ftt=%d, stripe_width=%d)", p.spec.Name, p.spec.RAID, p.spec.FTT, p.spec.StripeWidth)
}
func (p *Policy) Type() string          { return "vsan.policy" }
func (p *Policy) Freeze()               {}
func (p *Policy) Truth() starlark.Bool  { return starlark.True }
func (p *Policy) Hash() (uint32, error) { return starlark.String(p.spec.Name).Hash() }

var policyAttrs = []string{"checksum", "compression", "ftt", "iops_limit", "name", "raid", "stripe_width"}

func (p *Policy) AttrNames() []string { return policyAttrs }

func (p *Policy) Attr(name string) (starlark.Value, error) {
	switch name {
	case "name":
		return starlark.String(p.spec.Name), nil
	case "raid":
		return starlark.String(p.spec.RAID), nil
	case "ftt":
		return starlark.MakeInt(p.spec.FTT), nil
	case "stripe_width":
		return starlark.MakeInt(p.spec.StripeWidth), nil
	case "checksum":
		return starlark.Bool(p.spec.Checksum), nil
	case "iops_limit":
		return starlark.MakeInt(p.spec.IOPSLimit), nil
	case "compression":
		if p.spec.Compression == nil {
			return starlark.None, nil
		}
		return starlark.Bool(*p.spec.Compression), nil
	}
	return nil, nil
}

// policyArg unpacks a policy handle or a policy name.
type policyArg struct{ name string }

func (a *policyArg) Unpack(v starlark.Value) error {
	switch p := v.(type) {
	case *Policy:
		a.name = p.spec.Name
	case starlark.String:
		a.name = string(p)
	case starlark.NoneType:
	default:
		return fmt.Errorf("got %s, want a policy from policy.vsan or a policy name", v.Type())
	}
	return nil
}
