package workbench

import (
	"fmt"
	"os"
	goruntime "runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// orphanGuard has the kernel kill a child whose parent died without cleaning up: a check must
// never outlive the server that started it.
func orphanGuard(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// limitSelf puts the child's limits on itself. It runs first thing in ChildMain, before the
// request (and so the reader's code) is even read. Address space: Starlark reserves 4 GiB of it
// for small ints when its package loads, and the Go runtime reserves some too, so the limit is what
// the process already holds plus room for the heap.
func limitSelf() error {
	cpu := uint64(DefaultDeadline/time.Second) + 5
	limits := []struct {
		res int
		val uint64
	}{
		{syscall.RLIMIT_CPU, cpu},
		{syscall.RLIMIT_NOFILE, 32},
		{syscall.RLIMIT_CORE, 0},
		{syscall.RLIMIT_AS, vmSize() + 2*memoryLimit},
	}
	for _, l := range limits {
		if err := syscall.Setrlimit(l.res, &syscall.Rlimit{Cur: l.val, Max: l.val}); err != nil {
			return fmt.Errorf("rlimit %d: %w", l.res, err)
		}
	}
	debug.SetMemoryLimit(memoryLimit / 2)
	return nil
}

// vmSize is the process's virtual memory size now, from /proc/self/status.
func vmSize() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 6 << 30
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmSize:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 6 << 30
}

// watchMemory ends the child with a clear answer when its heap passes the limit: a builtin that
// allocates a huge list takes no Starlark steps, so only the heap shows it coming.
func watchMemory(stdout *answer) (stop func()) {
	return watchHeap(func(ce *CodeError) { stdout.write(response{Code: ce}) })
}

// watchHeap calls over with the memory limit's message and ends the process once the heap passes
// memoryLimit.
func watchHeap(over func(*CodeError)) (stop func()) {
	done := make(chan struct{})
	var once sync.Once
	go func() {
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		var ms goruntime.MemStats
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			goruntime.ReadMemStats(&ms)
			if ms.HeapAlloc > memoryLimit {
				over(&CodeError{Msg: fmt.Sprintf("the handler used more than %s MiB of memory, a check's limit", thousands(memoryLimit>>20))})
				os.Exit(0)
			}
		}
	}()
	return func() { once.Do(func() { close(done) }) }
}

// GuardMemory puts a check's memory limits on a process that runs a reader's handler outside a
// check's child, such as a live lab worker: the same address-space limit and Go memory limit, and
// the same watch of the heap, which past the limit calls over with the message a check gives and
// ends the process (exit status 0: over is how it tells its parent). The CPU and file limits stay
// the child's alone, since such a process outlives one check.
func GuardMemory(over func(*CodeError)) (stop func(), err error) {
	as := vmSize() + 2*memoryLimit
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: as, Max: as}); err != nil {
		return nil, fmt.Errorf("rlimit address space: %w", err)
	}
	debug.SetMemoryLimit(memoryLimit / 2)
	return watchHeap(over), nil
}
