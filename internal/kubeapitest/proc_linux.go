package kubeapitest

import "syscall"

// sysProcAttr kills the started programs when the test binary dies without
// running its cleanups (a panic, a timeout, ^C).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
