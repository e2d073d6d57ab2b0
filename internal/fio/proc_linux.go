package fio

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ownGroup puts a child fio in its own process group, so stopping it also
// stops what it forks, and kills it if starbench itself dies.
func ownGroup() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// pipeGrace bounds how long Wait reads a fio's output after it exited: a
// child it forked may hold the pipes open, and must not hang the caller.
const pipeGrace = 2 * time.Second

// stopGroup asks a fio process group to stop with sig (SIGINT makes a
// client tell its servers to quit; SIGTERM ends a server and its jobs),
// kills it if it lingers, and waits for it. Processes fio forked that left
// the group (a server's job process can) are signalled too, so none is
// orphaned.
func stopGroup(cmd *exec.Cmd, done <-chan error, sig syscall.Signal) {
	pgid := cmd.Process.Pid
	tree := descendants(pgid)
	signal := func(sig syscall.Signal) {
		_ = syscall.Kill(-pgid, sig)
		for _, pid := range tree {
			_ = syscall.Kill(pid, sig)
		}
	}
	signal(sig)
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		signal(syscall.SIGKILL)
		<-done
	}
	// Children fio forked may outlive the leader.
	signal(syscall.SIGKILL)
}

// descendants lists every process descended from pid, from /proc.
func descendants(pid int) []int {
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	var out []int
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(b)) {
			if child, err := strconv.Atoi(f); err == nil {
				out = append(out, child)
				out = append(out, descendants(child)...)
			}
		}
	}
	return out
}
