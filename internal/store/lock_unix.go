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
// process dies, however it dies, so a SIGKILLed run never leaves it stuck;
// unlockFile removes the file, so a clean run leaves none.
func lockFile(path string) (*os.File, error) {
	for {
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
		// The holder before us may have removed the file between our open
		// and our lock: then we hold a lock nobody else sees. Try again.
		if held, err := f.Stat(); err == nil {
			if now, err := os.Stat(path); err == nil && os.SameFile(held, now) {
				if err := f.Truncate(0); err == nil {
					_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
				}
				return f, nil
			}
		}
		f.Close()
	}
}

// unlockFile removes the lock file, then releases the lock taken by lockFile.
func unlockFile(f *os.File) error {
	_ = os.Remove(f.Name())
	return f.Close()
}

// writerAlive says whether a process holds the lock at path.
func writerAlive(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}
