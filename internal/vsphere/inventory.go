package vsphere

import (
	"context"
	"fmt"
	"sort"

	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// Inventory is what the cluster has, as scripts see it.
type Inventory struct {
	Datacenter string
	Cluster    string
	Hosts      []Host
	Datastores []Datastore
	Networks   []Network
}

// Host is one ESXi host of the cluster.
type Host struct {
	Name      string
	Ref       string // managed object id, "host-21"
	CPUModel  string
	Sockets   int
	Cores     int
	Threads   int
	GHz       float64
	MemoryGB  float64
	NICs      []NIC
	Connected bool
	Version   string // ESXi product, "VMware ESXi 8.0.2 build-22380479"
}

// NIC is one physical NIC of a host.
type NIC struct {
	Name      string
	SpeedGbps float64 // 0 when the link is down
}

// Datastore is one datastore mounted on the cluster.
type Datastore struct {
	Name       string
	Type       string // "vsan", "VMFS", "NFS", ...
	CapacityGB float64
	FreeGB     float64
}

// Network is one network of the datacenter.
type Network struct {
	Name string
	Type string // "Network", "DistributedVirtualPortgroup", ...
}

// Inventory reads the cluster's hosts, datastores and networks.
func (c *Client) Inventory(ctx context.Context) (*Inventory, error) {
	inv := &Inventory{Datacenter: c.dc.Name(), Cluster: c.cluster.Name()}
	hosts, err := c.hosts(ctx, "summary", "config.network.pnic", "runtime.connectionState")
	if err != nil {
		return nil, err
	}
	for _, h := range hosts {
		hw := h.Summary.Hardware
		host := Host{Name: h.Name, Ref: h.Self.Value, Connected: h.Runtime.ConnectionState == types.HostSystemConnectionStateConnected}
		if hw != nil {
			host.CPUModel = hw.CpuModel
			host.Sockets = int(hw.NumCpuPkgs)
			host.Cores = int(hw.NumCpuCores)
			host.Threads = int(hw.NumCpuThreads)
			host.GHz = float64(hw.CpuMhz) / 1000
			host.MemoryGB = float64(hw.MemorySize) / (1 << 30)
		}
		if cfg := h.Summary.Config.Product; cfg != nil {
			host.Version = cfg.FullName
		}
		host.NICs = nics(h)
		inv.Hosts = append(inv.Hosts, host)
	}

	var cl mo.ClusterComputeResource
	if err := c.cluster.Properties(ctx, c.cluster.Reference(), []string{"datastore", "network"}, &cl); err != nil {
		return nil, fmt.Errorf("reading cluster %s: %w", c.cluster.Name(), err)
	}
	pc := property.DefaultCollector(c.vim)
	if len(cl.Datastore) > 0 {
		var dss []mo.Datastore
		if err := pc.Retrieve(ctx, cl.Datastore, []string{"summary"}, &dss); err != nil {
			return nil, fmt.Errorf("reading datastores: %w", err)
		}
		for _, ds := range dss {
			inv.Datastores = append(inv.Datastores, Datastore{
				Name: ds.Summary.Name, Type: ds.Summary.Type,
				CapacityGB: float64(ds.Summary.Capacity) / (1 << 30),
				FreeGB:     float64(ds.Summary.FreeSpace) / (1 << 30),
			})
		}
	}
	if len(cl.Network) > 0 {
		var nets []mo.Network
		if err := pc.Retrieve(ctx, cl.Network, []string{"name"}, &nets); err != nil {
			return nil, fmt.Errorf("reading networks: %w", err)
		}
		for _, n := range nets {
			inv.Networks = append(inv.Networks, Network{Name: n.Name, Type: n.Self.Type})
		}
	}
	sort.Slice(inv.Datastores, func(i, j int) bool { return inv.Datastores[i].Name < inv.Datastores[j].Name })
	sort.Slice(inv.Networks, func(i, j int) bool { return inv.Networks[i].Name < inv.Networks[j].Name })
	return inv, nil
}

// hosts returns the cluster's hosts with props (and name), sorted by name.
func (c *Client) hosts(ctx context.Context, props ...string) ([]mo.HostSystem, error) {
	refs, err := c.cluster.Hosts(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the hosts of cluster %s: %w", c.cluster.Name(), err)
	}
	if len(refs) == 0 {
		return nil, fmt.Errorf("cluster %s has no hosts", c.cluster.Name())
	}
	var ids []types.ManagedObjectReference
	for _, r := range refs {
		ids = append(ids, r.Reference())
	}
	var hosts []mo.HostSystem
	if err := property.DefaultCollector(c.vim).Retrieve(ctx, ids, append([]string{"name"}, props...), &hosts); err != nil {
		return nil, fmt.Errorf("reading hosts: %w", err)
	}
	sort.Slice(hosts, func(i, j int) bool { return hosts[i].Name < hosts[j].Name })
	return hosts, nil
}

// nics lists a host's physical NICs with their link speeds.
func nics(h mo.HostSystem) []NIC {
	var out []NIC
	if h.Config == nil || h.Config.Network == nil {
		return out
	}
	for _, p := range h.Config.Network.Pnic {
		n := NIC{Name: p.Device}
		if p.LinkSpeed != nil {
			n.SpeedGbps = float64(p.LinkSpeed.SpeedMb) / 1000
		}
		out = append(out, n)
	}
	return out
}
