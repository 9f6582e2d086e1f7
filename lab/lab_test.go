package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"testing"
	"time"
)

// helperEnv marks the test binary re-executed as a worker process, as the site's binary is
// re-executed as `site lab-worker`.
const helperEnv = "LAB_TEST_WORKER"

// TestLabWorkerMain is not a test: it is the worker process of the tests below.
func TestLabWorkerMain(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		t.Skip("the worker process of the lab's tests")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := WorkerMain(ctx, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// workers makes Config.Command for the tests and remembers every command it made, so that a test
// can look for the processes afterwards.
type workers struct {
	mu   sync.Mutex
	cmds []*exec.Cmd
}

func (w *workers) command(ctx context.Context) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestLabWorkerMain$")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	w.mu.Lock()
	w.cmds = append(w.cmds, cmd)
	w.mu.Unlock()
	return cmd
}

func (w *workers) pids() []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	var pids []int
	for _, c := range w.cmds {
		if c.Process != nil {
			pids = append(pids, c.Process.Pid)
		}
	}
	return pids
}

func TestCrashDesignsMatchTheModel(t *testing.T) {
	for _, d := range Designs() {
		if d.IsLease() || d == PublishRetry {
			continue // no crash to match: see lease_test.go and pubretry_test.go
		}
		t.Run(string(d), func(t *testing.T) {
			var w workers
			cfg := Config{Design: d, Jobs: 400, Workers: 3, CrashRate: 0.05, Seed: 13,
				Deadline: time.Minute, ScratchDir: t.TempDir(), Command: w.command}
			var last Progress
			res, err := Run(context.Background(), cfg, func(p Progress) { last = p })
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d jobs, %d crashed, lost %d (model %d), duplicated %d (model %d), killed %d, redelivered %d, %.2f s (%.0f jobs/s), %d processes",
				d, res.Jobs, res.Crashed, res.Lost, res.ModelLost, res.Duplicated, res.ModelDuplicated,
				res.WorkersKilled, res.Redeliveries, res.Seconds, float64(res.Jobs)/res.Seconds, len(w.pids()))
			if res.Crashed == 0 {
				t.Fatal("the stream crashed no job: the test proves nothing")
			}
			if !res.MatchesModel() {
				t.Errorf("lost %d, duplicated %d; the model says %d, %d", res.Lost, res.Duplicated, res.ModelLost, res.ModelDuplicated)
			}
			if res.WorkersKilled != res.Crashed {
				t.Errorf("%d workers killed, %d jobs crashed", res.WorkersKilled, res.Crashed)
			}
			if res.Lost+res.Duplicated+res.ExactlyOnce != res.Jobs {
				t.Errorf("lost+duplicated+exactly once = %d, want %d", res.Lost+res.Duplicated+res.ExactlyOnce, res.Jobs)
			}
			// Every design but ack-before-work sends each crashed job back once.
			wantRedeliveries := res.Crashed
			if d == AckBeforeWork {
				wantRedeliveries = 0
			}
			if res.Redeliveries != wantRedeliveries {
				t.Errorf("%d redeliveries, want %d", res.Redeliveries, wantRedeliveries)
			}
			if last.Done != res.Jobs || last.WorkersKilled != res.WorkersKilled {
				t.Errorf("last progress %+v does not close the run", last)
			}
			if len(res.Events) == 0 {
				t.Error("no event log for the crashed jobs")
			}
			for _, e := range res.Events {
				t.Logf("job %d: worker %d (replaces %d), delivery %d, at %v: %s", e.Job, e.Worker, e.Replaces, e.Attempt, e.At.Round(time.Millisecond), e.What)
				// The supervisor numbers workers as it starts them: past the first Workers, each
				// is a replacement for an earlier one, and the log must say whose.
				if replaced := e.Worker > cfg.Workers; replaced != (e.Replaces > 0) || e.Replaces >= e.Worker {
					t.Errorf("job %d's worker %d of %d says it replaces worker %d", e.Job, e.Worker, cfg.Workers, e.Replaces)
				}
			}
			if res.Workers != cfg.Workers || res.CrashRate != cfg.CrashRate || res.Seed != cfg.Seed {
				t.Errorf("the result states workers %d, crash rate %v, seed %d; the run had %d, %v, %d",
					res.Workers, res.CrashRate, res.Seed, cfg.Workers, cfg.CrashRate, cfg.Seed)
			}
			assertGone(t, w.pids())
		})
	}
}

func TestCancelLeavesNothing(t *testing.T) {
	var w workers
	tmp := t.TempDir()
	cfg := Config{Design: AckAfterWork, Jobs: 2000, Workers: 3, CrashRate: 0.05, Seed: 7,
		Deadline: time.Minute, ScratchDir: tmp, Command: w.command}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	_, err := Run(ctx, cfg, func(p Progress) {
		// Cancel once work is under way and at least one worker has been killed and replaced,
		// so that the cancel meets restarted processes too.
		if p.Done > 0 && p.WorkersKilled > 0 {
			once.Do(cancel)
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	pids := w.pids()
	if len(pids) <= cfg.Workers {
		t.Errorf("%d worker processes started; the cancel met no restarted worker", len(pids))
	}
	assertGone(t, pids)
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the run left %v in its temp dir", left)
	}

	// The next run works.
	var w2 workers
	cfg.Jobs, cfg.Command = 100, w2.command
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.MatchesModel() {
		t.Errorf("after a cancel: lost %d, duplicated %d; the model says %d, %d", res.Lost, res.Duplicated, res.ModelLost, res.ModelDuplicated)
	}
	assertGone(t, w2.pids())
}

// assertGone checks that no process the run started is still alive: by the time Run returns,
// each was reaped, so its pid answers ESRCH (or, rarely, belongs to some new unrelated process,
// which cannot be in the worker's own process group).
func assertGone(t *testing.T, pids []int) {
	t.Helper()
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			if pgid, _ := syscall.Getpgid(pid); pgid == pid {
				t.Errorf("worker pid %d is still alive (kill 0: %v)", pid, err)
			}
		}
	}
}

func TestValidationNamesTheField(t *testing.T) {
	cmd := func(context.Context) *exec.Cmd { return nil }
	good := Config{Design: DedupInTx, Jobs: 10, Workers: 2, CrashRate: 0.1, Command: cmd}
	if err := good.Validate(); err != nil {
		t.Fatalf("a good config refused: %v", err)
	}
	for field, mutate := range map[string]func(*Config){
		"design":     func(c *Config) { c.Design = "lease-forever" },
		"jobs":       func(c *Config) { c.Jobs = MaxJobs + 1 },
		"workers":    func(c *Config) { c.Workers = 0 },
		"crash_rate": func(c *Config) { c.CrashRate = 1.5 },
		"ack_wait":   func(c *Config) { c.AckWait = time.Millisecond },
		"deadline":   func(c *Config) { c.Deadline = -time.Second },
		"command":    func(c *Config) { c.Command = nil },
	} {
		c := good
		mutate(&c)
		err := c.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("%s: got %v, want a FieldError naming %q", field, err, field)
		}
		if _, err := Run(context.Background(), c, nil); !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("%s: Run got %v, want a FieldError naming %q", field, err, field)
		}
	}
}
