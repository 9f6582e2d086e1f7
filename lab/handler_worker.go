package lab

// The worker's side of the handler design: the reader's handler, compiled by the workbench, with
// its operations bound to the real broker, sink and second stream (realBinding).

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"effectivelyonce/workbench"
)

// handlerWorker is a worker's handler design: the source, the check's parameters it compiles
// with, and where it dies.
type handlerWorker struct {
	src          string
	params       workbench.Params
	crashPoint   int
	crashAgain   bool
	keyWindow    int64
	durationSeed int64
	leaseTime    bool
	events       string
	js           jetstream.JetStream
}

// readHandler reads the handler design's environment, and puts the handler in cfg so that the
// worker's validation is the run's.
func readHandler(getenv func(string) string, cfg *Config) (*handlerWorker, error) {
	src, err := decodeSource(getenv(envHandler))
	if err != nil {
		return nil, fmt.Errorf("lab worker: %s: %w", envHandler, err)
	}
	point, err1 := strconv.Atoi(getenv(envCrashPoint))
	again, err2 := strconv.ParseBool(getenv(envCrashAgain))
	window, err3 := strconv.ParseInt(getenv(envKeyWindow), 10, 64)
	dseed, err4 := strconv.ParseInt(getenv(envDurationSeed), 10, 64)
	timeout, err5 := strconv.ParseFloat(getenv(envLeaseTimeout), 64)
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return nil, fmt.Errorf("lab worker: handler parameters: %w", err)
	}
	cfg.Handler = &HandlerConfig{Source: src, CrashPoint: point, CrashAgain: again, KeyWindow: window, DurationSeed: dseed}
	cfg.LeaseTimeout = timeout
	return &handlerWorker{src: src, params: cfg.CheckParams(), crashPoint: point, crashAgain: again, keyWindow: window,
		durationSeed: dseed, leaseTime: getenv(envLeaseTime) == "1", events: getenv(envEvents)}, nil
}

// reportHandler tells the supervisor, on stderr, that the reader's handler failed in this worker.
func reportHandler(ce *workbench.CodeError) {
	b, _ := json.Marshal(ce)
	fmt.Fprintf(os.Stderr, "%s%s\n", handlerFailed, b)
}

// runHandler pulls jobs for the reader's handler until ctx ends: one at a time, or a lease
// worker's share of leaseConcurrency at once for a handler in lease time, each loop with a handler
// of its own (a Starlark thread runs one delivery at a time). The memory limits of a check hold
// here too, with its messages.
func (w *worker) runHandler(ctx context.Context, js jetstream.JetStream, cons jetstream.Consumer, cfg Config, slotsEnv string) error {
	w.hd.js = js
	stop, err := workbench.GuardMemory(reportHandler)
	if err != nil {
		return fmt.Errorf("lab worker: %w", err)
	}
	defer stop()
	slots := 1
	if w.hd.leaseTime {
		if slots, err = slotCount(slotsEnv); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	w.alone = newDrain(slots)
	var wg sync.WaitGroup
	for range slots {
		b := &realBinding{w: w}
		h, err := workbench.Compile(ctx, w.hd.src, w.hd.params, b)
		if err != nil {
			return w.handlerError(err)
		}
		defer h.Close()
		wg.Go(func() {
			defer w.alone.leave()
			err := w.pullWhile(ctx, cons, w.alone.open, func(ctx context.Context, msg jetstream.Msg) error { return b.deliver(ctx, h, msg) })
			if err != nil {
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

// drain lets a worker that holds several jobs at once (a handler in lease time) die holding only
// the delivery whose crash point came. The model's workers hold one job each, so a crash there
// sends back one job; a real process killed with its other jobs in hand would send them all back,
// each a redelivery the model never made (and, before the supervisor closed their log rows, a run
// that waited for them until its deadline). So a dying delivery goes silent at its crash point,
// as a killed one would: it sends nothing more to the broker or the sink, and its lease runs out
// as the model's does. Its worker takes no more jobs, finishes those it holds, and then kills
// itself with SIGKILL. A job that reached the worker while it was stopping (a pull already on its
// way) is finished too; if that job's own crash point comes, it goes silent as well, and the one
// SIGKILL ends both.
type drain struct {
	mu    sync.Mutex
	cond  *sync.Cond
	dying bool
	busy  int // slots pulling or holding a live delivery
}

func newDrain(slots int) *drain {
	d := &drain{busy: slots}
	d.cond = sync.NewCond(&d.mu)
	return d
}

// open says whether a slot may pull another job.
func (d *drain) open() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return !d.dying
}

// leave is a slot that pulls no more.
func (d *drain) leave() {
	d.mu.Lock()
	d.busy--
	d.cond.Broadcast()
	d.mu.Unlock()
}

// die is a slot whose delivery has gone silent at its crash point: it waits until no other slot
// holds a live delivery or a pull, and then kills the process.
func (d *drain) die() {
	os.Stderr.WriteString(dyingLine) // the supervisor starts the replacement now
	d.mu.Lock()
	d.dying = true
	d.busy--
	d.cond.Broadcast()
	for d.busy > 0 {
		d.cond.Wait()
	}
	d.mu.Unlock()
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal is on its way; nothing after this line may run
}

// dyingLine is what a dying worker writes to stderr, so that its replacement starts at once.
const dyingLine = "lab worker: dying at a crash point\n"

// handlerError reports a handler's failure and answers the worker's error for it.
func (w *worker) handlerError(err error) error {
	var ce *workbench.CodeError
	if errors.As(err, &ce) {
		reportHandler(ce)
		return fmt.Errorf("lab worker %d: the handler: %w", w.id, err)
	}
	return fmt.Errorf("lab worker %d: %w", w.id, err)
}

// realTx is a handler's transaction: its writes are kept here and sent at the commit, in one SQL
// transaction, so that nothing in it is durable before the commit and a worker killed before it
// leaves nothing (and holds no lock on the sink while the handler runs, which on SQLite would
// hold off every other worker). Its reads see the committed table and its own keys, as the
// model's do.
type realTx struct {
	applies []int64
	keys    []string
	outbox  []string
}

// realBinding is the workbench's Binding on the real parts, for one delivery at a time.
type realBinding struct {
	w       *worker
	ctx     context.Context
	msg     jetstream.Msg
	job     int64
	attempt int
	seq     uint64 // the broker's consumer sequence of this delivery
	start   time.Time
	ops     int // operations performed in this delivery
	crashAt int // die right after this many operations; -1 never
	acked   bool
	ackedAt time.Duration // how long after the delivery's arrival its ack left (lease time)
	renewed bool          // an in-progress signal was sent (the lease is then its renewals')
	row     int64         // in lease time, the delivery's log row
	txs     []realTx
	// fail is the lab's own failure (the sink, the broker) during an operation: not the
	// handler's doing, so the worker ends with it rather than blaming the reader's line.
	fail error
}

// deliver runs one delivery through the handler: the first delivery of a job the stream marks as
// crashed (and its redelivery too, with crash_again) dies right after the crash point's operation.
func (b *realBinding) deliver(ctx context.Context, h *workbench.Handler, msg jetstream.Msg) error {
	w := b.w
	job, attempt, err := w.delivery(msg)
	if err != nil {
		return err
	}
	md, err := msg.Metadata()
	if err != nil {
		return fmt.Errorf("lab worker: job %d: %w", job, err)
	}
	*b = realBinding{w: w, ctx: ctx, msg: msg, job: job, attempt: attempt, seq: md.Sequence.Consumer, start: time.Now(), crashAt: -1, txs: b.txs[:0]}
	if w.crashed[job] && (attempt == 1 || (attempt == 2 && w.hd.crashAgain)) {
		b.crashAt = w.hd.crashPoint
	}
	if w.hd.leaseTime {
		if b.row, err = w.begin(ctx, job, attempt, b.seq); err != nil {
			return err
		}
	} else {
		// Out of lease time a live worker keeps its job, as the crash designs' do (see handle).
		defer w.keepAlive(msg)()
	}
	if b.crashAt == 0 {
		return b.die("before anything")
	}
	err = h.Handle(job, int64(attempt))
	if b.fail != nil {
		return b.fail
	}
	if err != nil {
		return w.handlerError(err)
	}
	what := fmt.Sprintf("the handler returned after %d operations", b.ops)
	if b.acked {
		what += ", acked"
	} else {
		what += ", not acked: the broker hands the job out again after its ack wait"
	}
	if w.hd.leaseTime {
		if b.acked && !b.renewed {
			what += w.slowAckNote(job, b.ackedAt)
		}
		return w.end(ctx, b.row, what)
	}
	return w.logAt(ctx, job, attempt, b.seq, b.acked, what)
}

// die logs the delivery's end and kills the worker with SIGKILL, as the crash designs' workers die;
// a worker that holds other jobs goes silent at once and dies when they are done (see drain).
func (b *realBinding) die(where string) error {
	what := killedPrefix + where
	var err error
	if b.w.hd.leaseTime {
		err = b.w.end(b.ctx, b.row, what+dyingAlone)
	} else {
		err = b.w.logAt(b.ctx, b.job, b.attempt, b.seq, b.acked, what)
	}
	if err != nil {
		return err
	}
	b.w.alone.die()
	return nil
}

// dyingAlone ends the log row of a lease-time delivery that died at its crash point.
const dyingAlone = "; the job went silent there, and its worker took no more jobs, finished the ones it held and then died"

// did counts one operation performed, and dies right after the crash point's.
func (b *realBinding) did(name string) error {
	b.ops++
	if b.ops == b.crashAt {
		return b.die(fmt.Sprintf("right after operation %d, %s", b.ops, name))
	}
	return nil
}

// failed records the lab's own failure and ends the delivery with it.
func (b *realBinding) failed(err error) error {
	if b.fail == nil {
		b.fail = err
	}
	return err
}

// Ack is a confirmed ack. In lease time a second copy of the job may find it acked already by the
// first, which leaves nothing to do: the effect is what the count measures.
func (b *realBinding) Ack() error {
	if !b.acked {
		b.ackedAt = time.Since(b.start)
		if err := b.w.ack(b.ctx, b.msg, b.job); err != nil && !b.w.hd.leaseTime {
			return b.failed(err)
		}
		b.acked = true
	}
	return b.did("queue.ack()")
}

// Apply is the effect, committed at once.
func (b *realBinding) Apply(job int64) error {
	if err := b.w.effect(b.ctx, job, b.attempt); err != nil {
		return b.failed(err)
	}
	return b.did("db.apply()")
}

func (b *realBinding) has(key string) (bool, error) {
	var n int
	if err := b.w.db.QueryRowContext(b.ctx, `SELECT COUNT(*) FROM handler_keys WHERE k = $1`, key).Scan(&n); err != nil {
		return false, b.failed(fmt.Errorf("lab worker: key %s: %w", key, err))
	}
	return n > 0, nil
}

// Seen asks the keys table.
func (b *realBinding) Seen(k workbench.Key) (bool, error) {
	found, err := b.has(k.String())
	if err != nil {
		return false, err
	}
	return found, b.did("db.seen()")
}

// Remember is an insert that does nothing on conflict, in a transaction of its own with the
// trimming of the window.
func (b *realBinding) Remember(k workbench.Key) (bool, error) {
	var fresh bool
	err := b.inTx(func(tx *sql.Tx) error {
		var err error
		fresh, err = b.insertKey(tx, k.String())
		if err == nil && fresh {
			err = b.trim(tx)
		}
		return err
	})
	if err != nil {
		return false, b.failed(err)
	}
	return fresh, b.did("db.remember()")
}

// insertKey inserts key unless it is there, and says whether it was new.
func (b *realBinding) insertKey(tx *sql.Tx, key string) (bool, error) {
	r, err := tx.ExecContext(b.ctx, `INSERT INTO handler_keys (k) VALUES ($1) ON CONFLICT (k) DO NOTHING`, key)
	if err != nil {
		return false, fmt.Errorf("lab worker: key %s: %w", key, err)
	}
	n, err := r.RowsAffected()
	return n == 1, err
}

// trim deletes the keys beyond the key window, oldest first, in the transaction that added one.
func (b *realBinding) trim(tx *sql.Tx) error {
	if b.w.hd.keyWindow <= 0 {
		return nil
	}
	_, err := tx.ExecContext(b.ctx, `DELETE FROM handler_keys WHERE id <= (SELECT id FROM handler_keys ORDER BY id DESC LIMIT 1 OFFSET $1)`, b.w.hd.keyWindow)
	if err != nil {
		return fmt.Errorf("lab worker: key window: %w", err)
	}
	return nil
}

// inTx runs fn in one SQL transaction, committed if fn succeeds.
func (b *realBinding) inTx(fn func(*sql.Tx) error) error {
	tx, err := b.w.db.BeginTx(b.ctx, nil)
	if err != nil {
		return fmt.Errorf("lab worker: job %d: %w", b.job, err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("lab worker: job %d: commit: %w", b.job, err)
	}
	return nil
}

// Begin opens a transaction; its writes wait for the commit (see realTx).
func (b *realBinding) Begin(n int) error {
	b.txs = append(b.txs, realTx{})
	return b.did("db.begin()")
}

// TxApply stages an effect.
func (b *realBinding) TxApply(n int, job int64) error {
	b.txs[n].applies = append(b.txs[n].applies, job)
	return b.did("tx.apply()")
}

// TxSeen asks the committed keys and the transaction's own.
func (b *realBinding) TxSeen(n int, k workbench.Key) (bool, error) {
	key := k.String()
	found := slices.Contains(b.txs[n].keys, key)
	if !found {
		var err error
		if found, err = b.has(key); err != nil {
			return false, err
		}
	}
	return found, b.did("tx.seen()")
}

// TxRemember stages a key that is neither committed nor staged already.
func (b *realBinding) TxRemember(n int, k workbench.Key) (bool, error) {
	key := k.String()
	found := slices.Contains(b.txs[n].keys, key)
	if !found {
		var err error
		if found, err = b.has(key); err != nil {
			return false, err
		}
	}
	if !found {
		b.txs[n].keys = append(b.txs[n].keys, key)
	}
	return !found, b.did("tx.remember()")
}

// TxOutbox stages an outbox row, for the relay to publish after the commit.
func (b *realBinding) TxOutbox(n int, e workbench.Key) error {
	b.txs[n].outbox = append(b.txs[n].outbox, e.String())
	return b.did("tx.outbox()")
}

// errKeyTaken rolls back a commit one of whose keys another delivery committed meanwhile.
var errKeyTaken = errors.New("a key of the transaction was committed meanwhile")

// Commit is one SQL transaction: the keys (a key committed meanwhile rolls it all back, and the
// commit answers False), the effects, the outbox rows and the window's trimming.
func (b *realBinding) Commit(n int) (bool, error) {
	t := b.txs[n]
	err := b.inTx(func(tx *sql.Tx) error {
		for _, key := range t.keys {
			fresh, err := b.insertKey(tx, key)
			if err != nil {
				return err
			}
			if !fresh {
				return errKeyTaken
			}
		}
		for _, job := range t.applies {
			if _, err := tx.ExecContext(b.ctx, `INSERT INTO effects (job, worker, attempt) VALUES ($1, $2, $3)`, job, b.w.id, b.attempt); err != nil {
				return fmt.Errorf("lab worker: effect of job %d: %w", job, err)
			}
		}
		for _, ev := range t.outbox {
			if _, err := tx.ExecContext(b.ctx, `INSERT INTO outbox (job, event) VALUES ($1, $2)`, b.job, ev); err != nil {
				return fmt.Errorf("lab worker: outbox row of job %d: %w", b.job, err)
			}
		}
		if len(t.keys) > 0 {
			return b.trim(tx)
		}
		return nil
	})
	if err != nil && !errors.Is(err, errKeyTaken) {
		return false, b.failed(err)
	}
	return err == nil, b.did("tx.commit()")
}

// Rollback drops what the transaction staged.
func (b *realBinding) Rollback(n int) error {
	b.txs[n] = realTx{}
	return b.did("tx.rollback()")
}

// Publish sends the event to the second stream at once, and waits for the stream to store it.
func (b *realBinding) Publish(e workbench.Key) error {
	if _, err := b.w.hd.js.Publish(b.ctx, b.w.hd.events, eventPayload(b.job, e.String())); err != nil {
		return b.failed(fmt.Errorf("lab worker: publish for job %d: %w", b.job, err))
	}
	return b.did("bus.publish()")
}

// Work sleeps the job's scaled duration, counted from the delivery's arrival (the broker's ack
// wait runs from there), with an in-progress signal every renewEvery model seconds if asked: each
// pushes the broker's redelivery a full ack wait away.
func (b *realBinding) Work(renewEvery float64) error {
	done := time.NewTimer(scaled(b.w.work[b.job]) - time.Since(b.start))
	defer done.Stop()
	var tick <-chan time.Time
	if renewEvery > 0 {
		t := time.NewTicker(max(scaled(renewEvery), time.Millisecond))
		defer t.Stop()
		tick = t.C
	}
	for waiting := true; waiting; {
		select {
		case <-b.ctx.Done():
			return b.failed(b.ctx.Err())
		case <-done.C:
			waiting = false
		case <-tick:
			if err := b.msg.InProgress(); err != nil {
				return b.failed(fmt.Errorf("lab worker: job %d: in-progress ack: %w", b.job, err))
			}
			b.renewed = true
		}
	}
	return b.did("work()")
}
