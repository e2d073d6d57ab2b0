package testbed

import "testing"

// Set sets the parameters it names, value and source, and no other; Lookup
// finds a parameter by its JSON name and says when there is none.
func TestSetAndLookupByName(t *testing.T) {
	m := DefaultModel("ESA")
	was := m.DOMIOCycles
	m.Set(map[string]Param{"dom_worlds_per_host": {16, "measured"}})
	if got, ok := m.Lookup("dom_worlds_per_host"); !ok || got != (Param{16, "measured"}) {
		t.Errorf("dom_worlds_per_host after Set: %v %v, want 16 from \"measured\"", got, ok)
	}
	if got, ok := m.Lookup("dom_io_cycles"); !ok || got != was {
		t.Errorf("dom_io_cycles %v %v after setting another parameter, want %v as it was", got, ok, was)
	}
	if _, ok := m.Lookup("dom_cycles"); ok {
		t.Errorf("Lookup found dom_cycles, which no parameter is named")
	}
}

// A parameter's kind of source is read from how its source begins; a
// source that begins otherwise is published (a datasheet, a vendor's doc).
func TestParamKindReadsTheSource(t *testing.T) {
	for source, want := range map[string]string{
		"assumption: one pool per host":                       "assumption",
		FittedToStorageReview + ", jointly over all 20 cells": "fitted",
		"fitted by starbench fit to campaign fit-sweep":       "fitted",
		"measured: fio 3.33 on a loop device":                 "measured",
		"Public figure (commonly cited)":                      "public figure",
		"VMware KB 2053145: PVSCSI default queue depth":       "published",
		"the assumption of a colleague":                       "published",
	} {
		if got := (Param{1, source}).Kind(); got != want {
			t.Errorf("the kind of %q: %q, want %q", source, got, want)
		}
	}
}

// A profile's digest follows its content: the same profile loaded twice
// gives one digest, a moved model parameter or another testbed another.
func TestDigestFollowsTheProfile(t *testing.T) {
	a, err := Load("vxrail-ve660-esa")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Load("vxrail-ve660-esa")
	other, _ := Load("wwt-r640-osa")
	if a.Digest() != b.Digest() || len(a.Digest()) != 12 {
		t.Errorf("one profile, digests %q and %q: want one, 12 hex digits", a.Digest(), b.Digest())
	}
	was := a.Digest()
	a.Model.NICEfficiency.Value *= 0.94
	if a.Digest() == was || other.Digest() == was {
		t.Errorf("a moved parameter (%q) or another testbed (%q) keeps the digest %q", a.Digest(), other.Digest(), was)
	}
}
