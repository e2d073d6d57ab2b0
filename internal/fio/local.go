package fio

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Local is a set of fio servers on loopback, one per worker, each with its
// own data files. Close stops them all; so does cancelling the context
// they were started with.
type Local struct {
	Workers []Worker

	dir     string
	ownDir  bool
	servers []*exec.Cmd
	dones   []chan error
	once    sync.Once
	stopped chan struct{}
}

// LocalSpec says what local workers to start.
type LocalSpec struct {
	N         int    // number of servers
	Dir       string // where data files go; "" = a temporary directory removed at Close
	SizeBytes int64  // size of each data file
	Disks     int    // data files per worker
	Binary    string // fio executable; "" = fio on PATH
}

// StartLocal starts spec.N fio servers on distinct loopback ports and
// waits until each accepts connections. Its data files are
// <dir>/local-<i>/disk<j>.dat; fio lays them out on first use.
func StartLocal(ctx context.Context, spec LocalSpec) (*Local, error) {
	if spec.N < 1 || spec.N > 256 {
		return nil, fmt.Errorf("%d local workers: want 1 to 256", spec.N)
	}
	if spec.Disks < 1 || spec.Disks > 64 {
		return nil, fmt.Errorf("%d disks per worker: want 1 to 64", spec.Disks)
	}
	if spec.SizeBytes < 1<<20 {
		return nil, fmt.Errorf("disk size %d bytes: want at least 1m", spec.SizeBytes)
	}
	bin, err := (&Runner{Binary: spec.Binary}).binary()
	if err != nil {
		return nil, err
	}
	l := &Local{dir: spec.Dir, stopped: make(chan struct{})}
	if l.dir == "" {
		if l.dir, err = os.MkdirTemp("", "starbench-local-"); err != nil {
			return nil, err
		}
		l.ownDir = true
	}
	for i := 1; i <= spec.N; i++ {
		name := "local-" + strconv.Itoa(i)
		wdir := filepath.Join(l.dir, name)
		if err := os.MkdirAll(wdir, 0o755); err != nil {
			l.Close()
			return nil, err
		}
		addr, err := l.startServer(ctx, bin)
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("starting fio server for %s: %w", name, err)
		}
		w := Worker{Name: name, Addr: addr}
		for j := 1; j <= spec.Disks; j++ {
			d := "disk" + strconv.Itoa(j)
			w.Disks = append(w.Disks, Disk{Name: d, Path: filepath.Join(wdir, d+".dat"), SizeBytes: spec.SizeBytes})
		}
		l.Workers = append(l.Workers, w)
	}
	go func() {
		select {
		case <-ctx.Done():
			l.Close()
		case <-l.stopped:
		}
	}()
	return l, nil
}

// startServer starts one server on a free loopback port, retrying when
// another process takes the port between choosing it and binding it.
func (l *Local) startServer(ctx context.Context, bin string) (string, error) {
	var lastErr error
	for range 5 {
		port, err := freePort()
		if err != nil {
			return "", err
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		var stderr bytes.Buffer
		cmd := exec.Command(bin, "--server=ip:127.0.0.1,"+strconv.Itoa(port))
		cmd.Stdout, cmd.Stderr = nil, &stderr
		cmd.SysProcAttr = ownGroup()
		if err := cmd.Start(); err != nil {
			return "", err
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		if err := waitListening(ctx, addr, done); err != nil {
			stopGroup(cmd, done, syscall.SIGTERM)
			lastErr = fmt.Errorf("%w: %s", err, bytes.TrimSpace(stderr.Bytes()))
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			continue
		}
		l.servers = append(l.servers, cmd)
		l.dones = append(l.dones, done)
		return addr, nil
	}
	return "", lastErr
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// waitListening polls addr until it accepts a connection or the server exits.
func waitListening(ctx context.Context, addr string, done <-chan error) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case err := <-done:
			return fmt.Errorf("fio server exited at start (%v)", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("fio server did not listen on %s within 10 s", addr)
		}
	}
}

// Dir is where the workers' data files are.
func (l *Local) Dir() string { return l.dir }

// Close stops every server (and what each forked) and removes the data
// directory if StartLocal created it. It is safe to call more than once.
func (l *Local) Close() {
	l.once.Do(func() {
		close(l.stopped)
		var wg sync.WaitGroup
		for i, cmd := range l.servers {
			wg.Go(func() { stopGroup(cmd, l.dones[i], syscall.SIGTERM) })
		}
		wg.Wait()
		if l.ownDir {
			os.RemoveAll(l.dir)
		}
	})
}
