package live

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"effectivelyonce/rooms"
)

// waitFor polls cond until it holds or a generous deadline passes; it times nothing itself.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
	}
}

// readerRoom is a room with a host and n members on a memory store. Changes are made through the
// first service answered, which announces nothing; the second, over the same store, is the
// readers', so that its reads are theirs alone.
func readerRoom(t *testing.T, n int) (*rooms.Service, *rooms.Service, rooms.Room, []string) {
	t.Helper()
	ctx := context.Background()
	st := rooms.NewMemStore()
	svc := rooms.NewService(st, rooms.Config{MaxMembers: n + 1})
	cr, err := svc.CreateRoom(ctx, "Readers")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for i := range n {
		j, err := svc.Join(ctx, cr.Room, fmt.Sprintf("Member %d", i+1))
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, j.MemberKey)
	}
	if _, err := svc.OpenRound(ctx, caller(t, svc, cr.Room, cr.HostKey), rooms.Question{Kind: rooms.KindPrediction, Prediction: "q1"}); err != nil {
		t.Fatal(err)
	}
	return svc, rooms.NewService(st, rooms.Config{}), cr.Room, keys
}

// caller resolves key in room r as a request does.
func caller(t *testing.T, svc *rooms.Service, r rooms.Room, key string) rooms.Caller {
	t.Helper()
	c, err := svc.Identify(context.Background(), r, key)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// idleReports collects what a reader reports when it goes idle, for a test to wait on.
type idleReports chan Idle

func (c idleReports) hook(i Idle) {
	select {
	case c <- i:
	default: // a test reads the reports it waits for; one it does not need is dropped
	}
}

// after waits for the first report of the reader idle after read n had begun; a reader that never
// settles fails the test after a generous time.
func (c idleReports) after(t *testing.T, n uint64) Idle {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case i := <-c:
			if i.Read >= n {
				return i
			}
		case <-timeout:
			t.Fatalf("the reader never went idle after read %d", n)
		}
	}
}

// readsForOneGuess subscribes n streams to a room of n members, waits for their first frame, and
// answers the store reads the readers made for one guess to reach every stream.
func readsForOneGuess(t *testing.T, n int) int64 {
	hub := NewLocal()
	defer hub.Close()
	svc, reading, room, keys := readerRoom(t, n)
	rs := NewReaders(hub, reading.Snapshot, ReadersConfig{})
	var watches []*Watch
	for range n {
		w, cancel := rs.Subscribe(room.ID)
		defer cancel()
		watches = append(watches, w)
	}
	gen := func(w *Watch) uint64 { return w.Latest().Gen }
	waitFor(t, "every stream's first frame", func() bool {
		for _, w := range watches {
			if gen(w) == 0 {
				return false
			}
		}
		return true
	})
	before, first := reading.StoreReads(), gen(watches[0])
	if err := svc.Guess(context.Background(), caller(t, svc, room, keys[0]), 1, 7); err != nil {
		t.Fatal(err)
	}
	if err := hub.Publish(context.Background(), room.ID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the guess in every stream's frame", func() bool {
		for _, w := range watches {
			f := w.Latest()
			if f.Gen <= first || f.Snapshot == nil || len(f.Snapshot.Guesses) != 1 {
				return false
			}
		}
		return true
	})
	if got := rs.Running(); got != 1 {
		t.Fatalf("%d readers for one room, want 1", got)
	}
	return reading.StoreReads() - before
}

// TestReadsPerChangeIndependentOfStreams: one change costs the store the same reads whether 3 or
// 30 streams watch the room: one snapshot (five reads), taken once for all of them.
func TestReadsPerChangeIndependentOfStreams(t *testing.T) {
	few, many := readsForOneGuess(t, 3), readsForOneGuess(t, 30)
	if few != many {
		t.Errorf("one change cost %d store reads with 3 streams and %d with 30: reads follow the audience", few, many)
	}
	if few != 5 {
		t.Errorf("one change cost %d store reads, want 5 (one snapshot: room, members, rounds, guesses, pins)", few)
	}
}

// TestReaderCoalescesBursts: changes that arrive while a read is in flight cost one more read,
// not one each.
func TestReaderCoalescesBursts(t *testing.T) {
	hub := NewLocal()
	defer hub.Close()
	var reads atomic.Int64
	entered, release := make(chan struct{}, 100), make(chan struct{})
	read := func(ctx context.Context, id string) (rooms.Snapshot, error) {
		n := reads.Add(1)
		if n == 2 { // the first change's read: hold it while a burst arrives
			entered <- struct{}{}
			<-release
		}
		return rooms.Snapshot{Room: rooms.Room{ID: id}}, nil
	}
	idle := make(idleReports, 16)
	rs := NewReaders(hub, read, ReadersConfig{Idle: idle.hook})
	w, cancel := rs.Subscribe("r")
	defer cancel()
	idle.after(t, 1)
	_ = hub.Publish(context.Background(), "r")
	<-entered
	for range 50 {
		_ = hub.Publish(context.Background(), "r")
	}
	close(release)
	// The reader goes idle only with nothing pending and nothing scheduled but the refresh: the
	// read it last began is the last it makes.
	if i := idle.after(t, 3); i.Read != 3 || !i.Deadline.IsZero() || !i.Retry.IsZero() {
		t.Errorf("idle after %d reads, deadline %v, retry %v; want 3 reads (a start, a change, a burst of 50 during its read) and nothing scheduled",
			i.Read, i.Deadline, i.Retry)
	}
	if n := reads.Load(); n != 3 || w.Latest().Gen != 3 {
		t.Errorf("%d reads, frame %d; want 3 and 3", n, w.Latest().Gen)
	}
}

// TestReaderStartsAndStopsWithItsStreams: the first stream starts the room's reader, the last one
// stops it (and its hub subscription), and a later stream starts a new one.
func TestReaderStartsAndStopsWithItsStreams(t *testing.T) {
	hub := NewLocal()
	defer hub.Close()
	var reads atomic.Int64
	rs := NewReaders(hub, func(ctx context.Context, id string) (rooms.Snapshot, error) {
		reads.Add(1)
		return rooms.Snapshot{}, nil
	}, ReadersConfig{})
	if rs.Running() != 0 {
		t.Fatal("a reader before any stream")
	}
	a, cancelA := rs.Subscribe("r")
	b, cancelB := rs.Subscribe("r")
	waitFor(t, "the first frame", func() bool { return a.Latest().Gen == 1 && b.Latest().Gen == 1 })
	if rs.Running() != 1 || reads.Load() != 1 {
		t.Fatalf("%d readers and %d reads for two streams of one room, want 1 and 1", rs.Running(), reads.Load())
	}
	cancelA()
	if rs.Running() != 1 {
		t.Fatal("the reader stopped while a stream still watched")
	}
	cancelB()
	cancelB() // twice is harmless
	if rs.Running() != 0 {
		t.Fatal("the reader outlived its last stream")
	}
	waitFor(t, "the hub forgetting the room", func() bool {
		hub.mu.RLock()
		defer hub.mu.RUnlock()
		return len(hub.rooms) == 0
	})
	c, cancelC := rs.Subscribe("r")
	defer cancelC()
	waitFor(t, "a new reader's frame", func() bool { return c.Latest().Gen == 1 })
	if reads.Load() != 2 {
		t.Errorf("%d reads, want 2 (one per reader)", reads.Load())
	}
}

// TestReaderEndsStreamsWhenTheHubCloses: shutdown closes the hub, which closes every watch.
func TestReaderEndsStreamsWhenTheHubCloses(t *testing.T) {
	hub := NewLocal()
	rs := NewReaders(hub, func(ctx context.Context, id string) (rooms.Snapshot, error) { return rooms.Snapshot{}, nil }, ReadersConfig{})
	w, cancel := rs.Subscribe("r")
	defer cancel()
	<-w.C
	hub.Close()
	select {
	case _, open := <-w.C:
		if open {
			if _, open = <-w.C; open {
				t.Fatal("the watch still delivers after the hub closed")
			}
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watch did not close with the hub")
	}
}

// TestReaderRetriesAnUnavailableStore: a read that finds the store out of reach keeps the last
// frame and is made again shortly, without a change.
func TestReaderRetriesAnUnavailableStore(t *testing.T) {
	hub := NewLocal()
	defer hub.Close()
	var reads, failed atomic.Int64
	rs := NewReaders(hub, func(ctx context.Context, id string) (rooms.Snapshot, error) {
		if reads.Add(1) == 2 {
			return rooms.Snapshot{}, fmt.Errorf("down: %w", rooms.ErrUnavailable)
		}
		return rooms.Snapshot{}, nil
	}, ReadersConfig{Retry: time.Millisecond, Unavailable: func() { failed.Add(1) }})
	w, cancel := rs.Subscribe("r")
	defer cancel()
	waitFor(t, "the first frame", func() bool { return w.Latest().Gen == 1 })
	_ = hub.Publish(context.Background(), "r")
	waitFor(t, "the retried read", func() bool { return w.Latest().Gen == 3 })
	if f := w.Latest(); f.Err != nil || failed.Load() != 1 {
		t.Errorf("after one outage: frame error %v, %d failures heard, want none and 1", f.Err, failed.Load())
	}
}

// TestReaderRedrawsAtTheDeadline: nothing is written when a countdown reaches zero, so the
// reader reads the room again at that instant, unasked, and every stream can draw it locked;
// with no countdown left it reads no more.
func TestReaderRedrawsAtTheDeadline(t *testing.T) {
	hub := NewLocal()
	defer hub.Close()
	var reads atomic.Int64
	start := time.Now()
	deadline := start.Add(50 * time.Millisecond)
	idle := make(idleReports, 16)
	rs := NewReaders(hub, func(ctx context.Context, id string) (rooms.Snapshot, error) {
		reads.Add(1)
		return rooms.Snapshot{At: time.Now(), Rounds: []rooms.Round{{Seq: 1, State: rooms.RoundOpen, Seconds: 15, Deadline: deadline}}}, nil
	}, ReadersConfig{Idle: idle.hook})
	w, cancel := rs.Subscribe("r")
	defer cancel()
	if i := idle.after(t, 1); i.Read != 1 || i.Deadline.IsZero() {
		t.Fatalf("after the first read the reader waits with deadline %v (read %d), want one scheduled", i.Deadline, i.Read)
	}
	// Once the read at zero finds the countdown over, nothing more is scheduled: no third read.
	if i := idle.after(t, 2); i.Read != 2 || !i.Deadline.IsZero() || !i.Retry.IsZero() {
		t.Errorf("idle after %d reads with deadline %v, retry %v; want 2 (the start, zero) and nothing scheduled", i.Read, i.Deadline, i.Retry)
	}
	if f := w.Latest(); f.Gen != 2 || f.Snapshot.At.Before(deadline) {
		t.Errorf("frame %d read at %v; want the second, at or after the deadline %v", f.Gen, f.Snapshot.At, deadline)
	}
	if n := reads.Load(); n != 2 {
		t.Errorf("%d reads, want 2: one at the start, one at zero", n)
	}
}

// TestGapWidensWithBusyStreams checks the pace of a room's reads: Gap while the rooms read in the
// last second hold few streams, and those streams over Draws once they hold more, whichever room
// they watch, so that the drawings of a replica full of busy rooms stay within what it can draw;
// rooms not read within the second do not count, and the pace comes back as streams go.
func TestGapWidensWithBusyStreams(t *testing.T) {
	hub := NewLocal()
	defer hub.Close()
	read := func(ctx context.Context, id string) (rooms.Snapshot, error) { return rooms.Snapshot{}, nil }
	rs := NewReaders(hub, read, ReadersConfig{Gap: 100 * time.Millisecond, Draws: 50})
	var cancels []func()
	var watches []*Watch
	for i := range 10 {
		w, cancel := rs.Subscribe(fmt.Sprintf("room-%d", i%3))
		watches, cancels = append(watches, w), append(cancels, cancel)
	}
	for _, w := range watches { // every room has been read: the first read of each is done
		waitFor(t, "the first read", func() bool { return w.Latest().Gen > 0 })
	}
	now := time.Now()
	if got := rs.pace(now); got != 200*time.Millisecond {
		t.Errorf("10 streams of rooms just read, at 50 drawings a second: gap %v, want 200ms", got)
	}
	if got := rs.pace(now.Add(busyWindow)); got != 100*time.Millisecond {
		t.Errorf("the same rooms unread for %v: gap %v, want Gap's 100ms", busyWindow, got)
	}
	for _, cancel := range cancels[:8] {
		cancel()
		cancel() // twice is once
	}
	if got := rs.pace(now); got != 100*time.Millisecond {
		t.Errorf("2 streams left: gap %v, want Gap's 100ms", got)
	}
	for _, cancel := range cancels[8:] {
		cancel()
	}
}
