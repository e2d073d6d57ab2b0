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
	"strings"
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
	bin     string
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

// NewLocal returns an empty set of local servers whose data files go
// under dir ("" = a temporary directory removed at Close); Add starts them.
func NewLocal(dir, binary string) (*Local, error) {
	bin, err := (&Runner{Binary: binary}).binary()
	if err != nil {
		return nil, err
	}
	l := &Local{dir: dir, bin: bin, stopped: make(chan struct{})}
	if l.dir == "" {
		if l.dir, err = os.MkdirTemp("", "starbench-local-"); err != nil {
			return nil, err
		}
		l.ownDir = true
	}
	return l, nil
}

// StartLocal starts spec.N fio servers on distinct loopback ports and
// waits until each accepts connections. Its data files are
// <dir>/local-<i>/disk<j>.dat; fio lays them out on first use.
// Cancelling ctx stops them (Ctrl-C), as does Close.
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
	l, err := NewLocal(spec.Dir, spec.Binary)
	if err != nil {
		return nil, err
	}
	for i := 1; i <= spec.N; i++ {
		var disks []Disk
		for j := 1; j <= spec.Disks; j++ {
			disks = append(disks, Disk{Name: "disk" + strconv.Itoa(j), SizeBytes: spec.SizeBytes})
		}
		if _, err := l.Add(ctx, "local-"+strconv.Itoa(i), disks); err != nil {
			l.Close()
			return nil, err
		}
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

// Add starts one more server, for a worker called name with the given
// disks; each disk's data file is <dir>/<name>/<disk>.dat (Path is set here).
func (l *Local) Add(ctx context.Context, name string, disks []Disk) (Worker, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return Worker{}, fmt.Errorf("worker name %q: want a name usable as a directory", name)
	}
	wdir := filepath.Join(l.dir, name)
	if err := os.MkdirAll(wdir, 0o755); err != nil {
		return Worker{}, err
	}
	addr, err := l.startServer(ctx, l.bin, wdir)
	if err != nil {
		return Worker{}, fmt.Errorf("starting fio server for %s: %w", name, err)
	}
	w := Worker{Name: name, Addr: addr}
	for _, d := range disks {
		d.Path = filepath.Join(wdir, d.Name+".dat")
		// The data file exists at its size (sparse) from the start, as a
		// device does: jobs sized in percent of it (size=100%) need that.
		if err := createSized(d.Path, d.SizeBytes); err != nil {
			return Worker{}, err
		}
		w.Disks = append(w.Disks, d)
	}
	l.Workers = append(l.Workers, w)
	return w, nil
}

// createSized makes path a file of size bytes, keeping what an existing
// one holds.
func createSized(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if info, err := f.Stat(); err == nil && info.Size() < size {
		err = f.Truncate(size)
		if err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// startServer starts one server on a free loopback port, retrying when
// another process takes the port between choosing it and binding it. The
// server runs in dir, where it leaves what it writes (verify state).
func (l *Local) startServer(ctx context.Context, bin, dir string) (string, error) {
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
		cmd.Dir = dir
		cmd.SysProcAttr, cmd.WaitDelay = ownGroup(), pipeGrace
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
