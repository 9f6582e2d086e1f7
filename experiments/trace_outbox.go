package experiments

import "context"

// The outbox traces one event (a business change and the message about it) through one producer
// design and one consumer. Steps count the producer's and relay's writes: 1 is the producer's
// first write, 2 its second (for the outbox, the relay's first publish), and each step after that
// a publish the resumed relay repeats because it crashed before marking the row sent. The
// consumer's work on a copy is at the step that published it.

var outboxOutcomes = []string{"lost", "phantom", "duplicate_applications", "exactly_once", "failed_cleanly"}

func outboxTracer() *tracer {
	points := func(OutboxParams) []pointAt {
		var out []pointAt
		for _, d := range OutboxDesigns() {
			out = append(out, outboxAt(d, false), outboxAt(d, true))
		}
		return out
	}
	return typedTracer("step", outboxOutcomes, points,
		func(p OutboxParams) int64 { return p.Events },
		func(ctx context.Context, p OutboxParams, pt int, o string, found func(int64)) error {
			rng := newPyRandom(p.Seed)
			var r recorder
			for e := range p.Events {
				if err := cancelled(ctx, e); err != nil {
					return err
				}
				c := drawCrashes(rng, p.CrashRate)
				r.events = r.events[:0]
				if outboxStory(&r, pt/2, pt%2 == 1, c) == o {
					found(e)
				}
			}
			return nil
		},
		func(ctx context.Context, p OutboxParams, pt int, _ string, id int64) (string, []Event, error) {
			rng := newPyRandom(p.Seed)
			var c eventCrashes
			for e := int64(0); e <= id; e++ {
				if err := cancelled(ctx, e); err != nil {
					return "", nil, err
				}
				c = drawCrashes(rng, p.CrashRate)
			}
			var r recorder
			got := outboxStory(&r, pt/2, pt%2 == 1, c)
			return got, r.events, nil
		})
}

// outboxStory tells one event's story under the design (an index into OutboxDesigns()) and
// returns its outcome, which agrees with what produce and the consumer count for it.
func outboxStory(r *recorder, design int, dedup bool, c eventCrashes) string {
	committed, published := false, 0
	copies := 0
	consume := func(step float64) {
		copies++
		if copies == 1 {
			r.add(step, EventDelivered, "The consumer receives the event.")
		} else {
			r.add(step, EventRedelivered, "The consumer receives the same event again.")
		}
		if !dedup {
			r.add(step, EventApplied, "The consumer applies it; it keeps no record of the events it has seen.")
			return
		}
		if copies > 1 {
			r.add(step, EventDedupHit, "The event id is already in the consumer's table, so this copy changes nothing.")
			return
		}
		r.add(step, EventDedupMiss, "The event id is not in the consumer's table yet.")
		r.add(step, EventApplied, "The consumer applies it.")
		r.add(step, EventKeyWritten, "The event id commits in the same transaction as the effect.")
	}
	publish := func(step float64, detail string) {
		published++
		r.add(step, EventPublished, detail)
		consume(step)
	}
	if c.first {
		r.add(1, EventCrashed, "The producer dies at its first write: nothing is written or sent, and its caller sees the failure.")
		return "failed_cleanly"
	}
	switch design {
	case designDBFirst:
		committed = true
		r.add(1, EventCommitted, "The producer commits the row.")
		if c.second {
			r.add(2, EventCrashed, "The producer dies after the commit and before publishing: no event will ever say the row changed.")
			break
		}
		publish(2, "The producer publishes the event.")
	case designPublishFirst:
		publish(1, "The producer publishes the event first.")
		if c.second {
			r.add(2, EventCrashed, "The producer dies before the commit: the event announces a row that never existed.")
			break
		}
		committed = true
		r.add(2, EventCommitted, "The producer commits the row.")
	default:
		committed = true
		r.add(1, EventCommitted, "The row and its outbox row commit in one transaction.")
		if c.second {
			r.add(2, EventCrashed, "The relay dies before publishing; it resumes from the outbox row, which is still there.")
		}
		for i := 0; i <= c.markSent; i++ {
			step := float64(2 + i)
			if i == 0 {
				publish(step, "The relay publishes the outbox row's event.")
			} else {
				publish(step, "The resumed relay finds the row not marked sent and publishes it again.")
			}
			if i < c.markSent {
				r.add(step, EventCrashed, "The relay dies after publishing and before marking the row sent.")
			} else {
				r.add(step, EventMarkedSent, "The relay marks the outbox row sent.")
			}
		}
	}
	switch applied := r.applied(); {
	case committed && published == 0:
		return "lost"
	case !committed && published > 0:
		return "phantom"
	case applied > 1:
		return "duplicate_applications"
	}
	return "exactly_once"
}
