package cli

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/session"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/soap"

	"starbench/internal/ledger"
	"starbench/internal/sim"
	"starbench/internal/testbed"
	"starbench/internal/vsphere"
)

// servedVCenter starts a simulated vCenter served over HTTPS, as `starbench
// sim serve` does, and returns it with the govc environment that reaches it.
func servedVCenter(t *testing.T) (*sim.Sim, map[string]string) {
	t.Helper()
	p, err := testbed.Load("storagereview-r6625-esa")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.Start(sim.Options{Testbed: p})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, s.CertPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	pass, _ := s.Userinfo().Password()
	return s, map[string]string{"GOVC_URL": s.URL.String(), "GOVC_USERNAME": sim.User, "GOVC_PASSWORD": pass, "GOVC_TLS_CA_CERTS": ca}
}

// vcenterState is what an independent govmomi client sees of the things a
// cleanup must remove, restore or leave alone.
type vcenterState struct {
	vms         []string // names, sorted
	policies    []string // starbench's and the others', sorted
	compression bool
	activeNICs  []string
}

func observe(t *testing.T, s *sim.Sim) vcenterState {
	t.Helper()
	ctx := context.Background()
	// The VMs through plain govmomi: nothing of starbench's client is trusted.
	u := *s.URL
	vc, err := vim25.NewClient(ctx, soap.NewClient(&u, true))
	if err != nil {
		t.Fatal(err)
	}
	if err := session.NewManager(vc).Login(ctx, s.Userinfo()); err != nil {
		t.Fatal(err)
	}
	defer session.NewManager(vc).Logout(ctx)
	finder := find.NewFinder(vc, true)
	dc, _ := finder.DefaultDatacenter(ctx)
	finder.SetDatacenter(dc)
	var st vcenterState
	if vms, err := finder.VirtualMachineList(ctx, "*"); err == nil {
		for _, vm := range vms {
			var m mo.VirtualMachine
			if err := vm.Properties(ctx, vm.Reference(), []string{"name", "config.template"}, &m); err == nil && !m.Config.Template {
				st.vms = append(st.vms, m.Name)
			}
		}
	}
	slices.Sort(st.vms)
	// Policies and cluster settings need SPBM and vSAN: a fresh client of
	// their own, with no ledger.
	pass, _ := s.Userinfo().Password()
	c, err := vsphere.Connect(ctx, vsphere.Options{URL: s.URL.String(), Username: sim.User, Password: pass, CAPEM: s.CertPEM})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, name := range []string{"bench-pol", "keep-pol"} {
		if _, err := c.Policy(ctx, name); err == nil {
			st.policies = append(st.policies, name)
		}
	}
	cs, err := c.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st.compression, st.activeNICs = cs.Compression, cs.ActiveNICs
	return st
}

// preexisting makes what was there before the run: someone's worker set and
// a policy of an earlier run.
func preexisting(t *testing.T, s *sim.Sim) {
	t.Helper()
	ctx := context.Background()
	pass, _ := s.Userinfo().Password()
	c, err := vsphere.Connect(ctx, vsphere.Options{URL: s.URL.String(), Username: sim.User, Password: pass, CAPEM: s.CertPEM})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.DeployWorkers(ctx, vsphere.WorkerSpec{Prefix: "keep", Count: 2, CPUs: 2, MemoryMB: 1024, Disks: 1, DiskSizeGB: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetPolicy(ctx, vsphere.PolicySpec{Name: "keep-pol", RAID: "raid1"}); err != nil {
		t.Fatal(err)
	}
}

// changeScript makes workers and a policy and changes cluster settings,
// then fails.
const changeScript = `
p = policy.vsan("bench-pol", raid = "raid5")
ws = vsphere.deploy_workers("w", per_host = 1, disks = 1, disk_size = "1GiB", policy = p)
cluster.configure(compression = True, uplink = "vmnic1")
print("changed")
fail("the script breaks after changing things")
`

func TestRunCleanupUndoesTheRunAndNothingElse(t *testing.T) {
	s, env := servedVCenter(t)
	preexisting(t, s)
	before := observe(t, s)
	out := t.TempDir()
	r := runCLI(t, "", env, "run", writeScript(t, "change.star", changeScript), "--out", out, "--cleanup")
	expect(t, r, ExitScriptError, "", `(?s)the script breaks.*cleanup: removed vm w-01.*cleanup: removed policy bench-pol.*cleanup: restored cluster DC0_C0.*cleanup: 5 removed, 1 restored, 0 gone already, 0 failed`)
	if after := observe(t, s); !equalState(after, before) {
		t.Errorf("after run --cleanup the vCenter holds %+v, want %+v as before", after, before)
	}
	l, err := ledger.Open(filepath.Join(out, ledger.FileName))
	if err != nil || len(l.Pending()) != 0 {
		t.Errorf("ledger after cleanup: %v pending, %v", len(l.Pending()), err)
	}
}

func TestCleanUndoesARunLater(t *testing.T) {
	s, env := servedVCenter(t)
	preexisting(t, s)
	before := observe(t, s)
	out := t.TempDir()
	r := runCLI(t, "", env, "run", writeScript(t, "change.star", changeScript), "--out", out)
	expect(t, r, ExitScriptError, "", "the script breaks")
	if after := observe(t, s); equalState(after, before) {
		t.Fatalf("the run changed nothing: %+v", after)
	}
	if b, err := os.ReadFile(filepath.Join(out, ledger.FileName)); err != nil || strings.Contains(string(b), env["GOVC_PASSWORD"]) {
		t.Errorf("the ledger is missing (%v) or holds the password", err)
	}
	wrong := map[string]string{}
	for k, v := range env {
		wrong[k] = v
	}
	wrong["GOVC_PASSWORD"] = "n0t-the-Pa$$word"
	r = runCLI(t, "", wrong, "clean", out)
	expect(t, r, ExitScriptError, "", "cannot log in")
	if strings.Contains(r.stderr+r.stdout, wrong["GOVC_PASSWORD"]) {
		t.Errorf("clean showed the password: %s", r.stderr)
	}
	r = runCLI(t, "", env, "clean", out, "--list")
	expect(t, r, ExitOK, `(?s)policy +bench-pol +created.*vm +w-04 +created.*cluster +DC0_C0 +changed`, "^$")
	if after := observe(t, s); equalState(after, before) {
		t.Fatalf("clean --list changed the vCenter")
	}
	r = runCLI(t, "", env, "clean", out)
	expect(t, r, ExitOK, "", `cleanup: 5 removed, 1 restored, 0 gone already, 0 failed`)
	if after := observe(t, s); !equalState(after, before) {
		t.Errorf("after clean the vCenter holds %+v, want %+v as before", after, before)
	}
	expect(t, runCLI(t, "", env, "clean", out), ExitOK, "nothing to clean", "^$")
	expect(t, runCLI(t, "", env, "clean", t.TempDir()), ExitOK, "has no ledger", "^$")
	expect(t, runCLI(t, "", map[string]string{}, "clean", out+"/nope"), ExitUsage, "", "is not a directory")
}

// TestCtrlCOrSIGTERMCancelsTheTasksInFlight: the interrupt arrives while
// the simulator holds the workers' disk tasks (a slow vCenter); the tasks
// are cancelled in vCenter, the run exits 130, and --cleanup leaves the
// vCenter as it was.
func TestCtrlCOrSIGTERMCancelsTheTasksInFlight(t *testing.T) {
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			s, env := servedVCenter(t)
			before := observe(t, s)
			hold := s.HoldTasks("ReconfigVm")
			defer hold.Release()
			interrupts := make(chan os.Signal, 1)
			go func() {
				if hold.Wait(context.Background(), 4) != nil {
					return
				}
				interrupts <- sig
				// A held task keeps its VM locked: release it rather than
				// hang when the run does not cancel it (a failing test).
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				if hold.WaitCancelled(ctx, 4) != nil {
					hold.Release()
				}
			}()
			script := writeScript(t, "deploy.star", `vsphere.deploy_workers("w", per_host = 1, disks = 1, disk_size = "1GiB", pool = 4)`)
			var stdout, stderr bytes.Buffer
			code := Run(&State{Args: []string{"run", script, "--out", t.TempDir(), "--cleanup"}, Env: env, Stdout: &stdout, Stderr: &stderr, Interrupts: interrupts})
			if code != ExitInterrupted {
				t.Errorf("exit %d, want 130; stderr:\n%s", code, stderr.String())
			}
			if n := hold.Cancelled(); n != 4 {
				t.Errorf("%d tasks cancelled in vCenter, want the 4 in flight", n)
			}
			if after := observe(t, s); !equalState(after, before) {
				t.Errorf("after the interrupted run the vCenter holds %+v, want %+v", after, before)
			}
			if strings.Contains(stderr.String(), env["GOVC_PASSWORD"]) {
				t.Errorf("the password reached stderr")
			}
		})
	}
}

func equalState(a, b vcenterState) bool {
	return slices.Equal(a.vms, b.vms) && slices.Equal(a.policies, b.policies) && a.compression == b.compression && slices.Equal(a.activeNICs, b.activeNICs)
}

// TestWorkerCheckTrialsATemplate: the template passes, a trial worker is
// deployed and reached at its guest IP by a real fio server standing for
// the image, its data disks (which this machine does not have) fail with
// their names, and the trial worker is removed.
func TestWorkerCheckTrialsATemplate(t *testing.T) {
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed (apt-get install -y fio)")
	}
	s, env := servedVCenter(t)
	before := observe(t, s)
	// The simulator gives the first VM powered on 127.1.0.1.
	ln, err := net.Listen("tcp", "127.1.0.1:0")
	if err != nil {
		t.Skip("no 127.1.0.1 on this machine")
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	server := exec.Command("fio", "--server=ip:127.1.0.1,"+strconv.Itoa(port))
	server.Dir = t.TempDir()
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Process.Kill(); server.Wait() })
	for i := 0; ; i++ { // until it listens
		if c, err := net.Dial("tcp", net.JoinHostPort("127.1.0.1", strconv.Itoa(port))); err == nil {
			c.Close()
			break
		}
		if i > 500 {
			t.Fatal("the fio server does not listen")
		}
		time.Sleep(10 * time.Millisecond)
	}
	r := runCLI(t, "", env, "worker", "check", "--trial", "--port", strconv.Itoa(port))
	expect(t, r, ExitScriptError,
		`(?s)ok   template starbench-worker-template: is a template.*ok   worker starbench-check-01: guest IP: 127.1.0.1.*ok   worker starbench-check-01: fio server: answers.*ok   worker starbench-check-01: fio version: fio-.*FAIL worker starbench-check-01: disk1 \(/dev/sdb\): fio on the worker cannot read it.*FAIL worker starbench-check-01: disk2 \(/dev/sdc\)`,
		`(?s)cleanup: removed vm starbench-check-01.*not ready for a deployment`)
	if after := observe(t, s); !equalState(after, before) {
		t.Errorf("the trial left %+v, want %+v", after, before)
	}
	expect(t, runCLI(t, "", env, "worker", "check", "--template", "nope"), ExitScriptError, "FAIL template nope: exists: no VM or template named nope", "")
	expect(t, runCLI(t, "", map[string]string{}, "worker", "check"), ExitUsage, "", "GOVC_URL is not set")
}
