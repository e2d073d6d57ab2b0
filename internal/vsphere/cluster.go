package vsphere

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
	vsantypes "github.com/vmware/govmomi/vsan/types"

	"starbench/internal/model"
	"starbench/internal/vsphere/vsanext"
)

// ClusterSettings are the cluster-wide settings a campaign flips. Nil and
// "" leave a setting as it is.
type ClusterSettings struct {
	Compression *bool
	Dedup       *bool
	RDMA        *bool
	// Uplink picks the vSAN portgroup's active NICs: a link speed ("10g",
	// "25g") naming the NICs of that speed, or NIC names ("vmnic2,vmnic3").
	Uplink string
}

// ClusterState is what the settings are.
type ClusterState struct {
	Compression bool
	Dedup       bool
	RDMA        bool
	// Uplink is the speed of the active vSAN NICs ("25g"), or their names
	// when their speeds differ.
	Uplink      string
	ActiveNICs  []string
	StandbyNICs []string
	// Architecture is "ESA" or "OSA".
	Architecture string
}

// vsanPortgroup finds the standard-switch portgroup that carries a host's
// vSAN traffic: the one of the VMkernel NIC tagged for vSAN, or else the one
// named like vSAN.
func vsanPortgroup(h mo.HostSystem) (*types.HostPortGroup, error) {
	if h.Config == nil || h.Config.Network == nil {
		return nil, fmt.Errorf("host %s reports no network configuration", h.Name)
	}
	name := ""
	if info := h.Config.VirtualNicManagerInfo; info != nil {
		for _, nc := range info.NetConfig {
			if nc.NicType != string(types.HostVirtualNicManagerNicTypeVsan) {
				continue
			}
			for _, v := range nc.CandidateVnic {
				if !slices.Contains(nc.SelectedVnic, v.Key) {
					continue
				}
				if v.Spec.DistributedVirtualPort != nil {
					return nil, fmt.Errorf("host %s carries vSAN on %s, a distributed switch port: uplink= handles standard switches only", h.Name, v.Device)
				}
				name = cmp.Or(v.Portgroup, v.Spec.Portgroup)
			}
		}
	}
	var names []string
	for i, pg := range h.Config.Network.Portgroup {
		if pg.Spec.Name == name || (name == "" && strings.Contains(strings.ToLower(pg.Spec.Name), "vsan")) {
			return &h.Config.Network.Portgroup[i], nil
		}
		names = append(names, pg.Spec.Name)
	}
	return nil, fmt.Errorf("host %s has no standard-switch portgroup for vSAN: no VMkernel NIC is tagged for vSAN and none of its portgroups (%s) is named like vSAN", h.Name, strings.Join(names, ", "))
}

// vsanConfig reads the cluster's vSAN configuration.
func (c *Client) vsanConfig(ctx context.Context) (*vsanext.ConfigInfoEx, error) {
	cfg, err := vsanext.GetConfig(ctx, c.vsan, c.cluster.Reference())
	if err != nil {
		return nil, fmt.Errorf("reading the vSAN configuration of cluster %s: %w", c.cluster.Name(), err)
	}
	return cfg, nil
}

// architectureOf is "ESA" or "OSA".
func architectureOf(cfg *vsanext.ConfigInfoEx) string {
	if cfg.VsanEsaEnabled != nil && *cfg.VsanEsaEnabled {
		return "ESA"
	}
	return "OSA"
}

// architecture reports "ESA" or "OSA".
func (c *Client) architecture(ctx context.Context) (string, error) {
	cfg, err := c.vsanConfig(ctx)
	if err != nil {
		return "", err
	}
	return architectureOf(cfg), nil
}

// State reads the cluster's settings.
func (c *Client) State(ctx context.Context) (ClusterState, error) {
	cfg, err := c.vsanConfig(ctx)
	if err != nil {
		return ClusterState{}, err
	}
	st := ClusterState{Architecture: architectureOf(cfg)}
	if de := cfg.DataEfficiencyConfig; de != nil {
		st.Dedup = de.DedupEnabled
		st.Compression = de.CompressionEnabled != nil && *de.CompressionEnabled
	}
	if cfg.RdmaConfig != nil {
		st.RDMA = cfg.RdmaConfig.RdmaEnabled
	}
	hosts, err := c.hosts(ctx, "config.network", "config.virtualNicManagerInfo")
	if err != nil {
		return ClusterState{}, err
	}
	for _, h := range hosts {
		pg, err := vsanPortgroup(h)
		if err != nil {
			return ClusterState{}, err
		}
		active, standby := nicOrder(pg.Spec.Policy.NicTeaming)
		if len(active) == 0 {
			active, standby = vswitchOrder(h, pg.Spec.VswitchName)
		}
		if st.ActiveNICs == nil {
			st.ActiveNICs, st.StandbyNICs = active, standby
			st.Uplink = uplinkName(h, active)
		} else if !slices.Equal(st.ActiveNICs, active) {
			return ClusterState{}, fmt.Errorf("the hosts of cluster %s disagree on the vSAN uplinks: %s uses %s, %s uses %s",
				c.cluster.Name(), hosts[0].Name, strings.Join(st.ActiveNICs, "+"), h.Name, strings.Join(active, "+"))
		}
	}
	return st, nil
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

// ClusterState is the cluster's state as the data-plane model sees it.
func (c *Client) ClusterState(ctx context.Context) (model.ClusterState, error) {
	st, err := c.State(ctx)
	if err != nil {
		return model.ClusterState{}, err
	}
	return model.ClusterState{Compression: st.Compression, Dedup: st.Dedup, RDMA: st.RDMA, Uplink: st.Uplink}, nil
}

var _ model.StateSource = (*Client)(nil)

// Configure applies settings, reads every one back to verify it took, and
// returns the state from before.
func (c *Client) Configure(ctx context.Context, s ClusterSettings) (ClusterState, error) {
	prev, err := c.State(ctx)
	if err != nil {
		return ClusterState{}, err
	}
	if s.Dedup != nil && *s.Dedup && prev.Architecture == "ESA" {
		return prev, fmt.Errorf("dedup is not available on vSAN ESA (cluster %s): leave dedup unset or False", c.cluster.Name())
	}
	want := prev
	spec := vsanext.ReconfigSpec{}
	spec.Modify = true
	if s.Compression != nil || s.Dedup != nil {
		if s.Compression != nil {
			want.Compression = *s.Compression
		}
		if s.Dedup != nil {
			want.Dedup = *s.Dedup
		}
		if want.Dedup && !want.Compression {
			switch {
			case s.Compression != nil && s.Dedup != nil:
				return prev, fmt.Errorf("dedup=True needs compression=True: vSAN deduplicates only compressed data")
			case s.Compression != nil:
				return prev, fmt.Errorf("compression=False needs dedup=False too: cluster %s deduplicates, and vSAN deduplicates only compressed data", c.cluster.Name())
			}
			want.Compression = true
		}
		spec.DataEfficiencyConfig = &vsantypes.VsanDataEfficiencyConfig{
			DedupEnabled: want.Dedup, CompressionEnabled: types.NewBool(want.Compression),
		}
	}
	if s.RDMA != nil {
		want.RDMA = *s.RDMA
		spec.RdmaConfig = &vsanext.RdmaConfig{RdmaEnabled: want.RDMA}
	}
	if spec.DataEfficiencyConfig != nil || spec.RdmaConfig != nil {
		err := c.do(ctx, "reconfigure vSAN of cluster", c.cluster.Name(), "VsanClusterReconfig", func(ctx context.Context) error {
			ref, err := vsanext.Reconfigure(ctx, c.vsan, c.cluster.Reference(), spec)
			if err != nil {
				return err
			}
			return object.NewTask(c.vim, ref).Wait(ctx)
		})
		if err != nil {
			return prev, err
		}
	}
	if s.Uplink != "" {
		if err := c.setUplink(ctx, s.Uplink); err != nil {
			return prev, err
		}
	}
	got, err := c.State(ctx)
	if err != nil {
		return prev, err
	}
	if got.Compression != want.Compression || got.Dedup != want.Dedup || got.RDMA != want.RDMA {
		return prev, fmt.Errorf("cluster %s did not take the settings: asked compression=%v dedup=%v rdma=%v, reads back compression=%v dedup=%v rdma=%v",
			c.cluster.Name(), want.Compression, want.Dedup, want.RDMA, got.Compression, got.Dedup, got.RDMA)
	}
	return prev, nil
}

// setUplink makes uplink the active NICs of every host's vSAN portgroup,
// the others standby, and checks each host took it.
func (c *Client) setUplink(ctx context.Context, uplink string) error {
	hosts, err := c.hosts(ctx, "config.network", "config.virtualNicManagerInfo", "configManager.networkSystem")
	if err != nil {
		return err
	}
	for _, h := range hosts {
		active, err := resolveUplink(h, uplink)
		if err != nil {
			return err
		}
		pg, err := vsanPortgroup(h)
		if err != nil {
			return err
		}
		var standby []string
		for _, n := range nics(h) {
			if !slices.Contains(active, n.Name) {
				standby = append(standby, n.Name)
			}
		}
		spec := pg.Spec
		teaming := types.HostNicTeamingPolicy{}
		if spec.Policy.NicTeaming != nil {
			teaming = *spec.Policy.NicTeaming
		}
		teaming.NicOrder = &types.HostNicOrderPolicy{ActiveNic: active, StandbyNic: standby}
		spec.Policy.NicTeaming = &teaming
		ns := object.NewHostNetworkSystem(c.vim, *h.ConfigManager.NetworkSystem)
		err = c.do(ctx, "set the vSAN uplinks of host", h.Name, "UpdatePortGroup", func(ctx context.Context) error {
			return ns.UpdatePortGroup(ctx, spec.Name, spec)
		})
		if err != nil {
			return err
		}
	}
	after, err := c.hosts(ctx, "config.network", "config.virtualNicManagerInfo")
	if err != nil {
		return err
	}
	for _, h := range after {
		pg, err := vsanPortgroup(h)
		if err != nil {
			return err
		}
		want, _ := resolveUplink(h, uplink)
		if got, _ := nicOrder(pg.Spec.Policy.NicTeaming); !slices.Equal(got, want) {
			return fmt.Errorf("host %s did not take uplink %q: its vSAN portgroup's active NICs are %s", h.Name, uplink, strings.Join(got, ", "))
		}
	}
	return nil
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
