package builtins

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.starlark.net/starlark"

	"starbench/internal/campaign"
	"starbench/internal/runtime"
	"starbench/internal/store"
)

// NewStoreModule returns the `store` module: campaign result stores.
func NewStoreModule(deps Deps) *runtime.Module {
	return &runtime.Module{
		Name: "store",
		Doc:  "campaign result stores",
		Members: []runtime.Member{
			{Name: "open", Params: "(path)", Doc: "the campaign store (.db file) at path, read-only", Fn: storeOpen},
			{Name: "current", Params: "()", Doc: "the store `starbench report SCRIPT --from DB` names", Fn: storeCurrent},
		},
	}
}

// storeFrameNames are the frames a store handle serves: the store's tables,
// "stats" and "hcibench".
var storeFrameNames = append(slices.Clone(store.FrameNames), "stats", "hcibench")

// storeValue is the Starlark handle of a campaign store, opened read-only on
// each use so a running campaign can keep writing to it.
type storeValue struct {
	path, name string
	simulated  bool
}

var _ starlark.HasAttrs = (*storeValue)(nil)

func (s *storeValue) String() string        { return fmt.Sprintf("store(%q)", s.path) }
func (s *storeValue) Type() string          { return "store" }
func (s *storeValue) Freeze()               {}
func (s *storeValue) Truth() starlark.Bool  { return starlark.True }
func (s *storeValue) Hash() (uint32, error) { return starlark.String(s.path).Hash() }
func (s *storeValue) AttrNames() []string {
	return []string{"campaign", "frame", "frames", "path", "simulated"}
}

func (s *storeValue) Attr(name string) (starlark.Value, error) {
	switch name {
	case "path":
		return starlark.String(s.path), nil
	case "campaign":
		return starlark.String(s.name), nil
	case "simulated":
		return starlark.Bool(s.simulated), nil
	case "frames":
		out := make([]starlark.Value, len(storeFrameNames))
		for i, n := range storeFrameNames {
			out[i] = starlark.String(n)
		}
		return starlark.Tuple(out), nil
	case "frame":
		return starlark.NewBuiltin("store.frame", s.frame), nil
	}
	return nil, nil
}

func (s *storeValue) frame(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	cv := starlark.Value(starlark.Float(0.05))
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "cv_threshold?", &cv); err != nil {
		return nil, err
	}
	threshold, ok := starlark.AsFloat(cv)
	if !ok || threshold < 0 {
		return nil, fmt.Errorf("cv_threshold is %s; want a fraction such as 0.05 (0 turns flagging off)", cv.String())
	}
	return storeFrame(runtime.Context(thread), s.path, name, threshold)
}

// storeFrame reads frame name of the store at path; "stats" summarises the
// repeats of every cell and workload, flagging CVs above threshold.
func storeFrame(ctx context.Context, path, name string, threshold float64) (starlark.Value, error) {
	if !slices.Contains(storeFrameNames, name) {
		return nil, fmt.Errorf("no frame %q in a campaign store; want one of %s", name, strings.Join(storeFrameNames, ", "))
	}
	st, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	switch name {
	case "stats":
		stats, err := campaign.ReadStats(ctx, st, threshold)
		if err != nil {
			return nil, err
		}
		cells := make([]string, len(stats))
		for i, s := range stats {
			cells[i] = s.Cell
		}
		factors, err := st.FactorColumns(ctx, cells)
		if err != nil {
			return nil, err
		}
		return NewFrame(campaign.StatsFrame(stats, factors)), nil
	case "hcibench":
		rows, factors, err := campaign.ReadHCIBench(ctx, st)
		if err != nil {
			return nil, err
		}
		return NewFrame(campaign.HCIBenchFrame(rows, factors)), nil
	}
	df, err := st.Frame(ctx, name)
	if err != nil {
		return nil, err
	}
	return NewFrame(df), nil
}

func openStore(ctx context.Context, path string) (*storeValue, error) {
	st, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return &storeValue{path: path, name: st.Name, simulated: st.Simulated}, nil
}

func storeOpen(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path); err != nil {
		return nil, err
	}
	return openStore(runtime.Context(thread), path)
}

func storeCurrent(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	s, err := runtime.SessionFrom(thread)
	if err != nil {
		return nil, err
	}
	if s.From == "" {
		return nil, fmt.Errorf("this session reads no store: store.current() works under `starbench report SCRIPT --from DB`; elsewhere use store.open(path)")
	}
	return openStore(runtime.Context(thread), s.From)
}
