package sqlstore

import (
	"context"
	"io/fs"
	"path/filepath"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"effectivelyonce/rooms"
)

// TestVotesMigrationGoesDown takes SQLite's migration 00005 down and up again with a two-vote
// round in it: its down half rebuilds the guesses' table too, and keeps each member's last answer.
func TestVotesMigrationGoesDown(t *testing.T) {
	ctx := context.Background()
	s, err := OpenSQLite(ctx, filepath.Join(t.TempDir(), FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.CreateRoom(ctx, rooms.Room{ID: "r", Code: "ABC123", Title: "T", HostKeyHash: rooms.HashKey("h"), CreatedAt: t0, LastActivity: t0}, 10))
	must(s.AddMember(ctx, rooms.Member{ID: "m", RoomID: "r", Name: "Ada", TokenHash: rooms.HashKey("k"), JoinedAt: t0}, 10))
	_, err = s.AddRound(ctx, rooms.Round{RoomID: "r", State: rooms.RoundOpen, OpenedAt: t0, Votes: 2,
		Question: rooms.Question{Kind: rooms.KindCustom, Text: "?", Max: 10}}, 10)
	must(err)
	must(s.PutGuess(ctx, rooms.Guess{RoomID: "r", Seq: 1, MemberID: "m", Value: 1, At: t0, Vote: 1}))
	_, err = s.UpdateRound(ctx, "r", 1, func(r *rooms.Round) error { r.Vote = 2; return nil })
	must(err)
	must(s.PutGuess(ctx, rooms.Guess{RoomID: "r", Seq: 1, MemberID: "m", Value: 2, At: t0, Vote: 2, Confidence: rooms.ConfidenceHigh}))

	fsys, err := fs.Sub(migrations, "migrations/sqlite")
	must(err)
	p, err := goose.NewProvider(goose.DialectSQLite3, s.write, fsys, goose.WithTableName(versionTable), goose.WithDisableGlobalRegistry(true))
	must(err)
	_, err = p.DownTo(ctx, 4)
	must(err)
	var n int
	var v float64
	must(s.write.QueryRowContext(ctx, `SELECT count(*), max(value) FROM guesses`).Scan(&n, &v))
	if n != 1 || v != 2 {
		t.Fatalf("after going down: %d guesses, value %v; want the second vote's 2 alone", n, v)
	}
	_, err = p.Up(ctx)
	must(err)
	gs, err := s.Guesses(ctx, "r")
	must(err)
	if len(gs) != 1 || gs[0].Vote != 1 || gs[0].Value != 2 {
		t.Fatalf("after going up again: %+v", gs)
	}
}
