package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"effectivelyonce/experiments"
	"effectivelyonce/lab"
	"effectivelyonce/pages"
)

// labParams is one press of Run on /lab: the designs to run one after the other, on one stream.
type labParams struct {
	Designs   []lab.Design
	Jobs      int64
	Workers   int
	CrashRate float64
	Seed      int64
	// FireAndForget runs the workers with plain acks (lab.Config.FireAndForgetAcks).
	FireAndForget bool
}

// The form's defaults: a run of a few seconds whose stream crashes about twenty jobs.
const (
	labDefaultJobs    = 400
	labDefaultWorkers = 3
	labDefaultRate    = 0.05
	labDefaultSeed    = 13
)

// errLabBusy is a Run pressed while another run is under way: one run forks up to eight worker
// processes and a broker, and two at once would each slow the other past their ack waits.
var errLabBusy = errors.New("a lab run is under way")

// labRunner holds the instance's one lab run (the current one, or the last one, whose results
// the page keeps showing to every reader until the next run starts). Everything in it is
// guarded by mu; the run itself works in a goroutine of its own, outside any request, so that a
// reader who closes the tab does not kill a run that another reader is watching.
type labRunner struct {
	mu      sync.Mutex
	cur     *labRun
	stopped bool
	wg      sync.WaitGroup
	// command makes one worker process; tests replace it with the test binary.
	command func(ctx context.Context) *exec.Cmd
	natsURL string
	// sinkURL is the study rooms' Postgres when DATABASE_URL names one: the lab's sink then lives
	// there too, in a schema per run. Empty: a SQLite file per run.
	sinkURL string
	// tempDir is where each design's scratch directory is made ("" for the system's).
	tempDir  string
	deadline time.Duration
	// unwatched is how long a run goes on with no reader asking for its progress: the page polls
	// a few times a second, so a run nobody has looked at for this long has lost its last tab
	// (closed, or its connection gone) and is cancelled, workers killed and files removed. One
	// reader leaving while another still watches cancels nothing.
	unwatched time.Duration
}

// labRun is one run: its parameters, how far it has come, and how it ended.
type labRun struct {
	id       string
	params   labParams
	started  time.Time
	cancel   context.CancelFunc
	done     chan struct{}
	index    int // the design running now, into params.Designs
	progress lab.Progress
	results  []lab.Result
	running  bool
	ended    string
	took     time.Duration
	watched  time.Time // when a reader last asked for this run's progress
	// abandoned marks a run cancelled because nobody was watching it.
	abandoned bool
}

// siteLabWorker is the worker process of the real site: its own binary as `site lab-worker`.
func siteLabWorker(ctx context.Context) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return exec.CommandContext(ctx, exe, "lab-worker")
}

func newLabRunner(cfg config) *labRunner {
	return &labRunner{command: siteLabWorker, natsURL: cfg.LabNATSURL, sinkURL: cfg.DatabaseURL, deadline: lab.DefaultDeadline, unwatched: labUnwatched}
}

// labUnwatched is how long a run may go unwatched before it is cancelled (see labRunner).
const labUnwatched = 15 * time.Second

// watch cancels run once nobody has asked for its progress for r.unwatched.
func (r *labRunner) watch(run *labRun) {
	t := time.NewTicker(r.unwatched / 4)
	defer t.Stop()
	for {
		select {
		case <-run.done:
			return
		case <-t.C:
			r.mu.Lock()
			idle := run.running && time.Since(run.watched) > r.unwatched
			if idle {
				run.abandoned = true
			}
			r.mu.Unlock()
			if idle {
				run.cancel()
				return
			}
		}
	}
}

// start begins a run in the background, or refuses with errLabBusy while one is under way.
func (r *labRunner) start(p labParams) (*labRun, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return nil, errors.New("the server is shutting down")
	}
	if r.cur != nil && r.cur.running {
		return nil, errLabBusy
	}
	// The whole run, every design of it, has the one deadline: a reader's run must end.
	ctx, cancel := context.WithTimeout(context.Background(), r.deadline)
	run := &labRun{id: newRunID(), params: p, started: time.Now(), cancel: cancel, done: make(chan struct{}), running: true,
		progress: lab.Progress{Design: p.Designs[0], Jobs: p.Jobs}, watched: time.Now()}
	r.cur = run
	r.wg.Add(1)
	go r.work(ctx, run)
	go r.watch(run)
	return run, nil
}

func newRunID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// work runs each design in turn, recording progress and results under the lock.
func (r *labRunner) work(ctx context.Context, run *labRun) {
	defer r.wg.Done()
	defer close(run.done)
	defer run.cancel()
	ended := fmt.Sprintf("Finished: %d designs on %s jobs.", len(run.params.Designs), experiments.Thousands(run.params.Jobs))
	for i, d := range run.params.Designs {
		r.mu.Lock()
		run.index, run.progress = i, lab.Progress{Design: d, Jobs: run.params.Jobs}
		r.mu.Unlock()
		cfg := lab.Config{Design: d, Jobs: run.params.Jobs, Workers: run.params.Workers, CrashRate: run.params.CrashRate,
			Seed: run.params.Seed, FireAndForgetAcks: run.params.FireAndForget, NATSURL: r.natsURL, SinkURL: r.sinkURL, TempDir: r.tempDir, Command: r.command}
		res, err := lab.Run(ctx, cfg, func(p lab.Progress) {
			r.mu.Lock()
			run.progress = p
			r.mu.Unlock()
		})
		if err != nil {
			switch {
			case errors.Is(err, context.Canceled) && run.isAbandoned(&r.mu):
				ended = fmt.Sprintf("Cancelled: nobody had watched the run for %v, so every worker process was killed and the run's files removed.", r.unwatched)
			case errors.Is(err, context.Canceled):
				ended = "Cancelled: every worker process was killed and the run's files removed."
			case errors.Is(err, context.DeadlineExceeded), errors.Is(err, lab.ErrDeadline):
				ended = fmt.Sprintf("Stopped: the run passed its deadline of %v.", r.deadline)
			default:
				ended = "Failed: " + err.Error()
			}
			break
		}
		r.mu.Lock()
		run.results = append(run.results, res)
		r.mu.Unlock()
	}
	r.mu.Lock()
	run.running, run.ended, run.took = false, ended, time.Since(run.started)
	r.mu.Unlock()
}

func (run *labRun) isAbandoned(mu *sync.Mutex) bool {
	mu.Lock()
	defer mu.Unlock()
	return run.abandoned
}

// cancel cancels the run named id, if it is the current one and still running. A stale page's
// Cancel names an older run and cancels nothing.
func (r *labRunner) cancelRun(id string) bool {
	r.mu.Lock()
	run := r.cur
	r.mu.Unlock()
	if run == nil || run.id != id {
		return false
	}
	run.cancel()
	<-run.done // Run has killed the workers and removed its files by now
	return true
}

// retryAfter guesses how long the current run has left from how far it has come, for the 409's
// Retry-After; a run that has barely begun counts as taking its share of the deadline.
func (r *labRunner) retryAfter() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	run := r.cur
	if run == nil || !run.running {
		return time.Second
	}
	elapsed := time.Since(run.started)
	frac := (float64(run.index) + float64(run.progress.Done)/float64(max(1, run.params.Jobs))) / float64(len(run.params.Designs))
	if frac < 0.05 {
		return 10 * time.Second
	}
	left := time.Duration(float64(elapsed) * (1 - frac) / frac)
	return min(max(left, time.Second), r.deadline)
}

// status is the run as the page shows it, or nil before the first run.
func (r *labRunner) status(site pages.Site) *pages.LabStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	run := r.cur
	if run == nil {
		return nil
	}
	run.watched = time.Now() // a reader is looking: the run is not abandoned
	st := &pages.LabStatus{ID: run.id, Running: run.running, Ended: run.ended,
		Design: pages.LabDesignLabel(run.progress.Design), Index: run.index + 1, Count: len(run.params.Designs),
		Jobs: run.params.Jobs, Done: run.progress.Done, Killed: run.progress.WorkersKilled, Redelivered: run.progress.Redeliveries,
		Elapsed: pages.LabDuration(time.Since(run.started)), ProgressURL: site.URL("/lab/progress"), CancelURL: site.URL("/lab/cancel"), PageURL: site.URL("/lab") + "#lab-status"}
	if !run.running {
		st.Elapsed = pages.LabDuration(run.took)
	}
	for _, res := range run.results {
		st.Results = append(st.Results, pages.NewLabResult(res))
	}
	return st
}

// stop cancels the current run and waits for it, at shutdown: its workers are killed and its
// files removed before the server exits. Nothing starts after it.
func (r *labRunner) stop() {
	r.mu.Lock()
	r.stopped = true
	run := r.cur
	r.mu.Unlock()
	if run != nil {
		run.cancel()
	}
	r.wg.Wait()
}
