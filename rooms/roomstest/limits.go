package roomstest

// The bounds a store keeps on what a room may hold, and on who may still write to it, checked in
// the same step as the write.

import (
	"context"
	"errors"
	"testing"

	"effectivelyonce/rooms"
)

func testPinLimit(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	r, ms := seed(t, s, 2)
	pin := func(id string, m rooms.Member) rooms.Pin {
		return rooms.Pin{ID: id, RoomID: r.ID, MemberID: m.ID, Path: "/", At: t0}
	}
	must(t, s.AddPin(ctx, pin("a", ms[0]), 2, 100))
	must(t, s.AddPin(ctx, pin("b", ms[0]), 2, 100))
	_, err := s.UpdatePin(ctx, r.ID, "a", func(p *rooms.Pin) error { p.Hidden = true; return nil })
	must(t, err)
	err = s.AddPin(ctx, pin("c", ms[0]), 2, 100)
	wantErr(t, err, rooms.ErrLimit)
	wantField(t, err, "pins")
	must(t, s.AddPin(ctx, pin("d", ms[1]), 2, 100)) // the limit is per member
	// The board's own bound counts every member's pins, hidden ones too.
	err = s.AddPin(ctx, pin("e", ms[1]), 2, 3)
	wantErr(t, err, rooms.ErrLimit)
	wantField(t, err, "board")
}

func testRoundLimit(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	r, _ := seed(t, s, 1) // one round already
	q := rooms.Question{Kind: rooms.KindCustom, Text: "How many?", Min: 0, Max: 100}
	_, err := s.AddRound(ctx, rooms.Round{RoomID: r.ID, Question: q, State: rooms.RoundOpen, OpenedAt: t0}, 2)
	must(t, err)
	_, err = s.AddRound(ctx, rooms.Round{RoomID: r.ID, Question: q, State: rooms.RoundOpen, OpenedAt: t0}, 2)
	wantErr(t, err, rooms.ErrLimit)
	wantField(t, err, "rounds")
	if rs, _ := s.Rounds(ctx, r.ID); len(rs) != 2 {
		t.Fatalf("%d rounds stored past a limit of 2", len(rs))
	}
}

// testClosedRoomRefuses closes a room, as its host or the idle sweep does, and then tries every
// write to what the room holds: each is refused in its own step with RoomClosed (field "code"),
// and nothing is kept. The Service decides on the room as the request read it, which a close may
// follow by a moment; the store's step is what stands.
func testClosedRoomRefuses(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	r, ms := seed(t, s, 2)
	must(t, s.AddPin(ctx, rooms.Pin{ID: "p", RoomID: r.ID, MemberID: ms[0].ID, Path: "/", At: t0}, 10, 10))
	_, err := s.UpdateRoom(ctx, r.ID, func(r *rooms.Room) error { r.Closed = true; return nil })
	must(t, err)
	q := rooms.Question{Kind: rooms.KindCustom, Text: "Again?", Max: 10}
	for name, err := range map[string]error{
		"AddRound": func() error {
			_, err := s.AddRound(ctx, rooms.Round{RoomID: r.ID, Question: q, State: rooms.RoundOpen, OpenedAt: t0}, 100)
			return err
		}(),
		"UpdateRound": func() error {
			_, err := s.UpdateRound(ctx, r.ID, 1, func(rd *rooms.Round) error { rd.State = rooms.RoundLocked; return nil })
			return err
		}(),
		"PutGuess": s.PutGuess(ctx, rooms.Guess{RoomID: r.ID, Seq: 1, MemberID: ms[0].ID, Value: 1, At: t0}),
		"AddPin":   s.AddPin(ctx, rooms.Pin{ID: "q", RoomID: r.ID, MemberID: ms[1].ID, Path: "/", At: t0}, 10, 10),
		"UpdatePin": func() error {
			_, err := s.UpdatePin(ctx, r.ID, "p", func(p *rooms.Pin) error { p.Hidden = true; return nil })
			return err
		}(),
		"UpdateMember": func() error {
			_, err := s.UpdateMember(ctx, r.ID, ms[1].ID, func(m *rooms.Member) error { m.Kicked = true; return nil })
			return err
		}(),
	} {
		var fe *rooms.FieldError
		if !errors.Is(err, rooms.ErrRoomClosed) || !errors.As(err, &fe) || fe.Field != "code" {
			t.Errorf("%s in a closed room: %v, want RoomClosed naming the code", name, err)
		}
	}
	rs, _ := s.Rounds(ctx, r.ID)
	gs, _ := s.Guesses(ctx, r.ID)
	ps, _ := s.Pins(ctx, r.ID)
	mem, _ := s.Members(ctx, r.ID)
	if len(rs) != 1 || rs[0].State != rooms.RoundOpen || len(gs) != 0 || len(ps) != 1 || ps[0].Hidden || mem[1].Kicked {
		t.Fatalf("a closed room changed: rounds %+v, guesses %+v, pins %+v, members %+v", rs, gs, ps, mem)
	}
	// Presence is no change: a stream still open on a closed room may mark its member seen.
	must(t, s.TouchMember(ctx, r.ID, ms[0].ID, t0))
}

// testKickedPin: a member removed pins nothing, though a request of theirs read the room before.
func testKickedPin(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	r, ms := seed(t, s, 1)
	_, err := s.UpdateMember(ctx, r.ID, ms[0].ID, func(m *rooms.Member) error { m.Kicked = true; return nil })
	must(t, err)
	wantErr(t, s.AddPin(ctx, rooms.Pin{ID: "p", RoomID: r.ID, MemberID: ms[0].ID, Path: "/", At: t0}, 10, 10), rooms.ErrKicked)
	if ps, _ := s.Pins(ctx, r.ID); len(ps) != 0 {
		t.Fatalf("a removed member's pin was kept: %+v", ps)
	}
}
