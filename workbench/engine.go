package workbench

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"slices"

	"effectivelyonce/experiments"
)

// record is what one delivery (a job and an attempt) did the last time it ran: its operations with
// their results, and whether handle returned after the last of them. A later run of the same
// delivery replays it without Starlark for as long as the world answers as it did then.
type record struct {
	ops      []op
	complete bool
}

// delivery is one handing of a job to a worker.
type delivery struct {
	job, attempt int32
	rec          *record
	pos          int // operations performed so far
	crashAt      int // die when about to perform operation crashAt+1; -1 never
	beforeWrite  int // the producer world: die just before this write (1-based); 0 never
	relayCrashes int // times the relay dies between publishing this delivery's outbox rows and marking them sent
	writes       int
	txs          []txState
	acked        bool
	crashed      bool
	// Lease time.
	worked        bool
	renew         float64
	start, expiry float64
}

// phase is where a delivery stopped.
type phase uint8

const (
	phaseReturned phase = iota // handle returned
	phaseCrashed               // the worker died at the crash point
	phaseWorking               // work() began; the delivery goes on when the job's duration has passed
)

// maxOps bounds the operations of one delivery, and the maxDeliveries the deliveries of one job:
// a handler past either is looping in a way no design needs, and the check says so. A queue
// redelivers a crash at most twice (crash_again), so ten deliveries of one job mean a handler that
// does not ack; under a lease, a slow job is handed out again every lease_timeout seconds it runs.
const (
	maxOps             = 1000
	maxDeliveries      = 10
	maxLeaseDeliveries = 1000
)

// engine runs a handler over the model world's stream, once per crash point.
type engine struct {
	ctx      context.Context
	p        Params
	jobs     int
	lease    bool // the handler names work(): redeliveries come when a lease lapses, in virtual time
	producer bool
	rt       *runtime
	in       *interner
	w        *world

	crashed []bool
	delays  []int64
	work    []float64
	prod    []experiments.ProducerCrash

	first     []*record          // attempt 1 of each job
	later     map[uint64]*record // attempts 2 and on
	perJob    []uint16           // deliveries of each job in the current run
	crashes   int64              // deliveries that crashed in the current run
	total     int64              // deliveries in the current run
	relayed   bool               // some commit published outbox rows
	published bool               // some delivery published or wrote an outbox row
	keyed     bool               // some delivery asked the dedup table
	spare     *delivery          // a finished delivery whose memory the next may reuse (queue and producer worlds)
	// placed puts the queue's redeliveries where the live lab saw them (CheckReplay); nil, at
	// the drawn delays.
	placed map[uint64]Redelivery
}

// errTooManyDeliveries is a job the queue would hand out forever.
type errTooManyDeliveries struct{ job, limit int32 }

func (e errTooManyDeliveries) Error() string {
	return fmt.Sprintf("job %d was delivered %s times and never acknowledged", e.job, thousands(int64(e.limit)))
}

func (e *engine) deliveryLimit() int {
	if e.lease {
		return maxLeaseDeliveries
	}
	return maxDeliveries
}

func newEngine(ctx context.Context, p Params, prog *program, rt *runtime) (*engine, error) {
	e := &engine{ctx: ctx, p: p, jobs: int(p.Jobs), lease: prog.usesWork && p.World == WorldConsumer,
		producer: p.World == WorldProducer, rt: rt, in: newInterner(), later: map[uint64]*record{}}
	rt.bind, rt.jobs, rt.seed = model{e}, e.jobs, p.Seed
	var err error
	if e.producer {
		if e.prod, err = experiments.ProducerCrashes(ctx, p.Jobs, p.CrashRate, p.Seed); err != nil {
			return nil, err
		}
	} else {
		if e.crashed, err = experiments.Crashes(ctx, p.Jobs, p.CrashRate, p.Seed); err != nil {
			return nil, err
		}
		if e.delays, err = experiments.RedeliveryDelays(ctx, e.crashed, p.MaxDelay, p.DelaySeed); err != nil {
			return nil, err
		}
	}
	if e.lease {
		lp := experiments.DefaultLeaseParams()
		lp.Jobs, lp.Seed, lp.SlowFraction, lp.FastMeanS, lp.SlowMeanS = p.Jobs, p.DurationSeed, p.SlowFraction, p.FastMeanS, p.SlowMeanS
		if e.work, err = experiments.LeaseDurations(ctx, lp); err != nil {
			return nil, err
		}
	}
	e.first = make([]*record, e.jobs)
	e.perJob = make([]uint16, e.jobs)
	e.w = newWorld(e.jobs, p.KeyWindow, e.in)
	return e, nil
}

// step performs one operation of d, unless d's worker dies first.
func (e *engine) step(d *delivery, o *op) (bool, error) {
	if d.pos == d.crashAt || (d.beforeWrite > 0 && o.isWrite() && d.writes+1 == d.beforeWrite) {
		return false, errCrash
	}
	if d.pos >= maxOps {
		return false, fmt.Errorf("one delivery of job %d performed more than %s operations; a check allows %s", d.job, thousands(maxOps), thousands(maxOps))
	}
	res, err := e.w.exec(d, o)
	if err != nil {
		return false, err
	}
	o.res = res
	d.pos++
	switch o.kind {
	case opApply, opRemember, opPublish:
		d.writes++
	case opCommit:
		d.writes++
		if res && len(d.txs[o.tx].outbox) > 0 {
			e.relayed = true
		}
	case opWork:
		d.worked, d.renew = true, o.renew
	}
	switch o.kind {
	case opPublish, opTxOutbox:
		e.published = true
	case opSeen, opRemember, opTxSeen, opTxRemember:
		e.keyed = true
	}
	if e.w.tr.on(d.job) {
		e.w.tr.op(d, o)
	}
	return res, nil
}

// advance runs d until it returns, crashes or begins its work: by replay while the world answers
// as it did when the delivery was recorded, live in Starlark from the first answer that differs.
func (e *engine) advance(d *delivery) (phase, error) {
	if r := d.rec; r != nil {
		for d.pos < len(r.ops) {
			o := r.ops[d.pos]
			want := o.res
			res, err := e.step(d, &o)
			if errors.Is(err, errCrash) {
				return e.crash(d), nil
			}
			if err != nil {
				return 0, err
			}
			if res != want {
				prefix := append(slices.Clone(r.ops[:d.pos-1]), o)
				return e.live(d, prefix)
			}
			if o.kind == opWork && e.lease {
				return phaseWorking, nil
			}
		}
		if r.complete {
			return e.returned(d), nil
		}
		return e.live(d, slices.Clone(r.ops[:d.pos]))
	}
	return e.live(d, nil)
}

func (e *engine) live(d *delivery, prefix []op) (phase, error) {
	if err := e.ctx.Err(); err != nil {
		return 0, err
	}
	ops, err := e.rt.run(d, prefix)
	rec := &record{ops: ops, complete: err == nil}
	d.rec = rec
	if d.attempt == 1 {
		e.first[d.job] = rec
	} else {
		e.later[uint64(d.job)<<32|uint64(d.attempt)] = rec
	}
	switch {
	case err == nil:
		return e.returned(d), nil
	case errors.Is(err, errCrash):
		return e.crash(d), nil
	case errors.Is(err, errSuspend):
		return phaseWorking, nil
	}
	return 0, err
}

// returned ends a delivery whose handle returned. A crash point right after the last operation
// still kills the worker, only with nothing left to lose: the point is counted as a crash so that
// its row says how many workers died there.
func (e *engine) returned(d *delivery) phase {
	if d.pos == d.crashAt {
		return e.crash(d)
	}
	return phaseReturned
}

// crash ends d where its worker died: an open transaction is simply never committed.
func (e *engine) crash(d *delivery) phase {
	d.crashed = true
	e.crashes++
	if e.w.tr.on(d.job) {
		e.w.tr.crash(d)
	}
	return phaseCrashed
}

// run is one pass of the stream's first n jobs with the crash at point (-1: no crash).
type run struct {
	point int // -1 none; 0..ops a crash point; relayPoint the relay's
	n     int
}

// relayPoint is the crash point at which the outbox relay, not the worker, dies.
const relayPoint = 1 << 20

// newDelivery hands job j to a worker for the attempt-th time, with the run's crash plan.
func (e *engine) newDelivery(r run, j int32, attempt int32) (*delivery, error) {
	e.perJob[j]++
	e.total++
	if limit := e.deliveryLimit(); int(e.perJob[j]) > limit {
		return nil, errTooManyDeliveries{j, int32(limit)}
	}
	d := e.spare
	if d == nil || e.lease {
		d = &delivery{}
	}
	e.spare = nil
	*d = delivery{job: j, attempt: attempt, crashAt: -1, txs: d.txs[:0]}
	if attempt == 1 {
		d.rec = e.first[j]
	} else {
		d.rec = e.later[uint64(j)<<32|uint64(attempt)]
	}
	switch {
	case e.producer:
		c := e.prod[j]
		if c.First {
			d.beforeWrite = 1
		} else if c.Second {
			d.beforeWrite = 2
		}
		d.relayCrashes = c.RelayCrashes
	case r.point >= 0 && e.crashed[j] && (attempt == 1 || (attempt == 2 && e.p.CrashAgain)):
		if r.point == relayPoint {
			d.relayCrashes = 1
		} else {
			d.crashAt = r.point
		}
	}
	if e.w.tr.on(j) {
		e.w.tr.delivered(d)
	}
	return d, nil
}

// pass runs the stream once and leaves the outcome in e.w.
func (e *engine) pass(r run) error {
	e.w.reset()
	clear(e.perJob)
	e.crashes, e.total = 0, 0
	switch {
	case e.producer:
		return e.passProducer(r)
	case e.lease:
		return e.passLease(r)
	}
	return e.passQueue(r)
}

// passProducer is the concept page's producer: every request is delivered once and never retried.
func (e *engine) passProducer(r run) error {
	for j := range r.n {
		if j%4096 == 0 {
			if err := e.ctx.Err(); err != nil {
				return err
			}
		}
		e.setStep(float64(j))
		d, err := e.newDelivery(r, int32(j), 1)
		if err != nil {
			return err
		}
		for {
			ph, err := e.advance(d)
			if err != nil {
				return err
			}
			if ph != phaseWorking {
				break
			}
		}
		e.finished(d)
		e.recycle(d)
	}
	return nil
}

// pending is a redelivery waiting in the queue.
type pending struct {
	due, seq int64
	job      int32
	attempt  int32
}

type pendingHeap []pending

func (h pendingHeap) Len() int { return len(h) }
func (h pendingHeap) Less(i, j int) bool {
	return h[i].due < h[j].due || (h[i].due == h[j].due && h[i].seq < h[j].seq)
}
func (h pendingHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *pendingHeap) Push(x any)   { *h = append(*h, x.(pending)) }
func (h *pendingHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// passQueue is the hands-on document's queue. Job t is delivered at step t; a delivery that ends
// unacked is handed out again delay jobs later, as block 4's loop does it: a redelivery queued at
// step t with delay d arrives at step t+d-1, after job t+d-1's own delivery, in the order the
// redeliveries were queued; one still queued when the stream ends arrives then, in queue order.
// A crashed job's delay is its draw from Random(delay_seed); a delivery that returned without
// acking waits max_delay jobs, its whole lease.
func (e *engine) passQueue(r run) error {
	var q pendingHeap
	var seq int64
	deliver := func(t int64, j, attempt int32) error {
		e.setStep(float64(t))
		d, err := e.newDelivery(r, j, attempt)
		if err != nil {
			return err
		}
		if _, err := e.advance(d); err != nil {
			return err
		}
		e.finished(d)
		defer e.recycle(d)
		if d.acked || e.w.acked[j] {
			return nil
		}
		delay := e.p.MaxDelay
		if d.crashed && e.crashed[j] {
			delay = e.delays[j]
		}
		due := t + delay
		if attempt == 1 {
			due-- // the document's loop counts the step it queued the redelivery in
		}
		seq++
		due, order := e.place(j, attempt, due, seq)
		heap.Push(&q, pending{due: due, seq: order, job: j, attempt: attempt + 1})
		if e.w.tr.on(j) {
			e.w.tr.scheduled(d, due, int64(r.n))
		}
		return nil
	}
	n := int64(r.n)
	for t := range n {
		if t%4096 == 0 {
			if err := e.ctx.Err(); err != nil {
				return err
			}
		}
		if err := deliver(t, int32(t), 1); err != nil {
			return err
		}
		for len(q) > 0 && q[0].due <= t {
			x := heap.Pop(&q).(pending)
			if err := deliver(t, x.job, x.attempt); err != nil {
				return err
			}
		}
	}
	// The stream has ended: what is still queued arrives in queue order, and a redelivery that
	// fails again joins the end of the line.
	for len(q) > 0 {
		late := slices.Clone(q)
		q = q[:0]
		slices.SortFunc(late, func(a, b pending) int { return int(a.seq - b.seq) })
		for _, x := range late {
			if err := e.ctx.Err(); err != nil {
				return err
			}
			if err := deliver(n, x.job, x.attempt); err != nil {
				return err
			}
		}
	}
	return nil
}

// finished notes the end of a delivery for a traced job.
func (e *engine) finished(d *delivery) {
	if e.w.tr.on(d.job) {
		e.w.tr.finished(d, e.w)
	}
}

// recycle hands a delivery that is over back for the next one's memory.
func (e *engine) recycle(d *delivery) {
	if !e.lease {
		e.spare = d
	}
}

func (e *engine) setStep(t float64) {
	if e.w.tr != nil {
		e.w.tr.now = t
	}
}
