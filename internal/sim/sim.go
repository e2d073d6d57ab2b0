// Package sim is the embedded vCenter: govmomi's simulator (vcsim) shaped by a
// testbed profile and extended until the calls starbench makes against a real
// vCenter work on it too (vSAN data efficiency and RDMA, SPBM policy updates
// and compliance, portgroup NIC teaming, guest IPs, host CPU metrics).
package sim

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/vmware/govmomi/pbm"
	pbmsim "github.com/vmware/govmomi/pbm/simulator"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
	"github.com/vmware/govmomi/vsan"
	vsansim "github.com/vmware/govmomi/vsan/simulator"

	"starbench/internal/model"
	"starbench/internal/testbed"
	_ "starbench/internal/vsphere/vsanext" // registers the RDMA types the simulator decodes
)

// Names of the simulated inventory.
const (
	Datacenter  = "DC0"
	Cluster     = "DC0_C0"
	Datastore   = "vsanDatastore"
	Template    = "starbench-worker-template"
	VSANPortgrp = "vSAN"
	VMNetwork   = "VM Network"
	User        = "administrator@vsphere.local"
	// KeyProvider is the embedded vCenter's default key provider (a
	// vSphere Native Key Provider), which data-at-rest encryption uses.
	KeyProvider = "starbench-native-key-provider"
)

// Options shape a simulator.
type Options struct {
	// Testbed is the cluster to simulate.
	Testbed *testbed.Profile
	// Listen is the address to serve on; "" means 127.0.0.1 on a free port.
	Listen string
	// Latency is added to every SOAP call, as a slow vCenter or a WAN would.
	Latency time.Duration
	// Faults are injected from the start; see SetFaults.
	Faults []Fault
	// Seed seeds the fault injector's random numbers (0 = time-based).
	Seed int64
	// GuestIP returns the guest IP a powered-on VM reports; nil assigns
	// loopback addresses 127.1.x.y in power-on order.
	GuestIP func(vmName string) string
	// Log receives govmomi's simulator's own log lines (a second snapshot
	// of a VM logs "*types.FileAlreadyExists: ..." while it looks for a
	// free file name); nil discards them. The simulator writes them with
	// the standard logger, so this sets its output for the process.
	Log io.Writer
}

// Sim is a running simulated vCenter, served over HTTPS with its own
// self-signed certificate.
type Sim struct {
	Testbed *testbed.Profile
	// URL is the SDK URL without credentials.
	URL *url.URL
	// CertPEM is the server certificate; clients trust it as their CA.
	CertPEM []byte
	// Thumbprint is the SHA-1 thumbprint of the certificate (govc's GOVC_TLS_KNOWN_HOSTS form).
	Thumbprint string

	model  *simulator.Model
	server *simulator.Server
	user   *url.Userinfo

	faults   *injector
	policies *diskPolicies
	load     *hostLoad
	guest    *guestIPs
	holds    holds
	vsanRuns vsanRuns
	buffers  writeBuffers

	// registries are the SDK endpoints by path, for in-process calls,
	// which run in session with latency added.
	registries map[string]*simulator.Registry
	session    *simulator.Session
	latency    time.Duration
	version    atomic.Uint64
	vmVersion  atomic.Uint64
	tasks      *taskWatch
	home       string // the memory file system's directory of the datastores, or ""
}

// Start creates the simulated inventory of opts.Testbed and serves it.
func Start(opts Options) (*Sim, error) {
	p := opts.Testbed
	if p == nil {
		return nil, errors.New("internal error: sim.Start needs a testbed profile")
	}
	if err := validate(p); err != nil {
		return nil, err
	}
	tuneGarbageCollector()
	logTo := opts.Log
	if logTo == nil {
		logTo = io.Discard
	}
	log.SetOutput(logTo)

	model := simulator.VPX()
	model.Datacenter = 1
	model.Cluster = 1
	model.ClusterHost = p.Hosts
	model.Host = 0
	model.Datastore = 0
	model.Machine = 0
	model.Portgroup = 0
	model.Autostart = false
	model.DelayConfig.Delay = int(opts.Latency / time.Millisecond)
	if err := model.Create(); err != nil {
		return nil, fmt.Errorf("simulator: %w", err)
	}

	s := &Sim{
		Testbed:  p,
		model:    model,
		user:     url.UserPassword(User, rand.Text()),
		faults:   newInjector(opts.Seed),
		policies: newDiskPolicies(),
		load:     newHostLoad(p.Model.HostIdleCPUPercent.Value),
		guest:    newGuestIPs(opts.GuestIP),
		latency:  opts.Latency,
	}
	s.faults.set(opts.Faults)
	s.home = memoryHome(model)
	if err := s.shape(); err != nil {
		s.removeFiles()
		return nil, err
	}

	cert, certPEM, err := selfSigned(opts.Listen)
	if err != nil {
		s.removeFiles()
		return nil, err
	}
	s.CertPEM = certPEM

	svc := model.Service
	svc.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	if opts.Listen != "" {
		svc.Listen = &url.URL{Host: opts.Listen, User: s.user}
	} else {
		svc.Listen = &url.URL{Host: "127.0.0.1:0", User: s.user}
	}
	s.extend()

	s.server = svc.NewServer()
	u := *s.server.URL
	u.User = nil
	s.URL = &u
	x, _ := x509.ParseCertificate(cert.Certificate[0])
	s.Thumbprint = soap.ThumbprintSHA1(x)
	return s, nil
}

// extend installs the extensions: the call hook and task gate, wrapped
// network systems and performance manager, and the SPBM and vSAN endpoints
// (registered here rather than by vcsim's global endpoint list).
func (s *Sim) extend() {
	m := s.model.Map()
	m.Handler = s.versioned(s.vimHandler)
	m.AddHandler(&taskGate{sim: s})
	s.tasks = &taskWatch{sim: s}
	m.AddHandler(s.tasks)
	for _, ref := range m.AllReference("HostNetworkSystem") {
		m.Put(&hostNetwork{HostNetworkSystem: ref.(*simulator.HostNetworkSystem)})
	}
	pm := m.Get(*s.model.ServiceContent.PerfManager).(*simulator.PerformanceManager)
	m.Put(&perfManager{PerformanceManager: pm, sim: s})

	// vCenter's default key provider, for the cluster too (vcsim reads a
	// cluster's default from its entity defaults only).
	cluster := m.All("ClusterComputeResource")[0].Reference()
	kms := m.CryptoManager()
	kms.KmipServers = append(kms.KmipServers, types.KmipClusterInfo{
		ClusterId:          types.KeyProviderId{Id: KeyProvider},
		ManagementType:     string(types.KmipClusterInfoKmsManagementTypeNativeProvider),
		UseAsDefault:       true,
		UseAsEntityDefault: []types.ManagedObjectReference{cluster},
	})

	pbmReg := pbmsim.New()
	stock := pbmReg.Get(pbmProfileManager).(*pbmsim.ProfileManager)
	pbmReg.Put(&profileManager{ProfileManager: stock, sim: s})
	pbmReg.Put(&complianceManager{ManagedObjectReference: pbmComplianceManager, sim: s})
	pbmReg.Handler = s.versioned(nil)
	s.model.Service.RegisterSDK(pbmReg)
	vsanReg := vsansim.New()
	config := newClusterConfigSystem(s)
	vsanReg.Put(config)
	vsanReg.Put(newVSANPerfManager(s, config))
	vsanReg.Handler = s.versioned(nil)
	s.model.Service.RegisterSDK(vsanReg)
	s.registries = map[string]*simulator.Registry{vim25.Path: m, pbm.Path: pbmReg, vsan.Path: vsanReg}
	s.session = newSession(m)
}

// Close stops the server and removes the simulator's files.
func (s *Sim) Close() {
	s.server.Close()
	s.removeFiles()
}

// removeFiles removes the simulator's files.
func (s *Sim) removeFiles() {
	s.model.Remove()
	if s.home != "" {
		os.RemoveAll(s.home)
	}
}

// memoryFS is where Linux mounts a memory file system for everyone.
const memoryFS = "/dev/shm"

// removeOrphans removes the directories that simulators of processes that
// are gone (killed before they could clean up) left in dir.
func removeOrphans(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "starbench-sim-%d-", &pid); err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// processAlive says whether process pid exists (or may: one of another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// memoryHome moves where the simulator keeps the files of datastores
// created from now on (the vSAN datastore: VM files and virtual disks,
// real files but empty) to a memory file system when the machine has one,
// and returns that directory ("" when it stays in the temporary directory).
// A deployment creates thousands of files: on a disk, creating them takes
// longer than everything else it does.
func memoryHome(m *simulator.Model) string {
	removeOrphans(memoryFS)
	dir, err := os.MkdirTemp(memoryFS, fmt.Sprintf("starbench-sim-%d-", os.Getpid()))
	if err != nil {
		return ""
	}
	for _, o := range m.Map().OptionManager().Setting {
		if ov := o.GetOptionValue(); ov.Key == "vcsim.home" {
			ov.Value = dir
			return dir
		}
	}
	os.Remove(dir)
	return ""
}

// Userinfo returns the simulator's login: User with a password made up for
// this instance.
func (s *Sim) Userinfo() *url.Userinfo { return s.user }

// SetFaults replaces the injected faults; nil removes them.
func (s *Sim) SetFaults(faults []Fault) { s.faults.set(faults) }

// RecordHostCPU makes host report cpuPercent CPU usage between start and
// end through the PerformanceManager, and nothing of vSAN's.
func (s *Sim) RecordHostCPU(host string, start, end time.Time, cpuPercent float64) {
	s.load.record(host, start, end, model.HostLoad{CPUPercent: cpuPercent})
}

// RecordHostLoad makes host report l between start and end: its CPU and
// network through the PerformanceManager, its components' I/O, vSAN's CPU
// and its vSAN network through the vSAN performance service (the embedded
// data plane calls it after every simulated run, so host metrics show
// what the model predicted).
func (s *Sim) RecordHostLoad(host string, start, end time.Time, l model.HostLoad) {
	s.load.record(host, start, end, l)
}

// validate checks what the simulator needs of a profile.
func validate(p *testbed.Profile) error {
	switch {
	case p.Hosts < 3:
		return fmt.Errorf("testbed %q has %d hosts; vSAN needs at least 3", p.Name, p.Hosts)
	case p.Architecture != "ESA" && p.Architecture != "OSA":
		return fmt.Errorf("testbed %q has architecture %q; want \"ESA\" or \"OSA\"", p.Name, p.Architecture)
	case len(p.NICs) == 0:
		return fmt.Errorf("testbed %q has no NICs; want at least one (vmnic0)", p.Name)
	}
	nics := map[string]bool{}
	for _, n := range p.NICs {
		nics[n.Name] = true
	}
	for _, u := range p.Uplinks {
		for _, n := range u.NICs {
			if !nics[n] {
				return fmt.Errorf("testbed %q: uplink %q names NIC %q, which the hosts do not have", p.Name, u.Name, n)
			}
		}
	}
	return nil
}
