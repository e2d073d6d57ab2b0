package fio

import (
	"os/exec"
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
// kills it if it lingers, and waits for it.
func stopGroup(cmd *exec.Cmd, done <-chan error, sig syscall.Signal) {
	pgid := cmd.Process.Pid
	_ = syscall.Kill(-pgid, sig)
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-done
	}
	// Children fio forked may outlive the leader; the group still names them.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}
