package lab

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"effectivelyonce/experiments"
)

// The environment Run gives each worker process. A worker learns everything from it, the crash
// stream included (as its parameters, not as a list), so that the command line stays the
// caller's and no file has to be shared.
const (
	envNATS     = "LAB_WORKER_NATS_URL"
	envStream   = "LAB_WORKER_STREAM"
	envSink     = "LAB_WORKER_SINK"
	envDesign   = "LAB_WORKER_DESIGN"
	envJobs     = "LAB_WORKER_JOBS"
	envRate     = "LAB_WORKER_CRASH_RATE"
	envSeed     = "LAB_WORKER_SEED"
	envWorkerID = "LAB_WORKER_ID"
	envSlots    = "LAB_WORKER_SLOTS" // the lease designs' jobs at once per worker (see leaseSlots)
	envAcks     = "LAB_WORKER_ACKS"  // "fire-and-forget" for plain acks, anything else confirmed
)

// acksFireAndForget is envAcks's value for Config.FireAndForgetAcks.
const acksFireAndForget = "fire-and-forget"

// fetchWait is how long one pull waits for a job. It bounds nothing that matters to the counts; it
// only sets how often an idle worker looks at its context.
const fetchWait = 500 * time.Millisecond

// ackTimeout bounds the wait for the server's confirmation of an ack.
const ackTimeout = 5 * time.Second

type worker struct {
	id      int
	design  Design
	plain   bool // fire-and-forget acks (Config.FireAndForgetAcks)
	crashed []bool
	db      *sql.DB
	// The lease designs': each job's duration in model seconds, and the consumer's AckWait.
	work    []float64
	ackWait time.Duration
	// hd is the handler design's: the reader's handler and where it dies (nil otherwise).
	hd *handlerWorker
	// alone lets the handler design's worker die holding only its crashed delivery (see drain).
	alone *drain
}

// WorkerMain is a worker process: it pulls one job at a time from the run's consumer and
// applies it to the sink as its design says, until ctx ends. On the first delivery of a job the
// seeded stream marks as crashed it kills its own process with SIGKILL at the design's crash
// point: no deferred call, no flush, no goodbye to the broker, exactly like a machine losing
// power. getenv is os.Getenv in a real process.
func WorkerMain(ctx context.Context, getenv func(string) string) error {
	w := &worker{design: Design(getenv(envDesign)), plain: getenv(envAcks) == acksFireAndForget}
	var err error
	if w.id, err = strconv.Atoi(getenv(envWorkerID)); err != nil {
		return fmt.Errorf("lab worker: %s: %w", envWorkerID, err)
	}
	jobs, err1 := strconv.ParseInt(getenv(envJobs), 10, 64)
	rate, err2 := strconv.ParseFloat(getenv(envRate), 64)
	seed, err3 := strconv.ParseInt(getenv(envSeed), 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		return fmt.Errorf("lab worker: stream parameters: %w", err)
	}
	cfg := Config{Design: w.design, Jobs: jobs, Workers: 1, CrashRate: rate, Seed: seed}
	if w.design == DesignHandler {
		if w.hd, err = readHandler(getenv, &cfg); err != nil {
			return err
		}
	}
	if err := cfg.validate(false); err != nil {
		return fmt.Errorf("lab worker: %w", err)
	}
	if w.design.IsLease() {
		// No crash: a lease design's duplicates are the lease's alone.
		w.crashed = make([]bool, jobs)
		if w.work, err = experiments.LeaseDurations(ctx, leaseParams(jobs, seed)); err != nil {
			return fmt.Errorf("lab worker: %w", err)
		}
	} else if w.crashed, err = experiments.Crashes(ctx, jobs, rate, seed); err != nil {
		return fmt.Errorf("lab worker: %w", err)
	}
	if w.hd != nil && w.hd.leaseTime {
		if w.work, err = experiments.LeaseDurations(ctx, leaseParams(jobs, w.hd.durationSeed)); err != nil {
			return fmt.Errorf("lab worker: %w", err)
		}
	}
	if w.db, err = openSink(ctx, getenv(envSink)); err != nil {
		return err
	}
	defer w.db.Close()
	nc, err := nats.Connect(getenv(envNATS), nats.Name("lab-worker-"+strconv.Itoa(w.id)))
	if err != nil {
		return fmt.Errorf("lab worker: %w", err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("lab worker: %w", err)
	}
	cons, err := js.Consumer(ctx, getenv(envStream), consumerName)
	if err != nil {
		return fmt.Errorf("lab worker: consumer: %w", err)
	}
	// The heartbeat's interval is a third of the lease the broker actually grants.
	w.ackWait = cons.CachedInfo().Config.AckWait
	if w.hd != nil {
		return w.runHandler(ctx, js, cons, cfg, getenv(envSlots))
	}
	if !w.design.IsLease() {
		return w.pull(ctx, cons, w.handle)
	}
	// A lease worker holds its share of leaseConcurrency jobs at once, each pulled and worked on by its own loop (see
	// leaseSlots); the first error ends them all.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	slots, err := slotCount(getenv(envSlots))
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	for range slots {
		wg.Go(func() {
			if err := w.pull(ctx, cons, w.handle); err != nil {
				cancel(err)
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// slotCount reads envSlots: how many jobs a lease worker holds at once.
func slotCount(v string) (int, error) {
	slots, err := strconv.Atoi(v)
	if err != nil || slots < 1 || slots > leaseConcurrency {
		return 0, fmt.Errorf("lab worker: %s: %q is not 1-%d", envSlots, v, leaseConcurrency)
	}
	return slots, nil
}

// pull takes one job at a time from the consumer and hands it to deliver, until ctx ends.
func (w *worker) pull(ctx context.Context, cons jetstream.Consumer, deliver func(context.Context, jetstream.Msg) error) error {
	return w.pullWhile(ctx, cons, func() bool { return true }, deliver)
}

// pullWhile is pull that also stops once open says no more (a worker about to die, see drain).
func (w *worker) pullWhile(ctx context.Context, cons jetstream.Consumer, open func() bool, deliver func(context.Context, jetstream.Msg) error) error {
	for ctx.Err() == nil && open() {
		// One job per pull: a batch would hold several jobs unacked at once, and a crash would
		// send all of them back, redeliveries the model (one job in hand) does not have.
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(fetchWait))
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("lab worker: fetch: %w", err)
		}
		for msg := range batch.Messages() {
			if err := deliver(ctx, msg); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
		}
		if err := batch.Error(); err != nil && ctx.Err() == nil {
			return fmt.Errorf("lab worker: fetch: %w", err)
		}
	}
	return nil
}

// keepAlive renews a crash design's job at the broker until the returned stop is called (or the
// process is killed, which is the point: then the renewals stop and the job comes back).
func (w *worker) keepAlive(msg jetstream.Msg) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(w.ackWait / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				msg.InProgress() // an error means the job was acked meanwhile: nothing to keep
			}
		}
	}()
	return func() { close(done); <-finished }
}

// handle runs one delivery through the design. The crash points are the notebook's: each is the
// one gap in its design where a death changes the outcome.
func (w *worker) handle(ctx context.Context, msg jetstream.Msg) error {
	job, attempt, err := w.delivery(msg)
	if err != nil {
		return err
	}
	// Only the first delivery dies, as in the model: a redelivery that died again would be a
	// second crash the stream never drew.
	dies := w.crashed[job] && attempt == 1
	die := func(acked bool, what string) error {
		if err := w.log(ctx, job, attempt, acked, killedPrefix+what); err != nil {
			return err
		}
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way; nothing after this line may run
	}
	ack := func() error { return w.ack(ctx, msg, job) }

	if w.design.IsLease() {
		return w.handleLease(ctx, msg, job, attempt)
	}
	// A live worker keeps its job: it tells the broker "still working" every third of the ack
	// wait, so that only a dead worker's job is handed out again, as the model assumes. Without
	// it a slow write on a loaded machine (a Postgres sink beside a busy test suite) outlasted the
	// 250 ms ack wait, and a second worker applied a job nobody had crashed.
	defer w.keepAlive(msg)()

	switch w.design {

	case AckBeforeWork:
		if err := ack(); err != nil {
			return err
		}
		if dies {
			return die(true, "after its ack, before the effect")
		}
		if err := w.effect(ctx, job, attempt); err != nil {
			return err
		}
		return w.log(ctx, job, attempt, true, "acked, then applied the effect")

	case AckAfterWork:
		if err := w.effect(ctx, job, attempt); err != nil {
			return err
		}
		if dies {
			return die(false, "after the effect, before its ack")
		}
		if err := ack(); err != nil {
			return err
		}
		return w.log(ctx, job, attempt, true, "applied the effect, then acked")

	case DedupOutsideTx:
		found, err := w.hasKey(ctx, job)
		if err != nil {
			return err
		}
		if found {
			if err := ack(); err != nil {
				return err
			}
			return w.log(ctx, job, attempt, true, "dedup key found, skipped and acked")
		}
		if err := w.effect(ctx, job, attempt); err != nil {
			return err
		}
		if dies {
			return die(false, "after the effect's commit, before the separate dedup key write")
		}
		if _, err := w.db.ExecContext(ctx, `INSERT INTO dedup_keys (job) VALUES ($1) ON CONFLICT (job) DO NOTHING`, job); err != nil {
			return fmt.Errorf("lab worker: key for job %d: %w", job, err)
		}
		if err := ack(); err != nil {
			return err
		}
		return w.log(ctx, job, attempt, true, "applied the effect, wrote the dedup key in a second transaction, acked")

	case DedupInTx:
		applied, err := w.effectOnce(ctx, job, attempt)
		if err != nil {
			return err
		}
		if !applied {
			if err := ack(); err != nil {
				return err
			}
			return w.log(ctx, job, attempt, true, "dedup key found, skipped and acked")
		}
		if dies {
			return die(false, "after the transaction (effect and dedup key) committed, before its ack")
		}
		if err := ack(); err != nil {
			return err
		}
		return w.log(ctx, job, attempt, true, "applied the effect and the dedup key in one transaction, acked")
	}
	return fmt.Errorf("lab worker: unknown design %q", w.design)
}

// delivery reads a message's job and its delivery count (1 the first).
func (w *worker) delivery(msg jetstream.Msg) (job int64, attempt int, err error) {
	job, err = strconv.ParseInt(string(msg.Data()), 10, 64)
	if err != nil || job < 0 || job >= int64(len(w.crashed)) {
		return 0, 0, fmt.Errorf("lab worker: a job payload %q outside the run", msg.Data())
	}
	md, err := msg.Metadata()
	if err != nil {
		return 0, 0, fmt.Errorf("lab worker: job %d: %w", job, err)
	}
	return job, int(md.NumDelivered), nil
}

// ack acknowledges msg, confirmed unless the run asked for plain acks.
func (w *worker) ack(ctx context.Context, msg jetstream.Msg, job int64) error {
	if w.plain {
		// Fire-and-forget: Ack only writes to the connection's buffer. If SIGKILL lands
		// before the buffer is flushed, the ack dies with the process.
		if err := msg.Ack(); err != nil {
			return fmt.Errorf("lab worker: ack job %d: %w", job, err)
		}
		return nil
	}
	// A confirmed ack: a plain Ack can still sit in the client's buffer when SIGKILL lands,
	// and the broker would redeliver a job that was done.
	actx, cancel := context.WithTimeout(ctx, ackTimeout)
	defer cancel()
	if err := msg.DoubleAck(actx); err != nil {
		return fmt.Errorf("lab worker: ack job %d: %w", job, err)
	}
	return nil
}

// effect applies the job: one row in effects, in its own transaction (a single statement is one).
func (w *worker) effect(ctx context.Context, job int64, attempt int) error {
	if _, err := w.db.ExecContext(ctx, `INSERT INTO effects (job, worker, attempt) VALUES ($1, $2, $3)`, job, w.id, attempt); err != nil {
		return fmt.Errorf("lab worker: effect of job %d: %w", job, err)
	}
	return nil
}

func (w *worker) hasKey(ctx context.Context, job int64) (bool, error) {
	var n int
	if err := w.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM dedup_keys WHERE job = $1`, job).Scan(&n); err != nil {
		return false, fmt.Errorf("lab worker: key of job %d: %w", job, err)
	}
	return n > 0, nil
}

// effectOnce is the transactional design: the key check, the effect and the key in one
// transaction. The transaction begins IMMEDIATE (see openSink), so it holds the write lock from
// its check to its commit and two workers cannot both find the key missing.
func (w *worker) effectOnce(ctx context.Context, job int64, attempt int) (applied bool, err error) {
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("lab worker: job %d: %w", job, err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM dedup_keys WHERE job = $1`, job).Scan(&n); err != nil {
		return false, fmt.Errorf("lab worker: key of job %d: %w", job, err)
	}
	if n > 0 {
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO effects (job, worker, attempt) VALUES ($1, $2, $3)`, job, w.id, attempt); err != nil {
		return false, fmt.Errorf("lab worker: effect of job %d: %w", job, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO dedup_keys (job) VALUES ($1)`, job); err != nil {
		return false, fmt.Errorf("lab worker: key of job %d: %w", job, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("lab worker: job %d: %w", job, err)
	}
	return true, nil
}

// log records one delivery's fate for the page's event log. It is a write of its own, after the
// step it describes, so it never joins (or delays) the transaction being measured.
func (w *worker) log(ctx context.Context, job int64, attempt int, acked bool, what string) error {
	return w.logAt(ctx, job, attempt, 0, acked, what)
}

// logAt is log for a delivery whose place in the broker's hand-out order (its consumer sequence)
// the run reads back: the handler design's, whose model is replayed at those places.
func (w *worker) logAt(ctx context.Context, job int64, attempt int, seq uint64, acked bool, what string) error {
	flag := 0 // an integer column in both databases; Postgres will not take a bool for it
	if acked {
		flag = 1
	}
	if _, err := w.db.ExecContext(ctx, `INSERT INTO deliveries (job, worker, attempt, seq, at_ns, acked, what) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		job, w.id, attempt, int64(seq), time.Now().UnixNano(), flag, what); err != nil {
		return fmt.Errorf("lab worker: log of job %d: %w", job, err)
	}
	return nil
}
