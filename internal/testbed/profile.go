// Package testbed describes clusters as data: the hardware of a vSAN cluster,
// how its worker VMs are laid out, and the model parameters of its data plane.
// The embedded simulator (internal/sim) builds its inventory from a profile and
// the queueing model (internal/model) predicts its performance from one.
// Users describe their own clusters in the same JSON shape.
package testbed

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
)

// Profile is one cluster. Every number carries its unit in its name.
type Profile struct {
	Name        string `json:"name"`        // e.g. "storagereview-r6625-esa"
	Description string `json:"description"` // one line
	Source      string `json:"source"`      // the public report the hardware comes from

	// Calibration names the published table the model's fitted parameters
	// were fitted on for this platform ("storagereview-esa-8u2.csv"); ""
	// means uncalibrated: the shared parameters and this hardware only.
	Calibration string `json:"calibration,omitempty"`

	Architecture string `json:"architecture"` // "ESA" or "OSA"
	VSANRelease  string `json:"vsan_release"` // e.g. "8.0 U2"
	Hosts        int    `json:"hosts"`

	CPU      CPU `json:"cpu"`       // per host
	MemoryGB int `json:"memory_gb"` // per host
	// MemoryChannels is the number of populated DDR channels per host and
	// MemoryMTs their transfer rate in MT/s (4800 for DDR5-4800): together
	// the host's memory bandwidth. 0: not given (no memory bound).
	MemoryChannels int    `json:"memory_channels,omitempty"`
	MemoryMTs      int    `json:"memory_mts,omitempty"`
	MemorySource   string `json:"memory_source,omitempty"`

	// Storage per host. ESA: Capacity devices only (DiskGroups 0).
	// OSA: DiskGroups groups, each of one Cache device and CapacityPerGroup Capacity devices.
	Storage Storage `json:"storage"`

	// NICs per host (vmnic0...). Uplinks name the choices a campaign flips between.
	NICs    []NIC    `json:"nics"`
	Uplinks []Uplink `json:"uplinks"`
	// RDMACapable says whether every host's vSAN NICs can run RoCEv2.
	RDMACapable bool `json:"rdma_capable"`
	// RestEncryption says the cluster was created with vSAN's data-at-rest
	// encryption on: how an encrypted ESA cluster is simulated, as ESA
	// cannot turn it on later.
	RestEncryption bool `json:"rest_encryption,omitempty"`
	// MTU of the vSAN vmkernel network (1500 or 9000); 0: vSphere's 1500.
	MTU int `json:"mtu,omitempty"`
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
	Model          string `json:"model"`
	Sockets        int    `json:"sockets"`
	CoresPerSocket int    `json:"cores_per_socket"`
	// ThreadsPerCore is 2 with SMT (Hyper-Threading) on, 1 without; 0 is
	// read as 1.
	ThreadsPerCore int     `json:"threads_per_core,omitempty"`
	GHz            float64 `json:"ghz"` // base clock
	// AllCoreGHz is the clock with every core busy (all-core turbo), when
	// the vendor publishes it; 0: the base clock.
	AllCoreGHz float64 `json:"all_core_ghz,omitempty"`
	Source     string  `json:"source,omitempty"`
}

// Cores is the host's physical core count.
func (c CPU) Cores() int { return c.Sockets * c.CoresPerSocket }

// Threads is the host's hardware thread count (cores x SMT threads).
func (c CPU) Threads() int { return c.Cores() * max(c.ThreadsPerCore, 1) }

// Clock is the clock in GHz the cores run at under load: the all-core
// clock when given, else the base clock.
func (c CPU) Clock() float64 {
	if c.AllCoreGHz > 0 {
		return c.AllCoreGHz
	}
	return c.GHz
}

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
	// PCIeGen and PCIeLanes are the device's link (4 and 4 for a Gen4 x4
	// NVMe); 0: not given.
	PCIeGen   int    `json:"pcie_gen,omitempty"`
	PCIeLanes int    `json:"pcie_lanes,omitempty"`
	Source    string `json:"source,omitempty"` // datasheet or public figure
}

// NIC is one physical uplink of a host.
type NIC struct {
	Name      string  `json:"name"` // vmnic0
	SpeedGbps float64 `json:"speed_gbps"`
	// Card names the adapter the port is on: ports of one card share its
	// PCIe link (PCIeGen, PCIeLanes; 0: not given).
	Card      string `json:"card,omitempty"`
	PCIeGen   int    `json:"pcie_gen,omitempty"`
	PCIeLanes int    `json:"pcie_lanes,omitempty"`
}

// Uplink is a named choice of active NICs for the vSAN vmkernel portgroup
// (e.g. "10g" = vmnic0+vmnic1); LACP means the pair carries traffic together.
type Uplink struct {
	Name string   `json:"name"`
	NICs []string `json:"nics"`
	LACP bool     `json:"lacp"`
	// Source says where the teaming comes from: the report's network, or
	// the vendor's default for vSAN's port group.
	Source string `json:"source,omitempty"`
}

// WorkerLayout is the worker VM shape a report used.
type WorkerLayout struct {
	PerHost    int `json:"per_host"`
	CPUs       int `json:"cpus"`
	MemoryMB   int `json:"memory_mb"`
	DataDisks  int `json:"data_disks"`
	DiskSizeGB int `json:"disk_size_gb"`
	// Controller is the data disks' virtual controller: "pvscsi" (the
	// default), "lsilogic" or "nvme".
	Controller string `json:"controller,omitempty"`
}

// The virtual controllers a worker's data disks can sit on.
const (
	PVSCSI   = "pvscsi"
	LSILogic = "lsilogic"
	VNVMe    = "nvme"
)

// PCIeBytesPerSec is the usable payload rate of a PCIe link of gen and
// lanes in bytes per second (after line coding; TLP overhead is left to the
// caller), or 0 when either is not given.
func PCIeBytesPerSec(gen, lanes int) float64 {
	// Per-lane transfer rates in GT/s and line coding of PCIe 1.0 to 6.0.
	rate := map[int]float64{1: 2.5 * 0.8, 2: 5.0 * 0.8, 3: 8.0 * 128 / 130, 4: 16.0 * 128 / 130, 5: 32.0 * 128 / 130, 6: 64.0 * 242 / 256}[gen]
	return rate * 1e9 / 8 * float64(lanes)
}

// MemoryBytesPerSec is a host's peak memory bandwidth (channels x MT/s x 8
// bytes), or 0 when not given.
func (p *Profile) MemoryBytesPerSec() float64 {
	return float64(p.MemoryChannels) * float64(p.MemoryMTs) * 1e6 * 8
}

// Digest names p's content, hardware and model parameters with their
// sources: the first 12 hex digits of the SHA-256 of its JSON ("" for a
// profile that does not encode, which a loaded one always does). Two
// profiles with one digest simulate alike.
func (p *Profile) Digest() string {
	b, err := json.Marshal(p)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))[:12]
}
