package events_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/session"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"

	"starbench/internal/ledger"
	"starbench/internal/sim"
	"starbench/internal/testbed"
	"starbench/internal/vsphere"
)

// The tests here run the starbench binary against a simulated vCenter
// served over HTTPS by the test (so it outlives the processes, as a real
// one does), stop it the hard way (SIGKILL) and the polite way (SIGINT),
// and check through a client of their own that what the script changed on
// the cluster is set back.

var (
	buildOnce sync.Once
	binDir    string
	binErr    error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func buildStarbench(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "starbench-bin"); binErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, "starbench"), "starbench/cmd/starbench").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("building starbench: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, "starbench")
}

// changeScript takes one host into maintenance mode, isolates another and
// fails a device of a third, says so, then waits at its gate (a named pipe
// the test writes to, or never does).
const changeScript = `
hosts = [h.name for h in cluster.hosts()]
cluster.maintenance(hosts[0], evacuation = "no_data_migration")
cluster.fail_host(hosts[1], how = "isolate")
cluster.fail_disk(hosts[3], how = "remove")
print("changed")
frame.read_csv(args.get("gate", ""))
print("passed the gate")
`

// vcenter is a simulated vCenter the test serves, with the environment
// that points starbench at it and a client of the test's own.
type vcenter struct {
	sim *sim.Sim
	env []string
	vim *vim25.Client
}

func startVCenter(t *testing.T) *vcenter {
	t.Helper()
	p, err := testbed.Load(testbed.Default)
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
	v := &vcenter{sim: s, env: append(os.Environ(), "GOVC_URL="+s.URL.String(), "GOVC_USERNAME="+s.Userinfo().Username(),
		"GOVC_PASSWORD="+pass, "GOVC_TLS_CA_CERTS="+ca)}
	ctx := context.Background()
	u := *s.URL
	c, err := vim25.NewClient(ctx, soap.NewClient(&u, true))
	if err != nil {
		t.Fatal(err)
	}
	if err := session.NewManager(c).Login(ctx, s.Userinfo()); err != nil {
		t.Fatal(err)
	}
	v.vim = c
	return v
}

// hosts reads every host through the test's own client: name -> (in
// maintenance mode, vSAN VMkernel NIC selected, powered on).
func (v *vcenter) hosts(t *testing.T) map[string][3]bool {
	t.Helper()
	ctx := context.Background()
	list, err := find.NewFinder(v.vim, false).HostSystemList(ctx, "/"+sim.Datacenter+"/host/"+sim.Cluster+"/*")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][3]bool{}
	for _, h := range list {
		var mh mo.HostSystem
		if err := property.DefaultCollector(v.vim).RetrieveOne(ctx, h.Reference(), []string{"name", "runtime", "config.virtualNicManagerInfo"}, &mh); err != nil {
			t.Fatal(err)
		}
		tagged := false
		for _, nc := range mh.Config.VirtualNicManagerInfo.NetConfig {
			tagged = tagged || (nc.NicType == "vsan" && len(nc.SelectedVnic) > 0)
		}
		out[mh.Name] = [3]bool{mh.Runtime.InMaintenanceMode, tagged, mh.Runtime.PowerState == "poweredOn"}
	}
	return out
}

// changed counts the hosts in maintenance mode and those out of the
// cluster (off the vSAN network or powered off).
func (v *vcenter) changed(t *testing.T) (maintenance, out int) {
	for _, h := range v.hosts(t) {
		if h[0] {
			maintenance++
		}
		if !h[1] || !h[2] {
			out++
		}
	}
	return maintenance, out
}

// disksOut counts, through the test's own client, the devices of the
// cluster's hosts that vSAN does not use.
func (v *vcenter) disksOut(t *testing.T) int {
	t.Helper()
	ctx := context.Background()
	list, err := find.NewFinder(v.vim, false).HostSystemList(ctx, "/"+sim.Datacenter+"/host/"+sim.Cluster+"/*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, h := range list {
		var mh mo.HostSystem
		if err := property.DefaultCollector(v.vim).RetrieveOne(ctx, h.Reference(), []string{"configManager.vsanSystem"}, &mh); err != nil {
			t.Fatal(err)
		}
		res, err := methods.QueryDisksForVsan(ctx, v.vim, &types.QueryDisksForVsan{This: *mh.ConfigManager.VsanSystem})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Returnval {
			if r.State != string(types.VsanHostDiskResultStateInUse) {
				n++
			}
		}
	}
	return n
}

type proc struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	out    bytes.Buffer
	lines  chan string
	done   chan struct{}
	code   int
	script string
}

func (v *vcenter) start(t *testing.T, dir, src string, args ...string) *proc {
	t.Helper()
	bin := buildStarbench(t)
	script := filepath.Join(dir, fmt.Sprintf("s%d.star", time.Now().UnixNano()))
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &proc{lines: make(chan string, 100), done: make(chan struct{}), script: script}
	p.cmd = exec.Command(bin, append([]string{"run", script, "--target", "vcenter", "--out", filepath.Join(dir, "out"), "--no-progress"}, args...)...)
	p.cmd.Env = v.env
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stdout, p.cmd.Stderr = w, w
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			p.mu.Lock()
			p.out.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
	}()
	go func() {
		err := p.cmd.Wait()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			p.code = exit.ExitCode()
		case err != nil:
			p.code = -2
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// waitFor returns once the process printed want; it fails the test if the
// process ends first.
func (p *proc) waitFor(t *testing.T, want string) {
	t.Helper()
	for {
		select {
		case line := <-p.lines:
			if strings.Contains(line, want) {
				return
			}
		case <-p.done:
			if strings.Contains(p.output(), want) {
				return
			}
			t.Fatalf("the process ended (exit %d) before printing %q:\n%s", p.code, want, p.output())
		}
	}
}

func (p *proc) exitCode() int {
	<-p.done
	return p.code
}

// openEventChanges counts the changes by events the ledger at path holds
// still to be set back.
func openEventChanges(t *testing.T, path string) int {
	t.Helper()
	l, err := ledger.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	n := 0
	for _, e := range l.Pending() {
		if vsphere.EventKind(e.Kind) {
			n++
		}
	}
	return n
}

func gate(t *testing.T, dir string) string {
	t.Helper()
	g := filepath.Join(dir, "gate")
	if err := syscall.Mkfifo(g, 0o600); err != nil {
		t.Fatal(err)
	}
	return g
}

func TestDisruptiveActionsNeedTheFlag(t *testing.T) {
	v := startVCenter(t)
	dir := t.TempDir()
	for _, script := range []string{changeScript, `cluster.fail_disk(cluster.hosts()[0].name)`} {
		p := v.start(t, dir, script)
		if code := p.exitCode(); code != 1 || !strings.Contains(p.output(), "run starbench with --allow-disruptive") {
			t.Fatalf("exit %d, want 1 naming --allow-disruptive:\n%s", code, p.output())
		}
		if m, i := v.changed(t); m != 0 || i != 0 || v.disksOut(t) != 0 {
			t.Errorf("refused, yet %d hosts are in maintenance mode, %d isolated and %d devices out", m, i, v.disksOut(t))
		}
	}
}

func TestChangesAreUndoneAfterAKillOnTheNextRun(t *testing.T) {
	v := startVCenter(t)
	dir := t.TempDir()
	g := gate(t, dir)
	p := v.start(t, dir, changeScript, "--allow-disruptive", "--set", "gate="+g)
	p.waitFor(t, "changed")
	if m, i := v.changed(t); m != 1 || i != 1 || v.disksOut(t) != 1 {
		t.Fatalf("before the kill: %d hosts in maintenance mode, %d isolated, %d devices out; want 1, 1 and 1", m, i, v.disksOut(t))
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.exitCode()
	if m, i := v.changed(t); m != 1 || i != 1 || v.disksOut(t) != 1 {
		t.Fatalf("a killed process cannot set anything back, yet %d hosts are in maintenance mode, %d isolated and %d devices out", m, i, v.disksOut(t))
	}
	journal := filepath.Join(dir, "out", ledger.FileName)
	if n := openEventChanges(t, journal); n != 3 {
		t.Fatalf("the ledger that survived the kill holds %d open changes by events, want 3", n)
	}

	// The next run sets them back before its script does anything, without
	// needing --allow-disruptive to do so.
	next := v.start(t, dir, `print("hosts serving: %d" % len([h for h in cluster.hosts() if h.serving]))`)
	if code := next.exitCode(); code != 0 {
		t.Fatalf("the next run: exit %d\n%s", code, next.output())
	}
	out := next.output()
	for _, want := range []string{"undo: 3 change(s)", "in maintenance mode: set back", "failed (isolate): set back", "of host DC0_C0_H3 out (remove): set back", "hosts serving: 4"} {
		if !strings.Contains(out, want) {
			t.Errorf("the next run does not say %q:\n%s", want, out)
		}
	}
	if m, i := v.changed(t); m != 0 || i != 0 || v.disksOut(t) != 0 {
		t.Errorf("after the next run: %d hosts in maintenance mode, %d isolated, %d devices out; want none", m, i, v.disksOut(t))
	}
	if n := openEventChanges(t, journal); n != 0 {
		t.Errorf("the ledger still holds %d open changes by events", n)
	}
	again := v.start(t, dir, `print("nothing to undo")`)
	if code := again.exitCode(); code != 0 || strings.Contains(again.output(), "undo:") {
		t.Errorf("a third run undoes again (exit %d):\n%s", code, again.output())
	}
}

func TestChangesAreUndoneOnCtrlCAndAfterAFailure(t *testing.T) {
	v := startVCenter(t)
	dir := t.TempDir()
	// The third change waits in vCenter (its task held) until Ctrl-C.
	hold := v.sim.HoldTasks("ShutdownHost")
	t.Cleanup(hold.Release)
	blocked := strings.Replace(changeScript, `frame.read_csv(args.get("gate", ""))`, `cluster.fail_host(hosts[2], how = "power_off")`, 1)
	p := v.start(t, dir, blocked, "--allow-disruptive")
	p.waitFor(t, "changed")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := hold.Wait(ctx, 1); err != nil {
		t.Fatalf("the power-off never reached vCenter: %v\n%s", err, p.output())
	}
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := p.exitCode(); code != 130 {
		t.Fatalf("exit %d after Ctrl-C, want 130:\n%s", code, p.output())
	}
	if m, i := v.changed(t); m != 0 || i != 0 || v.disksOut(t) != 0 {
		t.Errorf("after Ctrl-C: %d hosts in maintenance mode, %d isolated, %d devices out; want none:\n%s", m, i, v.disksOut(t), p.output())
	}
	for _, want := range []string{"undo: host DC0_C0_H0 in maintenance mode: set back", "undo: host DC0_C0_H1 failed (isolate): set back", "undo: host DC0_C0_H2 failed (power_off): set back", "of host DC0_C0_H3 out (remove): set back"} {
		if !strings.Contains(p.output(), want) {
			t.Errorf("the undo is not logged as %q:\n%s", want, p.output())
		}
	}

	failing := strings.Replace(changeScript, `frame.read_csv(args.get("gate", ""))`, `fail("the script failed")`, 1)
	f := v.start(t, dir, failing, "--allow-disruptive")
	if code := f.exitCode(); code != 1 || !strings.Contains(f.output(), "the script failed") {
		t.Fatalf("exit %d, want 1 with the script's error:\n%s", code, f.output())
	}
	if m, i := v.changed(t); m != 0 || i != 0 || v.disksOut(t) != 0 {
		t.Errorf("after the script failed: %d hosts in maintenance mode, %d isolated, %d devices out; want none:\n%s", m, i, v.disksOut(t), f.output())
	}
}
