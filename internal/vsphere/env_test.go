package vsphere

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"starbench/internal/sim"
)

// TestEveryGovcVariableIsRead: each variable the help lists changes the
// options it stands for.
func TestEveryGovcVariableIsRead(t *testing.T) {
	base, err := OptionsFromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]string{"GOVC_INSECURE": "1", "GOVC_TLS_HANDSHAKE_TIMEOUT": "45s"}
	for _, v := range EnvVars {
		value := values[v.Name]
		if value == "" {
			value = "x-" + v.Name
		}
		got, err := OptionsFromEnv(func(k string) string {
			if k == v.Name {
				return value
			}
			return ""
		})
		if err != nil {
			t.Fatalf("%s=%s: %v", v.Name, value, err)
		}
		if reflect.DeepEqual(got, base) {
			t.Errorf("%s changes no option", v.Name)
		}
	}
	if _, err := OptionsFromEnv(func(k string) string { return map[string]string{"GOVC_TLS_HANDSHAKE_TIMEOUT": "soon"}[k] }); err == nil || !strings.Contains(err.Error(), "want e.g. 30s") {
		t.Errorf("bad handshake timeout: %v", err)
	}
}

// TestWorkersGoWhereTheGovcVariablesSay: GOVC_FOLDER, GOVC_RESOURCE_POOL,
// GOVC_DATASTORE, GOVC_NETWORK and GOVC_HOST place the workers, checked
// through an independent client.
func TestWorkersGoWhereTheGovcVariablesSay(t *testing.T) {
	s, admin := startSim(t, sim.Options{Testbed: testbedDVS(3, false)})
	ctx := context.Background()
	folders, _ := admin.dc.Folders(ctx)
	if _, err := folders.VmFolder.CreateFolder(ctx, "bench"); err != nil {
		t.Fatal(err)
	}
	root, _ := admin.cluster.ResourcePool(ctx)
	if _, err := root.Create(ctx, "bench-pool", types.DefaultResourceConfigSpec()); err != nil {
		t.Fatal(err)
	}
	hosts, _ := admin.hosts(ctx, "configManager.datastoreSystem")
	h1 := hosts[1]
	dss := object.NewHostDatastoreSystem(admin.vim, *h1.ConfigManager.DatastoreSystem)
	if _, err := dss.CreateLocalDatastore(ctx, "local-h1", t.TempDir()); err != nil {
		t.Fatal(err)
	}
	pass, _ := s.Userinfo().Password()
	env := map[string]string{
		"GOVC_URL": s.URL.String(), "GOVC_USERNAME": sim.User, "GOVC_PASSWORD": pass,
		"GOVC_FOLDER": "bench", "GOVC_RESOURCE_POOL": "bench-pool", "GOVC_DATASTORE": "local-h1",
		"GOVC_NETWORK": "vSAN-pg", "GOVC_HOST": h1.Name,
	}
	opts, err := OptionsFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	opts.CAPEM = s.CertPEM
	c, err := Connect(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	spec := smallSpec("placed")
	spec.PerHost, spec.Disks = 2, 1
	if _, err := c.DeployWorkers(ctx, spec); err != nil {
		t.Fatal(err)
	}
	var vms []mo.VirtualMachine
	retrieveAll(t, s, "VirtualMachine", []string{"name", "parent", "resourcePool", "datastore", "config.hardware.device", "runtime.host"}, &vms)
	pgKey := func(vm mo.VirtualMachine) string {
		for _, d := range vm.Config.Hardware.Device {
			if nic, ok := d.(types.BaseVirtualEthernetCard); ok {
				if b, ok := nic.GetVirtualEthernetCard().Backing.(*types.VirtualEthernetCardDistributedVirtualPortBackingInfo); ok {
					return b.Port.PortgroupKey
				}
			}
		}
		return ""
	}
	net, err := admin.finder.Network(ctx, "vSAN-pg")
	if err != nil {
		t.Fatal(err)
	}
	var pg mo.DistributedVirtualPortgroup
	if err := propertyOf(ctx, admin.vim, net.Reference(), "config", &pg); err != nil {
		t.Fatal(err)
	}
	placed := 0
	names := func(refs ...types.ManagedObjectReference) string {
		var out []string
		for _, r := range refs {
			var e mo.ManagedEntity
			if err := propertyOf(ctx, admin.vim, r, "name", &e); err == nil {
				out = append(out, e.Name)
			}
		}
		return strings.Join(out, ",")
	}
	for _, vm := range vms {
		if !strings.HasPrefix(vm.Name, "placed-") {
			continue
		}
		placed++
		got := []string{names(*vm.Parent), names(*vm.ResourcePool), names(vm.Datastore...), pgKey(vm), names(*vm.Runtime.Host)}
		want := []string{"bench", "bench-pool", "local-h1", pg.Config.Key, h1.Name}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: folder, pool, datastore, network, host = %v, want %v", vm.Name, got, want)
		}
	}
	if placed != 2 {
		t.Errorf("%d workers placed, want 2 (per_host on the one host GOVC_HOST names)", placed)
	}
	for k, want := range map[string]string{"GOVC_HOST": "is not a connected host of cluster", "GOVC_RESOURCE_POOL": `resource pool "nope" (GOVC_RESOURCE_POOL)`, "GOVC_FOLDER": `VM folder "nope" (GOVC_FOLDER)`} {
		bad := opts
		switch k {
		case "GOVC_HOST":
			bad.Placement.Host = "/DC0/host/nowhere"
			want = "GOVC_HOST"
		case "GOVC_RESOURCE_POOL":
			bad.Placement.ResourcePool = "nope"
		case "GOVC_FOLDER":
			bad.Placement.Folder = "nope"
		}
		c, err := Connect(ctx, bad)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.DeployWorkers(ctx, smallSpec("bad")); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", k, err, want)
		}
	}
}

// TestAnUntrustedCertificateNamesTheFixes: the error names the three
// variables and the thumbprint to check; each fix then connects.
func TestAnUntrustedCertificateNamesTheFixes(t *testing.T) {
	s, _ := startSim(t, sim.Options{Testbed: testbedOf(3, "ESA")})
	ctx := context.Background()
	pass, _ := s.Userinfo().Password()
	opts := Options{URL: s.URL.String(), Username: sim.User, Password: pass, Retry: Retry{Attempts: 1}}
	_, err := Connect(ctx, opts)
	if err == nil {
		t.Fatal("connected to an untrusted certificate")
	}
	for _, want := range []string{"is not trusted", "GOVC_TLS_CA_CERTS", "GOVC_TLS_KNOWN_HOSTS", "GOVC_INSECURE=1", s.URL.Host + " " + s.Thumbprint} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if strings.Contains(err.Error(), pass) {
		t.Errorf("the error shows the password")
	}
	dir := t.TempDir()
	known := filepath.Join(dir, "known_hosts")
	os.WriteFile(known, []byte(s.URL.Host+" "+s.Thumbprint+"\n"), 0o600)
	ca := filepath.Join(dir, "ca.pem")
	os.WriteFile(ca, s.CertPEM, 0o600)
	wrong := filepath.Join(dir, "wrong")
	os.WriteFile(wrong, []byte(s.URL.Host+" 00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33\n"), 0o600)
	for name, edit := range map[string]func(*Options){
		"known hosts": func(o *Options) { o.KnownHosts = known },
		"CA certs":    func(o *Options) { o.CACerts = ca },
		"insecure":    func(o *Options) { o.Insecure = true },
	} {
		o := opts
		edit(&o)
		c, err := Connect(ctx, o)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		c.Close()
	}
	o := opts
	o.KnownHosts = wrong
	if _, err := Connect(ctx, o); err == nil || !strings.Contains(err.Error(), "GOVC_TLS_KNOWN_HOSTS") {
		t.Errorf("a thumbprint that does not match: %v", err)
	}
}
