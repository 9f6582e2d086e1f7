package rooms

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"time"
)

// MemStore is a Store held in memory behind one mutex. It serves tests and single-process trials,
// and it is the reference the SQL stores are checked against: whatever it answers, they answer.
type MemStore struct {
	mu    sync.Mutex
	rooms map[string]*memRoom // by room id
	codes map[string]string   // join code to room id
	// shares are the handlers' sources by share hash; like the SQL stores' shares, they outlive
	// the rooms they were submitted in.
	shares map[string]string
}

type memRoom struct {
	room    Room
	members []Member
	rounds  []Round
	guesses []Guess
	pins    []Pin
	subs    []Submission
}

// NewMemStore answers an empty store.
func NewMemStore() *MemStore {
	return &MemStore{rooms: map[string]*memRoom{}, codes: map[string]string{}, shares: map[string]string{}}
}

var _ Store = (*MemStore)(nil)

// errChanged guards the update methods: fn may change only what the record's owner may change.
var errChanged = errors.New("rooms: an update changed an identifying field")

func (s *MemStore) get(id string) (*memRoom, error) {
	r, ok := s.rooms[id]
	if !ok {
		return nil, ErrNotFound
	}
	return r, nil
}

// open answers the room with this id for a write to what it holds: RoomClosed once it is closed.
func (s *MemStore) open(id string) (*memRoom, error) {
	r, err := s.get(id)
	if err == nil && r.room.Closed {
		return nil, RoomClosed()
	}
	return r, err
}

// CreateRoom implements Store.
func (s *MemStore) CreateRoom(ctx context.Context, r Room, maxOpen int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.codes[r.Code]; ok {
		return fieldErr("code", ErrTaken, "the join code is in use")
	}
	if _, ok := s.rooms[r.ID]; ok {
		return fieldErr("id", ErrTaken, "the room id is in use")
	}
	open := 0
	for _, m := range s.rooms {
		if !m.room.Closed {
			open++
		}
	}
	if open >= maxOpen {
		return &LimitError{Field: "rooms", Max: maxOpen}
	}
	s.rooms[r.ID] = &memRoom{room: r}
	s.codes[r.Code] = r.ID
	return nil
}

// RoomByCode implements Store.
func (s *MemStore) RoomByCode(ctx context.Context, code string) (Room, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.codes[code]
	if !ok {
		return Room{}, ErrNotFound
	}
	return s.rooms[id].room, nil
}

// RoomByID implements Store.
func (s *MemStore) RoomByID(ctx context.Context, id string) (Room, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.get(id)
	if err != nil {
		return Room{}, err
	}
	return m.room, nil
}

// UpdateRoom implements Store.
func (s *MemStore) UpdateRoom(ctx context.Context, id string, fn func(*Room) error) (Room, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.get(id)
	if err != nil {
		return Room{}, err
	}
	r := m.room
	if err := fn(&r); err != nil {
		return Room{}, err
	}
	if r.ID != id {
		return Room{}, errChanged
	}
	if r.Code != m.room.Code {
		if _, ok := s.codes[r.Code]; ok {
			return Room{}, fieldErr("code", ErrTaken, "the join code is in use")
		}
		delete(s.codes, m.room.Code)
		s.codes[r.Code] = id
	}
	m.room = r
	return r, nil
}

// CloseIdleRooms implements Store.
func (s *MemStore) CloseIdleRooms(ctx context.Context, before, unjoinedBefore time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, m := range s.rooms {
		if !m.room.Closed && (m.room.LastActivity.Before(before) || len(m.members) == 0 && m.room.LastActivity.Before(unjoinedBefore)) {
			m.room.Closed = true
			n++
		}
	}
	return n, nil
}

// DeleteIdleRooms implements Store.
func (s *MemStore) DeleteIdleRooms(ctx context.Context, before time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id, m := range s.rooms {
		if m.room.Closed && m.room.LastActivity.Before(before) {
			delete(s.codes, m.room.Code)
			delete(s.rooms, id)
			n++
		}
	}
	return n, nil
}

// AddMember implements Store.
func (s *MemStore) AddMember(ctx context.Context, mem Member, max int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.get(mem.RoomID)
	if err != nil {
		return err
	}
	switch {
	case m.room.Closed:
		return fieldErr("code", ErrRoomClosed, "the room is closed")
	case m.room.Locked:
		return fieldErr("code", ErrRoomLocked, "the room is locked to new members")
	}
	seated := 0
	key := NameKey(mem.Name)
	for _, o := range m.members {
		if NameKey(o.Name) == key {
			return fieldErr("name", ErrTaken, "someone in the room already uses this name")
		}
		if o.ID == mem.ID || o.TokenHash == mem.TokenHash {
			return fieldErr("id", ErrTaken, "the member id or key is in use")
		}
		if !o.Kicked {
			seated++
		}
	}
	if seated >= max {
		return &LimitError{Field: "members", Max: max}
	}
	m.members = append(m.members, mem)
	return nil
}

// Members implements Store.
func (s *MemStore) Members(ctx context.Context, roomID string) ([]Member, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.get(roomID)
	if err != nil {
		return nil, err
	}
	return slices.Clone(m.members), nil
}

// MemberByTokenHash implements Store.
func (s *MemStore) MemberByTokenHash(ctx context.Context, roomID string, h Hash) (Member, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.get(roomID)
	if err != nil {
		return Member{}, err
	}
	for _, o := range m.members {
		if o.TokenHash == h {
			return o, nil
		}
	}
	return Member{}, ErrNotFound
}

// TouchMember implements Store.
func (s *MemStore) TouchMember(ctx context.Context, roomID, memberID string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.get(roomID)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(m.members, func(o Member) bool { return o.ID == memberID })
	if i < 0 {
		return ErrNotFound
	}
	m.members[i].LastSeen = at
	return nil
}

// UpdateMember implements Store.
func (s *MemStore) UpdateMember(ctx context.Context, roomID, memberID string, fn func(*Member) error) (Member, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.open(roomID)
	if err != nil {
		return Member{}, err
	}
	i := slices.IndexFunc(m.members, func(o Member) bool { return o.ID == memberID })
	if i < 0 {
		return Member{}, ErrNotFound
	}
	o := m.members[i]
	if err := fn(&o); err != nil {
		return Member{}, err
	}
	if o.ID != memberID || o.RoomID != roomID || o.Name != m.members[i].Name {
		return Member{}, errChanged
	}
	m.members[i] = o
	return o, nil
}

// AddRound implements Store.
func (s *MemStore) AddRound(ctx context.Context, r Round, max int) (Round, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.open(r.RoomID)
	if err != nil {
		return Round{}, err
	}
	if len(m.rounds) >= max {
		return Round{}, &LimitError{Field: "rounds", Max: max}
	}
	if r.State == RoundOpen {
		m.lockOpen(0)
	}
	r.Seq = len(m.rounds) + 1
	r.Votes, r.Vote = cmp.Or(r.Votes, 1), cmp.Or(r.Vote, 1)
	m.rounds = append(m.rounds, r)
	return r, nil
}

// Rounds implements Store.
func (s *MemStore) Rounds(ctx context.Context, roomID string) ([]Round, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.get(roomID)
	if err != nil {
		return nil, err
	}
	return slices.Clone(m.rounds), nil
}

// UpdateRound implements Store.
func (s *MemStore) UpdateRound(ctx context.Context, roomID string, seq int, fn func(*Round) error) (Round, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.open(roomID)
	if err != nil {
		return Round{}, err
	}
	if seq < 1 || seq > len(m.rounds) {
		return Round{}, ErrNotFound
	}
	r := m.rounds[seq-1]
	if err := fn(&r); err != nil {
		return Round{}, err
	}
	if r.RoomID != roomID || r.Seq != seq {
		return Round{}, errChanged
	}
	if r.State == RoundOpen && m.rounds[seq-1].State != RoundOpen {
		if seq != len(m.rounds) {
			return Round{}, NotNewest(seq, len(m.rounds))
		}
		m.lockOpen(seq)
	}
	r.Votes, r.Vote = cmp.Or(r.Votes, 1), cmp.Or(r.Vote, 1)
	m.rounds[seq-1] = r
	return r, nil
}

// lockOpen locks every open round of the room but the one numbered except (0: every one).
func (m *memRoom) lockOpen(except int) {
	for i := range m.rounds {
		if m.rounds[i].State == RoundOpen && m.rounds[i].Seq != except {
			m.rounds[i].State = RoundLocked
		}
	}
}

// PutGuess implements Store.
func (s *MemStore) PutGuess(ctx context.Context, g Guess) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.open(g.RoomID)
	if err != nil {
		return err
	}
	if g.Seq < 1 || g.Seq > len(m.rounds) {
		return ErrNotFound
	}
	g.Vote = cmp.Or(g.Vote, 1)
	if err := m.rounds[g.Seq-1].Takes(g); err != nil {
		return err
	}
	i := slices.IndexFunc(m.members, func(o Member) bool { return o.ID == g.MemberID })
	if i < 0 {
		return ErrNotFound
	}
	if m.members[i].Kicked {
		return ErrKicked
	}
	m.guesses = slices.DeleteFunc(m.guesses, func(o Guess) bool {
		return o.Seq == g.Seq && o.MemberID == g.MemberID && o.Vote == g.Vote
	})
	m.guesses = append(m.guesses, g)
	return nil
}

// Guesses implements Store.
func (s *MemStore) Guesses(ctx context.Context, roomID string) ([]Guess, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.get(roomID)
	if err != nil {
		return nil, err
	}
	gs := slices.Clone(m.guesses)
	slices.SortStableFunc(gs, func(a, b Guess) int {
		return cmp.Or(cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.Vote, b.Vote), a.At.Compare(b.At))
	})
	return gs, nil
}

// AddPin implements Store.
func (s *MemStore) AddPin(ctx context.Context, p Pin, max, perRoom int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.open(p.RoomID)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(m.members, func(o Member) bool { return o.ID == p.MemberID })
	switch {
	case i < 0:
		return ErrNotFound
	case m.members[i].Kicked:
		return ErrKicked
	}
	n := 0
	for _, o := range m.pins {
		if o.ID == p.ID {
			return fieldErr("id", ErrTaken, "the pin id is in use")
		}
		if o.MemberID == p.MemberID {
			n++
		}
	}
	if n >= max {
		return &LimitError{Field: "pins", Max: max}
	}
	if len(m.pins) >= perRoom {
		return &LimitError{Field: "board", Max: perRoom}
	}
	m.pins = append(m.pins, p)
	return nil
}

// Pins implements Store.
func (s *MemStore) Pins(ctx context.Context, roomID string) ([]Pin, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.get(roomID)
	if err != nil {
		return nil, err
	}
	ps := slices.Clone(m.pins)
	// Stable and reversed, so pins made in the same instant still come newest first.
	slices.Reverse(ps)
	slices.SortStableFunc(ps, func(a, b Pin) int { return b.At.Compare(a.At) })
	return ps, nil
}

// UpdatePin implements Store.
func (s *MemStore) UpdatePin(ctx context.Context, roomID, pinID string, fn func(*Pin) error) (Pin, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.open(roomID)
	if err != nil {
		return Pin{}, err
	}
	i := slices.IndexFunc(m.pins, func(o Pin) bool { return o.ID == pinID })
	if i < 0 {
		return Pin{}, ErrNotFound
	}
	p := m.pins[i]
	if err := fn(&p); err != nil {
		return Pin{}, err
	}
	if p.ID != pinID || p.RoomID != roomID {
		return Pin{}, errChanged
	}
	m.pins[i] = p
	return p, nil
}
