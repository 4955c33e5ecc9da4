//go:build !unix

package gotest

import "os/exec"

// isolate is a no-op where process groups are not available; context
// cancellation kills only the direct child.
func isolate(cmd *exec.Cmd) {}

// killGroup kills the direct child where process groups are not available.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
