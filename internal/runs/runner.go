package runs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/semaphore"
	"golang.org/x/sync/singleflight"

	"effectivelyonce/experiments"
)

// LightCost is the work below which a run is cheap enough (a few milliseconds) to skip the heavy
// queue: readers changing a seed never wait behind someone's ten-million-job sweep.
const LightCost = 4_000_000

// Runner runs experiments with a result cache (runs are deterministic, so a result never goes
// stale), one flight per key, and a bound on concurrent heavy runs: a number of slots, and the
// memory their estimates (Config.Memory) add up to.
type Runner struct {
	cache   *Cache
	flight  singleflight.Group
	heavy   chan struct{}
	light   chan struct{}
	memory  *semaphore.Weighted
	budget  int64 // bytes the heavy runs may hold at once
	wait    time.Duration
	timeout time.Duration
	memOf   func(e *experiments.Experiment, p any) int64
	metrics Metrics
	// stopping ends when the server begins to shut down: no run starts after it.
	stopping context.Context
	stop     context.CancelFunc
}

// Config is what a Runner is built from: the operator's limits and the memory estimate of a run.
type Config struct {
	MaxRuns    int           // heavy runs at once; four times as many light ones
	QueueWait  time.Duration // how long a run waits for a slot before it is refused as busy
	RunTimeout time.Duration
	CacheBytes int64 // the result cache's bound
	MemLimit   int64 // the process's memory limit, 0 for none: the heavy runs' budget is cut from it
	// Memory estimates the bytes one run of e on p holds at its peak.
	Memory func(e *experiments.Experiment, p any) int64
}

// Metrics are the series a Runner counts in.
type Metrics struct {
	Runs     *prometheus.HistogramVec // by experiment and lane
	Cache    *prometheus.CounterVec   // by outcome: hit or miss
	Rejected *prometheus.CounterVec   // by reason
}

// NewRunner makes a runner with an empty cache; Warm fills it with the defaults.
func NewRunner(cfg Config, m Metrics) *Runner {
	budget := Budget(cfg.MemLimit, cfg.CacheBytes)
	stopping, stop := context.WithCancel(context.Background())
	return &Runner{
		cache:    NewCache(cfg.CacheBytes),
		heavy:    make(chan struct{}, cfg.MaxRuns),
		light:    make(chan struct{}, 4*cfg.MaxRuns),
		memory:   semaphore.NewWeighted(budget),
		budget:   budget,
		wait:     cfg.QueueWait,
		timeout:  cfg.RunTimeout,
		memOf:    cfg.Memory,
		metrics:  m,
		stopping: stopping,
		stop:     stop,
	}
}

// Budget is the memory the heavy runs may hold together: the Go memory limit less the result
// cache, counted twice (its estimate is rough), and a reserve for everything else the process
// holds (pages being rendered, connections, the pinned defaults). Without a limit it is unbounded.
func Budget(memLimit, cacheBytes int64) int64 {
	if memLimit <= 0 || memLimit == math.MaxInt64 {
		return math.MaxInt64
	}
	return max(memLimit/4, memLimit-2*cacheBytes-MemReserve)
}

// Cache is the runner's result cache, which the spreads' summaries share.
func (r *Runner) Cache() *Cache { return r.cache }

// BudgetBytes is the memory the heavy runs may hold together.
func (r *Runner) BudgetBytes() int64 { return r.budget }

// Stop refuses every run still waiting for a slot and every later one.
func (r *Runner) Stop() { r.stop() }

// Hold takes every free slot of the heavy lane, or of both lanes, as if runs held them, until
// release is called: a test of what readers see when the server is busy. Exactly the slots it
// took go back, so a run that got one meanwhile keeps it.
func (r *Runner) Hold(lightToo bool) (release func()) {
	lanes := []chan struct{}{r.heavy}
	if lightToo {
		lanes = append(lanes, r.light)
	}
	held := map[chan struct{}]int{}
	for _, slots := range lanes {
		for len(slots) < cap(slots) {
			slots <- struct{}{}
			held[slots]++
		}
	}
	return sync.OnceFunc(func() {
		for slots, n := range held {
			for range n {
				<-slots
			}
		}
	})
}

// HoldMemory takes bytes of the heavy runs' memory until release is called, slots left free.
func (r *Runner) HoldMemory(bytes int64) (release func(), ok bool) {
	if !r.memory.TryAcquire(bytes) {
		return nil, false
	}
	return sync.OnceFunc(func() { r.memory.Release(bytes) }), true
}

// HeavyInUse is how many heavy slots are taken now.
func (r *Runner) HeavyInUse() int { return len(r.heavy) }

// MemReserve is what the process holds besides runs and the cache: about 60 MB measured at rest
// with the defaults warm, plus room for a few thousand connections (about 20 KB each).
const MemReserve = 160 << 20

// Cached reports whether the result of e on p is in the cache, without counting a lookup.
func (r *Runner) Cached(e *experiments.Experiment, p any) bool {
	return r.cache.Has(e.Key(p))
}

// Warm runs every experiment at its defaults and pins the results, so a first visit to any page
// paints from memory.
func (r *Runner) Warm(ctx context.Context) error {
	for _, e := range experiments.All() {
		p := e.Defaults()
		res, err := e.Run(ctx, p)
		if err != nil {
			return fmt.Errorf("experiment %q at defaults: %w", e.Name, err)
		}
		r.cache.Add(e.Key(p), res, true)
	}
	return nil
}

// Run returns the result of e on p, from the cache when it can.
func (r *Runner) Run(ctx context.Context, e *experiments.Experiment, p any) (any, error) {
	key := e.Key(p)
	if res, ok := r.cache.Get(key); ok {
		r.metrics.Cache.WithLabelValues("hit").Inc()
		return res, nil
	}
	r.metrics.Cache.WithLabelValues("miss").Inc()
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
			r.metrics.Rejected.WithLabelValues("client_gone").Inc()
			return nil, ctx.Err()
		}
	}
}

// runNow runs e on p within a slot (see Within) and caches the result.
func (r *Runner) runNow(ctx context.Context, e *experiments.Experiment, p any, key string) (any, error) {
	var res any
	err := r.Within(ctx, e.Name, e.Cost(p), r.memOf(e, p), func(ctx context.Context) error {
		var err error
		res, err = e.Run(ctx, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	r.cache.Add(key, res, false)
	return res, nil
}

// Within runs work for the experiment named name under the run limits every run shares: a light
// slot for work costing at most LightCost units, otherwise a heavy slot and need bytes of the
// memory the heavy runs share, each waited for at most the queue wait, then the run timeout. A
// wait ends early, with ErrStopping, when the server stops. Single runs, the runs behind "which
// jobs?" and the spread over seeds all come through here, so no kind of work escapes the limits.
func (r *Runner) Within(ctx context.Context, name string, cost, need int64, work func(context.Context) error) error {
	slots := r.light
	lane := "light"
	if cost > LightCost {
		slots, lane = r.heavy, "heavy"
		if need > r.budget {
			r.metrics.Rejected.WithLabelValues("memory").Inc()
			return &Error{Code: http.StatusServiceUnavailable,
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
			r.metrics.Rejected.WithLabelValues("stopping").Inc()
			return ErrStopping
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		r.metrics.Rejected.WithLabelValues("busy").Inc()
		return ErrBusy
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
	r.metrics.Runs.WithLabelValues(name, lane).Observe(time.Since(start).Seconds())
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			r.metrics.Rejected.WithLabelValues("deadline").Inc()
			return &Error{Code: http.StatusServiceUnavailable, Msg: "The run took longer than the server allows; try smaller parameters.", Err: err}
		}
		return fmt.Errorf("experiment %q: %w", name, err)
	}
	return nil
}

// Flight does work (named name, costing cost units and need bytes) within the run limits, one
// flight per key, and caches what it answers under key: for work that is not an experiment's run
// (a workbench check), whose caller looks in the cache and charges its client first. Errors are
// never cached.
func (r *Runner) Flight(ctx context.Context, key, name string, cost, need int64, work func(context.Context) (any, error)) (any, error) {
	ch := r.flight.DoChan(key, func() (any, error) {
		var v any
		err := r.Within(ctx, name, cost, need, func(ctx context.Context) error {
			var err error
			v, err = work(ctx)
			return err
		})
		if err != nil {
			return nil, err
		}
		r.cache.Add(key, v, false)
		return v, nil
	})
	select {
	case res := <-ch:
		return res.Val, res.Err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
