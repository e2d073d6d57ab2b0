package testbed

import (
	"bytes"
	"encoding/json"
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
// Cycle costs are CPU cycles at the host's base clock; the vSAN software
// stations turn them into time with the host's GHz, so a faster or wider
// host moves them without refitting.
type ModelParams struct {
	// Hypervisor I/O path, paid on the worker's host for every guest I/O.
	GuestIOCycles Param `json:"guest_io_cycles"`

	// vSAN host software station (DOM client and owner): HostWorlds servers
	// per host, each guest I/O costs HostOpCycles + bytes x Host*ByteCycles.
	HostWorlds          Param `json:"host_worlds"`
	HostOpCycles        Param `json:"host_op_cycles"`
	HostReadByteCycles  Param `json:"host_read_byte_cycles"`
	HostWriteByteCycles Param `json:"host_write_byte_cycles"`
	// MixedContention multiplies the host station's per-op cost by
	// 1 + MixedContention x 2 x min(read share, write share).
	MixedContention Param `json:"mixed_contention"`

	// vSAN per-device software station (LSOM / log-structured object manager):
	// DeviceWorlds servers per capacity device (OSA: one station per disk
	// group with DeviceWorlds per capacity device of the group), each device
	// op costs DeviceOpCycles + bytes x DeviceByteCycles.
	DeviceWorlds     Param `json:"device_worlds"`
	DeviceOpCycles   Param `json:"device_op_cycles"`
	DeviceByteCycles Param `json:"device_byte_cycles"`

	// Reads of blocks never written: a metadata lookup instead of a device read.
	MetadataReadCycles Param `json:"metadata_read_cycles"`

	// Network stack costs.
	MessageCyclesTCP  Param `json:"message_cycles_tcp"`
	MessageCyclesRDMA Param `json:"message_cycles_rdma"`
	TxByteCyclesTCP   Param `json:"tx_byte_cycles_tcp"`
	RxByteCyclesTCP   Param `json:"rx_byte_cycles_tcp"`
	ByteCyclesRDMA    Param `json:"byte_cycles_rdma"`
	HopLatencyTCPUs   Param `json:"hop_latency_tcp_us"`
	HopLatencyRDMAUs  Param `json:"hop_latency_rdma_us"`
	// NICEfficiency is the usable share of line rate.
	NICEfficiency Param `json:"nic_efficiency"`
	// NetOverhead multiplies payload bytes on the wire (headers, metadata).
	NetOverhead Param `json:"net_overhead"`

	// Data services.
	CompressCyclesPerByte   Param `json:"compress_cycles_per_byte"`
	DecompressCyclesPerByte Param `json:"decompress_cycles_per_byte"`
	// MaxCompressionSavings caps the byte share compression can save.
	MaxCompressionSavings Param `json:"max_compression_savings"`
	DedupCyclesPerByte    Param `json:"dedup_cycles_per_byte"`

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
	worlds = "assumption: only worlds x op cycles is fitted; the split sets the latency at low load"
)

// DefaultModel returns the shared parameters for an architecture ("ESA",
// "OSA"). The vSAN software costs are fitted once, to the StorageReview
// ESA table, and shared by every profile; OSA reuses them (no OSA table).
func DefaultModel(architecture string) ModelParams {
	m := ModelParams{
		GuestIOCycles: Param{20000, "public figure: ESXi PVSCSI/vSCSI path, about 5-7 us of a 3 GHz core per I/O"},

		HostWorlds:          Param{8, worlds},
		HostOpCycles:        Param{167000, srFit + " the 4K random read column"},
		HostReadByteCycles:  Param{4.16, srFit + " 1M reads with 8 SSDs"},
		HostWriteByteCycles: Param{7.07, srFit + " 1M writes with 8 SSDs"},
		MixedContention:     Param{0.91, srFit + " the 8K 70/30 column"},

		DeviceWorlds:     Param{1, worlds},
		DeviceOpCycles:   Param{36500, srFit + " 4K random writes with 4 SSDs"},
		DeviceByteCycles: Param{2.54, srFit + " 1M reads and writes with 4 SSDs"},

		MetadataReadCycles: Param{30000, "assumption: an in-memory metadata lookup, about a fifth of a device read's software cost"},

		MessageCyclesTCP:  Param{15000, "public figure: kernel TCP send+receive of a small message, about 5 us at 3 GHz"},
		MessageCyclesRDMA: Param{3000, "public figure: RDMA verbs post+completion, about 1 us at 3 GHz"},
		TxByteCyclesTCP:   Param{1.3, "public figure (MODEL.md): TCP transmit about 1.3 cycles/byte"},
		RxByteCyclesTCP:   Param{3.0, "public figure (MODEL.md): TCP receive about 3.0 cycles/byte"},
		ByteCyclesRDMA:    Param{0.1, "public figure: RDMA zero-copy, NIC moves the bytes"},
		HopLatencyTCPUs:   Param{30, "public figure (MODEL.md): vSAN TCP hop about 30 us"},
		HopLatencyRDMAUs:  Param{12, "public figure (MODEL.md): vSAN RDMA hop about 12 us"},
		NICEfficiency:     Param{0.94, "public figure (MODEL.md): about 94 % of line rate usable"},
		NetOverhead:       Param{1.4, "public figure (MODEL.md): vSAN metadata multiplier about 1.4"},

		CompressCyclesPerByte:   Param{6.3, "public figure: lz4 README, 780 MB/s per core at 4.9 GHz"},
		DecompressCyclesPerByte: Param{1.0, "public figure: lz4 README, 4970 MB/s per core at 4.9 GHz"},
		MaxCompressionSavings:   Param{0.875, "ESA stores a compressed 4K block in 512-byte sectors: at best one sector, saving 7/8"},
		DedupCyclesPerByte:      Param{4.0, "public figure: SHA-1 about 4 cycles/byte with SHA extensions"},

		LargeWriteBytes: Param{512 << 10, "vSAN 8 U1 adaptive write path; threshold assumed 512 KiB"},
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
	atLeast("host_worlds", m.HostWorlds, 1)
	atLeast("device_worlds", m.DeviceWorlds, 1)
	atLeast("net_overhead", m.NetOverhead, 1)
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
	if m.DestageIOBytes.Value < 4096 {
		errs = append(errs, fmt.Errorf("model.destage_io_bytes.value: %g; want at least 4096", m.DestageIOBytes.Value))
	}
	if m.CalibratedMinBlockBytes.Value > m.CalibratedMaxBlockBytes.Value || m.CalibratedMinOutstanding.Value > m.CalibratedMaxOutstanding.Value {
		errs = append(errs, fmt.Errorf("model.calibrated_*: want each min at most its max"))
	}
	return errs
}
