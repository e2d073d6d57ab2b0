package sim

import (
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// hostNetwork implements HostNetworkSystem.UpdatePortGroup, which the stock
// simulator lacks: it is how a client picks a portgroup's active and standby
// uplinks (10 GbE or 25 GbE NICs for vSAN traffic).
type hostNetwork struct {
	*simulator.HostNetworkSystem
}

func (ns *hostNetwork) UpdatePortGroup(ctx *simulator.Context, req *types.UpdatePortGroup) soap.HasFault {
	body := &methods.UpdatePortGroupBody{}
	host := ctx.Map.Get(ns.Host.Self)
	if host == nil {
		body.Fault_ = simulator.Fault("host not found", &types.NotFound{})
		return body
	}
	var fault types.BaseMethodFault
	ctx.WithLock(host, func() {
		fault = updatePortGroup(ns.Host.Config.Network, req)
		if fault == nil {
			ns.NetworkInfo.Portgroup = ns.Host.Config.Network.Portgroup
		}
	})
	if fault != nil {
		body.Fault_ = simulator.Fault("", fault)
		return body
	}
	body.Res = &types.UpdatePortGroupResponse{}
	return body
}

// updatePortGroup applies req to network after checking that the portgroup
// exists and its NIC order names only the host's NICs.
func updatePortGroup(network *types.HostNetworkInfo, req *types.UpdatePortGroup) types.BaseMethodFault {
	idx := -1
	for i, pg := range network.Portgroup {
		if pg.Spec.Name == req.PgName {
			idx = i
		}
	}
	if idx < 0 {
		return &types.NotFound{}
	}
	if t := req.Portgrp.Policy.NicTeaming; t != nil && t.NicOrder != nil {
		nics := map[string]bool{}
		for _, p := range network.Pnic {
			nics[p.Device] = true
		}
		for _, n := range append(append([]string{}, t.NicOrder.ActiveNic...), t.NicOrder.StandbyNic...) {
			if !nics[n] {
				return &types.InvalidArgument{InvalidProperty: "portgrp.policy.nicTeaming.nicOrder"}
			}
		}
	}
	pgs := append([]types.HostPortGroup(nil), network.Portgroup...)
	pgs[idx].Spec = req.Portgrp
	network.Portgroup = pgs
	return nil
}
