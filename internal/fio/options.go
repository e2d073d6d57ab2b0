package fio

//go:generate go run ./genoptions -o options_gen.go

// optionSpec is what starbench knows of one fio option.
type optionSpec struct {
	typ     string   // as `fio --cmdhelp` names it; "" for an engine's option
	engines []string // the I/O engines an engine option belongs to
}
