package testbed

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// Param is one model parameter with the place its value comes from: a
// datasheet, a public figure, or "fitted to <table>". In JSON it is
// {"value": 1.3, "source": "..."}; a value without a source is rejected.
type Param struct {
	Value  float64 `json:"value"`
	Source string  `json:"source"`
}

// Kind is the kind of source a parameter's value comes from, read from
// how its source begins: "assumption", "fitted" (to a published table or
// by starbench fit), "measured", "public figure", or else "published" (a
// datasheet, a vendor's documentation or knowledge base).
func (p Param) Kind() string {
	for _, kind := range []string{"assumption", "fitted", "measured", "public figure"} {
		if strings.HasPrefix(strings.ToLower(p.Source), kind) {
			return kind
		}
	}
	return "published"
}

// UnmarshalJSON replaces the whole parameter, so overriding a value never
// keeps the source of the default it replaced.
func (p *Param) UnmarshalJSON(b []byte) error {
	type plain Param
	var v plain
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&v); err != nil {
		return fmt.Errorf(`want {"value": number, "source": "where it comes from"}: %w`, err)
	}
	*p = Param(v)
	return nil
}

// ModelParams are the data-plane model's parameters for one testbed
// (see internal/model and docs/model.md). Architecture defaults fill every
// field a profile leaves out; a profile overrides any of them.
//
// Every CPU cost is cycles of a named software path, per I/O, per message
// or per byte: a property of the code, not of the platform. The platform
// (cores, SMT threads, clock) turns cycles into time and sets how many
// threads run them, so another host gets its own ceilings without a refit.
type ModelParams struct {
	// The guest side, on the worker VM's vCPUs: fio, the guest kernel's
	// block layer and driver, and the hypervisor's virtual controller
	// emulation, per guest I/O.
	FioIOCycles                Param `json:"fio_io_cycles"`
	ControllerIOCyclesPVSCSI   Param `json:"controller_io_cycles_pvscsi"`
	ControllerIOCyclesLSILogic Param `json:"controller_io_cycles_lsilogic"`
	ControllerIOCyclesNVMe     Param `json:"controller_io_cycles_nvme"`
	// Queue depths of the virtual controllers, per disk (LUN) and per
	// adapter: outstanding I/O beyond them waits in the guest.
	ControllerQueueLUNPVSCSI       Param `json:"controller_queue_lun_pvscsi"`
	ControllerQueueAdapterPVSCSI   Param `json:"controller_queue_adapter_pvscsi"`
	ControllerQueueLUNLSILogic     Param `json:"controller_queue_lun_lsilogic"`
	ControllerQueueAdapterLSILogic Param `json:"controller_queue_adapter_lsilogic"`
	ControllerQueueLUNNVMe         Param `json:"controller_queue_lun_nvme"`
	ControllerQueueAdapterNVMe     Param `json:"controller_queue_adapter_nvme"`
	// GuestCopyByteCycles: moving a guest I/O's bytes between vSAN's
	// buffers and guest memory (every byte, zeros and compressed data too).
	GuestCopyByteCycles Param `json:"guest_copy_byte_cycles"`
	// FsyncCycles is one fsync or fdatasync in the guest on a virtual disk
	// that reports no write cache: the system call and the empty flush
	// the guest kernel completes without sending it to the disk.
	FsyncCycles Param `json:"fsync_cycles"`

	// vSAN DOM (client and owner) on the VM's host: a pool of
	// DOMWorldsPerHost worlds per host (at most one per hardware thread),
	// whatever the host's sockets; per guest I/O DOMIOCycles + bytes x
	// (DOMByteCycles + ChecksumCyclesPerByte), plus its messages.
	DOMWorldsPerHost      Param `json:"dom_worlds_per_host"`
	DOMIOCycles           Param `json:"dom_io_cycles"`
	DOMByteCycles         Param `json:"dom_byte_cycles"`
	ChecksumCyclesPerByte Param `json:"checksum_cycles_per_byte"`
	// MixedContention multiplies the DOM's cost by
	// 1 + MixedContention x 2 x min(read share, write share).
	MixedContention Param `json:"mixed_contention"`

	// vSAN's local object manager (LSOM) on the component hosts: ESA runs
	// DeviceWorlds per capacity device, OSA DiskGroupWorlds per disk group
	// (log and elevator); each component op costs LSOMOpCycles + device
	// bytes x LSOMByteCycles, plus its messages.
	DeviceWorlds        Param `json:"device_worlds"`
	DiskGroupWorlds     Param `json:"diskgroup_worlds"`
	LSOMOpCycles        Param `json:"lsom_op_cycles"`
	LSOMReadByteCycles  Param `json:"lsom_read_byte_cycles"`
	LSOMWriteByteCycles Param `json:"lsom_write_byte_cycles"`

	// An in-memory metadata lookup: reads of blocks never written (instead
	// of a device read), and OSA's space-efficiency maps at destage.
	MetadataReadCycles Param `json:"metadata_read_cycles"`

	// The hosts' CPUs.
	// SMTYield is the extra throughput a core's second hardware thread adds.
	SMTYield Param `json:"smt_yield"`
	// ContextSwitchCycles is what a thread hand-off costs when it finds no
	// free core (a switch with cold caches): paid per hand-off of an I/O
	// in the share of hand-offs that wait, once runnable threads exceed
	// the hardware threads.
	ContextSwitchCycles Param `json:"context_switch_cycles"`
	// MemoryEfficiency is the share of peak DDR bandwidth a host sustains.
	MemoryEfficiency Param `json:"memory_efficiency"`
	// HostIdleCPUPercent is the CPU % a host shows with no load, under
	// every run's: what the simulated hosts report besides the model's.
	HostIdleCPUPercent Param `json:"host_idle_cpu_percent"`

	// Network stack costs, per message (send and receive together) and per
	// byte on each end.
	MessageCyclesTCP  Param `json:"message_cycles_tcp"`
	MessageCyclesRDMA Param `json:"message_cycles_rdma"`
	TxByteCyclesTCP   Param `json:"tx_byte_cycles_tcp"`
	RxByteCyclesTCP   Param `json:"rx_byte_cycles_tcp"`
	ByteCyclesRDMA    Param `json:"byte_cycles_rdma"`
	HopLatencyTCPUs   Param `json:"hop_latency_tcp_us"`
	HopLatencyRDMAUs  Param `json:"hop_latency_rdma_us"`
	// NICEfficiency is the share of line rate a link carries: frames on
	// the wire, their headers counted apart (the MTU's frame overhead).
	NICEfficiency Param `json:"nic_efficiency"`
	// MessageHeaderBytes is vSAN's per-message header (RDT and DOM) on the
	// wire, beside the frames' own headers (from the MTU).
	MessageHeaderBytes Param `json:"message_header_bytes"`
	// ConnectionsPerPeer is the number of TCP connections a host keeps to
	// each other host for vSAN: the flows a LAG hashes over its links.
	ConnectionsPerPeer Param `json:"connections_per_peer"`
	// TransitCipherCyclesPerByte is data-in-transit encryption's AES-256
	// cost per byte a host sends or receives (payload and vSAN's headers).
	TransitCipherCyclesPerByte Param `json:"transit_cipher_cycles_per_byte"`

	// Data services.
	// RestCipherCyclesPerByte is data-at-rest encryption's AES-256-XTS
	// cost per byte encrypted or decrypted.
	RestCipherCyclesPerByte Param `json:"rest_cipher_cycles_per_byte"`
	// LZ4BlockCycles is LZ4's cost to compress one 4 KiB block beyond
	// its match search: setting up its state and writing the block.
	LZ4BlockCycles Param `json:"lz4_block_cycles"`
	// LZ4AttemptCycles is one try of LZ4's match search (hash a
	// position, look it up, compare).
	LZ4AttemptCycles        Param `json:"lz4_attempt_cycles"`
	DecompressCyclesPerByte Param `json:"decompress_cycles_per_byte"`
	// MaxCompressionSavings caps the byte share compression can save.
	MaxCompressionSavings Param `json:"max_compression_savings"`
	// LZ4BlockOverheadBytes is what LZ4 adds to the bytes of a 4 KiB block
	// it cannot shrink (tokens, lengths, match offsets).
	LZ4BlockOverheadBytes Param `json:"lz4_block_overhead_bytes"`
	DedupCyclesPerByte    Param `json:"dedup_cycles_per_byte"`
	// MapEntryCycles is writing one 4 KiB block's entry into an OSA space
	// efficiency map (translation or hash map) once its page is found.
	MapEntryCycles Param `json:"map_entry_cycles"`

	// OSA write buffer: the share of a cache device usable as write
	// buffer, capped per disk group (vSAN 7; vSAN 8 OSA lifts the cap), the
	// fill at which the elevator starts destaging, and how fast it drains
	// the buffer while nothing writes, as a share of the capacity
	// devices' write rate.
	WriteBufferMaxGB7           Param `json:"write_buffer_max_gb_7"`
	WriteBufferMaxGB8           Param `json:"write_buffer_max_gb_8"`
	WriteBufferDestageThreshold Param `json:"write_buffer_destage_threshold"`
	WriteBufferIdleDestage      Param `json:"write_buffer_idle_destage"`

	// Write path layout.
	// LargeWriteBytes: ESA writes at least this large go straight to the
	// capacity leg (vSAN 8 U1+). 0 disables the bypass.
	LargeWriteBytes Param `json:"large_write_bytes"`
	// DestageIOBytes is the device op size of a full-stripe destage.
	DestageIOBytes Param `json:"destage_io_bytes"`

	// SoftwareLatencyUs is the fixed per-I/O software latency (delay centre).
	SoftwareLatencyUs Param `json:"software_latency_us"`

	// NoiseCV is the coefficient of variation of seeded run-to-run noise.
	NoiseCV Param `json:"noise_cv"`

	// Calibrated range: inputs outside it are flagged in the result notes.
	CalibratedMinBlockBytes  Param `json:"calibrated_min_block_bytes"`
	CalibratedMaxBlockBytes  Param `json:"calibrated_max_block_bytes"`
	CalibratedMinOutstanding Param `json:"calibrated_min_outstanding"`
	CalibratedMaxOutstanding Param `json:"calibrated_max_outstanding"`
}

// FittedToStorageReview starts the source of every parameter fitted to the
// StorageReview table (the fit test refits exactly these).
const FittedToStorageReview = "fitted to storagereview-esa-8u2.csv"

const (
	srFit  = FittedToStorageReview + ", jointly over all 20 cells; mostly set by"
	worlds = "assumption: vSAN does not publish its world counts; only worlds x cycles is fitted, the split sets the latency at low load"
	// domWorlds: what could be read on how the DOM is threaded, and the
	// assumption taken (docs/model.md, "Parameters and sources").
	domWorlds = "assumption: vSAN does not publish the DOM's world count; its I/O work runs in VMkernel worlds apart from the issuing vCPU, " +
		"which the scheduler places on any core (no socket or NUMA tie is documented), so the pool is per host; 8 is the count " +
		"the calibration was fitted with (StorageReview's hosts), only worlds x cycles is fitted"
)

// DefaultModel returns the shared parameters for an architecture ("ESA",
// "OSA"). The few fitted vSAN software costs are fitted once, to the
// StorageReview ESA table, and shared by every profile; OSA reuses them
// (no OSA table).
func DefaultModel(architecture string) ModelParams {
	m := ModelParams{
		FioIOCycles:                Param{12000, "public figure: a Linux libaio I/O through the block layer and a paravirtual driver, about 3-4 us of a 3 GHz core (fio and io_uring benchmarks report 1-2 us on bare metal)"},
		ControllerIOCyclesPVSCSI:   Param{10000, "public figure: ESXi's vSCSI path behind a paravirtual adapter, about 3 us of a 3 GHz core"},
		ControllerIOCyclesLSILogic: Param{18000, "public figure: VMware performance study (vSphere 4, 2010): PVSCSI cuts CPU per I/O by 10-30 % against the emulated LSI Logic adapter"},
		ControllerIOCyclesNVMe:     Param{10000, "assumption: the virtual NVMe controller's queue pairs cost what PVSCSI's rings cost"},

		ControllerQueueLUNPVSCSI:       Param{64, "VMware KB 2053145: PVSCSI default queue depth 64 per disk"},
		ControllerQueueAdapterPVSCSI:   Param{254, "VMware KB 2053145: PVSCSI default queue depth 254 per adapter"},
		ControllerQueueLUNLSILogic:     Param{32, "VMware KB 2053145: LSI Logic SAS queue depth 32 per disk"},
		ControllerQueueAdapterLSILogic: Param{128, "VMware KB 2053145: LSI Logic SAS queue depth 128 per adapter"},
		ControllerQueueLUNNVMe:         Param{256, "assumption: the virtual NVMe controller's I/O queue depth per namespace"},
		ControllerQueueAdapterNVMe:     Param{2048, "assumption: the virtual NVMe controller's queues together"},
		GuestCopyByteCycles:            Param{0.25, "public figure: memcpy at about 12 GB/s per core at 3 GHz"},
		FsyncCycles:                    Param{4000, "measured: fio 3.33 (psync, direct=1, fsync=1) on a Linux 6.18 block device whose queue reports no write cache (a loop device set to write through), 1.8-2.1 us per fsync on a 2.1 GHz AMD EPYC"},

		DOMWorldsPerHost:      Param{8, domWorlds},
		DOMIOCycles:           Param{151000, srFit + " the 4K random read column"},
		DOMByteCycles:         Param{3.9, srFit + " 1M reads with 8 SSDs"},
		ChecksumCyclesPerByte: Param{0.2, "public figure: CRC-32C with the SSE 4.2 instruction, about 0.1-0.3 cycles/byte"},
		MixedContention:       Param{0.857, srFit + " the 8K 70/30 column"},

		DeviceWorlds:        Param{1, worlds},
		DiskGroupWorlds:     Param{2, "assumption: one log (LSOM) and one elevator (destage) world per OSA disk group, which is why OSA scales with disk groups"},
		LSOMOpCycles:        Param{28790, srFit + " 4K random writes with 4 SSDs"},
		LSOMReadByteCycles:  Param{1.748, srFit + " 1M reads with 4 SSDs"},
		LSOMWriteByteCycles: Param{2.539, srFit + " 1M writes with 4 SSDs"},

		MetadataReadCycles: Param{30000, "assumption: an in-memory metadata lookup, about a fifth of a device read's software cost"},

		SMTYield:            Param{0.25, "public figure: Intel Hyper-Threading adds up to about 30 % throughput per core"},
		ContextSwitchCycles: Param{20000, "public figure: Li, Ding and Shen (2007), a context switch costs about 4 us directly and as much again in cache refills"},
		MemoryEfficiency:    Param{0.7, "public figure: STREAM sustains about 70-80 % of peak DDR bandwidth"},
		HostIdleCPUPercent:  Param{2, "assumption: what an ESXi host's CPU shows with no VM at work (its services, agents and vSAN's housekeeping), as vCenter's cpu.usage.average reads it; a real host's is its own, and starbench fit finds it from a campaign's light and heavy runs"},

		MessageCyclesTCP:           Param{15000, "public figure: kernel TCP send+receive of a small message, about 5 us at 3 GHz"},
		MessageCyclesRDMA:          Param{3000, "public figure: RDMA verbs post+completion, about 1 us at 3 GHz"},
		TxByteCyclesTCP:            Param{1.3, "public figure: measured in vSAN ESA testing on Intel Emerald Rapids hosts, 0.163 Hz per bit/s sent, 1.30 cycles/byte (David Pasek, vcdx200.uw.cz, \"Every I/O requires CPU cycles\", 2024-12)"},
		RxByteCyclesTCP:            Param{3.0, "public figure: measured in vSAN ESA testing on Intel Emerald Rapids hosts, 0.373 Hz per bit/s received, 2.98 cycles/byte (David Pasek, vcdx200.uw.cz, \"Every I/O requires CPU cycles\", 2024-12)"},
		ByteCyclesRDMA:             Param{0.1, "public figure: RDMA zero-copy, the NIC moves the bytes"},
		HopLatencyTCPUs:            Param{30, "public figure (commonly cited; original source not traced): vSAN TCP hop about 30 us"},
		HopLatencyRDMAUs:           Param{12, "public figure (commonly cited; original source not traced): vSAN RDMA hop about 12 us"},
		NICEfficiency:              Param{1, "public figure: an Ethernet link carries frames at its line rate (IEEE 802.3); the ~94 % of line rate commonly cited as TCP's usable share with 1500-byte frames is 1448 bytes of payload in the 1538 a frame takes on the wire (preamble, Ethernet header and FCS, gap, IP and TCP headers with timestamps), which the model counts as wire bytes per payload byte at the MTU, so 0.94 here counted it twice"},
		MessageHeaderBytes:         Param{1300, "assumption: vSAN RDT and DOM headers per message; with 1500-byte frames a 4 KiB write carries the ~1.4x wire bytes per payload byte commonly cited for vSAN writes"},
		TransitCipherCyclesPerByte: Param{1.3, "public figure: AES-GCM with AES-NI and carry-less multiply about 1 cycle/byte for AES-128 (Gueron, AES-GCM software performance on current high-end CPUs, 2013); AES-256's 14 rounds against 10 take about 1.3"},
		ConnectionsPerPeer:         Param{1, "assumption: one RDT association (TCP connection) per pair of hosts"},

		RestCipherCyclesPerByte: Param{0.31, "measured: OpenSSL 3.0 speed -evp aes-256-xts, 4 KiB blocks, AES-NI: 6.7 GB/s on one core of a 2.1 GHz AMD EPYC; an assumption that the VMkernel's crypto module runs AES-XTS as fast"},
		LZ4BlockCycles:          Param{1340, "measured: liblz4 1.9.4 LZ4_compress_default on 4 KiB blocks of fio 3.33's data, cycles from a dependent-add clock in the same run (internal/model/testdata/lz4cost); with lz4_attempt_cycles the least-squares line through 8 kinds of block (random, zeros, 25/50/75 % in 512-byte chunks, 50 % in 1, 2 and 4 KiB chunks), within 14 % of each and 11 % of 6 more kept apart"},
		LZ4AttemptCycles:        Param{3.6, "measured: as lz4_block_cycles, the cost of each try of LZ4's match search (lz4.c LZ4_compress_generic: one a byte, striding one byte further after each 64 failed tries, from the start of each run of random bytes)"},
		DecompressCyclesPerByte: Param{0.42, "measured: liblz4 1.9.4 LZ4_decompress_safe on the 4 KiB blocks of fio 3.33 data that shrink (internal/model/testdata/lz4cost): 0.15 to 0.77 cycles a byte over 13 kinds of block, median 0.42 (on Go source text 1.1, the lz4 README's figure on the Silesia corpus 1.0)"},
		MaxCompressionSavings:   Param{0.875, "ESA stores a compressed 4K block in 512-byte sectors: at best one sector, saving 7/8"},
		LZ4BlockOverheadBytes:   Param{68, "measured: lz4 1.9.4 -1 on 4 KiB blocks of fio 3.33's buffer_compress_percentage data (the default 512-byte buffer_compress_chunk, eight runs of zeros per block): the compressed block is the random bytes + 67 to 76 bytes at 25, 50 and 75 %; 44 with 1 KiB chunks, 34 with 4 KiB; a block of zeros 26 bytes"},
		DedupCyclesPerByte:      Param{4.0, "public figure: SHA-1 about 4 cycles/byte with SHA extensions"},
		MapEntryCycles:          Param{1000, "assumption: an entry in a map page already found touches a few cache lines, each a DRAM access of about 100 ns (public figure), about 0.3 us at 3 GHz"},

		WriteBufferMaxGB7:           Param{600, "VMware vSAN 7 design guide: an all-flash disk group uses at most 600 GB of its cache device as write buffer"},
		WriteBufferMaxGB8:           Param{1600, "VMware vSAN 8 OSA: the write buffer limit per disk group rises to 1.6 TB"},
		WriteBufferDestageThreshold: Param{0.3, "assumption: the elevator destages steadily once the write buffer is about 30 % full, and lazily below"},
		WriteBufferIdleDestage:      Param{1, "assumption: while nothing writes, the elevators drain the buffers at the capacity devices' write rate, down to empty; HCIBench's drop-cache script forces the elevator to run (plogRunElevator, plogElevSleepTime) and waits for the buffers to empty, which suggests vSAN alone drains them more slowly; scripts/osa_destage.star measures it"},

		LargeWriteBytes: Param{512 << 10, "vSAN 8 U1 adaptive write path (large writes go straight to the capacity leg as full stripes); threshold assumed 512 KiB"},
		DestageIOBytes:  Param{512 << 10, "assumption: full-stripe destage in 512 KiB device writes"},

		SoftwareLatencyUs: Param{40, "assumption: fixed vSAN software latency per I/O"},
		NoiseCV:           Param{0.02, "assumption: 2 % run-to-run spread (seeded, off unless asked)"},

		CalibratedMinBlockBytes:  Param{4096, "storagereview-esa-8u2.csv sweeps 4K-1M"},
		CalibratedMaxBlockBytes:  Param{1 << 20, "storagereview-esa-8u2.csv sweeps 4K-1M"},
		CalibratedMinOutstanding: Param{256, "storagereview-esa-8u2.csv ran 1024-2048 outstanding I/Os; factor 4 either side"},
		CalibratedMaxOutstanding: Param{8192, "storagereview-esa-8u2.csv ran 1024-2048 outstanding I/Os; factor 4 either side"},
	}
	if architecture == "OSA" {
		m.LargeWriteBytes = Param{0, "OSA has no large-write bypass: every write lands in the cache tier"}
		m.MaxCompressionSavings = Param{0.5, "OSA stores a block compressed only if it fits in 2 KiB of 4 KiB"}
	}
	return m
}

// Each calls f for every parameter with its JSON name, in declaration order.
func (m *ModelParams) Each(f func(name string, p *Param)) {
	v := reflect.ValueOf(m).Elem()
	t := v.Type()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		f(name, v.Field(i).Addr().Interface().(*Param))
	}
}

// Set sets each parameter params names (by its JSON name) to what params
// gives it, value and source.
func (m *ModelParams) Set(params map[string]Param) {
	m.Each(func(name string, p *Param) {
		if q, ok := params[name]; ok {
			*p = q
		}
	})
}

// Lookup is the parameter of the JSON name, and false when there is none.
func (m *ModelParams) Lookup(name string) (Param, bool) {
	var found *Param
	m.Each(func(n string, p *Param) {
		if n == name {
			found = p
		}
	})
	if found == nil {
		return Param{}, false
	}
	return *found, true
}

// Check says what is wrong with m's values, as loading a profile would
// (nil when nothing is).
func (m *ModelParams) Check() error { return errors.Join(m.validate()...) }

func (m *ModelParams) validate() []error {
	var errs []error
	m.Each(func(name string, p *Param) {
		field := "model." + name
		if p.Source == "" {
			errs = append(errs, fmt.Errorf("%s.source: missing; say where %g comes from (datasheet, public figure, or \"fitted to <table>\")", field, p.Value))
		}
		if p.Value < 0 || math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
			errs = append(errs, fmt.Errorf("%s.value: %g; want a finite number of at least 0", field, p.Value))
		}
	})
	atLeast := func(name string, p Param, lo float64) {
		if p.Value < lo {
			errs = append(errs, fmt.Errorf("model.%s.value: %g; want at least %g", name, p.Value, lo))
		}
	}
	atLeast("dom_worlds_per_host", m.DOMWorldsPerHost, 1)
	atLeast("device_worlds", m.DeviceWorlds, 1)
	atLeast("diskgroup_worlds", m.DiskGroupWorlds, 1)
	atLeast("connections_per_peer", m.ConnectionsPerPeer, 1)
	for _, q := range []struct {
		name string
		p    Param
	}{{"controller_queue_lun_pvscsi", m.ControllerQueueLUNPVSCSI}, {"controller_queue_adapter_pvscsi", m.ControllerQueueAdapterPVSCSI},
		{"controller_queue_lun_lsilogic", m.ControllerQueueLUNLSILogic}, {"controller_queue_adapter_lsilogic", m.ControllerQueueAdapterLSILogic},
		{"controller_queue_lun_nvme", m.ControllerQueueLUNNVMe}, {"controller_queue_adapter_nvme", m.ControllerQueueAdapterNVMe}} {
		atLeast(q.name, q.p, 1)
	}
	if m.MemoryEfficiency.Value <= 0 || m.MemoryEfficiency.Value > 1 {
		errs = append(errs, fmt.Errorf("model.memory_efficiency.value: %g; want a share of peak bandwidth in (0, 1]", m.MemoryEfficiency.Value))
	}
	if v := m.HostIdleCPUPercent.Value; v <= 0 || v >= 100 {
		errs = append(errs, fmt.Errorf("model.host_idle_cpu_percent.value: %g; want the CPU %% an idle host shows (its own services never leave it at 0), above 0 and below 100", v))
	}
	if m.SMTYield.Value > 1 {
		errs = append(errs, fmt.Errorf("model.smt_yield.value: %g; want the share a second hardware thread adds, at most 1", m.SMTYield.Value))
	}
	if m.NICEfficiency.Value <= 0 || m.NICEfficiency.Value > 1 {
		errs = append(errs, fmt.Errorf("model.nic_efficiency.value: %g; want a share of line rate in (0, 1]", m.NICEfficiency.Value))
	}
	if m.MaxCompressionSavings.Value >= 1 {
		errs = append(errs, fmt.Errorf("model.max_compression_savings.value: %g; want a share below 1", m.MaxCompressionSavings.Value))
	}
	// The model draws noise up to 3 standard deviations either way.
	if m.NoiseCV.Value*3 >= 1 {
		errs = append(errs, fmt.Errorf("model.noise_cv.value: %g; want below 0.33, so a run 3 standard deviations slow still has throughput above 0", m.NoiseCV.Value))
	}
	if t := m.WriteBufferDestageThreshold.Value; t <= 0 || t > 1 {
		errs = append(errs, fmt.Errorf("model.write_buffer_destage_threshold.value: %g; want a share of the buffer in (0, 1]", t))
	}
	if d := m.WriteBufferIdleDestage.Value; d < 0 || d > 1 {
		errs = append(errs, fmt.Errorf("model.write_buffer_idle_destage.value: %g; want a share of the capacity devices' write rate in [0, 1]", d))
	}
	if m.DestageIOBytes.Value < 4096 {
		errs = append(errs, fmt.Errorf("model.destage_io_bytes.value: %g; want at least 4096", m.DestageIOBytes.Value))
	}
	if m.CalibratedMinBlockBytes.Value > m.CalibratedMaxBlockBytes.Value || m.CalibratedMinOutstanding.Value > m.CalibratedMaxOutstanding.Value {
		errs = append(errs, fmt.Errorf("model.calibrated_*: want each min at most its max"))
	}
	return errs
}
