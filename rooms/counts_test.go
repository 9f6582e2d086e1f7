package rooms

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestRoundCountsFreeze: a round's "of M" stops growing once it is revealed, however many join
// later; a member whose browser became the host is neither waited for nor counted, while their
// earlier answer stays in the tally.
func TestRoundCountsFreeze(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	ada, bob := f.join(t, "Ada"), f.join(t, "Bob")
	seq := f.round(t, custom)
	f.guess(t, ada, seq, 3, "")
	f.guess(t, bob, seq, 5, "")
	f.clock.add(time.Minute)
	if _, err := f.svc.Reveal(ctx, f.as(t, f.host), seq, measured(4)); err != nil {
		t.Fatal(err)
	}
	f.clock.add(time.Minute)
	f.join(t, "Cy")
	f.join(t, "Dee")
	v := f.view(t, f.host)
	if rd := v.Rounds[0]; rd.Of != 2 || rd.Answered != 2 {
		t.Errorf("the revealed round after two joined late: %d of %d, want 2 of 2", rd.Answered, rd.Of)
	}

	// Ada becomes the host through a host link, from the browser that holds her seat.
	second := f.round(t, custom)
	if err := f.svc.SeatHosts(ctx, f.room(t), f.host, ada); err != nil {
		t.Fatal(err)
	}
	v = f.view(t, f.host)
	rd := v.Rounds[1]
	if slices.Contains(rd.Unanswered, "Ada") || !slices.Equal(rd.Unanswered, []string{"Bob", "Cy", "Dee"}) {
		t.Errorf("the host waits for %v, want Bob, Cy and Dee", rd.Unanswered)
	}
	if rd.Of != 3 {
		t.Errorf("round %d is of %d, want 3 (Ada hosts now)", second, rd.Of)
	}
	if first := v.Rounds[0]; first.Result == nil || len(first.Result.Guesses) != 2 {
		t.Errorf("Ada's earlier answer left the revealed round: %+v", first.Result)
	}
	if err := f.svc.SeatHosts(ctx, f.room(t), bob, bob); err == nil {
		t.Errorf("a member's own key made their seat a host's")
	}
}
