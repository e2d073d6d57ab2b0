package sim

import (
	"fmt"
	"sync"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

// guestIPs hands out the IP a VM's guest reports once powered on, stable per
// VM name, as VMware Tools would report a DHCP lease.
type guestIPs struct {
	mu     sync.Mutex
	assign func(string) string
	ips    map[string]string
}

func newGuestIPs(assign func(string) string) *guestIPs {
	return &guestIPs{assign: assign, ips: map[string]string{}}
}

func (g *guestIPs) ip(vm string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if ip, ok := g.ips[vm]; ok {
		return ip
	}
	var ip string
	if g.assign != nil {
		ip = g.assign(vm)
	} else {
		n := len(g.ips)
		ip = fmt.Sprintf("127.1.%d.%d", n/250, n%250+1)
	}
	g.ips[vm] = ip
	return ip
}

// reportGuest makes a VM's guest report what VMware Tools would once it is
// up (running tools, host name, IP) or down.
func (s *Sim) reportGuest(ctx *simulator.Context, vm *simulator.VirtualMachine, up bool) {
	ip, tools, state := "", types.VirtualMachineToolsRunningStatusGuestToolsNotRunning, "notRunning"
	if up {
		ip, tools, state = s.guest.ip(vm.Name), types.VirtualMachineToolsRunningStatusGuestToolsRunning, "running"
	}
	ctx.WithLock(vm, func() {
		var mac string
		for _, d := range vm.Config.Hardware.Device {
			if nic, ok := d.(types.BaseVirtualEthernetCard); ok {
				mac = nic.GetVirtualEthernetCard().MacAddress
				break
			}
		}
		var nics []types.GuestNicInfo
		if up {
			nics = []types.GuestNicInfo{{Network: VMNetwork, IpAddress: []string{ip}, MacAddress: mac, Connected: true, DeviceConfigId: 4000}}
		}
		ctx.Update(vm, []types.PropertyChange{
			{Name: "guest.toolsRunningStatus", Val: string(tools)},
			{Name: "guest.guestState", Val: state},
			{Name: "guest.hostName", Val: vm.Name},
			{Name: "guest.ipAddress", Val: ip},
			{Name: "guest.net", Val: nics},
			{Name: "summary.guest.ipAddress", Val: ip},
			{Name: "summary.guest.hostName", Val: vm.Name},
			{Name: "summary.guest.toolsRunningStatus", Val: string(tools)},
		})
	})
}
