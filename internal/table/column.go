// Package table holds fast, correct table operations over gota DataFrames:
// typed column access, group-by and aggregation, sorting, pivots, joins and
// text output. gota stays the frame type; this package replaces its slow or
// wrong hot paths.
package table

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// Kind is the type of a column.
type Kind int

// Column kinds, in the order a mixed column is promoted (Int to Float only).
const (
	Bool Kind = iota
	Int
	Float
	String
)

var kindNames = [...]string{"bool", "int", "float", "string"}

func (k Kind) String() string { return kindNames[k] }

// ParseKind reads a kind name: bool, int, float or string.
func ParseKind(name string) (Kind, error) {
	for k, n := range kindNames {
		if n == name {
			return Kind(k), nil
		}
	}
	return 0, fmt.Errorf("unknown column type %q; want one of bool, int, float, string", name)
}

// Column is one column read out of a frame into plain Go slices. Exactly one
// of the value slices is set, by Kind. NA marks missing values; it is nil
// when none are missing. Float NA values are also NaN in Floats.
type Column struct {
	Name    string
	Kind    Kind
	Bools   []bool
	Ints    []int
	Floats  []float64
	Strings []string
	NA      []bool
}

// Len returns the number of values.
func (c *Column) Len() int {
	switch c.Kind {
	case Bool:
		return len(c.Bools)
	case Int:
		return len(c.Ints)
	case Float:
		return len(c.Floats)
	default:
		return len(c.Strings)
	}
}

// IsNA reports whether value i is missing.
func (c *Column) IsNA(i int) bool { return c.NA != nil && c.NA[i] }

// Numeric reports whether the column holds numbers.
func (c *Column) Numeric() bool { return c.Kind == Int || c.Kind == Float }

// Float returns value i as a float64 (NaN when missing or not numeric).
func (c *Column) Float(i int) float64 {
	if c.IsNA(i) {
		return math.NaN()
	}
	switch c.Kind {
	case Int:
		return float64(c.Ints[i])
	case Float:
		return c.Floats[i]
	case Bool:
		if c.Bools[i] {
			return 1
		}
		return 0
	}
	return math.NaN()
}

// Value returns value i as a Go value (bool, int, float64, string), or nil when missing.
func (c *Column) Value(i int) any {
	if c.IsNA(i) {
		return nil
	}
	switch c.Kind {
	case Bool:
		return c.Bools[i]
	case Int:
		return c.Ints[i]
	case Float:
		return c.Floats[i]
	default:
		return c.Strings[i]
	}
}

// Compare orders values i and j: -1, 0 or +1. Missing values sort after
// every present value; false sorts before true.
func (c *Column) Compare(i, j int) int {
	ni, nj := c.IsNA(i), c.IsNA(j)
	switch {
	case ni && nj:
		return 0
	case ni:
		return 1
	case nj:
		return -1
	}
	switch c.Kind {
	case Bool:
		return compareBool(c.Bools[i], c.Bools[j])
	case Int:
		return cmpOrdered(c.Ints[i], c.Ints[j])
	case Float:
		return cmpOrdered(c.Floats[i], c.Floats[j])
	default:
		return naturalCompare(c.Strings[i], c.Strings[j])
	}
}

// naturalCompare orders text as people read labels: runs of digits by
// their number, the rest character by character, so "4k" < "32k" < "64k",
// "raid5" < "raid10" and "10g" < "25g" < "100g". Text alike but for
// leading zeros ("007" and "7") falls back to plain order.
func naturalCompare(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			ei, ej := digitsEnd(a, i), digitsEnd(b, j)
			x, y := strings.TrimLeft(a[i:ei], "0"), strings.TrimLeft(b[j:ej], "0")
			if c := cmpOrdered(len(x), len(y)); c != 0 {
				return c
			}
			if c := strings.Compare(x, y); c != 0 {
				return c
			}
			i, j = ei, ej
			continue
		}
		if a[i] != b[j] {
			return cmpOrdered(a[i], b[j])
		}
		i, j = i+1, j+1
	}
	if c := cmpOrdered(len(a)-i, len(b)-j); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// digitsEnd is where the run of digits starting at i in s ends.
func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

func cmpOrdered[T int | float64 | string | byte](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Read returns the column of df called name.
func Read(df dataframe.DataFrame, name string) (*Column, error) {
	if !slices.Contains(df.Names(), name) {
		return nil, fmt.Errorf("no column %q; columns are %v", name, df.Names())
	}
	return FromSeries(df.Col(name)), nil
}

// ReadAll returns every column of df, in order.
func ReadAll(df dataframe.DataFrame) []*Column {
	cols := make([]*Column, df.Ncol())
	for i, name := range df.Names() {
		cols[i] = FromSeries(df.Col(name))
	}
	return cols
}

// FromSeries copies a gota series into a Column.
func FromSeries(s series.Series) *Column {
	n := s.Len()
	c := &Column{Name: s.Name}
	markNA := func(i int) {
		if c.NA == nil {
			c.NA = make([]bool, n)
		}
		c.NA[i] = true
	}
	switch s.Type() {
	case series.Bool:
		c.Kind, c.Bools = Bool, make([]bool, n)
		for i := range n {
			e := s.Elem(i)
			if e.IsNA() {
				markNA(i)
				continue
			}
			c.Bools[i], _ = e.Bool()
		}
	case series.Int:
		c.Kind, c.Ints = Int, make([]int, n)
		for i := range n {
			e := s.Elem(i)
			if e.IsNA() {
				markNA(i)
				continue
			}
			c.Ints[i], _ = e.Int()
		}
	case series.Float:
		c.Kind, c.Floats = Float, s.Float()
		for i, f := range c.Floats {
			if math.IsNaN(f) {
				markNA(i)
			}
		}
	default:
		c.Kind, c.Strings = String, make([]string, n)
		for i := range n {
			e := s.Elem(i)
			if e.IsNA() {
				markNA(i)
				continue
			}
			c.Strings[i] = e.String()
		}
	}
	return c
}

// Series converts the column back into a gota series.
func (c *Column) Series() series.Series {
	var s series.Series
	switch c.Kind {
	case Bool:
		s = series.New(c.Bools, series.Bool, c.Name)
	case Int:
		s = series.New(c.Ints, series.Int, c.Name)
	case Float:
		s = series.New(c.Floats, series.Float, c.Name)
	default:
		s = series.New(c.Strings, series.String, c.Name)
	}
	for i, na := range c.NA {
		if na {
			s.Elem(i).Set(nil)
		}
	}
	return s
}

// Subset returns the rows idx of the column, in that order.
func (c *Column) Subset(idx []int) *Column {
	out := &Column{Name: c.Name, Kind: c.Kind}
	switch c.Kind {
	case Bool:
		out.Bools = pick(c.Bools, idx)
	case Int:
		out.Ints = pick(c.Ints, idx)
	case Float:
		out.Floats = pick(c.Floats, idx)
	default:
		out.Strings = pick(c.Strings, idx)
	}
	if c.NA != nil {
		out.NA = pick(c.NA, idx)
	}
	return out
}

func pick[T any](v []T, idx []int) []T {
	out := make([]T, len(idx))
	for i, j := range idx {
		out[i] = v[j]
	}
	return out
}

// NewFrame builds a frame from columns of equal length. A frame with no
// columns is an empty, valid frame.
func NewFrame(cols ...*Column) (dataframe.DataFrame, error) {
	if len(cols) == 0 {
		return dataframe.DataFrame{}, nil
	}
	seen := map[string]bool{}
	ss := make([]series.Series, len(cols))
	for i, c := range cols {
		if c.Len() != cols[0].Len() {
			return dataframe.DataFrame{}, fmt.Errorf("column %q has %d values but %q has %d; columns must be the same length", c.Name, c.Len(), cols[0].Name, cols[0].Len())
		}
		if seen[c.Name] {
			return dataframe.DataFrame{}, fmt.Errorf("column %q appears twice; column names must be unique", c.Name)
		}
		seen[c.Name] = true
		ss[i] = c.Series()
	}
	df := dataframe.New(ss...)
	return df, df.Err
}

// Take returns the rows idx of df, in that order.
func Take(df dataframe.DataFrame, idx []int) (dataframe.DataFrame, error) {
	if df.Ncol() == 0 {
		return df, nil
	}
	if idx == nil {
		idx = []int{}
	}
	out := df.Subset(idx)
	return out, out.Err
}
