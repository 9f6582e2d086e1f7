package runs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Tasks is the one mechanism for work that goes on after the request that started it: a page's
// spread over seeds, a lab run, a pinned run's headline. Each task has an id its progress is asked
// by, and a key: a second start of a key that is running joins the running task. A task nobody has
// asked about for the unwatched time has lost its last reader (the tab closed) and is cancelled; a
// bound caps how many run at once, and another (SetWorkers) how many of those work at once; work
// that cannot be done now answers Later and is done again after a wait; an ended task still
// answers for the kept time.
type Tasks[D any] struct {
	max       int
	unwatched time.Duration // 0: no such clock (the command line is its task's watcher)
	kept      time.Duration
	workers   chan struct{} // a place per task working at once; nil: no bound
	// now is the clock that watching, ending and forgetting are timed by; a test sets its own
	// and sweeps by hand, so that what it checks does not hang on how fast the machine is.
	now func() time.Time

	root context.Context // ends at Stop, taking every task with it
	stop context.CancelCauseFunc
	wg   sync.WaitGroup

	mu       sync.Mutex
	byID     map[string]*Task[D] // running and recently ended
	byKey    map[string]*Task[D] // running only
	watching bool                // a goroutine looks for unwatched and old tasks
	stopped  bool
}

// State is where a task is: running, or how it ended.
type State int

// The states of a task. Whichever ending is recorded first stands: a Cancel that came before the
// work returned keeps Cancelled even when the work then finished.
const (
	Running State = iota
	Done
	Cancelled
	Failed
)

// ErrFull is a start refused because as many tasks as the bound allows are running.
var ErrFull = errors.New("runs: every background task place is taken")

// ErrStopped is a start refused because the server is shutting down, and the cause of the end of
// every task's context at Stop.
var ErrStopped = errors.New("runs: the server is shutting down")

// ErrAbandoned is the cause of the end of a task's context when nobody watched it for the
// unwatched time: its work reads it with context.Cause to say why it stopped.
var ErrAbandoned = errors.New("runs: nobody was watching the task")

// NewTasks makes an empty set of at most max running tasks (0: no bound).
func NewTasks[D any](max int, unwatched, kept time.Duration) *Tasks[D] {
	root, stop := context.WithCancelCause(context.Background())
	return &Tasks[D]{max: max, unwatched: unwatched, kept: kept, now: time.Now, root: root, stop: stop,
		byID: map[string]*Task[D]{}, byKey: map[string]*Task[D]{}}
}

// SetWorkers bounds how many tasks do their work at once (0, the default: every running task). A
// task started beyond it runs but waits its turn, and its context can still end it meanwhile (a
// Cancel, the unwatched clock, its timeout, Stop). Call it before the first Start.
func (ts *Tasks[D]) SetWorkers(n int) {
	ts.workers = nil
	if n > 0 {
		ts.workers = make(chan struct{}, n)
	}
}

// Later is a Work's answer for "not now, again after wait" (the runs' slots all busy, a client over
// its allowance): the task gives its worker's place to the next, waits, and does its work again,
// for as long as its context lives. A task that may answer Later needs a clock that ends it (the
// unwatched one, a timeout, or Stop); err says why, and a task whose context ends while it waits
// ends as a cancel or timeout would.
func Later(wait time.Duration, err error) error { return &later{wait: wait, err: err} }

type later struct {
	wait time.Duration
	err  error
}

func (l *later) Error() string { return fmt.Sprintf("%v (again in %v)", l.err, l.wait) }
func (l *later) Unwrap() error { return l.err }

// Task is one piece of background work, with the data its caller keeps beside it (what the work
// reports as it goes, what its page needs to show it).
type Task[D any] struct {
	ID, Key string
	Data    D
	cancel  context.CancelCauseFunc
	done    chan struct{}
	started time.Time
	now     func() time.Time // its Tasks' clock

	mu        sync.Mutex
	state     State
	err       error
	abandoned bool
	watched   time.Time
	ended     time.Time
}

// Work is a task's work. It returns onDone, run only when the task is recorded as Done (not when
// a Cancel came first) and before its key is free again, so that a result it keeps is found by
// whoever asks next, never a second start.
type Work func(ctx context.Context) (onDone func(), err error)

// Running is how many tasks run now.
func (ts *Tasks[D]) Running() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return len(ts.byKey)
}

// Start returns the running task of key (joined), or starts work as a new one with data beside
// it, under a timeout (0: none). It refuses with ErrFull at the bound and ErrStopped after Stop; admit, when set, is asked
// last, under the lock, so a refused start costs the caller's allowance nothing.
func (ts *Tasks[D]) Start(key string, timeout time.Duration, admit func() error, data D, work Work) (t *Task[D], joined bool, err error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.stopped {
		return nil, false, ErrStopped
	}
	if t, ok := ts.byKey[key]; ok {
		t.Watch()
		return t, true, nil
	}
	if ts.max > 0 && len(ts.byKey) >= ts.max {
		return nil, false, ErrFull
	}
	if admit != nil {
		if err := admit(); err != nil {
			return nil, false, err
		}
	}
	ctx, cancelTimeout := ts.root, context.CancelFunc(func() {})
	if timeout > 0 {
		ctx, cancelTimeout = context.WithTimeout(ctx, timeout)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	stop := func(cause error) { cancel(cause); cancelTimeout() }
	now := ts.now()
	t = &Task[D]{ID: newID(), Key: key, Data: data, cancel: stop, done: make(chan struct{}), started: now, watched: now, now: ts.now}
	ts.byID[t.ID], ts.byKey[key] = t, t
	ts.wg.Add(1)
	go ts.run(ctx, t, work)
	if !ts.watching {
		ts.watching = true
		go ts.watch()
	}
	return t, false, nil
}

func newID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// run does t's work and records how it ended.
func (ts *Tasks[D]) run(ctx context.Context, t *Task[D], work Work) {
	defer ts.wg.Done()
	defer close(t.done)
	defer t.cancel(context.Canceled)
	onDone, err := ts.attempts(ctx, work)
	t.mu.Lock()
	if t.state == Running {
		t.ended = t.now()
		switch {
		case err == nil:
			t.state = Done
			if onDone != nil {
				onDone()
			}
		case errors.Is(err, context.Canceled):
			t.state, t.err = Cancelled, err
		default:
			t.state, t.err = Failed, err
		}
	}
	t.mu.Unlock()
	ts.mu.Lock()
	delete(ts.byKey, t.Key)
	ts.mu.Unlock()
}

// attempts does work, again after each Later it answers, until it answers anything else or ctx
// ends; no worker's place is held while it waits.
func (ts *Tasks[D]) attempts(ctx context.Context, work Work) (func(), error) {
	for {
		onDone, err := ts.attempt(ctx, work)
		var l *later
		if !errors.As(err, &l) {
			return onDone, err
		}
		wait := time.NewTimer(l.wait)
		select {
		case <-wait.C:
		case <-ctx.Done():
			wait.Stop()
			return nil, ctx.Err()
		}
	}
}

// attempt does work once, in a worker's place when SetWorkers bounds them.
func (ts *Tasks[D]) attempt(ctx context.Context, work Work) (func(), error) {
	if ts.workers != nil {
		select {
		case ts.workers <- struct{}{}:
			defer func() { <-ts.workers }()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return work(ctx)
}

// watch sweeps a fifth of the shorter of the unwatched and kept times apart (at most a second),
// until no task is left, or Stop.
func (ts *Tasks[D]) watch() {
	every := time.Second
	if ts.unwatched > 0 {
		every = min(every, ts.unwatched/5)
	}
	if ts.kept > 0 {
		every = min(every, ts.kept/5)
	}
	tick := time.NewTicker(max(every, time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-ts.root.Done():
			// Stop has cancelled every task; the ended ones still answer Get, and nothing is
			// left to cancel, so the watching ends here rather than spinning on a closed channel.
			ts.mu.Lock()
			ts.watching = false
			ts.mu.Unlock()
			return
		case <-tick.C:
		}
		ts.mu.Lock()
		ts.sweepLocked()
		if len(ts.byID) == 0 {
			ts.watching = false
			ts.mu.Unlock()
			return
		}
		ts.mu.Unlock()
	}
}

// sweep cancels, as abandoned, the running tasks nobody has asked about for the unwatched time,
// and forgets the tasks that ended more than the kept time ago, by the Tasks' clock. The watcher
// sweeps on its ticker; a test sweeps by hand after moving its clock.
func (ts *Tasks[D]) sweep() {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.sweepLocked()
}

func (ts *Tasks[D]) sweepLocked() {
	now := ts.now()
	for id, t := range ts.byID {
		t.mu.Lock()
		if t.state == Running && ts.unwatched > 0 && now.Sub(t.watched) > ts.unwatched {
			t.abandoned = true
			t.cancel(ErrAbandoned)
		}
		if t.state != Running && now.Sub(t.ended) > ts.kept {
			delete(ts.byID, id)
		}
		t.mu.Unlock()
	}
}

// Get finds a task by id and counts the asking as watching it.
func (ts *Tasks[D]) Get(id string) (*Task[D], bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, ok := ts.byID[id]
	if ok {
		t.Watch()
	}
	return t, ok
}

// Stop cancels every task and waits until their work has returned; nothing starts after it.
func (ts *Tasks[D]) Stop() {
	ts.mu.Lock()
	ts.stopped = true
	ts.mu.Unlock()
	ts.stop(ErrStopped)
	ts.wg.Wait()
}

// Watch says someone is looking at t, which keeps it from being cancelled as abandoned.
func (t *Task[D]) Watch() {
	t.mu.Lock()
	t.watched = t.now()
	t.mu.Unlock()
}

// Cancel ends t: if it is still running it is recorded as Cancelled at once (true), and its
// work's context ends; Wait then waits for the work to return.
func (t *Task[D]) Cancel() bool {
	t.mu.Lock()
	was := t.state == Running
	if was {
		t.state, t.ended, t.err = Cancelled, t.now(), context.Canceled
	}
	t.mu.Unlock()
	t.cancel(context.Canceled)
	return was
}

// Wait waits until t's work has returned.
func (t *Task[D]) Wait() { <-t.done }

// Finished is closed when t's work has returned.
func (t *Task[D]) Finished() <-chan struct{} { return t.done }

// State is how t stands: running or how it ended, the error it ended with (Cancelled and Failed),
// and whether it was cancelled because nobody was watching.
func (t *Task[D]) State() (State, error, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state, t.err, t.abandoned
}

// Took is how long t ran, or has run so far.
func (t *Task[D]) Took() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.state == Running {
		return t.now().Sub(t.started)
	}
	return t.ended.Sub(t.started)
}

// Started is when t began.
func (t *Task[D]) Started() time.Time { return t.started }
