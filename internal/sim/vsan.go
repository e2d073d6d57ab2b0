package sim

import (
	"sync"

	"github.com/google/uuid"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
	"github.com/vmware/govmomi/vsan"
	vsantypes "github.com/vmware/govmomi/vsan/types"

	"starbench/internal/vsphere/vsanext"
)

// clusterConfigSystem replaces the stock vSAN cluster config system, which
// keeps only unmap and file-service settings: it persists data efficiency
// (compression, deduplication), RDMA and data-in-transit encryption, and
// refuses what the testbed's hardware cannot do.
type clusterConfigSystem struct {
	types.ManagedObjectReference
	sim *Sim

	mu     sync.Mutex
	config map[types.ManagedObjectReference]*vsanext.ConfigInfoEx
}

func newClusterConfigSystem(s *Sim) *clusterConfigSystem {
	return &clusterConfigSystem{
		ManagedObjectReference: vsan.VsanVcClusterConfigSystemInstance,
		sim:                    s,
		config:                 map[types.ManagedObjectReference]*vsanext.ConfigInfoEx{},
	}
}

// info returns a copy of cluster's configuration.
func (c *clusterConfigSystem) info(cluster types.ManagedObjectReference) vsanext.ConfigInfoEx {
	c.mu.Lock()
	defer c.mu.Unlock()
	return *c.current(cluster)
}

func (c *clusterConfigSystem) current(cluster types.ManagedObjectReference) *vsanext.ConfigInfoEx {
	info := c.config[cluster]
	if info == nil {
		info = &vsanext.ConfigInfoEx{}
		info.Enabled = types.NewBool(true)
		info.VsanEsaEnabled = types.NewBool(c.sim.Testbed.Architecture == "ESA")
		info.DefaultConfig = &types.VsanClusterConfigInfoHostDefaultInfo{Uuid: uuid.NewString()}
		info.DataEfficiencyConfig = &vsantypes.VsanDataEfficiencyConfig{}
		info.RdmaConfig = &vsanext.RdmaConfig{}
		info.DataInTransitEncryptionConfig = &vsantypes.VsanDataInTransitEncryptionConfig{Enabled: types.NewBool(false)}
		c.config[cluster] = info
	}
	return info
}

func (c *clusterConfigSystem) VsanClusterGetConfig(_ *simulator.Context, req *vsantypes.VsanClusterGetConfig) soap.HasFault {
	return &vsanext.GetConfigBody{Res: &vsanext.ClusterGetConfigResponse{Returnval: c.info(req.Cluster)}}
}

func (c *clusterConfigSystem) VsanClusterReconfig(ctx *simulator.Context, req *vsanext.ClusterReconfig) soap.HasFault {
	task := simulator.CreateTask(c, "vsanClusterReconfig", func(*simulator.Task) (types.AnyType, types.BaseMethodFault) {
		return nil, c.reconfigure(req.Cluster, &req.VsanReconfigSpec)
	})
	return &vsanext.ReconfigBody{Res: &vsantypes.VsanClusterReconfigResponse{Returnval: task.Run(ctx)}}
}

// reconfigure validates spec against the testbed and applies it.
func (c *clusterConfigSystem) reconfigure(cluster types.ManagedObjectReference, spec *vsanext.ReconfigSpec) types.BaseMethodFault {
	p := c.sim.Testbed
	if de := spec.DataEfficiencyConfig; de != nil {
		dedup := de.DedupEnabled
		compression := de.CompressionEnabled != nil && *de.CompressionEnabled
		if dedup && p.Architecture == "ESA" {
			return &types.InvalidArgument{InvalidProperty: "dataEfficiencyConfig.dedupEnabled"}
		}
		if dedup && !compression {
			return &types.InvalidArgument{InvalidProperty: "dataEfficiencyConfig.compressionEnabled"}
		}
	}
	if r := spec.RdmaConfig; r != nil && r.RdmaEnabled && !p.RDMACapable {
		return &types.NotSupported{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	info := c.current(cluster)
	if de := spec.DataEfficiencyConfig; de != nil {
		copied := *de
		info.DataEfficiencyConfig = &copied
	}
	if r := spec.RdmaConfig; r != nil {
		copied := *r
		info.RdmaConfig = &copied
	}
	if dit := spec.DataInTransitEncryptionConfig; dit != nil {
		copied := *dit
		if copied.Enabled == nil { // vSAN keeps what is set when the spec leaves it out
			copied.Enabled = info.DataInTransitEncryptionConfig.Enabled
		}
		info.DataInTransitEncryptionConfig = &copied
	}
	if spec.UnmapConfig != nil {
		info.UnmapConfig = spec.UnmapConfig
	}
	if pc := spec.PerfsvcConfig; pc != nil {
		copied := *pc
		info.PerfsvcConfig = &copied
	}
	return nil
}

// perfEnabled says whether cluster's vSAN performance service is on.
func (c *clusterConfigSystem) perfEnabled(cluster types.ManagedObjectReference) bool {
	info := c.info(cluster)
	return info.PerfsvcConfig != nil && info.PerfsvcConfig.Enabled
}
