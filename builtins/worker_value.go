package builtins

import (
	"fmt"
	"sort"

	"go.starlark.net/starlark"

	"starbench/internal/fio"
)

// Worker is the Starlark handle of one worker: a worker VM deployed by
// vsphere.deploy_workers or a local fio server from fio.local_workers.
// It is immutable.
type Worker struct {
	w fio.Worker
	// VM is the VM's managed object reference value ("vm-42"); "" for local workers.
	VM string
}

var _ starlark.HasAttrs = (*Worker)(nil)

// NewWorker returns the handle of w.
func NewWorker(w fio.Worker, vm string) *Worker { return &Worker{w: w, VM: vm} }

// FioWorker returns the worker as the fio package sees it.
func (w *Worker) FioWorker() fio.Worker { return w.w }

func (w *Worker) String() string        { return fmt.Sprintf("worker(%q, host=%q)", w.w.Name, w.w.Host) }
func (w *Worker) Type() string          { return "worker" }
func (w *Worker) Freeze()               {}
func (w *Worker) Truth() starlark.Bool  { return starlark.True }
func (w *Worker) Hash() (uint32, error) { return starlark.String(w.w.Name).Hash() }

var workerAttrs = []string{"addr", "disks", "host", "name", "vm"}

func (w *Worker) AttrNames() []string { return workerAttrs }

func (w *Worker) Attr(name string) (starlark.Value, error) {
	switch name {
	case "name":
		return starlark.String(w.w.Name), nil
	case "host":
		return starlark.String(w.w.Host), nil
	case "addr":
		return starlark.String(w.w.Addr), nil
	case "vm":
		return starlark.String(w.VM), nil
	case "disks":
		disks := make([]starlark.Value, len(w.w.Disks))
		for i, d := range w.w.Disks {
			disks[i] = diskDict(d)
		}
		return starlark.NewList(disks), nil
	}
	return nil, nil // starlark reports "has no .x field or method" with a did-you-mean
}

func diskDict(d fio.Disk) *starlark.Dict {
	dict := starlark.NewDict(4)
	_ = dict.SetKey(starlark.String("name"), starlark.String(d.Name))
	_ = dict.SetKey(starlark.String("path"), starlark.String(d.Path))
	_ = dict.SetKey(starlark.String("size"), starlark.MakeInt64(d.SizeBytes))
	_ = dict.SetKey(starlark.String("policy"), starlark.String(d.Policy))
	dict.Freeze()
	return dict
}

// workersArg unpacks a worker or a list of workers.
type workersArg []*Worker

func (ws *workersArg) Unpack(v starlark.Value) error {
	if w, ok := v.(*Worker); ok {
		*ws = workersArg{w}
		return nil
	}
	iter, ok := v.(starlark.Iterable)
	if !ok {
		return fmt.Errorf("got %s, want a worker or a list of workers", v.Type())
	}
	it := iter.Iterate()
	defer it.Done()
	var x starlark.Value
	for it.Next(&x) {
		w, ok := x.(*Worker)
		if !ok {
			return fmt.Errorf("got a list holding %s, want only workers", x.Type())
		}
		*ws = append(*ws, w)
	}
	if len(*ws) == 0 {
		return fmt.Errorf("got an empty list, want at least one worker")
	}
	return nil
}

// fioWorkers returns the workers as the fio package sees them, sorted by name.
func (ws workersArg) fioWorkers() []fio.Worker {
	out := make([]fio.Worker, len(ws))
	for i, w := range ws {
		out[i] = w.w
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
