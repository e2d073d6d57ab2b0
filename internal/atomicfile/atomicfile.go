// Package atomicfile writes files so that a reader never sees half of one:
// through a temporary file beside the target, renamed over it when complete.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// Write creates path's directory if needed and writes path with write,
// mode 0644; on any error the previous file (if any) is left as it was.
func Write(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
