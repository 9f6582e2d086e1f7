package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"effectivelyonce/experiments"
	"effectivelyonce/pages"
)

// A page's spread over seeds runs in the background, because a hundred runs can take longer than a
// reader should stare at a blank block: the page shows the single run at once with a progress box
// that polls, and the banded block replaces it when the summary is ready. These bound that work.
const (
	// maxSpreadJobs is how many spreads run at once; each also holds one heavy slot while it runs.
	maxSpreadJobs = 3
	// spreadUnwatched is how long a spread goes on with nobody polling its progress: a reader who
	// closed the tab should not leave a hundred runs behind.
	spreadUnwatched = 10 * time.Second
	// spreadKept is how long a finished or cancelled job still answers its progress box.
	spreadKept = time.Minute
)

// spreadJob is one background spread: a page asked for it, its progress box polls it.
type spreadJob struct {
	id     string
	key    string
	n      int
	field  string // the query key that asked for it, dropped from back after a cancel without script
	back   string // the block's permalink, which shows the banded block once the summary is cached
	block  string // the block's DOM id
	done   atomic.Int64
	cancel context.CancelFunc

	mu      sync.Mutex
	state   string // "running", "done", "cancelled" or "failed"
	note    string // why it failed
	stopped int    // runs done when it stopped early
	ended   time.Time
	watched time.Time
}

// snapshot is the job as its progress box shows it.
func (j *spreadJob) snapshot(base string) pages.SpreadProgress {
	j.mu.Lock()
	defer j.mu.Unlock()
	p := pages.SpreadProgress{ID: j.id, Done: int(j.done.Load()), N: j.n, Block: j.block, ReloadURL: j.back,
		PollURL: base + "/spread/progress?id=" + j.id, CancelURL: base + "/spread/cancel?id=" + j.id}
	switch j.state {
	case "running":
		p.Running = true
	case "done":
		p.Finished = true
	case "cancelled":
		p.Note = fmt.Sprintf("Cancelled after %d of %d seeds; the block shows the form's own run.", j.stopped, j.n)
	default:
		p.Note = j.note
	}
	return p
}

// spreads is the server's background spreads and the summaries they made.
type spreads struct {
	mu    sync.Mutex
	jobs  map[string]*spreadJob // by id, running and recently ended
	byKey map[string]*spreadJob // the running job of each key, so a reload joins it
	// root ends at shutdown, taking every job with it.
	root context.Context
	stop context.CancelFunc
	// watching is set while a goroutine looks for unwatched and old jobs.
	watching  bool
	unwatched time.Duration
	// results keeps the summaries, in the runner's result cache beside the single runs: a summary
	// is as deterministic as a run, and one cache bounded in bytes holds both.
	results *resultCache
}

func newSpreads(results *resultCache) *spreads {
	root, stop := context.WithCancel(context.Background())
	return &spreads{jobs: map[string]*spreadJob{}, byKey: map[string]*spreadJob{}, root: root, stop: stop,
		unwatched: spreadUnwatched, results: results}
}

// spreadKey names a spread: the experiment's canonical parameters and the number of seeds. No
// run's key (experiments.Experiment.Key) has a spread in it, so the two share the cache safely.
func spreadKey(e *experiments.Experiment, p any, n int) string {
	return fmt.Sprintf("%s&spread=%d", e.Key(p), n)
}

// cached returns a computed summary.
func (sp *spreads) cached(key string) (experiments.SpreadResult, bool) {
	v, ok := sp.results.get(key)
	res, isSpread := v.(experiments.SpreadResult)
	return res, ok && isSpread
}

// remember keeps a summary until the result cache needs its room.
func (sp *spreads) remember(key string, res experiments.SpreadResult) {
	sp.results.add(key, res, false)
}

// spreadNow runs a spread of n seeds of e on p under the shared run limits: one heavy slot for
// the whole spread, costed as n runs, with memory for as many runs at once as it has workers.
// Progress, when set, hears of each run done; the test-only pace slows each run down.
func (s *server) spreadNow(ctx context.Context, e *experiments.Experiment, p any, n int, progress func(int)) (experiments.SpreadResult, error) {
	workers := max(1, min(s.cfg.MaxRuns, runtime.GOMAXPROCS(0), n))
	var res experiments.SpreadResult
	err := s.runner.within(ctx, e.Name, e.SpreadCost(p, n), int64(workers)*e.Memory(p), func(ctx context.Context) error {
		var err error
		res, err = e.Spread(ctx, p, experiments.SpreadOptions{N: n, Workers: workers, Progress: func(done int) {
			if progress != nil {
				progress(done)
			}
			if s.cfg.spreadPace > 0 {
				select {
				case <-time.After(s.cfg.spreadPace):
				case <-ctx.Done():
				}
			}
		}})
		return err
	})
	return res, err
}

// startSpread returns the running spread for key, or starts one. It refuses (with a note for the
// reader) when maxSpreadJobs already run.
func (s *server) startSpread(ctx context.Context, e *experiments.Experiment, p any, n int, key, field, back, block string) (*spreadJob, error) {
	sp := s.spreads
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if j, ok := sp.byKey[key]; ok {
		j.mu.Lock()
		j.watched = time.Now()
		j.mu.Unlock()
		return j, nil
	}
	if len(sp.byKey) >= maxSpreadJobs {
		return nil, &httpError{Status: http.StatusServiceUnavailable, RetryAfter: 5 * time.Second,
			Msg: fmt.Sprintf("The server already runs %d spreads over seeds for other readers; the block shows the form's own run.", maxSpreadJobs)}
	}
	// Charged as the API's spread is (spreadCharge). The form's own run that came before is cached
	// by now, so the reload a refusal asks for costs the spread alone, and the wait it names is true.
	if charge := s.limiter.spreadCharge(n); charge > 0 {
		if ok, wait := s.limiter.allowN(clientOf(ctx), charge); !ok {
			s.metrics.rejected.WithLabelValues("rate_limited").Inc()
			return nil, &httpError{Status: http.StatusTooManyRequests, RetryAfter: wait,
				Msg: "Too many runs from your network address in a short time; the block shows the form's own run."}
		}
	}
	var raw [16]byte
	rand.Read(raw[:])
	jctx, cancel := context.WithCancel(sp.root)
	j := &spreadJob{id: hex.EncodeToString(raw[:]), key: key, n: n, field: field, back: back, block: block,
		cancel: cancel, state: "running", watched: time.Now()}
	sp.jobs[j.id], sp.byKey[key] = j, j
	go s.runSpreadJob(jctx, j, e, p)
	if !sp.watching {
		sp.watching = true
		go sp.watch()
	}
	return j, nil
}

// runSpreadJob does the job's work and records how it ended. The end is settled under the job's
// lock, against Cancel: whichever records first stands. A Cancel that came first keeps its note
// even when the last seed finished under it, and the summary is then not kept, so that the block
// the reader gets next agrees with the note they read. A summary is cached before the job leaves
// byKey, so a page rendered in between finds one or the other and never starts the spread again.
func (s *server) runSpreadJob(ctx context.Context, j *spreadJob, e *experiments.Experiment, p any) {
	defer j.cancel()
	res, err := s.spreadNow(ctx, e, p, j.n, func(done int) { j.done.Store(int64(done)) })
	j.mu.Lock()
	if j.state != "cancelled" { // otherwise Cancel said so already, with the count at that moment
		j.ended = time.Now()
		var he *httpError
		switch {
		case err == nil:
			j.state = "done"
			s.spreads.remember(j.key, res)
		case errors.Is(err, context.Canceled):
			j.state, j.stopped = "cancelled", int(j.done.Load())
		case errors.As(err, &he):
			j.state, j.note = "failed", "The spread was not finished: "+he.Msg
		default:
			s.log.Error("spread over seeds", "experiment", e.Name, "err", err)
			j.state, j.note = "failed", "The spread over seeds failed; the block shows the form's own run."
		}
	}
	j.mu.Unlock()
	sp := s.spreads
	sp.mu.Lock()
	delete(sp.byKey, j.key)
	sp.mu.Unlock()
}

// watch cancels running jobs nobody polls and forgets ended ones, until no job is left.
func (sp *spreads) watch() {
	t := time.NewTicker(sp.unwatched / 5)
	defer t.Stop()
	for {
		select {
		case <-sp.root.Done():
		case <-t.C:
		}
		sp.mu.Lock()
		for id, j := range sp.jobs {
			j.mu.Lock()
			if j.state == "running" && (time.Since(j.watched) > sp.unwatched || sp.root.Err() != nil) {
				j.cancel()
			}
			if j.state != "running" && time.Since(j.ended) > spreadKept {
				delete(sp.jobs, id)
			}
			j.mu.Unlock()
		}
		if len(sp.jobs) == 0 {
			sp.watching = false
			sp.mu.Unlock()
			return
		}
		sp.mu.Unlock()
	}
}

// job finds a job by id and marks it watched.
func (sp *spreads) job(id string) (*spreadJob, bool) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	j, ok := sp.jobs[id]
	if ok {
		j.mu.Lock()
		j.watched = time.Now()
		j.mu.Unlock()
	}
	return j, ok
}

// handleSpreadProgress handles "GET /spread/progress": the poll of a spread's meter. While the
// spread runs it answers with the meter alone, so the Cancel beside it stays in place; once the
// spread has ended (or is unknown) it answers with the whole box and retargets the swap at it,
// which takes the polling meter away: the box that fetches the banded block, or the note.
func (s *server) handleSpreadProgress() echo.HandlerFunc {
	return func(c echo.Context) error {
		p := pages.SpreadProgress{Note: "This spread over seeds is no longer running; run the form again to start it anew."}
		if j, ok := s.spreads.job(c.QueryParam("id")); ok {
			p = j.snapshot(s.cfg.BasePath)
		}
		if p.Running && htmxOf(c.Request()).Active {
			return render(c, http.StatusOK, pages.SpreadMeter(p))
		}
		retargetSpreadBox(c)
		return render(c, http.StatusOK, pages.SpreadBox(p))
	}
}

// retargetSpreadBox has htmx swap the answer over the whole progress box around the element that
// asked, rather than over the meter the poll names as its target.
func retargetSpreadBox(c echo.Context) {
	h := c.Response().Header()
	h.Set(hxRetargetHeader, "closest .spread-progress")
	h.Set(hxReswapHeader, "outerHTML")
}

// handleSpreadCancel handles "POST /spread/cancel": it stops a spread and answers with the note
// that replaces its progress box, or, without script, sends the reader back to the block with
// the spread left out of the address (which would otherwise start it again). A spread that had
// finished before the press answers with the box that fetches its band: the work is done, and
// the reader's next reload would show it anyway.
func (s *server) handleSpreadCancel() echo.HandlerFunc {
	return func(c echo.Context) error {
		j, ok := s.spreads.job(c.QueryParam("id"))
		if !ok {
			return render(c, http.StatusOK, pages.SpreadBox(pages.SpreadProgress{Note: "This spread over seeds had already ended."}))
		}
		j.cancel()
		j.mu.Lock()
		if j.state == "running" { // say so now rather than when the workers notice
			j.state, j.stopped, j.ended = "cancelled", int(j.done.Load()), time.Now()
		}
		j.mu.Unlock()
		if !htmxOf(c.Request()).Active {
			return c.Redirect(http.StatusSeeOther, withoutParam(j.back, j.field))
		}
		return render(c, http.StatusOK, pages.SpreadBox(j.snapshot(s.cfg.BasePath)))
	}
}

// withoutParam drops one query key from a site-relative URL, keeping its fragment.
func withoutParam(u, key string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return u
	}
	q := parsed.Query()
	q.Del(key)
	parsed.RawQuery = q.Encode()
	return parsed.String()
}
