package rooms

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// notes records the rooms Notify heard of, so a test can tell which actions wake live views.
type notes struct {
	mu  sync.Mutex
	ids []string
}

func (n *notes) notify(_ context.Context, id string) {
	n.mu.Lock()
	n.ids = append(n.ids, id)
	n.mu.Unlock()
}
func (n *notes) take() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	k := len(n.ids)
	n.ids = nil
	return k
}

// TestEveryChangeNotifies checks that each change a member or host makes is announced once, and
// that a refused change and a read announce nothing: a live view redraws exactly when it must.
func TestEveryChangeNotifies(t *testing.T) {
	ctx := context.Background()
	n := &notes{}
	f := newFixture(t, Config{Notify: n.notify})
	n.take()
	ada := f.join(t, "Ada")
	seq := f.round(t, Question{Kind: KindCustom, Text: "How many?", Max: 100})
	if got := n.take(); got != 2 {
		t.Fatalf("join and open round notified %d times, want 2", got)
	}
	steps := []struct {
		name string
		do   func() error
		want int
	}{
		{"guess", func() error { return f.svc.Guess(ctx, f.as(t, ada), seq, 7) }, 1},
		{"refused guess", func() error { _ = f.svc.Guess(ctx, f.as(t, ada), seq, 1e12); return nil }, 0},
		{"state", func() error { _, err := f.svc.State(ctx, f.as(t, ada), nil); return err }, 0},
		{"lock", func() error { _, err := f.svc.LockRound(ctx, f.as(t, f.host), seq); return err }, 1},
		{"reveal", func() error {
			_, err := f.svc.Reveal(ctx, f.as(t, f.host), seq, MeasureFunc(func(context.Context, Question) (float64, error) { return 9, nil }))
			return err
		}, 2}, // the lock (a no-op here, still stored) and the reveal
		{"names", func() error { return f.svc.SetNamesVisible(ctx, f.as(t, f.host), seq, true) }, 1},
		{"pin", func() error { _, err := f.svc.AddPin(ctx, f.as(t, ada), "/blocks/4", "look"); return err }, 1},
		{"present", func() error { return f.svc.Present(ctx, f.as(t, f.host), "/blocks/4?max_delay=5000") }, 1},
		{"lock room", func() error { return f.svc.SetLocked(ctx, f.as(t, f.host), true) }, 1},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := n.take(); got != st.want {
			t.Errorf("%s notified %d times, want %d", st.name, got, st.want)
		}
	}
}

// TestPresence checks the roster's "present" as the store keeps it: a member is present once
// the live side has written that their stream was seen (Touch), and fades after PresentWindow
// without another mark. (When the live side tells the room is rooms/live's Presence.)
func TestPresence(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	ada := f.as(t, f.join(t, "Ada"))
	present := func() bool {
		t.Helper()
		v, err := f.svc.State(ctx, f.as(t, f.host), nil)
		if err != nil || len(v.Roster) != 1 {
			t.Fatalf("state: %v, roster %v", err, v.Roster)
		}
		return v.Roster[0].Present
	}
	if present() {
		t.Fatal("a member who never opened a stream is present")
	}
	if err := f.svc.Touch(ctx, ada.Room.ID, ada.Member.ID, f.clock.Now()); err != nil || !present() {
		t.Fatalf("after a mark: err %v, present %v", err, present())
	}
	f.clock.add(PresentWindow + time.Second)
	if present() {
		t.Error("a member is still present after the window passed without a mark")
	}
	if err := f.svc.Touch(ctx, ada.Room.ID, "nobody", f.clock.Now()); err != nil {
		t.Errorf("a mark for a seat that is gone: %v, want none (its stream is ending anyway)", err)
	}
}

// TestNewRoundLocksTheOpenOne checks that opening a round locks one still open, which would
// otherwise take guesses nobody sees, and that the locked one can still be revealed.
func TestNewRoundLocksTheOpenOne(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	ada := f.join(t, "Ada")
	first := f.round(t, Question{Kind: KindCustom, Text: "First?", Max: 10})
	second := f.round(t, Question{Kind: KindCustom, Text: "Second?", Max: 10})
	if err := f.svc.Guess(ctx, f.as(t, ada), first, 3); !errors.Is(err, ErrRoundState) {
		t.Errorf("a guess on the earlier round: %v, want it refused as locked", err)
	}
	if err := f.svc.Guess(ctx, f.as(t, ada), second, 3); err != nil {
		t.Errorf("a guess on the new round: %v", err)
	}
	m := MeasureFunc(func(context.Context, Question) (float64, error) { return 4, nil })
	if rd, err := f.svc.Reveal(ctx, f.as(t, f.host), first, m); err != nil || rd.State != RoundRevealed {
		t.Errorf("revealing the earlier round: %v %v", rd.State, err)
	}
}

// TestIdleCloseIsAnnounced checks that a room found idle and closed on a read tells its open
// pages, which would otherwise keep offering forms that can no longer be used.
func TestIdleCloseIsAnnounced(t *testing.T) {
	n := &notes{}
	f := newFixture(t, Config{Notify: n.notify})
	n.take()
	f.clock.add(25 * time.Hour)
	v, err := f.svc.State(context.Background(), f.as(t, f.host), nil)
	if err != nil || !v.Closed {
		t.Fatalf("state after a day idle: closed %v, err %v", v.Closed, err)
	}
	if got := n.take(); got != 1 {
		t.Errorf("closing an idle room notified %d times, want 1", got)
	}
}
