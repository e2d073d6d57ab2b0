package campaign

import (
	"errors"
	"math"
	"testing"

	"starbench/internal/store"
)

func repeats(iops ...float64) []store.Aggregate {
	var aggs []store.Aggregate
	for i, v := range iops {
		a := store.Aggregate{RunKey: store.RunKey{Cell: "x", Workload: "4k", Repeat: i + 1}}
		a.Direction, a.IOPS = "read", v
		aggs = append(aggs, a)
	}
	return aggs
}

// TestStatsAtTheEdges: two repeats have a sample deviation, one has none;
// a CV equal to the threshold is not above it, a threshold of 0 flags
// nothing, and repeats of no IOPS have a CV of 0, not NaN.
func TestStatsAtTheEdges(t *testing.T) {
	two := Stats(repeats(90, 110), 0.05)[0]
	if two.N != 2 || two.MeanIOPS != 100 || math.Abs(two.StdIOPS-math.Sqrt(200)) > 1e-9 || !two.Flagged {
		t.Errorf("two repeats %+v: want mean 100, std sqrt(200), flagged", two)
	}
	if one := Stats(repeats(90), 0.05)[0]; one.StdIOPS != 0 || one.CV != 0 || one.Flagged {
		t.Errorf("one repeat %+v: want no deviation and no flag", one)
	}
	if at := Stats(repeats(90, 100, 110), 0.1)[0]; at.CV != 0.1 || at.Flagged {
		t.Errorf("CV at the threshold %+v: want not flagged", at)
	}
	if off := Stats(repeats(90, 100, 110), 0)[0]; off.Flagged {
		t.Errorf("threshold 0 %+v: want no flag", off)
	}
	if zero := Stats(repeats(0, 0), 0.05)[0]; zero.CV != 0 || zero.Flagged {
		t.Errorf("no IOPS %+v: want CV 0", zero)
	}
}

// TestParseTokenLevels: a stored original names a level from 0 to the
// last, or JSON text; anything else cannot be restored.
func TestParseTokenLevels(t *testing.T) {
	f := Factor{Name: "uplink", Levels: []string{"10g", "25g"}}
	for tok, want := range map[string]int{"level:0": 0, "level:1": 1} {
		if got, err := ParseToken(f, tok); err != nil || got.Level != want || got.IsJSON {
			t.Errorf("%s: %+v %v, want level %d", tok, got, err, want)
		}
	}
	if got, err := ParseToken(f, `json:{"mtu":9000}`); err != nil || got.Level != -1 || !got.IsJSON || got.JSON != `{"mtu":9000}` {
		t.Errorf("json token: %+v %v", got, err)
	}
	for _, tok := range []string{"level:-1", "level:2", "level:x", "pending", ""} {
		if _, err := ParseToken(f, tok); !errors.Is(err, ErrUnrestorable) {
			t.Errorf("%q: %v, want ErrUnrestorable", tok, err)
		}
	}
}
