package lab

import "syscall"

// orphanGuard has the kernel kill a worker whose supervisor died without cleaning up (itself
// SIGKILLed, say): a worker must never outlive the run that started it. Pdeathsig exists only on
// Linux; elsewhere a worker notices when the embedded broker's connection goes.
func orphanGuard(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
