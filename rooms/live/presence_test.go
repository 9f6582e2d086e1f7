package live

import (
	"context"
	"sync"
	"testing"
	"time"

	"effectivelyonce/rooms"
)

// presenceLog is a Presence over a clock the test moves, recording what it writes and announces.
type presenceLog struct {
	mu        sync.Mutex
	now       time.Time
	touches   []string
	announced []string
}

func (l *presenceLog) presence() *Presence {
	return NewPresence(PresenceConfig{
		Now: func() time.Time { l.mu.Lock(); defer l.mu.Unlock(); return l.now },
		Touch: func(_ context.Context, room, member string, at time.Time) error {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.touches = append(l.touches, room+"/"+member)
			return nil
		},
		Announce: func(_ context.Context, room string) {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.announced = append(l.announced, room)
		},
	})
}

func (l *presenceLog) advance(d time.Duration) { l.mu.Lock(); l.now = l.now.Add(d); l.mu.Unlock() }

func (l *presenceLog) take() (touches, announced int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	touches, announced = len(l.touches), len(l.announced)
	l.touches, l.announced = nil, nil
	return touches, announced
}

// TestPresenceWritesInBatches: an arrival is written and announced at once; heartbeats write
// nothing; a flush writes a held member's mark only once it is WriteEvery old; a member whose
// stream closed fades, announced once, after the window.
func TestPresenceWritesInBatches(t *testing.T) {
	ctx := context.Background()
	l := &presenceLog{now: time.Unix(1e9, 0)}
	p := l.presence()
	p.Arrive(ctx, "r", "ada", false)
	if w, a := l.take(); w != 1 || a != 1 || !p.Here("r", "ada") {
		t.Fatalf("arrival: %d writes, %d announcements, here %v; want 1, 1, true", w, a, p.Here("r", "ada"))
	}
	p.Arrive(ctx, "r", "bob", true) // already shown present by another replica
	if w, a := l.take(); w != 0 || a != 0 {
		t.Fatalf("an arrival the store already shows: %d writes, %d announcements, want none", w, a)
	}
	for range 10 {
		l.advance(time.Second)
		p.Beat("r", "ada")
		p.Beat("r", "bob")
	}
	p.Flush(ctx)
	if w, _ := l.take(); w != 1 { // bob's mark was never written here; ada's is 10 s old
		t.Fatalf("flush 10 s on: %d writes, want 1 (bob's)", w)
	}
	l.advance(15 * time.Second)
	p.Flush(ctx)
	if w, a := l.take(); w != 1 || a != 0 { // ada's mark is 25 s old, bob's 15 s
		t.Fatalf("flush 25 s on: %d writes, %d announcements, want 1 (ada's) and 0", w, a)
	}
	p.Leave("r", "ada")
	l.advance(rooms.PresentWindow)
	p.Flush(ctx)
	if _, a := l.take(); a != 0 || !p.Here("r", "ada") {
		t.Fatalf("just inside the window: %d announcements, here %v; want 0 and true", a, p.Here("r", "ada"))
	}
	l.advance(time.Second)
	if p.Here("r", "ada") {
		t.Fatal("ada still here a window after her stream closed")
	}
	p.Flush(ctx)
	p.Flush(ctx)
	if _, a := l.take(); a != 1 {
		t.Fatalf("ada's fade: %d announcements, want 1", a)
	}
	if !p.Here("r", "bob") {
		t.Fatal("bob, whose stream stays open, faded")
	}
}
