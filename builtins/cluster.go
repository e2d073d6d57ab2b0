package builtins

import (
	"fmt"
	"slices"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"starbench/internal/runtime"
	"starbench/internal/vsphere"
)

// NewClusterModule returns the `cluster` module: vSAN cluster settings.
func NewClusterModule(deps Deps) *runtime.Module {
	c := clusterModule{deps}
	return &runtime.Module{
		Name: "cluster",
		Doc:  "vSAN cluster settings",
		Members: append([]runtime.Member{
			{Name: "configure", Params: "(compression=None, dedup=None, rdma=None, transit_encryption=None, rest_encryption=None, key_provider=None, uplink=None)",
				Doc: "apply and verify cluster settings (None leaves one as it is; transit_encryption= vSAN's data-in-transit encryption, AES-256 between hosts; rest_encryption= data-at-rest encryption with keys from key_provider= or vCenter's default, on OSA a rolling reformat of every disk group, on ESA fixed when the cluster was created; uplink= a speed, NIC names or a LAG, set on the vSAN portgroup of a distributed switch or host by host on standard ones); a failure sets back what changed; returns the settings they replaced", Fn: c.configure},
			{Name: "state", Params: "()",
				Doc: "the cluster's settings: compression, dedup, rdma, transit_encryption, rest_encryption, key_provider, uplink, active_nics, standby_nics, lag, switch, architecture; rdma_active and rdma_note say whether RDMA runs, what keeps it off and what unsupported teaming it runs on", Fn: c.state},
		}, clusterEventMembers(deps)...),
	}
}

type clusterModule struct{ deps Deps }

func (c clusterModule) configure(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var compression, dedup, rdma, transit, rest, uplink starlark.Value = starlark.None, starlark.None, starlark.None, starlark.None, starlark.None, starlark.None
	var keyProvider string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "compression?", &compression, "dedup?", &dedup, "rdma?", &rdma, "transit_encryption?", &transit,
		"rest_encryption?", &rest, "key_provider?", &keyProvider, "uplink?", &uplink); err != nil {
		return nil, err
	}
	var s vsphere.ClusterSettings
	for _, f := range []struct {
		name string
		v    starlark.Value
		dst  **bool
	}{{"compression", compression, &s.Compression}, {"dedup", dedup, &s.Dedup}, {"rdma", rdma, &s.RDMA}, {"transit_encryption", transit, &s.TransitEncryption}, {"rest_encryption", rest, &s.RestEncryption}} {
		switch v := f.v.(type) {
		case starlark.NoneType:
		case starlark.Bool:
			on := bool(v)
			*f.dst = &on
		default:
			return nil, fmt.Errorf("%s=%s: want True, False or None (leave it as it is)", f.name, f.v)
		}
	}
	if keyProvider != "" && (s.RestEncryption == nil || !*s.RestEncryption) {
		return nil, fmt.Errorf("key_provider=%q goes with rest_encryption=True: it names where data-at-rest encryption takes its keys", keyProvider)
	}
	s.KeyProvider = keyProvider
	switch u := uplink.(type) {
	case starlark.NoneType:
	case starlark.String:
		s.Uplink = string(u)
	default:
		names, err := stringList(uplink, "uplink")
		if err != nil {
			return nil, fmt.Errorf("uplink: want a speed like \"25g\", NIC names like \"vmnic2,vmnic3\" or a list of them, or a LAG's name; got %s", uplink.Type())
		}
		s.Uplink = strings.Join(names, ",")
	}
	if uplink != starlark.None && strings.TrimSpace(s.Uplink) == "" {
		return nil, fmt.Errorf("uplink=%s names no NIC: want a speed like \"25g\", NIC names like \"vmnic2,vmnic3\", or None to leave it as it is", uplink)
	}
	t, err := c.deps.target(thread)
	if err != nil {
		return nil, err
	}
	prev, err := t.VSphere.Configure(runtime.Context(thread), s)
	if err != nil {
		return nil, err
	}
	logActive(thread, "setting", "cluster", settingsDetail(s))
	return stateStruct(prev), nil
}

func (c clusterModule) state(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	t, err := c.deps.target(thread)
	if err != nil {
		return nil, err
	}
	st, err := t.VSphere.State(runtime.Context(thread))
	if err != nil {
		return nil, err
	}
	return stateStruct(st), nil
}

// stateStruct is a cluster state as Starlark sees it; its compression,
// dedup, rdma, transit_encryption, rest_encryption, key_provider and uplink
// fields are what cluster.configure takes back.
func stateStruct(st vsphere.ClusterState) *starlarkstruct.Struct {
	return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"compression":        starlark.Bool(st.Compression),
		"dedup":              starlark.Bool(st.Dedup),
		"rdma":               starlark.Bool(st.RDMA),
		"transit_encryption": starlark.Bool(st.TransitEncryption),
		"rest_encryption":    starlark.Bool(st.RestEncryption),
		"key_provider":       starlark.String(st.KeyProvider),
		"uplink":             starlark.String(st.Uplink),
		"active_nics":        strList(st.ActiveNICs),
		"standby_nics":       strList(st.StandbyNICs),
		"lag":                starlark.String(st.LAG),
		"switch":             starlark.String(st.Switch),
		"rdma_active":        starlark.Bool(st.RDMAActive),
		"rdma_note":          starlark.String(rdmaNote(st)),
		"architecture":       starlark.String(st.Architecture),
	})
}

// rdmaNote says what keeps RDMA from running and what the uplinks'
// teaming does to it, "" when neither applies.
func rdmaNote(st vsphere.ClusterState) string {
	notes := slices.Clone(st.RDMAMissing)
	if st.RDMATeaming != "" {
		notes = append(notes, st.RDMATeaming)
	}
	return strings.Join(notes, "; ")
}

func strList(ss []string) *starlark.List {
	out := make([]starlark.Value, len(ss))
	for i, s := range ss {
		out[i] = starlark.String(s)
	}
	l := starlark.NewList(out)
	l.Freeze()
	return l
}
