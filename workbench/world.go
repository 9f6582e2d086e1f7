package workbench

import (
	"fmt"
	"math"

	"effectivelyonce/experiments"
)

// opKind is one primitive operation of the handler's world. A crash point counts these.
type opKind uint8

const (
	opAck opKind = iota
	opApply
	opSeen
	opRemember
	opBegin
	opTxApply
	opTxSeen
	opTxRemember
	opTxOutbox
	opCommit
	opRollback
	opPublish
	opWork
)

// op is one operation a delivery performed, with its argument and its result, as recorded: a
// replay performs the same operation on another run's state and compares the result.
type op struct {
	kind  opKind
	site  int32   // index into the program's calls, -1 if unknown
	arg   int32   // the job id of an apply, the key id of a seen or remember, the event id of a publish
	tx    int32   // which of the delivery's transactions a tx operation belongs to
	renew float64 // work's renew_every, 0 for none
	res   bool    // what seen, remember and commit returned
}

// isWrite reports whether the operation changes durable state by itself: the producer world
// crashes before a write.
func (o *op) isWrite() bool {
	switch o.kind {
	case opApply, opRemember, opCommit, opPublish:
		return true
	}
	return false
}

// txState is an open or finished transaction: nothing in it is durable before its commit.
type txState struct {
	applies []int32
	keys    []int32
	outbox  []int32
	done    bool
}

func (t *txState) hasKey(k int32) bool {
	for _, x := range t.keys {
		if x == k {
			return true
		}
	}
	return false
}

// world is the durable state of the model world for one run of the stream: what the sink applied,
// which keys the dedup table holds, what the second system received, and which jobs were acked.
type world struct {
	applied   []uint16
	acked     []bool
	published []uint16
	keys      *experiments.DedupWindow
	in        *interner
	tr        *tracer // nil unless one job's timeline is being recorded
}

func newWorld(jobs int, keyWindow int64, in *interner) *world {
	return &world{applied: make([]uint16, jobs), acked: make([]bool, jobs), published: make([]uint16, jobs),
		keys: experiments.NewDedupWindow(keyWindow, 0), in: in}
}

func (w *world) reset() {
	clear(w.applied)
	clear(w.acked)
	clear(w.published)
	w.keys.Clear()
}

func bump(c *uint16) {
	if *c < math.MaxUint16 {
		*c++
	}
}

// errOp is a misuse of the world (a transaction used after its commit, say); it ends the check
// with the line it happened on.
type errOp struct{ msg string }

func (e errOp) Error() string { return e.msg }

// exec performs one operation of delivery d on the world and returns its result.
func (w *world) exec(d *delivery, o *op) (bool, error) {
	switch o.kind {
	case opAck:
		d.acked = true
		w.acked[d.job] = true
	case opApply:
		bump(&w.applied[o.arg])
	case opSeen:
		return w.keys.Seen(o.arg), nil
	case opRemember:
		if w.keys.Seen(o.arg) {
			return false, nil
		}
		w.addKey(d, o.arg)
		return true, nil
	case opBegin:
		d.txs = append(d.txs, txState{})
	case opTxApply, opTxSeen, opTxRemember, opTxOutbox, opCommit, opRollback:
		t := &d.txs[o.tx]
		if t.done {
			return false, errOp{"this transaction has already been committed or rolled back; call db.begin() for another"}
		}
		switch o.kind {
		case opTxApply:
			t.applies = append(t.applies, o.arg)
		case opTxSeen:
			return w.keys.Seen(o.arg) || t.hasKey(o.arg), nil
		case opTxRemember:
			if w.keys.Seen(o.arg) || t.hasKey(o.arg) {
				return false, nil
			}
			t.keys = append(t.keys, o.arg)
			return true, nil
		case opTxOutbox:
			t.outbox = append(t.outbox, o.arg)
		case opRollback:
			t.done = true
		case opCommit:
			t.done = true
			// A key another transaction committed meanwhile is a unique-key violation: the
			// whole transaction rolls back, and commit says so.
			for _, k := range t.keys {
				if w.keys.Seen(k) {
					return false, nil
				}
			}
			for _, j := range t.applies {
				bump(&w.applied[j])
			}
			for _, k := range t.keys {
				w.addKey(d, k)
			}
			for _, e := range t.outbox {
				w.relay(d, e)
			}
			return true, nil
		}
	case opPublish:
		bump(&w.published[d.job])
		if w.tr.on(d.job) {
			w.tr.published++
		}
	case opWork:
		// Time is the engine's business; the world only notes that the job's work was done.
	}
	return false, nil
}

func (w *world) addKey(d *delivery, k int32) {
	if ev := w.keys.Insert(k); ev >= 0 && w.tr != nil {
		w.tr.evicted(ev, d)
	}
	if w.tr.on(d.job) {
		w.tr.keys = append(w.tr.keys, k)
	}
}

// relay publishes one committed outbox row: at least once, and once more for every time the relay
// dies between publishing it and marking it sent.
func (w *world) relay(d *delivery, event int32) {
	for i := 0; i <= d.relayCrashes; i++ {
		bump(&w.published[d.job])
		if w.tr.on(d.job) {
			w.tr.relayed(d, event, i, i < d.relayCrashes)
		}
	}
}

// opName is how an operation is written when its call site is unknown.
func (k opKind) String() string {
	return [...]string{"queue.ack()", "db.apply()", "db.seen()", "db.remember()", "db.begin()", "tx.apply()",
		"tx.seen()", "tx.remember()", "tx.outbox()", "tx.commit()", "tx.rollback()", "bus.publish()", "work()"}[k]
}

func jobArg(v int64, jobs int) (int32, error) {
	if v < 0 || v >= int64(jobs) {
		return 0, fmt.Errorf("%s is not a job of this stream, whose ids run from 0 to %s", thousands(v), thousands(int64(jobs-1)))
	}
	return int32(v), nil
}
