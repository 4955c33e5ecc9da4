package gotest

import "syscall"

// dieWithParent asks the kernel to kill the child when perflab dies, even
// by SIGKILL, so no benchmark (or server it started) outlives perflab.
func dieWithParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
