// Package live keeps study rooms' pages live without their streams reading the store. It has
// three parts.
//
// The hub ([Hub]) carries one message, "room X changed", from whoever changed the room to every
// replica. The message carries no state on purpose, so notifications coalesce: a subscription
// holds at most one pending signal, and a burst of changes never queues or blocks a publisher.
// With SQLite the site runs as one instance and [Local] is the whole hub; with Postgres several
// replicas serve one room, and [Postgres] relays the message through LISTEN/NOTIFY.
//
// The readers ([Readers], readers.go) turn those signals into reads. Per replica and per room,
// one reader subscribes to the hub before its first read (so no change falls between), takes one
// [rooms.Snapshot] of the room per change (the changes of one gap, 100 ms or wider on a busy
// replica, read once), and hands it to every stream of the room as a [Frame]. Each stream derives its own
// caller's view from the snapshot in memory (a host and a member see different things), and what
// the streams work out alike from one snapshot they share through the frame. So the store's cost
// of a change does not grow with the number of people watching, and a heartbeat reads nothing.
//
// Presence ([Presence], presence.go) is who is here, kept in memory by the streams of this
// replica and written to the store in batches, so that the other replicas' readers see it too
// while a stream's heartbeat touches no store.
package live

import (
	"context"
	"errors"
	"sync"
)

// Hub carries "room X changed" from whoever changed it to every stream watching that room.
type Hub interface {
	// Publish tells every subscriber of roomID, on every replica, that the room changed. It
	// never waits on a subscriber.
	Publish(ctx context.Context, roomID string) error
	// Subscribe returns a channel that receives a value after roomID changes, at most one
	// pending at a time, and a cancel func to call when the stream ends. The channel is closed
	// by cancel and by the hub's Close, so a stream ranging over it ends on shutdown.
	Subscribe(roomID string) (changes <-chan struct{}, cancel func())
	// Close ends every subscription; later calls to Publish fail and Subscribe answers a
	// closed channel.
	Close() error
}

// ErrClosed is what Publish answers after Close, so that a caller can tell a hub shutting down
// from a database that failed.
var ErrClosed = errors.New("live: hub is closed")

// Both hubs must stay interchangeable behind the interface the site is wired with.
var (
	_ Hub = (*Local)(nil)
	_ Hub = (*Postgres)(nil)
)

// Local is the in-process hub: it fans a change out to the subscribers held by this process only.
// The zero value is not ready; use [NewLocal].
type Local struct {
	// An RWMutex so that publishes to busy rooms run side by side: a send on a buffered channel
	// with a default case is safe under a read lock and never waits.
	mu     sync.RWMutex
	rooms  map[string]map[*subscription]struct{}
	closed bool
}

// subscription is one stream's mailbox. Its channel is closed exactly once, under the hub's
// write lock, after it has left the room's set, so no publisher can send on a closed channel.
type subscription struct {
	ch chan struct{}
}

// NewLocal returns an empty in-process hub.
func NewLocal() *Local {
	return &Local{rooms: make(map[string]map[*subscription]struct{})}
}

// closedChan is what Subscribe hands out after Close: a stream that starts during shutdown ends
// at once instead of waiting for a signal that will never come.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// Publish wakes the subscribers of roomID held by this process. It touches only that room's set,
// so its cost follows the room's audience, not the site's.
func (h *Local) Publish(_ context.Context, roomID string) error {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.closed {
		return ErrClosed
	}
	for s := range h.rooms[roomID] {
		notify(s.ch)
	}
	return nil
}

// notify leaves a signal unless one is already pending: the subscriber will re-read the whole
// room anyway, so a second signal would only cost it a second identical render.
func notify(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// Subscribe registers a stream for roomID. The channel has room for one pending signal; cancel
// removes the subscription and closes the channel, and may be called any number of times, from
// any goroutine, before or after Close.
func (h *Local) Subscribe(roomID string) (<-chan struct{}, func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return closedChan, func() {}
	}
	s := &subscription{ch: make(chan struct{}, 1)}
	set := h.rooms[roomID]
	if set == nil {
		set = make(map[*subscription]struct{})
		h.rooms[roomID] = set
	}
	set[s] = struct{}{}
	return s.ch, func() { h.cancel(roomID, s) }
}

// cancel is idempotent because membership in the set is the single record of "still open": only
// the call that finds the subscription there closes its channel, and Close empties every set.
func (h *Local) cancel(roomID string, s *subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	set := h.rooms[roomID]
	if _, ok := set[s]; !ok {
		return
	}
	delete(set, s)
	close(s.ch)
	// An empty room is dropped so that the map does not keep every room ever watched.
	if len(set) == 0 {
		delete(h.rooms, roomID)
	}
}

// wakeAll signals every subscriber of every room. The Postgres hub calls it after its listening
// connection comes back, because notifications sent while it was gone are lost for good.
func (h *Local) wakeAll() {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, set := range h.rooms {
		for s := range set {
			notify(s.ch)
		}
	}
}

// Close closes every subscriber's channel, so that SSE streams end and the server can shut
// down, and makes later Publish calls fail. Closing twice is harmless.
func (h *Local) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	h.closed = true
	for _, set := range h.rooms {
		for s := range set {
			close(s.ch)
		}
	}
	h.rooms = nil
	return nil
}

// isClosed lets the Postgres hub refuse a publish without a round trip to the database.
func (h *Local) isClosed() bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.closed
}
