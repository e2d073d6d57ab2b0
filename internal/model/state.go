// Package model is the simulated vSAN data plane: a closed queueing network per
// testbed, solved by Mean Value Analysis (see docs/model.md).
package model

import "context"

// ClusterState is what the model needs to know of the cluster's settings.
type ClusterState struct {
	Compression bool
	Dedup       bool
	RDMA        bool
	// TransitEncryption is vSAN's data-in-transit encryption: every host
	// encrypts what it sends another host and decrypts what it receives.
	TransitEncryption bool
	// RestEncryption is vSAN's data-at-rest encryption (AES-256-XTS): ESA
	// encrypts once in the DOM after compression, OSA on the cache tier
	// and again at destage.
	RestEncryption bool
	// Uplink names the active uplink choice of the testbed profile ("10g", "25g").
	Uplink string
	// ActiveNICs are the vSAN portgroup's active NICs and LAG the link
	// aggregation group carrying them ("" for none), as the control plane
	// reads them; when given they decide the teaming, else the profile's
	// uplink choice named by Uplink does.
	ActiveNICs []string
	LAG        string
}

// Policy is a storage policy as the model sees it.
type Policy struct {
	RAID        string // "raid1", "raid5", "raid6"
	FTT         int
	StripeWidth int
	// ChecksumDisabled is vSAN's "Disable object checksum" rule: the
	// object's data gets no CRC-32C.
	ChecksumDisabled bool
	// IOPSLimit is vSAN's "IOPS limit for object": the most I/Os a second
	// the object serves, each counted in 32 KiB units; 0 for none.
	IOPSLimit int
	// Compression is the policy's space-efficiency rule (vSAN ESA sets
	// compression per policy); Inherit leaves it to the cluster setting.
	Compression Override
}

// Override is a policy rule that may override a cluster-wide setting.
type Override int8

// The values of an Override.
const (
	Inherit Override = iota // the cluster's setting holds
	On
	Off
)

// StateSource reads the cluster's state through the control plane (vcsim or a
// real vCenter), so the model sees exactly what the scripts configured.
type StateSource interface {
	ClusterState(ctx context.Context) (ClusterState, error)
	Policy(ctx context.Context, name string) (Policy, error)
}
