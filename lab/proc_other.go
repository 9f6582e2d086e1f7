//go:build !linux

package lab

import "syscall"

// orphanGuard: see proc_linux.go; this system has no parent-death signal.
func orphanGuard(*syscall.SysProcAttr) {}
