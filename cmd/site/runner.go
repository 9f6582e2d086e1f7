package main

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"
	"golang.org/x/sync/singleflight"

	"effectivelyonce/experiments"
)

// lightCost is the work below which a run is cheap enough (a few milliseconds) to skip the heavy
// queue: readers changing a seed never wait behind someone's ten-million-job sweep.
const lightCost = 4_000_000

// errBusy is returned when every heavy slot, or the memory the heavy runs share, stayed taken for
// the whole queue wait.
var errBusy = &httpError{Status: http.StatusServiceUnavailable, RetryAfter: 5 * time.Second,
	Msg: "Every experiment slot is busy with other readers' runs."}

// errStopping answers every run still waiting for a slot when the server begins to shut down: a
// clean refusal at once instead of a cut connection when the grace period ends.
var errStopping = &httpError{Status: http.StatusServiceUnavailable, RetryAfter: 10 * time.Second,
	Msg: "The server is restarting."}

// runner runs experiments with a result cache (runs are deterministic, so a result never goes
// stale), one flight per key, and a bound on concurrent heavy runs: a number of slots, and the
// memory their estimates (Experiment.Memory) add up to.
type runner struct {
	cache   *resultCache
	flight  singleflight.Group
	heavy   chan struct{}
	light   chan struct{}
	memory  *semaphore.Weighted
	budget  int64 // bytes the heavy runs may hold at once
	wait    time.Duration
	timeout time.Duration
	metrics *metrics
	// stopping ends when the server begins to shut down: no run starts after it.
	stopping context.Context
	stop     context.CancelFunc
}

func newRunner(cfg config, m *metrics) *runner {
	budget := runBudget(cfg)
	stopping, stop := context.WithCancel(context.Background())
	return &runner{
		cache:    newResultCache(cfg.CacheBytes),
		heavy:    make(chan struct{}, cfg.MaxRuns),
		light:    make(chan struct{}, 4*cfg.MaxRuns),
		memory:   semaphore.NewWeighted(budget),
		budget:   budget,
		wait:     cfg.QueueWait,
		timeout:  cfg.RunTimeout,
		metrics:  m,
		stopping: stopping,
		stop:     stop,
	}
}

// runBudget is the memory the heavy runs may hold together: the Go memory limit less the result
// cache, counted twice (its estimate is rough), and a reserve for everything else the process
// holds (pages being rendered, connections, the pinned defaults). Without a limit it is unbounded.
func runBudget(cfg config) int64 {
	if cfg.MemLimit <= 0 || cfg.MemLimit == math.MaxInt64 {
		return math.MaxInt64
	}
	return max(cfg.MemLimit/4, cfg.MemLimit-2*cfg.CacheBytes-memReserve)
}

// memReserve is what the process holds besides runs and the cache: about 60 MB measured at rest
// with the defaults warm, plus room for a few thousand connections (about 20 KB each).
const memReserve = 160 << 20

// cached reports whether the result of e on p is in the cache, without counting a lookup.
func (r *runner) cached(e *experiments.Experiment, p any) bool {
	return r.cache.has(e.Key(p))
}

// warm runs every experiment at its defaults and pins the results, so a first visit to any page
// paints from memory.
func (r *runner) warm(ctx context.Context) error {
	for _, e := range experiments.All() {
		p := e.Defaults()
		res, err := e.Run(ctx, p)
		if err != nil {
			return fmt.Errorf("experiment %q at defaults: %w", e.Name, err)
		}
		r.cache.add(e.Key(p), res, true)
	}
	return nil
}

// run returns the result of e on p, from the cache when it can.
func (r *runner) run(ctx context.Context, e *experiments.Experiment, p any) (any, error) {
	key := e.Key(p)
	if res, ok := r.cache.get(key); ok {
		r.metrics.cache.WithLabelValues("hit").Inc()
		return res, nil
	}
	r.metrics.cache.WithLabelValues("miss").Inc()
	// One flight per key: twenty readers pressing Run on the same values cost one run. The flight
	// runs under the first requester's context, so a run nobody waits for any more stops; a waiter
	// whose own request is still alive then simply starts the run again.
	for attempt := 0; ; attempt++ {
		ch := r.flight.DoChan(key, func() (any, error) {
			return r.runNow(ctx, e, p, key)
		})
		select {
		case res := <-ch:
			if errors.Is(res.Err, context.Canceled) && ctx.Err() == nil && attempt < 2 {
				continue
			}
			return res.Val, res.Err
		case <-ctx.Done():
			r.metrics.rejected.WithLabelValues("client_gone").Inc()
			return nil, ctx.Err()
		}
	}
}

// runNow runs e on p within a slot (see within) and caches the result.
func (r *runner) runNow(ctx context.Context, e *experiments.Experiment, p any, key string) (any, error) {
	var res any
	err := r.within(ctx, e.Name, e.Cost(p), e.Memory(p), func(ctx context.Context) error {
		var err error
		res, err = e.Run(ctx, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	r.cache.add(key, res, false)
	return res, nil
}

// within runs work for the experiment named name under the run limits every run shares: a light
// slot for work costing at most lightCost units, otherwise a heavy slot and need bytes of the
// memory the heavy runs share, each waited for at most the queue wait, then the run timeout. A
// wait ends early, with errStopping, when the server stops. Single runs, the runs behind "which
// jobs?" and the spread over seeds all come through here, so no kind of work escapes the limits.
func (r *runner) within(ctx context.Context, name string, cost, need int64, work func(context.Context) error) error {
	slots := r.light
	lane := "light"
	if cost > lightCost {
		slots, lane = r.heavy, "heavy"
		if need > r.budget {
			r.metrics.rejected.WithLabelValues("memory").Inc()
			return &httpError{Status: http.StatusServiceUnavailable,
				Msg: fmt.Sprintf("This run would need about %d MB, more than this server keeps for runs (%d MB); try smaller parameters.", need>>20, r.budget>>20)}
		}
	} else {
		need = 0
	}
	wctx, cancel := context.WithTimeout(ctx, r.wait)
	defer cancel()
	defer context.AfterFunc(r.stopping, cancel)()
	refused := func() error {
		if r.stopping.Err() != nil {
			r.metrics.rejected.WithLabelValues("stopping").Inc()
			return errStopping
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		r.metrics.rejected.WithLabelValues("busy").Inc()
		return errBusy
	}
	if r.stopping.Err() != nil {
		return refused()
	}
	select {
	case slots <- struct{}{}:
	case <-wctx.Done():
		return refused()
	}
	defer func() { <-slots }()
	if need > 0 {
		if err := r.memory.Acquire(wctx, need); err != nil {
			return refused()
		}
		defer r.memory.Release(need)
	}
	if r.stopping.Err() != nil { // a slot freed during shutdown must not start a queued run
		return refused()
	}
	ctx, cancelRun := context.WithTimeout(ctx, r.timeout)
	defer cancelRun()
	start := time.Now()
	err := work(ctx)
	r.metrics.runs.WithLabelValues(name, lane).Observe(time.Since(start).Seconds())
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			r.metrics.rejected.WithLabelValues("deadline").Inc()
			return &httpError{Status: http.StatusServiceUnavailable, Msg: "The run took longer than the server allows; try smaller parameters.", Err: err}
		}
		return fmt.Errorf("experiment %q: %w", name, err)
	}
	return nil
}

// resultCache is an LRU bounded in bytes (estimated from each result's JSON size). Pinned entries,
// the defaults, are never evicted.
type resultCache struct {
	mu    sync.Mutex
	limit int64
	used  int64
	ll    *list.List
	items map[string]*list.Element
}

type cacheEntry struct {
	key    string
	val    any
	size   int64
	pinned bool
}

func newResultCache(limit int64) *resultCache {
	return &resultCache{limit: limit, ll: list.New(), items: map[string]*list.Element{}}
}

func (c *resultCache) get(key string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.ll.MoveToFront(el)
		return el.Value.(*cacheEntry).val, true
	}
	return nil, false
}

func (c *resultCache) has(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.items[key]
	return ok
}

func (c *resultCache) add(key string, val any, pinned bool) {
	b, err := json.Marshal(val)
	if err != nil {
		return
	}
	size := int64(len(b))*2 + int64(len(key)) + 128
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.ll.MoveToFront(el)
		return
	}
	if !pinned && size > c.limit/4 {
		return // one huge result must not flush everything else
	}
	c.items[key] = c.ll.PushFront(&cacheEntry{key: key, val: val, size: size, pinned: pinned})
	c.used += size
	for el := c.ll.Back(); c.used > c.limit && el != nil; {
		prev := el.Prev()
		if e := el.Value.(*cacheEntry); !e.pinned {
			c.ll.Remove(el)
			delete(c.items, e.key)
			c.used -= e.size
		}
		el = prev
	}
}

// bytes reports the cache's estimated size, for tests and metrics.
func (c *resultCache) bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}
