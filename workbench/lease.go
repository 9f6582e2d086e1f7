package workbench

import (
	"container/heap"
	"math"
)

// leaseEvent is something that happens to one job at a moment of its virtual time.
type leaseEvent struct {
	t    float64
	kind uint8 // leaseResume before leaseExpire at the same moment: an ack at the expiry is in time
	seq  int
	d    *delivery
}

const (
	leaseResume uint8 = iota // the delivery's work is done; it goes on with what follows work()
	leaseExpire              // the delivery's lease runs out unless the job was acked
)

type leaseHeap []leaseEvent

func (h leaseHeap) Len() int { return len(h) }
func (h leaseHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.t != b.t {
		return a.t < b.t
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.seq < b.seq
}
func (h leaseHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *leaseHeap) Push(x any)   { *h = append(*h, x.(leaseEvent)) }
func (h *leaseHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// passLease is block 6's queue, for a handler that calls work(). Each job has its own clock,
// starting at 0 when it is first delivered; jobs are taken in stream order, one job's deliveries
// all before the next job's. A delivery holds the job under a lease of lease_timeout seconds. Its
// operations before work() happen at its start, work() takes the job's duration (Random(31), as
// the lease experiment draws it), and the operations after it happen when the work is done.
//
// The lease experiment's rules: while the work runs, a heartbeat every renew_every seconds that
// arrives at or before the lease's expiry pushes it to a full lease from that moment; one that
// arrives later renews nothing. When a lease runs out before the job is acked, the queue hands the
// job to another worker at that moment, while the first may still be working; an ack from any
// delivery (at or before an expiry) ends the job's redeliveries. A crashed worker sends nothing
// more, so its lease runs out and the job is redelivered then.
func (e *engine) passLease(r run) error {
	T := e.p.LeaseTimeout
	for j := range int32(r.n) {
		if j%1024 == 0 {
			if err := e.ctx.Err(); err != nil {
				return err
			}
		}
		var q leaseHeap
		seq := 0
		var holder *delivery
		push := func(t float64, kind uint8, d *delivery) {
			seq++
			heap.Push(&q, leaseEvent{t: t, kind: kind, seq: seq, d: d})
		}
		// settle schedules what follows a delivery's stop at time t.
		settle := func(d *delivery, ph phase, t float64) {
			e.setStep(t)
			if ph == phaseWorking {
				end := t + e.work[j]
				d.expiry = renewedExpiry(t, e.work[j], d.renew, d.expiry, T)
				if e.w.tr.on(j) {
					e.w.tr.working(d, t, e.work[j], T)
				}
				push(end, leaseResume, d)
				push(d.expiry, leaseExpire, d)
				return
			}
			e.finished(d)
			if !e.w.acked[j] {
				push(d.expiry, leaseExpire, d)
			}
		}
		start := func(attempt int32, t float64) error {
			d, err := e.newDelivery(r, j, attempt)
			if err != nil {
				return err
			}
			d.start, d.expiry = t, t+T
			holder = d
			e.setStep(t)
			ph, err := e.advance(d)
			if err != nil {
				return err
			}
			settle(d, ph, t)
			return nil
		}
		if err := start(1, 0); err != nil {
			return err
		}
		for len(q) > 0 {
			ev := heap.Pop(&q).(leaseEvent)
			d := ev.d
			switch ev.kind {
			case leaseResume:
				e.setStep(ev.t)
				if e.w.tr.on(j) {
					e.w.tr.workDone(d, ev.t)
				}
				ph, err := e.advance(d)
				if err != nil {
					return err
				}
				e.setStep(ev.t)
				if ph == phaseWorking { // cannot happen: work() is refused a second time
					ph = phaseReturned
				}
				e.finished(d)
			case leaseExpire:
				if e.w.acked[j] || holder != d {
					continue
				}
				if e.w.tr.on(j) {
					e.setStep(ev.t)
					e.w.tr.expired(d, ev.t)
				}
				if err := start(d.attempt+1, ev.t); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// renewedExpiry is when a lease that expires at expiry, held by a worker that works from start
// for work seconds and sends a heartbeat every renew seconds (0: never), finally expires. The
// walk of the lease experiment, in closed form: a heartbeat is in time iff it comes at or before
// the expiry the previous one set, and each sets expiry to its own moment plus timeout, so either
// every heartbeat is in time (renew <= timeout) or the first is already late.
func renewedExpiry(start, work, renew, expiry, timeout float64) float64 {
	if renew <= 0 || start+renew > expiry {
		return expiry
	}
	// The last heartbeat is the last k with k*renew < work.
	k := math.Ceil(work/renew) - 1
	if k < 1 {
		return expiry
	}
	return start + k*renew + timeout
}
