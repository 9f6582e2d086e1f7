package main

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"effectivelyonce/experiments"
)

// lightCost is the work below which a run is cheap enough (a few milliseconds) to skip the heavy
// queue: readers changing a seed never wait behind someone's ten-million-job sweep.
const lightCost = 4_000_000

// errBusy is returned when every heavy slot stayed taken for the whole queue wait.
var errBusy = &httpError{Status: http.StatusServiceUnavailable, Msg: "every experiment slot is busy with other readers' runs; try again in a few seconds"}

// runner runs experiments with a result cache (runs are deterministic, so a result never goes
// stale), one flight per key, and a bound on concurrent heavy runs.
type runner struct {
	cache   *resultCache
	flight  singleflight.Group
	heavy   chan struct{}
	light   chan struct{}
	wait    time.Duration
	timeout time.Duration
	metrics *metrics
}

func newRunner(cfg config, m *metrics) *runner {
	return &runner{
		cache:   newResultCache(cfg.CacheBytes),
		heavy:   make(chan struct{}, cfg.MaxRuns),
		light:   make(chan struct{}, 4*cfg.MaxRuns),
		wait:    cfg.QueueWait,
		timeout: cfg.RunTimeout,
		metrics: m,
	}
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

func (r *runner) runNow(ctx context.Context, e *experiments.Experiment, p any, key string) (any, error) {
	slots := r.light
	lane := "light"
	if e.Cost(p) > lightCost {
		slots, lane = r.heavy, "heavy"
	}
	t := time.NewTimer(r.wait)
	defer t.Stop()
	select {
	case slots <- struct{}{}:
	case <-t.C:
		r.metrics.rejected.WithLabelValues("busy").Inc()
		return nil, errBusy
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-slots }()
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	start := time.Now()
	res, err := e.Run(ctx, p)
	r.metrics.runs.WithLabelValues(e.Name, lane).Observe(time.Since(start).Seconds())
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			r.metrics.rejected.WithLabelValues("deadline").Inc()
			return nil, &httpError{Status: http.StatusServiceUnavailable, Msg: "the run took longer than the server allows; try smaller parameters", Err: err}
		}
		return nil, fmt.Errorf("experiment %q: %w", e.Name, err)
	}
	r.cache.add(key, res, false)
	return res, nil
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
