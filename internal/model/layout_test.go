package model

import (
	"strings"

	"starbench/internal/testbed"
	"testing"
)

// Each policy's placement at the edges of what the cluster allows: RAID-1
// needs 2 FTT + 1 hosts and takes FTT 1 to 3; ESA's RAID-5 is 2+1 on 3 to
// 5 hosts and 4+1 from 6; OSA's is 3+1; RAID-6 is 4+2 on 6 hosts or more.
func TestPolicyLayoutAtItsEdges(t *testing.T) {
	esa, osa := mustLoad(t, "storagereview-r6625-esa"), mustLoad(t, "wwt-r640-osa")
	hosts := func(p *testbed.Profile, n int) *testbed.Profile { c := *p; c.Hosts = n; return &c }
	for _, tc := range []struct {
		p       *testbed.Profile
		pol     Policy
		want    layout
		refused string
	}{
		{hosts(esa, 3), Policy{RAID: "raid1", FTT: 1}, layout{mirrors: 2, capFactor: 2}, ""},
		{hosts(esa, 2), Policy{RAID: "raid1", FTT: 1}, layout{}, "raid1 ftt 1 needs at least 3 hosts"},
		{hosts(esa, 7), Policy{RAID: "raid1", FTT: 3}, layout{mirrors: 4, capFactor: 4}, ""},
		{hosts(esa, 9), Policy{RAID: "raid1", FTT: 4}, layout{}, "raid1 with ftt 4: want ftt 1, 2 or 3"},
		{hosts(esa, 6), Policy{RAID: "raid1", FTT: 3}, layout{}, "raid1 ftt 3 needs at least 7 hosts"},
		{hosts(esa, 3), Policy{RAID: "raid5", FTT: 1}, layout{mirrors: 2, dataStripes: 2, parity: 1, capFactor: 1.5}, ""},
		{hosts(esa, 5), Policy{RAID: "RAID-5"}, layout{mirrors: 2, dataStripes: 2, parity: 1, capFactor: 1.5}, ""},
		{hosts(esa, 6), Policy{RAID: "raid5"}, layout{mirrors: 2, dataStripes: 4, parity: 1, capFactor: 1.25}, ""},
		{hosts(osa, 4), Policy{RAID: "raid5"}, layout{mirrors: 2, dataStripes: 3, parity: 1, capFactor: 4.0 / 3}, ""},
		{hosts(osa, 3), Policy{RAID: "raid5"}, layout{}, "raid5 (3+1) needs at least 4 hosts"},
		{hosts(esa, 6), Policy{RAID: "raid5", FTT: 2}, layout{}, "raid5 tolerates 1 failure, not 2"},
		{hosts(esa, 6), Policy{RAID: "raid6", FTT: 2}, layout{mirrors: 3, dataStripes: 4, parity: 2, capFactor: 1.5}, ""},
		{hosts(esa, 5), Policy{RAID: "raid6"}, layout{}, "raid6 (4+2) needs at least 6 hosts"},
		{hosts(esa, 6), Policy{RAID: "raid6", FTT: 1}, layout{}, "raid6 tolerates 2 failures, not 1"},
		{hosts(esa, 6), Policy{RAID: "raid10"}, layout{}, `unknown RAID level "raid10"`},
	} {
		got, err := policyLayout(tc.p, tc.pol)
		switch {
		case tc.refused != "":
			if err == nil || !strings.Contains(err.Error(), tc.refused) {
				t.Errorf("%d hosts, %+v: %v, want refused with %q", tc.p.Hosts, tc.pol, err, tc.refused)
			}
		case err != nil || got != tc.want:
			t.Errorf("%d hosts, %+v: %+v (%v), want %+v", tc.p.Hosts, tc.pol, got, err, tc.want)
		}
	}
}
