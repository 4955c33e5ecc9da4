//go:build unix && !linux

package gotest

import "syscall"

// dieWithParent is a no-op where the kernel has no parent-death signal;
// cancellation still kills the child's process group.
func dieWithParent(*syscall.SysProcAttr) {}
