package runs

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// clock is a test's own time: it moves only when the test moves it.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// block is work that runs until its context ends or release is closed.
func block(release chan struct{}) Work {
	return func(ctx context.Context) (func(), error) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-release:
			return nil, nil
		}
	}
}

// TestTasksJoinBoundAndDone: a second start of a running key joins it; the bound refuses a new
// key, and admit is not asked then; a task that finishes is Done and runs its onDone once, after
// which its key starts anew.
func TestTasksJoinBoundAndDone(t *testing.T) {
	ts := NewTasks[struct{}](1, 0, time.Minute)
	defer ts.Stop()
	release := make(chan struct{})
	a, joined, err := ts.Start("a", 0, nil, struct{}{}, block(release))
	if err != nil || joined {
		t.Fatalf("first start: joined %v, err %v", joined, err)
	}
	b, joined, err := ts.Start("a", 0, nil, struct{}{}, block(release))
	if err != nil || !joined || b != a {
		t.Fatalf("second start of a: joined %v, same task %v, err %v", joined, b == a, err)
	}
	asked := false
	if _, _, err := ts.Start("b", 0, func() error { asked = true; return nil }, struct{}{}, block(release)); !errors.Is(err, ErrFull) || asked {
		t.Fatalf("over the bound: err %v, admit asked %v", err, asked)
	}
	close(release)
	a.Wait()
	if st, err, _ := a.State(); st != Done || err != nil {
		t.Fatalf("finished task: state %v err %v", st, err)
	}
	// The key is given back before the task's Wait returns, so a start right after finds it free.
	if n := ts.Running(); n != 0 {
		t.Fatalf("%d tasks still run after the only one finished", n)
	}
	done := 0
	c, joined, err := ts.Start("a", 0, nil, struct{}{}, func(context.Context) (func(), error) { return func() { done++ }, nil })
	if err != nil || joined {
		t.Fatalf("restart of a: joined %v err %v", joined, err)
	}
	c.Wait()
	if done != 1 {
		t.Errorf("onDone ran %d times, want 1", done)
	}
	if got, ok := ts.Get(a.ID); !ok || got != a {
		t.Error("an ended task no longer answers within its kept time")
	}
}

// TestTaskCancelFirstStands: a Cancel recorded before the work returns stands, even when the
// work then finishes without error, and its onDone does not run; a refused admit starts nothing.
func TestTaskCancelFirstStands(t *testing.T) {
	ts := NewTasks[struct{}](0, 0, time.Minute)
	defer ts.Stop()
	ran := false
	started := make(chan struct{})
	task, _, err := ts.Start("k", 0, nil, struct{}{}, func(ctx context.Context) (func(), error) {
		close(started)
		<-ctx.Done()
		return func() { ran = true }, nil // finishes "successfully" despite the cancel
	})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	if !task.Cancel() {
		t.Fatal("Cancel of a running task said it was not running")
	}
	task.Wait()
	if st, _, abandoned := task.State(); st != Cancelled || abandoned || ran {
		t.Errorf("state %v abandoned %v onDone ran %v; want Cancelled, false, false", st, abandoned, ran)
	}
	if task.Cancel() {
		t.Error("a second Cancel said the task was running")
	}
	refuse := errors.New("no allowance left")
	if _, _, err := ts.Start("other", 0, func() error { return refuse }, struct{}{}, block(nil)); !errors.Is(err, refuse) || ts.Running() != 0 {
		t.Errorf("refused admit: err %v, running %d", err, ts.Running())
	}
}

// TestTasksUnwatchedAndForgotten: a task nobody asks about for the unwatched time is cancelled
// as abandoned (its context's cause says so), one that is asked about goes on; an ended task is
// forgotten once its kept time has passed, and not before. The test keeps the clock and sweeps by
// hand: any sweep of the watcher's own in between sees the same time, so nothing hangs on how
// fast the machine is.
func TestTasksUnwatchedAndForgotten(t *testing.T) {
	c := &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	ts := NewTasks[struct{}](0, time.Minute, time.Minute)
	ts.now = c.Now
	defer ts.Stop()
	release := make(chan struct{})
	lost, _, _ := ts.Start("lost", 0, nil, struct{}{}, block(release))
	c.add(50 * time.Second)
	kept, _, _ := ts.Start("kept", 0, nil, struct{}{}, block(release))
	c.add(20 * time.Second) // lost unwatched for 70 s, kept for 20 s
	ts.sweep()
	lost.Wait()
	if st, _, abandoned := lost.State(); st != Cancelled || !abandoned {
		t.Errorf("unwatched task: state %v abandoned %v", st, abandoned)
	}
	c.add(30 * time.Second)
	if _, ok := ts.Get(kept.ID); !ok { // asked about: watched again now
		t.Fatal("the running task is not found")
	}
	c.add(30 * time.Second) // 80 s since kept started, 30 s since it was asked about
	ts.sweep()
	if st, _, _ := kept.State(); st != Running {
		t.Errorf("watched task: state %v, want running", st)
	}

	var cause error
	ct, _, err := ts.Start("cause", 0, nil, struct{}{}, func(ctx context.Context) (func(), error) {
		<-ctx.Done()
		cause = context.Cause(ctx)
		return nil, ctx.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	close(release)
	kept.Wait() // ended now, Done
	c.add(30 * time.Second)
	ts.sweep()
	if _, ok := ts.Get(kept.ID); !ok {
		t.Error("a task that ended 30 s ago, within a kept time of a minute, was forgotten")
	}
	if _, ok := ts.Get(lost.ID); ok {
		t.Error("a task that ended 90 s ago is still kept, with a kept time of a minute")
	}
	c.add(31 * time.Second) // cause unwatched for 61 s; kept ended 61 s ago
	ts.sweep()
	ct.Wait()
	if !errors.Is(cause, ErrAbandoned) {
		t.Errorf("an abandoned task's context ended with cause %v, want ErrAbandoned", cause)
	}
	if _, ok := ts.Get(kept.ID); ok {
		t.Error("a task that ended 61 s ago is still kept, with a kept time of a minute")
	}
}

// TestTasksStopAndTimeout: a task's timeout ends its work with DeadlineExceeded (Failed, with
// that error); Stop cancels every running task, waits for it, and refuses later starts.
func TestTasksStopAndTimeout(t *testing.T) {
	ts := NewTasks[struct{}](0, 0, time.Minute)
	late, _, _ := ts.Start("late", time.Millisecond, nil, struct{}{}, block(nil))
	late.Wait()
	if st, err, _ := late.State(); st != Failed || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("timed out task: state %v err %v", st, err)
	}
	running, _, _ := ts.Start("running", 0, nil, struct{}{}, block(nil))
	ts.Stop()
	select {
	case <-running.Finished():
	default:
		t.Fatal("Stop returned before the task's work did")
	}
	if _, _, err := ts.Start("after", 0, nil, struct{}{}, block(nil)); !errors.Is(err, ErrStopped) {
		t.Errorf("start after Stop: %v", err)
	}
}

// TestTasksWorkersAndLater: with one worker's place, a second task waits its turn (and a cancel
// while it waits ends it without its work ever running); work that answers Later gives its place
// to the next task while it waits, and is done again until it answers anything else.
func TestTasksWorkersAndLater(t *testing.T) {
	ts := NewTasks[struct{}](0, 0, time.Minute)
	ts.SetWorkers(1)
	defer ts.Stop()
	release, working := make(chan struct{}), make(chan string, 4)
	hold := func(name string) Work {
		return func(ctx context.Context) (func(), error) {
			working <- name
			select {
			case <-release:
				return nil, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	a, _, _ := ts.Start("a", 0, nil, struct{}{}, hold("a"))
	if got := <-working; got != "a" {
		t.Fatalf("%s worked first, want a", got)
	}
	queued, _, _ := ts.Start("queued", 0, nil, struct{}{}, hold("queued"))
	if !queued.Cancel() {
		t.Fatal("a task waiting for a place was not running")
	}
	queued.Wait() // its context ended while it waited: it returned without working
	b, _, _ := ts.Start("b", 0, nil, struct{}{}, hold("b"))
	close(release)
	a.Wait()
	if got := <-working; got != "b" {
		t.Fatalf("%s worked after a, want b (the cancelled task must never work)", got)
	}
	b.Wait()
	if st, _, _ := queued.State(); st != Cancelled {
		t.Errorf("the task cancelled in the queue ended %v", st)
	}

	// Later: a task that answers "not now" waits without its place, which the next task takes...
	busy := errors.New("busy")
	tried := make(chan struct{})
	waiting, _, _ := ts.Start("waiting", 0, nil, struct{}{}, func(ctx context.Context) (func(), error) {
		close(tried)
		return nil, Later(time.Hour, busy)
	})
	<-tried
	worked := make(chan struct{})
	other, _, _ := ts.Start("other", 0, nil, struct{}{}, func(context.Context) (func(), error) { close(worked); return nil, nil })
	<-worked
	other.Wait()
	if st, _, _ := waiting.State(); st != Running {
		t.Fatalf("a task waiting out Later is %v, want running", st)
	}
	waiting.Cancel()
	waiting.Wait()
	if st, _, _ := waiting.State(); st != Cancelled {
		t.Fatalf("cancelled while waiting out Later: %v", st)
	}
	// ... and does its work again until it answers anything else.
	attempts := 0
	retried, _, _ := ts.Start("retried", 0, nil, struct{}{}, func(ctx context.Context) (func(), error) {
		if attempts++; attempts < 3 {
			return nil, Later(time.Millisecond, busy)
		}
		return nil, nil
	})
	retried.Wait()
	if st, err, _ := retried.State(); st != Done || attempts != 3 {
		t.Errorf("after Later twice: %v %v with %d attempts, want done on the third", st, err, attempts)
	}
}
