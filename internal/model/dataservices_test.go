package model

import (
	"context"
	"math"
	"strings"
	"testing"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// OSA's space efficiency at destage: compression-only looks up the
// translation map once per destaged copy and writes an entry per 4 KiB
// block, even on incompressible data; deduplication adds a hash-map lookup
// per block and, per unique block, a hash-map page read from the capacity
// tier. A 16 KiB RAID-1 FTT1 write has 2 copies of 4 blocks.
func TestOSASpaceEfficiencyMaps(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	m := &p.Model
	r1, err := policyLayout(p, Policy{RAID: "raid1", FTT: 1})
	if err != nil {
		t.Fatal(err)
	}
	const b = 16384.0
	off := costModelFor(t, p, false, false, false)
	comp := costModelFor(t, p, false, true, false)
	dd := costModelFor(t, p, false, true, true)
	base := off.writeCost(b, r1, 0, 0)
	c := comp.writeCost(b, r1, 0, 0)
	lz4 := 2 * 4 * (m.LZ4BlockCycles.Value + 693*m.LZ4AttemptCycles.Value) // 2 copies of 4 random blocks
	maps := 2*m.MetadataReadCycles.Value + 8*m.MapEntryCycles.Value
	if got := c.storeCycles - base.storeCycles; !(math.Abs(got-lz4-maps) <= 1e-6) {
		t.Errorf("compression-only: %g more LSOM cycles per 16 KiB write, want %g (LZ4 %g + maps %g)", got, lz4+maps, lz4, maps)
	}
	if c.capacityTime != base.capacityTime {
		t.Errorf("compression-only reads no hash map: capacity time %g, want %g", c.capacityTime, base.capacityTime)
	}
	for _, dedupe := range []int{0, 50, 100} {
		d := dd.writeCost(b, r1, 0, dedupe)
		unique := 8 * (1 - float64(dedupe)/100)
		sha := 2 * m.DedupCyclesPerByte.Value * b
		notWritten := 2 * b * float64(dedupe) / 100 * m.LSOMWriteByteCycles.Value
		want := lz4 + maps + sha + 8*m.MetadataReadCycles.Value + unique*(m.LSOMOpCycles.Value+efficiencyBlock*m.LSOMReadByteCycles.Value) - notWritten
		if got := d.storeCycles - base.storeCycles; !(math.Abs(got-want) <= 1e-6) {
			t.Errorf("dedup, %d %% duplicates: %g more LSOM cycles per 16 KiB write, want %g", dedupe, got, want)
		}
		// Deduplicated blocks are not written: the capacity tier does
		// the hash-map reads and what is left of the data.
		saved := 1 - float64(dedupe)/100
		wantTime := unique*dd.capRead(efficiencyBlock) + 2*b*saved/m.DestageIOBytes.Value*dd.capWrite(m.DestageIOBytes.Value)
		if got := d.capacityTime; !(math.Abs(got-wantTime) <= 1e-12) {
			t.Errorf("dedup, %d %% duplicates: capacity time %g per write, want %g", dedupe, got, wantTime)
		}
	}
	// While the buffer absorbs writes nothing is destaged: no map work.
	deferred := comp
	deferred.deferDestage = true
	plain := off
	plain.deferDestage = true
	if got, want := deferred.writeCost(b, r1, 0, 0).storeCycles, plain.writeCost(b, r1, 0, 0).storeCycles; got != want {
		t.Errorf("deferred destage with compression: %g LSOM cycles, want %g (as without)", got, want)
	}
}

// A read whose block is still in the write buffer is the cache device's:
// no capacity-device time, no decompression, the same guest and DOM path.
func TestOSAReadFromWriteBuffer(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	cm := costModelFor(t, p, false, true, false)
	capRead := cm.readCost(4096, 1, 60)
	cm.fromBuffer = 1
	buf := cm.readCost(4096, 1, 60)
	if buf.capacityTime != 0 || !(buf.cacheTime > 0) {
		t.Errorf("read from the buffer: capacity time %g, cache time %g; want 0 and more than 0", buf.capacityTime, buf.cacheTime)
	}
	if buf.guestCycles != capRead.guestCycles || buf.domCycles != capRead.domCycles {
		t.Errorf("read from the buffer: guest %g and DOM %g cycles, want the capacity read's %g and %g", buf.guestCycles, buf.domCycles, capRead.guestCycles, capRead.domCycles)
	}
	// The capacity tier holds the block in 2 KiB and decompresses it; the
	// buffer holds all 4 KiB as written.
	dc := cm.m.DecompressCyclesPerByte.Value*4096 - 2048*cm.m.LSOMReadByteCycles.Value
	if !(math.Abs(capRead.storeCycles-buf.storeCycles-dc) <= 1e-6) {
		t.Errorf("read from the buffer: %g LSOM cycles, want the capacity read's %g less %g (decompression, against 2 KiB more read)", buf.storeCycles, capRead.storeCycles, dc)
	}
	// Unwritten blocks are a metadata lookup wherever the written ones are.
	cm.fromBuffer = 0
	half := cm.readCost(4096, 0.5, 0)
	cm.fromBuffer = 1
	halfBuf := cm.readCost(4096, 0.5, 0)
	if halfBuf.capacityTime != 0 || !(math.Abs(halfBuf.guestCycles-half.guestCycles) <= 1e-6) {
		t.Errorf("half-written disk read from the buffer: capacity time %g, guest cycles %g; want 0 and the capacity read's %g", halfBuf.capacityTime, halfBuf.guestCycles, half.guestCycles)
	}
	if meta := cm.m.MetadataReadCycles.Value - cm.m.LSOMOpCycles.Value; !(math.Abs(halfBuf.storeCycles-(0.5*buf.storeCycles+0.5*(cm.readCost(4096, 0, 0).storeCycles))) <= 1e-6) {
		t.Errorf("half-written disk read from the buffer: %g LSOM cycles, want the mean of a buffered read and a metadata lookup (%g more than an op)", halfBuf.storeCycles, meta)
	}
}

// What the write buffers hold of the written regions: all of a small test
// file its own writes keep there (and none of its writes reach the
// elevator), a small part of disks much larger than the buffers (as much
// for clones spread over a disk as for one job on all of it), less when
// two jobs write, nothing for a job that only reads or moves its region
// once (fio's random map gives each block one I/O a pass), nothing on ESA.
func TestWriteBufferState(t *testing.T) {
	osa := mustLoad(t, "wwt-r640-osa")
	esa := mustLoad(t, "storagereview-r6625-esa")
	r1 := Policy{RAID: "raid1", FTT: 1}
	job := func(rw string, size int64) *fio.Job {
		return &fio.Job{RW: rw, RWMixRead: 70, BlockSize: 4096, IODepth: 8, Direct: true, IOEngine: "libaio", Size: size, TimeBased: true, RuntimeSec: 60}
	}
	mixed, reads, whole := job("randrw", 4<<30), job("randread", 4<<30), job("randrw", 0)
	seq, seqSmall := job("write", 0), job("write", 4<<30)
	state := func(p *testbed.Profile, in Input, j int) (float64, float64) {
		t.Helper()
		x, err := bufferCoverage(p, newPlatform(p), in)
		if err != nil {
			t.Fatal(err)
		}
		sh, err := readJob(in.Jobs[j].Job)
		if err != nil {
			t.Fatal(err)
		}
		return writeBufferState(x, sh, diskBytes(p, in.Jobs[j].Disks[0]), in.Jobs[j].Job.NumJobs)
	}
	one := func(p *testbed.Profile, jobs ...*fio.Job) Input {
		in := Input{}
		for _, jb := range jobs {
			in.Jobs = append(in.Jobs, JobLoad{Job: jb, Disks: []DiskLoad{{Policy: r1, Written: 1, SizeBytes: 150 << 30}}})
		}
		return in
	}
	if held, destaged := state(osa, one(osa, mixed), 0); !(held > 0.999) || !(destaged < 0.001) {
		t.Errorf("one disk rewriting a 4 GiB file: %.4f of it in the buffer, %.4f of its writes destaged; want all and none", held, destaged)
	}
	// 768 disks of 100 GB (the profile's), RAID-1 on 48 groups: 3.2 TB a
	// group against 0.3 x 375 GB held, x = 0.035 of a region. Time based,
	// fio's random map gives each block one I/O a pass in a new order, so
	// a block written comes back a pass's remainder and the next pass's
	// start later (two uniform parts), or later where that I/O is a read:
	// within y = x/0.3 passes, y < 1, with chance 0.3 y^2/2 (0.0020).
	x := osa.Model.WriteBufferDestageThreshold.Value * 375e9 / (768 * 100e9 * 2 / 48)
	y := x / 0.3
	want := 0.3 * y * y / 2
	if held, destaged := state(osa, UniformInput(osa, 96, 8, r1, whole), 0); !(math.Abs(held-want) <= 1e-9) || !(math.Abs(destaged-(1-want)) <= 1e-9) {
		t.Errorf("WWT's whole 100 GB disks: %.4f in the buffer, %.4f destaged; want %.4f and %.4f", held, destaged, want, 1-want)
	}
	// Without the random map offsets are drawn afresh: 1-exp(-x).
	drawn := job("randrw", 0)
	drawn.Options = []fio.Option{{Key: "norandommap"}}
	if held, destaged := state(osa, UniformInput(osa, 96, 8, r1, drawn), 0); !(math.Abs(held-(1-math.Exp(-x))) <= 1e-9) || !(math.Abs(destaged-math.Exp(-x)) <= 1e-9) {
		t.Errorf("WWT's disks with norandommap: %.4f in the buffer, %.4f destaged; want %.4f and %.4f", held, destaged, 1-math.Exp(-x), math.Exp(-x))
	}
	// Moving its region once, a job gives each block one I/O: nothing of
	// its own comes back, even to a file the buffer holds many times.
	once := job("randrw", 4<<30)
	once.TimeBased, once.RuntimeSec = false, 0
	if held, destaged := state(osa, one(osa, once), 0); held != 0 || destaged != 1 {
		t.Errorf("a 4 GiB file written once: %.4f in the buffer, %.4f destaged; want 0 and 1", held, destaged)
	}
	// Sequential: the last held bytes are there; every write reaches the
	// elevator unless the region fits.
	if held, destaged := state(osa, UniformInput(osa, 96, 8, r1, seq), 0); !(math.Abs(held-x) <= 1e-9) || destaged != 1 {
		t.Errorf("WWT's disks written sequentially: %.4f in the buffer, %.4f destaged; want %.4f and 1", held, destaged, x)
	}
	if held, destaged := state(osa, one(osa, seqSmall), 0); held != 1 || destaged != 0 {
		t.Errorf("a 4 GiB file written sequentially over and over: %.4f in the buffer, %.4f destaged; want 1 and 0", held, destaged)
	}
	// A second job writing its own whole 150 GiB disk beside the file
	// shares the buffers: less of the file stays there.
	alone, _ := state(osa, one(osa, mixed), 0)
	if shared, _ := state(osa, one(osa, mixed, whole), 0); !(shared < alone) {
		t.Errorf("a 4 GiB file beside a job writing a 150 GiB disk: %.6f of it in the buffer, want less than alone (%.6f)", shared, alone)
	}
	// Four clones spread over the disk by offset_increment write the whole
	// of it, as one job writing the disk does.
	spread := job("randrw", 0)
	spread.NumJobs, spread.Options = 4, []fio.Option{{Key: "size", Value: "25%"}, {Key: "offset_increment", Value: "25%"}}
	wholeHeld, _ := state(osa, one(osa, whole), 0)
	if held, _ := state(osa, one(osa, spread), 0); !(math.Abs(held-wholeHeld) <= 1e-12) {
		t.Errorf("four clones a quarter of the disk apart: %.6f of their regions in the buffer, want the whole disk's %.6f", held, wholeHeld)
	}
	if held, destaged := state(osa, one(osa, reads), 0); held != 0 || destaged != 1 {
		t.Errorf("a read-only job: %g in the buffer, %g destaged; want 0 and 1", held, destaged)
	}
	if held, destaged := state(osa, one(osa, mixed, reads), 1); held != 0 || destaged != 1 {
		t.Errorf("a read-only job beside a writer: %g in the buffer, %g destaged; want 0 and 1 (it reads its own disk)", held, destaged)
	}
	if held, destaged := state(esa, one(esa, mixed), 0); held != 0 || destaged != 1 {
		t.Errorf("ESA: %g in a write buffer, %g destaged; want 0 and 1 (it has none)", held, destaged)
	}
}

// Writes overwritten in the buffer are never destaged: with half of them
// coalesced the elevator's work halves, the cache-tier write does not.
func TestCoalescedWritesSkipTheElevator(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	r1, err := policyLayout(p, Policy{RAID: "raid1", FTT: 1})
	if err != nil {
		t.Fatal(err)
	}
	all := costModelFor(t, p, false, true, true)
	half := all
	half.destaged = 0.5
	none := all
	none.deferDestage = true
	a, h, n := all.writeCost(4096, r1, 0, 0), half.writeCost(4096, r1, 0, 0), none.writeCost(4096, r1, 0, 0)
	if got, want := h.storeCycles-n.storeCycles, (a.storeCycles-n.storeCycles)/2; !(math.Abs(got-want) <= 1e-6) {
		t.Errorf("half the writes coalesced: elevator cycles %g, want half of %g", got, 2*want)
	}
	if got, want := h.capacityTime, a.capacityTime/2; !(math.Abs(got-want) <= 1e-15) {
		t.Errorf("half the writes coalesced: capacity time %g, want %g", got, want)
	}
	if h.bufferBytes != a.bufferBytes {
		t.Errorf("half the writes coalesced: %g bytes into the buffer, want %g (every write lands there)", h.bufferBytes, a.bufferBytes)
	}
}

// A run says what the write buffers hold of its region: a job rewriting a
// 4 GiB file for a minute has all of it there and none of its writes
// destaged; a job that only reads is told nothing; a writer whose reads
// would never find its own writes there is told what its writes leave.
func TestWriteBufferNote(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	for _, c := range []struct {
		rw   string
		want string
	}{
		{"randrw", "the write buffers hold 100 % of the blocks this job writes: reads of them come from the cache devices, and 100 % of its writes are overwritten there"},
		{"randread", ""},
		// The same order each pass (an LFSR): a write's block comes back a
		// pass later, a read's never by its own clone.
		{"lfsr randwrite", "100 % of this job's writes are overwritten in the write buffers before the elevator destages them"},
	} {
		job := &fio.Job{RW: c.rw, RWMixRead: 70, BlockSize: 4096, IODepth: 32, Direct: true, IOEngine: "libaio", Size: 4 << 30, TimeBased: true, RuntimeSec: 60}
		if rw, ok := strings.CutPrefix(c.rw, "lfsr "); ok {
			job.RW, job.Options = rw, []fio.Option{{Key: "random_generator", Value: "lfsr"}}
		}
		out, err := Solve(context.Background(), p, UniformInput(p, 1, 1, Policy{RAID: "raid1", FTT: 1}, job))
		if err != nil {
			t.Fatal(err)
		}
		found := ""
		for _, n := range out.Notes {
			if strings.HasPrefix(n, "the write buffers hold") || strings.Contains(n, "overwritten in the write buffers") {
				found = n
			}
		}
		if c.want == "" && found != "" || c.want != "" && !strings.HasPrefix(found, c.want) {
			t.Errorf("%s on a 4 GiB file: note %q, want %q", c.rw, found, c.want)
		}
	}
}

// OSA keeps a 4 KiB block compressed only if it fits in 2 KiB: what LZ4
// leaves is the bytes it cannot shrink and its framing (68 bytes), so 30
// and even 50 % compressible data is stored whole (LZ4's work is still
// done, and reads decompress nothing), 52 % or more in half. ESA stores
// what LZ4 leaves in whole 512-byte sectors: 50 % in five of eight.
func TestOSAKeepsOnlyBlocksThatFitHalf(t *testing.T) {
	osa := costModelFor(t, mustLoad(t, "wwt-r640-osa"), false, true, false)
	esa := costModelFor(t, mustLoad(t, "storagereview-r6625-esa"), false, true, false)
	for _, c := range []struct {
		pct      int
		osa, esa float64
	}{{0, 0, 0}, {30, 0, 0.25}, {50, 0, 0.375}, {52, 0.5, 0.5}, {60, 0.5, 0.5}, {75, 0.5, 0.625}, {100, 0.5, 0.875}} {
		if got := osa.saving(c.pct); !(math.Abs(got-c.osa) <= 1e-12) {
			t.Errorf("OSA, %d %% compressible: saves %g, want %g", c.pct, got, c.osa)
		}
		if got := esa.saving(c.pct); !(math.Abs(got-c.esa) <= 1e-12) {
			t.Errorf("ESA, %d %% compressible: saves %g, want %g", c.pct, got, c.esa)
		}
	}
	p := osa.p
	r1, err := policyLayout(p, Policy{RAID: "raid1", FTT: 1})
	if err != nil {
		t.Fatal(err)
	}
	off := costModelFor(t, p, false, false, false)
	w30, w0 := osa.writeCost(4096, r1, 30, 0), off.writeCost(4096, r1, 30, 0)
	if w30.capacityTime != w0.capacityTime {
		t.Errorf("OSA, 30 %% compressible: capacity time %g per write, want %g (stored whole)", w30.capacityTime, w0.capacityTime)
	}
	if lz4 := 2 * osa.lz4Cycles(4096, 30); !(w30.storeCycles-w0.storeCycles > lz4) {
		t.Errorf("OSA, 30 %% compressible: %g more LSOM cycles, want more than LZ4's %g", w30.storeCycles-w0.storeCycles, lz4)
	}
	if r30, r0 := osa.readCost(4096, 1, 30), off.readCost(4096, 1, 30); r30.storeCycles != r0.storeCycles {
		t.Errorf("OSA, 30 %% compressible: a read costs %g LSOM cycles, want %g (nothing to decompress)", r30.storeCycles, r0.storeCycles)
	}
}

// vSAN 7.0 U3 on OSA holds a sequential stream's writes to RAID-5/6 until
// they fill whole stripes and writes them with their parity, nothing read
// first (VMware, "Improving RAID-5/6 in vSAN 7 U3 using Heuristics"):
// WWT's hosts (7.0 U3), RAID-6 4+2, write 1.5 bytes to components per
// guest byte sequentially and read none, where random writes read and
// write 3 (old data and both parities). vSAN waits for a stripe's data
// (4 stripe units, taken as 1 MiB) to be in flight: 1 MiB writes at
// iodepth 2 keep too little and are read-modify-written, as are 64 KiB
// writes at iodepth 64 (the controller admits 32 a disk) and sequential
// writes before 7.0 U3. The run says which.
func TestOSASequentialWritesFillWholeStripes(t *testing.T) {
	p := mustLoad(t, "wwt-r640-osa")
	older := *p
	older.VSANRelease = "7.0 U2"
	for _, tc := range []struct {
		p            *testbed.Profile
		rw           string
		read, writes float64 // component bytes per guest byte written
		depth        int
		note         string
	}{
		{p, "write", 0, 1.5, 4, "gathers into full-stripe writes"},
		{p, "randwrite", 3, 3, 4, ""},
		{&older, "write", 3, 3, 4, "read-modify-writes them as random writes"},
		{p, "write", 3, 3, 2, "a disk's 2048 KiB in flight fill no stripe (4 MiB of data)"},
		// 64 KiB at iodepth 64 would be a stripe's 4 MiB, but WWT's LSI
		// Logic controller admits 32 a disk: 2 MiB reach vSAN.
		{p, "write", 3, 3, -64, "a disk's 2048 KiB in flight fill no stripe"},
	} {
		job := &fio.Job{IOEngine: "libaio", Direct: true, RW: tc.rw, BlockSize: 1 << 20, IODepth: tc.depth}
		if tc.depth < 0 { // 64 KiB blocks
			job.BlockSize, job.IODepth = 64<<10, -tc.depth
		}
		out := solve(t, tc.p, UniformInput(tc.p, 96, 8, Policy{RAID: "raid6", FTT: 2}, job))
		var rd, wr float64
		for _, h := range out.Hosts {
			rd, wr = rd+h.CompReadBytesPerSec, wr+h.CompWriteBytesPerSec
		}
		guest := out.Write.MBps * 1e6
		if !closeTo(rd/guest+1, tc.read+1) || !closeTo(wr/guest, tc.writes) || !strings.Contains(notes(out), tc.note) {
			t.Errorf("%s on %s: components read %.3f and write %.3f bytes per guest byte, notes %q; want %g, %g and %q", tc.rw, tc.p.VSANRelease, rd/guest, wr/guest, out.Notes, tc.read, tc.writes, tc.note)
		}
	}
}
