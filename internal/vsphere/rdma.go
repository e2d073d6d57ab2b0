package vsphere

import (
	"fmt"
	"strings"

	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// vSAN runs over RDMA (RoCE v2, vSAN 7.0 U2 and later) only when every
// host has, under each active vSAN uplink, an RDMA device that does RoCE v2
// and whose link is up; otherwise the whole cluster stays on TCP. vSAN
// supports RDMA over failover teaming only: an RDMA connection cannot spread
// over several uplinks of one VMkernel port (Broadcom KB 407307), so over a
// LAG (LACP) or IP-hash teaming RDMA runs, unsupported, on one link of it.
// The switches must also carry RoCE losslessly (PFC/DCB), which no vCenter
// API shows.

// rdmaIssue is one thing keeping a host's NIC from RDMA.
type rdmaIssue struct{ host, what string }

// rdmaMissing lists what keeps host h from running RDMA on its active vSAN
// NICs: a NIC without an RDMA device, one without RoCE v2, a link down.
func rdmaMissing(h mo.HostSystem, active []string) []rdmaIssue {
	devices := map[string]types.HostRdmaDevice{} // by the NIC it is paired with
	if h.Config != nil && h.Config.Network != nil {
		for _, d := range h.Config.Network.RdmaDevice {
			if b, ok := d.Backing.(*types.HostRdmaDevicePnicBacking); ok {
				devices[b.PairedUplink] = d
			}
		}
	}
	var out []rdmaIssue
	for _, nic := range active {
		d, ok := devices[nic]
		switch {
		case !ok:
			out = append(out, rdmaIssue{h.Name, nic + " has no RDMA device (no vmrdma is paired with it: the NIC cannot do RDMA, or its RDMA driver is not loaded)"})
		case !d.Capability.RoceV2Capable:
			out = append(out, rdmaIssue{h.Name, fmt.Sprintf("%s on %s does not do RoCE v2", d.Device, nic)})
		case d.ConnectionInfo.State != "active":
			out = append(out, rdmaIssue{h.Name, fmt.Sprintf("%s on %s is %s, not active (check the link and the switch port)", d.Device, nic, d.ConnectionInfo.State)})
		}
	}
	return out
}

// grouped says each issue once, with the hosts it is on.
func grouped(issues []rdmaIssue) []string {
	var order []string
	hosts := map[string][]string{}
	for _, i := range issues {
		if _, ok := hosts[i.what]; !ok {
			order = append(order, i.what)
		}
		hosts[i.what] = append(hosts[i.what], i.host)
	}
	out := make([]string, len(order))
	for k, what := range order {
		out[k] = fmt.Sprintf("%s on host %s", what, strings.Join(hosts[what], ", "))
		if len(hosts[what]) > 1 {
			out[k] = fmt.Sprintf("%s on hosts %s", what, strings.Join(hosts[what], ", "))
		}
	}
	return out
}

// rdmaTeaming says what the vSAN uplinks' teaming does to RDMA, "" when it
// is failover teaming, the only one vSAN supports for RDMA.
func rdmaTeaming(st ClusterState, ipHash bool) string {
	switch {
	case st.LAG != "":
		return fmt.Sprintf("vSAN's uplinks are LAG %s (LACP), which vSAN does not support with RDMA (failover teaming only): an RDMA connection cannot spread over a LAG's links (Broadcom KB 407307), so RDMA runs on one link of it", st.LAG)
	case ipHash:
		return "the vSAN portgroup balances by IP hash, which vSAN does not support with RDMA (failover teaming only): an RDMA connection cannot spread over the team's links (Broadcom KB 407307), so RDMA runs on one link of it"
	}
	return ""
}

// rdmaRefusal is the error for turning RDMA on where hardware is missing.
func rdmaRefusal(cluster string, missing []string) error {
	return fmt.Errorf("RDMA (RoCE v2) cannot run on cluster %s: %s; vSAN needs, under every host's active vSAN uplinks, an RDMA device doing RoCE v2 with its link up (and PFC/DCB on the switches)",
		cluster, strings.Join(first(missing, 6), "; "))
}
