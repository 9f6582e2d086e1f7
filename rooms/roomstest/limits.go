package roomstest

// The bounds a store keeps on what a room may hold, checked in the same step as the write.

import (
	"context"
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
