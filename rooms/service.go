package rooms

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Config holds the limits and clocks a Service runs with. A zero field takes its default, so
// Config{} is the instance the issue describes.
type Config struct {
	MaxMembers   int           // members a room seats (100; at most MaxMembersLimit)
	MaxOpenRooms int           // rooms open at once on the instance (200)
	MaxPins      int           // pins a member may make (20)
	MaxBoard     int           // pins a room's board holds, from every member (200)
	MaxRounds    int           // rounds a room may ask (100)
	IdleClose    time.Duration // a room closes after this long without activity (24 h)
	// UnjoinedClose closes a room nobody has joined after this long without activity (1 h): a
	// flood of rooms that nobody uses must not hold the open-rooms limit for a day.
	UnjoinedClose time.Duration
	DeleteAfter   time.Duration // a closed room is deleted this long after its last activity (30 days)
	Now           func() time.Time
	Rand          io.Reader // source of codes, keys and ids; crypto/rand unless a test fixes it
	// Notify hears of every change to a room after it is stored, so that live views can redraw;
	// the server hands it to its hub. It must not block. nil means nobody listens.
	Notify func(ctx context.Context, roomID string)
}

// MaxMembersLimit is the most members an instance may let a room seat: a lecture hall of 300
// with room to spare. Past it, one room's change would redraw more screens than a reader of the
// room is built to keep under a second.
const MaxMembersLimit = 500

// Validate reports a setting no Service runs with, for a server to refuse at start rather than
// have NewService quietly bound it: today, MaxMembers above MaxMembersLimit.
func (c Config) Validate() error {
	if c.MaxMembers > MaxMembersLimit {
		return &LimitError{Field: "members", Max: MaxMembersLimit}
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.MaxMembers <= 0 {
		c.MaxMembers = 100
	}
	c.MaxMembers = min(c.MaxMembers, MaxMembersLimit)
	if c.MaxOpenRooms <= 0 {
		c.MaxOpenRooms = 200
	}
	if c.MaxPins <= 0 {
		c.MaxPins = 20
	}
	// A board and a history are drawn on every member's screen: bounded, a room's page stays
	// small however long the session (3,000 rounds once made a member's page of 985 KB).
	if c.MaxBoard <= 0 {
		c.MaxBoard = 200
	}
	if c.MaxRounds <= 0 {
		c.MaxRounds = 100
	}
	if c.IdleClose <= 0 {
		c.IdleClose = 24 * time.Hour
	}
	if c.UnjoinedClose <= 0 {
		c.UnjoinedClose = time.Hour
	}
	if c.DeleteAfter <= 0 {
		c.DeleteAfter = 30 * 24 * time.Hour
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Rand == nil {
		c.Rand = rand.Reader
	}
	return c
}

// Service applies the rules of study rooms on top of a Store.
//
// A request resolves who acts once, at its edge: the room (RoomByID for a page, whose URL names
// the room's permanent id; RoomByCode for the API, which names its join code), then the key in it
// (Identify), which answers a Caller. Every action takes that Caller, so one action reads the room
// once, and decides by the Caller's role, so no handler can forget to check. What a Caller says of
// its room is a hint, good for a quick refusal: whatever can change between the read and the write
// (the room closed, the member removed, the host key replaced, the round moved on, a limit
// reached) is checked again by the Store in the step that writes.
type Service struct {
	store Store
	cfg   Config
}

// NewService answers a Service over st with cfg's limits (defaults for zero fields).
func NewService(st Store, cfg Config) *Service {
	// Every read is counted (see StoreReads): the one figure that says whether live rooms cost the
	// store per change or per viewer.
	return &Service{store: &countingStore{Store: st}, cfg: cfg.withDefaults()}
}

// changed tells whoever listens that the room with this id has changed.
func (s *Service) changed(ctx context.Context, roomID string) {
	if s.cfg.Notify != nil {
		s.cfg.Notify(ctx, roomID)
	}
}

// Config answers the limits in force, for a README or an error page to quote.
func (s *Service) Config() Config { return s.cfg }

// touchEvery spares the store a room write on every guess: activity is only needed to the
// minute to close a room after a day.
const touchEvery = time.Minute

// maxTitle bounds a room's title, shown in every member's header.
const maxTitle = 80

// Created is what a host receives once when opening a room: the key is never shown again, and the
// token of the room's first host link (see HostLink) carries it to a second device.
type Created struct {
	Room      Room
	HostKey   string
	LinkToken string
}

// CreateRoom opens a room with a fresh join code and host key. Idle rooms are closed first, so
// that forgotten rooms do not count against the instance's limit.
func (s *Service) CreateRoom(ctx context.Context, title string) (Created, error) {
	title = strings.Join(strings.Fields(title), " ")
	if title == "" || !plain(title, maxTitle) {
		return Created{}, fieldErr("title", ErrInvalid, "a title is 1 to %d characters of plain text", maxTitle)
	}
	now := s.cfg.Now()
	if _, err := s.store.CloseIdleRooms(ctx, now.Add(-s.cfg.IdleClose), now.Add(-s.cfg.UnjoinedClose)); err != nil {
		return Created{}, err
	}
	key, err := NewKey(s.cfg.Rand)
	if err != nil {
		return Created{}, err
	}
	id, err := newID(s.cfg.Rand)
	if err != nil {
		return Created{}, err
	}
	link, token, err := newHostLink(s.cfg.Rand, key, now)
	if err != nil {
		return Created{}, err
	}
	r := Room{ID: id, Title: title, HostKeyHash: HashKey(key), CreatedAt: now, LastActivity: now, HostLink: link}
	// A clash among 2^30 codes is rare while rooms number in hundreds; a few tries make it vanish.
	for range 8 {
		if r.Code, err = NewCode(s.cfg.Rand); err != nil {
			return Created{}, err
		}
		err = s.store.CreateRoom(ctx, r, s.cfg.MaxOpenRooms)
		if !errors.Is(err, ErrTaken) {
			break
		}
	}
	if err != nil {
		return Created{}, err
	}
	return Created{Room: r, HostKey: key, LinkToken: token}, nil
}

// room finds a room by a code as typed and closes it on the spot if it has been idle too long,
// so a room never looks open between sweeps (see RoomByCode).
func (s *Service) room(ctx context.Context, code string) (Room, error) {
	c, err := ParseCode(code)
	if err != nil {
		return Room{}, err
	}
	r, err := s.store.RoomByCode(ctx, c)
	if err != nil {
		return Room{}, notFoundAs(err, "code", noRoom)
	}
	return s.closeIfIdle(ctx, r)
}

// Role says who a caller is to a room.
type Role int

// The three kinds of caller. Nobody is a caller with no key: they may learn that a room exists
// and whether it takes members, nothing more.
const (
	Nobody Role = iota
	AsMember
	AsHost
)

// Caller is who acts in a room, as Identify resolved them at the edge of one request: the room as
// it was read then, the caller's role and, for a member, their seat. Only Identify (or a
// Snapshot) makes a Caller that may act; the zero Caller, or one put together by hand, is nobody.
//
// A key that earned a refusal (ErrForbidden, ErrKicked, or the store out of reach) makes a Caller
// that carries it: an action handed one answers that refusal where it checks who acts, after the
// checks of its own input, so a request gets the same answer whether its key was looked at first
// or last.
type Caller struct {
	Room   Room
	Role   Role
	Member Member

	key     string // the key as presented: a host link seals the host's
	refused error
}

// Identify resolves a key to a caller of room r, which the request has just read: an empty key is
// nobody; a key that matches neither the host nor a seat is ErrForbidden, and a removed member's is
// ErrKicked. It reads the store only for a member's key (one seat, by the key's hash). The Caller
// answered carries the refusal as well (see Caller).
func (s *Service) Identify(ctx context.Context, r Room, key string) (Caller, error) {
	c := Caller{Room: r}
	if key == "" {
		return c, nil
	}
	if !r.HostKeyHash.IsZero() && r.HostKeyHash.Matches(key) {
		c.Role, c.key = AsHost, key
		return c, nil
	}
	m, err := s.store.MemberByTokenHash(ctx, r.ID, HashKey(key))
	switch {
	case errors.Is(err, ErrNotFound):
		err = ErrForbidden
	case err != nil:
	case !m.TokenHash.Matches(key):
		err = ErrForbidden
	case m.Kicked:
		err = ErrKicked
	default:
		c.Role, c.Member, c.key = AsMember, m, key
		return c, nil
	}
	c.refused = err
	return c, err
}

// Err answers the refusal c's key earned at Identify (ErrForbidden, ErrKicked, or the store out
// of reach), and nil for a caller Identify resolved, nobody included.
func (c Caller) Err() error { return c.refused }

// String says who c is without the key they presented, so that a Caller printed in a log line or
// a test's failure never shows it.
func (c Caller) String() string {
	switch {
	case c.refused != nil:
		return fmt.Sprintf("a refused key in room %s (%v)", c.Room.ID, c.refused)
	case c.Role == AsHost:
		return "the host of room " + c.Room.ID
	case c.Role == AsMember:
		return fmt.Sprintf("member %s (%s) of room %s", c.Member.ID, c.Member.Name, c.Room.ID)
	}
	return "nobody in room " + c.Room.ID
}

// may answers nil when c may act as role, and otherwise the refusal: the one its key earned at
// Identify, or ErrForbidden.
func (c Caller) may(role Role) error {
	switch {
	case c.refused != nil:
		return c.refused
	case c.Role != role || c.key == "":
		return ErrForbidden
	}
	return nil
}

// changing is the gate every change passes: a closed room refuses, and an open one records the
// activity that keeps it open.
func (s *Service) changing(ctx context.Context, r Room) error {
	if r.Closed {
		return RoomClosed()
	}
	now := s.cfg.Now()
	if now.Sub(r.LastActivity) < touchEvery {
		return nil
	}
	_, err := s.store.UpdateRoom(ctx, r.ID, func(r *Room) error {
		if r.Closed {
			return RoomClosed()
		}
		r.LastActivity = now
		return nil
	})
	return err
}

// updateRoom is a host change to the room itself, gated like every change. The store's step checks
// again what may have changed since the request read the room: it must still be open, and the
// caller's key still its host's.
func (s *Service) updateRoom(ctx context.Context, c Caller, fn func(*Room) error) (Room, error) {
	if err := c.may(AsHost); err != nil {
		return c.Room, err
	}
	if c.Room.Closed {
		return c.Room, RoomClosed()
	}
	now := s.cfg.Now()
	r, err := s.store.UpdateRoom(ctx, c.Room.ID, func(r *Room) error {
		switch {
		case r.Closed:
			return RoomClosed()
		case !r.HostKeyHash.Matches(c.key):
			return ErrForbidden // replaced since the request read the room
		}
		r.LastActivity = now
		return fn(r)
	})
	if err == nil {
		s.changed(ctx, r.ID)
	}
	return r, err
}

// Joined is what a new member receives once: their seat and the key that holds it.
type Joined struct {
	Member    Member
	MemberKey string
}

// Join seats a member in room r under a display name. The name is checked first; the store checks
// the name's uniqueness, the lock and the limit in the same step as the insert, since a class
// joins all at once.
func (s *Service) Join(ctx context.Context, r Room, name string) (Joined, error) {
	name, err := CleanName(name)
	if err != nil {
		return Joined{}, err
	}
	if err := s.changing(ctx, r); err != nil {
		return Joined{}, err
	}
	if r.Locked {
		return Joined{}, fieldErr("code", ErrRoomLocked, "the room is locked to new members")
	}
	key, err := NewKey(s.cfg.Rand)
	if err != nil {
		return Joined{}, err
	}
	id, err := newID(s.cfg.Rand)
	if err != nil {
		return Joined{}, err
	}
	m := Member{ID: id, RoomID: r.ID, Name: name, TokenHash: HashKey(key), JoinedAt: s.cfg.Now()}
	if err := s.store.AddMember(ctx, m, s.cfg.MaxMembers); err != nil {
		return Joined{}, err
	}
	s.changed(ctx, r.ID)
	return Joined{Member: m, MemberKey: key}, nil
}

// SuggestName offers a friendly name that nobody in room r uses yet.
func (s *Service) SuggestName(ctx context.Context, r Room) (string, error) {
	ms, err := s.store.Members(ctx, r.ID)
	if err != nil {
		return "", err
	}
	used := make(map[string]bool, len(ms))
	for _, m := range ms {
		used[NameKey(m.Name)] = true
	}
	for {
		n, err := FriendlyName(s.cfg.Rand)
		if err != nil || !used[NameKey(n)] {
			return n, err
		}
	}
}

// RotateHostKey replaces the host key, for a host whose key leaked; the old key stops working as
// soon as this returns, and so does an unused host link, which carries the old key. It answers
// the host as the new key makes them, for what the request does next (a new host link).
func (s *Service) RotateHostKey(ctx context.Context, host Caller) (Caller, string, error) {
	key, err := NewKey(s.cfg.Rand)
	if err != nil {
		return Caller{}, "", err
	}
	r, err := s.updateRoom(ctx, host, func(r *Room) error { r.HostKeyHash, r.HostLink = HashKey(key), HostLink{}; return nil })
	if err != nil {
		return Caller{}, "", err
	}
	return Caller{Room: r, Role: AsHost, key: key}, key, nil
}

// RotateCode gives the room a new join code, for a code that reached people it should not; the
// old code finds nothing afterwards, while seated members keep their keys.
func (s *Service) RotateCode(ctx context.Context, host Caller) (string, error) {
	var err error
	for range 8 {
		var c string
		if c, err = NewCode(s.cfg.Rand); err != nil {
			return "", err
		}
		var r Room
		r, err = s.updateRoom(ctx, host, func(r *Room) error { r.Code = c; return nil })
		if err == nil {
			return r.Code, nil
		}
		if !errors.Is(err, ErrTaken) {
			return "", err
		}
	}
	return "", err
}

// SetLocked locks the room to new members, or opens it again.
func (s *Service) SetLocked(ctx context.Context, host Caller, locked bool) error {
	_, err := s.updateRoom(ctx, host, func(r *Room) error { r.Locked = locked; return nil })
	return err
}

// CloseRoom ends the session for good: every change is refused afterwards, the export is not.
func (s *Service) CloseRoom(ctx context.Context, host Caller) error {
	_, err := s.updateRoom(ctx, host, func(r *Room) error { r.Closed = true; return nil })
	return err
}

// Present sets the page the host is showing; followers open it. An empty path stops presenting.
func (s *Service) Present(ctx context.Context, host Caller, path string) error {
	if path != "" {
		var err error
		if path, err = CleanPath("path", path); err != nil {
			return err
		}
	}
	_, err := s.updateRoom(ctx, host, func(r *Room) error { r.Presenting = path; return nil })
	return err
}

// Kick removes a member: their key stops working at once and their seat is freed, while their
// name stays taken so nobody can step into it mid-session.
func (s *Service) Kick(ctx context.Context, host Caller, memberID string) error {
	return s.hostChange(ctx, host, func(r Room) error {
		_, err := s.store.UpdateMember(ctx, r.ID, memberID, func(m *Member) error { m.Kicked = true; return nil })
		return notFoundAs(err, "member", noMember)
	})
}

// hostChange makes one host change to something in the room (a member, a round, a pin): the
// caller must be the host and the room open, and the room hears of the change once it is stored.
// Every such change goes through here, so none can forget the check or the announcement; the
// store's step refuses it if the room closed since the request read it.
func (s *Service) hostChange(ctx context.Context, host Caller, change func(r Room) error) error {
	if err := host.may(AsHost); err != nil {
		return err
	}
	if err := s.changing(ctx, host.Room); err != nil {
		return err
	}
	if err := change(host.Room); err != nil {
		return err
	}
	s.changed(ctx, host.Room.ID)
	return nil
}

// AddPin puts a run on the board with a note of at most MaxNoteLength characters. The store
// refuses it if the room closed or the member was removed since the request read them.
func (s *Service) AddPin(ctx context.Context, member Caller, path, note string) (Pin, error) {
	path, err := CleanPath("path", path)
	if err != nil {
		return Pin{}, err
	}
	note = strings.TrimSpace(note)
	if !plain(note, MaxNoteLength) {
		return Pin{}, fieldErr("note", ErrInvalid, "a note is at most %d characters of plain text", MaxNoteLength)
	}
	if err := member.may(AsMember); err != nil {
		return Pin{}, err
	}
	r := member.Room
	if err := s.changing(ctx, r); err != nil {
		return Pin{}, err
	}
	id, err := newID(s.cfg.Rand)
	if err != nil {
		return Pin{}, err
	}
	p := Pin{ID: id, RoomID: r.ID, MemberID: member.Member.ID, Path: path, Note: note, At: s.cfg.Now()}
	if err := s.store.AddPin(ctx, p, s.cfg.MaxPins, s.cfg.MaxBoard); err != nil {
		return Pin{}, err
	}
	s.changed(ctx, r.ID)
	return p, nil
}

// SetPinHidden hides a pin from members (or shows it again); the host still sees it, marked.
func (s *Service) SetPinHidden(ctx context.Context, host Caller, pinID string, hidden bool) error {
	return s.hostChange(ctx, host, func(r Room) error {
		_, err := s.store.UpdatePin(ctx, r.ID, pinID, func(p *Pin) error { p.Hidden = hidden; return nil })
		return notFoundAs(err, "pin", noPin)
	})
}

// Sweep closes rooms idle past IdleClose (or past UnjoinedClose with nobody joined) and deletes closed rooms idle past DeleteAfter. The
// server runs it on a timer; reads close idle rooms lazily in between.
func (s *Service) Sweep(ctx context.Context) (closed, deleted int, err error) {
	now := s.cfg.Now()
	if closed, err = s.store.CloseIdleRooms(ctx, now.Add(-s.cfg.IdleClose), now.Add(-s.cfg.UnjoinedClose)); err != nil {
		return 0, 0, err
	}
	deleted, err = s.store.DeleteIdleRooms(ctx, now.Add(-s.cfg.DeleteAfter))
	return closed, deleted, err
}
