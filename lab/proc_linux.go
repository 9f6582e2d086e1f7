package lab

import "syscall"

// orphanGuard has the kernel kill a worker whose supervisor died without cleaning up (itself
// SIGKILLed, say): a worker must never outlive the run that started it. Pdeathsig exists only on
// Linux; elsewhere a worker notices when the embedded broker's connection goes. The kernel sends
// it when the thread that forked the worker ends, not the process; Go ends a thread only when a
// goroutine exits while locked to it, which nothing in a lab run does.
func orphanGuard(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
