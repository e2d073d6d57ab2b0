package model

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"starbench/internal/testbed"
)

// vsanLink is one host's vSAN network as configured: the active NICs of an
// uplink choice and what they carry per direction.
type vsanLink struct {
	name   string
	nics   []string // active NICs
	spread bool     // flows hashed over the active NICs (LACP/MLAG)
	// bps is the usable bytes per second per direction per host: line
	// rate x nic_efficiency, capped by the cards' PCIe links, over the
	// active links as flow hashing balances them.
	bps float64
	// frame is wire bytes per payload byte (frame and packet headers at
	// the network's MTU).
	frame float64
	notes []string
}

// resolveLink finds the uplink choice the cluster state names (a choice of
// the profile, or its NICs as "vmnic2,vmnic3") and applies its teaming:
// active/standby uses one link, LACP hashes vSAN's flows (one per peer
// host and connection) over its links, and RDMA, which supports failover
// teaming only, uses one link even on a LAG.
func resolveLink(p *testbed.Profile, state ClusterState, rdma bool) (vsanLink, error) {
	u, err := uplinkChoice(p, state.Uplink)
	if len(state.ActiveNICs) > 0 {
		// What the control plane reads decides: a LAG spreads flows over
		// its NICs; several active NICs without one (teaming by port) put
		// vSAN's one VMkernel port on one of them.
		u, err = testbed.Uplink{Name: state.Uplink, NICs: state.ActiveNICs, LACP: state.LAG != ""}, nil
		for _, n := range u.NICs {
			if !slices.ContainsFunc(p.NICs, func(nic testbed.NIC) bool { return nic.Name == n }) {
				return vsanLink{}, fmt.Errorf("active vSAN NIC %s is not a NIC of %s: want one of %s", n, p.Name, strings.Join(nicNames(p), ", "))
			}
		}
	}
	if err != nil {
		return vsanLink{}, err
	}
	l := vsanLink{name: u.Name, nics: u.NICs[:1], frame: frameFactor(p.MTU, rdma)}
	if len(u.NICs) > 1 && !u.LACP {
		l.notes = append(l.notes, fmt.Sprintf("active NICs %s without a LAG: vSAN's VMkernel port uses one of them (teaming by port)", strings.Join(u.NICs, "+")))
	}
	if u.LACP && len(u.NICs) > 1 {
		if rdma {
			l.notes = append(l.notes, fmt.Sprintf("RDMA (RoCE v2) supports failover teaming only: vSAN uses one link of %s, not the LAG", strings.Join(u.NICs, "+")))
		} else {
			l.nics, l.spread = u.NICs, true
		}
	}
	nics := map[string]testbed.NIC{}
	ports := map[string]int{} // active ports per card
	for _, n := range p.NICs {
		nics[n.Name] = n
	}
	for _, n := range l.nics {
		if c := nics[n].Card; c != "" {
			ports[c]++
		}
	}
	rate := math.Inf(1) // the slowest active link: flows do not know speeds
	for _, n := range l.nics {
		nic := nics[n]
		r := nic.SpeedGbps * 1e9 / 8 * p.Model.NICEfficiency.Value
		if pcie := testbed.PCIeBytesPerSec(nic.PCIeGen, nic.PCIeLanes); pcie > 0 && nic.Card != "" {
			r = math.Min(r, pcie/float64(ports[nic.Card]))
		}
		rate = math.Min(rate, r)
	}
	l.bps = rate
	if l.spread {
		flows := (p.Hosts - 1) * int(p.Model.ConnectionsPerPeer.Value)
		l.bps = rate * hashedLinks(flows, len(l.nics))
	}
	return l, nil
}

// uplinkChoice finds the profile's uplink choice by name (default: the
// first) or by its NICs; NICs the profile has no choice for are one
// active link.
func uplinkChoice(p *testbed.Profile, name string) (testbed.Uplink, error) {
	if name == "" {
		return p.Uplinks[0], nil
	}
	if i := slices.IndexFunc(p.Uplinks, func(u testbed.Uplink) bool { return u.Name == name }); i >= 0 {
		return p.Uplinks[i], nil
	}
	nics := strings.FieldsFunc(name, func(r rune) bool { return r == ',' || r == '+' })
	if i := slices.IndexFunc(p.Uplinks, func(u testbed.Uplink) bool { return slices.Equal(u.NICs, nics) }); i >= 0 {
		return p.Uplinks[i], nil
	}
	if len(nics) > 0 && slices.ContainsFunc(p.NICs, func(n testbed.NIC) bool { return n.Name == nics[0] }) {
		return testbed.Uplink{Name: name, NICs: nics[:1]}, nil
	}
	var names []string
	for _, u := range p.Uplinks {
		names = append(names, u.Name)
	}
	return testbed.Uplink{}, fmt.Errorf("uplink %q is not a choice of %s: want one of %s, or active NICs such as %q", name, p.Name, strings.Join(names, ", "), p.Uplinks[0].NICs[0])
}

// frameFactor is wire bytes per payload byte at an MTU (0: 1500): TCP/IPv4
// with timestamps carries mtu-52 bytes in frames of mtu+38 on the wire
// (Ethernet header, FCS, preamble and gap); RoCE v2 carries a path MTU of
// 1024-4096 bytes in packets with 82 bytes of headers and gap.
func frameFactor(mtu int, rdma bool) float64 {
	if mtu == 0 {
		mtu = 1500
	}
	if rdma {
		pmtu := 256
		for pmtu*2+58 <= mtu && pmtu < 4096 {
			pmtu *= 2
		}
		return float64(pmtu+82) / float64(pmtu)
	}
	return float64(mtu+38) / float64(mtu-52)
}

var hashCache sync.Map // [2]int{flows, links} -> float64

// hashedLinks is how many links' worth of traffic flows hashed onto links
// carry before the busiest link is full: E[flows / max flows on a link],
// flows placed uniformly at random (symmetric traffic per flow).
func hashedLinks(flows, links int) float64 {
	if links <= 1 || flows <= 0 {
		return 1
	}
	key := [2]int{flows, links}
	if v, ok := hashCache.Load(key); ok {
		return v.(float64)
	}
	// P(max <= m): the first link takes j ~ Binomial(n, 1/k) of n flows,
	// the other k-1 links share the rest uniformly.
	le := func(m int) float64 {
		f := make([]float64, flows+1) // f[n]: P(max <= m) for n flows on the links so far
		for n := 0; n <= min(m, flows); n++ {
			f[n] = 1 // one link
		}
		for k := 2; k <= links; k++ {
			next := make([]float64, flows+1)
			for n := 0; n <= flows; n++ {
				for j := 0; j <= min(m, n); j++ {
					next[n] += binomial(n, j, 1/float64(k)) * f[n-j]
				}
			}
			f = next
		}
		return f[flows]
	}
	e, prev := 0.0, 0.0
	for m := (flows + links - 1) / links; m <= flows; m++ {
		cdf := math.Min(1, le(m))
		e += (cdf - prev) * float64(flows) / float64(m)
		prev = cdf
		if cdf >= 1-1e-12 {
			break
		}
	}
	hashCache.Store(key, e)
	return e
}

// binomial is P(X = j) for X ~ Binomial(n, p).
func binomial(n, j int, p float64) float64 {
	ln := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	return math.Exp(ln(n) - ln(j) - ln(n-j) + float64(j)*math.Log(p) + float64(n-j)*math.Log1p(-p))
}

func nicNames(p *testbed.Profile) []string {
	var names []string
	for _, n := range p.NICs {
		names = append(names, n.Name)
	}
	return names
}
