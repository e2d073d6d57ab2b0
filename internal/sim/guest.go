package sim

import (
	"fmt"
	"sync"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/soap"
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

// guestVM powers a VM on and has its guest report an IP, host name and
// running tools, which the stock simulator never does by itself.
type guestVM struct {
	*simulator.VirtualMachine
	sim *Sim
}

func (vm *guestVM) PowerOnVMTask(ctx *simulator.Context, req *types.PowerOnVM_Task) soap.HasFault {
	res := vm.VirtualMachine.PowerOnVMTask(ctx, req)
	if res.Fault() != nil {
		return res
	}
	ip := vm.sim.guest.ip(vm.Name)
	var mac string
	for _, d := range vm.Config.Hardware.Device {
		if nic, ok := d.(types.BaseVirtualEthernetCard); ok {
			mac = nic.GetVirtualEthernetCard().MacAddress
			break
		}
	}
	running := string(types.VirtualMachineToolsRunningStatusGuestToolsRunning)
	ctx.Update(vm.VirtualMachine, []types.PropertyChange{
		{Name: "guest.toolsRunningStatus", Val: running},
		{Name: "guest.toolsStatus", Val: types.VirtualMachineToolsStatusToolsOk},
		{Name: "guest.guestState", Val: "running"},
		{Name: "guest.hostName", Val: vm.Name},
		{Name: "guest.ipAddress", Val: ip},
		{Name: "guest.net", Val: []types.GuestNicInfo{{
			Network: VMNetwork, IpAddress: []string{ip}, MacAddress: mac, Connected: true, DeviceConfigId: 4000,
		}}},
		{Name: "summary.guest.ipAddress", Val: ip},
		{Name: "summary.guest.hostName", Val: vm.Name},
		{Name: "summary.guest.toolsRunningStatus", Val: running},
	})
	return res
}
