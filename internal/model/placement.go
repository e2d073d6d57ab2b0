package model

import (
	"fmt"
	"slices"

	"starbench/internal/testbed"
)

// Placement (docs/model.md, "Placement"): the stations that serve a run
// are the ones its VMs and their objects' components use. Each worker disk
// is one vSAN object whose DOM owner is the host its VM runs on; its
// components sit on distinct hosts, each on one capacity device.

// vmHosts numbers the hosts the VMs run on 0..H-1 in name order; -1 for a
// VM whose host is not known (its objects are then taken as spread evenly
// over the cluster). More hosts than the testbed has is an error.
func vmHosts(p *testbed.Profile, vms []VM) ([]int, error) {
	names := workerHosts(vms)
	if len(names) > p.Hosts {
		return nil, fmt.Errorf("the worker VMs run on %d hosts, but testbed %s has %d", len(names), p.Name, p.Hosts)
	}
	hosts := make([]int, len(vms))
	for i, vm := range vms {
		hosts[i] = -1
		if vm.Host != "" {
			hosts[i] = slices.Index(names, vm.Host)
		}
	}
	return hosts, nil
}

// workerHosts is the names of the hosts the VMs run on, each once, sorted.
func workerHosts(vms []VM) []string {
	var names []string
	for _, vm := range vms {
		if vm.Host != "" && !slices.Contains(names, vm.Host) {
			names = append(names, vm.Host)
		}
	}
	slices.Sort(names)
	return names
}

// hostNames names the model's hosts of a cell on vms (the indices vmHosts
// and Output.HostCPUPercent use): the hosts the VMs run on, sorted, then
// the other hosts of cluster, sorted; "" for a host neither names. The
// model places components on the hosts without workers in that order.
func hostNames(hosts int, vms []VM, cluster []string) []string {
	named := workerHosts(vms)
	var others []string
	for _, h := range cluster {
		if !slices.Contains(named, h) && !slices.Contains(others, h) {
			others = append(others, h)
		}
	}
	slices.Sort(others)
	names := make([]string, hosts)
	copy(names, append(named, others...))
	return names
}

// component is one component of an object: its host, the capacity device
// it sits on (an index among the host's devices) and its leg.
type component struct {
	host, device, leg int
}

// object is one worker disk as vSAN lays it out.
type object struct {
	owner int         // the DOM owner's host (the VM's); -1: not known, spread evenly
	comps []component // nil when the owner is not known
	width [2]int      // components per leg, stripes counted one by one
}

// placeObjects lays out the disks of every job (in the order of the jobs
// and their disks), following vSAN's rules where they are documented and
// a deterministic stand-in where they are not (an assumption):
//   - the DOM owner of a disk is the host its VM runs on;
//   - an object's components are on distinct hosts: RAID-1 FTT n on n+1,
//     RAID-5 on 4 (OSA 3+1) or 3 and 5 (ESA 2+1 and 4+1), RAID-6 on 6;
//     ESA's performance leg mirrors on the first of them (all of them for
//     RAID-1);
//   - vSAN's placement balances free capacity and does not look at the
//     VM, so each owner spreads its objects' components as evenly as they
//     go over the hosts, the same way from wherever it is (ownerSpread):
//     its first on its own host, whole turns of the cluster host after
//     host, the components left over spaced evenly around it. Over an
//     owner's objects each host, its own included, holds the share
//     width/H of their components that placement blind to the owner
//     gives on average, and owners crowded on a few hosts (16 VMs on 24,
//     3 lone disks on 24) leave no host far above its share;
//   - each component is striped (RAID-0) over the policy's stripe width of
//     capacity devices, its stripes on the component's host (vSAN may put
//     them on other hosts; an assumption that keeps the hosts' loads), each
//     stripe on the next of the host's devices, taken round-robin per leg
//     (a performance-leg stripe on the next device after its capacity-leg
//     sibling's); a stripe takes an equal share of the component's I/Os.
//
// hostOf is each VM's host from vmHosts; with no VMs every object's owner
// is not known.
func placeObjects(p *testbed.Profile, jobs []JobLoad, hostOf []int) ([][]object, error) {
	h := p.Hosts
	devices := max(p.Storage.CapacityDevices, 1)
	// Every owner's components first: an owner spreads all of them.
	layouts := layoutCache{p: p}
	owned := make([]int, h)
	type diskID struct {
		vm   int
		name string
	}
	seen := map[diskID]bool{}
	for _, jl := range jobs {
		for _, d := range jl.Disks {
			lay, err := layouts.of(d.Policy)
			if err != nil {
				return nil, err
			}
			if id := (diskID{d.VM, d.Disk}); d.Disk != "" {
				if seen[id] {
					continue // another job's disk too: one object
				}
				seen[id] = true
			}
			if d.VM >= 0 && d.VM < len(hostOf) && hostOf[d.VM] >= 0 {
				owned[hostOf[d.VM]] += lay.width()
			}
		}
	}
	turns := make([]int, h)   // components placed per owner
	next := make([][2]int, h) // next device per host and leg
	placed := make([][]object, len(jobs))
	var backing []component // every object's components, in one allocation
	var taken []int         // an object's hosts, in its components' order
	first := map[diskID]object{}
	for j, jl := range jobs {
		placed[j] = make([]object, len(jl.Disks))
		for i, d := range jl.Disks {
			id := diskID{d.VM, d.Disk}
			if o, ok := first[id]; ok && d.Disk != "" {
				placed[j][i] = o // an earlier job's disk: the same object
				continue
			}
			o := &placed[j][i]
			o.owner = -1
			if d.VM >= 0 && d.VM < len(hostOf) {
				o.owner = hostOf[d.VM]
			}
			lay, _ := layouts.of(d.Policy) // the first pass took them all
			width := lay.width()
			perf := 0
			if p.Architecture == "ESA" {
				perf = min(lay.mirrors, width)
			}
			stripes := max(d.Policy.StripeWidth, 1)
			o.width = [2]int{width * stripes, perf * stripes}
			if o.owner < 0 {
				continue
			}
			taken = taken[:0]
			for range width {
				host := (o.owner + ownerSpread(turns[o.owner], owned[o.owner], h)) % h
				for slices.Contains(taken, host) { // a turn's end meeting the rest
					host = (host + 1) % h
				}
				taken = append(taken, host)
				turns[o.owner]++
			}
			n := o.width[capLeg] + o.width[perfLeg]
			if cap(backing)-len(backing) < n {
				backing = make([]component, 0, max(64, 4*n))
			}
			o.comps = backing[len(backing) : len(backing) : len(backing)+n]
			backing = backing[:len(backing)+n]
			for k, host := range taken {
				for range stripes {
					o.comps = append(o.comps, component{host: host, device: next[host][capLeg] % devices, leg: capLeg})
					next[host][capLeg]++
				}
				if k < perf {
					for range stripes {
						o.comps = append(o.comps, component{host: host, device: (next[host][perfLeg] + 1) % devices, leg: perfLeg})
						next[host][perfLeg]++
					}
				}
			}
			if d.Disk != "" {
				first[id] = *o
			}
		}
	}
	return placed, nil
}

// layoutCache is each policy's layout on a profile, worked out once; disks
// in a row mostly share a policy.
type layoutCache struct {
	p        *testbed.Profile
	byPolicy map[Policy]layout
	last     Policy
	lastLay  layout
	any      bool
}

func (c *layoutCache) of(pol Policy) (layout, error) {
	if c.any && pol == c.last {
		return c.lastLay, nil
	}
	lay, ok := c.byPolicy[pol]
	if !ok {
		var err error
		if lay, err = policyLayout(c.p, pol); err != nil {
			return layout{}, err
		}
		if c.byPolicy == nil {
			c.byPolicy = map[Policy]layout{}
		}
		c.byPolicy[pol] = lay
	}
	c.last, c.lastLay, c.any = pol, lay, true
	return lay, nil
}

// ownerSpread is how many hosts on from its owner's host the k-th of an
// owner's n components lies, on a cluster of h hosts: whole turns of the
// cluster one host after another, then the components left over spaced
// evenly around it (one RAID-1 object on 12 hosts: 0 and 6 hosts on).
func ownerSpread(k, n, h int) int {
	whole := n / h * h
	if k < whole {
		return k % h
	}
	return (k - whole) * h / (n - whole)
}

// spread is one direction's demand per I/O of a job at every copy of
// every station kind: per host every host-level quantity (the cycles of
// each pool, wire bytes each way, memory, hand-offs), and the LSOM cycles,
// capacity-device and cache-device time per station.
type spread struct {
	host     []opCost
	store    []float64 // per LSOM station: capacity device (ESA) or disk group (OSA)
	capacity []float64 // per capacity device
	cache    []float64 // per OSA disk group
}

// layout of the device-level copies: host h's capacity device d is copy
// h x devices + d; on OSA it belongs to disk group d mod groups.
type deviceLayout struct {
	hosts, devices, groups int // per cluster, per host, per host (0 on ESA)
}

func newDeviceLayout(p *testbed.Profile) deviceLayout {
	dl := deviceLayout{hosts: p.Hosts, devices: max(p.Storage.CapacityDevices, 1)}
	if p.Architecture == "OSA" {
		dl.groups = max(p.Storage.DiskGroups, 1)
	}
	return dl
}

// store is the LSOM station of host h's device d.
func (dl deviceLayout) store(h, d int) int {
	if dl.groups > 0 {
		return dl.group(h, d)
	}
	return h*dl.devices + d
}

func (dl deviceLayout) group(h, d int) int { return h*dl.groups + d%dl.groups }

func (dl deviceLayout) stores() int {
	if dl.groups > 0 {
		return dl.hosts * dl.groups
	}
	return dl.hosts * dl.devices
}

// placedLoad adds up where a job's I/Os land, per direction: each disk
// takes an equal share of the job's I/Os (one class: fio runs the same job
// on each); its cost (by disk kind) lands on its owner's host and its
// components' hosts and devices as placed. Within a host, a leg's device
// work is shared by the host's devices in proportion to the leg's
// components on them, so how local and remote components fall on a host's
// devices does not tilt them. A disk whose owner is not known spreads its
// cost evenly over every copy, with the share (H-1)/H of its components
// remote. total is the job's cost per I/O over the whole cluster.
func placedLoad(p *testbed.Profile, objs []object, kindOf []int, costs [][2]ioCost) (sp [2]spread, total [2]opCost) {
	h := p.Hosts
	dl := newDeviceLayout(p)
	nDev := h * dl.devices
	kinds := len(costs)
	// Components' weight per kind of disk, device and leg: a kind's work
	// at a host goes to the devices its own components are on.
	devShare := make([][][2]float64, kinds)
	for k := range devShare {
		devShare[k] = make([][2]float64, nDev)
	}
	w, evenly := hostWeights(h, objs, kindOf, kinds, devShare, dl.devices)
	remote := float64(h-1) / float64(h)
	for dir := range sp {
		s := &sp[dir]
		s.host = make([]opCost, h)
		s.store = make([]float64, dl.stores())
		s.capacity = make([]float64, nDev)
		if dl.groups > 0 {
			s.cache = make([]float64, h*dl.groups)
		}
		for k := range kinds {
			io := &costs[k][dir]
			if evenly[k] > 0 {
				t := io.total([2]float64{remote, remote})
				total[dir].add(t, evenly[k])
				for x := range s.host {
					s.host[x].add(t, evenly[k]/float64(h))
				}
				for x := range s.store {
					s.store[x] += evenly[k] * t.storeCycles / float64(len(s.store))
				}
				for x := range s.capacity {
					s.capacity[x] += evenly[k] * t.capacityTime / float64(nDev)
				}
				for x := range s.cache {
					s.cache[x] += evenly[k] * t.cacheTime / float64(len(s.cache))
				}
			}
			for x := range h {
				hw := &w[k][x]
				var at opCost
				at.add(io.owner, hw.owner)
				for l := range io.legs {
					lc := &io.legs[l]
					at.add(lc.ownerNet, hw.ownerNet[l])
					var leg opCost // the leg's work at this host's components
					leg.add(lc.comp, hw.comp[l])
					leg.add(lc.compNet, hw.compNet[l])
					at.add(leg, 1)
					if hw.comp[l] > 0 {
						dl.share(s, x, l, leg, devShare[k])
					}
				}
				s.host[x].add(at, 1)
				total[dir].add(at, 1)
			}
		}
	}
	return sp, total
}

// hostWeight is the weight of each part of a kind of disk's cost at one
// host, per I/O: the owner's work, the owner's end of its messages to each
// leg, and each leg's components' work and far ends of messages.
type hostWeight struct {
	owner         float64
	ownerNet      [2]float64
	comp, compNet [2]float64
}

// hostWeights adds up where the I/Os of objs land when each takes an equal
// share: per kind of disk (kindOf) and host the weights of its cost parts,
// and per kind the share of disks whose owner is not known (spread
// evenly). With devShare set it also adds each component's weight to its
// device's, per kind and leg (devices per host).
func hostWeights(h int, objs []object, kindOf []int, kinds int, devShare [][][2]float64, devices int) ([][]hostWeight, []float64) {
	w := make([][]hostWeight, kinds)
	for k := range w {
		w[k] = make([]hostWeight, h)
	}
	evenly := make([]float64, kinds)
	share := 1 / float64(len(objs))
	for i := range objs {
		o := &objs[i]
		k := kindOf[i]
		if o.owner < 0 {
			evenly[k] += share
			continue
		}
		ow := &w[k][o.owner]
		ow.owner += share
		var local [2]int // components on the owner's host, per leg
		for _, c := range o.comps {
			part := share / float64(o.width[c.leg])
			cw := &w[k][c.host]
			cw.comp[c.leg] += part
			if c.host != o.owner {
				cw.compNet[c.leg] += part
			} else {
				local[c.leg]++
			}
			if devShare != nil {
				devShare[k][c.host*devices+c.device][c.leg] += part
			}
		}
		for l, width := range o.width { // the share of the leg's components that are remote
			if width > 0 {
				ow.ownerNet[l] += share * (1 - float64(local[l])/float64(width))
			}
		}
	}
	return w, evenly
}

// share spreads leg l's device work at host x over the host's devices in
// proportion to the leg's components on them.
func (dl deviceLayout) share(s *spread, x, l int, leg opCost, devShare [][2]float64) {
	sum := 0.0
	for d := range dl.devices {
		sum += devShare[x*dl.devices+d][l]
	}
	for d := range dl.devices {
		f := devShare[x*dl.devices+d][l] / sum
		if f == 0 {
			continue
		}
		s.store[dl.store(x, d)] += f * leg.storeCycles
		s.capacity[x*dl.devices+d] += f * leg.capacityTime
		if dl.groups > 0 {
			s.cache[dl.group(x, d)] += f * leg.cacheTime
		}
	}
}

// stripeUnit is the size of a RAID-0 stripe unit of a vSAN object, taken
// as 1 MiB (an assumption: VMware's policy docs do not give it).
const stripeUnit = 1 << 20

// stripeNotes names what the model leaves out of a policy's stripe width
// for these disks: stripes beyond a host's capacity devices, which vSAN
// would place on other devices (other hosts' too) but the model doubles up
// on the component's host; and I/Os larger than a stripe, which vSAN
// splits over stripes but the model keeps whole on one device.
func stripeNotes(p *testbed.Profile, disks []DiskLoad, sizes [2][]sizeShare) []string {
	width := 1
	for _, d := range disks {
		width = max(width, d.Policy.StripeWidth)
	}
	if width == 1 {
		return nil
	}
	var notes []string
	if devices := max(p.Storage.CapacityDevices, 1); width > devices {
		notes = append(notes, fmt.Sprintf("stripe width %d is more than the %d capacity devices of a host: vSAN would place the extra stripes on other hosts' devices; the model keeps them on the component's host, sharing its devices", width, devices))
	}
	var large float64
	for _, dir := range sizes {
		for _, s := range dir {
			if s.size > stripeUnit {
				large = max(large, float64(s.size))
			}
		}
	}
	if large > 0 {
		notes = append(notes, fmt.Sprintf("blocks of %.0f KiB span more than one 1 MiB stripe: vSAN splits such an I/O over stripes, the model keeps it whole on one device", large/1024))
	}
	return notes
}
