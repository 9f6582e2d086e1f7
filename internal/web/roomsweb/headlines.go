package roomsweb

// A pin's headline is the first sentence of what the pinned run shows: the reading of its page's
// first experiment at the pin's parameters. Working one out can mean running an experiment of ten
// million jobs, so no render ever does it: a render reads the headlines known so far and asks for
// the missing ones, which are worked out in the background, a few at a time, through the same run
// limits as every run (slots, memory, deadline, and the rate of the client whose page asked); when
// one is ready, every room that asked for it redraws its board, and the headline appears.

import (
	"context"
	"sync"
	"time"

	"effectivelyonce/internal/web"
	"effectivelyonce/present"
)

const (
	// headlineRuns is how many headlines are worked out at once; the rest wait their turn.
	headlineRuns = 2
	// headlinesPending bounds the headlines asked for and not yet worked out: past it a render
	// asks again at its next redraw, so a flood of pins costs a bounded number of goroutines.
	headlinesPending = 256
)

// headlines is the server's pins' headlines: those known, and those being worked out.
type headlines struct {
	known *web.Memo[string] // by permalink; "" for a page with no experiment to read
	slots chan struct{}

	mu      sync.Mutex
	waiting map[string]map[string]bool // permalink to the rooms to tell once it is known
	notYet  map[string]time.Time       // permalink to when a run refused for now may be tried again
}

func newHeadlines() *headlines {
	return &headlines{known: web.NewMemo[string](1000), slots: make(chan struct{}, headlineRuns),
		waiting: map[string]map[string]bool{}, notYet: map[string]time.Time{}}
}

// headline answers the headline of the pinned permalink path if it is known, and otherwise asks
// for it on behalf of room roomID, never waiting: ctx is the render's, whose client the run is
// charged to, but the work outlives it.
func (h *Handlers) headline(ctx context.Context, path, roomID string) (string, bool) {
	hl := h.headlines
	if line, ok := hl.known.Get(path); ok {
		return line, true
	}
	hl.mu.Lock()
	defer hl.mu.Unlock()
	if rooms, ok := hl.waiting[path]; ok {
		rooms[roomID] = true
		return "", false
	}
	if t, ok := hl.notYet[path]; ok && time.Now().Before(t) || len(hl.waiting) >= headlinesPending {
		return "", false
	}
	delete(hl.notYet, path)
	hl.waiting[path] = map[string]bool{roomID: true}
	work, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(h.admit.Runner.Stopping(), cancel) // shutdown ends the work
	go func() {
		defer cancel()
		defer stop()
		line, err := h.workOutHeadline(work, path)
		hl.mu.Lock()
		rooms := hl.waiting[path]
		delete(hl.waiting, path)
		if err != nil {
			// Not run now (busy, rate limited, stopping): a later redraw asks again, not sooner
			// than the refusal said.
			wait := time.Second
			var he *web.Error
			if web.As(err, &he) && he.RetryAfter > 0 {
				wait = he.RetryAfter
			}
			if len(hl.notYet) >= headlinesPending {
				clear(hl.notYet) // forgetting a wait costs one early retry, never an unbounded map
			}
			hl.notYet[path] = time.Now().Add(wait)
			hl.mu.Unlock()
			return
		}
		hl.known.Put(path, line)
		hl.mu.Unlock()
		for id := range rooms {
			if err := h.hub.Publish(work, id); err != nil {
				h.log.Warn("pin headline not announced", "room", id, "err", err)
			}
		}
	}()
	return "", false
}

// workOutHeadline runs the first experiment of the page path names, at its parameters, within the
// run limits, and answers the first sentence of its reading; "" for a page with no experiment, or
// parameters the page refuses (it shows no run to read). An error means "not now".
func (h *Handlers) workOutHeadline(ctx context.Context, path string) (string, error) {
	_, page, q, problems, ok := h.notebookPage(path)
	if !ok || len(problems) > 0 {
		return "", nil
	}
	runs, fe := pagePathParams(page, q)
	if fe != nil || len(runs) == 0 {
		return "", nil
	}
	r := runs[0]
	select {
	case h.headlines.slots <- struct{}{}:
		defer func() { <-h.headlines.slots }()
	case <-ctx.Done():
		return "", ctx.Err()
	}
	if err := h.admitRun(ctx, r.experiment, r.params); err != nil {
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
