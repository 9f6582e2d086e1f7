package roomstest

// Two votes, confidences and countdowns (issue 23): what a round keeps of them, guesses kept per
// vote, a second vote that locks whatever else was open, and a countdown judged by the guess's own
// time in the same step as the write.

import (
	"context"
	"errors"
	"testing"
	"time"

	"effectivelyonce/rooms"
)

func testRoundTimerStored(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	must(t, s.CreateRoom(ctx, room("r1", "ABC123"), 10))
	q := rooms.Question{Kind: rooms.KindCustom, Text: "How many?", Max: 100}
	// A round added without votes is the one-vote round every earlier caller meant.
	old, err := s.AddRound(ctx, rooms.Round{RoomID: "r1", Question: q, State: rooms.RoundOpen, OpenedAt: t0}, 100)
	must(t, err)
	if old.Votes != 1 || old.Vote != 1 || old.Timed() {
		t.Fatalf("a round added with no votes answered as %+v, want one vote on vote 1 without a timer", old)
	}
	deadline := t0.Add(90 * time.Second).Add(123 * time.Microsecond)
	_, err = s.AddRound(ctx, rooms.Round{RoomID: "r1", Question: q, State: rooms.RoundOpen, OpenedAt: t0,
		Votes: 2, Vote: 1, Seconds: 90, Deadline: deadline}, 100)
	must(t, err)
	rs, err := s.Rounds(ctx, "r1")
	must(t, err)
	if r := rs[0]; r.Votes != 1 || r.Vote != 1 || r.Seconds != 0 || !r.Deadline.IsZero() || r.PausedLeft != 0 {
		t.Fatalf("round 1 read back as %+v", r)
	}
	r := rs[1]
	if r.Votes != 2 || r.Vote != 1 || r.Seconds != 90 || !r.Deadline.Equal(deadline) || r.PausedLeft != 0 {
		t.Fatalf("round 2 read back as votes %d vote %d seconds %d deadline %v left %v", r.Votes, r.Vote, r.Seconds, r.Deadline, r.PausedLeft)
	}
	// Paused: no deadline, the rest kept to the microsecond.
	left := 41*time.Second + 500*time.Microsecond
	_, err = s.UpdateRound(ctx, "r1", 2, func(r *rooms.Round) error { r.Deadline, r.PausedLeft = time.Time{}, left; return nil })
	must(t, err)
	rs, err = s.Rounds(ctx, "r1")
	must(t, err)
	if r := rs[1]; !r.Deadline.IsZero() || r.PausedLeft != left || !r.Paused() {
		t.Fatalf("a paused round read back with deadline %v and %v left, want none and %v", r.Deadline, r.PausedLeft, left)
	}
	_, err = s.UpdateRound(ctx, "r1", 2, func(r *rooms.Round) error { r.Vote = 2; return nil })
	must(t, err)
	if rs, _ := s.Rounds(ctx, "r1"); rs[1].Vote != 2 || rs[1].Votes != 2 {
		t.Fatalf("after the second vote began the round reads as vote %d of %d", rs[1].Vote, rs[1].Votes)
	}
}

func testGuessesByVote(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	must(t, s.CreateRoom(ctx, room("r1", "ABC123"), 10))
	ms := []rooms.Member{member("r1", "m0", "Ada"), member("r1", "m1", "Bob")}
	for _, m := range ms {
		must(t, s.AddMember(ctx, m, 10))
	}
	_, err := s.AddRound(ctx, rooms.Round{RoomID: "r1", State: rooms.RoundOpen, OpenedAt: t0, Votes: 2, Vote: 1,
		Question: rooms.Question{Kind: rooms.KindCustom, Text: "How many?", Max: 100}}, 100)
	must(t, err)
	// Vote 0 is vote 1; a confidence is kept as given, and "" stays "".
	must(t, s.PutGuess(ctx, rooms.Guess{RoomID: "r1", Seq: 1, MemberID: "m0", Value: 10, At: t0, Confidence: rooms.ConfidenceHigh}))
	must(t, s.PutGuess(ctx, rooms.Guess{RoomID: "r1", Seq: 1, MemberID: "m1", Value: 20, At: t0.Add(time.Second), Vote: 1}))
	err = s.PutGuess(ctx, rooms.Guess{RoomID: "r1", Seq: 1, MemberID: "m0", Value: 11, At: t0, Vote: 2})
	wantErr(t, err, rooms.ErrRoundState)
	wantField(t, err, "round")

	// The second vote opens: vote 1 takes nothing more, vote 2 takes a guess beside each first.
	_, err = s.UpdateRound(ctx, "r1", 1, func(r *rooms.Round) error { r.State, r.Vote = rooms.RoundLocked, 1; return nil })
	must(t, err)
	_, err = s.UpdateRound(ctx, "r1", 1, func(r *rooms.Round) error { r.State, r.Vote = rooms.RoundOpen, 2; return nil })
	must(t, err)
	err = s.PutGuess(ctx, rooms.Guess{RoomID: "r1", Seq: 1, MemberID: "m0", Value: 99, At: t0.Add(time.Minute), Vote: 1})
	wantErr(t, err, rooms.ErrRoundState)
	must(t, s.PutGuess(ctx, rooms.Guess{RoomID: "r1", Seq: 1, MemberID: "m0", Value: 12, At: t0.Add(time.Minute), Vote: 2,
		Confidence: rooms.ConfidenceLow}))
	// A changed second answer replaces the second only.
	must(t, s.PutGuess(ctx, rooms.Guess{RoomID: "r1", Seq: 1, MemberID: "m0", Value: 15, At: t0.Add(2 * time.Minute), Vote: 2,
		Confidence: rooms.ConfidenceMedium}))
	gs, err := s.Guesses(ctx, "r1")
	must(t, err)
	type row struct {
		member string
		vote   int
		value  float64
		conf   rooms.Confidence
	}
	var got []row
	for _, g := range gs {
		got = append(got, row{g.MemberID, g.Vote, g.Value, g.Confidence})
	}
	want := []row{{"m0", 1, 10, rooms.ConfidenceHigh}, {"m1", 1, 20, ""}, {"m0", 2, 15, rooms.ConfidenceMedium}}
	if len(got) != len(want) {
		t.Fatalf("Guesses = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Guesses = %+v, want %+v (by seq, then vote, then time)", got, want)
		}
	}
}

// testSecondVoteOnlyOnTheNewest opens a round again, as a second vote does: only the room's
// newest round may open again (an earlier one would lock the newer out of sight), and when it
// does, whatever else is open is locked in the same step.
func testSecondVoteOnlyOnTheNewest(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	r, ms := seed(t, s, 1) // round 1, open
	_, err := s.AddRound(ctx, rooms.Round{RoomID: r.ID, State: rooms.RoundOpen, OpenedAt: t0,
		Question: rooms.Question{Kind: rooms.KindCustom, Text: "Other?", Max: 10}}, 100)
	must(t, err) // round 2 open, round 1 locked
	_, err = s.UpdateRound(ctx, r.ID, 1, func(rd *rooms.Round) error { rd.State, rd.Votes, rd.Vote = rooms.RoundOpen, 2, 2; return nil })
	wantErr(t, err, rooms.ErrRoundState)
	wantField(t, err, "seq")
	rs, err := s.Rounds(ctx, r.ID)
	must(t, err)
	if rs[0].State != rooms.RoundLocked || rs[0].Vote != 1 || rs[1].State != rooms.RoundOpen {
		t.Fatalf("after round 1 was refused: %s (vote %d), %s; want locked (vote 1), open", rs[0].State, rs[0].Vote, rs[1].State)
	}
	// A change that does not open an earlier round is no second vote: it is taken.
	_, err = s.UpdateRound(ctx, r.ID, 1, func(rd *rooms.Round) error { rd.NamesVisible = true; return nil })
	must(t, err)

	// A round added locked leaves round 2 open; opening it, the newest, locks round 2 with it.
	_, err = s.AddRound(ctx, rooms.Round{RoomID: r.ID, State: rooms.RoundLocked, OpenedAt: t0,
		Question: rooms.Question{Kind: rooms.KindCustom, Text: "Third?", Max: 10}}, 100)
	must(t, err)
	_, err = s.UpdateRound(ctx, r.ID, 3, func(rd *rooms.Round) error { rd.State, rd.Votes, rd.Vote = rooms.RoundOpen, 2, 2; return nil })
	must(t, err)
	rs, err = s.Rounds(ctx, r.ID)
	must(t, err)
	if rs[1].State != rooms.RoundLocked || rs[2].State != rooms.RoundOpen {
		t.Fatalf("after round 3 opened again: round 2 %s, round 3 %s; want locked, open", rs[1].State, rs[2].State)
	}
	wantErr(t, s.PutGuess(ctx, rooms.Guess{RoomID: r.ID, Seq: 2, MemberID: ms[0].ID, Value: 1, At: t0}), rooms.ErrRoundState)
	// An update that leaves an open round open locks nothing else.
	_, err = s.UpdateRound(ctx, r.ID, 3, func(rd *rooms.Round) error { rd.NamesVisible = true; return nil })
	must(t, err)
	if rs, _ := s.Rounds(ctx, r.ID); rs[2].State != rooms.RoundOpen {
		t.Fatalf("round 3 is %s after a change that kept it open", rs[2].State)
	}
}

// testGuessTimeUp holds a countdown to the instant: a guess made before the deadline lands, one
// made at it or after is refused with the deadline it missed, and a paused countdown refuses
// nothing (its time stands still).
func testGuessTimeUp(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	r, ms := seed(t, s, 2)
	deadline := t0.Add(30 * time.Second)
	_, err := s.UpdateRound(ctx, r.ID, 1, func(rd *rooms.Round) error { rd.Seconds, rd.Deadline = 30, deadline; return nil })
	must(t, err)
	must(t, s.PutGuess(ctx, rooms.Guess{RoomID: r.ID, Seq: 1, MemberID: ms[0].ID, Value: 1, At: deadline.Add(-time.Microsecond)}))
	err = s.PutGuess(ctx, rooms.Guess{RoomID: r.ID, Seq: 1, MemberID: ms[1].ID, Value: 2, At: deadline})
	wantErr(t, err, rooms.ErrTimeUp)
	wantErr(t, err, rooms.ErrRoundState) // the HTTP layer answers 409 for either
	wantField(t, err, "round")
	var te *rooms.TimeUpError
	if !errors.As(err, &te) || te.Seq != 1 || !te.Deadline.Equal(deadline) {
		t.Fatalf("error %v does not carry round 1 and its deadline %v", err, deadline)
	}
	// A guess after the time cannot replace one made in time either.
	wantErr(t, s.PutGuess(ctx, rooms.Guess{RoomID: r.ID, Seq: 1, MemberID: ms[0].ID, Value: 9, At: deadline.Add(time.Hour)}), rooms.ErrTimeUp)
	gs, err := s.Guesses(ctx, r.ID)
	must(t, err)
	if len(gs) != 1 || gs[0].Value != 1 {
		t.Fatalf("guesses after the deadline were stored: %+v", gs)
	}
	_, err = s.UpdateRound(ctx, r.ID, 1, func(rd *rooms.Round) error { rd.Deadline, rd.PausedLeft = time.Time{}, 10*time.Second; return nil })
	must(t, err)
	must(t, s.PutGuess(ctx, rooms.Guess{RoomID: r.ID, Seq: 1, MemberID: ms[1].ID, Value: 2, At: deadline.Add(time.Hour)}))
}
