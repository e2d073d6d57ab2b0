// Package testbed describes clusters as data: the hardware of a vSAN cluster,
// how its worker VMs are laid out, and the model parameters of its data plane.
// The embedded simulator (internal/sim) builds its inventory from a profile and
// the queueing model (internal/model) predicts its performance from one.
// Users describe their own clusters in the same JSON shape.
package testbed

// Profile is one cluster. Every number carries its unit in its name.
type Profile struct {
	Name        string `json:"name"`        // e.g. "storagereview-r6625-esa"
	Description string `json:"description"` // one line
	Source      string `json:"source"`      // the public report the hardware comes from

	Architecture string `json:"architecture"` // "ESA" or "OSA"
	VSANRelease  string `json:"vsan_release"` // e.g. "8.0 U2"
	Hosts        int    `json:"hosts"`

	CPU      CPU `json:"cpu"`       // per host
	MemoryGB int `json:"memory_gb"` // per host

	// Storage per host. ESA: Capacity devices only (DiskGroups 0).
	// OSA: DiskGroups groups, each of one Cache device and CapacityPerGroup Capacity devices.
	Storage Storage `json:"storage"`

	// NICs per host (vmnic0...). Uplinks name the choices a campaign flips between.
	NICs    []NIC    `json:"nics"`
	Uplinks []Uplink `json:"uplinks"`
	// RDMACapable says whether every host's vSAN NICs can run RoCEv2.
	RDMACapable bool `json:"rdma_capable"`
	// VSANNetwork is the switch carrying the vSAN vmkernel NIC (nil: a
	// standard switch; see Network).
	VSANNetwork *VSANNetwork `json:"vsan_network,omitempty"`

	// Workers is the report's worker VM layout, the default for deploy_workers.
	Workers WorkerLayout `json:"workers"`

	// Model holds the data-plane parameters (see internal/model and docs/model.md).
	Model ModelParams `json:"model"`
}

// CPU is one host's processors.
type CPU struct {
	Model          string  `json:"model"`
	Sockets        int     `json:"sockets"`
	CoresPerSocket int     `json:"cores_per_socket"`
	GHz            float64 `json:"ghz"` // base clock
}

// Cores is the host's physical core count.
func (c CPU) Cores() int { return c.Sockets * c.CoresPerSocket }

// Storage is one host's vSAN devices.
type Storage struct {
	DiskGroups       int    `json:"disk_groups,omitempty"`        // OSA only
	CapacityPerGroup int    `json:"capacity_per_group,omitempty"` // OSA only
	Cache            Device `json:"cache,omitempty"`              // OSA only
	Capacity         Device `json:"capacity"`
	// CapacityDevices is the number of capacity devices per host (ESA: all of them).
	CapacityDevices int `json:"capacity_devices"`
}

// Device is one SSD model with its datasheet rates.
type Device struct {
	Model      string  `json:"model,omitempty"`
	CapacityGB float64 `json:"capacity_gb,omitempty"`
	ReadMBps   float64 `json:"read_mbps,omitempty"`  // sequential read
	WriteMBps  float64 `json:"write_mbps,omitempty"` // sequential write
	ReadIOPS   float64 `json:"read_iops,omitempty"`  // 4K random read
	WriteIOPS  float64 `json:"write_iops,omitempty"` // 4K random write
	LatencyUs  float64 `json:"latency_us,omitempty"` // 4K read at queue depth 1
	Source     string  `json:"source,omitempty"`     // datasheet or public figure
}

// NIC is one physical uplink of a host.
type NIC struct {
	Name      string  `json:"name"` // vmnic0
	SpeedGbps float64 `json:"speed_gbps"`
}

// Uplink is a named choice of active NICs for the vSAN vmkernel portgroup
// (e.g. "10g" = vmnic0+vmnic1); LACP means the pair carries traffic together.
type Uplink struct {
	Name string   `json:"name"`
	NICs []string `json:"nics"`
	LACP bool     `json:"lacp"`
}

// WorkerLayout is the worker VM shape a report used.
type WorkerLayout struct {
	PerHost    int `json:"per_host"`
	CPUs       int `json:"cpus"`
	MemoryMB   int `json:"memory_mb"`
	DataDisks  int `json:"data_disks"`
	DiskSizeGB int `json:"disk_size_gb"`
}
