package table

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/go-gota/gota/dataframe"
)

// Builder builds a frame row by row from Go values. Columns appear in the
// order first set; a column not set in a row is missing there.
//
//	var b table.Builder
//	for _, r := range rows {
//		b.Set("worker", r.Worker)
//		b.Set("iops", r.IOPS)
//		b.EndRow()
//	}
//	df, err := b.Frame()
type Builder struct {
	cols  []*Column
	index map[string]int
	rows  int
	err   error
}

// Set sets the current row's value of column name: a bool, int, int64,
// float64, string, or nil for missing. An int column that receives a float
// becomes a float column; any other change of type is an error (from Frame).
func (b *Builder) Set(name string, v any) {
	if b.err != nil {
		return
	}
	if b.index == nil {
		b.index = map[string]int{}
	}
	if x, ok := v.(int64); ok {
		v = int(x)
	}
	if x, ok := v.(float64); ok && math.IsNaN(x) {
		v = nil
	}
	k, ok := kindOf(v)
	if !ok {
		b.err = fmt.Errorf("row %d, column %q: unsupported value %v (%T); want bool, int, float, string or None", b.rows+1, name, v, v)
		return
	}
	i, seen := b.index[name]
	if !seen {
		i = len(b.cols)
		b.index[name] = i
		b.cols = append(b.cols, NAColumn(name, k, b.rows+1))
	}
	c := b.cols[i]
	c.padTo(b.rows + 1)
	if v == nil {
		return
	}
	if c.Kind != k {
		switch {
		case c.Kind == Int && k == Float:
			c = c.asFloat()
			c.NA = naOf(c)
			b.cols[i] = c
		case c.Kind == Float && k == Int:
			v, k = float64(v.(int)), Float
		case allNA(c):
			c = NAColumn(name, k, c.Len())
			b.cols[i] = c
		default:
			b.err = fmt.Errorf("row %d, column %q: %v is a %s but earlier rows hold %ss", b.rows+1, name, v, k, c.Kind)
			return
		}
	}
	c.NA[b.rows] = false
	switch k {
	case Bool:
		c.Bools[b.rows] = v.(bool)
	case Int:
		c.Ints[b.rows] = v.(int)
	case Float:
		c.Floats[b.rows] = v.(float64)
	default:
		c.Strings[b.rows] = v.(string)
	}
}

func allNA(c *Column) bool {
	for i := range c.Len() {
		if !c.IsNA(i) {
			return false
		}
	}
	return true
}

func kindOf(v any) (Kind, bool) {
	switch v.(type) {
	case nil:
		return Float, true
	case bool:
		return Bool, true
	case int:
		return Int, true
	case float64:
		return Float, true
	case string:
		return String, true
	}
	return 0, false
}

// EndRow finishes the current row.
func (b *Builder) EndRow() { b.rows++ }

// Frame returns the frame built so far.
func (b *Builder) Frame() (dataframe.DataFrame, error) {
	if b.err != nil {
		return dataframe.DataFrame{}, b.err
	}
	for _, c := range b.cols {
		c.padTo(b.rows)
		c.dropNoNA()
	}
	return NewFrame(b.cols...)
}

// padTo appends missing values until the column has n.
func (c *Column) padTo(n int) {
	for c.Len() < n {
		c.NA = append(c.NA, true)
		switch c.Kind {
		case Bool:
			c.Bools = append(c.Bools, false)
		case Int:
			c.Ints = append(c.Ints, 0)
		case Float:
			c.Floats = append(c.Floats, math.NaN())
		default:
			c.Strings = append(c.Strings, "")
		}
	}
}

func (c *Column) dropNoNA() {
	for _, na := range c.NA {
		if na {
			return
		}
	}
	c.NA = nil
}

// ReadCSV reads a CSV with a header row. types gives the kind of columns
// (others are strings); an empty cell, NA or NaN in a non-string column is
// missing.
func ReadCSV(r io.Reader, types map[string]Kind) (dataframe.DataFrame, error) {
	rd := csv.NewReader(r)
	header, err := rd.Read()
	if errors.Is(err, io.EOF) {
		return dataframe.DataFrame{}, fmt.Errorf("the CSV is empty; want a header row")
	}
	if err != nil {
		return dataframe.DataFrame{}, err
	}
	for name := range types {
		if !slices.Contains(header, name) {
			return dataframe.DataFrame{}, fmt.Errorf("types names column %q, which the CSV does not have; its columns are %v", name, header)
		}
	}
	cols := make([]*Column, len(header))
	for i, name := range header {
		k, ok := types[name]
		if !ok {
			k = String
		}
		cols[i] = &Column{Name: name, Kind: k}
	}
	for line := 2; ; line++ {
		rec, err := rd.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return dataframe.DataFrame{}, err
		}
		for i, cell := range rec {
			if err := cols[i].appendText(cell); err != nil {
				return dataframe.DataFrame{}, fmt.Errorf("line %d, column %q: %w", line, header[i], err)
			}
		}
	}
	for _, c := range cols {
		c.dropNoNA()
	}
	return NewFrame(cols...)
}

// appendText parses cell as a value of c's kind and appends it.
func (c *Column) appendText(cell string) error {
	na := c.Kind != String && (cell == "" || cell == "NA" || cell == "NaN")
	c.NA = append(c.NA, na)
	var err error
	switch c.Kind {
	case String:
		c.Strings = append(c.Strings, cell)
	case Bool:
		var v bool
		if !na {
			v, err = strconv.ParseBool(cell)
		}
		c.Bools = append(c.Bools, v)
	case Int:
		var v int
		if !na {
			v, err = strconv.Atoi(cell)
		}
		c.Ints = append(c.Ints, v)
	case Float:
		v := math.NaN()
		if !na {
			v, err = strconv.ParseFloat(cell, 64)
		}
		c.Floats = append(c.Floats, v)
	}
	if err != nil {
		return fmt.Errorf("%q is not a %s", cell, c.Kind)
	}
	return nil
}
