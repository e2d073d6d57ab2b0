package vsphere

import (
	"context"
	"strings"
	"testing"
	"time"

	pbmmethods "github.com/vmware/govmomi/pbm/methods"
	pbmtypes "github.com/vmware/govmomi/pbm/types"

	"starbench/internal/model"
	"starbench/internal/sim"
)

func TestPolicyValidationNamesTheFix(t *testing.T) {
	_, c := startSim(t, sim.Options{Testbed: testbedOf(4, "OSA")})
	ctx := context.Background()
	for _, tc := range []struct {
		spec PolicySpec
		want string
	}{
		{PolicySpec{Name: "p", RAID: "raid7"}, `want one of "raid1", "raid5", "raid6"`},
		{PolicySpec{Name: "p", RAID: "raid6"}, "raid6 needs at least 6 hosts on vSAN OSA; cluster DC0_C0 has 4"},
		{PolicySpec{Name: "p", RAID: "raid1", FTT: 2}, "raid1 with ftt=2 needs at least 5 hosts"},
		{PolicySpec{Name: "p", RAID: "raid5", FTT: 2}, "raid5 tolerates exactly 1 failure"},
		{PolicySpec{Name: "p", RAID: "raid1", StripeWidth: 13}, "want 1 to 12"},
		{PolicySpec{Name: "p", RAID: "raid1", IOPSLimit: -5}, "iops_limit=-5: want 0 (no limit)"},
		{PolicySpec{Name: "p", RAID: "raid1", FTT: 4}, "raid1 with ftt=4: want ftt 1 to 3"},
		{PolicySpec{Name: "", RAID: "raid1"}, "needs a name"},
	} {
		_, err := c.SetPolicy(ctx, tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.spec, err, tc.want)
		}
	}
	// RAID5 on OSA needs 4 hosts: this cluster has them.
	if _, err := c.SetPolicy(ctx, PolicySpec{Name: "r5", RAID: "raid5"}); err != nil {
		t.Errorf("raid5 on 4 OSA hosts: %v", err)
	}
}

func TestRAID5NeedsThreeHostsOnESAAndFourOnOSA(t *testing.T) {
	for arch, ok := range map[string]bool{"ESA": true, "OSA": false} {
		_, c := startSim(t, sim.Options{Testbed: testbedOf(3, arch)})
		_, err := c.SetPolicy(context.Background(), PolicySpec{Name: "r5", RAID: "raid5"})
		if (err == nil) != ok {
			t.Errorf("raid5 on 3 %s hosts: got %v, want ok=%v", arch, err, ok)
		}
	}
}

func TestPolicyCreateUpdateReadBackAndApply(t *testing.T) {
	_, c := startSim(t, sim.Options{Testbed: testbedOf(6, "OSA")})
	ctx := context.Background()
	id, err := c.SetPolicy(ctx, PolicySpec{Name: "bench", RAID: "raid1", StripeWidth: 2, Checksum: true, IOPSLimit: 5000})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Policy(ctx, "bench")
	if err != nil {
		t.Fatal(err)
	}
	if got != (model.Policy{RAID: "raid1", FTT: 1, StripeWidth: 2, IOPSLimit: 5000}) {
		t.Errorf("read back %+v", got)
	}
	id2, err := c.SetPolicy(ctx, PolicySpec{Name: "bench", RAID: "raid6"})
	if err != nil {
		t.Fatal(err)
	}
	if id2 != id {
		t.Errorf("update made a new policy: %s, then %s", id, id2)
	}
	// The update's rules replace the old ones: no IOPS limit, checksum off.
	if got, _ := c.Policy(ctx, "bench"); got != (model.Policy{RAID: "raid6", FTT: 2, StripeWidth: 1, ChecksumDisabled: true}) {
		t.Errorf("after update read back %+v", got)
	}

	if _, err := c.SetPolicy(ctx, PolicySpec{Name: "mirror", RAID: "raid1"}); err != nil {
		t.Fatal(err)
	}
	spec := smallSpec("pw")
	spec.PerHost = 1
	spec.Policy = "bench"
	workers, err := c.DeployWorkers(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range workers {
		for _, d := range w.Disks {
			if d.Policy != "bench" {
				t.Fatalf("worker %s %s has policy %q, want bench", w.Name, d.Name, d.Policy)
			}
		}
	}
	// Re-deploying the same set with another policy must not keep the old one.
	spec.Policy = "mirror"
	again, err := c.DeployWorkers(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	applied, err := c.ApplyPolicy(ctx, again[:2], "bench", 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, w := range again {
		want[w.Name] = "mirror"
		if w.Disks[0].Policy != "mirror" {
			t.Errorf("reused worker %s kept policy %q, want mirror", w.Name, w.Disks[0].Policy)
		}
	}
	for _, w := range applied {
		want[w.Name] = "bench"
	}
	now, err := c.Workers(ctx, "pw")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range now {
		for _, d := range w.Disks {
			if d.Policy != want[w.Name] {
				t.Errorf("worker %s %s has %q, want %q", w.Name, d.Name, d.Policy, want[w.Name])
			}
		}
	}
	if _, err := c.ApplyPolicy(ctx, now, "nope", 2, 0); err == nil || !strings.Contains(err.Error(), `"bench"`) {
		t.Errorf("unknown policy: got %v, want the known names listed", err)
	}
}

// TestPolicyCompressionReadsBack: a policy's space-efficiency rule reaches
// the model as its compression override; none leaves it to the cluster.
func TestPolicyCompressionReadsBack(t *testing.T) {
	_, c := startSim(t, sim.Options{Testbed: testbedOf(4, "ESA")})
	ctx := context.Background()
	on, off := true, false
	for _, tc := range []struct {
		name string
		rule *bool
		want model.Override
	}{{"plain", nil, model.Inherit}, {"packed", &on, model.On}, {"raw", &off, model.Off}} {
		if _, err := c.SetPolicy(ctx, PolicySpec{Name: tc.name, RAID: "raid1", Compression: tc.rule}); err != nil {
			t.Fatal(err)
		}
		if got, err := c.Policy(ctx, tc.name); err != nil || got.Compression != tc.want {
			t.Errorf("policy %s: compression read back %v (err %v), want %v", tc.name, got.Compression, err, tc.want)
		}
	}
}

// TestApplyPolicyWaitsForTheResync: the simulator reports the disks
// nonCompliant for three checks after the change, as vSAN does while it
// moves their data; the call returns only once they comply.
func TestApplyPolicyWaitsForTheResync(t *testing.T) {
	s, c := startSim(t, sim.Options{Testbed: testbedOf(4, "OSA")})
	c.compliance.Poll = time.Millisecond
	ctx := context.Background()
	if _, err := c.SetPolicy(ctx, PolicySpec{Name: "r5", RAID: "raid5"}); err != nil {
		t.Fatal(err)
	}
	spec := smallSpec("rs")
	spec.PerHost = 1
	workers, err := c.DeployWorkers(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	s.SetResync(3)
	if _, err := c.ApplyPolicy(ctx, workers, "r5", 4, 0); err != nil {
		t.Fatal(err)
	}
	id, _ := c.policyID(ctx, "r5")
	res, err := pbmmethods.PbmCheckCompliance(ctx, c.pbm, &pbmtypes.PbmCheckCompliance{
		This: c.pbm.ServiceContent.ComplianceManager, Entities: diskEntities(workers), Profile: &pbmtypes.PbmProfileId{UniqueId: id},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Returnval {
		if r.ComplianceStatus != "compliant" {
			t.Errorf("disk %s is %s after policy.apply returned", r.Entity.Key, r.ComplianceStatus)
		}
	}
}

// TestApplyPolicyGivesUpOnAResyncThatDoesNotEnd: the error names the disks
// and says how to wait longer.
func TestApplyPolicyGivesUpOnAResyncThatDoesNotEnd(t *testing.T) {
	s, c := startSim(t, sim.Options{Testbed: testbedOf(4, "OSA")})
	c.compliance.Poll = time.Millisecond
	ctx := context.Background()
	if _, err := c.SetPolicy(ctx, PolicySpec{Name: "r5", RAID: "raid5"}); err != nil {
		t.Fatal(err)
	}
	spec := smallSpec("stuck")
	spec.Count, spec.PerHost = 1, 0
	workers, err := c.DeployWorkers(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	s.SetResync(-1)
	_, err = c.ApplyPolicy(ctx, workers, "r5", 1, 20*time.Millisecond)
	for _, want := range []string{`3 disks are not compliant with storage policy "r5" after 20ms`, "stuck-01 disk1 (nonCompliant)", `timeout="2h") waits longer`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want it to contain %s", err, want)
		}
	}
}
