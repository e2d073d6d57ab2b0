//go:build unix

package store

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// lockFile takes an exclusive advisory lock on path (created if missing) and
// writes the holder's pid into it. The kernel drops the lock when the
// process dies, however it dies, so a SIGKILLed run never leaves it stuck.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			holder := "another process"
			if b, rerr := os.ReadFile(path); rerr == nil && len(strings.TrimSpace(string(b))) > 0 {
				holder = "pid " + strings.TrimSpace(string(b))
			}
			return nil, fmt.Errorf("%w (held by %s): wait for it to finish or stop it", ErrLocked, holder)
		}
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// unlockFile releases the lock taken by lockFile.
func unlockFile(f *os.File) error {
	_ = f.Truncate(0)
	return f.Close()
}
