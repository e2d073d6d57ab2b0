package model

import (
	"strings"
	"testing"
)

// TestRangeNotesAtTheEdges: a block size or an outstanding I/O count at the
// edge of the calibrated range is inside it; one beyond either edge is
// noted as extrapolated. An uncalibrated testbed is noted always, and OSA
// unless its costs were fitted on it.
func TestRangeNotesAtTheEdges(t *testing.T) {
	esa := mustLoad(t, "storagereview-r6625-esa")
	m := &esa.Model
	lo, hi := int64(m.CalibratedMinBlockBytes.Value), int64(m.CalibratedMaxBlockBytes.Value)
	nlo, nhi := int(m.CalibratedMinOutstanding.Value), int(m.CalibratedMaxOutstanding.Value)
	sizes := func(read, write int64) [2][]sizeShare {
		return [2][]sizeShare{{{size: read, share: 1}}, {{size: write, share: 1}}}
	}
	for _, tc := range []struct {
		name         string
		n            int
		sizes        [2][]sizeShare
		block, depth bool
	}{
		{"at the low edges", nlo, sizes(lo, lo), false, false},
		{"at the high edges", nhi, sizes(hi, hi), false, false},
		{"a read below", nlo, sizes(lo-1, lo), true, false},
		{"a write above", nhi, sizes(hi, hi+1), true, false},
		{"too few outstanding", nlo - 1, sizes(lo, hi), false, true},
		{"too many outstanding", nhi + 1, sizes(lo, hi), false, true},
	} {
		notes := strings.Join(rangeNotes(esa, tc.n, tc.sizes), "\n")
		if got := strings.Contains(notes, "bytes is outside the calibrated range"); got != tc.block {
			t.Errorf("%s: block size noted %v, want %v (%q)", tc.name, got, tc.block, notes)
		}
		if got := strings.Contains(notes, "outstanding I/Os is outside the calibrated range"); got != tc.depth {
			t.Errorf("%s: outstanding I/Os noted %v, want %v (%q)", tc.name, got, tc.depth, notes)
		}
		if strings.Contains(notes, "OSA") || strings.Contains(notes, "uncalibrated") {
			t.Errorf("%s: the calibrated ESA testbed noted as OSA or uncalibrated: %q", tc.name, notes)
		}
	}
	osa := mustLoad(t, "wwt-r640-osa")
	notes := strings.Join(rangeNotes(osa, nlo, sizes(lo, lo)), "\n")
	if !strings.Contains(notes, "OSA: vSAN software costs are the ESA fit") || !strings.Contains(notes, "testbed wwt-r640-osa is uncalibrated") {
		t.Errorf("OSA testbed without calibration: notes %q", notes)
	}
	// Fitted to its own campaign (starbench fit), its costs are its own.
	osa.Calibration = "starbench fit: campaign fit-sweep measured in fit-sweep.db"
	if notes := strings.Join(rangeNotes(osa, nlo, sizes(lo, lo)), "\n"); strings.Contains(notes, "OSA") || strings.Contains(notes, "uncalibrated") {
		t.Errorf("OSA testbed fitted to its own campaign noted as running on the ESA fit: %q", notes)
	}
}
