package experiments

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// countdownCtx is a context whose Err turns to context.Canceled after a number of looks, so a test
// can cancel a run in its middle deterministically instead of racing a timer against it.
type countdownCtx struct {
	context.Context
	left atomic.Int64
}

func (c *countdownCtx) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func newCountdown(looks int64) *countdownCtx {
	c := &countdownCtx{Context: context.Background()}
	c.left.Store(looks)
	return c
}

// bigRuns are near the largest each experiment accepts: without periodic ctx checks each takes
// seconds, with them a cancelled run stops after a few thousand jobs.
func bigRuns() map[string]map[string][]string {
	return map[string]map[string][]string{
		"assembly":    q("jobs", "10000000"),
		"keys":        q("jobs", "10000000"),
		"orderings":   q("jobs", "10000000"),
		"crash-sweep": q("jobs", "10000000"),
		"window":      q("jobs", "10000000", "windows", "100,1000,10000"),
		"window-grid": q("jobs", "5000000", "windows", "100,1000", "max_delays", "100,10000"),
		"lease":       q("jobs", "10000000"),
		"claims":      q("jobs", "5000000"),
		"outbox":      q("events", "10000000"),
		"scale":       q(),
		"window-time": q(),
	}
}

func TestCancellation(t *testing.T) {
	runs := bigRuns()
	for _, e := range All() {
		t.Run(e.Name, func(t *testing.T) {
			query, ok := runs[e.Name]
			if !ok {
				t.Fatalf("no big run for %s", e.Name)
			}
			p, err := e.Parse(query)
			if err != nil {
				t.Fatal(err)
			}
			// Cancelled before it starts.
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, err := e.Run(ctx, p); !errors.Is(err, context.Canceled) {
				t.Errorf("pre-cancelled: err = %v, want context.Canceled", err)
			}
			// Cancelled in the middle: Run's own look passes, and the experiment's loops must
			// notice on one of their next looks (skipped for scale and window-time, which have no loop).
			if e.Name == "scale" || e.Name == "window-time" {
				return
			}
			start := time.Now()
			cd := newCountdown(3)
			if _, err := e.Run(cd, p); !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled mid-run: err = %v, want context.Canceled", err)
			}
			t.Logf("stopped after %v", time.Since(start))
		})
	}
}

// TestCancellationInHeartbeatWalk cancels inside one job's heartbeat walk: a single slow job at a
// tiny timeout sends millions of heartbeats, so the walk must look at ctx itself.
func TestCancellationInHeartbeatWalk(t *testing.T) {
	pl := renewal{timeout: 0.001, every: 0.001 / 3, cover: 3, rng: newPyRandom(1)}
	lapsed, err := pl.lapses(newCountdown(0), 86_400, 0.01)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("lapses = %v, %v; want context.Canceled", lapsed, err)
	}
}
