package builtins

import (
	"slices"
	"sync"

	"go.starlark.net/starlark"

	"starbench/internal/runtime"
)

// inputFiles are the files beside its scripts a session read (fio job
// files), which its stores keep with their hashes as provenance.
type inputFiles struct {
	mu    sync.Mutex
	paths []string
}

var inputFilesKey = runtime.NewKey[*inputFiles]("input_files")

// noteInput records that the thread's session read the file at path.
func noteInput(thread *starlark.Thread, path string) {
	s, err := runtime.SessionFrom(thread)
	if err != nil {
		return
	}
	in, _ := runtime.Load(s, inputFilesKey, func() (*inputFiles, error) { return &inputFiles{}, nil })
	in.mu.Lock()
	defer in.mu.Unlock()
	if !slices.Contains(in.paths, path) {
		in.paths = append(in.paths, path)
	}
}

// sessionInputs returns the files the session read, in the order first read.
func sessionInputs(s *runtime.Session) []string {
	in, _ := runtime.Load(s, inputFilesKey, func() (*inputFiles, error) { return &inputFiles{}, nil })
	in.mu.Lock()
	defer in.mu.Unlock()
	return slices.Clone(in.paths)
}
