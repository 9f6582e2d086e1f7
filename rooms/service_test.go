package rooms

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a settable time source, so lifecycle tests move a day without waiting one.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

type fixture struct {
	svc     *Service
	store   *MemStore
	clock   *clock
	code    string
	host    string
	created Created
}

func newFixture(t *testing.T, cfg Config) *fixture {
	t.Helper()
	c := &clock{now: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	cfg.Now = c.Now
	st := NewMemStore()
	svc := NewService(st, cfg)
	cr, err := svc.CreateRoom(context.Background(), "  Delivery   semantics ")
	if err != nil {
		t.Fatal(err)
	}
	if cr.Room.Title != "Delivery semantics" {
		t.Fatalf("title stored as %q", cr.Room.Title)
	}
	return &fixture{svc: svc, store: st, clock: c, code: cr.Room.Code, host: cr.HostKey, created: cr}
}

// identify resolves key in the fixture's room as a request's edge does: the room by its join code
// (read afresh, as each request reads it), then the key.
func (f *fixture) identify(key string) (Caller, error) {
	r, err := f.svc.RoomByCode(context.Background(), f.code)
	if err != nil {
		return Caller{Room: r}, err
	}
	return f.svc.Identify(context.Background(), r, key)
}

// as is the caller key makes in the fixture's room now; a refused key fails the test.
func (f *fixture) as(t *testing.T, key string) Caller {
	t.Helper()
	c, err := f.identify(key)
	if err != nil {
		t.Fatalf("identifying a key: %v", err)
	}
	return c
}

// room is the fixture's room as a request reads it now.
func (f *fixture) room(t *testing.T) Room {
	t.Helper()
	r, err := f.svc.RoomByCode(context.Background(), f.code)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (f *fixture) join(t *testing.T, name string) string {
	t.Helper()
	j, err := f.svc.Join(context.Background(), f.room(t), name)
	if err != nil {
		t.Fatalf("join %q: %v", name, err)
	}
	return j.MemberKey
}

func (f *fixture) round(t *testing.T, q Question) int {
	t.Helper()
	rd, err := f.svc.OpenRound(context.Background(), f.as(t, f.host), q)
	if err != nil {
		t.Fatal(err)
	}
	return rd.Seq
}

func measured(v float64) Measurer {
	return MeasureFunc(func(context.Context, Question) (float64, error) { return v, nil })
}

func is(t *testing.T, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("error = %v, want %v", err, want)
	}
}

var custom = Question{Kind: KindCustom, Text: "How many jobs lost?", Unit: "jobs", Min: 0, Max: 1000}

func TestCreateRoom(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{MaxOpenRooms: 2})
	for _, tc := range []struct {
		name, title string
		want        error
	}{
		{"empty", "  ", ErrInvalid},
		{"control character", "a\x00b", ErrInvalid},
		{"too long", strings.Repeat("x", 81), ErrInvalid},
		{"second room", "Another", nil},
		{"over the instance limit", "Third", ErrLimit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.svc.CreateRoom(ctx, tc.title)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("CreateRoom(%q) = %v, want %v", tc.title, err, tc.want)
			}
		})
	}
	// A closed room no longer counts against the limit.
	if err := f.svc.CloseRoom(ctx, f.as(t, f.host)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.CreateRoom(ctx, "Third"); err != nil {
		t.Fatalf("after a close: %v", err)
	}
}

func TestIdentify(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	ada := f.join(t, "Ada")
	bo := f.join(t, "Bo")
	st, _ := f.svc.State(ctx, f.as(t, f.host), nil)
	if err := f.svc.Kick(ctx, f.as(t, f.host), st.Roster[1].ID); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, code, key string
		role            Role
		want            error
	}{
		{"host", f.code, f.host, AsHost, nil},
		{"member", f.code, ada, AsMember, nil},
		{"member, code typed lower case", strings.ToLower(f.code), ada, AsMember, nil},
		{"no key", f.code, "", Nobody, nil},
		{"wrong key", f.code, "not-a-key", Nobody, ErrForbidden},
		{"kicked member", f.code, bo, Nobody, ErrKicked},
		{"unknown code", "ZZZZZZ", f.host, Nobody, ErrNotFound},
		{"malformed code", "ZZ", f.host, Nobody, ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := f.svc.RoomByCode(ctx, tc.code)
			var c Caller
			if err == nil {
				c, err = f.svc.Identify(ctx, r, tc.key)
			}
			if tc.want != nil {
				is(t, err, tc.want)
				if r.ID != "" {
					// The refused caller carries the refusal to whichever action it is handed.
					is(t, f.svc.Guess(ctx, c, 1, 1), tc.want)
				}
				return
			}
			if err != nil || c.Role != tc.role || c.Room.ID != r.ID {
				t.Fatalf("role %v in room %q, %v; want %v in %q", c.Role, c.Room.ID, err, tc.role, r.ID)
			}
		})
	}
}

func TestJoin(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{MaxMembers: 3})
	f.join(t, "Ada Lovelace")
	for _, tc := range []struct {
		name, in string
		want     error
		field    string
	}{
		{"same name other case", "ada LOVELACE", ErrTaken, "name"},
		{"same name extra spaces", " Ada   Lovelace ", ErrTaken, "name"},
		{"empty", " ", ErrInvalid, "name"},
		{"too long", strings.Repeat("n", 33), ErrInvalid, "name"},
		{"second seat", "Bo", nil, ""},
		{"third seat", "Cy", nil, ""},
		{"over the room limit", "Di", ErrLimit, "members"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.svc.Join(ctx, f.room(t), tc.in)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			is(t, err, tc.want)
			var fe *FieldError
			var le *LimitError
			if !(errors.As(err, &fe) && fe.Field == tc.field || errors.As(err, &le) && le.Field == tc.field) {
				t.Fatalf("error %v does not name %q", err, tc.field)
			}
		})
	}
	name, err := f.svc.SuggestName(ctx, f.room(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CleanName(name); err != nil {
		t.Fatalf("suggested %q: %v", name, err)
	}
}

func TestLockedAndClosedRoomsRefuseJoins(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	if err := f.svc.SetLocked(ctx, f.as(t, f.host), true); err != nil {
		t.Fatal(err)
	}
	_, err := f.svc.Join(ctx, f.room(t), "Ada")
	is(t, err, ErrRoomLocked)
	if err := f.svc.SetLocked(ctx, f.as(t, f.host), false); err != nil {
		t.Fatal(err)
	}
	f.join(t, "Ada")
	if err := f.svc.CloseRoom(ctx, f.as(t, f.host)); err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.Join(ctx, f.room(t), "Bo")
	is(t, err, ErrRoomClosed)
}

func TestHostOnly(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	ada := f.join(t, "Ada")
	seq := f.round(t, custom)
	for name, call := range map[string]func(key string) error{
		"lock room":  func(k string) error { return f.svc.SetLocked(ctx, f.as(t, k), true) },
		"close room": func(k string) error { return f.svc.CloseRoom(ctx, f.as(t, k)) },
		"present":    func(k string) error { return f.svc.Present(ctx, f.as(t, k), "/blocks/4") },
		"open round": func(k string) error { _, err := f.svc.OpenRound(ctx, f.as(t, k), custom); return err },
		"lock round": func(k string) error { _, err := f.svc.LockRound(ctx, f.as(t, k), seq); return err },
		"reveal":     func(k string) error { _, err := f.svc.Reveal(ctx, f.as(t, k), seq, measured(1)); return err },
		"names":      func(k string) error { return f.svc.SetNamesVisible(ctx, f.as(t, k), seq, true) },
		"rotate key": func(k string) error { _, _, err := f.svc.RotateHostKey(ctx, f.as(t, k)); return err },
		"export":     func(k string) error { _, err := f.svc.Export(ctx, f.as(t, k)); return err },
	} {
		t.Run(name, func(t *testing.T) {
			is(t, call(ada), ErrForbidden)
			is(t, call(""), ErrForbidden)
		})
	}
	// And a member-only action refuses the host.
	is(t, f.svc.Guess(ctx, f.as(t, f.host), seq, 1), ErrForbidden)
	// A caller put together by hand, not by Identify, is nobody.
	_, err := f.svc.OpenRound(ctx, Caller{Room: f.room(t), Role: AsHost}, custom)
	is(t, err, ErrForbidden)
	v, err := f.svc.State(ctx, Caller{Room: f.room(t), Role: AsHost}, nil)
	if err != nil || v.Role != Nobody || v.Roster != nil {
		t.Fatalf("a hand-made host's view: role %v, roster %v, %v; want nobody's", v.Role, v.Roster, err)
	}
}

func TestKickStopsKeyAtOnce(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	ada := f.join(t, "Ada")
	seq := f.round(t, custom)
	if err := f.svc.Guess(ctx, f.as(t, ada), seq, 5); err != nil {
		t.Fatal(err)
	}
	st, _ := f.svc.State(ctx, f.as(t, f.host), nil)
	if err := f.svc.Kick(ctx, f.as(t, f.host), st.Roster[0].ID); err != nil {
		t.Fatal(err)
	}
	_, err := f.identify(ada)
	is(t, err, ErrKicked)
	st, _ = f.svc.State(ctx, f.as(t, f.host), nil)
	if len(st.Roster) != 0 || st.Rounds[0].Answered != 0 || st.Rounds[0].Of != 0 {
		t.Fatalf("a kicked member still counts: %+v", st)
	}
	_, err = f.svc.Join(ctx, f.room(t), "ADA")
	is(t, err, ErrTaken)
}

func TestRotate(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	ada := f.join(t, "Ada")
	_, newHost, err := f.svc.RotateHostKey(ctx, f.as(t, f.host))
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.identify(f.host)
	is(t, err, ErrForbidden)
	if err := f.svc.SetLocked(ctx, f.as(t, newHost), true); err != nil {
		t.Fatalf("new host key: %v", err)
	}
	newCode, err := f.svc.RotateCode(ctx, f.as(t, newHost))
	if err != nil {
		t.Fatal(err)
	}
	if newCode == f.code {
		t.Fatal("code unchanged")
	}
	_, err = f.identify("")
	is(t, err, ErrNotFound)
	f.code = newCode
	if c, err := f.identify(ada); err != nil || c.Role != AsMember {
		t.Fatalf("member key after code rotation: %v %v", c.Role, err)
	}
}

// TestCallerIsAHint: a request resolves its caller once, and the room and seat it read are a
// hint. A member removed, a host key replaced or a room closed between that read and the write is
// refused in the write's own step, whatever the caller in hand still says.
func TestCallerIsAHint(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	ada, bo := f.join(t, "Ada"), f.join(t, "Bo")
	seq := f.round(t, Question{Kind: KindCustom, Text: "How many?", Max: 100})
	p, err := f.svc.AddPin(ctx, f.as(t, bo), "/blocks/4", "")
	if err != nil {
		t.Fatal(err)
	}

	adaThen := f.as(t, ada)
	st, _ := f.svc.State(ctx, f.as(t, f.host), nil)
	if err := f.svc.Kick(ctx, f.as(t, f.host), st.Roster[0].ID); err != nil {
		t.Fatal(err)
	}
	is(t, f.svc.Guess(ctx, adaThen, seq, 6), ErrKicked)
	_, err = f.svc.AddPin(ctx, adaThen, "/", "")
	is(t, err, ErrKicked)

	oldHost := f.as(t, f.host)
	_, key, err := f.svc.RotateHostKey(ctx, f.as(t, f.host))
	if err != nil {
		t.Fatal(err)
	}
	is(t, f.svc.SetLocked(ctx, oldHost, true), ErrForbidden)
	_, _, err = f.svc.NewHostLink(ctx, oldHost)
	is(t, err, ErrForbidden)

	boThen, host := f.as(t, bo), f.as(t, key)
	if err := f.svc.CloseRoom(ctx, f.as(t, key)); err != nil {
		t.Fatal(err)
	}
	if boThen.Room.Closed || host.Room.Closed {
		t.Fatal("the callers in hand were meant to predate the close")
	}
	for name, err := range map[string]error{
		"guess":       f.svc.Guess(ctx, boThen, seq, 7),
		"pin":         func() error { _, err := f.svc.AddPin(ctx, boThen, "/", ""); return err }(),
		"open round":  func() error { _, err := f.svc.OpenRound(ctx, host, custom); return err }(),
		"lock round":  func() error { _, err := f.svc.LockRound(ctx, host, seq); return err }(),
		"names":       f.svc.SetNamesVisible(ctx, host, seq, true),
		"kick":        f.svc.Kick(ctx, host, st.Roster[1].ID),
		"hide a pin":  f.svc.SetPinHidden(ctx, host, p.ID, true),
		"lock room":   f.svc.SetLocked(ctx, host, true),
		"second vote": func() error { _, err := f.svc.SecondVote(ctx, host, seq); return err }(),
	} {
		if !errors.Is(err, ErrRoomClosed) {
			t.Errorf("%s in a room closed after the caller was read: %v, want ErrRoomClosed", name, err)
		}
	}
	ex, err := f.svc.Export(ctx, host)
	if err != nil || len(ex.Rounds) != 1 || len(ex.Rounds[0].Guesses) != 0 || len(ex.Pins) != 1 || ex.Pins[0].Hidden ||
		ex.Roster[1].Kicked || ex.Rounds[0].State != RoundOpen {
		t.Fatalf("after the refusals the export holds %+v, %v; want nothing changed", ex, err)
	}
}
