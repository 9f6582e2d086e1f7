package labweb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"effectivelyonce/lab"
)

// TestMain lets this test binary stand in for "site lab-worker", the lab's worker process.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "lab-worker" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := lab.WorkerMain(ctx, os.Getenv)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// workers starts this test binary as the lab's worker and remembers every process it started.
type workers struct {
	mu   sync.Mutex
	cmds []*exec.Cmd
}

func (w *workers) command(ctx context.Context) *exec.Cmd {
	exe, _ := os.Executable()
	cmd := exec.CommandContext(ctx, exe, "lab-worker")
	w.mu.Lock()
	w.cmds = append(w.cmds, cmd)
	w.mu.Unlock()
	return cmd
}

// alive lists the worker processes still running: a pid that answers signal 0 and still leads
// its own process group (a reused pid would belong to another group).
func (w *workers) alive() []int {
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

// TestRunNobodyWatchesIsCancelled checks the lab's answer to a reader who closes the tab: a run
// whose progress nobody asks for is cancelled, its workers killed, instead of running on.
func TestRunNobodyWatchesIsCancelled(t *testing.T) {
	w := &workers{}
	r := &Runner{Command: w.command, ScratchDir: t.TempDir(), Deadline: lab.DefaultDeadline,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	r.SetUnwatched(400 * time.Millisecond)
	t.Cleanup(r.Stop)
	p := lab.DefaultParams()
	p.Designs, p.Jobs, p.Workers = []lab.Design{lab.AckAfterWork}, 5000, 2
	run, err := r.Start(p, NewOwner(), netip.Addr{})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-run.Finished():
	case <-time.After(30 * time.Second):
		t.Fatal("an unwatched run was not cancelled")
	}
	_, ended, _ := r.Outcome(run)
	_, _, abandoned := run.State()
	if !abandoned || !strings.Contains(ended, "nobody had watched") {
		t.Errorf("ended %q (abandoned %v), want it cancelled for want of a reader", ended, abandoned)
	}
	if alive := w.alive(); len(alive) > 0 {
		t.Errorf("workers %v outlived the cancelled run", alive)
	}
	if r.Current() != run {
		t.Error("the runner does not keep the run it ended as its last")
	}
}
