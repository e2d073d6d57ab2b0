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
// (compression, deduplication), RDMA and data-in-transit and data-at-rest
// encryption, and refuses what the testbed's hardware cannot do.
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
		if c.sim.Testbed.RestEncryption { // created encrypted, with vCenter's default key provider
			info.DataEncryptionConfig = &vsantypes.VsanDataEncryptionConfig{EncryptionEnabled: true, KmsProviderId: &types.KeyProviderId{Id: KeyProvider}}
		}
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
	if de := spec.DataEncryptionConfig; de != nil {
		if fault := c.restEncryption(info, de); fault != nil {
			return fault
		}
		copied := *de
		info.DataEncryptionConfig = &copied
	}
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

// restEncryption checks a data-at-rest encryption change as vSAN does:
// ESA chooses it when the cluster is created and keeps it, and turning it
// on takes a key provider vCenter knows.
func (c *clusterConfigSystem) restEncryption(info *vsanext.ConfigInfoEx, de *vsantypes.VsanDataEncryptionConfig) types.BaseMethodFault {
	on := info.DataEncryptionConfig != nil && info.DataEncryptionConfig.EncryptionEnabled
	if c.sim.Testbed.Architecture == "ESA" && de.EncryptionEnabled != on {
		return &types.InvalidState{}
	}
	if !de.EncryptionEnabled {
		return nil
	}
	if de.KmsProviderId == nil {
		return &types.InvalidArgument{InvalidProperty: "dataEncryptionConfig.kmsProviderId"}
	}
	for _, kp := range c.sim.model.Map().CryptoManager().KmipServers {
		if kp.ClusterId.Id == de.KmsProviderId.Id {
			return nil
		}
	}
	return &types.InvalidArgument{InvalidProperty: "dataEncryptionConfig.kmsProviderId"}
}

// perfEnabled says whether cluster's vSAN performance service is on.
func (c *clusterConfigSystem) perfEnabled(cluster types.ManagedObjectReference) bool {
	info := c.info(cluster)
	return info.PerfsvcConfig != nil && info.PerfsvcConfig.Enabled
}
