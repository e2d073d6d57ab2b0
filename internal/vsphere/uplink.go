package vsphere

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/view"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// vsanNetwork is where the cluster's vSAN vmkernel NICs sit: a portgroup
// of each host's standard switch, or one portgroup of a distributed switch.
type vsanNetwork struct {
	hosts []mo.HostSystem
	std   []*types.HostPortGroup // by host; nil on a distributed switch
	dvs   *mo.DistributedVirtualSwitch
	pg    *mo.DistributedVirtualPortgroup
}

// hostUplinks says how one host's NICs sit on a distributed switch.
type hostUplinks struct {
	port map[string]string // NIC -> uplink port name ("Uplink 3", "lag-25g-0")
	lag  map[string]string // NIC -> LAG name, for NICs in a LAG
}

// vsanVnic returns the VMkernel NIC of h tagged for vSAN, or nil.
func vsanVnic(h mo.HostSystem) *types.HostVirtualNic {
	if h.Config == nil || h.Config.VirtualNicManagerInfo == nil {
		return nil
	}
	for _, nc := range h.Config.VirtualNicManagerInfo.NetConfig {
		if nc.NicType != string(types.HostVirtualNicManagerNicTypeVsan) {
			continue
		}
		for i, v := range nc.CandidateVnic {
			if slices.Contains(nc.SelectedVnic, v.Key) {
				return &nc.CandidateVnic[i]
			}
		}
	}
	return nil
}

// vsanPortgroup finds the standard-switch portgroup that carries a host's
// vSAN traffic: the one of the VMkernel NIC tagged for vSAN, or else the one
// named like vSAN.
func vsanPortgroup(h mo.HostSystem) (*types.HostPortGroup, error) {
	if h.Config == nil || h.Config.Network == nil {
		return nil, fmt.Errorf("host %s reports no network configuration", h.Name)
	}
	name := ""
	if v := vsanVnic(h); v != nil {
		if v.Spec.DistributedVirtualPort != nil {
			return nil, fmt.Errorf("host %s carries vSAN on %s, a distributed switch port, not a standard switch", h.Name, v.Device)
		}
		name = cmp.Or(v.Portgroup, v.Spec.Portgroup)
	}
	var names []string
	for i, pg := range h.Config.Network.Portgroup {
		if pg.Spec.Name == name || (name == "" && strings.Contains(strings.ToLower(pg.Spec.Name), "vsan")) {
			return &h.Config.Network.Portgroup[i], nil
		}
		names = append(names, pg.Spec.Name)
	}
	return nil, fmt.Errorf("host %s has no portgroup for vSAN: no VMkernel NIC is tagged for vSAN and none of its portgroups (%s) is named like vSAN", h.Name, strings.Join(names, ", "))
}

// vsanNetwork reads where the cluster's vSAN vmkernel NICs sit.
func (c *Client) vsanNetwork(ctx context.Context) (*vsanNetwork, error) {
	hosts, err := c.hosts(ctx, "config.network", "config.virtualNicManagerInfo", "configManager.networkSystem")
	if err != nil {
		return nil, err
	}
	// A host isolated by an event (vSAN traffic taken off its VMkernel
	// NIC) is out of the vSAN network until it is restored.
	hosts = slices.DeleteFunc(hosts, isolated)
	n := &vsanNetwork{hosts: hosts}
	var port *types.DistributedVirtualSwitchPortConnection
	var dvsHosts, stdHosts []string
	for _, h := range hosts {
		if v := vsanVnic(h); v != nil && v.Spec.DistributedVirtualPort != nil {
			p := v.Spec.DistributedVirtualPort
			if port != nil && (p.SwitchUuid != port.SwitchUuid || p.PortgroupKey != port.PortgroupKey) {
				return nil, fmt.Errorf("the hosts of cluster %s carry vSAN on different distributed portgroups (%s has %s, %s has %s): starbench changes one portgroup's teaming for the whole cluster",
					c.cluster.Name(), dvsHosts[0], port.PortgroupKey, h.Name, p.PortgroupKey)
			}
			port = p
			dvsHosts = append(dvsHosts, h.Name)
			continue
		}
		pg, err := vsanPortgroup(h)
		if err != nil {
			return nil, err
		}
		n.std = append(n.std, pg)
		stdHosts = append(stdHosts, h.Name)
	}
	if len(dvsHosts) > 0 && len(stdHosts) > 0 {
		return nil, fmt.Errorf("cluster %s carries vSAN on a distributed switch on %s and on standard switches on %s: move every host's vSAN vmkernel NIC to one kind of switch first",
			c.cluster.Name(), strings.Join(dvsHosts, ", "), strings.Join(stdHosts, ", "))
	}
	if port == nil {
		return n, nil
	}
	n.std = nil
	if n.dvs, n.pg, err = c.dvPortgroup(ctx, port.SwitchUuid, port.PortgroupKey); err != nil {
		return nil, err
	}
	return n, nil
}

// dvPortgroup finds a distributed switch by uuid and its portgroup by key.
func (c *Client) dvPortgroup(ctx context.Context, uuid, key string) (*mo.DistributedVirtualSwitch, *mo.DistributedVirtualPortgroup, error) {
	folders, err := c.dc.Folders(ctx)
	if err != nil {
		return nil, nil, err
	}
	v, err := view.NewManager(c.vim).CreateContainerView(ctx, folders.NetworkFolder.Reference(), []string{"VmwareDistributedVirtualSwitch", "DistributedVirtualSwitch"}, true)
	if err != nil {
		return nil, nil, err
	}
	defer v.Destroy(context.WithoutCancel(ctx))
	var switches []mo.DistributedVirtualSwitch
	if err := v.Retrieve(ctx, []string{"DistributedVirtualSwitch"}, []string{"name", "uuid", "config", "portgroup"}, &switches); err != nil {
		return nil, nil, fmt.Errorf("listing distributed switches: %w", err)
	}
	for i, sw := range switches {
		if sw.Uuid != uuid {
			continue
		}
		var pgs []mo.DistributedVirtualPortgroup
		if len(sw.Portgroup) > 0 {
			if err := property.DefaultCollector(c.vim).Retrieve(ctx, sw.Portgroup, []string{"name", "config"}, &pgs); err != nil {
				return nil, nil, fmt.Errorf("reading the portgroups of %s: %w", sw.Name, err)
			}
		}
		for j, pg := range pgs {
			if pg.Config.Key == key {
				return &switches[i], &pgs[j], nil
			}
		}
		return nil, nil, fmt.Errorf("distributed switch %s has no portgroup with key %s (the vSAN vmkernel NICs' portgroup)", sw.Name, key)
	}
	return nil, nil, fmt.Errorf("no distributed switch with uuid %s in datacenter %s (the vSAN vmkernel NICs' switch)", uuid, c.dc.Name())
}

// uplinksOf reads how host h's NICs sit on the distributed switch sw.
func uplinksOf(h mo.HostSystem, sw *mo.DistributedVirtualSwitch) (hostUplinks, error) {
	u := hostUplinks{port: map[string]string{}, lag: map[string]string{}}
	for _, ps := range h.Config.Network.ProxySwitch {
		if ps.DvsUuid != sw.Uuid {
			continue
		}
		names := map[string]string{}
		for _, kv := range ps.UplinkPort {
			names[kv.Key] = kv.Value
		}
		lagOfPort := map[string]string{}
		for _, l := range ps.HostLag {
			for _, kv := range l.UplinkPort {
				lagOfPort[kv.Key] = l.LagName
				names[kv.Key] = kv.Value
			}
		}
		if cfg, ok := sw.Config.(*types.VMwareDVSConfigInfo); ok {
			for _, g := range cfg.LacpGroupConfig {
				for _, k := range g.UplinkPortKey {
					lagOfPort[k] = cmp.Or(lagOfPort[k], g.Name)
				}
			}
		}
		if b, ok := ps.Spec.Backing.(*types.DistributedVirtualSwitchHostMemberPnicBacking); ok {
			for _, p := range b.PnicSpec {
				u.port[p.PnicDevice] = cmp.Or(names[p.UplinkPortKey], p.UplinkPortKey)
				if l := lagOfPort[p.UplinkPortKey]; l != "" {
					u.lag[p.PnicDevice] = l
				}
			}
		}
		return u, nil
	}
	return u, fmt.Errorf("host %s is not a member of distributed switch %s", h.Name, sw.Name)
}

// dvsOrder is a distributed portgroup's active and standby uplinks.
func dvsOrder(n *vsanNetwork) (active, standby []string) {
	if o := portOrder(n.pg.Config.DefaultPortConfig); o != nil {
		return o.ActiveUplinkPort, o.StandbyUplinkPort
	}
	if cfg := n.dvs.Config; cfg != nil {
		if o := portOrder(cfg.GetDVSConfigInfo().DefaultPortConfig); o != nil {
			return o.ActiveUplinkPort, o.StandbyUplinkPort
		}
	}
	return nil, nil
}

func portOrder(s types.BaseDVPortSetting) *types.VMwareUplinkPortOrderPolicy {
	ps, ok := s.(*types.VMwareDVSPortSetting)
	if !ok || ps.UplinkTeamingPolicy == nil || ps.UplinkTeamingPolicy.UplinkPortOrder == nil {
		return nil
	}
	o := ps.UplinkTeamingPolicy.UplinkPortOrder
	if len(o.ActiveUplinkPort) == 0 && len(o.StandbyUplinkPort) == 0 {
		return nil
	}
	return o
}

// nicsOn lists host h's NICs on the named uplink ports or LAGs, in the
// host's NIC order.
func nicsOn(h mo.HostSystem, u hostUplinks, ports []string) []string {
	var out []string
	for _, n := range nics(h) {
		if slices.Contains(ports, u.port[n.Name]) || (u.lag[n.Name] != "" && slices.Contains(ports, u.lag[n.Name])) {
			out = append(out, n.Name)
		}
	}
	return out
}

// uplinkState fills the uplink part of st: every host's active and standby
// vSAN NICs, which must agree across hosts.
func (c *Client) uplinkState(ctx context.Context, st *ClusterState) error {
	n, err := c.vsanNetwork(ctx)
	if err != nil {
		return err
	}
	var activePorts, standbyPorts []string
	if n.dvs != nil {
		activePorts, standbyPorts = dvsOrder(n)
		st.Switch = fmt.Sprintf("distributed switch %s, portgroup %s", n.dvs.Name, n.pg.Config.Name)
	}
	for i, h := range n.hosts {
		var active, standby []string
		if n.dvs != nil {
			u, err := uplinksOf(h, n.dvs)
			if err != nil {
				return err
			}
			active, standby = nicsOn(h, u, activePorts), nicsOn(h, u, standbyPorts)
			for _, p := range activePorts {
				if slices.Contains(mapValues(u.lag), p) {
					st.LAG = p
				}
			}
		} else {
			pg := n.std[i]
			active, standby = nicOrder(pg.Spec.Policy.NicTeaming)
			if len(active) == 0 {
				active, standby = vswitchOrder(h, pg.Spec.VswitchName)
			}
			if t := pg.Spec.Policy.NicTeaming; t != nil && t.Policy == "loadbalance_ip" {
				st.ipHash = true
			}
			st.Switch = fmt.Sprintf("standard switch %s, portgroup %s", pg.Spec.VswitchName, pg.Spec.Name)
		}
		st.rdmaIssues = append(st.rdmaIssues, rdmaMissing(h, active)...)
		if i == 0 {
			st.ActiveNICs, st.StandbyNICs = active, standby
			st.Uplink = uplinkName(h, active)
		} else if !slices.Equal(st.ActiveNICs, active) {
			return fmt.Errorf("the hosts of cluster %s disagree on the vSAN uplinks: %s uses %s, %s uses %s",
				c.cluster.Name(), n.hosts[0].Name, strings.Join(st.ActiveNICs, "+"), h.Name, strings.Join(active, "+"))
		}
	}
	return nil
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func nicOrder(t *types.HostNicTeamingPolicy) (active, standby []string) {
	if t == nil || t.NicOrder == nil {
		return nil, nil
	}
	return t.NicOrder.ActiveNic, t.NicOrder.StandbyNic
}

// vswitchOrder is the NIC order a portgroup inherits from its switch.
func vswitchOrder(h mo.HostSystem, vswitch string) (active, standby []string) {
	for _, vs := range h.Config.Network.Vswitch {
		if vs.Name == vswitch && vs.Spec.Policy != nil {
			return nicOrder(vs.Spec.Policy.NicTeaming)
		}
	}
	return nil, nil
}

// uplinkName is "25g" when all active NICs run at 25 Gb/s, else their names.
func uplinkName(h mo.HostSystem, active []string) string {
	speeds := map[float64]bool{}
	for _, n := range nics(h) {
		if slices.Contains(active, n.Name) {
			speeds[n.SpeedGbps] = true
		}
	}
	if len(speeds) == 1 {
		for s := range speeds {
			return strconv.FormatFloat(s, 'f', -1, 64) + "g"
		}
	}
	return strings.Join(active, ",")
}

// setUplink makes uplink the active vSAN NICs of every host and checks that
// they took it. On a distributed switch that is one change of the vSAN
// portgroup's teaming; on standard switches one change per host, and a host
// that fails sets the hosts changed before it back. It returns what sets
// the uplinks back as they were.
func (c *Client) setUplink(ctx context.Context, uplink string) (undo func(context.Context) error, err error) {
	n, err := c.vsanNetwork(ctx)
	if err != nil {
		return nil, err
	}
	if n.dvs != nil {
		return c.setDVSUplink(ctx, n, uplink)
	}
	return c.setStandardUplink(ctx, n, uplink)
}

// stdChange is one host's vSAN portgroup before and after a change.
type stdChange struct {
	host         string
	ns           *object.HostNetworkSystem
	before, want types.HostPortGroupSpec
}

func (c *Client) setStandardUplink(ctx context.Context, n *vsanNetwork, uplink string) (func(context.Context) error, error) {
	var changes []stdChange
	for i, h := range n.hosts {
		active, err := resolveUplink(h, uplink)
		if err != nil {
			return nil, err
		}
		var standby []string
		for _, nic := range nics(h) {
			if !slices.Contains(active, nic.Name) {
				standby = append(standby, nic.Name)
			}
		}
		before := n.std[i].Spec
		want := before
		teaming := types.HostNicTeamingPolicy{}
		if before.Policy.NicTeaming != nil {
			teaming = *before.Policy.NicTeaming
		}
		teaming.NicOrder = &types.HostNicOrderPolicy{ActiveNic: active, StandbyNic: standby}
		want.Policy.NicTeaming = &teaming
		changes = append(changes, stdChange{host: h.Name, ns: object.NewHostNetworkSystem(c.vim, *h.ConfigManager.NetworkSystem), before: before, want: want})
	}
	for i, ch := range changes {
		err := c.do(ctx, "set the vSAN uplinks of host", ch.host, "UpdatePortGroup", func(ctx context.Context) error {
			return ch.ns.UpdatePortGroup(ctx, ch.want.Name, ch.want)
		})
		if err != nil {
			return nil, c.rollbackStandard(ctx, changes[:i], err)
		}
	}
	undo := func(ctx context.Context) error { return c.undoStandard(ctx, changes) }
	after, err := c.hosts(ctx, "config.network", "config.virtualNicManagerInfo")
	if err != nil {
		return nil, c.rollbackStandard(ctx, changes, err)
	}
	for i, h := range after {
		pg, err := vsanPortgroup(h)
		if err != nil {
			return nil, c.rollbackStandard(ctx, changes, err)
		}
		want, _ := nicOrder(changes[i].want.Policy.NicTeaming)
		if got, _ := nicOrder(pg.Spec.Policy.NicTeaming); !slices.Equal(got, want) {
			return nil, c.rollbackStandard(ctx, changes, fmt.Errorf("host %s did not take uplink %q: its vSAN portgroup's active NICs are %s", h.Name, uplink, strings.Join(got, ", ")))
		}
	}
	return undo, nil
}

// undoStandard sets the hosts of done back to their vSAN portgroup before
// the change, newest first, even when ctx is cancelled.
func (c *Client) undoStandard(ctx context.Context, done []stdChange) error {
	ctx = context.WithoutCancel(ctx)
	var errs []error
	for i := len(done) - 1; i >= 0; i-- {
		ch := done[i]
		err := c.do(ctx, "set back the vSAN uplinks of host", ch.host, "UpdatePortGroup", func(ctx context.Context) error {
			return ch.ns.UpdatePortGroup(ctx, ch.before.Name, ch.before)
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// rollbackStandard sets the hosts of done back to their vSAN portgroup
// before the change, newest first, and returns cause with what was undone.
// It runs even when ctx is cancelled: a cluster whose hosts disagree on
// their vSAN uplinks is worse than either setting.
func (c *Client) rollbackStandard(ctx context.Context, done []stdChange, cause error) error {
	if len(done) == 0 {
		return cause
	}
	var names []string
	for _, ch := range done {
		names = append(names, ch.host)
	}
	active, _ := nicOrder(done[0].before.Policy.NicTeaming)
	if err := c.undoStandard(ctx, done); err != nil {
		return fmt.Errorf("%w; setting the vSAN uplinks of %s back to %s failed too, so the hosts disagree: set them by hand (%v)",
			cause, strings.Join(names, ", "), strings.Join(active, "+"), err)
	}
	return fmt.Errorf("%w (the hosts already changed, %s, were set back to %s)", cause, strings.Join(names, ", "), cmp.Or(strings.Join(active, "+"), "their switch's order"))
}

// setDVSUplink changes the teaming of the distributed vSAN portgroup.
func (c *Client) setDVSUplink(ctx context.Context, n *vsanNetwork, uplink string) (func(context.Context) error, error) {
	var active, standby []string
	var first string
	for i, h := range n.hosts {
		u, err := uplinksOf(h, n.dvs)
		if err != nil {
			return nil, err
		}
		a, s, err := dvsPorts(h, u, uplink)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			active, standby, first = a, s, h.Name
		} else if !slices.Equal(a, active) || !slices.Equal(s, standby) {
			return nil, fmt.Errorf("uplink %q means uplinks %s on host %s but %s on host %s: a distributed portgroup's teaming names the switch's uplinks, so the hosts must put the same NICs on the same uplinks",
				uplink, strings.Join(active, "+"), first, strings.Join(a, "+"), h.Name)
		}
	}
	beforeActive, beforeStandby := dvsOrder(n)
	undo := func(ctx context.Context) error {
		ctx = context.WithoutCancel(ctx)
		now, err := c.vsanNetwork(ctx)
		if err != nil {
			return err
		}
		if now.pg == nil {
			return fmt.Errorf("portgroup %s no longer carries vSAN", n.pg.Config.Name)
		}
		return c.reconfigureTeaming(ctx, now, beforeActive, beforeStandby)
	}
	if err := c.reconfigureTeaming(ctx, n, active, standby); err != nil {
		return nil, err
	}
	after, err := c.vsanNetwork(ctx)
	if err == nil && after.pg != nil {
		gotActive, gotStandby := dvsOrder(after)
		if slices.Equal(gotActive, active) && slices.Equal(gotStandby, standby) {
			return undo, nil
		}
		err = fmt.Errorf("portgroup %s did not take uplink %q: its active uplinks are %s", n.pg.Config.Name, uplink, strings.Join(gotActive, ", "))
		n = after
	}
	if err == nil {
		err = fmt.Errorf("portgroup %s no longer carries vSAN after the change", n.pg.Config.Name)
	}
	if rerr := undo(ctx); rerr != nil {
		return nil, fmt.Errorf("%w; setting its teaming back to %s failed too: set it by hand (%v)", err, strings.Join(beforeActive, "+"), rerr)
	}
	return nil, fmt.Errorf("%w (its teaming was set back to %s)", err, strings.Join(beforeActive, "+"))
}

// reconfigureTeaming sets the active and standby uplinks of n's portgroup.
func (c *Client) reconfigureTeaming(ctx context.Context, n *vsanNetwork, active, standby []string) error {
	pg := object.NewDistributedVirtualPortgroup(c.vim, n.pg.Self)
	spec := types.DVPortgroupConfigSpec{
		ConfigVersion: n.pg.Config.ConfigVersion,
		DefaultPortConfig: &types.VMwareDVSPortSetting{UplinkTeamingPolicy: &types.VmwareUplinkPortTeamingPolicy{
			UplinkPortOrder: &types.VMwareUplinkPortOrderPolicy{ActiveUplinkPort: active, StandbyUplinkPort: standby},
		}},
	}
	return c.do(ctx, "set the vSAN uplinks of portgroup", n.pg.Config.Name, "ReconfigureDVPortgroup_Task", func(ctx context.Context) error {
		_, err := waitTask(ctx, func(ctx context.Context) (*object.Task, error) { return pg.Reconfigure(ctx, spec) })
		return err
	})
}

// dvsPorts turns uplink into the active and standby uplink ports of a
// distributed portgroup, as host h's NICs sit on the switch: a LAG alone
// when the NICs are exactly a LAG's, else the NICs' uplinks active and the
// host's other standalone uplinks standby.
func dvsPorts(h mo.HostSystem, u hostUplinks, uplink string) (active, standby []string, err error) {
	var nicsWanted []string
	lags := map[string][]string{}
	for _, n := range nics(h) {
		if l := u.lag[n.Name]; l != "" {
			lags[l] = append(lags[l], n.Name)
		}
	}
	if members, ok := lags[strings.TrimSpace(uplink)]; ok {
		nicsWanted = members
	} else if nicsWanted, err = resolveUplink(h, uplink); err != nil {
		return nil, nil, err
	}
	var inLAG []string
	for _, n := range nicsWanted {
		if l := u.lag[n]; l != "" && !slices.Contains(inLAG, l) {
			inLAG = append(inLAG, l)
		}
	}
	if len(inLAG) > 0 {
		l := inLAG[0]
		if len(inLAG) > 1 || !sameSet(lags[l], nicsWanted) {
			return nil, nil, fmt.Errorf("uplink %q (%s on host %s) is not the whole of LAG %s, which carries traffic only as a whole: choose its NICs together (%s) or the LAG by name (%q)",
				uplink, strings.Join(nicsWanted, ", "), h.Name, l, strings.Join(lags[l], ", "), l)
		}
		return []string{l}, nil, nil
	}
	for _, n := range nicsWanted {
		p, ok := u.port[n]
		if !ok {
			return nil, nil, fmt.Errorf("uplink %q: NIC %s of host %s is not on the vSAN distributed switch", uplink, n, h.Name)
		}
		active = append(active, p)
	}
	for _, n := range nics(h) {
		if p, ok := u.port[n.Name]; ok && u.lag[n.Name] == "" && !slices.Contains(nicsWanted, n.Name) {
			standby = append(standby, p)
		}
	}
	return active, standby, nil
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// resolveUplink turns "25g" or "vmnic2,vmnic3" into NIC names of host h.
func resolveUplink(h mo.HostSystem, uplink string) ([]string, error) {
	have := nics(h)
	var names, described []string
	for _, n := range have {
		names = append(names, n.Name)
		described = append(described, fmt.Sprintf("%s %sg", n.Name, strconv.FormatFloat(n.SpeedGbps, 'f', -1, 64)))
	}
	lower := strings.ToLower(strings.TrimSpace(uplink))
	if speed, ok := strings.CutSuffix(lower, "g"); ok {
		if gbps, err := strconv.ParseFloat(speed, 64); err == nil {
			var out []string
			for _, n := range have {
				if n.SpeedGbps == gbps {
					out = append(out, n.Name)
				}
			}
			if len(out) == 0 {
				return nil, fmt.Errorf("uplink %q: host %s has no %s GbE NIC (it has %s)", uplink, h.Name, speed, strings.Join(described, ", "))
			}
			return out, nil
		}
	}
	var out []string
	for _, n := range strings.Split(uplink, ",") {
		n = strings.TrimSpace(n)
		if !slices.Contains(names, n) {
			return nil, fmt.Errorf("uplink %q: host %s has no NIC %q; want a speed like \"10g\" or \"25g\", or NIC names from %s", uplink, h.Name, n, strings.Join(described, ", "))
		}
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}
