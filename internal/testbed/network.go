package testbed

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Switch kinds that can carry the vSAN vmkernel NIC.
const (
	DistributedSwitch = "distributed" // a vSphere Distributed Switch (production vSAN clusters)
	StandardSwitch    = "standard"    // a vSphere Standard Switch on every host
)

// VSANNetwork says which switch carries the vSAN vmkernel NIC. Production
// clusters carry it on a distributed switch: picking its uplinks is a change
// of the portgroup's teaming (an active/standby order, or a LAG).
type VSANNetwork struct {
	// Switch is DistributedSwitch or StandardSwitch.
	Switch string `json:"switch"`
	// Name is the switch's name ("DSwitch-vSAN"; "vSwitch0" for a standard one).
	Name string `json:"name"`
	// Portgroup is the portgroup of the vSAN vmkernel NIC.
	Portgroup string `json:"portgroup"`
	// LAGs are a distributed switch's link aggregation groups (LACP): each
	// bundles NICs that carry traffic together (an MLAG pair of switches).
	LAGs []LAG `json:"lags,omitempty"`
}

// LAG is one link aggregation group of a distributed switch.
type LAG struct {
	Name string   `json:"name"`
	NICs []string `json:"nics"`
}

// Network is the switch that carries vSAN: the profile's, or a standard
// switch vSwitch0 with portgroup "vSAN" for profiles that name none.
func (p *Profile) Network() VSANNetwork {
	if p.VSANNetwork != nil {
		return *p.VSANNetwork
	}
	return VSANNetwork{Switch: StandardSwitch, Name: "vSwitch0", Portgroup: "vSAN"}
}

// LAGFor returns the LAG bundling exactly the NICs of u, if any.
func (n VSANNetwork) LAGFor(u Uplink) (LAG, bool) {
	for _, l := range n.LAGs {
		if slices.Equal(sorted(l.NICs), sorted(u.NICs)) {
			return l, true
		}
	}
	return LAG{}, false
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// validateNetwork checks vsan_network against the NICs and uplink choices.
func (p *Profile) validateNetwork(bad func(field, format string, args ...any)) {
	n := p.VSANNetwork
	if n == nil {
		return
	}
	switch n.Switch {
	case DistributedSwitch, StandardSwitch:
	default:
		bad("vsan_network.switch", "%q; want %q or %q", n.Switch, DistributedSwitch, StandardSwitch)
	}
	if n.Name == "" || n.Portgroup == "" {
		bad("vsan_network", "want the switch's name and the vSAN portgroup, e.g. {\"switch\": \"distributed\", \"name\": \"DSwitch-vSAN\", \"portgroup\": \"vSAN\"}")
	}
	if n.Switch == StandardSwitch && len(n.LAGs) > 0 {
		bad("vsan_network.lags", "a standard switch has no LAGs (LACP needs a distributed switch); use \"switch\": \"distributed\"")
	}
	have := map[string]bool{}
	for _, nic := range p.NICs {
		have[nic.Name] = true
	}
	inLAG := map[string]string{}
	for i, l := range n.LAGs {
		if l.Name == "" || len(l.NICs) < 2 {
			bad(fmt.Sprintf("vsan_network.lags[%d]", i), "want a name and at least 2 NICs")
		}
		for _, nic := range l.NICs {
			if !have[nic] {
				bad(fmt.Sprintf("vsan_network.lags[%d].nics", i), "%q is not in nics; want one of %s", nic, nicNames(p.NICs))
			}
			if other, ok := inLAG[nic]; ok {
				bad(fmt.Sprintf("vsan_network.lags[%d].nics", i), "%q is in LAG %q already; a NIC belongs to one LAG", nic, other)
			}
			inLAG[nic] = l.Name
		}
	}
	for i, u := range p.Uplinks {
		if !u.LACP {
			continue
		}
		if _, ok := n.LAGFor(u); !ok && n.Switch == DistributedSwitch {
			var names []string
			for _, l := range n.LAGs {
				names = append(names, l.Name+" ("+strings.Join(l.NICs, ", ")+")")
			}
			bad(fmt.Sprintf("uplinks[%d]", i), "lacp is true but no LAG of vsan_network bundles %s; have %s", strings.Join(u.NICs, ", "), cmp.Or(strings.Join(names, "; "), "none"))
		}
	}
}
