package vsphere

import (
	"context"
	"fmt"

	"github.com/vmware/govmomi/crypto"
	"github.com/vmware/govmomi/object"
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
	// TransitEncryption is vSAN's data-in-transit encryption (AES-256
	// between hosts, no key server needed).
	TransitEncryption *bool
	// RestEncryption is vSAN's data-at-rest encryption, with keys from
	// KeyProvider ("": vCenter's default key provider). On OSA turning it
	// on or off reformats every disk group, one at a time.
	RestEncryption *bool
	KeyProvider    string
	// Uplink picks the vSAN portgroup's active NICs: a link speed ("10g",
	// "25g") naming the NICs of that speed, NIC names ("vmnic2,vmnic3"), or
	// on a distributed switch a LAG's name.
	Uplink string
}

// ClusterState is what the settings are.
type ClusterState struct {
	Compression       bool
	Dedup             bool
	RDMA              bool
	TransitEncryption bool
	RestEncryption    bool
	// KeyProvider is the key provider of data-at-rest encryption, "" when off.
	KeyProvider string
	// Uplink is the speed of the active vSAN NICs ("25g"), or their names
	// when their speeds differ.
	Uplink      string
	ActiveNICs  []string
	StandbyNICs []string
	// LAG is the link aggregation group carrying vSAN, "" when none does.
	LAG string
	// Switch says which switch and portgroup carry vSAN.
	Switch string
	// Architecture is "ESA" or "OSA".
	Architecture string
	// RDMAMissing is what keeps the hosts from running RDMA (an RDMA
	// device, RoCE v2, a link up); RDMATeaming what the uplinks' teaming
	// does to it ("" on failover teaming). RDMAActive: RDMA is on and runs.
	RDMAMissing []string
	RDMATeaming string
	RDMAActive  bool

	ipHash     bool // the standard vSAN portgroups balance by IP hash
	rdmaIssues []rdmaIssue
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
	return cachedRead(c.cache, "state", cloneState, func() (ClusterState, error) { return c.state(ctx) })
}

func (c *Client) state(ctx context.Context) (ClusterState, error) {
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
	if dit := cfg.DataInTransitEncryptionConfig; dit != nil {
		st.TransitEncryption = dit.Enabled != nil && *dit.Enabled
	}
	if de := cfg.DataEncryptionConfig; de != nil && de.EncryptionEnabled {
		st.RestEncryption = true
		if de.KmsProviderId != nil {
			st.KeyProvider = de.KmsProviderId.Id
		}
	}
	if err := c.uplinkState(ctx, &st); err != nil {
		return ClusterState{}, err
	}
	st.RDMAMissing, st.rdmaIssues = grouped(st.rdmaIssues), nil
	st.RDMATeaming = rdmaTeaming(st, st.ipHash)
	st.RDMAActive = st.RDMA && len(st.RDMAMissing) == 0
	return st, nil
}

// reconfigureVSAN applies spec to the cluster's vSAN (VsanClusterReconfig)
// and waits for the task.
func (c *Client) reconfigureVSAN(ctx context.Context, op string, spec vsanext.ReconfigSpec) error {
	spec.Modify = true
	return c.do(ctx, op, c.cluster.Name(), "VsanClusterReconfig", func(ctx context.Context) error {
		_, err := waitTask(ctx, func(ctx context.Context) (*object.Task, error) {
			ref, err := vsanext.Reconfigure(ctx, c.vsan, c.cluster.Reference(), spec)
			if err != nil {
				return nil, err
			}
			return object.NewTask(c.vim, ref), nil
		})
		return err
	})
}

// setBack undoes a call's uplink change (when it made one) after cause
// stopped the rest of it, and says so in the error.
func (c *Client) setBack(ctx context.Context, cause error, changed bool, undo func(context.Context) error, uplink string) error {
	if !changed {
		return cause
	}
	if err := undo(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("%w; setting the vSAN uplinks back to %s failed too: %v", cause, uplink, err)
	}
	return fmt.Errorf("%w (the vSAN uplinks were set back to %s)", cause, uplink)
}

// ClusterState is the cluster's state as the data-plane model sees it.
func (c *Client) ClusterState(ctx context.Context) (model.ClusterState, error) {
	st, err := c.State(ctx)
	if err != nil {
		return model.ClusterState{}, err
	}
	// vSAN runs over RDMA only where every host can; elsewhere it stays on
	// TCP. Over a LAG the model puts RDMA on one of its links.
	return model.ClusterState{Compression: st.Compression, Dedup: st.Dedup, RDMA: st.RDMAActive, TransitEncryption: st.TransitEncryption, RestEncryption: st.RestEncryption, Uplink: st.Uplink, ActiveNICs: st.ActiveNICs, LAG: st.LAG}, nil
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
	if err := c.recordChange(KindCluster, c.cluster.Name(), "", func() (any, error) { return settingsOf(prev), nil }); err != nil {
		return prev, err
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
	if s.TransitEncryption != nil {
		want.TransitEncryption = *s.TransitEncryption
		spec.DataInTransitEncryptionConfig = &vsantypes.VsanDataInTransitEncryptionConfig{Enabled: types.NewBool(want.TransitEncryption)}
	}
	// Only a change is sent: on OSA vSAN reformats every disk group for it.
	if s.RestEncryption != nil && (*s.RestEncryption != prev.RestEncryption || *s.RestEncryption && s.KeyProvider != "" && s.KeyProvider != prev.KeyProvider) {
		want.RestEncryption = *s.RestEncryption
		de := &vsantypes.VsanDataEncryptionConfig{EncryptionEnabled: want.RestEncryption}
		if want.RestEncryption {
			kp, err := c.keyProvider(ctx, s.KeyProvider)
			if err != nil {
				return prev, err
			}
			de.KmsProviderId = &types.KeyProviderId{Id: kp}
		}
		spec.DataEncryptionConfig = de
	}
	// The uplinks go first: they can be set back exactly if vSAN then
	// refuses its part, so a failed call leaves the cluster as it was.
	undoUplink := func(context.Context) error { return nil }
	if s.Uplink != "" {
		if undoUplink, err = c.setUplink(ctx, s.Uplink); err != nil {
			return prev, err
		}
	}
	if s.RDMA != nil && *s.RDMA {
		// Checked on the uplinks the call leaves, before vSAN changes.
		now, err := c.state(ctx)
		if err == nil && len(now.RDMAMissing) > 0 {
			err = rdmaRefusal(c.cluster.Name(), now.RDMAMissing)
		}
		if err != nil {
			return prev, c.setBack(ctx, err, s.Uplink != "", undoUplink, prev.Uplink)
		}
	}
	if spec.DataEfficiencyConfig != nil || spec.RdmaConfig != nil || spec.DataInTransitEncryptionConfig != nil || spec.DataEncryptionConfig != nil {
		if err := c.reconfigureVSAN(ctx, "reconfigure vSAN of cluster", spec); err != nil {
			if spec.DataEncryptionConfig != nil && prev.Architecture == "ESA" {
				err = fmt.Errorf("%w (vSAN ESA sets data-at-rest encryption when the cluster is created, and keeps it)", err)
			}
			return prev, c.setBack(ctx, err, s.Uplink != "", undoUplink, prev.Uplink)
		}
	}
	got, err := c.State(ctx)
	if err != nil {
		return prev, err
	}
	if got.Compression != want.Compression || got.Dedup != want.Dedup || got.RDMA != want.RDMA || got.TransitEncryption != want.TransitEncryption || got.RestEncryption != want.RestEncryption {
		return prev, fmt.Errorf("cluster %s did not take the settings: asked compression=%v dedup=%v rdma=%v transit_encryption=%v rest_encryption=%v, reads back compression=%v dedup=%v rdma=%v transit_encryption=%v rest_encryption=%v",
			c.cluster.Name(), want.Compression, want.Dedup, want.RDMA, want.TransitEncryption, want.RestEncryption, got.Compression, got.Dedup, got.RDMA, got.TransitEncryption, got.RestEncryption)
	}
	return prev, nil
}

// keyProvider is the key provider data-at-rest encryption takes its keys
// from: the one named, which vCenter must know, or vCenter's default for
// the cluster.
func (c *Client) keyProvider(ctx context.Context, name string) (string, error) {
	m, err := crypto.GetManagerKmip(c.vim)
	if err != nil {
		return "", fmt.Errorf("rest_encryption: vCenter's key management: %w", err)
	}
	if name != "" {
		ok, err := m.IsValidProvider(ctx, name)
		switch {
		case err != nil:
			return "", fmt.Errorf("rest_encryption: key provider %q: %w", name, err)
		case !ok:
			return "", fmt.Errorf("rest_encryption: vCenter has no key provider %q: give one it has (Configure > Security > Key Providers), or leave key_provider out for its default", name)
		}
		return name, nil
	}
	ref := c.cluster.Reference()
	// vCenter answers a fault, or nothing, where there is no default.
	id, err := m.GetDefaultKmsClusterID(ctx, &ref, true)
	if err != nil || id == "" {
		why := ""
		if err != nil {
			why = fmt.Sprintf(" (%v)", err)
		}
		return "", fmt.Errorf("rest_encryption needs a key provider and vCenter has no default one for cluster %s%s: add a key server or a vSphere Native Key Provider (Configure > Security > Key Providers), or give key_provider=", c.cluster.Name(), why)
	}
	return id, nil
}
