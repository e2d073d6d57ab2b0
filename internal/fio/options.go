package fio

import (
	"math"
	"strings"
)

//go:generate go run ./genoptions -o options_gen.go

// optionSpec is what starbench knows of one fio option.
type optionSpec struct {
	typ     string   // as `fio --cmdhelp` names it; "" for an engine's option
	engines []string // the I/O engines an engine option belongs to
	limits  *limits  // the range `fio --cmdhelp` gives its values; nil for none
	values  []string // the words `fio --cmdhelp` lists for a string option; nil for any
	bare    bool     // fio takes it alone, with no value (known for general options only)
}

// floatList says whether fio reads the option as numbers separated by ':'.
func (s optionSpec) floatList() bool { return strings.HasPrefix(s.typ, "list of floating point") }

// wholeNumber says whether fio reads the option as a whole number (a
// yes-or-no option's 0 or 1 too).
func (s optionSpec) wholeNumber() bool {
	return strings.HasPrefix(s.typ, "integer") || strings.HasPrefix(s.typ, "boolean")
}

// limits are the least and most value fio takes for an option.
type limits struct {
	min, max float64 // max is inf where fio sets no most
}

var inf = math.Inf(1)
