package roomsweb

// A pin's headline is the first sentence of what the pinned run shows: the reading of its page's
// first experiment at the pin's parameters. Working one out can mean running an experiment of ten
// million jobs, so no render ever does it: a render reads the headlines known so far and asks for
// the missing ones, each a background task of the runs' one mechanism (runs.Tasks, keyed by the
// permalink, so a board of twenty members asking for one headline makes one run). The tasks are
// bounded (headlinesPending of them, headlineRuns working at once), go through the same run limits
// as every run (slots, memory, deadline, and the rate of the client whose page asked), are done
// again when the runs refuse them for now (runs.Later) while a board still asks for them, and end
// at shutdown (Handlers.Stop). When one is ready, every room that asked for it redraws its board,
// and the headline appears.

import (
	"context"
	"errors"
	"maps"
	"net/netip"
	"slices"
	"sync"
	"time"

	"effectivelyonce/internal/runs"
	"effectivelyonce/internal/web"
	"effectivelyonce/present"
)

const (
	// headlineRuns is how many headlines are worked out at once; the rest wait their turn, so
	// that pins never crowd readers' own runs out of the run slots.
	headlineRuns = 2
	// headlinesPending bounds the headlines asked for and not yet worked out: past it a render
	// asks again at its next redraw, so a flood of pins costs a bounded number of goroutines.
	headlinesPending = 256
	// headlineUnwatched is how long a headline is still tried for after the last board asked for
	// it: a board asks at every redraw, and an open stream redraws at least every Heartbeat.
	headlineUnwatched = time.Minute
)

// headlines is the server's pins' headlines: those known, and the tasks working out the others.
type headlines struct {
	known *web.Memo[string] // by permalink; "" for a page with no experiment to read
	tasks *runs.Tasks[*headlineJob]
}

// headlineJob is what a headline's task keeps beside it: the rooms to tell once it is known, and
// the headline once it is, for a board that asks between then and the task's end.
type headlineJob struct {
	mu    sync.Mutex
	rooms map[string]bool
	known bool
	line  string
}

func newHeadlines() *headlines {
	tasks := runs.NewTasks[*headlineJob](headlinesPending, headlineUnwatched, 0)
	tasks.SetWorkers(headlineRuns)
	return &headlines{known: web.NewMemo[string](1000), tasks: tasks}
}

// stop ends every headline's task and waits for it, at shutdown.
func (hl *headlines) stop() { hl.tasks.Stop() }

// headline answers the headline of the pinned permalink path if it is known, and otherwise asks
// for it on behalf of room roomID, never waiting: the run is charged to the client of ctx (the
// render's), but the work outlives the render.
func (h *Handlers) headline(ctx context.Context, path, roomID string) (string, bool) {
	hl := h.headlines
	if line, ok := hl.known.Get(path); ok {
		return line, true
	}
	client := web.ClientOf(ctx)
	job := &headlineJob{rooms: map[string]bool{}}
	t, _, err := hl.tasks.Start(path, 0, nil, job, func(ctx context.Context) (func(), error) {
		return nil, h.workOutHeadline(ctx, client, path, job)
	})
	if err != nil {
		return "", false // every place taken, or the server stopping: a later redraw asks again
	}
	// Joined or new, the task's own job hears of this room (t.Data is job only when new).
	j := t.Data
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.known {
		return j.line, true
	}
	j.rooms[roomID] = true
	return "", false
}

// workOutHeadline works out path's headline for job and tells the rooms that asked for it. A
// refusal for now (the run slots busy, the client over its allowance, the server stopping) is
// runs.Later, with the wait the refusal named.
func (h *Handlers) workOutHeadline(ctx context.Context, client netip.Addr, path string, job *headlineJob) error {
	line, err := h.headlineOf(ctx, client, path)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		wait := time.Second
		if he := (*web.Error)(nil); web.As(err, &he) && he.RetryAfter > 0 {
			wait = he.RetryAfter
		}
		return runs.Later(wait, err)
	}
	job.mu.Lock()
	job.known, job.line = true, line
	rooms := slices.Collect(maps.Keys(job.rooms))
	job.mu.Unlock()
	h.headlines.known.Put(path, line)
	for _, id := range rooms {
		if err := h.hub.Publish(ctx, id); err != nil && !errors.Is(err, context.Canceled) {
			h.log.Warn("pin headline not announced", "room", id, "err", err)
		}
	}
	return nil
}

// headlineOf runs the first experiment of the page path names, at its parameters, within the run
// limits (charged to client), and answers the first sentence of its reading; "" for a page with no
// experiment, or parameters the page refuses (it shows no run to read). An error means "not now".
func (h *Handlers) headlineOf(ctx context.Context, client netip.Addr, path string) (string, error) {
	_, page, q, problems, ok := h.notebookPage(path)
	if !ok || len(problems) > 0 {
		return "", nil
	}
	pp, fe := pagePathParams(page, q)
	if fe != nil || len(pp) == 0 {
		return "", nil
	}
	r := pp[0]
	if err := h.admit.Run(client, r.experiment, r.params); err != nil {
		return "", err
	}
	res, err := h.admit.Runner.Run(ctx, r.experiment, r.params)
	if err != nil {
		var he *web.Error
		if web.As(err, &he) && he.RetryAfter == 0 && he.Status != 0 {
			return "", nil // a run this server can never make (too much memory, too slow): no headline
		}
		return "", err
	}
	pr, err := present.PresenterOf(r.experiment)
	if err != nil {
		return "", nil
	}
	lines, err := pr.Reading(r.params, res)
	if err != nil || len(lines) == 0 {
		return "", nil
	}
	return lines[0], nil
}
