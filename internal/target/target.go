// Package target opens what a session drives: the embedded simulator (vcsim
// with vSAN extensions + the queueing model), a real vCenter, or the embedded
// control plane with local fio servers as workers.
package target

import (
	"starbench/internal/fio"
	"starbench/internal/sim"
	"starbench/internal/testbed"
	"starbench/internal/vsphere"
)

// Kind names a target.
type Kind string

// The targets a session can drive.
const (
	Embedded Kind = "embedded" // vcsim + simulated data plane
	VCenter  Kind = "vcenter"  // a real vCenter (GOVC_URL) + real fio on the workers
	Local    Kind = "local"    // vcsim control plane + real fio servers on loopback
)

// Target is an opened target.
type Target struct {
	Kind    Kind
	VSphere *vsphere.Client
	Testbed *testbed.Profile // the simulated cluster; nil on a real vCenter
	// Sim is the embedded simulator (embedded and local targets), through
	// which a simulated data plane reports host load; nil on a real vCenter.
	Sim *sim.Sim
	// DataPlane runs workloads: the model on the embedded target, real fio
	// (client/server) on the vcenter and local targets.
	DataPlane fio.DataPlane
	// Simulated is true when results come from the model, not from fio.
	Simulated bool
}
