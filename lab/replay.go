package lab

// The handler design's replay. The workbench's model redelivers a crashed job at a delay drawn
// from Random(delay_seed), up to max_delay jobs later; the real broker redelivers it once its ack
// wait has passed, which is as many jobs later as the workers got through meanwhile. Where the
// delays matter (a key window: did the key outlive them?) the two would differ for a reason that
// has nothing to do with the handler. So once a run of a handler out of lease time is over, the
// model is checked again with every redelivery placed where the broker handed it out: each
// delivery's consumer sequence is the broker's own hand-out order, and the jobs were published
// in order, so a redelivery comes right after the first delivery of the last job handed out
// before it.
//
// The real workers then differ from the replay only in the order in which concurrent deliveries
// commit. With W workers each holding one job, a commit can land up to W-1 deliveries away from
// its place in the hand-out order, at either end of a redelivery's gap: a redelivery whose gap
// lies within windowBand of the key window is near the window's edge, and its job's verdict is
// not claimed (it joins the result's Tolerance), as the lease runs' and the publisher's
// near-edge cases are not.

import (
	"context"
	"database/sql"
	"fmt"

	"effectivelyonce/workbench"
)

// windowBand is how near, in deliveries, a redelivery's gap may come to the key window and still
// have its verdict claimed: twice the deliveries in flight, one set for each end of the gap.
func windowBand(workers int) int64 { return 2 * int64(workers) }

// redeliveries reads the log in the broker's hand-out order and places each redelivery after the
// last job whose first delivery preceded it. With a key window, near names the jobs one of whose
// redeliveries came a number of deliveries after the delivery before it that lies within band of
// the window.
func redeliveries(ctx context.Context, db *sql.DB, window, band int64) (at []workbench.Redelivery, near map[int64]bool, err error) {
	rows, err := db.QueryContext(ctx, `SELECT job, attempt, seq FROM deliveries WHERE seq > 0 ORDER BY seq`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	type key struct{ job, attempt int64 }
	seqs := map[key]int64{}
	near = map[int64]bool{}
	last := int64(-1) // the last job whose first delivery has been handed out
	for rows.Next() {
		var job, attempt, seq int64
		if err := rows.Scan(&job, &attempt, &seq); err != nil {
			return nil, nil, err
		}
		seqs[key{job, attempt}] = seq
		if attempt <= 1 {
			last = max(last, job)
			continue
		}
		at = append(at, workbench.Redelivery{Job: job, Attempt: attempt, After: max(last, 0), Order: seq})
		if prev, ok := seqs[key{job, attempt - 1}]; ok && window > 0 {
			if gap := seq - prev - 1; max(gap-window, window-gap) <= band {
				near[job] = true
			}
		}
	}
	return at, near, rows.Err()
}

// replayHandler sets res's model to the workbench's check of the handler replayed at the run's
// own redeliveries, keeping the drawn delays' counts beside it, and adds the jobs near the key
// window's edge to the tolerance.
func replayHandler(ctx context.Context, cfg Config, db *sql.DB, res *Result) error {
	h := cfg.Handler
	at, near, err := redeliveries(ctx, db, h.KeyWindow, windowBand(cfg.Workers))
	if err != nil {
		return fmt.Errorf("lab: sink: %w", err)
	}
	check := h.Check
	if check == nil {
		check = workbench.CheckReplay // a trusted handler's (see HandlerConfig.Model)
	}
	m, err := check(ctx, h.Source, cfg.CheckParams(), at)
	if err != nil {
		return fmt.Errorf("lab: the model replayed at the run's redeliveries: %w", err)
	}
	if len(m.Points) != 1 || m.Points[0].CrashPoint != h.CrashPoint {
		return fmt.Errorf("lab: the model's replay answered %d crash points, not point %d", len(m.Points), h.CrashPoint)
	}
	pt, hr := m.Points[0], res.Handler
	hr.Drawn = &DrawnCounts{Lost: res.ModelLost, Duplicated: res.ModelDuplicated, ExactlyOnce: hr.ModelExactlyOnce}
	res.ModelLost, res.ModelDuplicated = pt.Lost, pt.Duplicated
	hr.ModelExactlyOnce, hr.ModelCrashed, hr.Replayed = pt.ExactlyOnce, pt.Crashed, true
	if pt.EventsLost != nil {
		hr.ModelEvents = &EventCounts{Lost: *pt.EventsLost, Phantom: *pt.EventsPhantom, Duplicated: *pt.EventsDuplicated, Extra: *pt.ExtraEvents}
	}
	hr.NearEdge = int64(len(near))
	res.Tolerance += hr.NearEdge
	return nil
}
