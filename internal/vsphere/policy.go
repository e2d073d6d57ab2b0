package vsphere

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/vmware/govmomi/object"
	pbmmethods "github.com/vmware/govmomi/pbm/methods"
	pbmtypes "github.com/vmware/govmomi/pbm/types"
	"github.com/vmware/govmomi/vim25/types"

	"starbench/internal/ledger"
	"starbench/internal/model"
)

// PolicySpec is a vSAN storage policy.
type PolicySpec struct {
	Name        string
	RAID        string // "raid1", "raid5" or "raid6"
	FTT         int    // failures to tolerate; 0 = what RAID implies (raid1 1, raid5 1, raid6 2)
	StripeWidth int    // 0 = 1
	// Compression asks for compression of the policy's objects; nil leaves it to the cluster.
	Compression *bool
	Checksum    bool
	// IOPSLimit is vSAN's IOPS limit for each object (I/Os of up to 32 KiB
	// count one); 0 for none.
	IOPSLimit int
}

// The SPBM capabilities of vSAN a policy sets.
const (
	capNamespace   = "VSAN"
	capFTT         = "hostFailuresToTolerate"
	capReplica     = "replicaPreference"
	capStripes     = "stripeWidth"
	capChecksumOff = "checksumDisabled"
	capIOPSLimit   = "iopsLimit"
	capEfficiency  = "dataService.datastoreSpaceEfficiency"

	replicaMirror  = "RAID-1 (Mirroring) - Performance"
	replicaErasure = "RAID-5/6 (Erasure Coding) - Capacity"
	efficiencyOn   = "compressionOnly"
	efficiencyOff  = "noSpaceEfficiency"
)

// Normalize fills the implied values and checks the spec on its own.
func (p *PolicySpec) Normalize() error {
	if strings.TrimSpace(p.Name) == "" {
		return fmt.Errorf("a policy needs a name")
	}
	if len(p.Name) > 80 {
		return fmt.Errorf("policy name %q is %d characters long: vSphere allows 80", p.Name, len(p.Name))
	}
	implied := map[string]int{"raid1": 1, "raid5": 1, "raid6": 2}
	ftt, ok := implied[p.RAID]
	if !ok {
		return fmt.Errorf("raid=%q: want one of \"raid1\", \"raid5\", \"raid6\"", p.RAID)
	}
	switch {
	case p.FTT == 0:
		p.FTT = ftt
	case p.RAID == "raid1" && (p.FTT < 0 || p.FTT > 3):
		return fmt.Errorf("raid1 with ftt=%d: want ftt 1 to 3", p.FTT)
	case p.RAID == "raid5" && p.FTT != 1:
		return fmt.Errorf("raid5 tolerates exactly 1 failure, not ftt=%d (use raid6 for 2, or raid1 with ftt=%d)", p.FTT, p.FTT)
	case p.RAID == "raid6" && p.FTT != 2:
		return fmt.Errorf("raid6 tolerates exactly 2 failures, not ftt=%d (use raid5 for 1)", p.FTT)
	}
	if p.StripeWidth == 0 {
		p.StripeWidth = 1
	}
	if p.StripeWidth < 1 || p.StripeWidth > 12 {
		return fmt.Errorf("stripe_width=%d: want 1 to 12", p.StripeWidth)
	}
	if p.IOPSLimit < 0 || p.IOPSLimit > math.MaxInt32 {
		return fmt.Errorf("iops_limit=%d: want 0 (no limit) to %d I/Os a second", p.IOPSLimit, math.MaxInt32)
	}
	return nil
}

// MinHosts is how many hosts a policy needs on a cluster of architecture
// ("ESA" or "OSA").
func (p *PolicySpec) MinHosts(architecture string) int {
	switch p.RAID {
	case "raid5":
		if architecture == "ESA" {
			return 3 // ESA's 2+1 layout on small clusters
		}
		return 4 // 3+1
	case "raid6":
		return 6 // 4+2
	default:
		return 2*p.FTT + 1
	}
}

// Validate checks spec against the cluster: enough hosts for its layout.
func (c *Client) Validate(ctx context.Context, spec *PolicySpec) error {
	if err := spec.Normalize(); err != nil {
		return err
	}
	hosts, err := c.hosts(ctx)
	if err != nil {
		return err
	}
	arch, err := c.architecture(ctx)
	if err != nil {
		return err
	}
	if need := spec.MinHosts(arch); len(hosts) < need {
		layout := spec.RAID
		if spec.RAID == "raid1" {
			layout = fmt.Sprintf("raid1 with ftt=%d", spec.FTT)
		}
		return fmt.Errorf("%s needs at least %d hosts on vSAN %s; cluster %s has %d", layout, need, arch, c.cluster.Name(), len(hosts))
	}
	return nil
}

// policyMarker starts the description of every policy starbench makes; it
// updates no other.
const policyMarker = "starbench:"

// SetPolicy creates the policy of spec, or updates the policy of that name
// if starbench made it, after checking it against the cluster. It returns
// the policy's id.
func (c *Client) SetPolicy(ctx context.Context, spec PolicySpec) (string, error) {
	if err := c.Validate(ctx, &spec); err != nil {
		return "", err
	}
	profiles, err := c.profiles(ctx)
	if err != nil {
		return "", err
	}
	if id, ok := profiles[spec.Name]; ok {
		// Updating a policy changes every VM that uses it: only starbench's own.
		content, err := c.pbm.RetrieveContent(ctx, []pbmtypes.PbmProfileId{{UniqueId: id}})
		if err != nil {
			return "", fmt.Errorf("reading storage policy %q: %w", spec.Name, err)
		}
		if len(content) == 0 || !strings.HasPrefix(content[0].GetPbmProfile().Description, policyMarker) {
			return "", fmt.Errorf("storage policy %q exists and starbench did not make it; updating it would change every VM that uses it: give the policy another name", spec.Name)
		}
		before := specOf(spec.Name, content[0])
		if err := c.recordChange(KindPolicy, spec.Name, id, func() (any, error) { return before, nil }); err != nil {
			return "", err
		}
		return id, c.updateProfile(ctx, id, spec)
	}
	entry, err := c.record(ledger.Entry{Kind: KindPolicy, Name: spec.Name, Created: true})
	if err != nil {
		return "", err
	}
	id, err := c.pbm.CreateProfile(ctx, pbmtypes.PbmCapabilityProfileCreateSpec{
		Name: spec.Name, Description: description(spec),
		Category:     string(pbmtypes.PbmProfileCategoryEnumREQUIREMENT),
		ResourceType: pbmtypes.PbmProfileResourceType{ResourceType: string(pbmtypes.PbmProfileResourceTypeEnumSTORAGE)},
		Constraints:  constraints(spec),
	})
	if err != nil {
		c.settle(entry, "", ledger.Gone)
		return "", fmt.Errorf("creating storage policy %q: %w", spec.Name, err)
	}
	c.settle(entry, id.UniqueId, "")
	c.mu.Lock()
	c.policyNames[id.UniqueId] = spec.Name
	c.mu.Unlock()
	return id.UniqueId, nil
}

// description is what starbench writes into the policies it makes.
func description(spec PolicySpec) string {
	return fmt.Sprintf("%s %s ftt=%d stripe_width=%d", policyMarker, spec.RAID, spec.FTT, spec.StripeWidth)
}

func constraints(spec PolicySpec) *pbmtypes.PbmCapabilitySubProfileConstraints {
	return &pbmtypes.PbmCapabilitySubProfileConstraints{
		SubProfiles: []pbmtypes.PbmCapabilitySubProfile{{Name: "VSAN sub-profile", Capability: capabilities(spec)}},
	}
}

// updateProfile gives policy id the rules of spec.
func (c *Client) updateProfile(ctx context.Context, id string, spec PolicySpec) error {
	err := c.pbm.UpdateProfile(ctx, pbmtypes.PbmProfileId{UniqueId: id}, pbmtypes.PbmCapabilityProfileUpdateSpec{
		Description: description(spec), Constraints: constraints(spec),
	})
	if err != nil {
		return fmt.Errorf("updating storage policy %q: %w", spec.Name, err)
	}
	return nil
}

// DeletePolicy deletes the storage policy called name, which starbench must
// have made (one a person made may hold every VM of the cluster).
func (c *Client) DeletePolicy(ctx context.Context, name string) error {
	id, err := c.policyID(ctx, name)
	if err != nil {
		return err
	}
	content, err := c.pbm.RetrieveContent(ctx, []pbmtypes.PbmProfileId{{UniqueId: id}})
	if err != nil {
		return fmt.Errorf("reading storage policy %q: %w", name, err)
	}
	if len(content) == 0 || !strings.HasPrefix(content[0].GetPbmProfile().Description, policyMarker) {
		return fmt.Errorf("storage policy %q was not made by starbench: delete it in the vSphere Client if you mean to", name)
	}
	return c.deleteProfile(ctx, name, id)
}

// deleteProfile deletes policy id and settles its ledger entries.
func (c *Client) deleteProfile(ctx context.Context, name, id string) error {
	res, err := c.pbm.DeleteProfile(ctx, []pbmtypes.PbmProfileId{{UniqueId: id}})
	if err == nil {
		for _, r := range res {
			if r.Fault != nil {
				err = errors.New(r.Fault.LocalizedMessage)
			}
		}
	}
	if err != nil {
		return fmt.Errorf("deleting storage policy %q (is a VM disk still using it?): %w", name, err)
	}
	c.mu.Lock()
	delete(c.policyNames, id)
	c.mu.Unlock()
	if c.ledger != nil {
		for _, e := range c.ledger.Pending() {
			if e.VCenter == c.host && e.Kind == KindPolicy && e.Ref == id {
				how := ledger.Gone
				if e.Created {
					how = ledger.Removed
				}
				_ = c.ledger.Done(e.ID, how)
			}
		}
	}
	return nil
}

func capabilities(spec PolicySpec) []pbmtypes.PbmCapabilityInstance {
	replica := replicaMirror
	if spec.RAID != "raid1" {
		replica = replicaErasure
	}
	caps := []pbmtypes.PbmCapabilityInstance{
		capability(capFTT, int32(spec.FTT)),
		capability(capReplica, replica),
		capability(capStripes, int32(spec.StripeWidth)),
		capability(capChecksumOff, !spec.Checksum),
	}
	if spec.IOPSLimit > 0 {
		caps = append(caps, capability(capIOPSLimit, int32(spec.IOPSLimit)))
	}
	if spec.Compression != nil {
		eff := efficiencyOff
		if *spec.Compression {
			eff = efficiencyOn
		}
		caps = append(caps, capability(capEfficiency, eff))
	}
	return caps
}

func capability(id string, value any) pbmtypes.PbmCapabilityInstance {
	return pbmtypes.PbmCapabilityInstance{
		Id: pbmtypes.PbmCapabilityMetadataUniqueId{Namespace: capNamespace, Id: id},
		Constraint: []pbmtypes.PbmCapabilityConstraintInstance{{
			PropertyInstance: []pbmtypes.PbmCapabilityPropertyInstance{{Id: id, Value: value}},
		}},
	}
}

// profiles maps the names of the storage policies to their ids.
func (c *Client) profiles(ctx context.Context) (map[string]string, error) {
	ids, err := c.pbm.QueryProfile(ctx, pbmtypes.PbmProfileResourceType{ResourceType: string(pbmtypes.PbmProfileResourceTypeEnumSTORAGE)},
		string(pbmtypes.PbmProfileCategoryEnumREQUIREMENT))
	if err != nil {
		return nil, fmt.Errorf("listing storage policies: %w", err)
	}
	out := map[string]string{}
	if len(ids) == 0 {
		return out, nil
	}
	content, err := c.pbm.RetrieveContent(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("reading storage policies: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range content {
		pp := p.GetPbmProfile()
		out[pp.Name] = pp.ProfileId.UniqueId
		c.policyNames[pp.ProfileId.UniqueId] = pp.Name
	}
	return out, nil
}

// policyID returns the id of the policy named name.
func (c *Client) policyID(ctx context.Context, name string) (string, error) {
	profiles, err := c.profiles(ctx)
	if err != nil {
		return "", err
	}
	if id, ok := profiles[name]; ok {
		return id, nil
	}
	var names []string
	for n := range profiles {
		names = append(names, fmt.Sprintf("%q", n))
	}
	sort.Strings(names)
	return "", fmt.Errorf("no storage policy named %q: create it with policy.vsan(%q, ...) or use one of %s", name, name, strings.Join(names, ", "))
}

// Policy reads the named policy back as the data-plane model sees it.
func (c *Client) Policy(ctx context.Context, name string) (model.Policy, error) {
	return cachedRead(c.cache, "policy "+name, same, func() (model.Policy, error) { return c.policy(ctx, name) })
}

func (c *Client) policy(ctx context.Context, name string) (model.Policy, error) {
	id, err := c.policyID(ctx, name)
	if err != nil {
		return model.Policy{}, err
	}
	content, err := c.pbm.RetrieveContent(ctx, []pbmtypes.PbmProfileId{{UniqueId: id}})
	if err != nil {
		return model.Policy{}, fmt.Errorf("reading storage policy %q: %w", name, err)
	}
	spec := specOf(name, content[0])
	p := model.Policy{RAID: spec.RAID, FTT: spec.FTT, StripeWidth: spec.StripeWidth, ChecksumDisabled: !spec.Checksum, IOPSLimit: spec.IOPSLimit}
	if spec.Compression != nil {
		p.Compression = model.Off
		if *spec.Compression {
			p.Compression = model.On
		}
	}
	return p, nil
}

// specOf reads a vSAN storage policy's rules back into a spec.
func specOf(name string, profile pbmtypes.BasePbmProfile) PolicySpec {
	spec := PolicySpec{Name: name, FTT: 1, StripeWidth: 1, Checksum: true}
	erasure := false
	if cp, ok := profile.(*pbmtypes.PbmCapabilityProfile); ok {
		if sub, ok := cp.Constraints.(*pbmtypes.PbmCapabilitySubProfileConstraints); ok {
			for _, sp := range sub.SubProfiles {
				for _, cap := range sp.Capability {
					for _, ci := range cap.Constraint {
						for _, pi := range ci.PropertyInstance {
							switch pi.Id {
							case capFTT:
								spec.FTT = toInt(pi.Value)
							case capStripes:
								spec.StripeWidth = toInt(pi.Value)
							case capIOPSLimit:
								spec.IOPSLimit = toInt(pi.Value)
							case capReplica:
								erasure = pi.Value == replicaErasure
							case capChecksumOff:
								off, _ := pi.Value.(bool)
								spec.Checksum = !off
							case capEfficiency:
								on := pi.Value == efficiencyOn
								spec.Compression = &on
							}
						}
					}
				}
			}
		}
	}
	switch {
	case !erasure:
		spec.RAID = "raid1"
	case spec.FTT >= 2:
		spec.RAID = "raid6"
	default:
		spec.RAID = "raid5"
	}
	return spec
}

func toInt(v any) int {
	switch n := v.(type) {
	case int32:
		return int(n)
	case int64:
		return int(n)
	case int:
		return n
	}
	return 0
}

// assignPolicy sets profile on every data disk of vm.
func (c *Client) assignPolicy(ctx context.Context, name string, vm *object.VirtualMachine, profile string) error {
	devices, err := vm.Device(ctx)
	if err != nil {
		return fmt.Errorf("reading the disks of %s: %w", name, err)
	}
	var changes []types.BaseVirtualDeviceConfigSpec
	for _, d := range dataDisks(devices) {
		disk := devices.FindByKey(d.Key)
		changes = append(changes, &types.VirtualDeviceConfigSpec{
			Operation: types.VirtualDeviceConfigSpecOperationEdit,
			Device:    disk,
			Profile:   []types.BaseVirtualMachineProfileSpec{&types.VirtualMachineDefinedProfileSpec{ProfileId: profile}},
		})
	}
	if len(changes) == 0 {
		return nil
	}
	return c.reconfigure(ctx, "apply storage policy to", name, vm, types.VirtualMachineConfigSpec{DeviceChange: changes})
}

// ApplyPolicy assigns the named policy to every data disk of workers, waits
// until vSAN reports them compliant (at most timeout; 0 = the client's
// Compliance.Timeout), and returns the workers read back.
func (c *Client) ApplyPolicy(ctx context.Context, workers []Worker, policy string, parallel int, timeout time.Duration) ([]Worker, error) {
	if parallel <= 0 {
		parallel = 8
	}
	id, err := c.policyID(ctx, policy)
	if err != nil {
		return nil, err
	}
	err = pool(ctx, parallel, len(workers), func(ctx context.Context, i int) error {
		w := workers[i]
		if err := c.recordVMChange(ctx, w.Name, w.VM); err != nil {
			return err
		}
		vm := object.NewVirtualMachine(c.vim, types.ManagedObjectReference{Type: "VirtualMachine", Value: w.VM})
		return c.assignPolicy(ctx, w.Name, vm, id)
	})
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, w := range workers {
		ids = append(ids, w.VM)
	}
	updated, err := c.WorkersByVM(ctx, ids)
	if err != nil {
		return nil, err
	}
	return updated, c.waitCompliant(ctx, updated, id, policy, timeout)
}

// Compliance says how long and how often to wait for vSAN to bring disks
// into compliance with a policy (a resync can take hours on a full cluster).
type Compliance struct {
	Timeout time.Duration // 0 = 30 minutes
	Poll    time.Duration // first wait between checks, doubling to 30 s (0 = 1 s)
}

func (w Compliance) orDefault() Compliance {
	if w.Timeout <= 0 {
		w.Timeout = 30 * time.Minute
	}
	if w.Poll <= 0 {
		w.Poll = time.Second
	}
	return w
}

// waitCompliant polls SPBM until every data disk of workers complies with
// profile, or fails naming the disks that do not.
func (c *Client) waitCompliant(ctx context.Context, workers []Worker, profile, name string, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = c.compliance.Timeout
	}
	entities := diskEntities(workers)
	names := map[string]string{}
	for _, w := range workers {
		for _, d := range w.Disks {
			names[diskEntity(w.VM, d.Key).Key] = w.Name + " " + d.Name
		}
	}
	deadline := time.Now().Add(timeout)
	wait := c.compliance.Poll
	for {
		var bad []string
		for start := 0; start < len(entities); start += 1000 {
			batch := entities[start:min(start+1000, len(entities))]
			res, err := pbmmethods.PbmCheckCompliance(ctx, c.pbm, &pbmtypes.PbmCheckCompliance{
				This: c.pbm.ServiceContent.ComplianceManager, Entities: batch, Profile: &pbmtypes.PbmProfileId{UniqueId: profile},
			})
			if err != nil {
				return fmt.Errorf("checking compliance with storage policy %q: %w", name, err)
			}
			for _, r := range res.Returnval {
				if r.ComplianceStatus != string(pbmtypes.PbmComplianceStatusCompliant) {
					bad = append(bad, cmp.Or(names[r.Entity.Key], r.Entity.Key)+" ("+r.ComplianceStatus+")")
				}
			}
		}
		if len(bad) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d disks are not compliant with storage policy %q after %s: %s; vSAN may still be moving their data (see the resync status in the vSphere Client): policy.apply(workers, %q, timeout=\"2h\") waits longer",
				len(bad), name, timeout, strings.Join(first(bad, 5), ", "), name)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 30*time.Second)
	}
}

func first(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("and %d more", len(s)-n))
	}
	return s
}

func diskEntity(vm string, key int32) pbmtypes.PbmServerObjectRef {
	return pbmtypes.PbmServerObjectRef{
		ObjectType: string(pbmtypes.PbmObjectTypeVirtualDiskId),
		Key:        fmt.Sprintf("%s:%d", vm, key),
	}
}

// diskEntities are the data disks of workers as SPBM names them.
func diskEntities(workers []Worker) []pbmtypes.PbmServerObjectRef {
	var out []pbmtypes.PbmServerObjectRef
	for _, w := range workers {
		for _, d := range w.Disks {
			out = append(out, diskEntity(w.VM, d.Key))
		}
	}
	return out
}

// readPolicies fills in the policy name of every data disk of workers.
func (c *Client) readPolicies(ctx context.Context, workers []Worker) error {
	entities := diskEntities(workers)
	assigned := map[string]string{}
	for start := 0; start < len(entities); start += 1000 {
		res, err := c.pbm.QueryAssociatedProfiles(ctx, entities[start:min(start+1000, len(entities))])
		if err != nil {
			return fmt.Errorf("reading the storage policies of worker disks: %w", err)
		}
		for _, r := range res {
			if len(r.ProfileId) > 0 {
				assigned[r.Object.Key] = r.ProfileId[0].UniqueId
			}
		}
	}
	names, err := c.policyNamesOf(ctx, assigned)
	if err != nil {
		return err
	}
	for i := range workers {
		for j := range workers[i].Disks {
			d := &workers[i].Disks[j]
			d.Policy = names[assigned[diskEntity(workers[i].VM, d.Key).Key]]
		}
	}
	return nil
}

// policyNamesOf maps the profile ids in assigned to names.
func (c *Client) policyNamesOf(ctx context.Context, assigned map[string]string) (map[string]string, error) {
	c.mu.Lock()
	missing := false
	for _, id := range assigned {
		if _, ok := c.policyNames[id]; !ok {
			missing = true
		}
	}
	c.mu.Unlock()
	if missing {
		if _, err := c.profiles(ctx); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]string{"": ""}
	for _, id := range assigned {
		out[id] = c.policyNames[id]
	}
	return out, nil
}
