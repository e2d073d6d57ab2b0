package testbed

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestShippedProfilesLoadAndValidate(t *testing.T) {
	names := Names()
	want := []string{"storagereview-r6625-esa", "vxrail-ve660-esa", "wwt-r640-osa"}
	if !slices.Equal(names, want) {
		t.Fatalf("Names() = %v, want %v", names, want)
	}
	if !slices.Contains(names, Default) {
		t.Fatalf("Default %q is not shipped", Default)
	}
	for _, n := range names {
		p, err := Load(n)
		if err != nil {
			t.Fatalf("Load(%q): %v", n, err)
		}
		if p.Name != n {
			t.Errorf("profile %s names itself %q", n, p.Name)
		}
		p.Model.Each(func(name string, q *Param) {
			if q.Source == "" {
				t.Errorf("%s: model.%s has no source", n, name)
			}
		})
		for _, u := range p.Uplinks {
			if u.Source == "" {
				t.Errorf("%s: uplink %s says nothing of its teaming (source)", n, u.Name)
			}
		}
	}
}

func TestShippedHardware(t *testing.T) {
	sr, _ := Load("storagereview-r6625-esa")
	if sr.Hosts != 4 || sr.Architecture != "ESA" || sr.CPU.Cores() != 128 || sr.NICs[0].SpeedGbps != 100 {
		t.Errorf("storagereview: hosts %d arch %s cores %d nic %g", sr.Hosts, sr.Architecture, sr.CPU.Cores(), sr.NICs[0].SpeedGbps)
	}
	wwt, _ := Load("wwt-r640-osa")
	if wwt.Hosts != 24 || wwt.Storage.DiskGroups != 2 || !wwt.RDMACapable || len(wwt.Uplinks) != 2 {
		t.Errorf("wwt: hosts %d groups %d rdma %v uplinks %d", wwt.Hosts, wwt.Storage.DiskGroups, wwt.RDMACapable, len(wwt.Uplinks))
	}
	if sr.CPU.Threads() != 256 || sr.CPU.Clock() != 3.1 || sr.Calibration == "" {
		t.Errorf("storagereview: threads %d clock %g calibration %q", sr.CPU.Threads(), sr.CPU.Clock(), sr.Calibration)
	}
	if bw := wwt.MemoryBytesPerSec(); math.Abs(bw-12*2933e6*8) > 1 || wwt.Calibration != "" || wwt.Workers.Controller != LSILogic {
		t.Errorf("wwt: memory %g B/s, calibration %q, controller %q", bw, wwt.Calibration, wwt.Workers.Controller)
	}
	// A Gen4 x4 NVMe link carries about 7.9 GB/s; a Gen3 x8 NIC slot too.
	if g4, g3 := PCIeBytesPerSec(4, 4), PCIeBytesPerSec(3, 8); math.Abs(g4/7.877e9-1) > 0.001 || math.Abs(g3/g4-1) > 1e-9 || PCIeBytesPerSec(0, 4) != 0 {
		t.Errorf("PCIe Gen4 x4 %g, Gen3 x8 %g B/s", g4, g3)
	}
	if wwt.Model.LargeWriteBytes.Value != 0 {
		t.Errorf("OSA defaults should disable the large-write bypass")
	}
}

func TestLoadUserFileOverridesModelParam(t *testing.T) {
	data, err := shipped.ReadFile("profiles/vxrail-ve660-esa.json")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(data), `"model": {}`, `"model": {"hop_latency_tcp_us": {"value": 25, "source": "our switch vendor"}}`, 1)
	path := filepath.Join(t.TempDir(), "mine.json")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Model.HopLatencyTCPUs != (Param{25, "our switch vendor"}) {
		t.Errorf("override = %+v", p.Model.HopLatencyTCPUs)
	}
	if p.Model.HopLatencyRDMAUs.Value != 12 {
		t.Errorf("default not kept for an absent param: %+v", p.Model.HopLatencyRDMAUs)
	}
}

func TestLoadErrorsNameTheFieldAndTheFix(t *testing.T) {
	base, _ := shipped.ReadFile("profiles/storagereview-r6625-esa.json")
	cases := []struct{ from, to, want string }{
		{`"architecture": "ESA"`, `"architecture": "HCI"`, `architecture: "HCI"; want "ESA" or "OSA"`},
		{`"hosts": 4`, `"hosts": 1`, `hosts: 1; want 2 to 64`},
		{`"ghz": 3.1`, `"ghz": 0`, `cpu.ghz: 0; want the base clock`},
		{`"nics": ["vmnic0"]`, `"nics": ["vmnic7"]`, `uplinks[0].nics: "vmnic7" is not in nics; want one of vmnic0, vmnic1`},
		{`"hosts": 4`, `"hostz": 4`, `unknown field "hostz"`},
		{`"model": {}`, `"model": {"noise_cv": {"value": 0.1}}`, `model.noise_cv.source: missing`},
		{`"model": {}`, `"model": {"nic_efficiency": {"value": 2, "source": "x"}}`, `model.nic_efficiency.value: 2; want a share of line rate in (0, 1]`},
		{`"model": {}`, `"model": {"host_idle_cpu_percent": {"value": 0, "source": "x"}}`, `model.host_idle_cpu_percent.value: 0; want the CPU % an idle host shows (its own services never leave it at 0), above 0 and below 100`},
		{`"model": {}`, `"model": {"noise_cv": {"value": 0.5, "source": "x"}}`, `model.noise_cv.value: 0.5; want below 0.33`},
		{`"model": {}`, `"model": {"dom_worlds_per_socket": {"value": 4, "source": "x"}}`, `model.dom_worlds_per_socket: replaced by model.dom_worlds_per_host, one pool of DOM worlds per host (docs/model.md); give the old value x cpu.sockets`},
		{`"model": {}`, `"model": {"compress_cycles_per_byte": {"value": 6.3, "source": "x"}}`, `model.compress_cycles_per_byte: replaced by model.lz4_block_cycles and model.lz4_attempt_cycles`},
		{`"read_iops": 1100000,`, ``, `storage.capacity: want read_mbps, write_mbps, read_iops`},
		{`"threads_per_core": 2`, `"threads_per_core": 9`, `cpu.threads_per_core: 9; want 1 (no SMT), 2`},
		{`"memory_mts": 4800,`, ``, `memory_mts: give memory_channels and memory_mts together`},
		{`"pcie_lanes": 4,`, `"pcie_lanes": 3,`, `storage.capacity.pcie_gen: gen 4 x3; want a PCIe generation 1-6`},
		{`"card": "nic1", "pcie_gen": 4`, `"card": "nic1", "pcie_gen": 7`, `nics[0].pcie_gen: gen 7 x16`},
		{`"disk_size_gb": 50}`, `"disk_size_gb": 50, "controller": "buslogic"}`, `workers.controller: "buslogic"; want "pvscsi", "lsilogic" or "nvme"`},
		{`"rdma_capable": false,`, `"rdma_capable": false, "mtu": 100,`, `mtu: 100; want the vSAN network's MTU`},
	}
	for _, c := range cases {
		s := strings.Replace(string(base), c.from, c.to, 1)
		_, err := Parse([]byte(s))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s -> %s: error %v, want it to contain %q", c.from, c.to, err, c.want)
		}
	}
}

func TestLoadUnknownName(t *testing.T) {
	_, err := Load("storagereview")
	if err == nil || !strings.Contains(err.Error(), "want one of storagereview-r6625-esa, vxrail-ve660-esa, wwt-r640-osa") {
		t.Errorf("err = %v", err)
	}
	_, err = Load("/nonexistent/x.json")
	if err == nil || !strings.Contains(err.Error(), "reading testbed profile") {
		t.Errorf("err = %v", err)
	}
}

// docs/model.md lists every model parameter.
func TestModelDocListsEveryParameter(t *testing.T) {
	doc, err := os.ReadFile("../../docs/model.md")
	if err != nil {
		t.Fatal(err)
	}
	m := DefaultModel("ESA")
	m.Each(func(name string, _ *Param) {
		if !strings.Contains(string(doc), "`"+name+"`") {
			t.Errorf("docs/model.md does not list `%s`", name)
		}
	})
}
