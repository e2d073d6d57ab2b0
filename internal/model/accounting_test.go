package model

import (
	"math"
	"testing"
)

// A read of a never-written block costs a metadata lookup in place of the
// LSOM operation a device read costs: the lookup's cycles count, the
// LSOM operation's do not.
func TestUnwrittenReadCostsALookupNotAnLSOMOp(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	base := costModelFor(t, p, false, false, false)
	lsom, meta := *p, *p
	lsom.Model.LSOMOpCycles.Value += 1000
	meta.Model.MetadataReadCycles.Value += 1000
	b := base.readCost(4096, 0, 0).storeCycles
	lsomCost, metaCost := costModelFor(t, &lsom, false, false, false), costModelFor(t, &meta, false, false, false)
	if got := lsomCost.readCost(4096, 0, 0).storeCycles; got != b {
		t.Errorf("1000 more cycles per LSOM op: an unwritten read costs %g store cycles, was %g; want the same", got, b)
	}
	if got := metaCost.readCost(4096, 0, 0).storeCycles; !(math.Abs(got-b-1000) <= 1e-6) {
		t.Errorf("1000 more cycles per metadata lookup: an unwritten read costs %g store cycles, was %g; want 1000 more", got, b)
	}
}

// Memory traffic of data reduction. Writes of incompressible 64 KiB
// blocks: OSA's destage compresses each cache-tier copy, reading and
// writing it (2 x 2 x 64 KiB on RAID-1), and deduplication reads each copy
// (2 x 64 KiB) and, for each of its unique 4 KiB blocks, a hash-map page
// from the capacity tier (2 x 16 x 4 KiB); ESA compresses once at ingest, reading the block and
// writing what it compressed to (2 x 64 KiB). Reads of blocks stored at
// half their size: decompressing reads the stored bytes and writes the
// block, and the device moves the stored bytes, not the block's.
func TestDataReductionMemoryTraffic(t *testing.T) {
	const b = 65536.0
	osa := mustLoad(t, "wwt-r640-osa")
	r1, err := policyLayout(osa, Policy{RAID: "raid1", FTT: 1})
	if err != nil {
		t.Fatal(err)
	}
	off := costModelFor(t, osa, false, false, false)
	for _, c := range []struct {
		name            string
		compress, dedup bool
		want            float64
	}{{"compression", true, false, 2 * 2 * b}, {"deduplication", false, true, 2*b + 2*16*efficiencyBlock}} {
		on := costModelFor(t, osa, false, c.compress, c.dedup)
		if got := on.writeCost(b, r1, 0, 0).memBytes - off.writeCost(b, r1, 0, 0).memBytes; !(math.Abs(got-c.want) <= 1e-6) {
			t.Errorf("OSA %s: %g more bytes through memory per 64 KiB write, want %g", c.name, got, c.want)
		}
	}
	esa := mustLoad(t, "storagereview-r6625-esa")
	r5, err := policyLayout(esa, Policy{RAID: "raid5"})
	if err != nil {
		t.Fatal(err)
	}
	esaOn, esaOff := costModelFor(t, esa, false, true, false), costModelFor(t, esa, false, false, false)
	if got := esaOn.writeCost(b, r5, 0, 0).memBytes - esaOff.writeCost(b, r5, 0, 0).memBytes; !(math.Abs(got-2*b) <= 1e-6) {
		t.Errorf("ESA compression: %g more bytes through memory per 64 KiB write, want %g", got, 2*b)
	}

	// OSA decompresses on the component's host and ships the whole block:
	// half-size blocks (60 % compressible data: LZ4 leaves 1,706 bytes of a
	// 4 KiB block, in 2 KiB on OSA and four 512-byte sectors on ESA) move
	// 32 KiB less through the device and 32 + 64 KiB more to decompress,
	// 2 x 32 KiB in all.
	osaOn := costModelFor(t, osa, false, true, false)
	if got := osaOn.readCost(b, 1, 60).memBytes - osaOn.readCost(b, 1, 0).memBytes; !(math.Abs(got-2*b/2) <= 1e-6) {
		t.Errorf("OSA reads of half-size blocks: %g more bytes through memory, want %g", got, b)
	}
	// ESA ships the compressed block and decompresses at the DOM owner: the
	// wire's DMA (at both ends of a remote component, 3 of 4) shrinks too.
	remote := 3.0 / 4
	want := -b/2 - 2*remote*b/2 + (b/2 + b)
	if got := esaOn.readCost(b, 1, 60).memBytes - esaOn.readCost(b, 1, 0).memBytes; !(math.Abs(got-want) <= 1e-6) {
		t.Errorf("ESA reads of half-size blocks: %g more bytes through memory, want %g", got, want)
	}
}

// vSAN releases compare by major version, then update: "8" is 8.0 with no
// update; a release that does not parse is no release.
func TestReleaseAtLeast(t *testing.T) {
	for _, c := range []struct {
		release       string
		major, update int
		want          bool
	}{
		{"8", 8, 0, true},
		{"8", 8, 1, false},
		{"8.0 U1", 8, 1, true},
		{"8.0 U2", 8, 3, false},
		{"9.0", 8, 3, true},
		{"7.0 U3", 8, 0, false},
		{"", 7, 0, false},
		{"eight", 7, 0, false},
	} {
		if got := releaseAtLeast(c.release, c.major, c.update); got != c.want {
			t.Errorf("%q at least %d.0 U%d: %v, want %v", c.release, c.major, c.update, got, c.want)
		}
	}
}

// Without a large-write threshold every ESA write takes the performance
// leg, however large.
func TestNoLargeWriteThresholdKeepsThePerformanceLeg(t *testing.T) {
	p := mustLoad(t, "storagereview-r6625-esa")
	r5, err := policyLayout(p, Policy{RAID: "raid5"})
	if err != nil {
		t.Fatal(err)
	}
	none := *p
	none.Model.LargeWriteBytes.Value = 0
	cm := costModelFor(t, &none, false, false, false)
	if got, want := cm.writeCost(1<<20, r5, 0, 0).deviceBytes, (2+1.5)*(1<<20); !(math.Abs(got-want) <= 1e-6) {
		t.Errorf("1 MiB RAID-5 write without a threshold: %g device bytes, want %g (2 mirrors and the 1.5 capacity leg)", got, want)
	}
}

// A policy's capacity leg has one component per mirror, or per data and
// parity stripe: OSA RAID-5 is 3+1, ESA RAID-5 2+1 on fewer than 6 hosts,
// RAID-6 4+2.
func TestPolicyLayoutWidths(t *testing.T) {
	osa, esa := mustLoad(t, "wwt-r640-osa"), mustLoad(t, "vxrail-ve660-esa")
	for _, c := range []struct {
		p    string
		pol  Policy
		want int
	}{
		{"wwt-r640-osa", Policy{RAID: "raid1", FTT: 1}, 2},
		{"wwt-r640-osa", Policy{RAID: "raid1", FTT: 3}, 4},
		{"wwt-r640-osa", Policy{RAID: "raid5"}, 4},
		{"wwt-r640-osa", Policy{RAID: "raid6", FTT: 2}, 6},
		{"vxrail-ve660-esa", Policy{RAID: "raid5"}, 3},
	} {
		p := osa
		if c.p == esa.Name {
			p = esa
		}
		l, err := policyLayout(p, c.pol)
		if err != nil || l.width() != c.want {
			t.Errorf("%s %+v: width %d (%v), want %d", c.p, c.pol, l.width(), err, c.want)
		}
	}
}

// At destage OSA's LZ4 works through each block as fio laid it out,
// whether or not it keeps the result: fio's default 512-byte chunks make
// a 25 % compressible block eight runs of 384 random bytes, each searched
// from its start at every byte (1,536 tries), where a random block's one
// run strides ever further (693 tries), so it costs more and saves nothing
// on the capacity tier (OSA keeps only blocks that shrink by half).
func TestOSADestageCompressesEachBlockAsFioLaidItOut(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	c := costModelFor(t, p, false, true, false)
	c.chunk = 512
	lay, err := policyLayout(p, Policy{RAID: "raid1", FTT: 1})
	if err != nil {
		t.Fatal(err)
	}
	const b = 4096
	none, quarter := c.writeIO(b, lay, 0, 0), c.writeIO(b, lay, 25, 0)
	got := quarter.legs[capLeg].comp.storeCycles - none.legs[capLeg].comp.storeCycles
	want := 2 * (1536 - 693) * p.Model.LZ4AttemptCycles.Value // 2 mirrors destaged
	if !(math.Abs(got-want) <= 1e-6*want) {
		t.Errorf("destage of a 25 %% compressible 4K write costs %g cycles more than an incompressible one, want %g", got, want)
	}
	if c.saving(25) != 0 {
		t.Errorf("OSA saves %g of a 25 %% compressible block, want nothing", c.saving(25))
	}
}

// Where the CRC-32C runs: ESA checksums at the top of the stack, in the
// DOM, once per guest I/O either way; OSA computes it where the write
// enters (the DOM) and again in each component that takes a copy (RAID-1
// FTT 1: two), and checks reads in the component that reads them, not in
// the DOM. Disabling the checksum takes all of it off.
func TestChecksumWhereEachArchitectureRunsIt(t *testing.T) {
	const b = 65536
	for _, tc := range []struct {
		profile             string
		domRead, domWrite   float64 // bytes checksummed in the DOM
		compRead, compWrite float64 // and in the components
	}{
		{"storagereview-r6625-esa", b, b, 0, 0},
		{"wwt-r640-osa", 0, b, b, 2 * b},
	} {
		p := mustLoad(t, tc.profile)
		lay, err := policyLayout(p, Policy{RAID: "raid1", FTT: 1})
		if err != nil {
			t.Fatal(err)
		}
		on := costModelFor(t, p, false, false, false)
		off := on
		off.checksum = false
		crc := p.Model.ChecksumCyclesPerByte.Value
		for _, d := range []struct {
			name      string
			on, off   ioCost
			dom, comp float64
		}{
			{"read", on.readIO(b, 1, 0), off.readIO(b, 1, 0), tc.domRead, tc.compRead},
			{"write", on.writeIO(b, lay, 0, 0), off.writeIO(b, lay, 0, 0), tc.domWrite, tc.compWrite},
		} {
			dom := d.on.owner.domCycles - d.off.owner.domCycles
			comp := d.on.legs[capLeg].comp.storeCycles + d.on.legs[perfLeg].comp.storeCycles - d.off.legs[capLeg].comp.storeCycles - d.off.legs[perfLeg].comp.storeCycles
			if !closeTo(dom, d.dom*crc) || !closeTo(comp, d.comp*crc) {
				t.Errorf("%s, a 64K %s: the checksum costs the DOM %g cycles and the components %g; want %g and %g", tc.profile, d.name, dom, comp, d.dom*crc, d.comp*crc)
			}
		}
	}
}
