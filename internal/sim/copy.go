package sim

import (
	"bytes"
	"fmt"
	"reflect"

	"github.com/vmware/govmomi/vim25/types"
	"github.com/vmware/govmomi/vim25/xml"

	"starbench/internal/deepcopy"
)

// copyAs returns a deep copy of v as a value of type t. Of the same type it
// copies by reflection; of another type (a request or response type of our
// own, such as vsanext's, against the stock one) it converts through XML,
// as the wire would.
func copyAs(v reflect.Value, t reflect.Type) reflect.Value {
	if v.Type() == t {
		return deepcopy.Value(v)
	}
	b, err := xml.Marshal(v.Interface())
	if err != nil {
		panic(fmt.Sprintf("internal error: encoding %s for %s: %v", v.Type(), t, err))
	}
	out := reflect.New(t)
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.TypeFunc = types.TypeFunc()
	if err := dec.Decode(out.Interface()); err != nil {
		panic(fmt.Sprintf("internal error: decoding %s as %s: %v", v.Type(), t, err))
	}
	return out.Elem()
}
