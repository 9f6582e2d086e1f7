package sitetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"

	"effectivelyonce/lab"
	"effectivelyonce/workbench"
)

// RunChild makes a test binary stand in for the site's own processes: started as "lab-worker" it
// is a lab run's worker, as workbench.ChildCommand a check's sandbox; it then runs that and
// exits. A TestMain calls it first; it returns at once in the test binary itself.
func RunChild() {
	if len(os.Args) < 2 {
		return
	}
	var err error
	switch os.Args[1] {
	case "lab-worker":
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err = lab.WorkerMain(ctx, os.Getenv)
		stop()
	case workbench.ChildCommand:
		err = workbench.ChildMain(context.Background(), os.Stdin, os.Stdout)
	default:
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Child starts this test binary as command (see RunChild).
func Child(command string) func(context.Context) *exec.Cmd {
	return func(ctx context.Context) *exec.Cmd {
		exe, err := os.Executable()
		if err != nil {
			exe = os.Args[0]
		}
		return exec.CommandContext(ctx, exe, command)
	}
}

// Workers starts this test binary as the lab's worker and remembers every process it started,
// so that a test can check that none is left.
type Workers struct {
	mu   sync.Mutex
	cmds []*exec.Cmd
}

// Command starts one worker; it is a labweb.Runner's Command.
func (w *Workers) Command(ctx context.Context) *exec.Cmd {
	cmd := Child("lab-worker")(ctx)
	w.mu.Lock()
	w.cmds = append(w.cmds, cmd)
	w.mu.Unlock()
	return cmd
}

// Alive lists the worker processes still running: a pid that answers signal 0 and still leads
// its own process group (a reused pid would belong to another group).
func (w *Workers) Alive() []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []int
	for _, c := range w.cmds {
		if c.Process == nil {
			continue
		}
		pid := c.Process.Pid
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			if pgid, _ := syscall.Getpgid(pid); pgid == pid {
				out = append(out, pid)
			}
		}
	}
	return out
}

// Started is how many worker processes it has started.
func (w *Workers) Started() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.cmds)
}
