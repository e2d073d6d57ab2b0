package spell

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"iodepth", "iodepth", 0},
		{"iodepht", "iodepth", 2}, // two letters swapped: two substitutions
		{"iodeph", "iodepth", 1},  // one left out
		{"runtimes", "runtime", 1},
		{"kitten", "sitting", 3},
		{"", "abc", 3},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Distance(c.b, c.a); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", c.b, c.a, got, c.want)
		}
	}
}

func TestNearest(t *testing.T) {
	names := []string{"deploy_workers", "destroy_workers", "hosts"}
	for _, c := range []struct{ name, want string }{
		{"deploy_worker", "deploy_workers"},
		{"destroy_wrkers", "destroy_workers"},
		{"host", "hosts"},
		{"cluster", ""}, // nothing within half its length
		{"", ""},
	} {
		if got := Nearest(c.name, names); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	// Of candidates equally close, the first.
	if got := Nearest("ab", []string{"ax", "ay"}); got != "ax" {
		t.Errorf(`Nearest("ab") = %q, want "ax"`, got)
	}
}
