package worker

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"starbench/internal/fio"
	"starbench/internal/sim"
	"starbench/internal/testbed"
	"starbench/internal/vsphere"
)

// setup starts a simulator whose workers report 127.0.0.1, deploys one
// worker with two data disks, and starts a real fio server standing for its
// image, with a data file per disk.
func setup(t *testing.T) (*vsphere.Client, vsphere.Worker, Options) {
	t.Helper()
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed (apt-get install -y fio)")
	}
	p, err := testbed.Load("vxrail-ve660-esa")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.Start(sim.Options{Testbed: p, GuestIP: func(string) string { return "127.0.0.1" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	pass, _ := s.Userinfo().Password()
	ctx := context.Background()
	c, err := vsphere.Connect(ctx, vsphere.Options{URL: s.URL.String(), Username: sim.User, Password: pass, CAPEM: s.CertPEM})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ws, err := c.DeployWorkers(ctx, vsphere.WorkerSpec{Prefix: "chk", Count: 1, CPUs: 2, MemoryMB: 1024, Disks: 2, DiskSizeGB: 1, IPTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	local, err := fio.NewLocal(t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(local.Close)
	server, err := local.Add(ctx, "chk-01", []fio.Disk{{Name: "disk1"}, {Name: "disk2"}})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, d := range server.Disks {
		if err := os.WriteFile(d.Path, make([]byte, 1<<20), 0o644); err != nil {
			t.Fatal(err)
		}
		files[d.Name] = d.Path
	}
	_, port, _ := net.SplitHostPort(server.Addr)
	n, _ := strconv.Atoi(port)
	return c, ws[0], Options{Port: n, DiskPath: func(d vsphere.Disk) string { return files[d.Name] }}
}

func TestARunningWorkerPassesAndEachFaultIsNamed(t *testing.T) {
	_, w, opts := setup(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		edit func(*vsphere.Worker, *Options)
		want string // the one failure; "" for none
	}{
		{"good", func(*vsphere.Worker, *Options) {}, ""},
		{"no IP", func(w *vsphere.Worker, o *Options) { w.IP = "" }, "guest IP: no IP reported: VMware Tools (open-vm-tools) must run"},
		{"no server", func(w *vsphere.Worker, o *Options) { o.Port = freePort(t) }, "fio server: nothing answers at 127.0.0.1:"},
		{"other fio", func(w *vsphere.Worker, o *Options) { o.WantVersion = "fio-9.99" }, "fio version: the server runs fio-3"},
		{"a disk missing", func(w *vsphere.Worker, o *Options) {
			path := o.DiskPath
			o.DiskPath = func(d vsphere.Disk) string {
				if d.Name == "disk2" {
					return "/nonexistent/sdc"
				}
				return path(d)
			}
		}, "disk2 (/dev/sdc): fio on the worker cannot read it: <"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each fio client call takes a second, waiting
			w2, o2 := w, opts
			tc.edit(&w2, &o2)
			fs := Running(ctx, w2, o2)
			var failed []string
			for _, f := range fs {
				if !f.OK {
					failed = append(failed, f.String())
				}
			}
			switch {
			case tc.want == "" && (len(failed) > 0 || len(fs) != 5):
				t.Errorf("a good worker: %v", fs)
			case tc.want != "" && (len(failed) != 1 || !strings.Contains(failed[0], tc.want)):
				t.Errorf("failures %q, want one containing %q", failed, tc.want)
			}
		})
	}
	t.Cleanup(func() {
		if _, err := os.Stat("/nonexistent/sdc"); err == nil {
			t.Errorf("the check created the missing disk's file")
		}
	})
}

func TestTemplateChecks(t *testing.T) {
	c, w, _ := setup(t)
	ctx := context.Background()
	if fs := Template(ctx, c, sim.Template); Failed(fs) {
		t.Errorf("the simulator's template: %v", fs)
	}
	fs := Template(ctx, c, w.Name) // a worker: a VM with data disks
	var failed []string
	for _, f := range fs {
		if !f.OK {
			failed = append(failed, f.Check)
		}
	}
	if strings.Join(failed, ",") != "is a template,disks" {
		t.Errorf("a worker VM as a template: failed %v", fs)
	}
	if fs := Template(ctx, c, "nope"); !Failed(fs) || !strings.Contains(fs[0].Detail, "no VM or template named nope") {
		t.Errorf("a missing template: %v", fs)
	}
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
