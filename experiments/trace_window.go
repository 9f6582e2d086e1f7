package experiments

import (
	"context"
	"fmt"
)

// windowWatch follows one job through a replay of the window: when its id left the window before
// its redelivery came, and which insertion pushed it out.
type windowWatch struct {
	target        int32
	evicted       bool
	evictedAt     int64 // step of the eviction
	evictedBy     int32 // the id whose insertion evicted it
	byRedelivery  bool  // whether that insertion was a redelivery rather than a first delivery
	redelivered   bool
	redeliveredAt int64
	escaped       bool
}

// replay runs the deliveries through a DedupWindow of the given size in the order escaped does,
// one id at a time, marking in esc (a bitmap over job ids) every job whose redelivery escaped, and
// following watch's job when watch is not nil. It walks the deliveries itself rather than through a
// hook in escaped so that the counting loop stays as it is; the tests hold both to the same counts.
func (d deliveries) replay(ctx context.Context, window int64, esc []uint64, watch *windowWatch) error {
	win := NewDedupWindow(window, d.jobs)
	var step int64
	insert := func(id int32, redelivery bool) {
		old := win.Insert(id)
		if watch != nil && old >= 0 && old == watch.target && !watch.evicted && !watch.redelivered {
			watch.evicted, watch.evictedAt, watch.evictedBy, watch.byRedelivery = true, step, id, redelivery
		}
	}
	redeliver := func(id int32) {
		escaped := !win.Seen(id)
		if watch != nil && id == watch.target {
			watch.redelivered, watch.redeliveredAt, watch.escaped = true, step, escaped
		}
		if escaped {
			esc[id>>6] |= 1 << (id & 63)
			insert(id, true)
		}
	}
	early := d.early
	for t := 0; t < d.jobs; t++ {
		if err := cancelled(ctx, int64(t)); err != nil {
			return err
		}
		step = int64(t)
		insert(int32(t), false)
		for len(early) > 0 && early[0]>>32 == uint64(t) {
			redeliver(int32(uint32(early[0])))
			early = early[1:]
		}
	}
	step = int64(d.jobs)
	for _, id := range d.late {
		redeliver(id)
	}
	return nil
}

// windowAt is one point of a window run: the stream, its delays, one window size.
type windowAt struct {
	stream    StreamParams
	maxDelay  int64
	delaySeed int64
	window    int64
}

// classifyWindow lists the jobs with the outcome: escaped (redelivered after its id left the
// window), caught (redelivered while it was still there) or delivered_once (never crashed).
func classifyWindow(ctx context.Context, a windowAt, outcome string, found func(int64)) error {
	s, err := drawStream(ctx, a.stream.Jobs, a.stream.CrashRate, a.stream.Seed)
	if err != nil {
		return err
	}
	d, err := drawDeliveries(ctx, s, a.maxDelay, a.delaySeed)
	if err != nil {
		return err
	}
	esc := make([]uint64, (len(s.crashed)+63)/64)
	if err := d.replay(ctx, a.window, esc, nil); err != nil {
		return err
	}
	for j, crashed := range s.crashed {
		got := "delivered_once"
		if crashed {
			got = "caught"
			if esc[j>>6]&(1<<(j&63)) != 0 {
				got = "escaped"
			}
		}
		if got == outcome {
			found(int64(j))
		}
	}
	return nil
}

// traceWindow tells job id's story at one window size.
func traceWindow(ctx context.Context, a windowAt, id int64) (string, []Event, error) {
	s, err := drawStream(ctx, a.stream.Jobs, a.stream.CrashRate, a.stream.Seed)
	if err != nil {
		return "", nil, err
	}
	var r recorder
	t := float64(id)
	r.add(t, EventDelivered, fmt.Sprintf("The queue hands job %d to a worker at step %d (attempt 1).", id, id))
	r.add(t, EventDedupMiss, "Its id is not in the dedup window.")
	r.add(t, EventApplied, "The effect lands.")
	r.add(t, EventKeyWritten, fmt.Sprintf("Its id enters the window, which remembers the last %s ids.", Thousands(a.window)))
	if !s.crashed[id] {
		r.add(t, EventAcked, "The worker acks; the job is never delivered again.")
		return "delivered_once", r.events, nil
	}
	// The job's delay is its draw from the delay stream, which draws once per crashed job in order.
	rng := newPyRandom(a.delaySeed)
	var delay int64
	for j := int64(0); j <= id; j++ {
		if s.crashed[j] {
			delay = rng.randint(1, a.maxDelay)
		}
	}
	due := id + delay - 1
	r.add(t, EventCrashed, "The worker dies after the effect and before the ack.")
	// One number for the reader: the gap to the step the job comes back. The drawn delay is one
	// more, because the document's loop counts the crash's own step as the first of it; a second
	// number to reconcile would teach nothing about dedup windows, so the sentence leaves it out.
	when := fmt.Sprintf("No ack arrived, so the queue will hand the job out again %s jobs later, at step %s.",
		Thousands(due-id), Thousands(due))
	if due >= a.stream.Jobs {
		when = fmt.Sprintf("No ack arrived; its wait runs past the last job, so the queue hands it out again after the stream ends, at step %s.",
			Thousands(a.stream.Jobs))
	}
	r.add(t, EventRedeliveryScheduled, when)
	d, err := drawDeliveries(ctx, s, a.maxDelay, a.delaySeed)
	if err != nil {
		return "", nil, err
	}
	watch := &windowWatch{target: int32(id)}
	esc := make([]uint64, (len(s.crashed)+63)/64)
	if err := d.replay(ctx, a.window, esc, watch); err != nil {
		return "", nil, err
	}
	if watch.evicted {
		how := "delivery"
		if watch.byRedelivery {
			how = "redelivery"
		}
		r.add(float64(watch.evictedAt), EventEvicted, fmt.Sprintf(
			"At step %s the %s of job %d enters the full window and pushes out its oldest id, job %d's.",
			Thousands(watch.evictedAt), how, watch.evictedBy, id))
	}
	at := float64(watch.redeliveredAt)
	r.add(at, EventRedelivered, fmt.Sprintf("At step %s a worker receives job %d again (attempt 2).",
		Thousands(watch.redeliveredAt), id))
	outcome := "caught"
	if watch.escaped {
		r.add(at, EventDedupMiss, "Its id has left the window, so the check does not recognise it.")
		r.add(at, EventApplied, "The effect lands a second time: this duplicate escaped.")
		r.add(at, EventKeyWritten, "Its id enters the window again, as new.")
		outcome = "escaped"
	} else {
		r.add(at, EventDedupHit, "Its id is still in the window, so the duplicate is caught and nothing is applied.")
	}
	r.add(at, EventAcked, "The second worker acks.")
	return outcome, r.events, nil
}

var windowOutcomes = []string{"escaped", "caught", "delivered_once"}

func windowTracer() *tracer {
	at := func(p WindowParams, pt int) windowAt {
		return windowAt{StreamParams{p.Jobs, p.CrashRate, p.Seed}, p.MaxDelay, p.DelaySeed, p.Windows[pt]}
	}
	return typedTracer("job", windowOutcomes,
		func(p WindowParams) []pointAt {
			var out []pointAt
			for _, w := range p.Windows {
				out = append(out, swept(float64(w)))
			}
			return out
		},
		func(p WindowParams) int64 { return p.Jobs },
		func(ctx context.Context, p WindowParams, pt int, o string, found func(int64)) error {
			return classifyWindow(ctx, at(p, pt), o, found)
		},
		func(ctx context.Context, p WindowParams, pt int, _ string, id int64) (string, []Event, error) {
			return traceWindow(ctx, at(p, pt), id)
		})
}

func windowGridTracer() *tracer {
	// Points run as the result's cells do: max delays outer, windows inner.
	at := func(p WindowGridParams, pt int) windowAt {
		w := len(p.Windows)
		return windowAt{StreamParams{p.Jobs, p.CrashRate, p.Seed}, p.MaxDelays[pt/w], p.DelaySeed, p.Windows[pt%w]}
	}
	return typedTracer("job", windowOutcomes,
		func(p WindowGridParams) []pointAt {
			var out []pointAt
			for _, md := range p.MaxDelays {
				for _, w := range p.Windows {
					out = append(out, cell(md, w))
				}
			}
			return out
		},
		func(p WindowGridParams) int64 { return p.Jobs },
		func(ctx context.Context, p WindowGridParams, pt int, o string, found func(int64)) error {
			return classifyWindow(ctx, at(p, pt), o, found)
		},
		func(ctx context.Context, p WindowGridParams, pt int, _ string, id int64) (string, []Event, error) {
			return traceWindow(ctx, at(p, pt), id)
		})
}
