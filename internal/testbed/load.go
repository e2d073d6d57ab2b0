package testbed

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
)

// Default is the profile a session uses when it names none.
const Default = "storagereview-r6625-esa"

//go:embed profiles/*.json
var shipped embed.FS

// Names lists the shipped profiles, sorted.
func Names() []string {
	entries, err := shipped.ReadDir("profiles")
	if err != nil {
		panic(err) // embedded at build time
	}
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".json"))
	}
	sort.Strings(names)
	return names
}

// Load returns a shipped profile by name, or reads a user's profile from a
// JSON file path. Model parameters the file leaves out come from
// DefaultModel for its architecture.
func Load(nameOrPath string) (*Profile, error) {
	data, err := shipped.ReadFile(path.Join("profiles", nameOrPath+".json"))
	origin := nameOrPath
	if err != nil {
		if !strings.ContainsAny(nameOrPath, `/\`) && !strings.HasSuffix(nameOrPath, ".json") {
			return nil, fmt.Errorf("no testbed profile %q: want one of %s, or a path to a JSON profile", nameOrPath, strings.Join(Names(), ", "))
		}
		data, err = os.ReadFile(nameOrPath)
		if err != nil {
			return nil, fmt.Errorf("reading testbed profile: %w", err)
		}
	}
	p, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("testbed profile %s: %w", origin, err)
	}
	return p, nil
}

// replaced says what took the place of each parameter the model dropped.
var replaced = map[string]string{
	"dom_worlds_per_socket":         "replaced by model.dom_worlds_per_host, one pool of DOM worlds per host (docs/model.md); give the old value x cpu.sockets",
	"compress_cycles_per_byte":      "replaced by model.lz4_block_cycles and model.lz4_attempt_cycles, LZ4's cost from its match search over fio's data (docs/model.md); remove it",
	"compress_skip_cycles_per_byte": "replaced by model.lz4_block_cycles and model.lz4_attempt_cycles, LZ4's cost from its match search over fio's data (docs/model.md); remove it",
}

// Parse decodes and validates a profile's JSON. Unknown fields are errors, so
// a misspelt field is reported rather than silently ignored.
func Parse(data []byte) (*Profile, error) {
	var head struct {
		Architecture string          `json:"architecture"`
		Model        json.RawMessage `json:"model"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	var params map[string]json.RawMessage // a model that is no object is reported below
	if json.Unmarshal(head.Model, &params) == nil {
		for _, old := range slices.Sorted(maps.Keys(replaced)) {
			if params[old] != nil {
				return nil, fmt.Errorf("model.%s: %s", old, replaced[old])
			}
		}
	}
	p := &Profile{Model: DefaultModel(head.Architecture)}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(p); err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// Validate checks that the profile describes a cluster the model can run;
// each error names the field and says what would be right.
func (p *Profile) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if p.Name == "" {
		bad("name", "missing; want a short identifier such as \"my-cluster\"")
	}
	switch p.Architecture {
	case "ESA", "OSA":
	default:
		bad("architecture", "%q; want \"ESA\" or \"OSA\"", p.Architecture)
	}
	if p.Hosts < 2 || p.Hosts > 64 {
		bad("hosts", "%d; want 2 to 64 hosts (vSAN cluster limits)", p.Hosts)
	}
	if p.CPU.Sockets < 1 || p.CPU.CoresPerSocket < 1 {
		bad("cpu", "sockets %d, cores_per_socket %d; want both at least 1", p.CPU.Sockets, p.CPU.CoresPerSocket)
	}
	if p.CPU.GHz <= 0 || p.CPU.GHz > 10 {
		bad("cpu.ghz", "%g; want the base clock in GHz, e.g. 3.1", p.CPU.GHz)
	}
	if p.CPU.ThreadsPerCore < 0 || p.CPU.ThreadsPerCore > 8 {
		bad("cpu.threads_per_core", "%d; want 1 (no SMT), 2 (SMT, Hyper-Threading) or up to 8", p.CPU.ThreadsPerCore)
	}
	if p.CPU.AllCoreGHz < 0 || p.CPU.AllCoreGHz > 10 {
		bad("cpu.all_core_ghz", "%g; want the all-core turbo clock in GHz, or leave it out", p.CPU.AllCoreGHz)
	}
	if p.MemoryChannels < 0 || p.MemoryChannels > 64 || p.MemoryMTs < 0 || p.MemoryMTs > 20000 {
		bad("memory_channels", "%d channels at %d MT/s; want the populated DDR channels per host (e.g. 12) and their rate (e.g. 4800), or leave both out", p.MemoryChannels, p.MemoryMTs)
	} else if (p.MemoryChannels == 0) != (p.MemoryMTs == 0) {
		bad("memory_mts", "give memory_channels and memory_mts together (have %d and %d)", p.MemoryChannels, p.MemoryMTs)
	}
	if p.MTU != 0 && (p.MTU < 1280 || p.MTU > 9216) {
		bad("mtu", "%d; want the vSAN network's MTU, 1500 or 9000, or leave it out for 1500", p.MTU)
	}
	s := p.Storage
	if s.CapacityDevices < 1 {
		bad("storage.capacity_devices", "%d; want the number of capacity devices per host, at least 1", s.CapacityDevices)
	}
	validDevice("storage.capacity", s.Capacity, bad)
	if p.Architecture == "OSA" {
		if s.DiskGroups < 1 || s.CapacityPerGroup < 1 {
			bad("storage", "OSA needs disk_groups and capacity_per_group of at least 1 (have %d, %d)", s.DiskGroups, s.CapacityPerGroup)
		} else if s.DiskGroups*s.CapacityPerGroup != s.CapacityDevices {
			bad("storage.capacity_devices", "%d; want disk_groups x capacity_per_group = %d", s.CapacityDevices, s.DiskGroups*s.CapacityPerGroup)
		}
		validDevice("storage.cache", s.Cache, bad)
	}
	if p.Architecture == "ESA" && (s.DiskGroups != 0 || s.CapacityPerGroup != 0) {
		bad("storage.disk_groups", "ESA has no disk groups; leave disk_groups and capacity_per_group out")
	}
	nics := map[string]NIC{}
	for i, n := range p.NICs {
		if n.Name == "" || n.SpeedGbps <= 0 {
			bad(fmt.Sprintf("nics[%d]", i), "want a name (vmnic0) and speed_gbps above 0")
		}
		validPCIe(fmt.Sprintf("nics[%d]", i), n.PCIeGen, n.PCIeLanes, bad)
		nics[n.Name] = n
	}
	if len(p.Uplinks) == 0 {
		bad("uplinks", "empty; want at least one choice, e.g. {\"name\": \"100g\", \"nics\": [\"vmnic0\"]}")
	}
	for i, u := range p.Uplinks {
		if u.Name == "" || len(u.NICs) == 0 {
			bad(fmt.Sprintf("uplinks[%d]", i), "want a name and at least one NIC")
		}
		for _, n := range u.NICs {
			if _, ok := nics[n]; !ok {
				bad(fmt.Sprintf("uplinks[%d].nics", i), "%q is not in nics; want one of %s", n, nicNames(p.NICs))
			}
		}
	}
	p.validateNetwork(bad)
	w := p.Workers
	if w.PerHost < 1 || w.CPUs < 1 || w.MemoryMB < 1 || w.DataDisks < 1 || w.DiskSizeGB < 1 {
		bad("workers", "want per_host, cpus, memory_mb, data_disks and disk_size_gb all at least 1")
	}
	switch w.Controller {
	case "", PVSCSI, LSILogic, VNVMe:
	default:
		bad("workers.controller", "%q; want %q, %q or %q", w.Controller, PVSCSI, LSILogic, VNVMe)
	}
	errs = append(errs, p.Model.validate()...)
	return errors.Join(errs...)
}

func validDevice(field string, d Device, bad func(string, string, ...any)) {
	if d.ReadMBps <= 0 || d.WriteMBps <= 0 || d.ReadIOPS <= 0 || d.WriteIOPS <= 0 || d.LatencyUs <= 0 {
		bad(field, "want read_mbps, write_mbps, read_iops, write_iops and latency_us above 0 (datasheet rates)")
	}
	if d.Source == "" {
		bad(field+".source", "missing; say where the rates come from (a datasheet)")
	}
	validPCIe(field, d.PCIeGen, d.PCIeLanes, bad)
}

func validPCIe(field string, gen, lanes int, bad func(string, string, ...any)) {
	if gen == 0 && lanes == 0 {
		return
	}
	if gen < 1 || gen > 6 || !slices.Contains([]int{1, 2, 4, 8, 16}, lanes) {
		bad(field+".pcie_gen", "gen %d x%d; want a PCIe generation 1-6 and 1, 2, 4, 8 or 16 lanes (e.g. 4 and 4 for a Gen4 x4 NVMe), or leave both out", gen, lanes)
	}
}

func nicNames(nics []NIC) string {
	var names []string
	for _, n := range nics {
		names = append(names, n.Name)
	}
	return strings.Join(names, ", ")
}
