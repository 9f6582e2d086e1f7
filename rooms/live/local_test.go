package live

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// wait is how long a test gives a signal that should arrive; generous because a loaded CI box
// under -race can stall a goroutine for a long time, and a passing test never waits it out.
const wait = 5 * time.Second

// mustReceive fails unless a signal arrives on ch within wait.
func mustReceive(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case _, ok := <-ch:
		if !ok {
			t.Fatalf("%s: channel closed, want a signal", what)
		}
	case <-time.After(wait):
		t.Fatalf("%s: no signal within %s", what, wait)
	}
}

// mustBeQuiet fails if a signal is pending on ch right now. "Nothing yet" means "nothing" only
// once every publish that could signal ch has been dispatched: with Local that is when Publish
// returns; through Postgres the caller first waits for a signal published after them all, since
// Postgres delivers notifications in the order their transactions committed.
func mustBeQuiet(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case _, ok := <-ch:
		t.Fatalf("%s: got a signal (open=%v), want none", what, ok)
	default:
	}
}

// mustBeClosed fails unless ch is closed (after at most one pending signal is drained).
func mustBeClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	deadline := time.After(wait)
	for range 2 {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatalf("%s: channel still open after %s", what, wait)
		}
	}
	t.Fatalf("%s: channel delivered two signals and is still open", what)
}

func TestLocalPublishReachesOnlyThatRoom(t *testing.T) {
	h := NewLocal()
	defer h.Close()
	a1, cancelA1 := h.Subscribe("a")
	defer cancelA1()
	a2, cancelA2 := h.Subscribe("a")
	defer cancelA2()
	b, cancelB := h.Subscribe("b")
	defer cancelB()

	if err := h.Publish(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	mustReceive(t, a1, "first subscriber of a")
	mustReceive(t, a2, "second subscriber of a")
	mustBeQuiet(t, b, "subscriber of b after a publish to a")

	if err := h.Publish(context.Background(), "b"); err != nil {
		t.Fatal(err)
	}
	mustReceive(t, b, "subscriber of b")
	mustBeQuiet(t, a1, "subscriber of a after a publish to b")
}

func TestLocalPublishToRoomWithoutSubscribers(t *testing.T) {
	h := NewLocal()
	defer h.Close()
	if err := h.Publish(context.Background(), "nobody"); err != nil {
		t.Fatalf("publish to an unwatched room: %v, want nil", err)
	}
	if len(h.rooms) != 0 {
		t.Fatalf("publishing created %d room entries, want 0", len(h.rooms))
	}
}

func TestLocalCoalesces(t *testing.T) {
	h := NewLocal()
	defer h.Close()
	ch, cancel := h.Subscribe("r")
	defer cancel()
	for range 100 {
		if err := h.Publish(context.Background(), "r"); err != nil {
			t.Fatal(err)
		}
	}
	mustReceive(t, ch, "after 100 publishes")
	mustBeQuiet(t, ch, "second read after 100 publishes")

	// Coalescing must not swallow a change made after the subscriber has read.
	if err := h.Publish(context.Background(), "r"); err != nil {
		t.Fatal(err)
	}
	mustReceive(t, ch, "publish after the read")
}

func TestLocalPublishNeverBlocks(t *testing.T) {
	h := NewLocal()
	defer h.Close()
	// Subscribers that never read, as a stalled browser connection would.
	for range 50 {
		_, cancel := h.Subscribe("r")
		defer cancel()
	}
	done := make(chan error, 1)
	go func() {
		for range 10_000 {
			if err := h.Publish(context.Background(), "r"); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(wait):
		t.Fatalf("10,000 publishes to 50 subscribers that never read did not finish within %s", wait)
	}
}

func TestLocalCancelStopsDelivery(t *testing.T) {
	h := NewLocal()
	defer h.Close()
	gone, cancelGone := h.Subscribe("r")
	stays, cancelStays := h.Subscribe("r")
	defer cancelStays()

	cancelGone()
	mustBeClosed(t, gone, "canceled subscription")
	cancelGone() // twice must not panic on a double close
	if err := h.Publish(context.Background(), "r"); err != nil {
		t.Fatal(err)
	}
	mustReceive(t, stays, "the subscriber that did not cancel")

	cancelStays()
	if len(h.rooms) != 0 {
		t.Fatalf("after every subscriber canceled the hub still holds %d rooms, want 0", len(h.rooms))
	}
}

func TestLocalCloseClosesChannels(t *testing.T) {
	h := NewLocal()
	a, cancelA := h.Subscribe("a")
	b, cancelB := h.Subscribe("b")
	if err := h.Publish(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	mustBeClosed(t, a, "subscriber with a pending signal")
	mustBeClosed(t, b, "idle subscriber")

	if err := h.Publish(context.Background(), "a"); !errors.Is(err, ErrClosed) {
		t.Fatalf("publish after close: %v, want ErrClosed", err)
	}
	late, cancelLate := h.Subscribe("a")
	mustBeClosed(t, late, "subscription made after close")

	// None of these may panic: a stream's deferred cancel often runs after shutdown.
	cancelA()
	cancelB()
	cancelLate()
	cancelLate()
	if err := h.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
}

func TestLocalWakeAll(t *testing.T) {
	h := NewLocal()
	defer h.Close()
	var chans []<-chan struct{}
	for i := range 6 {
		ch, cancel := h.Subscribe(fmt.Sprint("room", i%3))
		defer cancel()
		chans = append(chans, ch)
	}
	h.wakeAll()
	for i, ch := range chans {
		mustReceive(t, ch, fmt.Sprint("subscriber ", i))
	}
}

// TestLocalConcurrent runs publishers, subscribers that cancel, and a Close against one another;
// under -race it checks the locking, and without it that no send hits a closed channel.
func TestLocalConcurrent(t *testing.T) {
	h := NewLocal()
	watcher, cancelWatcher := h.Subscribe("room0")
	defer cancelWatcher()

	var wg sync.WaitGroup
	stop := make(chan struct{})
	for p := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				err := h.Publish(context.Background(), fmt.Sprint("room", (i+p)%5))
				if err != nil && !errors.Is(err, ErrClosed) {
					t.Errorf("publish: %v", err)
					return
				}
			}
		})
	}
	for s := range 8 {
		wg.Go(func() {
			for i := range 500 {
				ch, cancel := h.Subscribe(fmt.Sprint("room", (i+s)%5))
				select {
				case <-ch:
				default:
				}
				cancel()
				if i%2 == 0 {
					cancel()
				}
			}
		})
	}

	// The watcher must hear the storm; otherwise the test raced nothing.
	mustReceive(t, watcher, "watcher during concurrent publishes")

	// Close while the publishers still run: they must start failing with ErrClosed, not panic.
	var kept []func()
	for i := range 20 {
		_, cancel := h.Subscribe(fmt.Sprint("room", i%5))
		kept = append(kept, cancel)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	for _, cancel := range kept {
		wg.Go(cancel)
	}
	close(stop)
	wg.Wait()
	mustBeClosed(t, watcher, "watcher after close")
}

// BenchmarkLocalPublish measures one publish to one room of a site with 1,500 open streams in
// 50 rooms, 30 streams each: the cost a room change adds to the request that made it.
func BenchmarkLocalPublish(b *testing.B) {
	h := NewLocal()
	defer h.Close()
	const rooms, subscribers = 50, 1500
	var chans []<-chan struct{}
	for i := range subscribers {
		ch, cancel := h.Subscribe(fmt.Sprint("room", i%rooms))
		defer cancel()
		chans = append(chans, ch)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := h.Publish(ctx, "room7"); err != nil {
			b.Fatal(err)
		}
		// Drain that room's streams so that each publish does the real send rather than hitting
		// the already-pending fast path every time.
		for i := 7; i < subscribers; i += rooms {
			<-chans[i]
		}
	}
}
