package model

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// A small well-formed set; each subtest breaks one thing and expects the
// check to name it.
const goodValidation = `{
  "about": "test",
  "sources": [{"id": "s1", "title": "t", "publisher": "p", "url": "https://example.org/r", "read": "all", "says": "x"}],
  "cases": [
    {"id": "a", "source": "s1", "profile": "vxrail-ve660-esa", "workers": {"vms": 4, "disks_per_vm": 2, "vcpus": 4},
     "fio": ["rw=randread", "bs=4k", "iodepth=4"], "policy": {"raid": "raid1", "ftt": 1}, "cluster": {"uplink": "25g"},
     "prep": {"written": 1}, "metric": "iops", "published": 1000, "unit": "IOPS", "assumed": ["none"]},
    {"id": "b", "source": "s1", "profile": "vxrail-ve660-esa", "workers": {"vms": 8, "disks_per_vm": 2, "vcpus": 4},
     "fio": ["rw=randread", "bs=4k", "iodepth=4"], "policy": {"raid": "raid1", "ftt": 1}, "cluster": {"uplink": "25g"},
     "prep": {"written": 1}, "metric": "iops", "assumed": ["none"]}
  ],
  "effects": [{"id": "e", "kind": "outstanding-io", "source": "s1", "base": "a", "variant": "b", "metric": "iops", "direction": "up", "size": "not given"}]
}`

func TestValidationDataChecks(t *testing.T) {
	var good validationData
	if err := json.Unmarshal([]byte(goodValidation), &good); err != nil {
		t.Fatal(err)
	}
	if errs := good.check(validationDir); len(errs) > 0 {
		t.Fatalf("the well-formed sample is reported malformed: %v", errors.Join(errs...))
	}
	two := 2.0
	tests := []struct {
		name   string
		break_ func(v *validationData)
		want   string
	}{
		{"unknown source", func(v *validationData) { v.Cases[0].Source = "s9" }, `source "s9" is not in sources`},
		{"source cited by nothing", func(v *validationData) {
			v.Sources = append(v.Sources, validationSrc{ID: "s2", Title: "t", Publisher: "p", URL: "u", Read: "r", Says: "s"})
		}, `source "s2": no case or effect cites it`},
		{"no url and not marked not found", func(v *validationData) { v.Sources[0].URL = "" }, "no url"},
		{"duplicate case", func(v *validationData) { v.Cases[1].ID = "a" }, "used twice"},
		{"unknown metric", func(v *validationData) { v.Cases[0].Metric = "speed" }, `metric "speed"`},
		{"figure in the wrong unit", func(v *validationData) { v.Cases[0].Unit = "MB/s" }, "want a positive figure in IOPS"},
		{"no assumptions stated", func(v *validationData) { v.Cases[0].Assumed = nil }, "assumed is empty"},
		{"unknown profile", func(v *validationData) { v.Cases[0].Profile = "no-such-testbed" }, "no testbed profile"},
		{"overrides the profile refuses", func(v *validationData) {
			v.Cases[0].Overrides = json.RawMessage(`{"storage": {"disk_groups": 2}}`)
		}, "ESA has no disk groups"},
		{"no fio options", func(v *validationData) { v.Cases[0].FIO = nil }, "fio: no options"},
		{"bad policy compression", func(v *validationData) { v.Cases[0].Policy.Compression = "maybe" }, `policy.compression "maybe"`},
		{"effect on a missing case", func(v *validationData) { v.Effects[0].Variant = "z" }, `case "z" is not in cases`},
		{"unknown direction", func(v *validationData) { v.Effects[0].Direction = "sideways" }, `direction "sideways"`},
		{"same without bounds", func(v *validationData) { v.Effects[0].Direction = "same" }, "wants min_ratio and/or max_ratio"},
		{"bounds looser than the direction", func(v *validationData) { v.Effects[0].MaxRatio = &two; v.Effects[0].Direction = "down" }, ""},
		{"empty interval", func(v *validationData) { v.Effects[0].MaxRatio = &[]float64{0.5}[0] }, "leave no room"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var v validationData
			if err := json.Unmarshal([]byte(goodValidation), &v); err != nil {
				t.Fatal(err)
			}
			tc.break_(&v)
			err := errors.Join(v.check(validationDir)...)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("want no error, got %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want an error containing %q, got %v", tc.want, err)
			}
		})
	}
}

// The direction check itself: up, down and bounded effects.
func TestValidationEffectBounds(t *testing.T) {
	one, two := 1.0, 2.0
	tests := []struct {
		e     validationEffect
		ratio float64
		pass  bool
	}{
		{validationEffect{Direction: "up"}, 1.05, true},
		{validationEffect{Direction: "up"}, 1.01, false},
		{validationEffect{Direction: "down"}, 0.9, true},
		{validationEffect{Direction: "down"}, 1.0, false},
		{validationEffect{Direction: "up", MinRatio: &two}, 1.9, false},
		{validationEffect{Direction: "within", MaxRatio: &two}, 2.3, false},
		{validationEffect{Direction: "within", MaxRatio: &two}, 1.2, true},
		{validationEffect{Direction: "same", MinRatio: &one, MaxRatio: &two}, 0.99, false},
	}
	for _, tc := range tests {
		lo, hi, err := tc.e.bounds()
		if err != nil {
			t.Fatal(err)
		}
		if got := tc.ratio >= lo && tc.ratio <= hi; got != tc.pass {
			t.Errorf("%s %s at x%g: pass %v, want %v", tc.e.Direction, published(tc.e), tc.ratio, got, tc.pass)
		}
	}
}
