//go:build !linux

package workbench

import (
	"errors"
	"syscall"
)

// orphanGuard: this system has no parent-death signal.
func orphanGuard(*syscall.SysProcAttr) {}

// limitSelf: the rlimits the sandbox relies on are set only on Linux, the system the site is
// built and deployed on; elsewhere a check refuses to run a reader's code.
func limitSelf() error { return errors.New("the workbench's sandbox needs Linux") }

func watchMemory(*answer) func() { return func() {} }

// GuardMemory: see sandbox_linux.go; elsewhere a reader's handler is refused outside a check too.
func GuardMemory(func(*CodeError)) (func(), error) {
	return nil, errors.New("the workbench's memory limits need Linux")
}
