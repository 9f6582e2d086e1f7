// Package labweb serves the live lab: the page's part (the form and the run's progress), Run,
// Cancel and the progress box the page polls, over the instance's one Runner of lab runs, which
// the page, the workbench's "run on the lab" and a study room's host share. The command line
// ("site lab") does not use it: it calls lab.Run itself in the foreground, since its run is its
// own process's and no reader elsewhere watches it or may cancel it.
package labweb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"os/exec"
	"sync"
	"time"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/runs"
	"effectivelyonce/internal/web"
	"effectivelyonce/lab"
	"effectivelyonce/pages"
	"effectivelyonce/present"
	"effectivelyonce/workbench"
)

// Owner is who started a run, and so the only one who may cancel it: a browser, by the random
// token it keeps in a cookie (OwnerCookie). Nothing is asked of an owner but equality, so a new
// kind of client is one more kind of token; the empty owner is nobody's and never matches.
type Owner string

// NewOwner is a browser's token: 128 random bits, so that no one can guess another's.
func NewOwner() Owner {
	b := make([]byte, 16)
	rand.Read(b)
	return Owner(hex.EncodeToString(b))
}

// errLabBusy is a Run pressed while another run is under way: one run forks up to eight worker
// processes and a broker, and two at once would each slow the other past their ack waits.
var errLabBusy = errors.New("a lab run is under way")

// errLabNotYours is a Cancel from anyone but the run's owner.
var errLabNotYours = errors.New("the lab run is someone else's")

// labLimited is a Run from a client address that has started its hour's allowance of runs.
type labLimited struct{ wait time.Duration }

func (e *labLimited) Error() string {
	return fmt.Sprintf("lab runs per hour used up; next in %v", e.wait)
}

// Runner holds the instance's one lab run (the current one, or the last one, whose results the
// page keeps showing to every reader until the next run starts). The run is a background task
// (runs.Tasks, bound to one at a time), outside any request, so that a reader who closes the tab
// does not kill a run that another reader is watching; mu guards cur and what the run reports.
// Its exported fields are set before the first run (SetUnwatched makes it ready).
type Runner struct {
	mu    sync.Mutex
	cur   *runs.Task[*Run]
	tasks *runs.Tasks[*Run]
	Log   *slog.Logger
	// Command makes one worker process; tests replace it with the test binary.
	Command func(ctx context.Context) *exec.Cmd
	// Check makes the workbench check's child process (workbench.Sandbox's Command), where a
	// reader's handler's model is replayed at the redeliveries its run made: never this process.
	Check   func(ctx context.Context) *exec.Cmd
	NATSURL string
	// SinkURL is the study rooms' Postgres when DATABASE_URL names one: the lab's sink then lives
	// there too, in a schema per run. Empty: a SQLite file per run.
	SinkURL string
	// ScratchDir is the one directory every run keeps its files under (DATA_DIR/lab), swept of
	// dead runs' files at start and after each run (lab.Sweep).
	ScratchDir string
	Deadline   time.Duration
	// unwatched is how long a run goes on with no reader asking for its progress: the page polls
	// a few times a second, so a run nobody has looked at for this long has lost its last tab
	// (closed, or its connection gone) and is cancelled, workers killed and files removed. One
	// reader leaving while another still watches cancels nothing. 0 keeps no such clock: the
	// command line's process is its run's watcher. Set it with SetUnwatched.
	unwatched time.Duration
	// Starts limits the runs a client address starts in an hour (PerHour of them); nil, no limit.
	Starts  *web.RateLimiter[netip.Addr]
	PerHour int
	// Begin, when set, is told of each design as it starts (the command line says so on stderr).
	Begin func(lab.Config)
}

// Run is what a run's task keeps beside it: its parameters and owner, how far it has come, and
// how it ended (guarded by the runner's mu).
type Run struct {
	owner    Owner
	params   lab.Params
	index    int // the design running now, into params.Designs
	progress lab.Progress
	results  []lab.Result
	running  bool
	ended    string
	err      error // what ended the run early (lab.Run's error), or nil
	took     time.Duration
}

// Unwatched is how long a reader's run may go unwatched before it is cancelled (see Runner).
const Unwatched = 15 * time.Second

// SetUnwatched sets the unwatched clock (0: none), before any run starts; a Runner needs it
// called once before its first run.
func (r *Runner) SetUnwatched(d time.Duration) {
	r.unwatched = d
	r.tasks = runs.NewTasks[*Run](1, d, 0)
}

// Start begins a run owned by owner in the background. It refuses with errLabBusy while a run is
// under way, and with a *labLimited when the client address has started its hour's allowance; a
// refused run costs nothing from the allowance.
func (r *Runner) Start(p lab.Params, owner Owner, client netip.Addr) (*runs.Task[*Run], error) {
	if owner == "" {
		return nil, errors.New("lab: a run needs an owner")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	admit := func() error {
		if r.Starts != nil {
			if ok, wait := r.Starts.Allow(client); !ok {
				return &labLimited{wait: wait}
			}
		}
		return nil
	}
	run := &Run{owner: owner, params: p, running: true, progress: lab.Progress{Design: p.Designs[0], Jobs: p.Jobs}}
	// The whole run, every design of it, has the one deadline: a reader's run must end. Each run
	// is a key of its own: a second Run is refused while one is under way, never joined to it.
	t, _, err := r.tasks.Start(string(NewOwner()), r.Deadline, admit, run, func(ctx context.Context) (func(), error) {
		return nil, r.work(ctx, run)
	})
	switch {
	case errors.Is(err, runs.ErrFull):
		return nil, errLabBusy
	case errors.Is(err, runs.ErrStopped):
		return nil, errors.New("the server is shutting down")
	case err != nil:
		return nil, err
	}
	r.cur = t
	return t, nil
}

// work runs each design in turn, recording progress and results under the lock, then sweeps the
// scratch directory of anything a dead run left there.
func (r *Runner) work(ctx context.Context, run *Run) error {
	started := time.Now()
	var failed error
	ended := fmt.Sprintf("Finished: %s on %s jobs.", present.Plural(int64(len(run.params.Designs)), "design", "designs"), experiments.Thousands(run.params.Jobs))
	if run.params.Handler != nil {
		ended = fmt.Sprintf("Finished: your handler on %s jobs.", experiments.Thousands(run.params.Jobs))
	}
	for i, d := range run.params.Designs {
		r.mu.Lock()
		run.index, run.progress = i, lab.Progress{Design: d, Jobs: run.params.Jobs}
		r.mu.Unlock()
		cfg := run.params.Config(d)
		cfg.NATSURL, cfg.SinkURL, cfg.ScratchDir, cfg.Command = r.NATSURL, r.SinkURL, r.ScratchDir, r.Command
		if cfg.Handler != nil && cfg.Handler.Check == nil && r.Check != nil {
			cfg.Handler.Check = workbench.Sandbox{Command: r.Check}.CheckReplay
		}
		if r.Begin != nil {
			r.Begin(cfg)
		}
		res, err := lab.Run(ctx, cfg, func(p lab.Progress) {
			r.mu.Lock()
			run.progress = p
			r.mu.Unlock()
		})
		var he *lab.HandlerError
		if err != nil {
			failed = fmt.Errorf("%s: %w", d, err)
			r.mu.Lock()
			run.err = failed
			r.mu.Unlock()
			switch {
			case errors.Is(err, context.Canceled) && errors.Is(context.Cause(ctx), runs.ErrAbandoned):
				ended = fmt.Sprintf("Cancelled: nobody had watched the run for %v, so every worker process was killed and the run's files removed.", r.unwatched)
			case errors.Is(err, context.Canceled):
				ended = "Cancelled: every worker process was killed and the run's files removed."
			case errors.Is(err, context.DeadlineExceeded), errors.Is(err, lab.ErrDeadline):
				ended = fmt.Sprintf("Stopped: the run passed its deadline of %v.", r.Deadline)
			case errors.As(err, &he):
				// The reader's mistake, not the server's: said in the workbench's words, not logged.
				ended = fmt.Sprintf("Stopped: your handler failed in worker %d: %s. Every worker process was killed and the run's files removed.", he.Worker, he.Code.Error())
			default:
				ended = "Failed: " + err.Error()
				r.Log.Error("lab run", "design", d, "err", err)
			}
			break
		}
		r.mu.Lock()
		run.results = append(run.results, res)
		r.mu.Unlock()
	}
	r.Sweep(context.WithoutCancel(ctx))
	r.mu.Lock()
	run.running, run.ended, run.took = false, ended, time.Since(started)
	r.mu.Unlock()
	return failed
}

// Sweep removes what runs that are gone (a site killed mid-run, in this directory's past or in
// another process) left under the scratch directory, and logs what it could not.
func (r *Runner) Sweep(ctx context.Context) {
	n, err := lab.Sweep(ctx, r.ScratchDir, r.NATSURL, r.SinkURL)
	if n > 0 {
		r.Log.Info("lab: removed the files of runs that are gone", "runs", n, "dir", r.ScratchDir)
	}
	if err != nil {
		r.Log.Error("lab: sweep", "dir", r.ScratchDir, "err", err)
	}
}

// Cancel cancels the run named id for its owner and waits until its workers are gone. A stale
// page's Cancel names an older run, or one that has ended, and cancels nothing (false, nil); a
// Cancel from anyone but the owner is errLabNotYours, and the run goes on.
func (r *Runner) Cancel(id string, owner Owner) (bool, error) {
	r.mu.Lock()
	t := r.cur
	if t == nil || t.ID != id || !t.Data.running {
		r.mu.Unlock()
		return false, nil
	}
	if owner == "" || t.Data.owner != owner {
		r.mu.Unlock()
		return false, errLabNotYours
	}
	r.mu.Unlock()
	t.Cancel()
	t.Wait() // Run has killed the workers and removed its files by now
	return true, nil
}

// retryAfter guesses how long the current run has left from how far it has come, for the 409's
// Retry-After and the "you can start your own" line; a run that has barely begun counts as
// taking its share of the deadline.
func (r *Runner) retryAfter() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.left(r.cur)
}

// left is retryAfter for t, with r.mu held.
func (r *Runner) left(t *runs.Task[*Run]) time.Duration {
	if t == nil || !t.Data.running {
		return time.Second
	}
	run := t.Data
	elapsed := time.Since(t.Started())
	frac := (float64(run.index) + float64(run.progress.Done)/float64(max(1, run.params.Jobs))) / float64(len(run.params.Designs))
	if frac < 0.05 {
		return 10 * time.Second
	}
	left := time.Duration(float64(elapsed) * (1 - frac) / frac)
	return min(max(left, time.Second), r.Deadline)
}

// Status is the run as viewer sees it (their own, or someone else's), or nil before the first
// run. Asking counts as watching: the run is not abandoned while anyone looks.
func (r *Runner) Status(site pages.Site, viewer Owner) *pages.LabStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.cur
	if t == nil {
		return nil
	}
	t.Watch()
	run := t.Data
	st := &pages.LabStatus{ID: t.ID, Running: run.running, Ended: run.ended, Yours: viewer != "" && viewer == run.owner,
		Design: run.progress.Design.Label(), Index: run.index + 1, Count: len(run.params.Designs),
		Jobs: run.params.Jobs, Done: run.progress.Done, Killed: run.progress.WorkersKilled, Redelivered: run.progress.Redeliveries,
		Elapsed: pages.LabDuration(time.Since(t.Started())), Settings: run.params.Settings(),
		ProgressURL: site.URL("/lab/progress"), CancelURL: site.URL("/lab/cancel"), PageURL: labPermalink(site, run.params) + "#lab-status",
		FormURL: labPermalink(site, run.params) + "#lab"}
	if run.params.Handler != nil {
		// A reader's handler has no permalink on the lab's form: its page shows whatever run is
		// the instance's, and the handler's source stays in the workbench.
		st.PageURL, st.FormURL = site.URL("/lab")+"#lab-status", ""
	}
	if run.running {
		st.Left = pages.LabWait(r.left(t))
	} else {
		st.Elapsed = pages.LabDuration(run.took)
	}
	for _, res := range run.results {
		st.Results = append(st.Results, pages.NewLabResult(res, site))
	}
	return st
}

// labPermalink is the lab page with p in its form: what the page's address says after a run,
// so that a reload, a bookmark or a shared link puts the same values in the form.
func labPermalink(site pages.Site, p lab.Params) string {
	return site.URL("/lab") + "?" + p.Query().Encode()
}

// Stop cancels the current run and waits for it, at shutdown: its workers are killed and its
// files removed before the server exits. Nothing starts after it.
func (r *Runner) Stop() {
	r.tasks.Stop()
	if r.Starts != nil {
		r.Starts.Close()
	}
}

// Current is the current or last run, or nil before the first.
func (r *Runner) Current() *runs.Task[*Run] {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur
}

// Owner is who started the run.
func (run *Run) Owner() Owner { return run.owner }

// Outcome is what t's run has come to: the designs' results so far, the sentence the page shows
// once it has ended ("" before), and what ended it early (lab.Run's error), or nil.
func (r *Runner) Outcome(t *runs.Task[*Run]) (results []lab.Result, ended string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]lab.Result(nil), t.Data.results...), t.Data.ended, t.Data.err
}
