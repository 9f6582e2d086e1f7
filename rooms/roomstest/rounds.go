package roomstest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"effectivelyonce/rooms"
)

// The rounds and their guesses: numbering, one round open at a time, and guesses that never land
// on a round once it is locked, however close the requests.

func testRounds(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	must(t, s.CreateRoom(ctx, room("r1", "ABC123"), 10))
	q := rooms.Question{Kind: rooms.KindMeasure, Experiment: "window", Params: "max_delay=5000",
		Measure: "escaped", Unit: "duplicates", Min: 0, Max: 1e9}
	for want := 1; want <= 3; want++ {
		rd, err := s.AddRound(ctx, rooms.Round{RoomID: "r1", Question: q, State: rooms.RoundOpen, OpenedAt: t0}, 100)
		must(t, err)
		if rd.Seq != want {
			t.Fatalf("round %d got seq %d", want, rd.Seq)
		}
	}
	_, err := s.UpdateRound(ctx, "r1", 2, func(r *rooms.Round) error {
		r.State, r.Measured, r.RevealedAt, r.NamesVisible = rooms.RoundRevealed, 195.5, t0.Add(time.Minute), true
		return nil
	})
	must(t, err)
	rs, err := s.Rounds(ctx, "r1")
	must(t, err)
	if len(rs) != 3 || rs[0].Seq != 1 || rs[2].Seq != 3 {
		t.Fatalf("Rounds = %+v", rs)
	}
	r2 := rs[1]
	if r2.State != rooms.RoundRevealed || r2.Measured != 195.5 || !r2.NamesVisible || r2.Question != q ||
		!r2.RevealedAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("round 2 stored as %+v", r2)
	}
	// Each round added open locked the one open before it; a revealed round stays revealed.
	if rs[0].State != rooms.RoundLocked || rs[2].State != rooms.RoundOpen {
		t.Fatalf("states after three rounds were added: %s, %s, %s; want locked, revealed, open", rs[0].State, rs[1].State, rs[2].State)
	}
	boom := errors.New("boom")
	_, err = s.UpdateRound(ctx, "r1", 3, func(r *rooms.Round) error { r.State = rooms.RoundLocked; return boom })
	wantErr(t, err, boom)
	if rs, _ := s.Rounds(ctx, "r1"); rs[2].State != rooms.RoundOpen {
		t.Fatal("a failed round update was kept")
	}
}

// testRoundRush adds rounds to one room at once, as a double submit or a host on two devices
// does: every one gets its own number, exactly one is left open (the last added), and a guess on
// any other is refused.
func testRoundRush(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	r, ms := seed(t, s, 1)
	const n = 20
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, errs[i] = s.AddRound(ctx, rooms.Round{RoomID: r.ID, State: rooms.RoundOpen, OpenedAt: t0,
				Question: rooms.Question{Kind: rooms.KindCustom, Text: fmt.Sprint("Q", i), Max: 10}}, 100)
		})
	}
	wg.Wait()
	for _, err := range errs {
		must(t, err)
	}
	rs, err := s.Rounds(ctx, r.ID)
	must(t, err)
	// seed's round is the first; the n come after it.
	var open []int
	for i, rd := range rs {
		if rd.Seq != i+1 {
			t.Fatalf("round %d has seq %d", i+1, rd.Seq)
		}
		if rd.State == rooms.RoundOpen {
			open = append(open, rd.Seq)
		}
	}
	if len(rs) != n+1 || len(open) != 1 || open[0] != n+1 {
		t.Fatalf("%d rounds, open: %v; want %d rounds and only the last open", len(rs), open, n+1)
	}
	for _, rd := range rs[:n] {
		err := s.PutGuess(ctx, rooms.Guess{RoomID: r.ID, Seq: rd.Seq, MemberID: ms[0].ID, Value: 1, At: t0})
		wantErr(t, err, rooms.ErrRoundState)
	}
	must(t, s.PutGuess(ctx, rooms.Guess{RoomID: r.ID, Seq: n + 1, MemberID: ms[0].ID, Value: 1, At: t0}))
}

func testGuesses(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	r, ms := seed(t, s, 2)
	must(t, s.PutGuess(ctx, rooms.Guess{RoomID: r.ID, Seq: 1, MemberID: ms[0].ID, Value: 10, At: t0}))
	must(t, s.PutGuess(ctx, rooms.Guess{RoomID: r.ID, Seq: 1, MemberID: ms[1].ID, Value: 20, At: t0.Add(time.Second)}))
	must(t, s.PutGuess(ctx, rooms.Guess{RoomID: r.ID, Seq: 1, MemberID: ms[0].ID, Value: 12.5, At: t0.Add(2 * time.Second)}))
	gs, err := s.Guesses(ctx, r.ID)
	must(t, err)
	if len(gs) != 2 {
		t.Fatalf("a changed guess must replace the old one: %+v", gs)
	}
	if gs[0].MemberID != ms[1].ID || gs[0].Value != 20 || gs[1].MemberID != ms[0].ID || gs[1].Value != 12.5 {
		t.Fatalf("Guesses = %+v, want by time with the change last", gs)
	}
}

func testGuessRefused(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	r, ms := seed(t, s, 2)
	_, err := s.UpdateMember(ctx, r.ID, ms[1].ID, func(m *rooms.Member) error { m.Kicked = true; return nil })
	must(t, err)
	wantErr(t, s.PutGuess(ctx, rooms.Guess{RoomID: r.ID, Seq: 1, MemberID: ms[1].ID, Value: 1, At: t0}), rooms.ErrKicked)
	_, err = s.UpdateRound(ctx, r.ID, 1, func(rd *rooms.Round) error { rd.State = rooms.RoundLocked; return nil })
	must(t, err)
	err = s.PutGuess(ctx, rooms.Guess{RoomID: r.ID, Seq: 1, MemberID: ms[0].ID, Value: 1, At: t0})
	wantErr(t, err, rooms.ErrRoundState)
	wantField(t, err, "round")
	wantErr(t, s.PutGuess(ctx, rooms.Guess{RoomID: r.ID, Seq: 9, MemberID: ms[0].ID, Value: 1, At: t0}), rooms.ErrNotFound)
	if gs, _ := s.Guesses(ctx, r.ID); len(gs) != 0 {
		t.Fatalf("refused guesses were stored: %+v", gs)
	}
}

// testConcurrentGuesses is a class answering at once while the host locks: every guess either
// lands before the lock or is refused, and none lands after it.
func testConcurrentGuesses(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	const n = 30
	r, ms := seed(t, s, n)
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Go(func() {
			for k := range 3 {
				if err := s.PutGuess(ctx, rooms.Guess{RoomID: r.ID, Seq: 1, MemberID: m.ID, Value: float64(i*10 + k),
					At: t0.Add(time.Duration(k) * time.Millisecond)}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	gs, err := s.Guesses(ctx, r.ID)
	must(t, err)
	if len(gs) != n {
		t.Fatalf("%d guesses stored for %d members", len(gs), n)
	}
	for _, g := range gs {
		if int(g.Value)%10 != 2 {
			t.Fatalf("member %s kept %v, not their last guess", g.MemberID, g.Value)
		}
	}

	// Second round: guesses race a lock.
	_, err = s.AddRound(ctx, rooms.Round{RoomID: r.ID, State: rooms.RoundOpen, OpenedAt: t0,
		Question: rooms.Question{Kind: rooms.KindCustom, Text: "Again?", Max: 100}}, 100)
	must(t, err)
	accepted := make([]bool, n)
	start := make(chan struct{})
	for i, m := range ms {
		wg.Go(func() {
			<-start
			err := s.PutGuess(ctx, rooms.Guess{RoomID: r.ID, Seq: 2, MemberID: m.ID, Value: 1, At: t0})
			switch {
			case err == nil:
				accepted[i] = true
			case !errors.Is(err, rooms.ErrRoundState):
				t.Error(err)
			}
		})
	}
	wg.Go(func() {
		<-start
		if _, err := s.UpdateRound(ctx, r.ID, 2, func(rd *rooms.Round) error { rd.State = rooms.RoundLocked; return nil }); err != nil {
			t.Error(err)
		}
	})
	close(start)
	wg.Wait()
	gs, err = s.Guesses(ctx, r.ID)
	must(t, err)
	stored := 0
	for _, g := range gs {
		if g.Seq == 2 {
			stored++
			if !accepted[slicesIndex(ms, g.MemberID)] {
				t.Fatalf("a refused guess by %s was stored", g.MemberID)
			}
		}
	}
	want := 0
	for _, a := range accepted {
		if a {
			want++
		}
	}
	if stored != want {
		t.Fatalf("%d guesses accepted but %d stored", want, stored)
	}
}
