package lab

// The lease designs: block 6 on a real broker. No worker crashes; each job takes the time block 6
// draws for it, scaled down, and the consumer's AckWait is the visibility timeout. Without renewal
// a job that outlives the AckWait is handed to a second worker while the first still works on it,
// and both apply it. With renewal the worker sends in-progress acks (msg.InProgress) every third
// of the AckWait, each of which pushes the broker's redelivery a full AckWait away, so no job is
// handed out twice however long it runs.

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"effectivelyonce/experiments"
)

// ModelSecond is the real time one of block 6's model seconds takes in the lab: a job the model
// says lasts 2 s sleeps 20 ms, and a 5 s visibility timeout is a 50 ms AckWait. Small enough that
// a few hundred jobs run in seconds; large enough that the broker's and the scheduler's jitter (a
// millisecond or two) is a small share of a job.
const ModelSecond = 10 * time.Millisecond

// The lease designs' visibility timeout, in model seconds. The default, 5 s (a 50 ms AckWait), is
// block 6's shortest: about one job in eight outlives it (most slow jobs, 8% of the fast ones),
// enough to see at 200 jobs. The bounds keep the AckWait within Config's 10 ms - 1 min.
const (
	DefaultLeaseTimeout = 5.0
	MinLeaseTimeout     = 1.0
	MaxLeaseTimeout     = 600.0
)

// DefaultLeaseJobs is a quick lease run: 200 jobs of block 6's durations (3.9 model seconds on
// average, 39 ms here) keep 4 workers busy for about 2-3 s, duplicates included.
const DefaultLeaseJobs = 200

// leaseConcurrency is how many jobs a lease run works on at once, spread evenly over its worker
// processes (leaseSlots each), each job pulled and worked on by its own loop, like workers with a
// thread pool. A job is executed twice only if someone takes its redelivery before its first
// holder acks, and the model assumes someone always does, at once. With every job published up
// front, one job per process keeps all the workers busy with the backlog until it drains: a
// redelivery waits for the next worker to finish, and a job that outlives its lease by less than
// that wait is acked before anyone takes it again (at 200 jobs, 4 workers of one slot showed 19-21
// duplicated where the model says 26-30). 32 slots make that wait a millisecond or two; many more
// queue the workers at the sink's write lock, which delays acks past the lease (64 slots doubled
// 39 jobs where the model says 26). Fixing the total rather than the slots per process keeps the
// count the same whatever the number of workers. The crash designs keep one job per process, as
// their model does.
const leaseConcurrency = 32

// leaseSlots is each of workers lease worker processes' share of leaseConcurrency.
func leaseSlots(workers int) int { return max(1, (leaseConcurrency+workers-1)/workers) }

// MinLeaseWorkers is the fewest lease workers: one process holds the whole leaseConcurrency, so
// even a single worker takes a redelivery while it still works on the first copy. The heartbeat
// design doubles nothing with any number.
const MinLeaseWorkers = 1

// leaseMaxDeliver is the lease designs' MaxDeliver. The model hands a job that outlives its lease
// to one other worker; a broker with a higher bound would hand it out again each AckWait until its
// first worker acks (a 400 ms job, a 50 ms lease: eight times), which changes no job's verdict
// (duplicated is "more than once") but fills every worker with stale copies, delays the
// redeliveries that matter and slows the run. Two deliveries allow the one redelivery the model has.
const leaseMaxDeliver = 2

// leaseJitter is how much earlier or later real time can decide a lease than the model: the broker
// starts the AckWait when it sends the job, the worker starts its sleep when the job arrives, the
// broker's redelivery timer and the sleep each overshoot, and the effect and ack take a few
// milliseconds after the sleep. A job whose scaled duration lies within leaseJitter of the AckWait
// may come out either way; every other job comes out as the model says (given enough workers).
const leaseJitter = 5 * time.Millisecond

// leaseSettle is how long a lease run that looks over waits for a delivery the broker made but no
// worker logged: normally none, as the broker sends only to a waiting pull, but a pull that timed
// out as its job arrived drops the job unread, and the run must not wait for it until its deadline.
const leaseSettle = time.Second

// scaled is a model duration in real time.
func scaled(modelSeconds float64) time.Duration {
	return time.Duration(math.Round(modelSeconds * float64(ModelSecond)))
}

// leaseParams are block 6's durations for jobs 0..jobs-1 from seed: its slow fraction and means.
func leaseParams(jobs, seed int64) experiments.LeaseParams {
	p := experiments.DefaultLeaseParams()
	p.Jobs, p.Seed = jobs, seed
	return p
}

// leaseModel is block 6's prediction at the run's scaled parameters: the jobs the model doubles
// (the sample the event log tells), their count, and the tolerance MatchesModel allows.
func leaseModel(d Design, work []float64, timeout float64) (doubled []int64, dup, tolerance int64) {
	switch d {
	case LeaseNoRenewal:
		dup = int64(experiments.LeaseWithoutRenewal(work, timeout))
		band := leaseJitter.Seconds() / ModelSecond.Seconds() // in model seconds
		for j, w := range work {
			if w > timeout {
				doubled = append(doubled, int64(j))
			}
			if math.Abs(w-timeout) <= band {
				tolerance++
			}
		}
	case LeaseHeartbeat:
		// Renewing every third of the timeout doubles nothing (normally 0), and a heartbeat would
		// have to be two thirds of a lease late to let one through: no tolerance. The sample is the
		// slowest jobs, the ones renewed most often.
		dup = int64(experiments.LeaseWithRenewal(work, timeout, timeout/3))
		for j, w := range work {
			if w > timeout {
				doubled = append(doubled, int64(j))
			}
		}
	}
	return doubled, dup, tolerance
}

// handleLease runs one delivery of a lease design: log the delivery, work the job's scaled
// duration (renewing the lease every third of the AckWait under lease-heartbeat), apply the
// effect, ack, and close the log row. A worker holding a redelivered job cannot know that another
// one has it too, so it applies the effect as well: that is the duplicate being measured.
func (w *worker) handleLease(ctx context.Context, msg jetstream.Msg, job int64, attempt int) error {
	start := time.Now() // the lease runs from the delivery: the log write below eats into it too
	row, err := w.begin(ctx, job, attempt, 0)
	if err != nil {
		return err
	}
	beats, gap, err := w.hold(ctx, msg, start, scaled(w.work[job])-time.Since(start))
	if err != nil {
		return fmt.Errorf("lab worker: job %d: %w", job, err)
	}
	worked := time.Since(start)
	if err := w.effect(ctx, job, attempt); err != nil {
		return err
	}
	what := fmt.Sprintf("worked %v (model %.2f s against a %v lease), %d in-progress acks; applied the effect",
		worked.Round(time.Millisecond), w.work[job], w.ackWait, beats)
	if w.design == LeaseHeartbeat && gap >= w.ackWait {
		// The machine, not the design, let this lease lapse: the run states it (see lateBeats).
		what += fmt.Sprintf("; %s %v apart, longer than the lease", lateBeat, gap.Round(time.Millisecond))
	}
	if beats == 0 {
		what += w.slowAckNote(job, time.Since(start))
	}
	actx, cancel := context.WithTimeout(ctx, ackTimeout)
	defer cancel()
	if err := msg.DoubleAck(actx); err != nil {
		// The job's other delivery may have been acked first; the broker owes this one nothing.
		// The effect is applied either way, which is what the count measures.
		what += ", ack not confirmed: " + err.Error()
	} else {
		what += ", acked"
	}
	return w.end(ctx, row, what)
}

// slowAck begins what a delivery without renewals logs when its ack left the worker at or past
// the lease (less leaseJitter) although its model duration ends well inside it: the machine was
// slower than the model (a busy core, a slow commit), so the broker may have handed the job out
// again where the model never would. The run counts these (SlowAcks) and states them.
const slowAck = "acked past its lease"

// slowAckNote is what a delivery of job, whose ack left held after it arrived and which sent no
// renewal, adds to its log row: "" unless it is a slow ack.
func (w *worker) slowAckNote(job int64, held time.Duration) string {
	if w.ackWait <= 0 || int(job) >= len(w.work) {
		return ""
	}
	edge := w.ackWait - leaseJitter
	if model := scaled(w.work[job]); model >= edge || held < edge {
		return ""
	}
	return fmt.Sprintf("; %s: %v after it arrived, where its model duration of %.2f s ends inside the %v lease",
		slowAck, held.Round(time.Millisecond), w.work[job], w.ackWait)
}

// lateBeat begins what a lease-heartbeat delivery logs when two of its renewals (or its arrival
// and its first, or its last and the end of its work) came further apart than the lease: a
// machine too busy to keep time, which the model's heartbeat never is.
const lateBeat = "renewals came"

// hold sleeps the rest of the job's work; under lease-heartbeat it sends an in-progress ack every
// third of the AckWait meanwhile, counted from the job's arrival (start). It returns how many it
// sent and the longest time the lease went unrenewed, by this worker's clock.
func (w *worker) hold(ctx context.Context, msg jetstream.Msg, start time.Time, work time.Duration) (beats int, gap time.Duration, err error) {
	done := time.NewTimer(work)
	defer done.Stop()
	var tick <-chan time.Time
	if w.design == LeaseHeartbeat {
		t := time.NewTicker(w.ackWait / 3)
		defer t.Stop()
		tick = t.C
	}
	last := start
	renewed := func() {
		now := time.Now()
		gap, last = max(gap, now.Sub(last)), now
	}
	for {
		select {
		case <-ctx.Done():
			return beats, gap, ctx.Err()
		case <-done.C:
			renewed() // the ack that follows ends the lease as a renewal would
			return beats, gap, nil
		case <-tick:
			if err := msg.InProgress(); err != nil {
				return beats, gap, fmt.Errorf("in-progress ack: %w", err)
			}
			renewed()
			beats++
		}
	}
}

// begin logs a lease delivery as in progress (acked = 0) before its work starts, so that the run
// can tell a job still being worked on by a second worker from a finished one: the first worker's
// ack clears the job at the broker while the second still sleeps, and counting then would miss
// the second effect.
func (w *worker) begin(ctx context.Context, job int64, attempt int, seq uint64) (int64, error) {
	// RETURNING rather than LastInsertId, which Postgres's driver does not give.
	var row int64
	err := w.db.QueryRowContext(ctx, `INSERT INTO deliveries (job, worker, attempt, seq, at_ns, acked, what) VALUES ($1, $2, $3, $4, $5, 0, $6) RETURNING id`,
		job, w.id, attempt, int64(seq), time.Now().UnixNano(), "delivered, working").Scan(&row)
	if err != nil {
		return 0, fmt.Errorf("lab worker: log of job %d: %w", job, err)
	}
	return row, nil
}

// end closes a lease delivery's log row: done, with what happened.
func (w *worker) end(ctx context.Context, row int64, what string) error {
	if _, err := w.db.ExecContext(ctx, `UPDATE deliveries SET acked = 1, what = $1 WHERE id = $2`, what, row); err != nil {
		return fmt.Errorf("lab worker: log row %d: %w", row, err)
	}
	return nil
}
