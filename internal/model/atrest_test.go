package model

import (
	"math"
	"testing"

	"starbench/internal/fio"
)

// Data-at-rest encryption runs AES-XTS where the architecture puts it:
// ESA once in the DOM, after compression, on what it stores and what it
// reads back; OSA on the component hosts, onto the cache tier, off it and
// onto the capacity tier at destage, and off the device for a read. It
// costs CPU everywhere and throughput where those worlds bind.
func TestRestEncryptionRunsWhereEachArchitecturePutsIt(t *testing.T) {
	const b = 65536.0
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-6*want }

	esa := mustLoad(t, "storagereview-r6625-esa")
	rest := esa.Model.RestCipherCyclesPerByte.Value
	lay, _ := policyLayout(esa, Policy{RAID: "raid1", FTT: 1})
	plain := costModelFor(t, esa, false, true, false)
	enc := plain
	enc.restCycles = rest
	// Half-compressible data: ESA stores and encrypts the compressed half.
	cb := b * (1 - plain.saving(50))
	w0, w1 := plain.writeCost(b, lay, 50, 0), enc.writeCost(b, lay, 50, 0)
	if got := w1.domCycles - w0.domCycles; !near(got, cb*rest) || w1.storeCycles != w0.storeCycles {
		t.Errorf("ESA write: the DOM encrypts %g cycles (want %g, the compressed block once), LSOM %g more (want 0)", got, cb*rest, w1.storeCycles-w0.storeCycles)
	}
	r0, r1 := plain.readCost(b, 1, 50), enc.readCost(b, 1, 50)
	if got := r1.domCycles - r0.domCycles; !near(got, cb*rest) {
		t.Errorf("ESA read: the DOM decrypts %g cycles, want %g (the compressed block read)", got, cb*rest)
	}

	osa := mustLoad(t, "wwt-r640-osa")
	rest = osa.Model.RestCipherCyclesPerByte.Value
	lay, _ = policyLayout(osa, Policy{RAID: "raid1", FTT: 1})
	plain = costModelFor(t, osa, false, false, false)
	enc = plain
	enc.restCycles = rest
	// Each of the two mirrors: encrypted onto the cache tier, decrypted
	// at destage and encrypted onto the capacity tier.
	w0, w1 = plain.writeCost(b, lay, 0, 0), enc.writeCost(b, lay, 0, 0)
	if got, want := w1.storeCycles-w0.storeCycles, 2*3*b*rest; !near(got, want) || w1.domCycles != w0.domCycles {
		t.Errorf("OSA RAID-1 write: LSOM %g more cycles (want %g: 2 mirrors x 3 passes of AES), DOM %g more (want 0)", got, want, w1.domCycles-w0.domCycles)
	}
	r0, r1 = plain.readCost(b, 1, 0), enc.readCost(b, 1, 0)
	if got := r1.storeCycles - r0.storeCycles; !near(got, b*rest) {
		t.Errorf("OSA read: LSOM decrypts %g cycles, want %g", got, b*rest)
	}

	// End to end: WWT's 4K 70/30 on RAID-6 is bound by the disk groups'
	// worlds, which now encrypt and decrypt: fewer IOPS, more CPU per I/O.
	job := &fio.Job{IOEngine: "libaio", Direct: true, RW: "randrw", RWMixRead: 70, BlockSize: 4096, IODepth: 8}
	in := UniformInput(osa, 96, 8, Policy{RAID: "raid6", FTT: 2}, job)
	in.State.Uplink = "25g"
	base := solve(t, osa, in)
	in.State.RestEncryption = true
	encrypted := solve(t, osa, in)
	if !(total(encrypted) < 0.995*total(base)) || !(encrypted.CPUPercent/total(encrypted) > base.CPUPercent/total(base)) {
		t.Errorf("OSA 4K 70/30 encrypted at rest: %.0f IOPS at %.1f %% CPU, clear %.0f at %.1f %% (bottleneck %s); want fewer IOPS and more CPU per I/O", total(encrypted), encrypted.CPUPercent, total(base), base.CPUPercent, base.Bottleneck)
	}
	t.Logf("OSA 4K 70/30 RAID-6: %.0f -> %.0f IOPS (x%.3f), CPU %.1f -> %.1f %%", total(base), total(encrypted), total(encrypted)/total(base), base.CPUPercent, encrypted.CPUPercent)
}
