package builtins

import (
	"github.com/go-gota/gota/dataframe"
	"go.starlark.net/starlark"
)

// Frame is the Starlark handle of a table of results (a gota DataFrame).
// It is immutable: every operation returns a new frame.
type Frame struct {
	df dataframe.DataFrame
}

var _ starlark.HasAttrs = (*Frame)(nil)

// NewFrame returns the handle of df.
func NewFrame(df dataframe.DataFrame) *Frame { return &Frame{df: df} }

// DataFrame returns the frame's table.
func (f *Frame) DataFrame() dataframe.DataFrame { return f.df }

func (f *Frame) String() string        { return f.df.String() }
func (f *Frame) Type() string          { return "frame" }
func (f *Frame) Freeze()               {}
func (f *Frame) Truth() starlark.Bool  { return f.df.Nrow() > 0 }
func (f *Frame) Hash() (uint32, error) { return 0, errUnhashable("frame") }

func (f *Frame) AttrNames() []string { return nil }

func (f *Frame) Attr(name string) (starlark.Value, error) { return nil, nil }

type errUnhashable string

func (e errUnhashable) Error() string { return "unhashable type: " + string(e) }
