package testbed

import (
	"strings"
	"testing"
)

// TestShippedTestbedsCarryVSANOnADistributedSwitch: the published clusters
// carry the vSAN vmkernel on a distributed switch; the MLAG pairs of the WWT
// cluster are LAGs that the LACP uplink choices name.
func TestShippedTestbedsCarryVSANOnADistributedSwitch(t *testing.T) {
	for _, name := range Names() {
		p, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if n := p.Network(); n.Switch != DistributedSwitch || n.Portgroup == "" {
			t.Errorf("%s: vSAN network %+v, want a distributed switch with a portgroup", name, n)
		}
	}
	wwt, _ := Load("wwt-r640-osa")
	for _, u := range wwt.Uplinks {
		if l, ok := wwt.Network().LAGFor(u); !ok || !u.LACP {
			t.Errorf("wwt uplink %s (lacp %v): LAG %+v %v", u.Name, u.LACP, l, ok)
		}
	}
}

func TestVSANNetworkIsValidated(t *testing.T) {
	base, err := shipped.ReadFile("profiles/wwt-r640-osa.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, to, want string }{
		{`"switch": "distributed"`, `"switch": "dvs"`, `vsan_network.switch: "dvs"; want "distributed" or "standard"`},
		{`"switch": "distributed"`, `"switch": "standard"`, `a standard switch has no LAGs`},
		{`{"name": "lag-25g", "nics": ["vmnic2", "vmnic3"]}`, `{"name": "lag-25g", "nics": ["vmnic2", "vmnic9"]}`, `"vmnic9" is not in nics`},
		{`{"name": "lag-25g", "nics": ["vmnic2", "vmnic3"]}`, `{"name": "lag-25g", "nics": ["vmnic1", "vmnic3"]}`, `"vmnic1" is in LAG "lag-10g" already`},
		{`{"name": "lag-25g", "nics": ["vmnic2", "vmnic3"]}`, `{"name": "lag-25g", "nics": ["vmnic2"]}`, `lags[1]: want a name and at least 2 NICs`},
		{`"portgroup": "vSAN",`, `"portgroup": "",`, `want the switch's name and the vSAN portgroup`},
	} {
		s := strings.Replace(string(base), c.from, c.to, 1)
		if s == string(base) {
			t.Fatalf("%q is not in the profile", c.from)
		}
		if _, err := Parse([]byte(s)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s -> %s: got %v, want %q", c.from, c.to, err, c.want)
		}
	}
	// An LACP uplink needs a LAG of its NICs on a distributed switch.
	s := strings.Replace(string(base), `{"name": "lag-25g", "nics": ["vmnic2", "vmnic3"]}`, `{"name": "lag-x", "nics": ["vmnic2", "vmnic0"]}`, 1)
	s = strings.Replace(s, `{"name": "lag-10g", "nics": ["vmnic0", "vmnic1"]}`, `{"name": "lag-10g", "nics": ["vmnic1", "vmnic3"]}`, 1)
	if _, err := Parse([]byte(s)); err == nil || !strings.Contains(err.Error(), "lacp is true but no LAG of vsan_network bundles vmnic0, vmnic1") {
		t.Errorf("LACP uplink without its LAG: %v", err)
	}
}
