package workbench

import (
	"fmt"

	"effectivelyonce/experiments"
)

// Event kinds for the handler's own operations, beside the experiments' vocabulary (delivered,
// crashed, acked, applied, dedup_hit, dedup_miss, key_written, evicted, committed, published,
// marked_sent, redelivery_scheduled, redelivered, lease_expired, renewed, heartbeat_late, started,
// finished), which the workbench uses wherever it fits.
const (
	// EventBegan: the handler opens a transaction.
	EventBegan experiments.EventKind = "began"
	// EventStaged: a write inside an open transaction (an effect, a key, an outbox row), not
	// durable before the commit.
	EventStaged experiments.EventKind = "staged"
	// EventRolledBack: a transaction ends without its writes, by rollback() or by a failed commit.
	EventRolledBack experiments.EventKind = "rolled_back"
	// EventReturned: handle returns; an unacked delivery's lease will run out.
	EventReturned experiments.EventKind = "returned"
)

// deliveryFacts is what one delivery of the traced job did and left behind: the explanation of a
// failing crash point is told from them.
type deliveryFacts struct {
	attempt   int32
	at        float64
	ops       []op
	crashed   bool
	acked     bool
	applied   uint16 // the job's effects committed when the delivery ended
	keysHeld  bool   // some key the job wrote is in the table when the delivery ended
	published uint16
	redueAt   int64 // the step its redelivery was queued for, or -1
	late      bool  // that redelivery comes after the stream ended
	// beforeWrite is the producer's world's crash plan: the write (1-based) the request dies just
	// before, 0 none.
	beforeWrite int
	expired     bool // its lease ran out while the job was unacked
	work        float64
}

// tracer records the life of one job through one run.
type tracer struct {
	job       int32
	now       float64
	events    []experiments.Event
	keys      []int32 // the keys the job's deliveries wrote
	published int
	evictedBy int32 // the job whose key pushed one of this job's keys out, -1 none
	evictions int
	facts     []deliveryFacts
	rt        *runtime
	in        *interner
}

func newTracer(job int32, rt *runtime, in *interner) *tracer {
	return &tracer{job: job, evictedBy: -1, rt: rt, in: in}
}

// on reports whether t records job j; a nil tracer records nothing.
func (t *tracer) on(j int32) bool { return t != nil && t.job == j }

func (t *tracer) add(kind experiments.EventKind, format string, args ...any) {
	t.events = append(t.events, experiments.Event{Step: t.now, Kind: kind, Detail: fmt.Sprintf(format, args...)})
}

func (t *tracer) cur() *deliveryFacts { return &t.facts[len(t.facts)-1] }

func (t *tracer) delivered(d *delivery) {
	t.facts = append(t.facts, deliveryFacts{attempt: d.attempt, at: t.now, redueAt: -1, beforeWrite: d.beforeWrite})
	if d.attempt == 1 {
		t.add(experiments.EventDelivered, "The queue hands job %d to a worker (delivery 1).", d.job)
	} else {
		t.add(experiments.EventRedelivered, "The queue hands job %d out again (delivery %d).", d.job, d.attempt)
	}
}

// label is how an operation is written in the source.
func (t *tracer) label(o *op) string {
	if t.rt != nil && o.site >= 0 && int(o.site) < len(t.rt.prog.siteList) {
		s := t.rt.prog.siteList[o.site]
		return fmt.Sprintf("`%s` (line %d)", s.Text, s.Line)
	}
	return "`" + o.kind.String() + "`"
}

func (t *tracer) op(d *delivery, o *op) {
	f := t.cur()
	f.ops = append(f.ops, *o)
	l := t.label(o)
	key := t.in.text(o.arg)
	switch o.kind {
	case opAck:
		t.add(experiments.EventAcked, "%s: the queue forgets the job; it will not hand it out again.", l)
	case opApply:
		t.add(experiments.EventApplied, "%s: the effect of job %d is committed at once.", l, o.arg)
	case opSeen, opTxSeen:
		if o.res {
			t.add(experiments.EventDedupHit, "%s finds the key %s in the table.", l, key)
		} else {
			t.add(experiments.EventDedupMiss, "%s does not find the key %s.", l, key)
		}
	case opRemember:
		if o.res {
			t.add(experiments.EventKeyWritten, "%s writes the key %s, committed at once, on its own.", l, key)
		} else {
			t.add(experiments.EventDedupHit, "%s finds the key %s already there and returns False.", l, key)
		}
	case opTxRemember:
		if o.res {
			t.add(EventStaged, "%s adds the key %s to the transaction; it is not durable before the commit.", l, key)
		} else {
			t.add(experiments.EventDedupHit, "%s finds the key %s already there and returns False.", l, key)
		}
	case opBegin:
		t.add(EventBegan, "%s opens a transaction.", l)
	case opTxApply:
		t.add(EventStaged, "%s writes job %d's effect in the transaction; it is not durable before the commit.", l, o.arg)
	case opTxOutbox:
		t.add(EventStaged, "%s writes an outbox row %s in the transaction.", l, key)
	case opCommit:
		if o.res {
			t.add(experiments.EventCommitted, "%s: the transaction's writes become durable together.", l)
		} else {
			t.add(EventRolledBack, "%s fails: another delivery committed the same key first, so nothing of this transaction is kept.", l)
		}
	case opRollback:
		t.add(EventRolledBack, "%s: the transaction ends and none of its writes are kept.", l)
	case opPublish:
		t.add(experiments.EventPublished, "%s sends the event %s to the second system at once.", l, key)
	case opWork:
		// told by working, which knows the duration
	}
}

func (t *tracer) relayed(d *delivery, event int32, i int, crashes bool) {
	t.published++
	if i == 0 {
		t.add(experiments.EventPublished, "After the commit, the relay publishes the outbox row %s.", t.in.text(event))
	} else {
		t.add(experiments.EventPublished, "The relay, started again, finds the row %s not marked sent and publishes it again.", t.in.text(event))
	}
	if crashes {
		t.add(experiments.EventCrashed, "The relay dies after publishing and before marking the row sent.")
	} else {
		t.add(experiments.EventMarkedSent, "The relay marks the outbox row sent.")
	}
}

func (t *tracer) crash(d *delivery) {
	f := t.cur()
	f.crashed = true
	if len(f.ops) == 0 {
		t.add(experiments.EventCrashed, "The worker dies before doing anything.")
		return
	}
	o := f.ops[len(f.ops)-1]
	open := 0
	for _, tx := range d.txs {
		if !tx.done {
			open++
		}
	}
	switch open {
	case 0:
		t.add(experiments.EventCrashed, "The worker dies right after %s.", t.label(&o))
	case 1:
		t.add(experiments.EventCrashed, "The worker dies right after %s; its open transaction dies with it, uncommitted.", t.label(&o))
	default:
		t.add(experiments.EventCrashed, "The worker dies right after %s; its %d open transactions die with it, uncommitted.", t.label(&o), open)
	}
}

func (t *tracer) finished(d *delivery, w *world) {
	f := t.cur()
	f.acked = d.acked
	f.applied = w.applied[d.job]
	f.published = w.published[d.job]
	for _, k := range t.keys {
		if w.keys.Seen(k) {
			f.keysHeld = true
		}
	}
	if !d.crashed {
		if d.acked {
			t.add(EventReturned, "handle returns.")
		} else {
			t.add(EventReturned, "handle returns without acking, so the job stays with the queue.")
		}
	}
}

func (t *tracer) scheduled(d *delivery, due, jobs int64) {
	f := t.cur()
	f.redueAt = due
	f.late = due >= jobs
	if f.late {
		t.add(experiments.EventRedeliveryScheduled, "No ack came, so the queue will hand job %d out again; the stream ends first, so it comes after the last job.", d.job)
		return
	}
	t.add(experiments.EventRedeliveryScheduled, "No ack came, so the queue will hand job %d out again at step %s.", d.job, thousands(due))
}

func (t *tracer) evicted(key int32, by *delivery) {
	for _, k := range t.keys {
		if k == key {
			t.evictions++
			// The first eviction is the one a redelivery missed the key by; a key written again
			// by the redelivery may be pushed out later too.
			if t.evictedBy < 0 {
				t.evictedBy = by.job
			}
			t.add(experiments.EventEvicted, "The key window forgets the key %s to make room for a key of job %d.", t.in.text(key), by.job)
			return
		}
	}
}

func (t *tracer) working(d *delivery, at, work, timeout float64) {
	t.cur().work = work
	if d.renew > 0 {
		t.add(experiments.EventStarted, "`work(renew_every=%s)` starts: the job takes %s s; the lease of %s s is renewed every %s s while it runs.",
			seconds(d.renew), seconds(work), seconds(timeout), seconds(d.renew))
		if d.renew > timeout {
			t.add(experiments.EventHeartbeatLate, "The first heartbeat, at %s s, comes after the lease ran out at %s s: it renews nothing.",
				seconds(at+d.renew), seconds(at+timeout))
		} else if d.expiry > at+timeout {
			t.add(experiments.EventRenewed, "Heartbeats in time keep the lease until %s s.", seconds(d.expiry))
		}
		return
	}
	t.add(experiments.EventStarted, "`work()` starts: the job takes %s s, under a lease of %s s that nothing renews.", seconds(work), seconds(timeout))
}

func (t *tracer) workDone(d *delivery, at float64) {
	t.add(experiments.EventFinished, "Delivery %d's work is done, at %s s.", d.attempt, seconds(at))
}

func (t *tracer) expired(d *delivery, at float64) {
	for i := range t.facts {
		if t.facts[i].attempt == d.attempt {
			t.facts[i].expired = true
		}
	}
	t.add(experiments.EventLeaseExpired, "Delivery %d's lease runs out at %s s with the job unacked.", d.attempt, seconds(at))
}

// seconds writes virtual seconds as the site writes them: at most three decimals.
func seconds(s float64) string { return experiments.FormatFloat(float64(int64(s*1000+0.5)) / 1000) }

func thousands(v int64) string { return experiments.Thousands(v) }
