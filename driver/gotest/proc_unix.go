//go:build unix

package gotest

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// isolate makes cmd start in its own process group and makes context
// cancellation kill that whole group rather than only the direct child.
func isolate(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	dieWithParent(cmd.SysProcAttr)
	cmd.Cancel = func() error { return killGroup(cmd) }
}

// killGroup sends SIGKILL to every process in cmd's process group. A group
// that no longer exists is not an error.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err == nil {
		return nil
	}
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
