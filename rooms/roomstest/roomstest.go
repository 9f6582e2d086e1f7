// Package roomstest is the conformance suite for rooms.Store. Every implementation (the
// in-memory one, SQLite, Postgres) runs it, so that the rules behave the same on each: a store
// that passes can be swapped for another without the Service noticing.
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

// Run checks a Store against the contract documented on rooms.Store. newStore must answer an
// empty store each time it is called; the suite calls it once per subtest.
func Run(t *testing.T, newStore func(t *testing.T) rooms.Store) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, newStore(t)) })
	}
}

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

var cases = []struct {
	name string
	run  func(*testing.T, rooms.Store)
}{
	{"rooms", testRooms},
	{"room codes are unique", testCodeUnique},
	{"open rooms limit", testOpenLimit},
	{"update room", testUpdateRoom},
	{"idle rooms close then go", testIdle},
	{"rooms nobody joined close sooner", testUnjoined},
	{"members", testMembers},
	{"member names are unique ignoring case", testNameUnique},
	{"members limit", testMemberLimit},
	{"last seen", testTouchMember},
	{"locked and closed rooms seat nobody", testJoinRefused},
	{"members limit holds under a rush", testMemberRush},
	{"rounds", testRounds},
	{"one round open however many are added at once", testRoundRush},
	{"guesses", testGuesses},
	{"guess refused once locked or kicked", testGuessRefused},
	{"concurrent guesses", testConcurrentGuesses},
	{"a round keeps its votes and countdown", testRoundTimerStored},
	{"guesses are kept per vote with their confidence", testGuessesByVote},
	{"only the newest round opens again, locking the others", testSecondVoteOnlyOnTheNewest},
	{"a guess at or after the deadline is refused", testGuessTimeUp},
	{"handler submissions keep their source as a share and their verdict", testSubmissions},
	{"a submission is refused as a guess is, and nothing of it kept", testSubmissionRefused},
	{"submissions racing a lock land before it or not at all", testSubmissionRush},
	{"pins", testPins},
	{"pins limit", testPinLimit},
	{"a closed room takes no change", testClosedRoomRefuses},
	{"a removed member pins nothing", testKickedPin},
	{"rounds limit", testRoundLimit},
	{"unknown ids", testUnknown},
}

func hash(s string) rooms.Hash { return rooms.HashKey(s) }

func room(id, code string) rooms.Room {
	return rooms.Room{ID: id, Code: code, Title: "Room " + id, HostKeyHash: hash("host-" + id),
		CreatedAt: t0, LastActivity: t0}
}

func member(roomID, id, name string) rooms.Member {
	return rooms.Member{ID: id, RoomID: roomID, Name: name, TokenHash: hash("key-" + roomID + id), JoinedAt: t0}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantErr(t *testing.T, err, kind error) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("error = %v, want %v", err, kind)
	}
}

func wantField(t *testing.T, err error, field string) {
	t.Helper()
	var fe *rooms.FieldError
	var le *rooms.LimitError
	switch {
	case errors.As(err, &fe) && fe.Field == field, errors.As(err, &le) && le.Field == field:
	default:
		t.Fatalf("error %v does not name the field %q", err, field)
	}
}

// seed makes a room with n members m0..m(n-1) and one open round.
func seed(t *testing.T, s rooms.Store, n int) (rooms.Room, []rooms.Member) {
	t.Helper()
	ctx := context.Background()
	r := room("r1", "ABC123")
	must(t, s.CreateRoom(ctx, r, 10))
	var ms []rooms.Member
	for i := range n {
		m := member(r.ID, fmt.Sprintf("m%d", i), fmt.Sprintf("Member %d", i))
		must(t, s.AddMember(ctx, m, 1000))
		ms = append(ms, m)
	}
	_, err := s.AddRound(ctx, rooms.Round{RoomID: r.ID, State: rooms.RoundOpen, OpenedAt: t0,
		Question: rooms.Question{Kind: rooms.KindCustom, Text: "How many?", Min: 0, Max: 100}}, 100)
	must(t, err)
	return r, ms
}

func testRooms(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	r := room("r1", "ABC123")
	r.Presenting = "/blocks/4?max_delay=5000"
	r.HostLink = rooms.HostLink{TokenHash: hash("link"), Sealed: "c2VhbGVk", Expires: t0.Add(30 * time.Minute)}
	must(t, s.CreateRoom(ctx, r, 10))
	got, err := s.RoomByCode(ctx, "ABC123")
	must(t, err)
	if !got.CreatedAt.Equal(r.CreatedAt) || !got.LastActivity.Equal(r.LastActivity) || !got.HostLink.Expires.Equal(r.HostLink.Expires) {
		t.Fatalf("times changed: %v", got)
	}
	got.CreatedAt, got.LastActivity, got.HostLink.Expires = r.CreatedAt, r.LastActivity, r.HostLink.Expires
	if got != r {
		t.Fatalf("RoomByCode = %+v, want %+v", got, r)
	}
	byID, err := s.RoomByID(ctx, "r1")
	must(t, err)
	if byID.Code != "ABC123" || byID.HostKeyHash != r.HostKeyHash {
		t.Fatalf("RoomByID = %+v", byID)
	}
	_, err = s.RoomByCode(ctx, "ZZZZZZ")
	wantErr(t, err, rooms.ErrNotFound)
}

func testCodeUnique(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	must(t, s.CreateRoom(ctx, room("r1", "ABC123"), 10))
	err := s.CreateRoom(ctx, room("r2", "ABC123"), 10)
	wantErr(t, err, rooms.ErrTaken)
	wantField(t, err, "code")
	must(t, s.CreateRoom(ctx, room("r3", "ABC124"), 10))
	_, err = s.UpdateRoom(ctx, "r3", func(r *rooms.Room) error { r.Code = "ABC123"; return nil })
	wantErr(t, err, rooms.ErrTaken)
	if r, _ := s.RoomByID(ctx, "r3"); r.Code != "ABC124" {
		t.Fatalf("a refused code change was kept: %q", r.Code)
	}
}

func testOpenLimit(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	must(t, s.CreateRoom(ctx, room("r1", "AAAAA1"), 2))
	must(t, s.CreateRoom(ctx, room("r2", "AAAAA2"), 2))
	err := s.CreateRoom(ctx, room("r3", "AAAAA3"), 2)
	wantErr(t, err, rooms.ErrLimit)
	wantField(t, err, "rooms")
	_, err = s.UpdateRoom(ctx, "r1", func(r *rooms.Room) error { r.Closed = true; return nil })
	must(t, err)
	must(t, s.CreateRoom(ctx, room("r3", "AAAAA3"), 2)) // a closed room frees its place
}

func testUpdateRoom(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	must(t, s.CreateRoom(ctx, room("r1", "ABC123"), 10))
	t1 := t0.Add(time.Hour)
	got, err := s.UpdateRoom(ctx, "r1", func(r *rooms.Room) error {
		r.Code, r.Locked, r.Presenting, r.LastActivity, r.HostKeyHash = "XYZ789", true, "/assembly", t1, hash("new")
		r.LabRun = "0123456789abcdef0123456789abcdef"
		return nil
	})
	must(t, err)
	if got.Code != "XYZ789" || !got.Locked {
		t.Fatalf("UpdateRoom answered %+v", got)
	}
	r, err := s.RoomByCode(ctx, "XYZ789")
	must(t, err)
	if !r.Locked || r.Presenting != "/assembly" || !r.LastActivity.Equal(t1) || r.HostKeyHash != hash("new") ||
		r.LabRun != "0123456789abcdef0123456789abcdef" {
		t.Fatalf("stored %+v", r)
	}
	_, err = s.RoomByCode(ctx, "ABC123")
	wantErr(t, err, rooms.ErrNotFound)
	// A host link is set, and used (cleared), by an update like any field.
	link := rooms.HostLink{TokenHash: hash("link"), Sealed: "c2VhbGVk", Expires: t1}
	_, err = s.UpdateRoom(ctx, "r1", func(r *rooms.Room) error { r.HostLink = link; return nil })
	must(t, err)
	if r, _ := s.RoomByID(ctx, "r1"); r.HostLink.TokenHash != link.TokenHash || r.HostLink.Sealed != link.Sealed || !r.HostLink.Expires.Equal(t1) {
		t.Fatalf("stored host link %+v, want %+v", r.HostLink, link)
	}
	_, err = s.UpdateRoom(ctx, "r1", func(r *rooms.Room) error { r.HostLink = rooms.HostLink{}; return nil })
	must(t, err)
	if r, _ := s.RoomByID(ctx, "r1"); !r.HostLink.IsZero() {
		t.Fatalf("a cleared host link is still stored: %+v", r.HostLink)
	}
	boom := errors.New("boom")
	_, err = s.UpdateRoom(ctx, "r1", func(r *rooms.Room) error { r.Title = "changed"; return boom })
	wantErr(t, err, boom)
	if r, _ := s.RoomByID(ctx, "r1"); r.Title != "Room r1" {
		t.Fatalf("a failed update was kept: %q", r.Title)
	}
}

func testIdle(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	old, fresh := room("old", "AAAAA1"), room("new", "AAAAA2")
	fresh.LastActivity = t0.Add(48 * time.Hour)
	must(t, s.CreateRoom(ctx, old, 10))
	must(t, s.CreateRoom(ctx, fresh, 10))
	m := member("old", "m1", "Ada")
	must(t, s.AddMember(ctx, m, 10))
	n, err := s.DeleteIdleRooms(ctx, t0.Add(time.Hour))
	must(t, err)
	if n != 0 {
		t.Fatalf("deleted %d open rooms", n)
	}
	// An hour for rooms nobody joined closes no room here: "new" was active after it, and "old"
	// has a member.
	if n, err := s.CloseIdleRooms(ctx, t0, t0.Add(time.Hour)); err != nil || n != 0 {
		t.Fatalf("closed %d rooms (%v) by the rule for unjoined rooms, want 0", n, err)
	}
	n, err = s.CloseIdleRooms(ctx, t0.Add(time.Hour), t0.Add(time.Hour))
	must(t, err)
	if n != 1 {
		t.Fatalf("closed %d rooms, want 1", n)
	}
	if r, _ := s.RoomByID(ctx, "old"); !r.Closed {
		t.Fatal("idle room still open")
	}
	if r, _ := s.RoomByID(ctx, "new"); r.Closed {
		t.Fatal("active room closed")
	}
	n, err = s.DeleteIdleRooms(ctx, t0.Add(time.Hour))
	must(t, err)
	if n != 1 {
		t.Fatalf("deleted %d rooms, want 1", n)
	}
	_, err = s.RoomByCode(ctx, "AAAAA1")
	wantErr(t, err, rooms.ErrNotFound)
	_, err = s.Members(ctx, "old")
	wantErr(t, err, rooms.ErrNotFound)
	must(t, s.CreateRoom(ctx, room("again", "AAAAA1"), 10)) // the code is free again
}

func testMembers(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	must(t, s.CreateRoom(ctx, room("r1", "ABC123"), 10))
	a, b := member("r1", "a", "Ada"), member("r1", "b", "Bo")
	b.JoinedAt = t0.Add(time.Second)
	must(t, s.AddMember(ctx, a, 10))
	must(t, s.AddMember(ctx, b, 10))
	ms, err := s.Members(ctx, "r1")
	must(t, err)
	if len(ms) != 2 || ms[0].ID != "a" || ms[1].ID != "b" || ms[1].Name != "Bo" || ms[0].TokenHash != a.TokenHash {
		t.Fatalf("Members = %+v", ms)
	}
	got, err := s.MemberByTokenHash(ctx, "r1", b.TokenHash)
	must(t, err)
	if got.ID != "b" {
		t.Fatalf("MemberByTokenHash found %q", got.ID)
	}
	_, err = s.MemberByTokenHash(ctx, "r1", hash("nobody"))
	wantErr(t, err, rooms.ErrNotFound)
	kicked, err := s.UpdateMember(ctx, "r1", "a", func(m *rooms.Member) error { m.Kicked = true; return nil })
	must(t, err)
	if !kicked.Kicked {
		t.Fatal("UpdateMember did not answer the change")
	}
	if m, _ := s.MemberByTokenHash(ctx, "r1", a.TokenHash); !m.Kicked {
		t.Fatal("kick not stored")
	}
	// A member who became the host keeps their seat, marked as hosting.
	_, err = s.UpdateMember(ctx, "r1", "b", func(m *rooms.Member) error { m.Hosting = true; return nil })
	must(t, err)
	if m, _ := s.MemberByTokenHash(ctx, "r1", b.TokenHash); !m.Hosting || m.Kicked {
		t.Fatalf("hosting not stored: %+v", m)
	}
}

func testNameUnique(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	must(t, s.CreateRoom(ctx, room("r1", "ABC123"), 10))
	must(t, s.CreateRoom(ctx, room("r2", "ABC124"), 10))
	must(t, s.AddMember(ctx, member("r1", "a", "Ada Lovelace"), 10))
	for _, name := range []string{"Ada Lovelace", "ADA LOVELACE", "ada lovelace"} {
		t.Run(name, func(t *testing.T) {
			err := s.AddMember(ctx, member("r1", "x"+name, name), 10)
			wantErr(t, err, rooms.ErrTaken)
			wantField(t, err, "name")
		})
	}
	must(t, s.AddMember(ctx, member("r2", "b", "Ada Lovelace"), 10)) // another room is another roster
	_, err := s.UpdateMember(ctx, "r1", "a", func(m *rooms.Member) error { m.Kicked = true; return nil })
	must(t, err)
	wantErr(t, s.AddMember(ctx, member("r1", "c", "ada lovelace"), 10), rooms.ErrTaken)
}

func testMemberLimit(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	must(t, s.CreateRoom(ctx, room("r1", "ABC123"), 10))
	must(t, s.AddMember(ctx, member("r1", "a", "A"), 2))
	must(t, s.AddMember(ctx, member("r1", "b", "B"), 2))
	err := s.AddMember(ctx, member("r1", "c", "C"), 2)
	wantErr(t, err, rooms.ErrLimit)
	wantField(t, err, "members")
	_, err = s.UpdateMember(ctx, "r1", "a", func(m *rooms.Member) error { m.Kicked = true; return nil })
	must(t, err)
	must(t, s.AddMember(ctx, member("r1", "c", "C"), 2)) // a kicked member frees the seat
}

func testJoinRefused(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		set  func(*rooms.Room)
		want error
	}{
		{"locked", func(r *rooms.Room) { r.Locked = true }, rooms.ErrRoomLocked},
		{"closed", func(r *rooms.Room) { r.Closed = true }, rooms.ErrRoomClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := "r-" + tc.name
			must(t, s.CreateRoom(ctx, room(id, "CODE"+tc.name[:2]), 10))
			_, err := s.UpdateRoom(ctx, id, func(r *rooms.Room) error { tc.set(r); return nil })
			must(t, err)
			wantErr(t, s.AddMember(ctx, member(id, "a", "Ada"), 10), tc.want)
			if ms, _ := s.Members(ctx, id); len(ms) != 0 {
				t.Fatalf("a refused member was stored: %+v", ms)
			}
		})
	}
}

func testMemberRush(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	must(t, s.CreateRoom(ctx, room("r1", "ABC123"), 10))
	const tries, limit = 40, 25
	var wg sync.WaitGroup
	errs := make([]error, tries)
	for i := range tries {
		wg.Go(func() { errs[i] = s.AddMember(ctx, member("r1", fmt.Sprint(i), fmt.Sprint("M", i)), limit) })
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, rooms.ErrLimit):
			t.Fatalf("unexpected error %v", err)
		}
	}
	ms, err := s.Members(ctx, "r1")
	must(t, err)
	if ok != limit || len(ms) != limit {
		t.Fatalf("%d joins succeeded and %d are stored, want %d", ok, len(ms), limit)
	}
}

func slicesIndex(ms []rooms.Member, id string) int {
	for i, m := range ms {
		if m.ID == id {
			return i
		}
	}
	return -1
}

func testPins(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	r, ms := seed(t, s, 2)
	for i, p := range []rooms.Pin{
		{ID: "p1", MemberID: ms[0].ID, Path: "/blocks/1", Note: "first"},
		{ID: "p2", MemberID: ms[1].ID, Path: "/blocks/4?max_delay=5000", Note: "second"},
		{ID: "p3", MemberID: ms[0].ID, Path: "/assembly", Note: ""},
	} {
		p.RoomID, p.At = r.ID, t0.Add(time.Duration(i)*time.Second)
		must(t, s.AddPin(ctx, p, 10, 100))
	}
	got, err := s.UpdatePin(ctx, r.ID, "p2", func(p *rooms.Pin) error { p.Hidden = true; return nil })
	must(t, err)
	if !got.Hidden {
		t.Fatal("UpdatePin did not answer the change")
	}
	ps, err := s.Pins(ctx, r.ID)
	must(t, err)
	if len(ps) != 3 || ps[0].ID != "p3" || ps[1].ID != "p2" || ps[2].ID != "p1" {
		t.Fatalf("Pins = %+v, want newest first", ps)
	}
	if !ps[1].Hidden || ps[1].Path != "/blocks/4?max_delay=5000" || ps[1].Note != "second" || ps[2].Hidden {
		t.Fatalf("pins stored as %+v", ps)
	}
}

func testUnknown(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	r, _ := seed(t, s, 1)
	noop := func(any) error { return nil }
	for name, call := range map[string]func() error{
		"RoomByID":   func() error { _, err := s.RoomByID(ctx, "nope"); return err },
		"UpdateRoom": func() error { _, err := s.UpdateRoom(ctx, "nope", func(*rooms.Room) error { return nil }); return err },
		"AddMember":  func() error { return s.AddMember(ctx, member("nope", "x", "X"), 10) },
		"Members":    func() error { _, err := s.Members(ctx, "nope"); return err },
		"UpdateMember": func() error {
			_, err := s.UpdateMember(ctx, r.ID, "nope", func(m *rooms.Member) error { return noop(m) })
			return err
		},
		"AddRound": func() error { _, err := s.AddRound(ctx, rooms.Round{RoomID: "nope"}, 100); return err },
		"Rounds":   func() error { _, err := s.Rounds(ctx, "nope"); return err },
		"UpdateRound": func() error {
			_, err := s.UpdateRound(ctx, r.ID, 7, func(rd *rooms.Round) error { return noop(rd) })
			return err
		},
		"PutGuess": func() error { return s.PutGuess(ctx, rooms.Guess{RoomID: r.ID, Seq: 1, MemberID: "nope"}) },
		"Guesses":  func() error { _, err := s.Guesses(ctx, "nope"); return err },
		"AddPin":   func() error { return s.AddPin(ctx, rooms.Pin{ID: "p", RoomID: r.ID, MemberID: "nope"}, 10, 100) },
		"Pins":     func() error { _, err := s.Pins(ctx, "nope"); return err },
		"UpdatePin": func() error {
			_, err := s.UpdatePin(ctx, r.ID, "nope", func(p *rooms.Pin) error { return noop(p) })
			return err
		},
	} {
		t.Run(name, func(t *testing.T) { wantErr(t, call(), rooms.ErrNotFound) })
	}
}

func testTouchMember(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	r, ms := seed(t, s, 2)
	seen := t0.Add(90 * time.Second)
	must(t, s.TouchMember(ctx, r.ID, ms[0].ID, seen))
	got, err := s.Members(ctx, r.ID)
	must(t, err)
	if !got[0].LastSeen.Equal(seen) || !got[1].LastSeen.IsZero() {
		t.Fatalf("last seen = %v and %v, want %v and zero", got[0].LastSeen, got[1].LastSeen, seen)
	}
	must(t, s.TouchMember(ctx, r.ID, ms[0].ID, time.Time{}))
	m, err := s.MemberByTokenHash(ctx, r.ID, ms[0].TokenHash)
	must(t, err)
	if !m.LastSeen.IsZero() {
		t.Fatalf("last seen after leaving = %v, want zero", m.LastSeen)
	}
	wantErr(t, s.TouchMember(ctx, r.ID, "nobody", seen), rooms.ErrNotFound)
	wantErr(t, s.TouchMember(ctx, "no-room", ms[0].ID, seen), rooms.ErrNotFound)
}

// testUnjoined: a room nobody has joined closes at the earlier cutoff, one with a member (even a
// kicked one) only at the idle one, and a closed room frees its place under the open-rooms limit.
func testUnjoined(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	empty, joined, kicked := room("empty", "BBBBB1"), room("joined", "BBBBB2"), room("kicked", "BBBBB3")
	for _, r := range []rooms.Room{empty, joined, kicked} {
		must(t, s.CreateRoom(ctx, r, 3))
	}
	must(t, s.AddMember(ctx, member("joined", "m1", "Ada"), 10))
	must(t, s.AddMember(ctx, member("kicked", "m2", "Bob"), 10))
	_, err := s.UpdateMember(ctx, "kicked", "m2", func(m *rooms.Member) error { m.Kicked = true; return nil })
	must(t, err)
	wantField(t, s.CreateRoom(ctx, room("fourth", "BBBBB4"), 3), "rooms")
	n, err := s.CloseIdleRooms(ctx, t0.Add(-time.Hour), t0.Add(time.Minute))
	must(t, err)
	if n != 1 {
		t.Fatalf("closed %d rooms, want the one nobody joined", n)
	}
	for id, closed := range map[string]bool{"empty": true, "joined": false, "kicked": false} {
		if r, err := s.RoomByID(ctx, id); err != nil || r.Closed != closed {
			t.Fatalf("room %s: closed %v (%v), want %v", id, r.Closed, err, closed)
		}
	}
	must(t, s.CreateRoom(ctx, room("fourth", "BBBBB4"), 3))
}
