package workbench

import (
	"errors"
	"fmt"
	"strings"

	"go.starlark.net/starlark"

	"effectivelyonce/experiments"
)

// Sentinels a builtin returns to unwind the handler's Starlark stack. The handler cannot catch
// them: Starlark has no try.
var (
	errCrash   = errors.New("the worker crashed")            // the crash point was reached
	errSuspend = errors.New("the delivery is working")       // work() began; the engine resumes later
	errReplay  = errors.New("the handler is not repeatable") // a re-run did not retrace its own steps
)

// liveRun is one execution of handle for a delivery. A delivery can be run more than once: a run
// first feeds back the operations the delivery already performed (prefix) without performing
// them again, then goes on live. That is how a delivery is resumed after work() and after a
// replay found the world answering differently than when the delivery was recorded.
//
// The fields after uuids are the runtime's own, kept for whichever world the handler is bound to:
// the job and attempt of the delivery, the call site of the operation being performed (so a
// model's crash point is labelled by the call as the reader wrote it), and which of the delivery's
// transactions are over.
type liveRun struct {
	d      *delivery // the model's delivery; nil in another world
	prefix []op
	n      int  // operations reached so far in this run
	ops    []op // prefix, then what this run performed
	uuids  int

	job, attempt int64
	site         int32
	txDone       []bool // by transaction, in the order the delivery began them
	worked       bool
}

// runtime is the Starlark side of a check: the compiled handler, its thread and the values it is
// given. Builtins are made once; they act on the current live run, through bind: the model world
// of a check (see binding.go), or whatever world a caller of Compile gives it.
type runtime struct {
	prog   *program
	thread *starlark.Thread
	bind   Binding
	cur    *liveRun
	out    *output
	// jobs is the stream's size (an apply must name one of its jobs), seed the stream's seed, from
	// which uuid() derives its ids.
	jobs int
	seed int64

	queue, db, bus starlark.Value
	builtins       map[string]*starlark.Builtin
}

// maxSteps bounds the Starlark steps of one whole check: about a second of a core, and many
// times what any template needs at the largest stream (a few steps per operation).
const maxSteps = 100_000_000

func newRuntime(out *output) *runtime {
	r := &runtime{out: out, builtins: map[string]*starlark.Builtin{}}
	r.thread = &starlark.Thread{Name: "check", Print: func(th *starlark.Thread, msg string) {
		if out.calls++; out.calls > maxPrints {
			th.Cancel(printFlood)
			return
		}
		if r.cur == nil || r.cur.n >= len(r.cur.prefix) {
			out.print(msg)
		}
	}}
	r.thread.SetMaxExecutionSteps(maxSteps)
	for name, fn := range map[string]func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error){
		"queue.ack": r.ack, "db.apply": r.apply, "db.seen": r.seen, "db.remember": r.remember, "db.begin": r.begin,
		"tx.apply": r.txApply, "tx.seen": r.txSeen, "tx.remember": r.txRemember, "tx.outbox": r.txOutbox,
		"tx.commit": r.txCommit, "tx.rollback": r.txRollback, "bus.publish": r.publish, "work": r.work, "uuid": r.uuid,
	} {
		r.builtins[name] = starlark.NewBuiltin(name, fn)
	}
	r.queue = &object{kind: "queue", attrs: map[string]starlark.Value{"ack": r.builtins["queue.ack"]}}
	r.db = &object{kind: "db", attrs: map[string]starlark.Value{"apply": r.builtins["db.apply"], "seen": r.builtins["db.seen"],
		"remember": r.builtins["db.remember"], "begin": r.builtins["db.begin"]}}
	r.bus = &object{kind: "bus", attrs: map[string]starlark.Value{"publish": r.builtins["bus.publish"]}}
	return r
}

// predeclared are the names a handler may use besides Starlark's own.
func (r *runtime) predeclared() starlark.StringDict {
	return starlark.StringDict{"work": r.builtins["work"], "uuid": r.builtins["uuid"]}
}

// setLease gives queue.lease_timeout its value for the check.
func (r *runtime) setLease(seconds float64) {
	r.queue.(*object).attrs["lease_timeout"] = starlark.Float(seconds)
}

// run executes handle for the model's delivery d, feeding back prefix first. It returns nil when
// handle returned, errCrash or errSuspend when the delivery stopped there, or the handler's error.
func (r *runtime) run(d *delivery, prefix []op) ([]op, error) {
	// A delivery's transactions live on the delivery, not in this run: the prefix's begins are fed
	// back without opening new ones, so a resumed run finds the transactions it had.
	l := &liveRun{d: d, prefix: prefix, ops: append(make([]op, 0, len(prefix)+8), prefix...), job: int64(d.job), attempt: int64(d.attempt)}
	err := r.call(l)
	switch {
	case err == nil:
		return l.ops, nil
	case errors.Is(err, errCrash):
		return l.ops, errCrash
	case errors.Is(err, errSuspend):
		return l.ops, errSuspend
	}
	return l.ops, runtimeError(err, fmt.Sprintf("job %d, delivery %d", d.job, d.attempt))
}

// call runs handle once for l's job and attempt, with l as the current run.
func (r *runtime) call(l *liveRun) error {
	r.cur = l
	job := &jobValue{id: starlark.MakeInt64(l.job), attempt: starlark.MakeInt64(l.attempt)}
	_, err := starlark.Call(r.thread, r.prog.handle, starlark.Tuple{job, r.queue, r.db, r.bus}, nil)
	r.cur = nil
	return err
}

// enter is every operation's way into the world: it refuses an operation outside handle and
// notes the call site for the world to record.
func (r *runtime) enter(thread *starlark.Thread, kind opKind) (*liveRun, error) {
	l := r.cur
	if l == nil {
		return nil, fmt.Errorf("%s can only be called while handle runs", kind)
	}
	l.site = int32(r.prog.siteAt(thread.CallFrame(1).Pos))
	return l, nil
}

func noArgs(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) error {
	return starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 0)
}

func (r *runtime) ack(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
	if err := noArgs(b, args, kw); err != nil {
		return nil, err
	}
	if _, err := r.enter(t, opAck); err != nil {
		return nil, err
	}
	return starlark.None, r.bind.Ack()
}

// jobOf reads the job id an apply names.
func (r *runtime) jobOf(b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (int32, error) {
	var id int64
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kw, 1, &id); err != nil {
		return 0, err
	}
	j, err := jobArg(id, r.jobs)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return j, nil
}

// keyOf reads the one key (or event) argument and checks that a dedup table can hold it, the
// same in every world.
func (r *runtime) keyOf(b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (Key, error) {
	var v starlark.Value
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kw, 1, &v); err != nil {
		return Key{}, err
	}
	if err := keyable(v, 0); err != nil {
		if what := b.Name(); strings.HasSuffix(what, "publish") || strings.HasSuffix(what, "outbox") {
			// the same rules hold an event, which the reader knows as an event, not a key
			return Key{}, fmt.Errorf("%s: %s", what, strings.Replace(err.Error(), "a key", "an event", 1))
		}
		return Key{}, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return Key{v}, nil
}

func (r *runtime) apply(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
	j, err := r.jobOf(b, args, kw)
	if err != nil {
		return nil, err
	}
	if _, err := r.enter(t, opApply); err != nil {
		return nil, err
	}
	return starlark.None, r.bind.Apply(int64(j))
}

func (r *runtime) seen(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
	k, err := r.keyOf(b, args, kw)
	if err != nil {
		return nil, err
	}
	if _, err := r.enter(t, opSeen); err != nil {
		return nil, err
	}
	res, err := r.bind.Seen(k)
	return starlark.Bool(res), err
}

func (r *runtime) remember(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
	k, err := r.keyOf(b, args, kw)
	if err != nil {
		return nil, err
	}
	if _, err := r.enter(t, opRemember); err != nil {
		return nil, err
	}
	res, err := r.bind.Remember(k)
	return starlark.Bool(res), err
}

// maxTx bounds the transactions of one delivery.
const maxTx = 64

func (r *runtime) begin(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
	if err := noArgs(b, args, kw); err != nil {
		return nil, err
	}
	l, err := r.enter(t, opBegin)
	if err != nil {
		return nil, err
	}
	n := len(l.txDone)
	if n >= maxTx {
		return nil, fmt.Errorf("db.begin: one delivery may open at most %d transactions", maxTx)
	}
	if err := r.bind.Begin(n); err != nil {
		return nil, err
	}
	l.txDone = append(l.txDone, false)
	return &txValue{rt: r, n: int32(n)}, nil
}

// txOf is the transaction a tx builtin is bound to, entered as kind: one that is already over is
// refused here, in the same words in every world.
func (r *runtime) txOf(t *starlark.Thread, b *starlark.Builtin, kind opKind) (int, error) {
	l, err := r.enter(t, kind)
	if err != nil {
		return 0, err
	}
	n := int(b.Receiver().(*txValue).n)
	if n >= len(l.txDone) || l.txDone[n] {
		return 0, wrapOp(b, errOp{errTxOver})
	}
	return n, nil
}

// errTxOver is the refusal of an operation on a transaction that is over.
const errTxOver = "this transaction has already been committed or rolled back; call db.begin() for another"

func (r *runtime) txApply(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
	j, err := r.jobOf(b, args, kw)
	if err != nil {
		return nil, err
	}
	n, err := r.txOf(t, b, opTxApply)
	if err != nil {
		return nil, err
	}
	return starlark.None, wrapOp(b, r.bind.TxApply(n, int64(j)))
}

func (r *runtime) txSeen(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
	k, err := r.keyOf(b, args, kw)
	if err != nil {
		return nil, err
	}
	n, err := r.txOf(t, b, opTxSeen)
	if err != nil {
		return nil, err
	}
	res, err := r.bind.TxSeen(n, k)
	return starlark.Bool(res), wrapOp(b, err)
}

func (r *runtime) txRemember(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
	k, err := r.keyOf(b, args, kw)
	if err != nil {
		return nil, err
	}
	n, err := r.txOf(t, b, opTxRemember)
	if err != nil {
		return nil, err
	}
	res, err := r.bind.TxRemember(n, k)
	return starlark.Bool(res), wrapOp(b, err)
}

func (r *runtime) txOutbox(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
	e, err := r.keyOf(b, args, kw)
	if err != nil {
		return nil, err
	}
	n, err := r.txOf(t, b, opTxOutbox)
	if err != nil {
		return nil, err
	}
	return starlark.None, wrapOp(b, r.bind.TxOutbox(n, e))
}

func (r *runtime) txCommit(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
	if err := noArgs(b, args, kw); err != nil {
		return nil, err
	}
	n, err := r.txOf(t, b, opCommit)
	if err != nil {
		return nil, err
	}
	res, err := r.bind.Commit(n)
	if err == nil {
		r.cur.txDone[n] = true
	}
	return starlark.Bool(res), wrapOp(b, err)
}

func (r *runtime) txRollback(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
	if err := noArgs(b, args, kw); err != nil {
		return nil, err
	}
	n, err := r.txOf(t, b, opRollback)
	if err != nil {
		return nil, err
	}
	err = r.bind.Rollback(n)
	if err == nil {
		r.cur.txDone[n] = true
	}
	return starlark.None, wrapOp(b, err)
}

func (r *runtime) publish(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
	e, err := r.keyOf(b, args, kw)
	if err != nil {
		return nil, err
	}
	if _, err := r.enter(t, opPublish); err != nil {
		return nil, err
	}
	return starlark.None, r.bind.Publish(e)
}

func (r *runtime) work(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
	var renew starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kw, "renew_every?", &renew); err != nil {
		return nil, err
	}
	var every float64
	if renew != starlark.None {
		f, ok := starlark.AsFloat(renew)
		if !ok || !(f > 0) || f > 1e9 {
			return nil, fmt.Errorf("work: renew_every must be None or a number of seconds above 0, not %s", clipValue(renew))
		}
		every = f
	}
	if r.cur != nil && r.cur.worked {
		return nil, fmt.Errorf("work: called twice in one delivery; a job has one duration, so call work() once")
	}
	l, err := r.enter(t, opWork)
	if err != nil {
		return nil, err
	}
	if err := r.bind.Work(every); err != nil {
		return nil, err
	}
	l.worked = true
	return starlark.None, nil
}

// uuid returns a fresh id on every call, the same on every run of the check: it is derived from
// the stream seed, the job, the delivery and the call's place among that delivery's calls.
func (r *runtime) uuid(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
	if err := noArgs(b, args, kw); err != nil {
		return nil, err
	}
	l := r.cur
	if l == nil {
		return nil, fmt.Errorf("uuid: can only be called while handle runs")
	}
	l.uuids++
	hi := mix(uint64(r.seed) ^ mix(uint64(l.job)<<20^uint64(l.attempt)))
	lo := mix(hi ^ uint64(l.uuids))
	hi = hi&^0xf000 | 0x4000     // version 4
	lo = lo&^(0xc<<60) | 0x8<<60 // variant 10
	s := fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", hi>>32, hi>>16&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff)
	return starlark.String(s), nil
}

// mix is splitmix64's finaliser: a bijection, so distinct inputs give distinct ids.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

func wrapOp(b *starlark.Builtin, err error) error {
	var oe errOp
	if errors.As(err, &oe) {
		return fmt.Errorf("%s: %s", b.Name(), oe.msg)
	}
	return err
}

func clipValue(v starlark.Value) string {
	s := v.String()
	if len(s) > 40 {
		s = s[:39] + "…"
	}
	return s
}

// object is queue, db or bus: a fixed set of attributes.
type object struct {
	kind  string
	attrs map[string]starlark.Value
}

func (o *object) String() string        { return "<" + o.kind + ">" }
func (o *object) Type() string          { return o.kind }
func (o *object) Freeze()               {}
func (o *object) Truth() starlark.Bool  { return true }
func (o *object) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: %s", o.kind) }
func (o *object) Attr(name string) (starlark.Value, error) {
	if v, ok := o.attrs[name]; ok {
		return v, nil
	}
	return nil, nil
}
func (o *object) AttrNames() []string {
	names := make([]string, 0, len(o.attrs))
	for n := range o.attrs {
		names = append(names, n)
	}
	return names
}

// jobValue is the job argument: job.id and job.attempt.
type jobValue struct{ id, attempt starlark.Int }

func (j *jobValue) String() string {
	return fmt.Sprintf("<job %s, attempt %s>", j.id, j.attempt)
}
func (j *jobValue) Type() string          { return "job" }
func (j *jobValue) Freeze()               {}
func (j *jobValue) Truth() starlark.Bool  { return true }
func (j *jobValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: job (use job.id)") }
func (j *jobValue) Attr(name string) (starlark.Value, error) {
	switch name {
	case "id":
		return j.id, nil
	case "attempt":
		return j.attempt, nil
	}
	return nil, nil
}
func (j *jobValue) AttrNames() []string { return []string{"attempt", "id"} }

// txValue is a transaction: its state lives on the delivery, so that a resumed run finds it.
type txValue struct {
	rt *runtime
	n  int32
}

func (t *txValue) String() string        { return fmt.Sprintf("<transaction %d>", t.n+1) }
func (t *txValue) Type() string          { return "transaction" }
func (t *txValue) Freeze()               {}
func (t *txValue) Truth() starlark.Bool  { return true }
func (t *txValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: transaction") }
func (t *txValue) Attr(name string) (starlark.Value, error) {
	b, ok := t.rt.builtins["tx."+name]
	if !ok {
		return nil, nil
	}
	return b.BindReceiver(t), nil
}
func (t *txValue) AttrNames() []string {
	return []string{"apply", "commit", "outbox", "remember", "rollback", "seen"}
}

// output is what print wrote, capped.
type output struct {
	b       strings.Builder
	max     int
	dropped int64
	calls   int64 // every print, kept or not (maxPrints)
}

// maxOutput bounds what print may write over a whole check.
const maxOutput = 16 << 10

// text is the output, with a last line that says how much was left out.
func (o *output) text() string {
	if o.dropped == 0 {
		return o.b.String()
	}
	return o.b.String() + fmt.Sprintf("… %s more lines not shown in full: a check keeps the first %s bytes (16 KB) of output\n",
		thousands(o.dropped), thousands(maxOutput))
}

func (o *output) print(msg string) {
	if o.b.Len()+len(msg)+1 > o.max {
		// The first line that does not fit is kept cut short, so that one long print still shows
		// what it began with; every line after it is only counted.
		if room := o.max - o.b.Len() - len("…\n"); o.dropped == 0 && room > 0 {
			o.b.WriteString(experiments.Clip(msg, room) + "\n")
		}
		o.dropped++
		return
	}
	o.b.WriteString(msg)
	o.b.WriteByte('\n')
}
