package workbench

import (
	"context"
	"errors"
	"fmt"

	"go.starlark.net/starlark"
)

// Binding is the world a handler's operations act on, one method per operation of the handler's
// world (see the package doc), for the delivery the caller is running. A check binds them to the
// model world; the live lab binds them to a real broker, database and bus. Either way the handler
// is parsed, limited and counted by the same runtime: a Binding only performs what it is asked,
// after the runtime has checked the arguments (a job of the stream, a key a dedup table can hold,
// a transaction that is not over) in the same words for every world.
//
// Transactions are numbered per delivery, 0 for its first db.begin(). An error a method returns
// ends the delivery: the runtime reports it at the handler's line.
type Binding interface {
	Ack() error
	Apply(job int64) error
	Seen(key Key) (bool, error)
	// Remember writes key and reports whether it was new.
	Remember(key Key) (bool, error)
	Begin(tx int) error
	TxApply(tx int, job int64) error
	TxSeen(tx int, key Key) (bool, error)
	TxRemember(tx int, key Key) (bool, error)
	TxOutbox(tx int, event Key) error
	// Commit reports false when the transaction rolled back instead (a key another delivery
	// committed meanwhile).
	Commit(tx int) (bool, error)
	Rollback(tx int) error
	Publish(event Key) error
	// Work runs the job's own duration, renewing its lease every renewEvery seconds (0: never).
	Work(renewEvery float64) error
}

// Key is a dedup key or an event as the handler gave it: a whole number, a string, a bool or a
// tuple of those, already checked.
type Key struct{ v starlark.Value }

// String writes the key as Starlark does: two keys are the same key when they are written the
// same way (17 and "17" differ), in every world.
func (k Key) String() string { return k.v.String() }

// model binds the runtime to the model world: an operation is fed back from the delivery's
// recorded prefix while the run retraces it, and performed by the engine after that.
type model struct{ e *engine }

// do performs o for the current run's delivery.
func (m model) do(o op) (bool, error) {
	l := m.e.rt.cur
	o.site = l.site
	if l.n < len(l.prefix) {
		p := l.prefix[l.n]
		if p.kind != o.kind || p.arg != o.arg || p.tx != o.tx || p.renew != o.renew {
			return false, errReplay
		}
		l.n++
		return p.res, nil
	}
	res, err := m.e.step(l.d, &o)
	if err != nil {
		return false, err
	}
	l.ops = append(l.ops, o)
	l.n++
	if o.kind == opWork && m.e.lease {
		return false, errSuspend
	}
	return res, nil
}

func (m model) key(kind opKind, k Key, tx int) (bool, error) {
	id, err := m.e.in.id(k.v)
	if err != nil {
		return false, err
	}
	return m.do(op{kind: kind, arg: id, tx: int32(tx)})
}

func (m model) none(kind opKind, arg int64, tx int) error {
	_, err := m.do(op{kind: kind, arg: int32(arg), tx: int32(tx)})
	return err
}

// The model's operations, each the engine's op of the same name (see world.exec).
func (m model) Ack() error                      { return m.none(opAck, 0, 0) }
func (m model) Apply(job int64) error           { return m.none(opApply, job, 0) }
func (m model) Seen(k Key) (bool, error)        { return m.key(opSeen, k, 0) }
func (m model) Remember(k Key) (bool, error)    { return m.key(opRemember, k, 0) }
func (m model) Begin(tx int) error              { return m.none(opBegin, 0, tx) }
func (m model) TxApply(tx int, job int64) error { return m.none(opTxApply, job, tx) }
func (m model) TxSeen(tx int, k Key) (bool, error) {
	return m.key(opTxSeen, k, tx)
}
func (m model) TxRemember(tx int, k Key) (bool, error) { return m.key(opTxRemember, k, tx) }
func (m model) TxOutbox(tx int, e Key) error {
	_, err := m.key(opTxOutbox, e, tx)
	return err
}
func (m model) Commit(tx int) (bool, error) { return m.do(op{kind: opCommit, tx: int32(tx)}) }
func (m model) Rollback(tx int) error       { return m.none(opRollback, 0, tx) }
func (m model) Publish(e Key) error {
	_, err := m.key(opPublish, e, 0)
	return err
}
func (m model) Work(renewEvery float64) error {
	_, err := m.do(op{kind: opWork, renew: renewEvery})
	return err
}

// Handler is a handler compiled for a world of the caller's: the live lab's workers run a reader's
// handler this way, with the check's parser, dialect, step limit and output cap, its operations
// performed by the caller's Binding. A Handler runs one delivery at a time.
type Handler struct {
	ctx  context.Context
	rt   *runtime
	stop func() bool
}

// Compile compiles src for b. Of p it takes the stream's size (an apply must name one of its
// jobs), the seed uuid() derives its ids from and queue.lease_timeout; the other parameters are
// the world's business. The handler's top level runs here, under the step limit; ctx cancels it
// and every later delivery. A mistake in the handler is a *CodeError, as in a check.
func Compile(ctx context.Context, src string, p Params, b Binding) (*Handler, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	if b == nil {
		return nil, errors.New("workbench: Compile needs a Binding")
	}
	rt := newRuntime(&output{max: maxOutput})
	rt.setLease(p.LeaseTimeout)
	rt.bind, rt.jobs, rt.seed = b, int(p.Jobs), p.Seed
	stop := context.AfterFunc(ctx, func() { rt.thread.Cancel("the check was cancelled") })
	prog, err := compile(rt.thread, src, rt.predeclared())
	if err != nil {
		stop()
		return nil, limitError(ctx, err)
	}
	rt.prog = prog
	return &Handler{ctx: ctx, rt: rt, stop: stop}, nil
}

// UsesWork reports whether the handler names work(), and so lives in lease time: its redeliveries
// come when a lease lapses.
func (h *Handler) UsesWork() bool { return h.rt.prog.usesWork }

// Handle runs handle for one delivery of job (attempt 1 the first). It returns nil when handle
// returned, or the *CodeError that ended it: a mistake, a limit (the step limit counts every
// delivery of this Handler, as a check's counts every delivery of its stream), or an error of the
// Binding's, reported at the line that called it.
func (h *Handler) Handle(job, attempt int64) error {
	if err := h.ctx.Err(); err != nil {
		return err
	}
	err := h.rt.call(&liveRun{job: job, attempt: attempt})
	if err == nil {
		return nil
	}
	return limitError(h.ctx, runtimeError(err, fmt.Sprintf("job %d, delivery %d", job, attempt)))
}

// Output is what print wrote so far, capped as a check's is.
func (h *Handler) Output() string { return h.rt.out.text() }

// Close lets go of the handler's context.
func (h *Handler) Close() { h.stop() }
