package sim

import (
	"io"
	"log"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/vmware/govmomi/vim25/types"

	"starbench/internal/testbed"
)

func TestInjectorIsSafeForConcurrentCallsAndKeepsItsRate(t *testing.T) {
	in := newInjector(42)
	in.set([]Fault{{Method: "CloneVM_Task", Rate: 0.1, Fault: func() types.BaseMethodFault { return &types.TaskInProgress{} }}})
	var mu sync.Mutex
	hits := 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				f := in.pick("CloneVM_Task")
				if f != nil {
					if _, ok := f.(*types.TaskInProgress); !ok {
						t.Errorf("injected %T, want TaskInProgress", f)
					}
					mu.Lock()
					hits++
					mu.Unlock()
				}
				if in.pick("PowerOnVM_Task") != nil {
					t.Error("injected a fault into a method with no rule")
				}
			}
		})
	}
	wg.Wait()
	if hits < 640 || hits > 960 { // 8000 draws at 10 %: 800 +- 5 sigma
		t.Errorf("%d faults in 8000 calls at rate 0.1", hits)
	}
	in.set(nil)
	if in.pick("CloneVM_Task") != nil {
		t.Error("a fault after the rules were removed")
	}
}

func TestStartRefusesProfilesItCannotSimulate(t *testing.T) {
	good := testbed.Profile{Name: "t", Architecture: "ESA", Hosts: 3, NICs: []testbed.NIC{{Name: "vmnic0", SpeedGbps: 25}}}
	for _, tc := range []struct {
		edit func(*testbed.Profile)
		want string
	}{
		{func(p *testbed.Profile) { p.Hosts = 2 }, "vSAN needs at least 3"},
		{func(p *testbed.Profile) { p.Architecture = "HCI" }, `want "ESA" or "OSA"`},
		{func(p *testbed.Profile) { p.NICs = nil }, "has no NICs"},
		{func(p *testbed.Profile) { p.Uplinks = []testbed.Uplink{{Name: "25g", NICs: []string{"vmnic5"}}} }, `names NIC "vmnic5"`},
	} {
		p := good
		tc.edit(&p)
		if _, err := Start(Options{Testbed: &p}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
	if _, err := Start(Options{}); err == nil {
		t.Error("started without a testbed")
	}
}

func TestGuestIPsAreStablePerVM(t *testing.T) {
	g := newGuestIPs(nil)
	a, b := g.ip("w-01"), g.ip("w-02")
	if a == b || g.ip("w-01") != a || !strings.HasPrefix(a, "127.1.") {
		t.Errorf("ips %s %s %s", a, b, g.ip("w-01"))
	}
}

// Without a Log the simulator's own log lines are discarded: they would
// reach the user's terminal (govmomi's simulator writes them with the
// standard logger).
func TestSimulatorLogIsDiscardedByDefault(t *testing.T) {
	log.SetOutput(os.Stderr)
	p, err := testbed.Load("wwt-r640-osa")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(Options{Testbed: p})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if log.Writer() != io.Discard {
		t.Errorf("the standard logger writes to %v, want io.Discard", log.Writer())
	}
}
