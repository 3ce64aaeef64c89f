//go:build !linux

package kubeapitest

import "syscall"

func sysProcAttr() *syscall.SysProcAttr { return nil }
