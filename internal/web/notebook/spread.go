package notebook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/runs"
	"effectivelyonce/internal/web"
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

// spreadJob is what a background spread keeps beside its task: what its progress box needs.
type spreadJob struct {
	n     int
	field string // the query key that asked for it, dropped from back after a cancel without script
	back  string // the block's permalink, which shows the banded block once the summary is cached
	block string // the block's DOM id
	done  atomic.Int64
	// stopped is the count of runs done when a Cancel was pressed, which the note keeps even if
	// a seed finishes under the press; -1 until then.
	stopped atomic.Int64
}

// snapshot is the spread as its progress box shows it.
func snapshot(t *runs.Task[*spreadJob], base string) pages.SpreadProgress {
	j := t.Data
	p := pages.SpreadProgress{ID: t.ID, Done: int(j.done.Load()), N: j.n, Block: j.block, ReloadURL: j.back,
		PollURL: base + "/spread/progress?id=" + t.ID, CancelURL: base + "/spread/cancel?id=" + t.ID}
	state, err, _ := t.State()
	switch state {
	case runs.Running:
		p.Running = true
	case runs.Done:
		p.Finished = true
	case runs.Cancelled:
		stopped := j.stopped.Load()
		if stopped < 0 {
			stopped = j.done.Load()
		}
		p.Note = fmt.Sprintf("Cancelled after %d of %d seeds; the block shows the form's own run.", stopped, j.n)
	default:
		p.Note = "The spread over seeds failed; the block shows the form's own run."
		if he := (*web.Error)(nil); web.As(err, &he) {
			p.Note = "The spread was not finished: " + he.Msg
		}
	}
	return p
}

// spreads is the server's background spreads (at most maxSpreadJobs at once, cancelled when
// nobody polls them) and the summaries they made.
type spreads struct {
	tasks *runs.Tasks[*spreadJob]
	// results keeps the summaries, in the runner's result cache beside the single runs: a summary
	// is as deterministic as a run, and one cache bounded in bytes holds both.
	results *runs.Cache
}

func newSpreads(results *runs.Cache) *spreads {
	return &spreads{tasks: runs.NewTasks[*spreadJob](maxSpreadJobs, spreadUnwatched, spreadKept), results: results}
}

// stop cancels every spread and waits for them, at shutdown.
func (sp *spreads) stop() { sp.tasks.Stop() }

// spreadKey names a spread: the experiment's canonical parameters and the number of seeds. No
// run's key (experiments.Experiment.Key) has a spread in it, so the two share the cache safely.
func spreadKey(e *experiments.Experiment, p any, n int) string {
	return fmt.Sprintf("%s&spread=%d", e.Key(p), n)
}

// cached returns a computed summary.
func (sp *spreads) cached(key string) (experiments.SpreadResult, bool) {
	v, ok := sp.results.Get(key)
	res, isSpread := v.(experiments.SpreadResult)
	return res, ok && isSpread
}

// remember keeps a summary until the result cache needs its room.
func (sp *spreads) remember(key string, res experiments.SpreadResult) {
	sp.results.Add(key, res, false)
}

// spreadNow runs a spread of n seeds of e on p under the shared run limits: one heavy slot for
// the whole spread, costed as n runs, with memory for as many runs at once as it has workers.
// Progress, when set, hears of each run done; the test-only pace slows each run down.
func (h *Handlers) spreadNow(ctx context.Context, e *experiments.Experiment, p any, n int, progress func(int)) (experiments.SpreadResult, error) {
	workers := max(1, min(h.maxRuns, runtime.GOMAXPROCS(0), n))
	var res experiments.SpreadResult
	err := h.runner.Within(ctx, e.Name, e.SpreadCost(p, n), int64(workers)*e.Memory(p), func(ctx context.Context) error {
		var err error
		res, err = e.Spread(ctx, p, experiments.SpreadOptions{N: n, Workers: workers, Progress: func(done int) {
			if progress != nil {
				progress(done)
			}
			if h.spreadPace > 0 {
				select {
				case <-time.After(h.spreadPace):
				case <-ctx.Done():
				}
			}
		}})
		return err
	})
	return res, err
}

// startSpread returns the running spread for key, or starts one. It refuses (with a note for the
// reader) when maxSpreadJobs already run. The spread is charged as the API's is (spreadCharge),
// only when it starts: the form's own run that came before is cached by now, so the reload a
// refusal asks for costs the spread alone, and the wait it names is true.
func (h *Handlers) startSpread(ctx context.Context, e *experiments.Experiment, p any, n int, key, field, back, block string) (*runs.Task[*spreadJob], error) {
	j := &spreadJob{n: n, field: field, back: back, block: block}
	j.stopped.Store(-1)
	charge := func() error {
		if charge := h.spreadCharge(n); charge > 0 {
			if ok, wait := h.admit.Rate.AllowN(web.ClientOf(ctx), charge); !ok {
				h.rejected.WithLabelValues("rate_limited").Inc()
				return &web.Error{Status: http.StatusTooManyRequests, RetryAfter: wait,
					Msg: "Too many runs from your network address in a short time; the block shows the form's own run."}
			}
		}
		return nil
	}
	// A summary is cached before the task leaves its key (onDone), so a page rendered in between
	// finds one or the other and never starts the spread again.
	t, _, err := h.spreads.tasks.Start(key, 0, charge, j, func(ctx context.Context) (func(), error) {
		res, err := h.spreadNow(ctx, e, p, n, func(done int) { j.done.Store(int64(done)) })
		if err != nil {
			if he := (*web.Error)(nil); !web.As(err, &he) && !errors.Is(err, context.Canceled) {
				h.log.Error("spread over seeds", "experiment", e.Name, "err", err)
			}
			return nil, err
		}
		return func() { h.spreads.remember(key, res) }, nil
	})
	if errors.Is(err, runs.ErrFull) || errors.Is(err, runs.ErrStopped) {
		return nil, &web.Error{Status: http.StatusServiceUnavailable, RetryAfter: 5 * time.Second,
			Msg: fmt.Sprintf("The server already runs %d spreads over seeds for other readers; the block shows the form's own run.", maxSpreadJobs)}
	}
	return t, err
}

// SpreadProgress handles "GET /spread/progress": the poll of a spread's meter. While the
// spread runs it answers with the meter alone, so the Cancel beside it stays in place; once the
// spread has ended (or is unknown) it answers with the whole box and retargets the swap at it,
// which takes the polling meter away: the box that fetches the banded block, or the note.
func (h *Handlers) SpreadProgress() echo.HandlerFunc {
	return func(c echo.Context) error {
		p := pages.SpreadProgress{Note: "This spread over seeds is no longer running; run the form again to start it anew."}
		if t, ok := h.spreads.tasks.Get(c.QueryParam("id")); ok {
			p = snapshot(t, h.base)
		}
		if p.Running && web.HTMXOf(c.Request()).Active {
			return web.Render(c, http.StatusOK, pages.SpreadMeter(p))
		}
		retargetSpreadBox(c)
		return web.Render(c, http.StatusOK, pages.SpreadBox(p))
	}
}

// retargetSpreadBox has htmx swap the answer over the whole progress box around the element that
// asked, rather than over the meter the poll names as its target.
func retargetSpreadBox(c echo.Context) {
	web.Retarget(c, "closest .spread-progress", "outerHTML")
}

// SpreadCancel handles "POST /spread/cancel": it stops a spread and answers with the note
// that replaces its progress box, or, without script, sends the reader back to the block with
// the spread left out of the address (which would otherwise start it again). A spread that had
// finished before the press answers with the box that fetches its band: the work is done, and
// the reader's next reload would show it anyway.
func (h *Handlers) SpreadCancel() echo.HandlerFunc {
	return func(c echo.Context) error {
		t, ok := h.spreads.tasks.Get(c.QueryParam("id"))
		if !ok {
			return web.Render(c, http.StatusOK, pages.SpreadBox(pages.SpreadProgress{Note: "This spread over seeds had already ended."}))
		}
		j := t.Data
		if n := j.done.Load(); t.Cancel() { // said now, with the count now, rather than when the workers notice
			j.stopped.Store(n)
		}
		if !web.HTMXOf(c.Request()).Active {
			return c.Redirect(http.StatusSeeOther, withoutParam(j.back, j.field))
		}
		return web.Render(c, http.StatusOK, pages.SpreadBox(snapshot(t, h.base)))
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
