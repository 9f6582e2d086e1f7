package rooms

import (
	"context"
	"crypto/rand"
	"errors"
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

// Service applies the rules of study rooms on top of a Store. Every method takes the room's join
// code and the caller's key as the transport received them; the Service decides who the caller
// is, so no handler can forget to check.
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
// so a room never looks open between sweeps.
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

// Caller is who presented a key: the host, a member (with their seat), or nobody.
type Caller struct {
	Role   Role
	Member Member
}

// Identify resolves a key to a caller of the room with this code. An empty key is nobody; a key
// that matches neither the host nor a seat is ErrForbidden, and a kicked member's is ErrKicked.
func (s *Service) Identify(ctx context.Context, code, key string) (Room, Caller, error) {
	r, err := s.room(ctx, code)
	if err != nil || key == "" {
		return r, Caller{}, err
	}
	if !r.HostKeyHash.IsZero() && r.HostKeyHash.Matches(key) {
		return r, Caller{Role: AsHost}, nil
	}
	m, err := s.store.MemberByTokenHash(ctx, r.ID, HashKey(key))
	switch {
	case errors.Is(err, ErrNotFound):
		return r, Caller{}, ErrForbidden
	case err != nil:
		return r, Caller{}, err
	case !m.TokenHash.Matches(key):
		return r, Caller{}, ErrForbidden
	case m.Kicked:
		return r, Caller{}, ErrKicked
	}
	return r, Caller{Role: AsMember, Member: m}, nil
}

func (s *Service) host(ctx context.Context, code, key string) (Room, error) {
	r, c, err := s.Identify(ctx, code, key)
	if err != nil {
		return r, err
	}
	if c.Role != AsHost {
		return r, ErrForbidden
	}
	return r, nil
}

func (s *Service) member(ctx context.Context, code, key string) (Room, Member, error) {
	r, c, err := s.Identify(ctx, code, key)
	if err != nil {
		return r, Member{}, err
	}
	if c.Role != AsMember {
		return r, Member{}, ErrForbidden
	}
	return r, c.Member, nil
}

// changing is the gate every change passes: a closed room refuses, and an open one records the
// activity that keeps it open.
func (s *Service) changing(ctx context.Context, r Room) error {
	if r.Closed {
		return fieldErr("code", ErrRoomClosed, "the room is closed; its host can still export it")
	}
	now := s.cfg.Now()
	if now.Sub(r.LastActivity) < touchEvery {
		return nil
	}
	_, err := s.store.UpdateRoom(ctx, r.ID, func(r *Room) error {
		if r.Closed {
			return fieldErr("code", ErrRoomClosed, "the room is closed; its host can still export it")
		}
		r.LastActivity = now
		return nil
	})
	return err
}

// updateRoom is a host change to the room itself, gated like every change.
func (s *Service) updateRoom(ctx context.Context, code, hostKey string, fn func(*Room) error) (Room, error) {
	r, err := s.host(ctx, code, hostKey)
	if err != nil {
		return r, err
	}
	if err := s.changing(ctx, r); err != nil {
		return r, err
	}
	now := s.cfg.Now()
	r, err = s.store.UpdateRoom(ctx, r.ID, func(r *Room) error {
		if r.Closed {
			return fieldErr("code", ErrRoomClosed, "the room is closed")
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

// Join seats a member under a display name. The store checks the name, the lock and the limit
// in the same step as the insert, since a class joins all at once.
func (s *Service) Join(ctx context.Context, code, name string) (Joined, error) {
	name, err := CleanName(name)
	if err != nil {
		return Joined{}, err
	}
	r, err := s.room(ctx, code)
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

// SuggestName offers a friendly name that nobody in the room uses yet.
func (s *Service) SuggestName(ctx context.Context, code string) (string, error) {
	r, err := s.room(ctx, code)
	if err != nil {
		return "", err
	}
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
// soon as this returns, and so does an unused host link, which carries the old key.
func (s *Service) RotateHostKey(ctx context.Context, code, hostKey string) (string, error) {
	key, err := NewKey(s.cfg.Rand)
	if err != nil {
		return "", err
	}
	_, err = s.updateRoom(ctx, code, hostKey, func(r *Room) error { r.HostKeyHash, r.HostLink = HashKey(key), HostLink{}; return nil })
	if err != nil {
		return "", err
	}
	return key, nil
}

// RotateCode gives the room a new join code, for a code that reached people it should not; the
// old code finds nothing afterwards, while seated members keep their keys.
func (s *Service) RotateCode(ctx context.Context, code, hostKey string) (string, error) {
	var err error
	for range 8 {
		var c string
		if c, err = NewCode(s.cfg.Rand); err != nil {
			return "", err
		}
		var r Room
		r, err = s.updateRoom(ctx, code, hostKey, func(r *Room) error { r.Code = c; return nil })
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
func (s *Service) SetLocked(ctx context.Context, code, hostKey string, locked bool) error {
	_, err := s.updateRoom(ctx, code, hostKey, func(r *Room) error { r.Locked = locked; return nil })
	return err
}

// CloseRoom ends the session for good: every change is refused afterwards, the export is not.
func (s *Service) CloseRoom(ctx context.Context, code, hostKey string) error {
	_, err := s.updateRoom(ctx, code, hostKey, func(r *Room) error { r.Closed = true; return nil })
	return err
}

// Present sets the page the host is showing; followers open it. An empty path stops presenting.
func (s *Service) Present(ctx context.Context, code, hostKey, path string) error {
	if path != "" {
		var err error
		if path, err = CleanPath("path", path); err != nil {
			return err
		}
	}
	_, err := s.updateRoom(ctx, code, hostKey, func(r *Room) error { r.Presenting = path; return nil })
	return err
}

// Kick removes a member: their key stops working at once and their seat is freed, while their
// name stays taken so nobody can step into it mid-session.
func (s *Service) Kick(ctx context.Context, code, hostKey, memberID string) error {
	return s.hostChange(ctx, code, hostKey, func(r Room) error {
		_, err := s.store.UpdateMember(ctx, r.ID, memberID, func(m *Member) error { m.Kicked = true; return nil })
		return notFoundAs(err, "member", noMember)
	})
}

// hostChange makes one host change to something in the room (a member, a round, a pin): the key
// must be the host's and the room open, and the room hears of the change once it is stored. Every
// such change goes through here, so none can forget the check or the announcement.
func (s *Service) hostChange(ctx context.Context, code, hostKey string, change func(r Room) error) error {
	r, err := s.host(ctx, code, hostKey)
	if err != nil {
		return err
	}
	if err := s.changing(ctx, r); err != nil {
		return err
	}
	if err := change(r); err != nil {
		return err
	}
	s.changed(ctx, r.ID)
	return nil
}

// AddPin puts a run on the board with a note of at most MaxNoteLength characters.
func (s *Service) AddPin(ctx context.Context, code, memberKey, path, note string) (Pin, error) {
	path, err := CleanPath("path", path)
	if err != nil {
		return Pin{}, err
	}
	note = strings.TrimSpace(note)
	if !plain(note, MaxNoteLength) {
		return Pin{}, fieldErr("note", ErrInvalid, "a note is at most %d characters of plain text", MaxNoteLength)
	}
	r, m, err := s.member(ctx, code, memberKey)
	if err != nil {
		return Pin{}, err
	}
	if err := s.changing(ctx, r); err != nil {
		return Pin{}, err
	}
	id, err := newID(s.cfg.Rand)
	if err != nil {
		return Pin{}, err
	}
	p := Pin{ID: id, RoomID: r.ID, MemberID: m.ID, Path: path, Note: note, At: s.cfg.Now()}
	if err := s.store.AddPin(ctx, p, s.cfg.MaxPins, s.cfg.MaxBoard); err != nil {
		return Pin{}, err
	}
	s.changed(ctx, r.ID)
	return p, nil
}

// SetPinHidden hides a pin from members (or shows it again); the host still sees it, marked.
func (s *Service) SetPinHidden(ctx context.Context, code, hostKey, pinID string, hidden bool) error {
	return s.hostChange(ctx, code, hostKey, func(r Room) error {
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
