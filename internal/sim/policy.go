package sim

import (
	"strconv"
	"strings"
	"sync"
	"time"

	pbmmethods "github.com/vmware/govmomi/pbm/methods"
	pbmsim "github.com/vmware/govmomi/pbm/simulator"
	pbmtypes "github.com/vmware/govmomi/pbm/types"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// diskPolicies remembers which storage policy each VM and virtual disk has,
// keyed as SPBM keys them ("vm-42" and "vm-42:2001").
type diskPolicies struct {
	mu sync.Mutex
	m  map[string]string // entity key -> profile id
	// resync is how many compliance checks a newly assigned policy reads
	// nonCompliant (a negative number: for ever); pending counts them down.
	resync  int
	pending map[string]int
}

func newDiskPolicies() *diskPolicies {
	return &diskPolicies{m: map[string]string{}, pending: map[string]int{}}
}

func (d *diskPolicies) set(key, profile string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if profile == "" {
		delete(d.m, key)
		delete(d.pending, key)
		return
	}
	if d.m[key] != profile && d.resync != 0 {
		d.pending[key] = d.resync
	}
	d.m[key] = profile
}

// resyncing says whether key's objects are still being moved to its
// policy, and counts one compliance check of it.
func (d *diskPolicies) resyncing(key string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	n, ok := d.pending[key]
	switch {
	case !ok:
		return false
	case n > 0:
		if n == 1 {
			delete(d.pending, key)
		} else {
			d.pending[key] = n - 1
		}
	}
	return true
}

// SetResync makes every policy assigned from now on read nonCompliant for
// the next checks compliance checks of its disk, as vSAN reports a disk
// whose objects it is still moving to a new layout; a negative number
// means a resync that never ends.
func (s *Sim) SetResync(checks int) {
	s.policies.mu.Lock()
	defer s.policies.mu.Unlock()
	s.policies.resync = checks
}

// forget drops the policies of vm and its disks.
func (d *diskPolicies) forget(vm string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for key := range d.m {
		if key == vm || strings.HasPrefix(key, vm+":") {
			delete(d.m, key)
			delete(d.pending, key)
		}
	}
}

// inUse says whether any VM or disk has profile.
func (d *diskPolicies) inUse(profile string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, id := range d.m {
		if id == profile {
			return true
		}
	}
	return false
}

func (d *diskPolicies) get(key string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.m[key]
}

// record notes the policies a reconfiguration assigns: the VM's (VmProfile)
// and each edited disk's (DeviceChange[].Profile). Disks added with a profile
// have no key yet and are not recorded; clients assign policies by editing.
func (d *diskPolicies) record(vm string, spec *types.VirtualMachineConfigSpec) {
	if id := profileID(spec.VmProfile); id != "" {
		d.set(vm, id)
	}
	for _, ch := range spec.DeviceChange {
		cs := ch.GetVirtualDeviceConfigSpec()
		disk, ok := cs.Device.(*types.VirtualDisk)
		if !ok || disk.Key <= 0 {
			continue
		}
		key := diskKey(vm, disk.Key)
		switch cs.Operation {
		case types.VirtualDeviceConfigSpecOperationEdit:
			if id := profileID(cs.Profile); id != "" {
				d.set(key, id)
			}
			if emptyProfile(cs.Profile) {
				d.set(key, "")
			}
		case types.VirtualDeviceConfigSpecOperationRemove:
			d.set(key, "")
		}
	}
}

func diskKey(vm string, key int32) string {
	return vm + ":" + strconv.Itoa(int(key))
}

// profileID returns the profile a spec assigns, or "".
func profileID(specs []types.BaseVirtualMachineProfileSpec) string {
	for _, s := range specs {
		if d, ok := s.(*types.VirtualMachineDefinedProfileSpec); ok {
			return d.ProfileId
		}
	}
	return ""
}

// emptyProfile says whether a spec takes the policy away.
func emptyProfile(specs []types.BaseVirtualMachineProfileSpec) bool {
	for _, s := range specs {
		if _, ok := s.(*types.VirtualMachineEmptyProfileSpec); ok {
			return true
		}
	}
	return false
}

// The SPBM objects the simulator extends.
var (
	pbmProfileManager    = types.ManagedObjectReference{Type: "PbmProfileProfileManager", Value: "ProfileManager"}
	pbmComplianceManager = types.ManagedObjectReference{Type: "PbmComplianceManager", Value: "complianceManager"}
)

// profileManager adds PbmUpdate and the association queries.
type profileManager struct {
	*pbmsim.ProfileManager
	sim *Sim
}

func (m *profileManager) PbmUpdate(ctx *simulator.Context, req *pbmtypes.PbmUpdate) soap.HasFault {
	body := &pbmmethods.PbmUpdateBody{}
	got := m.PbmRetrieveContent(&pbmtypes.PbmRetrieveContent{ProfileIds: []pbmtypes.PbmProfileId{req.ProfileId}})
	if f := got.Fault(); f != nil {
		body.Fault_ = f
		return body
	}
	res := got.(*pbmmethods.PbmRetrieveContentBody).Res.Returnval
	p, ok := res[0].(*pbmtypes.PbmCapabilityProfile)
	if !ok {
		body.Fault_ = simulator.Fault("not a capability profile", &types.InvalidArgument{InvalidProperty: "profileId"})
		return body
	}
	if req.UpdateSpec.Name != "" {
		p.Name = req.UpdateSpec.Name
	}
	if req.UpdateSpec.Description != "" {
		p.Description = req.UpdateSpec.Description
	}
	if req.UpdateSpec.Constraints != nil {
		p.Constraints = req.UpdateSpec.Constraints
	}
	p.GenerationId++
	p.LastUpdatedTime = time.Now()
	if ctx.Session != nil {
		p.LastUpdatedBy = ctx.Session.UserName
	}
	body.Res = &pbmtypes.PbmUpdateResponse{}
	return body
}

// PbmDelete refuses, as vCenter does, to delete a policy a disk or VM
// still uses; it deletes the others.
func (m *profileManager) PbmDelete(req *pbmtypes.PbmDelete) soap.HasFault {
	var free []pbmtypes.PbmProfileId
	var outcomes []pbmtypes.PbmProfileOperationOutcome
	for _, id := range req.ProfileId {
		if m.sim.policies.inUse(id.UniqueId) {
			outcomes = append(outcomes, pbmtypes.PbmProfileOperationOutcome{ProfileId: id, Fault: &types.LocalizedMethodFault{
				Fault: &pbmtypes.PbmFaultProfileStorageFault{}, LocalizedMessage: "the storage policy is in use by virtual disks",
			}})
			continue
		}
		free = append(free, id)
	}
	body := m.ProfileManager.PbmDelete(&pbmtypes.PbmDelete{This: req.This, ProfileId: free}).(*pbmmethods.PbmDeleteBody)
	body.Res.Returnval = outcomes
	return body
}

func (m *profileManager) PbmQueryAssociatedProfile(req *pbmtypes.PbmQueryAssociatedProfile) soap.HasFault {
	body := &pbmmethods.PbmQueryAssociatedProfileBody{Res: &pbmtypes.PbmQueryAssociatedProfileResponse{}}
	if id := m.sim.policies.get(req.Entity.Key); id != "" {
		body.Res.Returnval = []pbmtypes.PbmProfileId{{UniqueId: id}}
	}
	return body
}

func (m *profileManager) PbmQueryAssociatedProfiles(req *pbmtypes.PbmQueryAssociatedProfiles) soap.HasFault {
	body := &pbmmethods.PbmQueryAssociatedProfilesBody{Res: &pbmtypes.PbmQueryAssociatedProfilesResponse{}}
	for _, e := range req.Entities {
		r := pbmtypes.PbmQueryProfileResult{Object: e}
		if id := m.sim.policies.get(e.Key); id != "" {
			r.ProfileId = []pbmtypes.PbmProfileId{{UniqueId: id}}
		}
		body.Res.Returnval = append(body.Res.Returnval, r)
	}
	return body
}

// complianceManager reports an entity compliant when the policy it is
// associated with is the one asked about (or any policy, when none is named)
// and no resync of it is pending (see SetResync).
type complianceManager struct {
	types.ManagedObjectReference
	sim *Sim
}

func (c *complianceManager) results(entities []pbmtypes.PbmServerObjectRef, want *pbmtypes.PbmProfileId) []pbmtypes.PbmComplianceResult {
	var out []pbmtypes.PbmComplianceResult
	for _, e := range entities {
		r := pbmtypes.PbmComplianceResult{CheckTime: time.Now(), Entity: e, ComplianceStatus: "notApplicable"}
		if id := c.sim.policies.get(e.Key); id != "" {
			r.Profile = &pbmtypes.PbmProfileId{UniqueId: id}
			r.ComplianceStatus = "compliant"
			if (want != nil && want.UniqueId != id) || c.sim.policies.resyncing(e.Key) {
				r.ComplianceStatus = "nonCompliant"
			}
		}
		out = append(out, r)
	}
	return out
}

func (c *complianceManager) PbmCheckCompliance(req *pbmtypes.PbmCheckCompliance) soap.HasFault {
	return &pbmmethods.PbmCheckComplianceBody{Res: &pbmtypes.PbmCheckComplianceResponse{
		Returnval: c.results(req.Entities, req.Profile),
	}}
}

func (c *complianceManager) PbmFetchComplianceResult(req *pbmtypes.PbmFetchComplianceResult) soap.HasFault {
	return &pbmmethods.PbmFetchComplianceResultBody{Res: &pbmtypes.PbmFetchComplianceResultResponse{
		Returnval: c.results(req.Entities, req.Profile),
	}}
}
